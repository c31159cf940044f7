import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { JobsService } from '../jobs/jobs.service';
import type { QueuedJob } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { MetricsService } from '../metrics/metrics.service';
import { renderMail } from './mail-templates';
import { MailTransport } from './mail-transport';
import type { MailRequest, RenderedMail } from './mail.types';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** One outgoing mail, rendered in the recipient's language. */
    'mail-send': RenderedMail;
  }
}

/** The queue of outgoing mails. */
export const MAIL_QUEUE = declareQueue('mail-send');
/**
 * Retries after the first attempt: 2 s doubling (with jitter) reaches about 34 minutes after 10,
 * long enough to ride out a mail server restart without holding a link past its use.
 */
export const MAIL_RETRY_LIMIT = 10;
const MAIL_RETRY_DELAY_SECONDS = 2;
/**
 * How long sent and failed mails stay in the job history (2 days). A queued mail carries its
 * link, so it is kept no longer than the longest link lives, plus a day to look at failures.
 */
const MAIL_KEEP_SECONDS = 2 * 24 * 3600;

/**
 * Transactional mail (architecture "mail ──► jobs"). `send` renders the mail in the recipient's
 * language and queues it; a job delivers it through MailTransport, retried with backoff, so a
 * slow or down mail server never holds up a request. A mail whose last retry fails is logged at
 * error, counted in `mail_failed_total`, and stays in the job history as `failed`.
 */
@Injectable()
export class MailService implements OnModuleInit {
  private readonly logger = new Logger('Mail');

  constructor(
    private readonly jobs: JobsService,
    private readonly transport: MailTransport,
    private readonly metrics: MetricsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(MAIL_QUEUE, (job) => this.deliver(job), {
      retryLimit: MAIL_RETRY_LIMIT,
      retryDelaySeconds: MAIL_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      expireInSeconds: 120,
      keepSeconds: MAIL_KEEP_SECONDS,
      concurrency: 2,
    });
  }

  /**
   * Renders and queues one mail; resolves once it is queued (not sent). A mail to an address not
   * proven yet (`toProven: false`) leaves the display name out: it carries no text a user chose.
   * Never throws: a mail that cannot be rendered or queued (the job queue is off on this
   * instance, or the database refused) is logged at error and counted as failed, and the
   * caller's request still succeeds; the user can ask again (a resend, a new reset request).
   */
  async send(request: MailRequest): Promise<void> {
    const params = request.toProven ? request.params : { ...request.params, name: null };
    try {
      const rendered: RenderedMail = {
        template: request.template,
        to: request.to,
        ...renderMail(request.template, request.locale, params),
        ...(params.link ? { link: params.link } : {}),
      };
      await this.jobs.enqueue(MAIL_QUEUE, rendered);
    } catch (err) {
      this.metrics.mailFailed.inc({ template: request.template });
      this.logger.error(
        { template: request.template, locale: request.locale },
        `Mail "${request.template}" could not be queued: ${(err as Error).message}`,
      );
    }
  }

  private async deliver(job: QueuedJob<RenderedMail>): Promise<void> {
    try {
      await this.transport.deliver(job.data, job.id);
      this.metrics.mailSent.inc({ template: job.data.template });
    } catch (err) {
      const final = job.retryCount >= MAIL_RETRY_LIMIT;
      if (final) {
        this.metrics.mailFailed.inc({ template: job.data.template });
        this.logger.error(
          { job: job.id, attempts: job.retryCount + 1 },
          `Mail "${job.data.subject}" failed for good: ${(err as Error).message}`,
        );
      } else {
        this.logger.warn(
          { job: job.id, attempt: job.retryCount + 1 },
          `Mail "${job.data.subject}" not delivered, retried later: ${(err as Error).message}`,
        );
      }
      throw err;
    }
  }
}
