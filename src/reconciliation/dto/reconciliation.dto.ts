import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import {
  FINDING_KINDS,
  type FindingKind,
  type ReconciliationFinding,
} from '../reconciliation-finding.entity';
import type { ReconciliationReport } from '../reconciliation.service';

/** POST /api/admin/reconciliation/run: what the pass found. */
export class ReconciliationReportDto {
  @ApiProperty({ format: 'date-time', description: 'start of the window (72 hours back)' })
  since: string;
  @ApiProperty({ type: 'integer', description: 'paid credit purchases read at the processor' })
  paymentsChecked: number;
  @ApiProperty({ type: 'integer', description: 'granted purchases of the window checked' })
  grantsChecked: number;
  @ApiProperty({ type: 'integer', description: 'paid payments with no grant seen in this pass' })
  missingGrants: number;
  @ApiProperty({ type: 'integer', description: 'granted purchases not paid seen in this pass' })
  unpaidGrants: number;
  @ApiProperty({ type: 'integer', description: 'of those, how many no earlier pass had found' })
  newFindings: number;
}

/** GET /api/admin/reconciliation/findings query. */
export class FindingsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FINDING_KINDS })
  @IsOptional()
  @IsIn(FINDING_KINDS)
  kind?: FindingKind;
}

/** A mismatch between the processor's payments and the grants. */
export class ReconciliationFindingDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    enum: FINDING_KINDS,
    description:
      '`missing_grant`: paid at the processor, never granted (replay `eventId`); `unpaid_grant`: granted, not paid at the processor',
  })
  kind: FindingKind;
  @ApiProperty({ example: 'pi_3PqExample', description: 'payment intent (or Checkout Session) id' })
  reference: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'evt_reconcile_pi_3PqExample',
    description: 'the failed webhook to replay (missing_grant); null for unpaid_grant',
  })
  eventId: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) userId: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'minor units of currency' })
  amount: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'usd' }) currency: string | null;
  @ApiProperty({
    example: 'requires_payment_method',
    description: "the payment's status at the processor when last seen; `missing` when unknown",
  })
  processorStatus: string;
  @ApiProperty({ format: 'date-time' }) firstSeenAt: string;
  @ApiProperty({ format: 'date-time' }) lastSeenAt: string;
}

/** GET /api/admin/reconciliation/findings: most recently seen first (envelope C). */
export class ReconciliationFindingPageDto {
  @ApiProperty({ type: [ReconciliationFindingDto] }) data: ReconciliationFindingDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page' })
  nextCursor: string | null;
}

export function mapReport(r: ReconciliationReport): ReconciliationReportDto {
  return { ...r, since: r.since.toISOString() };
}

export function mapFinding(f: ReconciliationFinding): ReconciliationFindingDto {
  return {
    id: f.id,
    kind: f.kind,
    reference: f.reference,
    eventId: f.eventId,
    userId: f.userId,
    amount: f.amount,
    currency: f.currency,
    processorStatus: f.processorStatus,
    firstSeenAt: f.firstSeenAt.toISOString(),
    lastSeenAt: f.lastSeenAt.toISOString(),
  };
}
