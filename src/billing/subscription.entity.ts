import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { User, type Plan } from '../users/user.entity';

/** Processor statuses after which a subscription never changes again. */
export const TERMINAL_STATUSES = ['canceled', 'incomplete_expired'] as const;
/**
 * Statuses under which the subscription's plan applies to the user. `past_due`: a renewal
 * failed and Stripe is retrying it; the plan stays until Stripe ends the subscription
 * (`canceled`, or `unpaid` when the account is set to leave it unpaid).
 */
export const PLAN_GRANTING_STATUSES = ['active', 'trialing', 'past_due'] as const;

/**
 * The service's copy of one processor subscription, kept by the `customer.subscription.*`
 * webhooks. `stateAt` is the processor time (the event's `created`) of the state stored, so an
 * older event delivered late never overwrites a newer state.
 */
@Entity('subscriptions')
@Check('CHK_subscriptions_plan', `"plan" IN ('BASIC', 'PRO')`)
@Index('IDX_subscriptions_user', ['userId'])
export class Subscription {
  @PrimaryGeneratedColumn('uuid') id: string;

  /** The processor's id, `sub_…`. */
  @Index('UQ_subscriptions_processor_id', { unique: true })
  @Column({ type: 'varchar', length: 255 })
  processorId: string;

  @Column({ type: 'uuid' }) userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  /** The processor's customer id, `cus_…`. */
  @Column({ type: 'varchar', length: 255 }) customerId: string;
  @Column({ type: 'varchar', length: 255, nullable: true }) priceId: string | null;
  /** The plan of `priceId` (STRIPE_PRICE_*), or null for a price not configured. */
  @Column({ type: 'varchar', length: 10, nullable: true }) plan: Exclude<Plan, 'FREE'> | null;
  /** The processor's status: `incomplete`, `active`, `trialing`, `past_due`, `canceled`, … */
  @Column({ type: 'varchar', length: 32 }) status: string;
  @Column({ type: 'timestamptz', nullable: true }) currentPeriodEnd: Date | null;
  @Column({ type: 'timestamptz' }) stateAt: Date;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
