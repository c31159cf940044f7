import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';

/**
 * Wire-format helpers of the local S3 server (`s3-server.ts`): request classification,
 * bodies received to disk (plain or `aws-chunked`), XML replies and errors.
 */

/** An S3 error reply: HTTP status and the `<Code>` of S3's XML error body. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message = code,
  ) {
    super(message);
  }
}

/** The S3 operations the local server understands, named as in the S3 API reference. */
export type S3Operation =
  | 'PutObject'
  | 'GetObject'
  | 'HeadObject'
  | 'DeleteObject'
  | 'CreateMultipartUpload'
  | 'UploadPart'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'Unsupported';

/**
 * The operation of a path-style request (`/{bucket}/{key}?query`), from its method and query
 * (the SDK also adds `x-id=<Operation>`, but real S3 does not need it, so neither do we).
 */
export function operationOf(method: string, query: URLSearchParams, key: string): S3Operation {
  if (!key) return 'Unsupported'; // bucket-level calls (ListObjects, ...) are not needed
  const upload = query.has('uploadId');
  switch (method) {
    case 'PUT':
      return upload && query.has('partNumber')
        ? 'UploadPart'
        : upload
          ? 'Unsupported'
          : 'PutObject';
    case 'POST':
      return query.has('uploads')
        ? 'CreateMultipartUpload'
        : upload
          ? 'CompleteMultipartUpload'
          : 'Unsupported';
    case 'DELETE':
      return upload ? 'AbortMultipartUpload' : 'DeleteObject';
    case 'GET':
      return upload ? 'Unsupported' : 'GetObject'; // ListParts is not needed
    case 'HEAD':
      return 'HeadObject';
    default:
      return 'Unsupported';
  }
}

const escapeXml = (s: string): string => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** An XML document `<root>…</root>` with one element per field (strings are escaped). */
export function xml(root: string, fields: Record<string, string | number>): string {
  const body = Object.entries(fields)
    .map(([k, v]) => `<${k}>${escapeXml(String(v))}</${k}>`)
    .join('');
  const ns = root === 'Error' ? '' : ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns}>${body}</${root}>`;
}

/** `(PartNumber, ETag)` pairs of a CompleteMultipartUpload body, in document order. */
export function partsOf(body: string): { partNumber: number; etag: string }[] {
  const parts: { partNumber: number; etag: string }[] = [];
  for (const [, part] of body.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
    const n = /<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(part)?.[1];
    const etag = /<ETag>([\s\S]*?)<\/ETag>/.exec(part)?.[1];
    if (!n || etag === undefined) throw new S3Error(400, 'MalformedXML');
    parts.push({ partNumber: Number(n), etag: etag.replace(/&quot;|"/g, '') });
  }
  return parts;
}

/** Whether a request body uses `aws-chunked` framing (streaming SigV4 or a checksum trailer). */
export function isAwsChunked(headers: Record<string, string | string[] | undefined>): boolean {
  const encoding = String(headers['content-encoding'] ?? '');
  const sha = String(headers['x-amz-content-sha256'] ?? '');
  return (
    encoding.split(',').some((e) => e.trim() === 'aws-chunked') || sha.startsWith('STREAMING-')
  );
}

/**
 * Decodes an `aws-chunked` body: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n` repeated, a
 * zero-size chunk, then optional trailer lines (`x-amz-checksum-crc32:…`) and an empty line.
 * Passes the payload bytes on; `trailers` holds the trailer headers once the stream ends.
 * Signatures are not checked (see S3TestServer). Malformed framing fails the stream.
 */
export class AwsChunkedDecoder extends Transform {
  readonly trailers: Record<string, string> = {};
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of the current chunk still to pass on; -1 while reading a size line. */
  private remaining = -1;
  /** CRLF after a chunk's bytes still to skip. */
  private crlf = 0;
  private inTrailer = false;

