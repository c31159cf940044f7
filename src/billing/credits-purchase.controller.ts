import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { PageQueryDto } from '../common/pagination/pagination';
import { resolveLocale } from '../i18n/locale';
import { paymentErrors } from './api-payment-errors';
import { CreditPurchasesService } from './credit-purchases.service';
import { PurchaseCreditsDto } from './dto/payment.dto';
import { PurchaseCreatedDto, PurchasePageDto, PurchaseViewDto } from './dto/purchase.dto';
import { PurchasesService } from './purchases.service';

/** `POST /api/credits/purchase` (spec Payments rule 3) and the records, envelope C. */
@ApiTags('payments')
@Controller('api/credits')
export class CreditsPurchaseController {
  constructor(
    private readonly creditPurchases: CreditPurchasesService,
    private readonly purchases: PurchasesService,
  ) {}

  @Post('purchase')
  @HttpCode(200)
  @Endpoint({
    summary: 'Buy credits',
    description:
      'Creates a payment intent (card, Alipay or WeChat Pay) and a purchase record; the credits ' +
      'arrive with its `succeeded` webhook.',
    access: 'session',
    errors: paymentErrors(400, 402, 404, 409, 502, 503),
    body: {
      type: PurchaseCreditsDto,
      example: { amount: 19.99, credits: 279, paymentMethod: 'wechat_pay', currency: 'cny' },
    },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: PurchaseCreatedDto })
  purchase(
    @CurrentUser() user: SessionUser,
    @Body() dto: PurchaseCreditsDto,
    @Req() req: Request,
    @Headers('idempotency-key') key?: string,
  ): Promise<PurchaseCreatedDto> {
    return this.creditPurchases.purchase(user, dto, resolveLocale(req), key);
  }

  @Get('purchases')
  @Endpoint({ summary: 'My credit purchases, newest first', access: 'session' })
  @ApiOkResponse({ type: PurchasePageDto })
  list(@CurrentUser() user: SessionUser, @Query() q: PageQueryDto): Promise<PurchasePageDto> {
    return this.purchases.list(user, q.limit, q.cursor);
  }

  @Get('purchases/:id')
  @Endpoint({
    summary: 'One of my credit purchases (poll until succeeded)',
    access: 'session',
    errors: [404],
  })
  @ApiOkResponse({ type: PurchaseViewDto })
  get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<PurchaseViewDto> {
    return this.purchases.get(user, id);
  }
}
