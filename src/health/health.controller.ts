import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import {
  HealthCheckError,
  HealthCheckService,
  type HealthCheckResult,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Public } from '../common/auth/auth.decorators';
import { AppError, ErrorCode } from '../common/errors/app-error';

/** Liveness and readiness for operators and load balancers. */
@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  /** 200 while the process runs; touches nothing else. */
  @Get('live')
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 when PostgreSQL answers `SELECT 1` within 1.5 s, else 503 `{error, code, details}`. */
  @Get('ready')
  @ApiOkResponse({ schema: { example: { status: 'ok', info: { database: { status: 'up' } } } } })
  @ApiServiceUnavailableResponse({ description: '`{error, code: "NOT_READY", details}`' })
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([() => this.db.pingCheck('database', { timeout: 1500 })]);
    } catch (err) {
      const details = (err as { response?: { details?: unknown } }).response?.details;
      if (err instanceof HealthCheckError || details !== undefined) {
        throw new AppError(ErrorCode.NOT_READY, 'Database is not reachable', { details });
      }
      throw new AppError(ErrorCode.NOT_READY, 'Database is not reachable');
    }
  }
}
