import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsNormalizedEmail } from '../../../common/validation/validators';
import { IsBcryptPassword } from '../../dto/password.validator';

/** The token of a mailed link, as the link's page posts it back. */
function IsLinkToken() {
  return applyDecorators(
    ApiProperty({
      description: 'the `token` query parameter of the mailed link',
      example: 'Jq3v0cX2bq1mQm2yJ8m0Fh5Wm6yq3Yp7N1r0sT2uV4w',
      maxLength: 200,
    }),
    IsString(),
    Length(1, 200),
  );
}

/** POST /api/auth/verify-email and POST /api/user/email/confirm. */
export class LinkTokenDto {
  @IsLinkToken() token: string;
}

/** POST /api/auth/password/forgot. */
export class ForgotPasswordDto {
  @IsNormalizedEmail() email: string;
}

/** POST /api/auth/password/reset. */
export class ResetPasswordDto {
  @IsLinkToken() token: string;

  @ApiProperty({ example: 'staple battery horse correct', description: '8 to 72 bytes (UTF-8)' })
  @IsBcryptPassword()
  password: string;

  @ApiPropertyOptional({
    default: true,
    description:
      'revoke every API key of the account too (default true: whoever knew the old password may have made keys); an address proven for the first time by this reset loses its keys either way',
  })
  @IsOptional()
  @IsBoolean()
  revokeKeys?: boolean;
}

/** POST /api/user/email: the new address and the proof that the owner asks. */
export class ChangeEmailDto {
  @IsNormalizedEmail()
  newEmail: string;

  @ApiPropertyOptional({ description: 'the current password (accounts that have one)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  password?: string;

  @ApiPropertyOptional({
    description: 'a current TOTP code: the proof of an account without a password',
    example: '123456',
  })
  @IsOptional()
  @Matches(/^\d{6}$/, { message: 'totpCode must be 6 digits' })
  totpCode?: string;
}

/** 202: the work is queued (a mail is on its way, or nothing is to be done). */
export class AcceptedDto {
  @ApiProperty({ enum: [true] }) accepted: true;
}

/** 200 after a password reset: every earlier session has ended; sign in again. */
export class PasswordResetDto {
  @ApiProperty({ enum: [true] }) reset: true;
}
