import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { S3StorageConfig } from './uploads.config';
import { isStoredFileName } from './upload-filename';
import { type StoredObject, UploadNameTakenError, UploadStorage } from './upload-storage';

/** Parts uploaded at once per file; with 5 MiB parts an upload holds about 15 MiB at most. */
const QUEUE_SIZE = 2;
/** Part size of multipart uploads, bytes (S3's minimum; a smaller file is one PutObject). */
export const S3_PART_BYTES = 5 * 1024 * 1024;

/** What the SDK's errors carry: the S3 error code as `name`, the HTTP status in `$metadata`. */
type SdkError = Error & { $metadata?: { httpStatusCode?: number } };
const statusOf = (e: unknown): number | undefined => (e as SdkError)?.$metadata?.httpStatusCode;

/** The S3 client of `config`: static keys when both are set, else the default credential chain. */
export function createS3Client(config: S3StorageConfig): S3Client {
  const options: S3ClientConfig = {
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    maxAttempts: 3,
    // A store that does not answer fails the request instead of holding the upload open.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    // The SDK's defaults (CRC32 checksums WHEN_SUPPORTED) are kept: the parts lib-storage sends
    // are buffers, so they go as plain bodies with an `x-amz-checksum-crc32` header.
  };
  if (config.accessKeyId && config.secretAccessKey)
    options.credentials = {
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
    };
  return new S3Client(options);
}

/**
 * UploadStorage in an S3 bucket (AWS S3 or a compatible store such as MinIO): one object per
 * upload at key `keyPrefix + filename`. Bytes are streamed (lib-storage `Upload`: one PutObject
 * below 5 MiB, else a multipart upload of 5 MiB parts, QUEUE_SIZE at a time), never buffered
 * whole.
 *
 * Exclusive create: `create` asks HeadObject first, so a taken name is refused before any byte
 * is sent (the engine then tries the next name), and the write itself is conditional
 * (`If-None-Match: *` on PutObject / CompleteMultipartUpload), so an upload that races another
 * one of the same key fails with UploadNameTakenError instead of overwriting it. Stores that
 * ignore conditional writes leave only the HeadObject check (a race window of one upload's
 * duration, for two uploads of one name; with 128 random bits per name, in practice never).
 *
 * Failures of the store (unreachable, 5xx after the SDK's retries, access denied) are logged
 * with the S3 error code and surface as AppError SERVICE_UNAVAILABLE (503); credentials are
 * never logged.
 */
export class S3Storage extends UploadStorage implements OnModuleDestroy {
  private readonly logger = new Logger(S3Storage.name);

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly keyPrefix = '',
  ) {
    super();
  }

  /** Closes the client's keep-alive sockets when the app shuts down. */
  onModuleDestroy(): void {
    this.client.destroy();
  }

  /**
   * A Writable that streams into the object; it emits 'finish' only once the object is stored
   * and errors when the upload fails (UploadNameTakenError when the key was taken meanwhile).
   * Destroying it before the end aborts the upload, leaving no object and no parts.
   * Throws UploadNameTakenError when the key exists, AppError SERVICE_UNAVAILABLE otherwise.
   */
  async create(filename: string): Promise<Writable> {
    const key = this.keyOf(filename);
    if (await this.exists(key)) throw new UploadNameTakenError(filename);
    return new S3ObjectWriter(
      (body) =>
        new Upload({
          client: this.client,
          params: { Bucket: this.bucket, Key: key, Body: body, IfNoneMatch: '*' },
          partSize: S3_PART_BYTES,
          queueSize: QUEUE_SIZE,
        }),
      (e) => this.failure('upload of', key, e),
    );
  }

  /** GetObject: the body as a stream and ContentLength in bytes; NoSuchKey (404) → null. */
  async open(filename: string): Promise<StoredObject | null> {
    const key = this.keyOf(filename);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { stream: out.Body as Readable, size: out.ContentLength ?? 0 };
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw this.failure('GetObject', key, e);
    }
  }

  /** DeleteObject; S3 answers success for a missing key, so this is idempotent. */
  async remove(filename: string): Promise<void> {
    const key = this.keyOf(filename);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (e) {
      if (statusOf(e) !== 404) throw this.failure('DeleteObject', key, e);
    }
  }

  /** HeadObject: true when `key` exists, false on 404. */
  private async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw this.failure('HeadObject', key, e);
    }
  }

  /** The object key of a stored name; throws for anything that is not one. */
  private keyOf(filename: string): string {
    if (!isStoredFileName(filename))
      throw new Error(`Refusing upload key for ${JSON.stringify(filename)}`);
    return `${this.keyPrefix}${filename}`;
  }

  /** Maps an SDK error: 412 → UploadNameTakenError; anything else is logged → 503. */
  private failure(operation: string, key: string, e: unknown): Error {
    if (e instanceof UploadNameTakenError || e instanceof AppError) return e;
    if (statusOf(e) === 412) return new UploadNameTakenError(key.slice(this.keyPrefix.length));
    const err = e instanceof Error ? e : new Error(String(e));
    const status = statusOf(e);
    this.logger.error(
      `S3 ${operation} ${this.bucket}/${key} failed: ${err.name}: ${err.message}` +
        (status ? ` (HTTP ${status})` : ''),
    );
    return new AppError(
      CommonErrorCode.SERVICE_UNAVAILABLE,
      'Upload storage is unavailable; try again shortly',
    );
  }
}

/**
 * The Writable of one object: bytes go through a PassThrough into lib-storage's Upload, with
 * back-pressure; `_final` waits for the upload to be stored, so 'finish' means stored.
 */
class S3ObjectWriter extends Writable {
  private readonly body = new PassThrough();
  private readonly stored: Promise<unknown>;
  private ending = false;
  /** Destroyed before the end: the upload's failure is ours, not the store's. */
  private cancelled = false;

  /** `start` builds the Upload reading `body`; `mapError` translates its failure. */
  constructor(start: (body: PassThrough) => Upload, mapError: (e: unknown) => Error) {
    super();
    this.stored = start(this.body)
      .done()
      .catch((e: unknown) => {
        throw this.cancelled ? e : mapError(e);
      });
    // A failed part stops the upload from reading: fail now rather than wait for a 'drain'
    // that never comes. While ending, `_final` reports the error instead.
    this.stored.catch((e: Error) => {
      if (!this.ending && !this.destroyed) this.destroy(e);
    });
  }

  _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.body.write(chunk)) cb();
    else this.body.once('drain', () => cb());
  }

  _final(cb: (e?: Error | null) => void): void {
    this.ending = true;
    this.body.end();
    this.stored.then(
      () => cb(),
      (e: Error) => cb(e),
    );
  }

  /** Destroyed early (a refused type, the size limit, a client abort): abort the upload. */
  _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (this.writableFinished) return cb(err); // autoDestroy after a stored upload
    this.cancelled = true;
    this.body.destroy(err ?? new Error('Upload cancelled'));
    // Wait for lib-storage to abort a started multipart upload before reporting.
    this.stored.then(
      () => cb(err),
      () => cb(err),
    );
  }
}
