import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsBoundedString, IsNormalizedEmail } from '../../common/validation/validators';
import { UserDto } from '../../users/dto/user.dto';
import { ROLES } from '../../users/user.entity';
import { IsBcryptPassword } from './password.validator';

/** POST /api/auth/signup body. */
export class SignupDto {
  @IsNormalizedEmail() email: string;
  @ApiProperty({ minLength: 8, description: '8 to 72 bytes (UTF-8)' })
  @IsBcryptPassword()
  password: string;
  @IsBoundedString(1, 100, true) name?: string;
  /** The `?ref=` of a referral link; an unknown code is ignored. */
  @ApiPropertyOptional({
    example: 'K7MZP4QX',
    description: 'referral code; unknown ones are ignored',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  referralCode?: string;
}

/** POST /api/auth/login body (spec Authentication 2: the credentials method). */
export class LoginDto {
  @ApiProperty({ example: 'ada@example.com' }) @IsString() email: string;
  @ApiProperty() @IsString() password: string;
}

export class AuthResultDto {
  @ApiProperty({ type: UserDto }) user: UserDto;
  @ApiProperty({ description: 'HS256 JWT; also set as the httpOnly session cookie' })
  accessToken: string;
}

export class SessionUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ enum: ROLES }) role: string;
}

/** GET /api/auth/session: `{}` without a session. */
export class SessionDto {
  @ApiPropertyOptional({ type: SessionUserDto, description: 'absent without a session' })
  user?: SessionUserDto;
  @ApiPropertyOptional({ format: 'date-time', description: 'when the session expires' })
  expires?: string;
}

/** One sign-in method (NextAuth's providers shape). */
export class AuthProviderDto {
  @ApiProperty({ example: 'credentials' }) id: string;
  @ApiProperty({ example: 'Credentials' }) name: string;
  @ApiProperty({ enum: ['credentials', 'oauth'] }) type: string;
  @ApiProperty({ example: 'http://localhost:3000/api/auth/login' }) signinUrl: string;
  @ApiProperty({ example: 'http://localhost:3000/api/auth/callback/credentials' })
  callbackUrl: string;
}

/** GET /api/auth/providers: the configured methods keyed by id; `google`, `github` optional. */
export class AuthProvidersDto {
  @ApiProperty({ type: AuthProviderDto }) credentials: AuthProviderDto;
  @ApiPropertyOptional({ type: AuthProviderDto }) google?: AuthProviderDto;
  @ApiPropertyOptional({ type: AuthProviderDto }) github?: AuthProviderDto;
}
