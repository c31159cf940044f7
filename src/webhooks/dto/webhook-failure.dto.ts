import { ApiProperty } from '@nestjs/swagger';
import {
  WEBHOOK_FAILURE_REASONS,
  type WebhookFailure,
  type WebhookFailureReason,
} from '../webhook-failure.entity';

/** A stored failed webhook event; the raw payload is left out of the list (it can be large). */
export class WebhookFailureDto {
  @ApiProperty({ example: 'evt_1PqExample' }) eventId: string;
  @ApiProperty({ example: 'payment_intent.succeeded' }) type: string;
  @ApiProperty({
    enum: WEBHOOK_FAILURE_REASONS,
    description:
      '`handler`: its handler failed; `reconciliation`: a paid payment with no grant, found by the payments reconciliation',
  })
  reason: WebhookFailureReason;
  @ApiProperty({ description: 'the last error: name and message' }) error: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) attempts: number;
  @ApiProperty({ format: 'date-time' }) firstAttemptAt: string;
  @ApiProperty({ format: 'date-time' }) lastAttemptAt: string;
}

/** GET /api/admin/webhooks/failed: most recent attempt first (envelope C). */
export class WebhookFailurePageDto {
  @ApiProperty({ type: [WebhookFailureDto] }) data: WebhookFailureDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page' })
  nextCursor: string | null;
}

/** POST …/replay: `processed` now, or `duplicate` (processed since: nothing done). */
export class WebhookReplayDto {
  @ApiProperty({ example: 'evt_1PqExample' }) eventId: string;
  @ApiProperty({ enum: ['processed', 'duplicate'] }) outcome: 'processed' | 'duplicate';
}

export function mapWebhookFailure(f: WebhookFailure): WebhookFailureDto {
  return {
    eventId: f.eventId,
    type: f.type,
    reason: f.reason,
    error: f.error,
    attempts: f.attempts,
    firstAttemptAt: f.firstAttemptAt.toISOString(),
    lastAttemptAt: f.lastAttemptAt.toISOString(),
  };
}
