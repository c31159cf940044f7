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
 * `isStoredFileName`). The local disk driver is the only one today; an S3 driver can implement
 * the same three calls. Drivers never buffer a whole file in memory.
 */
export abstract class UploadStorage {
  /**
   * Opens a new object for writing. Exclusive: rejects with UploadNameTakenError when `filename`
   * exists, so two uploads can never overwrite each other. The caller pipes the bytes in and,
   * on any failure, calls `remove(filename)`.
   */
  abstract create(filename: string): Promise<Writable>;

  /** Opens an object for reading; null when it does not exist. */
  abstract open(filename: string): Promise<StoredObject | null>;

  /** Removes an object; succeeds when it is already gone. */
  abstract remove(filename: string): Promise<void>;
}
