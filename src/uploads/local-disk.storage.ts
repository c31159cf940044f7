import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { isStoredFileName } from './upload-filename';
import { type StoredObject, UploadNameTakenError, UploadStorage } from './upload-storage';

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException)?.code;

/**
 * UploadStorage on the local filesystem: one file per upload, directly in `root` (UPLOAD_DIR,
 * created at boot when missing). Every name is checked to be a stored name that resolves inside
 * `root`, whatever the caller checked before.
 */
export class LocalDiskStorage extends UploadStorage {
  constructor(readonly root: string) {
    super();
    mkdirSync(root, { recursive: true });
  }

  /** Creates `root/filename` with O_EXCL; EEXIST → UploadNameTakenError. */
  async create(filename: string): Promise<Writable> {
    try {
      const handle = await open(this.pathOf(filename), 'wx');
      return handle.createWriteStream();
    } catch (e) {
      if (code(e) === 'EEXIST') throw new UploadNameTakenError(filename);
      throw e;
    }
  }

  /** Opens `root/filename` through one file handle (size and bytes of the same file). */
  async open(filename: string): Promise<StoredObject | null> {
    let handle;
    try {
      handle = await open(this.pathOf(filename), 'r');
    } catch (e) {
      if (code(e) === 'ENOENT' || code(e) === 'EISDIR') return null;
      throw e;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Error(`${filename} is not a regular file`);
      return { stream: handle.createReadStream(), size: stat.size };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async remove(filename: string): Promise<void> {
    await rm(this.pathOf(filename), { force: true });
  }

  /** Absolute path of a stored name; throws for anything that is not one segment inside root. */
  private pathOf(filename: string): string {
    const path = resolve(this.root, filename);
    const rel = relative(this.root, path);
    if (!isStoredFileName(filename) || !rel || rel.startsWith('..') || isAbsolute(rel))
      throw new Error(`Refusing upload path outside ${this.root}: ${JSON.stringify(filename)}`);
    return path;
  }
}
