import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildPagesConfig, consoleDir } from './pages.config';

describe('pages config', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'console-dir-'));
    await mkdir(join(root, 'web', 'dist'), { recursive: true });
    await mkdir(join(root, 'dist', 'src', 'pages'), { recursive: true });
    await mkdir(join(root, 'src', 'pages'), { recursive: true });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('finds the built console from src/pages and from dist/src/pages, once it has index.html', async () => {
    expect(consoleDir(join(root, 'src', 'pages'))).toBeUndefined();
    await writeFile(join(root, 'web', 'dist', 'index.html'), '<div id="root"></div>');
    const built = join(root, 'web', 'dist');
    expect(consoleDir(join(root, 'src', 'pages'))).toBe(built);
    expect(consoleDir(join(root, 'dist', 'src', 'pages'))).toBe(built);
  });

  it('takes FRONTEND_DIR first, and no default folder under NODE_ENV=test', () => {
    expect(buildPagesConfig({ FRONTEND_DIR: 'site', NODE_ENV: 'test' })).toEqual({
      frontendDir: resolve('site'),
    });
    expect(buildPagesConfig({ NODE_ENV: 'test' })).toEqual({ frontendDir: undefined });
    expect(buildPagesConfig({ NODE_ENV: 'production' })).toEqual({ frontendDir: consoleDir() });
  });
});
