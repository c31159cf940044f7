import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ACCOUNT_PAGES } from '../auth/account/account-links';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { FrontendFiles } from './frontend-files';
import type { Locale } from './locale';
import { PLACEHOLDER_CSP, placeholderPage } from './placeholder.page';
import { decideRoute, parsePath } from './route-rules';
import { VERIFY_EMAIL_CSP, verifyEmailPage } from './verify-email.page';

/**
 * Answers GET requests no other route took, by the page-route rules (`decideRoute`):
 * - not a page path: a frontend asset from FRONTEND_DIR when one exists (`_next/...`, dotted
 *   files), else `next()`, so Nest's JSON 404 `{error, code}` answers as for any unknown route;
 * - `redirect` → 307 to the location; `notFound` → 404 `{error, code: "NOT_FOUND"}`;
 * - `allow` → the page's file from FRONTEND_DIR (404 when it has none), else a placeholder page;
 *   without FRONTEND_DIR, `/{locale}/auth/verify-email` is the verification page (a button that
 *   POSTs the link's token, `VerifyEmailPageController`), so a fresh checkout can follow its links.
 * Page answers are `Cache-Control: private, no-store`: they depend on the session.
 */
@Injectable()
export class PageRouter {
  constructor(private readonly files: FrontendFiles) {}

  async handle(
    req: Request,
    res: Response,
    next: NextFunction,
    user: SessionUser | undefined,
  ): Promise<void> {
    const url = req.originalUrl;
    const path = parsePath(url);
    if (path.kind === 'invalid') return next();
    if (path.kind === 'nonPage') {
      const asset = path.asset ? await this.files.assetFile(path.segments) : null;
      return asset ? this.send(res, asset) : next();
    }

    const decision = decideRoute(url, user, req.headers['accept-language']);
    res.vary('Accept-Language');
    res.set('Cache-Control', 'private, no-store');
    if (decision.action === 'redirect') return res.redirect(307, decision.location);
    if (decision.action === 'notFound')
      throw new AppError(CommonErrorCode.NOT_FOUND, 'Page not found');

    if (this.files.enabled) {
      const file = await this.files.pageFile(path.segments);
      if (!file) throw new AppError(CommonErrorCode.NOT_FOUND, 'Page not found');
      res.type('html');
      return this.send(res, file, { cacheControl: false });
    }
    const locale = path.segments[0] as Locale;
    if (path.segments.slice(1).join('/') === ACCOUNT_PAGES.verify_email) {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      res.set('Content-Security-Policy', VERIFY_EMAIL_CSP);
      res.type('html').send(verifyEmailPage(locale, token ? 'confirm' : 'missing', token));
      return;
    }
    res.set('Content-Security-Policy', PLACEHOLDER_CSP);
    res.type('html').send(placeholderPage(locale, `/${path.segments.join('/')}`));
  }

  /**
   * Streams `file` (an absolute real path inside FRONTEND_DIR); a Content-Type already set wins
   * over the one guessed from the extension. A failure before any byte is sent is a 404.
   */
  private send(res: Response, file: string, options: { cacheControl?: boolean } = {}) {
    return new Promise<void>((resolve, reject) => {
      // FrontendFiles already refused dot segments; FRONTEND_DIR itself may sit under one.
      res.sendFile(file, { ...options, dotfiles: 'allow' }, (err) => {
        if (!err || res.headersSent) return resolve();
        reject(new AppError(CommonErrorCode.NOT_FOUND, 'Page not found'));
      });
    });
  }
}
