import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { opsConfig } from './metrics.config';
import { ApiHeader, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { bearerMatches } from './metrics-auth';
import { MetricsService } from './metrics.service';

/**
 * `GET /metrics` on the API port: Prometheus' text format. With METRICS_TOKEN set
 * it needs `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise); with METRICS_PORT set it is
 * served on that port only and answers 404 here.
 */
@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  private readonly ops: ConfigType<typeof opsConfig>;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(opsConfig.KEY) ops: ConfigType<typeof opsConfig>,
  ) {
    this.ops = ops;
  }

  @Get()
  @ApiHeader({ name: 'authorization', required: false, description: 'Bearer METRICS_TOKEN' })
  @Endpoint({
    summary: 'Prometheus metrics',
    description:
      'Public for the session guard; METRICS_TOKEN (bearer) guards it instead. 404 when METRICS_PORT serves the metrics on a port of their own.',
    access: 'public',
    errors: [
      { status: 401, description: 'METRICS_TOKEN is set and the bearer token is not it' },
      404,
    ],
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string' } })
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    if (this.ops.metricsPort !== undefined)
      throw new AppError(CommonErrorCode.NOT_FOUND, 'Not found');
    if (this.ops.metricsToken && !bearerMatches(authorization, this.ops.metricsToken))
      throw new AppError(CommonErrorCode.UNAUTHORIZED, 'A valid metrics token is required');
    const { contentType, body } = await this.metrics.scrape();
    res.type(contentType).send(body);
  }
}
