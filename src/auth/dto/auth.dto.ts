import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { IsBoundedString, IsNormalizedEmail } from '../../common/validation/validators';
import { UserDto } from '../../users/dto/user.dto';
import { IsBcryptPassword } from './password.validator';

/** POST /api/auth/signup body. */
export class SignupDto {
  @IsNormalizedEmail() email: string;
  @ApiProperty({ minLength: 8, description: '8 to 72 bytes (UTF-8)' })
  @IsBcryptPassword()
  password: string;
  @IsBoundedString(1, 100, true) name?: string;
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

export class SessionDto {
  @ApiPropertyOptional({ description: '{id, email, name, role}; absent without a session' })
  user?: { id: string; email: string; name: string | null; role: string };
  @ApiPropertyOptional({ description: 'ISO time the session expires' }) expires?: string;
}
