import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsBcryptPassword } from './password.validator';

/** POST /api/auth/password body. */
export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery' })
  @IsString()
  @MaxLength(200)
  currentPassword: string;

  @ApiProperty({
    example: 'staple battery horse correct',
    minLength: 8,
    description: '8 to 72 bytes (UTF-8)',
  })
  @IsBcryptPassword()
  newPassword: string;

  @ApiPropertyOptional({
    default: false,
    description:
      'revoke every API key of the account too (whoever knew the old password may have made keys)',
  })
  @IsOptional()
  @IsBoolean()
  revokeKeys?: boolean;
}
