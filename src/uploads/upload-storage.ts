import type { Readable, Writable } from 'node:stream';

/** Raised by `UploadStorage.create` when an object of that name already exists. */
export class UploadNameTakenError extends Error {
  constructor(readonly filename: string) {
    super(`An upload named ${filename} already exists`);
    this.name = 'UploadNameTakenError';
  }
}

/** An object opened for reading: its bytes as a stream and its size in bytes. */
export interface StoredObject {
  stream: Readable;
  size: number;
}

/**
 * Where upload bytes live, keyed by stored file name (one safe path segment, see
 * `isStoredFileName`): LocalDiskStorage (STORAGE_DRIVER=disk) or S3Storage (s3). Drivers
 * never buffer a whole file in memory.
 */
export abstract class UploadStorage {
  /**
   * Opens a new object for writing. Exclusive: rejects with UploadNameTakenError when `filename`
   * exists, so two uploads can never overwrite each other (a driver that can only tell at the
   * end fails the Writable with UploadNameTakenError, and the object is then the other
   * upload's). The Writable emits 'finish' only once the bytes are stored, and errors when
   * they cannot be. The caller pipes the bytes in and, on any other failure, calls
   * `remove(filename)`.
   */
  abstract create(filename: string): Promise<Writable>;

  /** Opens an object for reading; null when it does not exist. */
  abstract open(filename: string): Promise<StoredObject | null>;

  /** Removes an object; succeeds when it is already gone. */
  abstract remove(filename: string): Promise<void>;
}
