import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as wire from './s3-wire';
import { S3Error, type S3Operation } from './s3-wire';

export type { S3Operation } from './s3-wire';

/** One request as the server received it (bodies are not kept). */
export interface S3Request {
  operation: S3Operation;
  method: string;
  bucket: string;
  key: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
}

/** Make matching requests fail: answer `status` with error `code` (e.g. 500 InternalError). */
export interface S3Fault {
  status: number;
  code?: string;
  /** Only these operations (default: all). */
  operations?: S3Operation[];
}

interface StoredObject {
  file: string;
  size: number;
  etag: string;
  contentType: string;
  lastModified: Date;
}

interface MultipartUpload {
  bucket: string;
  key: string;
  contentType: string;
  parts: Map<number, { file: string; size: number; etag: string }>;
}

/** S3's smallest part, except the last one (EntityTooSmall otherwise). */
const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * A local server speaking the S3 REST protocol with path-style addressing
 * (`/{bucket}/{key}`), enough for `@aws-sdk/client-s3` and `@aws-sdk/lib-storage`: PutObject
 * (`If-None-Match: *` on an existing key → 412 PreconditionFailed), GetObject (404 NoSuchKey),
 * HeadObject, DeleteObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload (also
 * honouring `If-None-Match`; every part but the last must be ≥ 5 MiB) and
 * AbortMultipartUpload. Errors are S3's XML `<Error><Code>…` bodies.
 *
 * Bodies stream to files in a temporary directory, never into memory, so large uploads stay
 * flat. Plain and `aws-chunked` bodies are both accepted (see `receiveBody`): which one the SDK
 * sends depends on its checksum settings. `Authorization` must be SigV4 with `accessKeyId`;
 * the signature itself is not verified. Set `fault` to make requests fail; `requests` records
 * what arrived.
 */
export class S3TestServer {
  readonly accessKeyId = 'test-access-key';
  readonly secretAccessKey = 'test-secret-key';
  readonly requests: S3Request[] = [];
  fault?: S3Fault;
  /** Runs (and is awaited) before each request is handled, e.g. to change state mid-upload. */
  onRequest?: (req: S3Request) => void | Promise<void>;
  /** `http://127.0.0.1:<port>` once started. */
  url = '';
  private readonly root = mkdtempSync(join(tmpdir(), 's3-server-'));
  private readonly objects = new Map<string, StoredObject>();
  private readonly uploads = new Map<string, MultipartUpload>();
  private server?: Server;
  private readonly waiters: { operation: S3Operation; done: (r: S3Request) => void }[] = [];

  constructor(readonly buckets: string[] = ['uploads-test']) {}

