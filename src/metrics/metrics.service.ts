import { Injectable } from '@nestjs/common';
import cluster from 'node:cluster';
import { performance } from 'node:perf_hooks';
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client';
import { AppError } from '../common/errors/app-error';
import { scrapeThroughPrimary } from './metrics-server';

/** Seconds buckets of model calls: first tokens in under a second, long replies in minutes. */
const AI_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A catalogue model as the AI metrics label it: `model` its id, `provider` its provider. */
interface AiModel {
  id: string;
  providerId: string;
}

/** The parts of an admitted AI request the metrics read (labels come from the catalogue). */
interface AiCall {
  /** The model requested (a fallback may answer instead: the recorders are told which). */
  model: AiModel;
  request: { signal?: AbortSignal };
}

/** What a webhook delivery came to, as counted in `webhook_events_total`. */
export type WebhookOutcome = 'processed' | 'duplicate' | 'failed';

/**
 * The service's Prometheus registry and one-line recorders for the code paths that
 * move its counters. Label values are bounded: route templates, catalogue model ids and
 * providers, error codes, ledger types, handled webhook event types.
 *
 * In a worker of node:cluster the registry is the one answered to the primary's
 * AggregatorRegistry (`clusterMetrics` in metrics-server.ts), so the primary can serve the sum.
 * Gauges read from the database take `aggregator: 'first'`: every worker reads the same rows.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly started = new WeakMap<object, number>();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly aiDuration = new Histogram({
    name: 'ai_request_duration_seconds',
    help: 'Admitted AI requests, from admission to settlement',
    labelNames: ['provider', 'model'] as const,
    buckets: AI_BUCKETS,
    registers: [this.registry],
  });
  readonly aiFirstTokenSeconds = new Histogram({
    name: 'ai_time_to_first_token_seconds',
    help: 'Streamed AI requests, from admission to the first chunk',
    labelNames: ['provider', 'model'] as const,
    buckets: AI_BUCKETS,
    registers: [this.registry],
  });
  readonly aiTokens = new Counter({
    name: 'ai_tokens_total',
    help: 'Tokens charged, by model and kind (prompt, completion)',
    labelNames: ['model', 'kind'] as const,
    registers: [this.registry],
  });
  readonly aiProviderErrors = new Counter({
    name: 'ai_provider_errors_total',
    help: 'AI requests failed or cut by the provider (after retries), by provider and code',
    labelNames: ['provider', 'code'] as const,
    registers: [this.registry],
  });
  readonly aiStreamAborts = new Counter({
    name: 'ai_stream_aborts_total',
    help: 'AI requests cut by the client (disconnect) or by shutdown',
    registers: [this.registry],
  });
  readonly creditsConsumed = new Counter({
    name: 'credits_consumed_total',
    help: 'Credits charged for AI requests, by model',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });
  readonly creditsGranted = new Counter({
    name: 'credits_granted_total',
    help: 'Credits granted, by ledger type (PURCHASE, BONUS, ADJUSTMENT)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly budgetThresholds = new Counter({
    name: 'budget_thresholds_crossed_total',
    help: 'Soft budget thresholds crossed (one per budget window and threshold), by scope and window',
    labelNames: ['scope', 'window'] as const,
    registers: [this.registry],
  });
  readonly holdsSwept = new Counter({
    name: 'credit_holds_swept_total',
    help: 'Expired credit holds returned by the sweep (left by crashed requests)',
    registers: [this.registry],
  });
  readonly statementBatchSize = new Histogram({
    name: 'credits_statement_batch_size',
    help: 'Requests per admission or settlement statement (natural batching, BATCH_STATEMENTS)',
    labelNames: ['statement'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [this.registry],
  });
  readonly webhookEvents = new Counter({
    name: 'webhook_events_total',
    help: 'Processor webhook deliveries, by event type and outcome',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly reconciliationFindings = new Counter({
    name: 'payments_reconciliation_findings_total',
    help: 'Payment mismatches found by the reconciliation, each counted once: missing_grant (paid, not granted) and unpaid_grant (granted, not paid)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly mailSent = new Counter({
    name: 'mail_sent_total',
    help: 'Transactional mails delivered (to SMTP, or to a file in development), by template',
    labelNames: ['template'] as const,
    registers: [this.registry],
  });
  readonly mailFailed = new Counter({
    name: 'mail_failed_total',
    help: 'Transactional mails given up on (every retry failed, or never queued), by template',
    labelNames: ['template'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    if (cluster.isWorker) {
      // Answer the primary's AggregatorRegistry with this registry (not prom-client's global one).
      AggregatorRegistry.setRegistries([this.registry]);
      new AggregatorRegistry();
    }
  }

  /** A gauge whose value is read at scrape time (no timers of our own). */
  gauge(
    name: string,
    help: string,
    labelNames: string[],
    collect: (g: Gauge) => Promise<void>,
    aggregator: 'sum' | 'first' = 'first',
  ): Gauge {
    return new Gauge({
      name,
      help,
      labelNames,
      aggregator,
      registers: [this.registry],
      async collect() {
        await collect(this);
      },
    });
  }

  /** `AiService.admit` let the request in: its clock starts. */
  aiAdmitted(a: AiCall): void {
    this.started.set(a, performance.now());
  }

  /** The first chunk of a stream arrived, from `answered` (the requested model or a fallback). */
  aiFirstToken(a: AiCall, answered: AiModel): void {
    const t = this.started.get(a);
    if (t !== undefined)
      this.aiFirstTokenSeconds.observe(labels(answered), (performance.now() - t) / 1000);
  }

  /**
   * Settled: duration, tokens and credits charged, labelled with the model that answered
   * (`answered`: a fallback's catalogue id when one did, as the ledger entry names it).
   */
  aiSettled(
    a: AiCall,
    settled: {
      answered: AiModel;
      usage: { promptTokens: number; completionTokens: number };
      charged: number;
    },
  ): void {
    const { answered, usage, charged } = settled;
    const t = this.started.get(a);
    if (t !== undefined) this.aiDuration.observe(labels(answered), (performance.now() - t) / 1000);
    this.aiTokens.inc({ model: answered.id, kind: 'prompt' }, usage.promptTokens);
    this.aiTokens.inc({ model: answered.id, kind: 'completion' }, usage.completionTokens);
    if (charged > 0) this.creditsConsumed.inc({ model: answered.id }, charged);
  }

  /**
   * A request failed before its first chunk or was cut after it: a client abort counts in
   * `ai_stream_aborts_total`, a provider error (already classified: `error` an AppError) by
   * its code and the provider of `failed.model` (the model that answered, for a stream cut after
   * its first chunk; else the one requested). Other errors (our database) are not the provider's
   * and count in neither.
   */
  aiFailed(a: AiCall, error: unknown, failed: { providerError: boolean; model?: AiModel }): void {
    if (a.request.signal?.aborted) this.aiStreamAborts.inc();
    else if (failed.providerError && error instanceof AppError)
      this.aiProviderErrors.inc({
        provider: (failed.model ?? a.model).providerId,
        code: error.code,
      });
  }

  /** A grant committed to the ledger (or about to, in its caller's transaction). */
  creditsGrantedOf(type: string, amount: number): void {
    this.creditsGranted.inc({ type }, amount);
  }

  /**
   * Prometheus' text exposition: this process' registry, or, in a worker of node:cluster, the
   * whole service's (the primary aggregates every worker's registry).
   */
  async scrape(): Promise<{ contentType: string; body: string }> {
    if (cluster.isWorker) return scrapeThroughPrimary();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

const labels = (m: AiModel) => ({ provider: m.providerId, model: m.id });
