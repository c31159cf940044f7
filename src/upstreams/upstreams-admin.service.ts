import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { upstreamsConfig } from './upstreams.config';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { type EntityManager, QueryFailedError, Repository } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { Clock } from '../common/clock/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { UpstreamsErrorCode } from './upstreams.errors';
import type { CreateUpstreamDto, UpdateUpstreamDto } from './dto/upstream-input.dto';
import {
  mapEnvironmentUpstream,
  mapUpstream,
  type UpstreamDto,
  type UpstreamStatus,
} from './dto/upstream.dto';
import { ENV_UPSTREAM_ID } from './environment-upstreams';
import { checkUpstreamUrl, type UpstreamAddressClass } from './upstream-address';
import { effectiveState } from './upstream-health';
import { sealApiKey } from './upstream-key';
import { UpstreamModels } from './upstream-models';
import { UpstreamStateStore } from './upstream-state.store';
import { UpstreamTable } from './upstream-table';
import { UpstreamUsageMeter } from './upstream-usage';
import type { MinuteUsage } from './upstream-usage.sql';
import { Upstream } from './upstream.entity';

const NO_USAGE: MinuteUsage = Object.freeze({ requests: 0, tokens: 0 });

const isUniqueViolation = (e: unknown) =>
  e instanceof QueryFailedError && (e.driverError as { code?: string }).code === '23505';

/**
 * The admin routes' rules: upstream rows with their sealed keys, checked against the catalogue,
 * each change audited in its own transaction and then seen by this instance's router at once
 * (other instances within UpstreamTable's period). The environment's upstreams are listed,
 * never changed.
 */
@Injectable()
export class UpstreamsAdminService {
  private readonly allowPrivate: readonly UpstreamAddressClass[];

  constructor(
    @InjectRepository(Upstream) private readonly repo: Repository<Upstream>,
    private readonly box: SecretBox,
    private readonly table: UpstreamTable,
    private readonly states: UpstreamStateStore,
    private readonly usage: UpstreamUsageMeter,
    private readonly models: UpstreamModels,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(upstreamsConfig.KEY) upstreams: ConfigType<typeof upstreamsConfig>,
  ) {
    this.allowPrivate = upstreams.allowPrivate;
  }

  /**
   * The environment's upstreams, then the table's by name, each with its current health and its
   * usage this minute.
   */
  async list(): Promise<UpstreamDto[]> {
    const [rows, health, minute] = await Promise.all([
      this.repo.find({ order: { name: 'ASC' } }),
      this.states.fresh(),
      this.usage.totals(),
    ]);
    const now = this.clock.now();
    const status = (id: string): UpstreamStatus => ({
      health: health.get(id),
      state: effectiveState(health.get(id), now),
      minute: minute.get(id) ?? NO_USAGE,
    });
    return [
      ...this.table.environment().map((u) => mapEnvironmentUpstream(u, status(u.id))),
      ...rows.map((r) => mapUpstream(r, status(r.id))),
    ];
  }

  /** Upstream `id` (a uuid or `env:<provider>`). Throws NOT_FOUND. */
  async get(id: string): Promise<UpstreamDto> {
    const found = (await this.list()).find((u) => u.id === id);
    if (!found) throw notFound();
    return found;
  }

  /**
   * Adds an upstream (key sealed to its new id), audited as `upstream.create`. Throws
   * UNKNOWN_MODEL (400) for ids outside the catalogue, VALIDATION_FAILED (400) for a model the
   * protocol cannot serve, UPSTREAM_URL_FORBIDDEN (400) for a `baseUrl` reaching an address
   * class UPSTREAM_ALLOW_PRIVATE does not allow, CONFLICT (409) for a taken name.
   */
  async create(dto: CreateUpstreamDto): Promise<UpstreamDto> {
    this.models.check(dto.provider, dto.models ?? [], dto.modelMap ?? {});
    await checkUpstreamUrl(dto.baseUrl, this.allowPrivate);
    const id = randomUUID();
    const saved = await this.write(dto.name, async (m) => {
      const row = await m.save(
        m.create(Upstream, {
          id,
          provider: dto.provider,
          name: dto.name,
          baseUrl: dto.baseUrl,
          apiKeySealed: dto.apiKey ? sealApiKey(this.box, id, dto.apiKey) : null,
          models: dto.models ?? [],
          modelMap: dto.modelMap ?? {},
          priority: dto.priority ?? 0,
          weight: dto.weight ?? 1,
          enabled: dto.enabled ?? true,
          rpm: dto.rpm ?? null,
          tpm: dto.tpm ?? null,
        }),
      );
      await this.audit.record(m, {
        action: 'upstream.create',
        targetType: 'upstream',
        targetId: id,
        details: auditDetails(row),
      });
      return row;
    });
    return mapUpstream(saved, { state: 'healthy', minute: NO_USAGE });
  }

