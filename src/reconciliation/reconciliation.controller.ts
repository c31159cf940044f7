import { Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  FindingsQueryDto,
  mapFinding,
  mapReport,
  ReconciliationFindingPageDto,
  ReconciliationReportDto,
} from './dto/reconciliation.dto';
import { ReconciliationService } from './reconciliation.service';

const ADMIN = { roles: ['ADMIN' as const] };

/** Payments reconciliation for administrators: run a pass now, list what was found. */
@ApiTags('admin')
@Controller('api/admin/reconciliation')
export class ReconciliationController {
  constructor(private readonly reconciliation: ReconciliationService) {}

  @Post('run')
  @HttpCode(200)
  @Endpoint({
    summary: 'Reconcile payments now (admin)',
    description:
      "Compares the processor's paid credit purchases of the last 72 hours with the grants, as the daily job does: a paid payment with no grant is stored among the failed webhooks (reason `reconciliation`, replay it), a granted purchase not paid at the processor is flagged. A mismatch already found is not added again.",
    access: ADMIN,
    errors: [
      { status: 503, description: 'Stripe is not configured (`PAYMENTS_NOT_CONFIGURED`)' },
      { status: 502, description: 'The processor failed (`PAYMENT_PROVIDER_ERROR`)' },
    ],
  })
  @ApiOkResponse({ type: ReconciliationReportDto })
  async run(): Promise<ReconciliationReportDto> {
    return mapReport(await this.reconciliation.run());
  }

  @Get('findings')
  @Endpoint({
    summary: 'Payment mismatches found by the reconciliation, most recently seen first (admin)',
    access: ADMIN,
  })
  @ApiOkResponse({ type: ReconciliationFindingPageDto })
  async findings(@Query() q: FindingsQueryDto): Promise<ReconciliationFindingPageDto> {
    const page = await this.reconciliation.list(q.kind, q.limit, q.cursor);
    return { data: page.data.map(mapFinding), nextCursor: page.nextCursor };
  }
}
