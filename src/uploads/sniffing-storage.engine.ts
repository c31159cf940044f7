import { Logger } from '@nestjs/common';
import type { Request } from 'express';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { UploadContentType } from './uploads.config';
import { checkContentType, SNIFF_BYTES } from './magic-bytes';
import { displayName, storedFileName } from './upload-filename';
import { UploadNameTakenError, type UploadStorage } from './upload-storage';

/** The file multer hands a storage engine (busboy's stream of the part's bytes). */
export interface IncomingFile {
  fieldname: string;
  /** The client's file name, as sent. */
  originalname: string;
  /** The part's `Content-Type`, as sent. */
  mimetype: string;
  stream: Readable & { truncated?: boolean };
}

/** What the engine stored; multer merges it into `req.file`. */
export interface StoredFileInfo {
  /** `<timestampMs>-<random>-<sanitised name>`, the key in UploadStorage. */
  filename: string;
  /** Display form of the client's name (see `displayName`). */
  originalName: string;
  /** Bytes written. */
  size: number;
  /** Sniffed from the bytes, never taken from the client. */
  contentType: UploadContentType;
}

export type UploadedFile = IncomingFile & StoredFileInfo;

/**
 * Names tried when one is taken. With 128 random bits a second try is already only a guard
 * against a broken random source or an object planted in the bucket under a guessed name.
 */
const NAME_ATTEMPTS = 3;

/**
 * Holds back the first SNIFF_BYTES until the type is decided, then passes everything through;
 * counts bytes. A refused type fails the pipeline before a byte reaches storage.
 */
class ContentSniffer extends Transform {
  bytes = 0;
  type?: UploadContentType;
  private head: Buffer[] = [];
  private headBytes = 0;

  constructor(private readonly decide: (head: Buffer, complete: boolean) => UploadContentType) {
    super();
  }

  _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.type) return cb(null, chunk);
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_BYTES) return cb();
    this.release(false, cb);
  }

  _flush(cb: TransformCallback): void {
    if (this.type) return cb();
    this.release(true, cb);
  }

  private release(complete: boolean, cb: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    try {
      this.type = this.decide(head, complete);
    } catch (e) {
      return cb(e as Error);
    }
    cb(null, head);
  }
}

/**
 * A multer storage engine that streams each file through the content sniffer into
 * UploadStorage: nothing is held in memory beyond the first SNIFF_BYTES and the stream buffers.
 * On any failure (refused type, size limit, client abort, storage error) it removes what it
 * wrote before reporting the error, so no partial file stays behind. The storage's Writable
 * must 'finish' only once the bytes are stored: the caller records the upload after that.
 */
export class SniffingStorageEngine {
  private readonly logger = new Logger(SniffingStorageEngine.name);

  constructor(
    private readonly storage: UploadStorage,
    private readonly allowedTypes: readonly UploadContentType[],
    /** Milliseconds since the epoch (the Clock in production). */
    private readonly now: () => number,
  ) {}

  /** multer's StorageEngine entry point. */
  _handleFile(
    _req: Request,
    file: IncomingFile,
    cb: (err: Error | null, info?: StoredFileInfo) => void,
  ): void {
    this.store(file).then(
      (info) => cb(null, info),
      (err: Error) => cb(err),
    );
  }

  /** multer's clean-up entry point (a later part of the request failed). */
  _removeFile(_req: Request, file: StoredFileInfo, cb: (err: Error | null) => void): void {
    this.storage.remove(file.filename).then(() => cb(null), cb);
  }

  private async store(file: IncomingFile): Promise<StoredFileInfo> {
    const { filename, out } = await this.createUnique(file.originalname);
    const sniffer = new ContentSniffer((head, complete) =>
      checkContentType(
        head,
        complete,
        { declaredType: file.mimetype, fileName: file.originalname },
        this.allowedTypes,
      ),
    );
    try {
      await pipeline(file.stream, sniffer, out);
      // busboy ends a part cut at limits.fileSize normally; multer answers 413 for it.
      if (file.stream.truncated) throw new Error('File cut at the size limit');
    } catch (e) {
      // The name was taken while the bytes went up (a conditional write lost a race): the
      // object is the other upload's, so it stays.
      if (e instanceof UploadNameTakenError)
        throw new AppError(CommonErrorCode.CONFLICT, 'An upload with this name exists; try again');
      await this.removeQuietly(filename);
      throw e;
    }
    return {
      filename,
      originalName: displayName(file.originalname),
      size: sniffer.bytes,
      contentType: sniffer.type!,
    };
  }

  /** Removes a partial upload; a failure is logged, so the original error is the one reported. */
  private async removeQuietly(filename: string): Promise<void> {
    await this.storage.remove(filename).catch((e: Error) => {
      this.logger.error(`Could not remove the partial upload ${filename}: ${e.message}`);
    });
  }

  private async createUnique(originalName: string) {
    const at = this.now();
    for (let i = 0; ; i++) {
      // A fresh random part per try: two uploads of one name in one millisecond differ anyway.
      const filename = storedFileName(at, originalName);
      try {
        return { filename, out: await this.storage.create(filename) };
      } catch (e) {
        if (!(e instanceof UploadNameTakenError) || i + 1 >= NAME_ATTEMPTS) throw e;
      }
    }
  }
}
