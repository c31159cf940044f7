import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Who acted: a user, an administrator, an API key, a processor webhook, or the service itself. */
export const AUDIT_ACTOR_TYPES = ['user', 'admin', 'system', 'webhook', 'api_key'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** Every audited action; `AuditService.record` accepts no other. */
export const AUDIT_ACTIONS = [
  'user.role.change',
  'user.plan.change',
  'user.credits.adjust',
  'user.email.change',
  'user.social_takeover',
  'payment.refund',
  'credits.purchase.grant',
  'credits.plan.grant',
  'credits.refund.clawback',
  'credits.dispute.clawback',
  'credits.dispute.restore',
  'two_factor.reset',
  'api_key.create',
  'api_key.revoke',
  'team.ownership.change',
  'plugin.register',
  'upstream.create',
  'upstream.update',
  'upstream.delete',
  'budget.set',
  'budget.delete',
  'budget.threshold',
  'price.apply',
  'price.hold',
  'price.reject',
  'price.missing',
  'redemption.batch.create',
  'redemption.batch.export',
  'redemption.batch.disable',
  'credits.redeem',
  'credit_pack.set',
  'credit_pack.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = [
  'user',
  'payment',
  'api_key',
  'team',
  'plugin',
  'upstream',
  'budget',
  'model',
  'redemption_batch',
  'credit_pack',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * One row of the append-only audit log. Rows are inserted only by AuditService,
 * in the transaction of the action they describe; a trigger refuses UPDATE, DELETE and TRUNCATE.
 */
@Entity('audit_events')
export class AuditEvent {
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'timestamptz', precision: 3 }) at: Date;
  /** Null for the system and for webhooks. */
  @Column({ type: 'uuid', nullable: true }) actorId: string | null;
  @Column({ type: 'varchar', length: 10 }) actorType: AuditActorType;
  @Column({ type: 'varchar', length: 64 }) action: AuditAction;
  @Column({ type: 'varchar', length: 32 }) targetType: AuditTargetType;
  @Column({ type: 'varchar', length: 255, nullable: true }) targetId: string | null;
  /** What changed (`{from, to}`, amounts, references); never a secret. */
  @Column({ type: 'jsonb' }) details: Record<string, unknown>;
  @Column({ type: 'varchar', length: 64, nullable: true }) requestId: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) ip: string | null;
}
