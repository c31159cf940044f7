import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, QueryFailedError, Repository } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { UploadedFile } from './sniffing-storage.engine';
import { Upload } from './upload.entity';
import { isStoredFileName } from './upload-filename';
import { UploadQuota } from './upload-quota.service';
import { type StoredObject, UploadStorage } from './upload-storage';

/** Stored files removed at once when a user's uploads go. */
const REMOVE_CONCURRENCY = 8;

export const uploadNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Upload not found');

/** An upload opened for download: its record and its bytes. */
export interface OpenedUpload {
  upload: Upload;
  body: StoredObject;
}

/**
 * Upload records and their bytes. The bytes are written by SniffingStorageEngine while multer
 * parses the request; this service records them, opens them (who may download is decided by
 * UploadDownloads) and deletes them. A name that is not a stored name, an unknown name and
 * another user's upload all answer the same 404.
 */
@Injectable()
export class UploadsService {
  private readonly logger = new Logger(UploadsService.name);

  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    private readonly storage: UploadStorage,
    private readonly quota: UploadQuota,
  ) {}

  /**
   * Records a file the engine has stored for `user` (spec POST /api/upload), within the user's
   * UPLOAD_QUOTA_BYTES (UploadQuota.reserve, in the insert's transaction).
   * Throws AppError VALIDATION_FAILED (400) when the request had no `file` part,
   * UPLOAD_QUOTA_EXCEEDED (413) past the quota, CONFLICT (409) for a taken name. When the
   * upload is not recorded the stored bytes are removed before the error is rethrown.
   */
  async record(user: SessionUser, file: UploadedFile | undefined): Promise<Upload> {
    if (!file)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        'file is required: send multipart/form-data with a file in field "file"',
      );
    try {
      return await this.uploads.manager.transaction(async (m) => {
        await this.quota.reserve(m, user.id, file.size);
        return m.save(
          m.create(Upload, {
            userId: user.id,
            filename: file.filename,
            originalName: file.originalName,
            size: file.size,
            contentType: file.contentType,
          }),
        );
      });
    } catch (e) {
      await this.removeStored([file.filename]);
      if (e instanceof QueryFailedError && (e.driverError as { code?: string }).code === '23505')
        throw new AppError(CommonErrorCode.CONFLICT, 'An upload with this name exists; try again');
      throw e;
    }
  }

  /** The record of the upload named `filename`; null for an unknown name or not a stored name. */
  async find(filename: string): Promise<Upload | null> {
    if (!isStoredFileName(filename)) return null;
    return this.uploads.findOneBy({ filename });
  }

  /**
   * The bytes of a recorded upload, for a caller already allowed to read it (UploadDownloads).
   * Recorded but missing from storage → logged, NOT_FOUND (404).
   */
  async openBytes(upload: Upload): Promise<OpenedUpload> {
    const body = await this.storage.open(upload.filename);
    if (!body) {
      this.logger.warn(`Upload ${upload.filename} is recorded but missing from storage`);
      throw uploadNotFound();
    }
    return { upload, body };
  }

  /**
   * Deletes the caller's upload: the record first, then the bytes (a failure to remove them is
   * logged; the file is no longer served). Not the caller's, or absent → NOT_FOUND (404).
   */
  async remove(user: SessionUser, filename: string): Promise<void> {
    if (!isStoredFileName(filename)) throw uploadNotFound();
    const { affected } = await this.uploads.delete({ filename, userId: user.id });
    if (!affected) throw uploadNotFound();
    await this.removeStored([filename]);
  }

  /**
   * Deletes every upload record of `userId` inside the caller's transaction `manager` (user
   * deletion) and returns their file names, for `removeStored` once that transaction commits.
   */
  async deleteRecordsOf(userId: string, manager: EntityManager): Promise<string[]> {
    const { raw } = await manager
      .createQueryBuilder()
      .delete()
      .from(Upload)
      .where('"userId" = :userId', { userId })
      .returning('filename')
      .execute();
    return (raw as { filename: string }[]).map((r) => r.filename);
  }

  /**
   * Removes the stored bytes of `filenames`, REMOVE_CONCURRENCY at a time. Best effort: each
   * failure is logged (the record is already gone, so the file is no longer served) and none
   * is thrown. Returns the number of names that could not be removed.
   */
  async removeStored(filenames: string[]): Promise<number> {
    let failed = 0;
    const queue = [...filenames];
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        await this.storage.remove(name).catch((e: Error) => {
          failed++;
          this.logger.error(`Could not remove the bytes of upload ${name}: ${e.message}`);
        });
      }
    };
    await Promise.all(Array.from({ length: REMOVE_CONCURRENCY }, worker));
    return failed;
  }
}
