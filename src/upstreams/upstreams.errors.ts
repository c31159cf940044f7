import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the upstreams module (upstream administration) raises, as `code` in error bodies. */
export enum UpstreamsErrorCode {
  /** An upstream built from the environment (`env:<provider>`) cannot be changed or deleted. */
  UPSTREAM_READ_ONLY = 'UPSTREAM_READ_ONLY',
  /**
   * `baseUrl` reaches an address class UPSTREAM_ALLOW_PRIVATE does not allow
   * (link-local, cloud metadata, …; `details.addressClass`).
   */
  UPSTREAM_URL_FORBIDDEN = 'UPSTREAM_URL_FORBIDDEN',
  /** Moving a keyed upstream's `baseUrl` to another origin without `apiKey` beside it. */
  UPSTREAM_KEY_REQUIRED = 'UPSTREAM_KEY_REQUIRED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const UPSTREAMS_ERRORS: ErrorTable<UpstreamsErrorCode> = {
  UPSTREAM_READ_ONLY: { status: HttpStatus.CONFLICT },
  UPSTREAM_URL_FORBIDDEN: { status: HttpStatus.BAD_REQUEST },
  UPSTREAM_KEY_REQUIRED: { status: HttpStatus.BAD_REQUEST },
};
