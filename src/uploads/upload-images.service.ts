import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
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

/**
 * Uploads used as images in AI messages (issue 18 §1): who may use which, and their bytes.
 * A user may send their own uploads and those attached to a chat they can read; anything else,
 * and an absent id, is the same 404.
 */
@Injectable()
export class UploadImages {
  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    private readonly attachments: ChatAttachments,
    private readonly storage: UploadStorage,
  ) {}

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
      if (!readable) throw new AppError(ErrorCode.NOT_FOUND, `Upload ${id} not found`);
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
