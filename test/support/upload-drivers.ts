import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3TestServer } from '../servers/s3-server';
import { filesIn } from './uploads';

export type UploadDriverName = 'disk' | 's3';

/** The storage drivers the upload e2e suites run against. */
export const UPLOAD_DRIVERS: UploadDriverName[] = ['disk', 's3'];

/** A secret kept next to the upload area: no upload or download may reach it. */
export const SECRET = 'top secret, outside the upload area';

/**
 * One storage driver as the upload e2e suites see it: the environment of a test app using it,
 * and a view of what it holds, so the same scenario can check either driver.
 * disk: UPLOAD_DIR = `<tmp>/files`, with `<tmp>/secret.txt` beside it.
 * s3: a local S3TestServer, keys under `files/`, with the object `secret.txt` beside them.
 */
export interface UploadDriver {
  name: UploadDriverName;
  /** Variables for createTestApp. */
  env: Record<string, string>;
  /** Stored upload names, sorted. */
  names(): string[];
  /** The bytes of a stored upload (small files: read into memory). */
  read(name: string): Buffer;
  /** Size in bytes of a stored upload, or undefined. */
  sizeOf(name: string): number | undefined;
  /** What lies outside the upload area, sorted: always `['secret.txt']`. */
  outside(): string[];
  /** The secret's content as it is now. */
  secret(): string;
  /**
   * Whether writing an upload whose name ends with `suffix` has begun (disk: its file exists;
   * s3: the driver asked HeadObject for it, the last step before bytes flow).
   */
  started(suffix: string): boolean;
  /**
   * Whether the clean-up of a failed upload whose name ends with `suffix` has run (disk: its
   * file is gone; s3: the driver sent DeleteObject for it).
   */
  cleanedUp(suffix: string): boolean;
  /** The S3 server (s3 only). */
  s3?: S3TestServer;
  close(): Promise<void>;
}

/** Starts the storage behind `name`, empty but for the secret beside it. */
export async function startUploadDriver(name: UploadDriverName): Promise<UploadDriver> {
  return name === 'disk' ? diskDriver() : s3Driver();
}

function diskDriver(): UploadDriver {
  const root = mkdtempSync(join(tmpdir(), 'uploads-e2e-'));
  const dir = join(root, 'files');
  writeFileSync(join(root, 'secret.txt'), SECRET);
  const names = () => (existsSync(dir) ? filesIn(dir) : []);
  return {
    name: 'disk',
    env: { UPLOAD_DIR: dir },
    names,
    read: (n) => readFileSync(join(dir, n)),
    sizeOf: (n) => (existsSync(join(dir, n)) ? statSync(join(dir, n)).size : undefined),
    outside: () => filesIn(root).filter((f) => f !== 'files'),
    secret: () => readFileSync(join(root, 'secret.txt'), 'utf8'),
    started: (suffix) => names().some((f) => f.endsWith(suffix)),
    cleanedUp: (suffix) => !names().some((f) => f.endsWith(suffix)),
    close: async () => rmSync(root, { recursive: true, force: true }),
  };
}

async function s3Driver(): Promise<UploadDriver> {
  const prefix = 'files/';
  const s3 = await new S3TestServer().start();
  await s3.put('secret.txt', SECRET);
  const names = () =>
    s3
      .keys()
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length));
  return {
    name: 's3',
    env: s3.env({ prefix }),
    names,
    read: (n) => s3.read(prefix + n),
    sizeOf: (n) => s3.sizeOf(prefix + n),
    outside: () => s3.keys().filter((k) => !k.startsWith(prefix)),
    secret: () => s3.read('secret.txt').toString('utf8'),
    started: (suffix) =>
      s3.requests.some((r) => r.operation === 'HeadObject' && r.key.endsWith(suffix)),
    cleanedUp: (suffix) =>
      s3.requests.some((r) => r.operation === 'DeleteObject' && r.key.endsWith(suffix)),
    s3,
    close: () => s3.destroy(),
  };
}
