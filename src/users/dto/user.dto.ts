import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import {
  IsBoundedString,
  IsNormalizedEmail,
  IsOptionalAvatarUrl,
} from '../../common/validation/validators';
import { PLANS, ROLES, type Plan, type Role, type User } from '../user.entity';

/** POST /api/users (admin): `email` and `name` required (spec Users). */
export class CreateUserDto {
  @IsNormalizedEmail() email: string;
  @IsBoundedString(1, 100) name: string;
  @IsOptionalAvatarUrl() avatar?: string;
  @ApiPropertyOptional({ enum: ROLES }) @IsOptional() @IsIn(ROLES) role?: Role;
  @ApiPropertyOptional({ enum: PLANS }) @IsOptional() @IsIn(PLANS) plan?: Plan;
}

/** PUT /api/users/{id} (admin): only these fields; `credits` goes through an ADJUSTMENT entry. */
export class UpdateUserDto {
  @IsBoundedString(1, 100, true) name?: string;
  @IsOptionalAvatarUrl() avatar?: string;
  @ApiPropertyOptional({ enum: ROLES }) @IsOptional() @IsIn(ROLES) role?: Role;
  @ApiPropertyOptional({ enum: PLANS }) @IsOptional() @IsIn(PLANS) plan?: Plan;
  @ApiPropertyOptional({ minimum: 0, description: 'new balance in credits' })
  @IsOptional()
  @IsInt()
  @Min(0)
  credits?: number;
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: "why the balance changed: the ADJUSTMENT entry's description and the audit detail",
  })
  @IsBoundedString(1, 200, true)
  reason?: string;
}

/** GET /api/users (admin): a page, optionally only users whose email or name contains `q`. */
export class UserListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ maxLength: 100, description: 'part of the email or name, any case' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  q?: string;
}

/** PUT /api/user/profile: the session user's own name and avatar. */
export class UpdateProfileDto {
  @IsBoundedString(1, 100, true) name?: string;
  @IsOptionalAvatarUrl() avatar?: string;
}

/** A user as every endpoint returns it: never the password hash or processor ids. */
export class UserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty({ nullable: true, type: String }) avatar: string | null;
  @ApiProperty({
    description: 'Whether the owner proved the address; until then a client offers a resend',
  })
  emailVerified: boolean;
  @ApiProperty({ enum: ROLES }) role: Role;
  @ApiProperty({ type: 'integer', description: 'credit balance' }) credits: number;
  @ApiProperty({ enum: PLANS }) plan: Plan;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** The admin view adds internal fields. */
export class AdminUserDto extends UserDto {
  @ApiProperty({ nullable: true, type: String }) paymentCustomerId: string | null;
}

/** PUT /api/user/profile answer (spec Users: 200 `{user}`). */
export class ProfileDto {
  @ApiProperty({ type: UserDto }) user: UserDto;
}

export function mapUser(user: User): UserDto {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    avatar: user.avatar,
    emailVerified: user.emailVerifiedAt !== null,
    role: user.role,
    credits: user.credits,
    plan: user.plan,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

export function mapAdminUser(user: User): AdminUserDto {
  return { ...mapUser(user), paymentCustomerId: user.paymentCustomerId };
}
