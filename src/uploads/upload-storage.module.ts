import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app.config';
import { LocalDiskStorage } from './local-disk.storage';
import { UploadStorage } from './upload-storage';

/** Provides the UploadStorage driver: local disk in UPLOAD_DIR (an S3 driver can come later). */
@Module({
  providers: [
    {
      provide: UploadStorage,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>): UploadStorage =>
        new LocalDiskStorage(config.get('uploads', { infer: true }).dir),
    },
  ],
  exports: [UploadStorage],
})
export class UploadStorageModule {}