  /** Listens on 127.0.0.1:`port` (0 = any free port; a restart may pass the old one). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        const err = e instanceof S3Error ? e : new S3Error(500, 'InternalError', String(e));
        req.resume();
        if (res.headersSent) res.destroy();
        else wire.sendError(res, err, req.method === 'HEAD');
      });
    });
    await new Promise<void>((done) => this.server!.listen(port, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Stops listening; stored objects stay (`start` again serves them). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }

  /** Stops and deletes every stored byte. */
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.root, { recursive: true, force: true });
  }

  /** Clears `requests`, `fault` and `onRequest` (objects stay). */
  reset(): void {
    this.requests.length = 0;
    this.fault = undefined;
    this.onRequest = undefined;
  }

  /** Environment of a service storing uploads here (STORAGE_DRIVER=s3, path-style). */
  env(opts: { bucket?: string; prefix?: string } = {}): Record<string, string> {
    return {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: opts.bucket ?? this.buckets[0],
      S3_ENDPOINT: this.url,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: this.accessKeyId,
      S3_SECRET_ACCESS_KEY: this.secretAccessKey,
      S3_KEY_PREFIX: opts.prefix ?? '',
    };
  }

  /** Sorted keys of `bucket`. */
  keys(bucket = this.buckets[0]): string[] {
    const prefix = `${bucket}/`;
    return [...this.objects.keys()]
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length))
      .sort();
  }

  /** The bytes of an object (tests only: read into memory). */
  read(key: string, bucket = this.buckets[0]): Buffer {
    const obj = this.objects.get(`${bucket}/${key}`);
    if (!obj) throw new Error(`No object ${bucket}/${key}`);
    return readFileSync(obj.file);
  }

  /** Size in bytes of an object, or undefined when there is none. */
  sizeOf(key: string, bucket = this.buckets[0]): number | undefined {
    return this.objects.get(`${bucket}/${key}`)?.size;
  }

  /** Stores an object directly (to seed a test). */
  async put(key: string, body: Buffer | string, bucket = this.buckets[0]): Promise<void> {
    const file = join(this.dir('incoming'), randomBytes(12).toString('hex'));
    await pipeline([Buffer.from(body)], createWriteStream(file));
    const etag = createHash('md5').update(body).digest('hex');
    await this.commit(`${bucket}/${key}`, file, Buffer.byteLength(body), etag, 'text/plain');
  }

  /**
   * Resolves with the next request of `operation` once it was handled: answered (its effect on
   * objects and uploads applied) or its connection gone. Call it before causing the request.
   * Only the calling test's timeout bounds the wait.
   */
  handled(operation: S3Operation): Promise<S3Request> {
    return new Promise((done) => this.waiters.push({ operation, done }));
  }

  /** Multipart uploads started and neither completed nor aborted. */
  openMultipartUploads(): number {
    return this.uploads.size;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const [, bucketSegment = '', ...keySegments] = url.pathname.split('/');
    const bucket = decodeURIComponent(bucketSegment);
    const key = decodeURIComponent(keySegments.join('/'));
    const method = req.method ?? '';
    const operation = wire.operationOf(method, url.searchParams, key);
    const query = Object.fromEntries(url.searchParams);
    const recorded = { operation, method, bucket, key, query, headers: req.headers };
    this.requests.push(recorded);
    res.once('close', () => this.notify(recorded));
    await this.onRequest?.(recorded);

    if (!req.headers.authorization?.startsWith(`AWS4-HMAC-SHA256 Credential=${this.accessKeyId}/`))
      throw new S3Error(403, 'InvalidAccessKeyId', 'The access key id does not exist');
    const fault = this.fault;
    if (fault && (!fault.operations || fault.operations.includes(operation)))
      throw new S3Error(fault.status, fault.code ?? 'InternalError', 'Injected fault');
    if (operation === 'Unsupported') throw new S3Error(501, 'NotImplemented');
    if (!this.buckets.includes(bucket)) throw new S3Error(404, 'NoSuchBucket');
    const id = `${bucket}/${key}`;

    switch (operation) {
      case 'PutObject': {
        await this.precondition(req, id);
        const { file, size, md5, crc32 } = await wire.receiveBody(req, this.dir('incoming'));
        // Another PUT of this key may have completed while the body arrived.
        await this.precondition(req, id, file);
        const etag = md5.toString('hex');
        await this.commit(id, file, size, etag, contentTypeOf(req));
        return wire.sendXml(res, 200, '', { etag: `"${etag}"`, ...checksumHeader(crc32) });
      }
      case 'GetObject':
      case 'HeadObject': {
        const obj = this.objects.get(id);
        if (!obj) throw new S3Error(404, operation === 'HeadObject' ? 'NotFound' : 'NoSuchKey');
        res.writeHead(200, {
          'content-length': obj.size,
          'content-type': obj.contentType,
          etag: `"${obj.etag}"`,
          'last-modified': obj.lastModified.toUTCString(),
        });
        if (operation === 'HeadObject') return void res.end();
        return pipeline(createReadStream(obj.file), res);
      }
      case 'DeleteObject': {
        const obj = this.objects.get(id);
        this.objects.delete(id);
        if (obj) await rm(obj.file, { force: true });
        return wire.sendXml(res, 204);
      }
      case 'CreateMultipartUpload': {
        const UploadId = randomBytes(16).toString('hex');
        this.uploads.set(UploadId, {
          bucket,
          key,
          contentType: contentTypeOf(req),
          parts: new Map(),
        });
        const body = wire.xml('InitiateMultipartUploadResult', {
          Bucket: bucket,
          Key: key,
          UploadId,
        });
        return wire.sendXml(res, 200, body);
      }
      case 'UploadPart': {
        const upload = this.uploadOf(query.uploadId, bucket, key);
        const n = Number(query.partNumber);
        if (!Number.isInteger(n) || n < 1 || n > 10000) throw new S3Error(400, 'InvalidArgument');
        const { file, size, md5, crc32 } = await wire.receiveBody(req, this.dir('incoming'));
        const old = upload.parts.get(n);
        const etag = md5.toString('hex');
        upload.parts.set(n, { file, size, etag });
        if (old) await rm(old.file, { force: true });
        return wire.sendXml(res, 200, '', { etag: `"${etag}"`, ...checksumHeader(crc32) });
      }
      case 'CompleteMultipartUpload':
        return this.complete(req, res, query.uploadId, this.uploadOf(query.uploadId, bucket, key));
      case 'AbortMultipartUpload': {
        const upload = this.uploadOf(query.uploadId, bucket, key);
        this.uploads.delete(query.uploadId);
        for (const part of upload.parts.values()) await rm(part.file, { force: true });
        return wire.sendXml(res, 204);
      }
    }
  }

  /** Resolves the `handled` promises waiting for this request's operation. */
  private notify(recorded: S3Request): void {
    const due = this.waiters.filter((w) => w.operation === recorded.operation);
    this.waiters.splice(0, this.waiters.length, ...this.waiters.filter((w) => !due.includes(w)));
    for (const w of due) w.done(recorded);
  }

  /** Checks the part list, then concatenates the parts into the object (streamed, on disk). */
  private async complete(
    req: IncomingMessage,
    res: ServerResponse,
    uploadId: string,
    upload: MultipartUpload,
  ): Promise<void> {
    const id = `${upload.bucket}/${upload.key}`;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const listed = wire.partsOf(Buffer.concat(chunks).toString('utf8'));
    if (!listed.length) throw new S3Error(400, 'MalformedXML');
    listed.forEach((p, i) => {
      if (i && p.partNumber <= listed[i - 1].partNumber) throw new S3Error(400, 'InvalidPartOrder');
      const stored = upload.parts.get(p.partNumber);
      if (stored?.etag !== p.etag) throw new S3Error(400, 'InvalidPart');
      if (i < listed.length - 1 && stored.size < MIN_PART_BYTES)
        throw new S3Error(400, 'EntityTooSmall');
    });
    await this.precondition(req, id);
    const file = join(this.dir('incoming'), randomBytes(12).toString('hex'));
    const out = createWriteStream(file);
    const md5s: Buffer[] = [];
    let size = 0;
    async function* concatenated() {
      for (const p of listed) yield* createReadStream(upload.parts.get(p.partNumber)!.file);
    }
    await pipeline(concatenated, out);
    for (const p of listed) {
      const part = upload.parts.get(p.partNumber)!;
      md5s.push(Buffer.from(part.etag, 'hex'));
      size += part.size;
    }
    await this.precondition(req, id, file);
    const etag = `${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${listed.length}`;
    await this.commit(id, file, size, etag, upload.contentType);
    this.uploads.delete(uploadId);
    for (const part of upload.parts.values()) await rm(part.file, { force: true });
    const { bucket: Bucket, key: Key } = upload;
    const Location = `${this.url}/${id}`;
    wire.sendXml(
      res,
      200,
      wire.xml('CompleteMultipartUploadResult', { Location, Bucket, Key, ETag: `"${etag}"` }),
    );
  }

  /** `If-None-Match: *` on an existing object → 412, removing the `received` file first. */
  private async precondition(req: IncomingMessage, id: string, received?: string): Promise<void> {
    if (req.headers['if-none-match'] !== '*' || !this.objects.has(id)) return;
    if (received) await rm(received, { force: true });
    throw new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions did not hold');
  }

  private uploadOf(uploadId: string | undefined, bucket: string, key: string): MultipartUpload {
    const upload = uploadId ? this.uploads.get(uploadId) : undefined;
    if (upload?.bucket !== bucket || upload.key !== key)
      throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist');
    return upload;
  }

  /** Makes a received file object `id`, replacing (and removing) an older version. */
  private async commit(id: string, file: string, size: number, etag: string, type: string) {
    const target = join(this.dir('objects'), randomBytes(12).toString('hex'));
    await rename(file, target);
    const old = this.objects.get(id);
    this.objects.set(id, { file: target, size, etag, contentType: type, lastModified: new Date() });
    if (old) await rm(old.file, { force: true });
  }

  private dir(name: string): string {
    const path = join(this.root, name);
    mkdirSync(path, { recursive: true });
    return path;
  }
}

const contentTypeOf = (req: IncomingMessage): string =>
  req.headers['content-type'] ?? 'application/octet-stream';

/** Echoes a verified CRC32 as S3 does (lib-storage then lists it in CompleteMultipartUpload). */
const checksumHeader = (crc32?: string): Record<string, string> =>
  crc32 ? { 'x-amz-checksum-crc32': crc32 } : {};
