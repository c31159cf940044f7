import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type Stripe from 'stripe';
import type { DataSource } from 'typeorm';
import { PurchasesService } from '../billing/purchases.service';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { CreditsService } from '../credits/credits.service';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { MetricsService } from '../metrics/metrics.service';
import { type ReconciledEvent, WebhookFailuresService } from '../webhooks/webhook-failures.service';
import { ProcessorPayments } from './processor-payments';
import { type FindingKind, ReconciliationFinding } from './reconciliation-finding.entity';
import { upsertFindingSql } from './reconciliation.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Compares the processor's paid payments of the window with the purchases granted; daily. */
    'payments.reconcile': NoData;
  }
}

/** The daily reconciliation (one pass at a time). */
export const RECONCILE_QUEUE = declareQueue('payments.reconcile');

/** How far back a pass looks: payments created, and grants made, in the last 72 hours. */
export const RECONCILE_WINDOW_HOURS = 72;
/** Every day at 04:15 UTC. */
export const RECONCILE_CRON = '15 4 * * *';

/** What one pass found: mismatches seen in this pass (new or known), and how many are new. */
export interface ReconciliationReport {
  since: Date;
  paymentsChecked: number;
  grantsChecked: number;
  missingGrants: number;
  unpaidGrants: number;
  newFindings: number;
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/** The event id under which a paid payment with no grant is stored (one per payment). */
const reconcileEventId = (objectId: string) => `evt_reconcile_${objectId}`;

/**
 * Payments reconciliation: the processor's paid credit purchases of the last
 * RECONCILE_WINDOW_HOURS (card, Alipay, WeChat Pay and Checkout Sessions) against the grants.
 * A paid payment with no grant is stored in the failed webhooks, reason `reconciliation`, as the
 * event that grants it (an admin replays it, and the grant is made once, keyed by the payment);
 * a granted purchase whose payment is not paid at the processor is flagged. Both are recorded
 * in `reconciliation_findings` and counted once in `payments_reconciliation_findings_total`.
 */
@Injectable()
export class ReconciliationService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Reconciliation');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly processor: ProcessorPayments,
    private readonly purchases: PurchasesService,
    private readonly credits: CreditsService,
    private readonly failures: WebhookFailuresService,
    private readonly metrics: MetricsService,
    private readonly jobs: JobsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(RECONCILE_QUEUE, () => this.scheduledRun(), {
      singleton: true,
      retryLimit: 0, // the next day's pass is the retry; an admin can run one now
      keepSeconds: 7 * 24 * 3600,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.jobs.started) await this.jobs.schedule(RECONCILE_QUEUE, RECONCILE_CRON, {});
  }

  /**
   * One pass (see the class). Throws PAYMENTS_NOT_CONFIGURED (503) without a Stripe secret key
   * and the processor's errors (PAYMENT_PROVIDER_ERROR, …); findings recorded before a failure
   * stay.
   */
  async run(): Promise<ReconciliationReport> {
    const since = new Date(Date.now() - RECONCILE_WINDOW_HOURS * 3600 * 1000);
    const paid = await this.processor.paidSince(Math.floor(since.getTime() / 1000));
    const report: ReconciliationReport = {
      since,
      paymentsChecked: 0,
      grantsChecked: 0,
      missingGrants: 0,
      unpaidGrants: 0,
      newFindings: 0,
    };
    const paidRefs = new Set<string>();
    for (const cs of paid.sessions) {
      const reference = idOf(cs.payment_intent) ?? cs.id;
      if (paidRefs.has(reference)) continue;
      paidRefs.add(reference);
      await this.checkPaid(report, reference, this.event(cs.id, 'checkout.session.completed', cs), {
        userId: cs.client_reference_id ?? cs.metadata?.userId ?? null,
        amount: cs.amount_total,
        currency: cs.currency,
        processorStatus: cs.payment_status,
      });
    }
    for (const pi of paid.intents) {
      // A Checkout payment was checked with its session.
      if (paidRefs.has(pi.id)) continue;
      paidRefs.add(pi.id);
      await this.checkPaid(report, pi.id, this.event(pi.id, 'payment_intent.succeeded', pi), {
        userId: pi.metadata?.userId ?? null,
        amount: pi.amount_received || pi.amount,
        currency: pi.currency,
        processorStatus: pi.status,
      });
    }
    for (const p of await this.purchases.grantedSince(since)) {
      report.grantsChecked++;
      const reference = p.paymentIntentId ?? p.checkoutSessionId!;
      if (paidRefs.has(reference)) continue;
      // Paid before the window, or not paid at all: ask the processor about this one.
      const status = await this.processor.statusOf(p.paymentIntentId, p.checkoutSessionId);
      if (status === 'succeeded' || status === 'paid') continue;
      report.unpaidGrants++;
      const fresh = await this.recordFinding('unpaid_grant', reference, null, {
        userId: p.userId,
        amount: p.amount,
        currency: p.currency,
        processorStatus: status,
      });
      if (fresh) report.newFindings++;
      this.logger.warn({ reference, status }, 'Granted purchase not paid at the processor');
    }
    this.logger.log({ ...report }, 'Payments reconciled');
    return report;
  }

