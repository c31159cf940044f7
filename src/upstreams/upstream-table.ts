import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../config/shared.config';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { ModelCatalogue } from '../models/model-catalogue';
import { environmentUpstreams } from './environment-upstreams';
import { openApiKey } from './upstream-key';
import { type RoutableUpstream, serves } from './upstream-order';
import { Upstream } from './upstream.entity';

/** How long the in-memory copy of the `upstreams` rows serves before it is read again, ms. */
export const TABLE_CACHE_MS = 5_000;

/**
 * Every upstream, the environment's first, with keys opened, from an in-memory copy of the
 * `upstreams` table: read again every TABLE_CACHE_MS (by the clock) and at once after an admin
 * change on this instance (`invalidate`). No query per AI request. After each read it tells the
 * catalogue which chat and embedding models the enabled rows serve, so a model whose provider has
 * no environment key becomes available once an upstream serves it (read at start too).
 */
@Injectable()
export class UpstreamTable implements OnApplicationBootstrap {
  private readonly logger = new Logger('Upstreams');
  private readonly fromEnv: RoutableUpstream[];
  private rows: RoutableUpstream[] = [];
  private loadedAt = -Infinity;
  private loading?: Promise<void>;

  constructor(
    @InjectRepository(Upstream) private readonly repo: Repository<Upstream>,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly catalogue: ModelCatalogue,
    @Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>,
  ) {
    this.fromEnv = environmentUpstreams(shared.providers);
  }

  onApplicationBootstrap(): Promise<void> {
    return this.reload();
  }

  /** The environment's upstreams (no read). */
  environment(): RoutableUpstream[] {
    return this.fromEnv;
  }

  /** Every upstream (enabled or not): the environment's, then the table's by name. */
  async all(): Promise<RoutableUpstream[]> {
    if (this.clock.now().getTime() - this.loadedAt >= TABLE_CACHE_MS) await this.reload();
    return [...this.fromEnv, ...this.rows];
  }

  /** Drops the copy: the next `all` reads the table (after an admin change). */
  invalidate(): void {
    this.loadedAt = -Infinity;
  }

  /** Reads the table now, after a read already under way ends (an admin change on this instance). */
  async reloadNow(): Promise<void> {
    await this.loading;
    this.invalidate();
    await this.reload();
  }

  private reload(): Promise<void> {
    this.loading ??= this.repo
      .find({ order: { name: 'ASC' } })
      .then((rows) => {
        this.rows = rows.flatMap((r) => this.routable(r));
        this.loadedAt = this.clock.now().getTime();
        const served = [...this.catalogue.list(), ...this.catalogue.embeddingModels()].filter((m) =>
          this.rows.some((u) => serves(u, m)),
        );
        this.catalogue.setServed(new Set(served.map((m) => m.id)));
      })
      .catch((e: unknown) => {
        // The old copy serves until the next period.
        this.loadedAt = this.clock.now().getTime();
        this.logger.warn(`Reading upstreams failed: ${(e as Error).message}`);
      })
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  private routable(r: Upstream): RoutableUpstream[] {
    let apiKey: string | undefined;
    try {
      apiKey = r.apiKeySealed ? openApiKey(this.box, r.id, r.apiKeySealed) : undefined;
    } catch {
      // A key sealed under another ENCRYPTION_KEY (or tampered with) cannot be used.
      this.logger.warn(`Upstream ${r.name}: its API key does not open; it is left out`);
      return [];
    }
    return [
      {
        id: r.id,
        name: r.name,
        provider: r.provider,
        baseUrl: r.baseUrl,
        apiKey,
        models: r.models,
        modelMap: r.modelMap,
        priority: r.priority,
        weight: r.weight,
        enabled: r.enabled,
        rpm: r.rpm,
        tpm: r.tpm,
        version: String(r.updatedAt.getTime()),
      },
    ];
  }
}
