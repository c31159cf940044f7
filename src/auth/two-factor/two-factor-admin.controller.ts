import { Controller, Delete, HttpCode, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelopeB } from '../../common/openapi/api-envelope';
import { CurrentUser, Roles } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { ApiErrors } from '../../common/openapi/api-errors';
import { TwoFactorService } from './two-factor.service';

/** DELETE /api/users/{id}/2fa: an administrator turns a user's 2FA off (issue 13). */
@ApiTags('users')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/users')
export class TwoFactorAdminController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Delete(':id/2fa')
  @HttpCode(200)
  @Roles('ADMIN')
  @ApiOperation({
    summary: "Turn off a user's two-factor authentication (logged; the user's sessions end)",
  })
  @ApiEnvelopeB(null, { description: '2FA is off (envelope B, like DELETE /api/users/{id})' })
  @ApiErrors(401, 403, 404, 409)
  async reset(
    @CurrentUser() admin: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.twoFactor.adminReset(admin, id);
  }
}
