import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../config/shared.config';
import { appSettingsConfig } from '../config/app-settings.config';
import type { Response } from 'express';
import { mapUser } from '../users/dto/user.dto';
import type { User } from '../users/user.entity';
import { AuthService } from './auth.service';
import type { AuthResultDto } from './dto/auth.dto';
import { SESSION_COOKIE, sessionCookieOptions } from './session-cookie';

/** Starting a session: the token in the body and the httpOnly cookie, for every way in. */
@Injectable()
export class SessionIssuer {
  constructor(
    private readonly auth: AuthService,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * Issues a session token for `user` (carrying its current token version), sets it as the
   * session cookie (AUTH_SESSION_MAX_AGE) and answers `{user, accessToken}`.
   */
  async start(user: User, res: Response): Promise<AuthResultDto> {
    const { accessToken } = await this.auth.issueToken(user);
    const { baseUrl } = this.appSettings;
    const maxAge = this.shared.sessionMaxAge;
    res.cookie(SESSION_COOKIE, accessToken, sessionCookieOptions(baseUrl, maxAge));
    return { user: mapUser(user), accessToken };
  }
}
