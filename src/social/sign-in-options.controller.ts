import { Controller, Get, Inject } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuthProviderDto, AuthProvidersDto } from '../auth/dto/auth.dto';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { appSettingsConfig } from '../config/app-settings.config';
import { oauthConfig } from './social.config';

/**
 * `GET /api/auth/providers`: the sign-in methods this deployment offers, in NextAuth's shape
 * (`{credentials, google?, github?}`, each `{id, name, type, signinUrl, callbackUrl}`, absolute
 * URLs under BASE_URL). Here, beside the OAuth slice it reads: a social provider is listed only
 * with both its client id and secret.
 */
@ApiTags('auth')
@Controller('api/auth')
export class SignInOptionsController {
  constructor(
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
    @Inject(oauthConfig.KEY) private readonly oauth: ConfigType<typeof oauthConfig>,
  ) {}

  @Get('providers')
  @Endpoint({ summary: 'The configured sign-in methods', access: 'public', database: false })
  @ApiOkResponse({ type: AuthProvidersDto })
  providers(): Record<string, AuthProviderDto> {
    const base = this.appSettings.baseUrl;
    const social = (['google', 'github'] as const)
      .filter((id) => this.oauth[id].clientId && this.oauth[id].clientSecret)
      .map((id) => ({
        id,
        name: id === 'google' ? 'Google' : 'GitHub',
        type: 'oauth',
        signinUrl: `${base}/api/auth/signin/${id}`,
        callbackUrl: `${base}/api/auth/callback/${id}`,
      }));
    return {
      credentials: {
        id: 'credentials',
        name: 'Credentials',
        type: 'credentials',
        signinUrl: `${base}/api/auth/login`,
        callbackUrl: `${base}/api/auth/callback/credentials`,
      },
      ...Object.fromEntries(social.map((p) => [p.id, p])),
    };
  }
}
