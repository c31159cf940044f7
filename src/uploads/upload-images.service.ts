import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { AppConfig } from '../config/app.config';
import { detectContentType } from './magic-bytes';
import { ChatAttachments } from '../chats/chat-attachments.service';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { Upload } from './upload.entity';
import { UploadStorage } from './upload-storage';

/** Upload types a model can look at (issue 18 §1), as sniffed from the bytes at upload. */
export const IMAGE_TYPES: readonly string[] = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
];

/** An image named in a request: an upload (by id or stored name) or inline base64 bytes. */
export type ImageRef =
  { uploadId: string } | { filename: string } | { mediaType: string; data: string };

/** A checked image: an upload to read after the hold, or inline bytes to send as they are. */
export type ResolvedImage = { upload: Upload } | { inline: { mediaType: string; data: string } };

const notFound = (what: string) => new AppError(ErrorCode.NOT_FOUND, `Upload ${what} not found`);
const invalid = (message: string) => new AppError(ErrorCode.VALIDATION_FAILED, message);

/**
 * Uploads used as images in AI messages (issue 18 §1): who may use which, and their bytes.
 * A user may send their own uploads and those attached to a chat they can read; anything else,
 * and an absent id, is the same 404.
 */
@Injectable()
export class UploadImages {
  private readonly maxBytes: number;

  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    private readonly attachments: ChatAttachments,
    private readonly storage: UploadStorage,
    config: ConfigService<AppConfig, true>,
  ) {
    this.maxBytes = config.get('uploads', { infer: true }).maxBytes;
  }

  /**
   * Checks every image of a request, in order (see requireReadable for uploads). Uploads named
   * by URL are looked up by stored name under the same rules. Inline bytes must decode to at
   * most UPLOAD_MAX_BYTES and sniff as the type their data URL claims. Throws NOT_FOUND (404),
   * VALIDATION_FAILED (400).
   */
  async resolve(userId: string, refs: ImageRef[]): Promise<ResolvedImage[]> {
    const names = refs.flatMap((r) => ('filename' in r ? [r.filename] : []));
    const named = names.length ? await this.uploads.findBy({ filename: In(names) }) : [];
    const idOfName = new Map(named.map((u) => [u.filename, u.id]));
    const missing = names.find((n) => !idOfName.has(n));
    if (missing !== undefined) throw notFound(missing);
    const uploadIds = refs.flatMap((r) =>
      'uploadId' in r ? [r.uploadId] : 'filename' in r ? [idOfName.get(r.filename)!] : [],
    );
    const uploads = await this.requireReadable(userId, uploadIds);
    let next = 0;
    return refs.map((r) =>
      'data' in r ? { inline: this.checkInline(r.mediaType, r.data) } : { upload: uploads[next++] },
    );
  }

  /** Inline image bytes, checked: size and magic bytes (VALIDATION_FAILED otherwise). */
  private checkInline(mediaType: string, data: string): { mediaType: string; data: string } {
    if (Math.floor((data.length * 3) / 4) > this.maxBytes)
      throw invalid(`An inline image is larger than ${this.maxBytes} bytes`);
    const head = Buffer.from(data.slice(0, 8192), 'base64');
    if (detectContentType(head, data.length <= 8192) !== mediaType)
      throw invalid(`An inline image's bytes are not ${mediaType}`);
    return { mediaType, data };
  }

  /**
   * The uploads `ids` (in the given order, repeats kept) after checking `userId` may read each.
   * Throws NOT_FOUND (404) for an absent or unreadable upload, VALIDATION_FAILED (400) for one
   * that is not PNG, JPEG, WebP or GIF.
   */
  async requireReadable(userId: string, ids: string[]): Promise<Upload[]> {
    if (!ids.length) return [];
    const found = await this.uploads.findBy({ id: In([...new Set(ids)]) });
    const byId = new Map(found.map((u) => [u.id, u]));
    for (const id of new Set(ids)) {
      const upload = byId.get(id);
      const readable =
        upload &&
        (upload.userId === userId || (await this.attachments.readableThroughChat(userId, id)));
      if (!readable) throw notFound(id);
      if (!IMAGE_TYPES.includes(upload.contentType))
        throw new AppError(
          ErrorCode.VALIDATION_FAILED,
          `Upload ${id} is ${upload.contentType}, not an image (PNG, JPEG, WebP or GIF)`,
        );
    }
    return ids.map((id) => byId.get(id)!);
  }

  /**
   * An upload's bytes in standard base64, read from storage as a stream into one buffer of the
   * recorded size (no intermediate copies of the whole file). Throws NOT_FOUND when the bytes
   * are gone from storage.
   */
  async base64(upload: Upload): Promise<string> {
    const body = await this.storage.open(upload.filename);
    if (!body) throw new AppError(ErrorCode.NOT_FOUND, `Upload ${upload.id} not found`);
    const buffer = Buffer.allocUnsafe(body.size);
    let offset = 0;
    for await (const chunk of body.stream as AsyncIterable<Buffer>) {
      if (offset + chunk.length > buffer.length) {
        body.stream.destroy();
        throw new Error(`Upload ${upload.id} is larger than its recorded size`);
      }
      chunk.copy(buffer, offset);
      offset += chunk.length;
    }
    return buffer.subarray(0, offset).toString('base64');
  }
}
