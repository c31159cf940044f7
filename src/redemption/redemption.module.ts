import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { SecretBox } from '../common/crypto/secret-box';
import { ConfigSliceModule } from '../config/config-slice.module';
import { sharedConfig } from '../config/shared.config';
import { CreditsModule } from '../credits/credits.module';
import { RedeemRateLimit } from './redeem-rate-limit';
import { RedemptionAdminController } from './redemption-admin.controller';
import { RedemptionBatchesService } from './redemption-batches.service';
import { redemptionConfig } from './redemption.config';
import { RedemptionController } from './redemption.controller';
import { RedemptionService } from './redemption.service';

/**
 * Redemption codes (docs/redemption-codes.md): admins make batches of codes, export them once and
 * disable them; users redeem a code for a REDEMPTION ledger entry written by CreditsService.
 * Owns `redemption_batches` and `redemption_codes`; AuditService and the rate limits' storage
 * come from global modules.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(redemptionConfig), CreditsModule],
  controllers: [RedemptionController, RedemptionAdminController],
  providers: [
    RedemptionService,
    RedemptionBatchesService,
    RedeemRateLimit,
    {
      // The same sealing as upstream keys and two-factor secrets (ENCRYPTION_KEY through SecretBox).
      provide: SecretBox,
      inject: [sharedConfig.KEY],
      useFactory: (shared: ConfigType<typeof sharedConfig>) => new SecretBox(shared.encryptionKey),
    },
  ],
})
export class RedemptionModule {}
