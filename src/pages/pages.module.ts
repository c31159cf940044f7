import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { FrontendFiles } from './frontend-files';
import { PageRouter } from './page-router.service';
import { PagesController } from './pages.controller';
import { RouteAccessController } from './route-access.controller';
import { VerifyEmailPageController } from './verify-email-page.controller';
import { ConfigSliceModule } from '../config/config-slice.module';
import { pagesConfig } from './pages.config';

/**
 * Page routes: the page-route rules for every non-API path (served from FRONTEND_DIR or as a
 * placeholder; the verification page without a frontend), `GET /api/route-access`, the
 * verification page's form POST, and the payment success page.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(pagesConfig), BillingModule, AuthModule],
  controllers: [RouteAccessController, VerifyEmailPageController, PagesController],
  providers: [FrontendFiles, PageRouter],
})
export class PagesModule {}
