import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { ModelCatalogue } from '../models/model-catalogue';
import {
  mapChange,
  mapVersion,
  PriceChangeDto,
  PriceChangeListDto,
  PriceChangesQueryDto,
  PriceVersionListDto,
  SyncReportDto,
} from './dto/prices.dto';
import { PriceBook } from './price-book.service';
import { PriceSync } from './price-sync.service';

const ADMIN = { roles: ['ADMIN' as const] };
const NOT_PENDING = { status: 404, description: 'No pending price change with this id' };

/** The price catalogue for administrators: the sync, held increases, each model's versions. */
@ApiTags('admin')
@Controller('api/admin/prices')
export class PricesAdminController {
  constructor(
    private readonly sync: PriceSync,
    private readonly book: PriceBook,
    private readonly catalogue: ModelCatalogue,
  ) {}

  @Post('sync')
  @HttpCode(200)
  @Endpoint({
    summary: 'Run the price sync now (admin)',
    description:
      'Reads PRICES_URL and applies it within the guardrails, as the scheduled job does. 503 when PRICES_URL is unset or the source fails.',
    access: ADMIN,
    errors: [
      {
        status: 503,
        description:
          'PRICES_URL is unset, or the price source failed (`code`: SERVICE_UNAVAILABLE)',
      },
    ],
  })
  @ApiOkResponse({ type: SyncReportDto })
  runSync(): Promise<SyncReportDto> {
    return this.sync.sync();
  }

  @Get('changes')
  @Endpoint({
    summary: 'Price increases held by the sync (admin)',
    description: 'Newest first, at most 200; `status=PENDING` lists those waiting for a decision.',
    access: ADMIN,
  })
  @ApiOkResponse({ type: PriceChangeListDto })
  async changes(@Query() q: PriceChangesQueryDto): Promise<PriceChangeListDto> {
    return { data: (await this.sync.changes(q.status)).map(mapChange) };
  }

  @Post('changes/:id/approve')
  @HttpCode(200)
  @Endpoint({
    summary: 'Approve a held price increase (admin)',
    description: 'Its prices apply from now: calls admitted before are charged at the old ones.',
    access: ADMIN,
    errors: [NOT_PENDING],
  })
  @ApiOkResponse({ type: PriceChangeDto })
  async approve(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<PriceChangeDto> {
    return mapChange(await this.sync.decide(id, true, user.id));
  }

  @Post('changes/:id/reject')
  @HttpCode(200)
  @Endpoint({
    summary: 'Reject a held price increase (admin)',
    access: ADMIN,
    errors: [NOT_PENDING],
  })
  @ApiOkResponse({ type: PriceChangeDto })
  async reject(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<PriceChangeDto> {
    return mapChange(await this.sync.decide(id, false, user.id));
  }

  @Get('models/:modelId/versions')
  @Endpoint({
    summary: "A model's price versions (admin)",
    description:
      "The catalogue's own prices first (when it states any), then every stored version.",
    access: ADMIN,
    errors: [{ status: 404, description: 'Not a model of the catalogue' }],
  })
  @ApiOkResponse({ type: PriceVersionListDto })
  versions(@Param('modelId') modelId: string): PriceVersionListDto {
    const chat = this.catalogue.list().find((m) => m.id === modelId);
    const model = chat ?? this.catalogue.embeddingModel(modelId);
    if (!model) throw new AppError(CommonErrorCode.NOT_FOUND, 'Unknown model');
    const first = this.book.versionAt(model, new Date(0), !chat);
    const own = first && first.source !== 'fallback' ? [first] : [];
    return { data: [...own, ...this.book.history(modelId)].map(mapVersion) };
  }
}