  _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    try {
      this.drain();
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  _flush(cb: TransformCallback): void {
    cb(this.inTrailer && !this.pending.length ? null : new Error('Truncated aws-chunked body'));
  }

  private drain(): void {
    for (;;) {
      if (this.crlf) {
        const skip = Math.min(this.crlf, this.pending.length);
        this.pending = this.pending.subarray(skip);
        this.crlf -= skip;
        if (this.crlf) return;
      }
      if (this.remaining > 0) {
        if (!this.pending.length) return;
        const take = Math.min(this.remaining, this.pending.length);
        this.push(this.pending.subarray(0, take));
        this.pending = this.pending.subarray(take);
        this.remaining -= take;
        if (this.remaining) return;
        this.crlf = 2;
        this.remaining = -1;
        continue;
      }
      const eol = this.pending.indexOf('\r\n');
      if (eol < 0) {
        if (this.pending.length > 4096) throw new Error('aws-chunked line too long');
        return;
      }
      const line = this.pending.subarray(0, eol).toString('latin1');
      this.pending = this.pending.subarray(eol + 2);
      if (this.inTrailer) {
        if (!line) continue; // the final empty line
        const colon = line.indexOf(':');
        if (colon < 0) throw new Error(`Bad aws-chunked trailer ${JSON.stringify(line)}`);
        this.trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        continue;
      }
      const size = parseInt(line.split(';')[0], 16);
      if (!Number.isFinite(size) || size < 0) throw new Error(`Bad aws-chunked size ${line}`);
      if (size === 0) this.inTrailer = true;
      else this.remaining = size;
    }
  }
}

/** A received body: its file, size in bytes, MD5 (S3's ETag) and base64 CRC32 if one was sent. */
export interface ReceivedBody {
  file: string;
  size: number;
  md5: Buffer;
  /** The `x-amz-checksum-crc32` the client sent (header or trailer), checked against the bytes. */
  crc32?: string;
}

/**
 * Streams a request body into a new file in `dir` (decoded when aws-chunked), never holding it
 * in memory. Checks the length against `Content-Length` (or `x-amz-decoded-content-length`),
 * a hex `x-amz-content-sha256` and an `x-amz-checksum-crc32` (header or trailer) against the
 * bytes. Throws S3Error 400 (IncompleteBody, XAmzContentSHA256Mismatch, BadDigest).
 */
export async function receiveBody(req: IncomingMessage, dir: string): Promise<ReceivedBody> {
  const file = join(dir, randomBytes(12).toString('hex'));
  const md5 = createHash('md5');
  const sha = createHash('sha256');
  let size = 0;
  let crc = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      md5.update(chunk);
      sha.update(chunk);
      crc = crc32(chunk, crc);
      cb(null, chunk);
    },
  });
  const chunked = isAwsChunked(req.headers);
  const decode = chunked ? new AwsChunkedDecoder() : new PassThrough();
  let problem: S3Error | undefined;
  let sentCrc: string | undefined;
  try {
    await pipeline(req, decode, tap, createWriteStream(file));
    const h = req.headers;
    const declared = h[chunked ? 'x-amz-decoded-content-length' : 'content-length'];
    const hash = String(h['x-amz-content-sha256'] ?? '');
    const trailers = decode instanceof AwsChunkedDecoder ? decode.trailers : {};
    sentCrc = (h['x-amz-checksum-crc32'] as string | undefined) ?? trailers['x-amz-checksum-crc32'];
    const crcBytes = Buffer.alloc(4);
    crcBytes.writeUInt32BE(crc >>> 0);
    if (declared !== undefined && Number(declared) !== size)
      problem = new S3Error(
        400,
        'IncompleteBody',
        `Expected ${String(declared)} bytes, got ${size}`,
      );
    else if (/^[0-9a-f]{64}$/.test(hash) && sha.digest('hex') !== hash)
      problem = new S3Error(400, 'XAmzContentSHA256Mismatch');
    else if (sentCrc !== undefined && sentCrc !== crcBytes.toString('base64'))
      problem = new S3Error(400, 'BadDigest', 'The CRC32 you specified did not match the bytes');
  } catch (e) {
    problem = new S3Error(400, 'IncompleteBody', String(e));
  }
  if (problem) {
    await rm(file, { force: true });
    throw problem;
  }
  return { file, size, md5: md5.digest(), crc32: sentCrc };
}

/** Ends `res` with `status`, an XML body when given, and `headers`. */
export function sendXml(
  res: ServerResponse,
  status: number,
  body = '',
  headers: Record<string, string> = {},
): void {
  const type = body ? { 'content-type': 'application/xml' } : {};
  res.writeHead(status, {
    'x-amz-request-id': randomBytes(8).toString('hex'),
    ...type,
    ...headers,
  });
  res.end(body);
}

/** S3's `<Error>` reply (no body for HEAD, as S3 does). */
export function sendError(res: ServerResponse, err: S3Error, head: boolean): void {
  const body = xml('Error', { Code: err.code, Message: err.message, RequestId: 'local' });
  sendXml(res, err.status, head ? '' : body, head ? { 'content-type': 'application/xml' } : {});
}
