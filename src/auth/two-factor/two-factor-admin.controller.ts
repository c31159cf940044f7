import { Controller, Delete, HttpCode, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiEnvelopeB } from '../../common/openapi/api-envelope';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { TwoFactorService } from './two-factor.service';

/** DELETE /api/users/{id}/2fa: an administrator turns a user's 2FA off. */
@ApiTags('users')
@Controller('api/users')
export class TwoFactorAdminController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Delete(':id/2fa')
  @HttpCode(200)
  @Endpoint({
    summary: "Turn off a user's two-factor authentication (logged; the user's sessions end)",
    access: { roles: ['ADMIN'] },
    errors: [
      { status: 404, description: 'No such user (`USER_NOT_FOUND`)' },
      { status: 409, description: 'Two-factor is off for this user' },
    ],
  })
  @ApiEnvelopeB(null, { description: '2FA is off (envelope B, like DELETE /api/users/{id})' })
  async reset(
    @CurrentUser() admin: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.twoFactor.adminReset(admin, id);
  }
}
