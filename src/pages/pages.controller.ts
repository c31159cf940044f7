import { Controller, Get, Header, Headers, Param, Redirect, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { isLocale, pickLocale } from './locale';
import { paymentSuccessPage } from './payment-success.page';

/**
 * Page routes of the payment flow (spec "Page routes"): every page is locale-prefixed; the
 * unprefixed path redirects by `Accept-Language`, and a locale outside en/zh is 404.
 */
@ApiExcludeController()
@Public()
@Controller()
export class PagesController {
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

  @Get(':locale/payment/success')
  @Header('Cache-Control', 'no-store')
  paymentSuccess(
    @Param('locale') locale: string,
    @Res({ passthrough: true }) res: Response,
  ): string {
    if (!isLocale(locale)) throw new AppError(ErrorCode.NOT_FOUND, 'Page not found');
    res.type('html');
    return paymentSuccessPage(locale);
  }
}
