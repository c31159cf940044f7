import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { upstreamsConfig } from './upstreams.config';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { UpstreamTestResultDto } from './dto/upstream.dto';
import { ENV_UPSTREAM_ID } from './environment-upstreams';
import { checkUpstreamUrl, type UpstreamAddressClass } from './upstream-address';
import { UpstreamModels } from './upstream-models';
import { UpstreamProbes } from './upstream-probe';
import { UpstreamStateStore } from './upstream-state.store';
import { UpstreamTable } from './upstream-table';

/**
 * POST /api/admin/upstreams/{id}/test: a one-token call to an upstream (enabled or not) through
 * the AI module's probe: a chat call on the first chat model it serves, or, when it lists
 * embedding models only, one embedding on the first of them. A success makes it healthy again (a
 * `failing` one included); a failure is answered with the upstream's status and message and
 * changes nothing.
 */
@Injectable()
export class UpstreamTester {
  private readonly allowPrivate: readonly UpstreamAddressClass[];

  constructor(
    private readonly table: UpstreamTable,
    private readonly models: UpstreamModels,
    private readonly probes: UpstreamProbes,
    private readonly states: UpstreamStateStore,
    @Inject(upstreamsConfig.KEY) upstreams: ConfigType<typeof upstreamsConfig>,
  ) {
    this.allowPrivate = upstreams.allowPrivate;
  }

  /**
   * Throws NOT_FOUND for an unknown id, SERVICE_UNAVAILABLE (503) when no probe is installed,
   * VALIDATION_FAILED (400) when the upstream serves no catalogue model, UPSTREAM_URL_FORBIDDEN
   * (400) when a table upstream's baseUrl now reaches an address UPSTREAM_ALLOW_PRIVATE does not
   * allow (its name resolves elsewhere, or the variable changed); the environment's are the
   * operator's own and not checked.
   */
  async test(id: string): Promise<UpstreamTestResultDto> {
    this.table.invalidate();
    const upstream = (await this.table.all()).find((u) => u.id === id);
    if (!upstream) throw new AppError(CommonErrorCode.NOT_FOUND, 'Upstream not found');
    if (!ENV_UPSTREAM_ID.test(id) && upstream.baseUrl)
      await checkUpstreamUrl(upstream.baseUrl, this.allowPrivate);
    const probe = this.probes.current();
    if (!probe)
      throw new AppError(CommonErrorCode.SERVICE_UNAVAILABLE, 'No upstream probe is installed');
    const model = this.models.probeModel(upstream.provider, upstream.models);
    if (!model)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        `Upstream ${upstream.name} serves no catalogue model`,
      );
    const result = await probe.probe(
      {
        id: upstream.id,
        name: upstream.name,
        provider: upstream.provider,
        baseUrl: upstream.baseUrl,
        apiKey: upstream.apiKey,
        upstreamModel: upstream.modelMap[model.id] ?? model.id,
        version: upstream.version,
      },
      model.id,
      model.kind,
    );
    if (!result.ok)
      return { ok: false, model: model.id, status: result.status, message: result.message };
    await this.states.reset(id);
    return { ok: true, model: model.id, latencyMs: result.latencyMs };
  }
}
