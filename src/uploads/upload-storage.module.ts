import { Logger, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ConfigSliceModule } from '../config/config-slice.module';
import { LocalDiskStorage } from './local-disk.storage';
import { UploadLinks } from './upload-links';
import { UploadStorage } from './upload-storage';
import { uploadsConfig } from './uploads.config';

/**
 * Provides the UploadStorage driver of STORAGE_DRIVER: `disk` (UPLOAD_DIR, the default) or
 * `s3` (S3_BUCKET through the AWS SDK). Logs which one at boot, never the credentials. Also
 * UploadLinks, the signed download links, for any module that hands out upload URLs.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(uploadsConfig)],
  providers: [
    {
      provide: UploadStorage,
      inject: [uploadsConfig.KEY],
      useFactory: (uploads: ConfigType<typeof uploadsConfig>): UploadStorage => {
        const logger = new Logger('UploadStorage');
        if (uploads.driver === 's3' && uploads.s3) {
          const s3 = uploads.s3;
          // The origin only: an endpoint URL could carry user info.
          const where = s3.endpoint ? `at ${new URL(s3.endpoint).origin}` : `in ${s3.region}`;
          logger.log(`Uploads go to S3 bucket ${s3.bucket} ${where}, key prefix "${s3.keyPrefix}"`);
          // Loaded only for this driver: the AWS SDK is the heaviest import of the app.
          const { createS3Client, S3Storage } =
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            require('./s3.storage') as typeof import('./s3.storage');
          return new S3Storage(createS3Client(s3), s3.bucket, s3.keyPrefix);
        }
        logger.log(`Uploads go to ${uploads.dir}`);
        return new LocalDiskStorage(uploads.dir);
      },
    },
    UploadLinks,
  ],
  exports: [UploadStorage, UploadLinks],
})
export class UploadStorageModule {}
