import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { JobsService } from '../jobs/jobs.service';
import type { NoData } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { ModelCatalogue, type ModelDescriptor } from '../models/model-catalogue';
import { litellmPrices } from './litellm-prices';
import { PriceBook } from './price-book.service';
import { decide } from './price-guardrails';
import type { KindPrices } from './price-kinds';
import { pricesConfig } from './prices.config';
import {
  CLEAR_GAPS_SQL,
  DECIDE_CHANGE_SQL,
  FLAG_GAPS_SQL,
  LIST_CHANGES_SQL,
  holdChangeSql,
  insertVersionSql,
  SUPERSEDE_PENDING_SQL,
} from './prices.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Reads PRICES_URL and applies its prices within the guardrails; scheduled by PRICE_SYNC_CRON. */
    'prices.sync': NoData;
  }
}

/** The scheduled price sync (one pass at a time). */
export const PRICE_SYNC_QUEUE = declareQueue('prices.sync');

/** What one sync pass did, model ids per outcome. */
export interface SyncReport {
  applied: string[];
  held: string[];
  unchanged: string[];
  /** In the catalogue but not (priced) in the source: they keep their price, flagged. */
  missing: string[];
}

/** A held increase, as the admin list answers it. */
export interface PriceChange {
  id: string;
  modelId: string;
  prices: KindPrices;
  previous: KindPrices;
  increasePercent: string;
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUPERSEDED';
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
}

/**
 * The price sync: reads PRICES_URL (LiteLLM's format, litellm-prices.ts) on the job queue
 * (PRICE_SYNC_CRON) or when an admin asks, and for each catalogue model applies the guardrails
 * (price-guardrails.ts): a decrease or a small increase becomes a new price version at once, an
 * increase above PRICE_SYNC_MAX_INCREASE waits in `price_changes` for an admin, a model gone from
 * the source keeps its price and is flagged. Every applied change is audited in its transaction.
 */