  /** Findings, most recently seen first, keyset-paginated; only `kind` when given. */
  async list(
    kind: FindingKind | undefined,
    limit?: number,
    cursor?: string,
  ): Promise<{ data: ReconciliationFinding[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const qb = this.dataSource
      .getRepository(ReconciliationFinding)
      .createQueryBuilder('f')
      .orderBy('f.lastSeenAt', 'DESC')
      .addOrderBy('f.id', 'DESC')
      .take(size + 1);
    if (kind) qb.andWhere('f.kind = :kind', { kind });
    if (cursor) qb.andWhere('(f.lastSeenAt, f.id) < (:at, :id)', decodeCursor(cursor));
    return toPage(await qb.getMany(), size, (f) => f.lastSeenAt);
  }

  /** A paid payment: a finding and a replayable event when nothing was granted under `reference`. */
  private async checkPaid(
    report: ReconciliationReport,
    reference: string,
    event: ReconciledEvent,
    what: {
      userId: string | null;
      amount: number | null;
      currency: string | null;
      processorStatus: string;
    },
  ): Promise<void> {
    report.paymentsChecked++;
    if (await this.granted(reference)) return;
    report.missingGrants++;
    await this.failures.recordReconciliation(
      event,
      `Reconciliation: payment ${reference} is paid at the processor and was never granted`,
    );
    if (await this.recordFinding('missing_grant', reference, event.id, what)) report.newFindings++;
    this.logger.warn(
      { reference, event: event.id },
      'Paid payment without a grant; stored for replay',
    );
  }

  /** Whether a grant (a user's or a team pool's) is keyed by `reference`. */
  private async granted(reference: string): Promise<boolean> {
    return (await this.credits.findByReference(reference)) !== null;
  }

  /** Upserts the finding; true (and counted) when it is new. */
  private async recordFinding(
    kind: FindingKind,
    reference: string,
    eventId: string | null,
    what: {
      userId: string | null;
      amount: number | null;
      currency: string | null;
      processorStatus: string;
    },
  ): Promise<boolean> {
    const userId = what.userId && /^[0-9a-f-]{36}$/i.test(what.userId) ? what.userId : null;
    const { sql, params } = upsertFindingSql({ kind, reference, eventId, ...what, userId });
    const [row] = (await this.dataSource.query(sql, params)) as { inserted: boolean }[];
    if (row?.inserted) this.metrics.reconciliationFindings.inc({ kind });
    return Boolean(row?.inserted);
  }

  /** The event the processor would have sent for `object`, under a per-payment id. */
  private event(
    objectId: string,
    type: ReconciledEvent['type'],
    object: Stripe.PaymentIntent | Stripe.Checkout.Session,
  ): ReconciledEvent {
    return {
      id: reconcileEventId(objectId),
      object: 'event',
      type,
      created: object.created,
      livemode: object.livemode,
      data: { object },
    };
  }

  /** The scheduled pass: skipped without a Stripe secret key (nothing to compare with). */
  private async scheduledRun(): Promise<void> {
    if (!this.processor.configured) {
      this.logger.log('Payments not configured; reconciliation skipped');
      return;
    }
    await this.run();
  }
}
