import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrontendFiles } from './frontend-files';
import type { PagesConfig } from './pages.config';

/** A FrontendFiles over `frontendDir`. */
const filesFor = (frontendDir?: string) => new FrontendFiles({ frontendDir } as PagesConfig);

describe('FrontendFiles', () => {
  let base: string;
  let dir: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'frontend-files-')));
    dir = join(base, 'site');
    await mkdir(join(dir, 'en', 'admin'), { recursive: true });
    await writeFile(join(dir, 'index.html'), 'shell');
    await writeFile(join(dir, 'en', 'dashboard.html'), 'dashboard');
    await writeFile(join(dir, 'en', 'admin', 'index.html'), 'admin');
    await writeFile(join(dir, '.env'), 'secret');
    await writeFile(join(base, 'outside.html'), 'outside');
    await symlink(join(base, 'outside.html'), join(dir, 'en', 'out.html'));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it('is disabled without FRONTEND_DIR and refuses a folder that does not exist', async () => {
    const none = filesFor(undefined);
    expect(none.enabled).toBe(false);
    expect(await none.pageFile(['en'])).toBeNull();
    expect(() => filesFor(join(base, 'missing'))).toThrow(/FRONTEND_DIR .* is not a folder/);
    expect(() => filesFor(join(dir, 'index.html'))).toThrow(/is not a folder/);
  });

  it('finds <path>.html, then <path>/index.html, then the shell', async () => {
    const files = filesFor(dir);
    expect(await files.pageFile(['en', 'dashboard'])).toBe(join(dir, 'en', 'dashboard.html'));
    expect(await files.pageFile(['en', 'admin'])).toBe(join(dir, 'en', 'admin', 'index.html'));
    expect(await files.pageFile(['zh', 'pricing'])).toBe(join(dir, 'index.html'));
  });

  it('stays inside the folder: no dot segments, no escaping symbolic links', async () => {
    const files = filesFor(dir);
    expect(await files.assetFile(['..', 'outside.html'])).toBeNull();
    expect(await files.assetFile(['en', '..', '..', 'outside.html'])).toBeNull();
    expect(await files.assetFile(['a/../../outside.html'])).toBeNull();
    expect(await files.assetFile(['.env'])).toBeNull();
    expect(await files.assetFile(['en', 'out.html'])).toBeNull();
    expect(await files.pageFile(['en', 'out'])).toBe(join(dir, 'index.html'));
    expect(await files.assetFile(['en'])).toBeNull();
  });
});
