import {
  Controller,
  Get,
  Header,
  Headers,
  Next,
  Param,
  Query,
  Redirect,
  Req,
  Res,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { CurrentUser, Public } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { isLocale, pickLocale } from './locale';
import { PageRouter } from './page-router.service';
import { paymentSuccessPage } from './payment-success.page';
import { CheckoutPurchasesService } from '../billing/checkout-purchases.service';
import { purchaseStatusPage } from './purchase-status.page';
import { PurchasesService } from '../billing/purchases.service';

/**
 * Page routes (spec "Page routes", Authentication 7 and 8): the payment success page, then every
 * other GET through the page-route rules. Public: the rules themselves read the session, which
 * the JWT guard attaches on public routes when one is sent.
 */
@ApiExcludeController()
@Public()
@Controller()
export class PagesController {
  constructor(
    private readonly router: PageRouter,
    private readonly purchases: PurchasesService,
    private readonly checkoutPurchases: CheckoutPurchasesService,
  ) {}

  @Get('payment/success')
  @Redirect(undefined, 302)
  @Header('Vary', 'Accept-Language')
  redirectToLocale(
    @Req() req: Request,
    @Headers('accept-language') acceptLanguage?: string,
  ): { url: string } {
    const at = req.originalUrl.indexOf('?');
    const query = at === -1 ? '' : req.originalUrl.slice(at);
    return { url: `/${pickLocale(acceptLanguage)}/payment/success${query}` };
  }

  /**
   * The processor's return address. With `?purchase=<id>` (the Alipay return URL),
   * the state and credits of that purchase (404 page for an unknown id); with
   * `?session_id=cs_…` (Checkout's return URL), those of the session's credit purchase, or a
   * confirmation for a session that bought a plan; else a confirmation.
   */
  @Get(':locale/payment/success')
  @Header('Cache-Control', 'no-store')
  async paymentSuccess(
    @Param('locale') locale: string,
    @Query('purchase') purchaseId: unknown,
    @Query('session_id') sessionId: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    if (!isLocale(locale)) throw new AppError(CommonErrorCode.NOT_FOUND, 'Page not found');
    res.type('html');
    if (purchaseId === undefined && sessionId !== undefined) {
      const bought = await this.checkoutPurchases.publicView(sessionId);
      return bought ? purchaseStatusPage(locale, bought) : paymentSuccessPage(locale);
    }
    if (purchaseId === undefined) return paymentSuccessPage(locale);
    const purchase = await this.purchases.publicView(purchaseId);
    if (!purchase) res.status(404);
    return purchaseStatusPage(locale, purchase);
  }

  /**
   * Every other GET (see PageRouter). Keep it the last handler, and PagesModule the last module:
   * Express tries routes in registration order. Paths that are not pages fall through (`next`).
   */
  @Get('{*path}')
  page(
    @Req() req: Request,
    @Res() res: Response,
    @Next() next: NextFunction,
    @CurrentUser() user: SessionUser | undefined,
  ): Promise<void> {
    return this.router.handle(req, res, next, user);
  }
}
