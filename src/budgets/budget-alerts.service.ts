import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { LOCALES, type Locale } from '../i18n/locale';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { MailService } from '../mail/mail.service';
import { MetricsService } from '../metrics/metrics.service';
import { CLAIM_ALERTS_SQL } from './budget-alerts.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Mails the soft budget thresholds crossed since the last run. */
    'budget-alerts': NoData;
  }
}

/** The queue that mails crossed soft thresholds, scheduled every minute. */
export const BUDGET_ALERTS_QUEUE = declareQueue('budget-alerts');

/** Alerts claimed per run. */
const BATCH = 100;

interface ClaimedAlert {
  budgetId: string;
  threshold: number;
  used: number;
  limit: number;
  window: string;
  scope: string;
  recipients: {
    id: string;
    email: string;
    proven: boolean;
    name: string | null;
    locale: string | null;
  }[];
}

/**
 * Soft thresholds: the settlement statement inserts one budget_alerts row per budget window and
 * threshold crossed (its primary key decides, so parallel calls crossing together make one).
 * This job, every minute on one instance at a time, claims the new rows and for each: one mail
 * per owner (the user; the key's owner; the team's OWNERs and ADMINs, and the member), queued
 * through the mail module, an audit entry and the `budget_thresholds_crossed_total` metric.
 * Thresholds never block a call.
 */
@Injectable()
export class BudgetAlertsService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('BudgetAlerts');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly metrics: MetricsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(
      BUDGET_ALERTS_QUEUE,
      async () => void (await this.sendPending()),
      {
        singleton: true,
        retryLimit: 0, // the next minute's run is the retry
        keepSeconds: 24 * 3600,
      },
    );
  }

  /** Schedules the run every minute (once across instances) where the job queue runs. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.jobs.started) {
      this.logger.warn('The job queue is off on this instance: no budget threshold mails from it');
      return;
    }
    await this.jobs.schedule(BUDGET_ALERTS_QUEUE, '* * * * *', {});
  }

  /**
   * Claims the thresholds crossed and not yet told, writes their audit entries in the same
   * transaction, then queues the mails and counts them. Returns how many were claimed.
   */
  async sendPending(): Promise<number> {
    const alerts = await this.dataSource.transaction(async (m) => {
      const rows: ClaimedAlert[] = await m.query(CLAIM_ALERTS_SQL, [BATCH]);
      for (const a of rows)
        await this.audit.record(m, {
          action: 'budget.threshold',
          targetType: 'budget',
          targetId: a.budgetId,
          details: { window: a.window, threshold: a.threshold, used: a.used, limit: a.limit },
          actor: { id: null, type: 'system' },
        });
      return rows;
    });
    for (const a of alerts) {
      this.metrics.budgetThresholds.inc({ scope: a.scope, window: a.window });
      for (const r of a.recipients)
        await this.mail.send({
          to: r.email,
          toProven: r.proven,
          template: 'budget-threshold',
          locale: localeOf(r.locale),
          params: {
            name: r.name,
            budget: {
              scope: a.scope,
              window: a.window,
              threshold: a.threshold,
              used: a.used,
              limit: a.limit,
            },
          },
        });
    }
    return alerts.length;
  }
}

function localeOf(stored: string | null): Locale {
  return stored && (LOCALES as readonly string[]).includes(stored) ? (stored as Locale) : 'en';
}
