import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { PageQueryDto } from '../common/pagination/pagination';
import {
  mapWebhookFailure,
  WebhookFailurePageDto,
  WebhookReplayDto,
} from './dto/webhook-failure.dto';
import { WebhookFailuresService } from './webhook-failures.service';
import { WebhooksService } from './webhooks.service';

const ADMIN = { roles: ['ADMIN' as const] };

/** Failed webhook events for administrators: list and replay (envelope C). */
@ApiTags('admin')
@Controller('api/admin/webhooks/failed')
export class WebhookFailuresController {
  constructor(
    private readonly failures: WebhookFailuresService,
    private readonly webhooks: WebhooksService,
  ) {}

  @Get()
  @Endpoint({ summary: 'Failed webhook events, most recent attempt first (admin)', access: ADMIN })
  @ApiOkResponse({ type: WebhookFailurePageDto })
  async list(@Query() q: PageQueryDto): Promise<WebhookFailurePageDto> {
    const page = await this.failures.list(q.limit, q.cursor);
    return { data: page.data.map(mapWebhookFailure), nextCursor: page.nextCursor };
  }

  @Post(':eventId/replay')
  @HttpCode(200)
  @ApiParam({ name: 'eventId', example: 'evt_1PqExample' })
  @Endpoint({
    summary: 'Replay a failed webhook event, exactly once (admin)',
    description:
      'Runs the stored event through the normal idempotent path: an event processed since (by a processor retry or an earlier replay) is a no-op answered `duplicate`.',
    access: ADMIN,
    errors: [
      { status: 404, description: 'No failed or processed event with this id (`NOT_FOUND`)' },
    ],
  })
  @ApiOkResponse({ type: WebhookReplayDto })
  replay(@Param('eventId') eventId: string): Promise<WebhookReplayDto> {
    return this.webhooks.replay(eventId.slice(0, 255));
  }
}
