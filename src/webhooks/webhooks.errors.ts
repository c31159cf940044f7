import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the webhooks module raises, as `code` in error bodies. */
export enum WebhooksErrorCode {
  /** Handling a verified event failed; the processor delivers it again. */
  WEBHOOK_HANDLER_FAILED = 'WEBHOOK_HANDLER_FAILED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const WEBHOOKS_ERRORS: ErrorTable<WebhooksErrorCode> = {
  // Any non-2xx makes the processor retry the delivery.
  WEBHOOK_HANDLER_FAILED: { status: HttpStatus.INTERNAL_SERVER_ERROR },
};
