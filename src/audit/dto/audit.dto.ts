import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditActorType,
  type AuditEvent,
  type AuditTargetType,
} from '../audit-event.entity';

/** GET /api/admin/audit filters; all optional and combined with AND. */
export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'the acting user or administrator' })
  @IsOptional()
  @IsUUID()
  actorId?: string;

  @ApiPropertyOptional({ enum: AUDIT_TARGET_TYPES })
  @IsOptional()
  @IsIn(AUDIT_TARGET_TYPES)
  targetType?: AuditTargetType;

  @ApiPropertyOptional({ description: 'a user, key or team id, or a payment intent id' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  targetId?: string;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: AuditAction;

  @ApiPropertyOptional({ format: 'date-time', description: 'at or after (inclusive)' })
  @IsOptional()
  @IsDateString({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'before (exclusive)' })
  @IsOptional()
  @IsDateString({ strict: true })
  to?: string;
}

/** One audit row. */
export class AuditEventDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: the system' })
  actorId: string | null;
  @ApiProperty({ enum: AUDIT_ACTOR_TYPES }) actorType: AuditActorType;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action: AuditAction;
  @ApiProperty({ enum: AUDIT_TARGET_TYPES }) targetType: AuditTargetType;
  @ApiProperty({ type: String, nullable: true }) targetId: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { field: 'credits', from: 100, to: 250 },
  })
  details: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, description: 'the x-request-id of the action' })
  requestId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'client address' })
  ip: string | null;
}

/** A page of the audit log, newest first (envelope C). */
export class AuditPageDto {
  @ApiProperty({ type: [AuditEventDto] }) data: AuditEventDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page' })
  nextCursor: string | null;
}

export function mapAuditEvent(e: AuditEvent): AuditEventDto {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actorId: e.actorId,
    actorType: e.actorType,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    details: e.details,
    requestId: e.requestId,
    ip: e.ip,
  };
}
