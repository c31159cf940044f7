import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { uploadsConfig } from './uploads.config';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { detectContentType } from './magic-bytes';
import { ChatAttachments } from '../chats/chat-attachments.service';
import { hasScope, requireScope } from '../common/auth/require-scope';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { Upload } from './upload.entity';
import { UploadStorage } from './upload-storage';

/** Upload types a model can look at, as sniffed from the bytes at upload. */
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

/**
 * The one answer for an upload that is absent, another user's, or gone from storage: the same
 * code and message on every image path, naming neither id nor filename, so that it tells no
 * one which ids or names exist.
 */
const notFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Upload not found');
/** What a key without `chats:read` is told it lacks the scope for. */
const NOT_OWN = 'an upload that is not your own';
const IN_A_CHAT = 'an upload attached in a chat';
const invalid = (message: string) => new AppError(CommonErrorCode.VALIDATION_FAILED, message);

/**
 * Uploads used as images in AI messages: who may use which, and their bytes.
 * A user may send their own uploads and those attached to a chat they can read; anything else,
 * and an absent id, is the same 404. An API key reaches past its user's own uploads only with
 * `chats:read` (the other path goes through chats), and without it may not send an own upload
 * attached in any chat either: the image is then part of a chat's content.
 */
@Injectable()
export class UploadImages {
  private readonly maxBytes: number;

  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    private readonly attachments: ChatAttachments,
    private readonly storage: UploadStorage,
    @Inject(uploadsConfig.KEY) settings: ConfigType<typeof uploadsConfig>,
  ) {
    this.maxBytes = settings.maxBytes;
  }

  /**
   * Checks every image of a request, in order (see requireReadable for uploads). Uploads named
   * by URL are looked up by stored name under the same rules. Inline bytes must decode to at
   * most UPLOAD_MAX_BYTES and sniff as the type their data URL claims. Throws NOT_FOUND (404),
   * VALIDATION_FAILED (400), INSUFFICIENT_SCOPE (403, see requireReadable).
   */
  async resolve(user: SessionUser, refs: ImageRef[]): Promise<ResolvedImage[]> {
    const names = refs.flatMap((r) => ('filename' in r ? [r.filename] : []));
    const named = names.length ? await this.uploads.findBy({ filename: In(names) }) : [];
    const idOfName = new Map(named.map((u) => [u.filename, u.id]));
    const missing = names.some((n) => !idOfName.has(n));
    // A key that may use only its user's own uploads gets the same answer for a name that
    // does not exist as for another user's (requireReadable), so names do not leak either.
    if (missing) {
      requireScope(user, 'chats:read', NOT_OWN);
      throw notFound();
    }
    const uploadIds = refs.flatMap((r) =>
      'uploadId' in r ? [r.uploadId] : 'filename' in r ? [idOfName.get(r.filename)!] : [],
    );
    const uploads = await this.requireReadable(user, uploadIds);
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
   * The uploads `ids` (in the given order, repeats kept) after checking `user` may read each:
   * their own, or one attached in a chat they can read. Throws NOT_FOUND (404) for an absent or
   * unreadable upload (one body for both), VALIDATION_FAILED (400) for one that is not PNG,
   * JPEG, WebP or GIF, and INSUFFICIENT_SCOPE (403) to an API key without `chats:read` for any
   * upload that is not its user's own (absent ones included: the answer does not depend on
   * what exists) or that is attached in any chat (one more query, for such keys only).
   */
  async requireReadable(user: SessionUser, ids: string[]): Promise<Upload[]> {
    if (!ids.length) return [];
    const unique = [...new Set(ids)];
    const found = await this.uploads.findBy({ id: In(unique) });
    const byId = new Map(found.map((u) => [u.id, u]));
    const inChats = hasScope(user, 'chats:read')
      ? new Set<string>()
      : await this.attachments.inAnyChat(found.map((u) => u.id));
    for (const id of unique) {
      const upload = byId.get(id);
      if (!upload || upload.userId !== user.id) {
        requireScope(user, 'chats:read', NOT_OWN);
        if (!upload || !(await this.attachments.readableThroughChat(user.id, id))) throw notFound();
      }
      if (inChats.has(id)) requireScope(user, 'chats:read', IN_A_CHAT);
      if (!IMAGE_TYPES.includes(upload.contentType))
        throw new AppError(
          CommonErrorCode.VALIDATION_FAILED,
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
    if (!body) throw notFound();
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