  /**
   * Changes the given fields of upstream `id` (a new `apiKey` is sealed again; `null` removes
   * it), audited as `upstream.update` with the names of the fields changed. The upstream is
   * healthy again afterwards (a `failing` one is tried anew). A key stays with its origin: a
   * `baseUrl` of another scheme, host or port needs `apiKey` (a key or null) beside it when the
   * upstream has a key, else UPSTREAM_KEY_REQUIRED (400). Throws UPSTREAM_READ_ONLY (409) for an
   * environment upstream, NOT_FOUND, and the errors of `create`.
   */
  async update(id: string, dto: UpdateUpstreamDto): Promise<UpstreamDto> {
    const row = await this.load(id);
    const models = dto.models ?? row.models;
    const modelMap = dto.modelMap ?? row.modelMap;
    if (dto.models || dto.modelMap) this.models.check(row.provider, models, modelMap);
    if (dto.baseUrl !== undefined) {
      const moves = new URL(dto.baseUrl).origin !== new URL(row.baseUrl).origin;
      if (moves && row.apiKeySealed && dto.apiKey === undefined)
        throw new AppError(
          UpstreamsErrorCode.UPSTREAM_KEY_REQUIRED,
          'A baseUrl of another origin needs apiKey in the same request (the stored key stays with its host; null removes it)',
          { param: 'apiKey' },
        );
      await checkUpstreamUrl(dto.baseUrl, this.allowPrivate);
    }
    const changed = Object.entries(dto)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    const name = dto.name ?? row.name;
    const saved = await this.write(name, async (m) => {
      Object.assign(row, {
        name,
        baseUrl: dto.baseUrl ?? row.baseUrl,
        models,
        modelMap,
        priority: dto.priority ?? row.priority,
        weight: dto.weight ?? row.weight,
        enabled: dto.enabled ?? row.enabled,
        rpm: dto.rpm === undefined ? row.rpm : dto.rpm,
        tpm: dto.tpm === undefined ? row.tpm : dto.tpm,
      });
      if (dto.apiKey !== undefined)
        row.apiKeySealed = dto.apiKey === null ? null : sealApiKey(this.box, id, dto.apiKey);
      const saved = await m.save(row);
      await this.audit.record(m, {
        action: 'upstream.update',
        targetType: 'upstream',
        targetId: id,
        details: { ...auditDetails(saved), changed },
      });
      return saved;
    });
    await this.states.reset(id);
    const minute = (await this.usage.totals()).get(id) ?? NO_USAGE;
    return mapUpstream(saved, { state: 'healthy', minute });
  }

  /** Deletes upstream `id`, audited as `upstream.delete`. Throws UPSTREAM_READ_ONLY (409), NOT_FOUND. */
  async remove(id: string): Promise<void> {
    const row = await this.load(id);
    await this.write(row.name, async (m) => {
      await m.delete(Upstream, { id });
      await this.audit.record(m, {
        action: 'upstream.delete',
        targetType: 'upstream',
        targetId: id,
        details: { name: row.name, provider: row.provider },
      });
    });
    await this.states.reset(id);
  }

  /** Row `id` with its sealed key; environment ids are refused. */
  private async load(id: string): Promise<Upstream> {
    if (ENV_UPSTREAM_ID.test(id))
      throw new AppError(
        UpstreamsErrorCode.UPSTREAM_READ_ONLY,
        `${id} comes from the environment variables; change them and restart instead`,
      );
    const row = await this.repo.findOneBy({ id });
    if (!row) throw notFound();
    return row;
  }

  /**
   * Runs `work` in a transaction; a taken `name` is CONFLICT; the router's copy is read again
   * after (so the answer's change already routes, and the catalogue knows what it serves).
   */
  private async write<T>(name: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.repo.manager.transaction(work);
    } catch (e) {
      if (isUniqueViolation(e))
        throw new AppError(CommonErrorCode.CONFLICT, `An upstream named ${name} already exists`);
      throw e;
    } finally {
      await this.table.reloadNow();
    }
  }
}

const notFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Upstream not found');

/** What the audit log keeps of an upstream: everything but the key (only whether there is one). */
function auditDetails(u: Upstream): Record<string, unknown> {
  const url = new URL(u.baseUrl);
  return {
    name: u.name,
    provider: u.provider,
    // Origin and path only: a query string may carry a token.
    baseUrl: `${url.origin}${url.pathname}`,
    hasApiKey: !!u.apiKeySealed,
    models: u.models,
    priority: u.priority,
    weight: u.weight,
    enabled: u.enabled,
    rpm: u.rpm,
    tpm: u.tpm,
  };
}
