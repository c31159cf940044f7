import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  CreateRedemptionBatchDto,
  RedemptionBatchDto,
  RedemptionBatchPageDto,
  RedemptionBatchQueryDto,
  toRedemptionBatchDto,
} from './dto/redemption-batch.dto';
import { RedemptionBatchesService } from './redemption-batches.service';

const ADMIN = { roles: ['ADMIN' as const] };
const NO_BATCH = { status: 404, description: 'No such batch (`code`: NOT_FOUND)' };

/** Batches of redemption codes for administrators (envelope C; docs/redemption-codes.md). */
@ApiTags('admin')
@Controller('api/admin/redemption-batches')
export class RedemptionAdminController {
  constructor(
    private readonly batches: RedemptionBatchesService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @Endpoint({
    summary: 'Make a batch of redemption codes (admin)',
    description:
      'The codes are not in the answer: export them once with POST …/{id}/export. ' +
      '`expiresAt` must be in the future (400 `VALIDATION_FAILED`).',
    access: ADMIN,
    body: {
      type: CreateRedemptionBatchDto,
      example: {
        name: 'Spring campaign',
        credits: 500,
        quantity: 100,
        expiresAt: '2027-06-30T23:59:59Z',
        usesPerCode: 1,
        onePerUser: true,
      },
    },
  })
  @ApiCreatedResponse({ type: RedemptionBatchDto })
  async create(
    @CurrentUser() admin: SessionUser,
    @Body() dto: CreateRedemptionBatchDto,
  ): Promise<RedemptionBatchDto> {
    return toRedemptionBatchDto(await this.batches.create(admin, dto), this.clock.now());
  }

  @Get()
  @Endpoint({
    summary: 'Batches of redemption codes with their counts (admin)',
    description: 'Newest first: codes made, redeemed, uses taken, available and expired.',
    access: ADMIN,
  })
  @ApiOkResponse({ type: RedemptionBatchPageDto })
  async list(@Query() q: RedemptionBatchQueryDto): Promise<RedemptionBatchPageDto> {
    const page = await this.batches.list(q.limit, q.cursor);
    const now = this.clock.now();
    return {
      data: page.data.map((b) => toRedemptionBatchDto(b, now)),
      nextCursor: page.nextCursor,
    };
  }

  @Get(':id')
  @Endpoint({ summary: 'One batch of redemption codes (admin)', access: ADMIN, errors: [NO_BATCH] })
  @ApiOkResponse({ type: RedemptionBatchDto })
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<RedemptionBatchDto> {
    return toRedemptionBatchDto(await this.batches.get(id), this.clock.now());
  }

  @Post(':id/export')
  @HttpCode(200)
  @Endpoint({
    summary: "Export a batch's codes as CSV, once (admin)",
    description:
      'CSV `code,credits,expiresAt`, one row per code. Works once: the service keeps only the ' +
      "codes' hashes afterwards, so keep the file; a lost file means disabling the batch and " +
      'making another.',
    access: ADMIN,
    errors: [
      NO_BATCH,
      { status: 410, description: 'Exported already (`code`: CODES_ALREADY_EXPORTED)' },
    ],
  })
  @ApiOkResponse({
    description: 'The codes, CSV with a header row',
    content: { 'text/csv': { schema: { type: 'string' } } },
  })
  async export(
    @Param('id', ParseUUIDPipe) id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    const csv = await this.batches.exportCsv(id);
    res.type('text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="redemption-codes-${id}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    return csv;
  }

  @Post(':id/disable')
  @HttpCode(200)
  @Endpoint({
    summary: 'Disable a batch of redemption codes (admin)',
    description: 'None of its codes redeems from now on; disabling twice changes nothing.',
    access: ADMIN,
    errors: [NO_BATCH],
  })
  @ApiOkResponse({ type: RedemptionBatchDto })
  async disable(@Param('id', ParseUUIDPipe) id: string): Promise<RedemptionBatchDto> {
    return toRedemptionBatchDto(await this.batches.disable(id), this.clock.now());
  }
}
