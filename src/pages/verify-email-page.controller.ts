import { Body, Controller, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { EmailVerificationService } from '../auth/account/email-verification.service';
import { AuthThrottlerGuard } from '../auth/auth-throttler.guard';
import { Public } from '../common/auth/auth.decorators';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { AuthErrorCode } from '../auth/auth.errors';
import { isLocale } from './locale';
import { VERIFY_EMAIL_CSP, verifyEmailPage } from './verify-email.page';

/**
 * `POST /{locale}/auth/verify-email` (form field `token`): the button of the verification page
 * (`verifyEmailPage`, shown by the page router for the GET). Verifies like
 * `POST /api/auth/verify-email` and answers the result as a page in the locale: 200 verified,
 * 400 for an unknown, used or expired token (or none). Rate limited like the API route.
 */
@ApiExcludeController()
@Public()
@Controller()
export class VerifyEmailPageController {
  constructor(private readonly verification: EmailVerificationService) {}

  @Post(':locale/auth/verify-email')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  async verify(
    @Param('locale') locale: string,
    @Body() body: Record<string, unknown> | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    if (!isLocale(locale)) throw new AppError(CommonErrorCode.NOT_FOUND, 'Page not found');
    res.type('html');
    res.set('Cache-Control', 'no-store');
    res.set('Content-Security-Policy', VERIFY_EMAIL_CSP);
    const token = typeof body?.token === 'string' ? body.token : '';
    if (!token || token.length > 200) {
      res.status(400);
      return verifyEmailPage(locale, token ? 'invalid' : 'missing');
    }
    try {
      await this.verification.verify(token);
      return verifyEmailPage(locale, 'verified');
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== AuthErrorCode.INVALID_TOKEN) throw err;
      res.status(400);
      return verifyEmailPage(locale, 'invalid');
    }
  }
}
