import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { RECOVERY_CODE_COUNT } from '../recovery-codes';

const TOTP_CODE = /^\d{6}$/;
const totpMessage = { message: 'code must be 6 digits' };

/** Fails when the property and `other` are both sent (constraint `notWith`). */
function NotWith(other: string) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'notWith',
      target: target.constructor,
      propertyName,
      options: { message: `send ${propertyName} or ${other}, not both` },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined || (args.object as Record<string, unknown>)[other] === undefined,
      },
    });
}

/** A TOTP code from the authenticator app. */
export class TwoFactorCodeDto {
  @ApiProperty({ example: '492039', pattern: '^\\d{6}$' })
  @IsString()
  @Matches(TOTP_CODE, totpMessage)
  code: string;
}

/** POST /api/auth/2fa/disable: `password` is required for accounts that have one. */
export class DisableTwoFactorDto extends TwoFactorCodeDto {
  @ApiPropertyOptional({
    example: 'correct horse battery',
    description: 'the account password; omitted by social-only accounts',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  password?: string;
}

/** POST /api/auth/2fa/verify: the mfaToken from login and one of `code` or `recoveryCode`. */
export class VerifyTwoFactorDto {
  @ApiProperty({ description: 'from the login answer or the social redirect; 5 minutes' })
  @IsString()
  @MaxLength(2048)
  mfaToken: string;

  @ApiPropertyOptional({ example: '492039', description: 'a TOTP code; or send recoveryCode' })
  @ValidateIf((o: VerifyTwoFactorDto) => o.recoveryCode === undefined)
  @IsString()
  @Matches(TOTP_CODE, totpMessage)
  code?: string;

  @ApiPropertyOptional({ example: '7k3m-q9x2-h4td', description: 'instead of code; works once' })
  @ValidateIf((o: VerifyTwoFactorDto) => o.recoveryCode !== undefined)
  @IsString()
  @MaxLength(32)
  @NotWith('code')
  recoveryCode?: string;
}

/** POST /api/auth/2fa/setup: shown once; the secret stays pending until enabled. */
export class TwoFactorSetupDto {
  @ApiProperty({ example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'base32, 160 bits' })
  secret: string;
  @ApiProperty({
    example:
      'otpauth://totp/AI%20Chat:ada%40example.com?issuer=AI%20Chat&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
  })
  otpauthUrl: string;
  @ApiProperty({
    example: 'data:image/png;base64,iVBORw0KGgo...',
    description: 'QR code of otpauthUrl',
  })
  qrCodeDataUrl: string;
}

/** Recovery codes in clear: shown once, stored hashed. */
export class RecoveryCodesDto {
  @ApiProperty({
    type: [String],
    minItems: RECOVERY_CODE_COUNT,
    maxItems: RECOVERY_CODE_COUNT,
    example: [
      '7k3m-q9x2-h4td',
      'p2wz-8c4n-x0ve',
      'c6ha-2m9d-wq7e',
      'r4tn-x8vb-3kzp',
      'm2qf-7hd4-n9ws',
      'b8xe-5kt2-v6ja',
      'z3wp-c9re-4mdh',
      'h7ng-2bq6-t5xk',
      'f9sd-4jv8-w2ce',
      'q5ym-6tk3-a8nb',
    ],
  })
  recoveryCodes: string[];
}

/** A fresh session token for the session that made a change ending all others (also the cookie). */
export class FreshSessionDto {
  @ApiProperty({ description: "HS256 JWT replacing the caller's; also set as the session cookie" })
  accessToken: string;
}

/** POST /api/auth/2fa/enable. */
export class EnableTwoFactorResultDto extends RecoveryCodesDto {
  @ApiProperty({ description: 'fresh session token (other sessions ended); also the cookie' })
  accessToken: string;
}

/** GET /api/auth/2fa. */
export class TwoFactorStatusDto {
  @ApiProperty() enabled: boolean;
  @ApiProperty({ description: 'unused recovery codes (0 while off)' }) recoveryCodesLeft: number;
}

/** POST /api/auth/login when 2FA is on: no session yet. */
export class MfaChallengeDto {
  @ApiProperty({ enum: [true] }) mfaRequired: true;
  @ApiProperty({ description: 'for POST /api/auth/2fa/verify only; expires in 5 minutes' })
  mfaToken: string;
}
