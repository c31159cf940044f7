import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { UpstreamTestResultDto } from './dto/upstream.dto';
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
  constructor(
    private readonly table: UpstreamTable,
    private readonly models: UpstreamModels,
    private readonly probes: UpstreamProbes,
    private readonly states: UpstreamStateStore,
  ) {}

  /**
   * Throws NOT_FOUND for an unknown id, SERVICE_UNAVAILABLE (503) when no probe is installed,
   * VALIDATION_FAILED (400) when the upstream serves no catalogue model.
   */
  async test(id: string): Promise<UpstreamTestResultDto> {
    this.table.invalidate();
    const upstream = (await this.table.all()).find((u) => u.id === id);
    if (!upstream) throw new AppError(ErrorCode.NOT_FOUND, 'Upstream not found');
    const probe = this.probes.current();
    if (!probe) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'No upstream probe is installed');
    const model = this.models.probeModel(upstream.provider, upstream.models);
    if (!model)
      throw new AppError(
        ErrorCode.VALIDATION_FAILED,
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
