import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from '../common/clock/clock';
import { ChatsModule } from '../chats/chats.module';
import { ConfigSliceModule } from '../config/config-slice.module';
import { SniffingStorageEngine } from './sniffing-storage.engine';
import { UploadDownloads } from './upload-downloads.service';
import { Upload } from './upload.entity';
import { UploadStorage } from './upload-storage';
import { UploadStorageModule } from './upload-storage.module';
import { UploadFilesController, UploadsController } from './uploads.controller';
import { uploadsConfig } from './uploads.config';
import { UploadsService } from './uploads.service';
import { UploadImages } from './upload-images.service';
import { UploadQuota } from './upload-quota.service';

/**
 * Uploads (spec "Upload"): the Upload table, the storage driver (STORAGE_DRIVER) and
 * multer configured to stream through the content sniffer into it: one file of at most
 * UPLOAD_MAX_BYTES in field `file`, a handful of small text fields, UTF-8 file names.
 * Downloads are served only to those UploadDownloads allows.
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(uploadsConfig),
    TypeOrmModule.forFeature([Upload]),
    UploadStorageModule,
    // Who may download a file attached to a chat (ChatAttachments); Chats does not need Uploads.
    ChatsModule,
    MulterModule.registerAsync({
      imports: [UploadStorageModule, ConfigSliceModule.forFeature(uploadsConfig)],
      inject: [uploadsConfig.KEY, UploadStorage, Clock],
      useFactory: (
        uploads: ConfigType<typeof uploadsConfig>,
        storage: UploadStorage,
        clock: Clock,
      ) => {
        const { maxBytes, allowedTypes } = uploads;
        return {
          storage: new SniffingStorageEngine(storage, allowedTypes, () => clock.now().getTime()),
          // Browsers send raw UTF-8 in `filename="..."`; busboy's default would read it as latin1.
          defParamCharset: 'utf8',
          limits: {
            fileSize: maxBytes,
            files: 1,
            fields: 10,
            fieldSize: 1024,
            parts: 20,
            headerPairs: 100,
          },
        };
      },
    }),
  ],
  controllers: [UploadsController, UploadFilesController],
  providers: [UploadsService, UploadDownloads, UploadImages, UploadQuota],
  exports: [UploadsService, UploadImages],
})
export class UploadsModule {}
