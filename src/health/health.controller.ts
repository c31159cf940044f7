import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import {
  HealthCheckError,
  HealthCheckService,
  type HealthCheckResult,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { AppError, CommonErrorCode } from '../common/errors/app-error';

class LiveDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
}

/** Terminus' result: `info` (and `details`) map each indicator to `{status: 'up'}`. */
class ReadyDto {
  @ApiProperty({ enum: ['ok'] }) status: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { database: { status: 'up' } },
  })
  info?: object;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) error?: object;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) details?: object;
}

/** Liveness and readiness for operators and load balancers. */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  /** 200 while the process runs; touches nothing else. */
  @Get('live')
  @Endpoint({ summary: 'Liveness', access: 'public', database: false })
  @ApiOkResponse({ type: LiveDto })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 when PostgreSQL answers `SELECT 1` within 1.5 s, else 503 `{error, code, details}`. */
  @Get('ready')
  @Endpoint({
    summary: 'Readiness (PostgreSQL answers)',
    access: 'public',
    errors: [
      { status: 503, description: 'PostgreSQL does not answer (`code`: NOT_READY, `details`)' },
    ],
  })
  @ApiOkResponse({ type: ReadyDto })
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([() => this.db.pingCheck('database', { timeout: 1500 })]);
    } catch (err) {
      const details = (err as { response?: { details?: unknown } }).response?.details;
      if (err instanceof HealthCheckError || details !== undefined) {
        throw new AppError(CommonErrorCode.NOT_READY, 'Database is not reachable', { details });
      }
      throw new AppError(CommonErrorCode.NOT_READY, 'Database is not reachable');
    }
  }
}
