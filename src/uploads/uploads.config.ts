import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { resolve } from 'node:path';
import { defineConfigSlice } from '../config/config-slice';
import {
  emptyToUndefined,
  HTTP_URL,
  SetTogether,
  toBool,
  toInt,
  toList,
} from '../config/feature-environment';

/** Content types an upload may have: the kinds whose magic bytes `src/uploads` recognises. */
export const UPLOAD_CONTENT_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

/** Where upload bytes are stored (STORAGE_DRIVER). */
export const STORAGE_DRIVERS = ['disk', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

/** Upload limits and storage: local disk (UPLOAD_DIR) or an S3 bucket (S3_*, read only for s3). */
export class UploadsEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() UPLOAD_DIR?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) UPLOAD_MAX_BYTES?: number;
  @IsOptional()
  @Transform(toList)
  @IsIn(UPLOAD_CONTENT_TYPES, {
    each: true,
    message: `UPLOAD_ALLOWED_TYPES may list only ${UPLOAD_CONTENT_TYPES.join(', ')}`,
  })
  UPLOAD_ALLOWED_TYPES?: string[];
  /** How long a signed `/uploads/` link is valid (seconds, 1 minute to 7 days). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) @Max(604_800) UPLOAD_URL_TTL_SECONDS?: number;
  /** Download misses (404) per client IP and minute before 429. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) UPLOAD_MISS_LIMIT_PER_MINUTE?: number;
  /** Bytes all of one user's stored uploads may add up to (at least one byte, below 2^53). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  UPLOAD_QUOTA_BYTES?: number;
  /** Upload attempts per user in a rolling hour before 429. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) UPLOAD_RATE_PER_HOUR?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(STORAGE_DRIVERS, { message: `STORAGE_DRIVER must be one of ${STORAGE_DRIVERS.join(', ')}` })
  STORAGE_DRIVER?: StorageDriver;
  @ValidateIf((o: UploadsEnvironment) => o.STORAGE_DRIVER === 's3')
  @Transform(emptyToUndefined)
  @IsString({ message: 'S3_BUCKET is required when STORAGE_DRIVER=s3' })
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/, {
    message: 'S3_BUCKET must be a bucket name (3-255 letters, digits, ".", "-" or "_")',
  })
  S3_BUCKET?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[a-z0-9][a-z0-9-]*$/, { message: 'S3_REGION must be a region name like us-east-1' })
  S3_REGION?: string;
  /** For S3-compatible stores (MinIO, ...); unset = AWS's endpoint for S3_REGION. */
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) S3_ENDPOINT?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() S3_FORCE_PATH_STYLE?: boolean;
  // Static keys go together; without both the SDK's default credential chain applies.
  @SetTogether('S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY') S3_ACCESS_KEY_ID?: string;
  @SetTogether('S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY') S3_SECRET_ACCESS_KEY?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @MaxLength(512)
  @Matches(/^[^/]/, { message: 'S3_KEY_PREFIX must not start with "/"' })
  S3_KEY_PREFIX?: string;
}

/** The S3 (or S3-compatible) bucket uploads are stored in (STORAGE_DRIVER=s3). */
export interface S3StorageConfig {
  bucket: string;
  /** S3_REGION, default `us-east-1`. */
  region: string;
  /** S3_ENDPOINT of a compatible store such as MinIO; undefined = AWS. */
  endpoint?: string;
  /** `http://endpoint/bucket/key` instead of `http://bucket.endpoint/key` (S3_FORCE_PATH_STYLE). */
  forcePathStyle: boolean;
  /** Static credentials (both or neither); undefined = the SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Prepended to every object key verbatim, e.g. `uploads/` (S3_KEY_PREFIX, default none). */
  keyPrefix: string;
}

/** The `uploads` slice. */
export interface UploadsConfig {
  /** Where the bytes go: `disk` (in `dir`) or `s3` (in `s3`); STORAGE_DRIVER, default disk. */
  driver: StorageDriver;
  /** Absolute directory the local disk driver stores files in (UPLOAD_DIR, default `uploads`). */
  dir: string;
  /** The bucket of the s3 driver; set when `driver` is `s3`. */
  s3?: S3StorageConfig;
  /** Largest accepted file in bytes (default 10485760 = 10 MiB); larger → 413. */
  maxBytes: number;
  /** Content types accepted after magic-byte sniffing (default: all of UPLOAD_CONTENT_TYPES). */
  allowedTypes: UploadContentType[];
  /** Lifetime of a signed `/uploads/` link in seconds (UPLOAD_URL_TTL_SECONDS, default 3600). */
  urlTtlSeconds: number;
  /**
   * Download misses (404) per client IP in a minute before `/uploads/` answers 429
   * (UPLOAD_MISS_LIMIT_PER_MINUTE, default 20); successful downloads are not counted.
   */
  missLimitPerMinute: number;
  /**
   * Bytes one user's stored uploads may add up to (UPLOAD_QUOTA_BYTES, default 1073741824 =
   * 1 GiB); the upload that would pass it → 413 UPLOAD_QUOTA_EXCEEDED, nothing stored.
   */
  quotaBytes: number;
  /**
   * Upload attempts per user in an hour before POST /api/upload answers 429 RATE_LIMITED
   * (UPLOAD_RATE_PER_HOUR, default 100).
   */
  ratePerHour: number;
}

/** The `uploads` slice from validated variables; `s3` only for the s3 driver. */
export function buildUploadsConfig(env: UploadsEnvironment): UploadsConfig {
  return {
    driver: env.STORAGE_DRIVER ?? 'disk',
    dir: resolve(env.UPLOAD_DIR ?? 'uploads'),
    s3:
      env.STORAGE_DRIVER === 's3'
        ? {
            bucket: env.S3_BUCKET!,
            region: env.S3_REGION ?? 'us-east-1',
            endpoint: env.S3_ENDPOINT,
            forcePathStyle: env.S3_FORCE_PATH_STYLE ?? false,
            accessKeyId: env.S3_ACCESS_KEY_ID,
            secretAccessKey: env.S3_SECRET_ACCESS_KEY,
            keyPrefix: env.S3_KEY_PREFIX ?? '',
          }
        : undefined,
    maxBytes: env.UPLOAD_MAX_BYTES ?? 10 * 1024 * 1024,
    allowedTypes: (env.UPLOAD_ALLOWED_TYPES as UploadContentType[] | undefined) ?? [
      ...UPLOAD_CONTENT_TYPES,
    ],
    urlTtlSeconds: env.UPLOAD_URL_TTL_SECONDS ?? 3600,
    missLimitPerMinute: env.UPLOAD_MISS_LIMIT_PER_MINUTE ?? 20,
    quotaBytes: env.UPLOAD_QUOTA_BYTES ?? 1024 ** 3,
    ratePerHour: env.UPLOAD_RATE_PER_HOUR ?? 100,
  };
}

/** The `uploads` slice, read by its module with `@Inject(uploadsConfig.KEY)`. */
export const uploadsConfig = defineConfigSlice({
  name: 'uploads',
  environment: UploadsEnvironment,
  build: buildUploadsConfig,
});
