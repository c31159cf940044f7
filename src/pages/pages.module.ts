import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { FrontendFiles } from './frontend-files';
import { PageRouter } from './page-router.service';
import { PagesController } from './pages.controller';
import { RouteAccessController } from './route-access.controller';

/**
 * Page routes: the page-route rules for every non-API path (served from FRONTEND_DIR or as a
 * placeholder), `GET /api/route-access`, and the payment success page.
 */
@Module({
  imports: [BillingModule],
  controllers: [RouteAccessController, PagesController],
  providers: [FrontendFiles, PageRouter],
})
export class PagesModule {}