@Injectable()
export class PriceSync implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('PriceSync');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(pricesConfig.KEY) private readonly config: ConfigType<typeof pricesConfig>,
    private readonly book: PriceBook,
    private readonly catalogue: ModelCatalogue,
    private readonly audit: AuditService,
    private readonly jobs: JobsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(PRICE_SYNC_QUEUE, () => this.sync().then(() => undefined), {
      singleton: true,
      retryLimit: 0, // the next scheduled pass is the retry
      keepSeconds: 7 * 24 * 3600,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.jobs.started && this.config.url)
      await this.jobs.schedule(PRICE_SYNC_QUEUE, this.config.syncCron, {});
  }

  /**
   * One pass: fetches PRICES_URL and applies it (see the class). Throws AppError
   * SERVICE_UNAVAILABLE when PRICES_URL is unset, the source does not answer 200, or its body is
   * not a JSON object; nothing changes then.
   */
  async sync(): Promise<SyncReport> {
    const list = await this.fetchSource();
    await this.book.reload();
    const report: SyncReport = { applied: [], held: [], unchanged: [], missing: [] };
    const models: [ModelDescriptor, boolean][] = [
      ...this.catalogue.list().map((m): [ModelDescriptor, boolean] => [m, false]),
      ...this.catalogue.embeddingModels().map((m): [ModelDescriptor, boolean] => [m, true]),
    ];
    const now = new Date();
    for (const [model, embedding] of models) {
      const next = litellmPrices(list, model, embedding);
      if (!next) {
        report.missing.push(model.id);
        continue;
      }
      const current = this.book.versionAt(model, now, embedding);
      const own = current?.source === 'fallback' ? undefined : current?.prices;
      const decision = decide(own, next, this.config.maxIncreasePercent);
      if (decision.action === 'same') report.unchanged.push(model.id);
      else if (decision.action === 'apply') {
        await this.dataSource.transaction((m) =>
          this.apply(m, { modelId: model.id, prices: next, previous: own, source: 'sync' }),
        );
        report.applied.push(model.id);
      } else {
        await this.hold(model.id, next, own!, decision.increasePercent);
        report.held.push(model.id);
      }
    }
    await this.flagGaps(report);
    await this.book.reload();
    this.logger.log(
      `Price sync: ${report.applied.length} applied, ${report.held.length} held, ` +
        `${report.missing.length} missing from the source`,
    );
    return report;
  }

  /** A new version in force from now, in `m`'s transaction, superseding a held change; audited. */
  private async apply(
    m: EntityManager,
    c: {
      modelId: string;
      prices: KindPrices;
      previous?: KindPrices;
      source: 'sync' | 'admin';
      changeId?: string;
    },
  ): Promise<void> {
    if (!c.changeId) await m.query(SUPERSEDE_PENDING_SQL, [c.modelId]);
    const insert = insertVersionSql({ ...c, effectiveAt: new Date() });
    const [version] = await m.query(insert.sql, insert.params);
    await this.audit.record(m, {
      action: 'price.apply',
      targetType: 'model',
      targetId: c.modelId,
      details: {
        from: c.previous ?? null,
        to: c.prices,
        versionId: version.id,
        changeId: c.changeId ?? null,
      },
      ...(c.source === 'sync' ? { actor: { id: null, type: 'system' as const } } : {}),
    });
  }

  private async hold(modelId: string, prices: KindPrices, previous: KindPrices, increase: string) {
    await this.dataSource.transaction(async (m) => {
      const held = holdChangeSql({ modelId, prices, previous, increasePercent: increase });
      const rows: PriceChange[] = await m.query(held.sql, held.params);
      if (rows.length)
        await this.audit.record(m, {
          action: 'price.hold',
          targetType: 'model',
          targetId: modelId,
          details: { from: previous, to: prices, increasePercent: increase, changeId: rows[0].id },
          actor: { id: null, type: 'system' },
        });
    });
  }

  /** Flags the models missing from the source (audited once), clears those back in it. */
  private async flagGaps(report: SyncReport): Promise<void> {
    const present = [...report.applied, ...report.held, ...report.unchanged];
    await this.dataSource.transaction(async (m) => {
      await m.query(CLEAR_GAPS_SQL, [present]);
      const flagged: { modelId: string }[] = await m.query(FLAG_GAPS_SQL, [report.missing]);
      for (const { modelId } of flagged)
        await this.audit.record(m, {
          action: 'price.missing',
          targetType: 'model',
          targetId: modelId,
          details: { keeps: 'its last price' },
          actor: { id: null, type: 'system' },
        });
    });
  }

  /**
   * Decides a held change: APPROVED applies its prices from now (a new version, audited);
   * REJECTED keeps the current price (audited). Throws NOT_FOUND (404) when `id` is not a
   * pending change.
   */
  async decide(id: string, approve: boolean, adminId: string): Promise<PriceChange> {
    const change = await this.dataSource.transaction(async (m) => {
      const status = approve ? 'APPROVED' : 'REJECTED';
      // TypeORM answers an UPDATE … RETURNING with [rows, affected count].
      const [[row]]: [PriceChange[], number] = await m.query(DECIDE_CHANGE_SQL, [
        id,
        status,
        adminId,
      ]);
      if (!row)
        throw new AppError(CommonErrorCode.NOT_FOUND, 'No pending price change with this id');
      if (approve)
        await this.apply(m, {
          modelId: row.modelId,
          prices: row.prices,
          previous: row.previous,
          source: 'admin',
          changeId: row.id,
        });
      else
        await this.audit.record(m, {
          action: 'price.reject',
          targetType: 'model',
          targetId: row.modelId,
          details: { kept: row.previous, refused: row.prices, changeId: row.id },
        });
      return row;
    });
    await this.book.reload();
    return change;
  }

  /** Held changes with `status` (default all), newest first, at most 200. */
  changes(status?: PriceChange['status']): Promise<PriceChange[]> {
    return this.dataSource.query(LIST_CHANGES_SQL, [status ?? null, 200]);
  }

  private async fetchSource(): Promise<Record<string, unknown>> {
    const url = this.config.url;
    if (!url) throw new AppError(CommonErrorCode.SERVICE_UNAVAILABLE, 'PRICES_URL is not set');
    const res = await fetch(url, { signal: AbortSignal.timeout(30_000) }).catch((err: Error) => {
      throw new AppError(
        CommonErrorCode.SERVICE_UNAVAILABLE,
        `Price source unreachable: ${err.message}`,
      );
    });
    const body: unknown = res.ok ? await res.json().catch(() => undefined) : undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new AppError(
        CommonErrorCode.SERVICE_UNAVAILABLE,
        `Price source answered ${res.status} without a JSON object`,
      );
    return body as Record<string, unknown>;
  }
}
