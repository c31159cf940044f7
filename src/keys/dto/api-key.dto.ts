import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  Max,
  Min,
  ValidateIf,
  IsUUID,
} from 'class-validator';
import { API_SCOPES, type ApiScope } from '../../common/auth/api-scopes';
import { IsBoundedString } from '../../common/validation/validators';

/** Largest `dailyCreditLimit` accepted (credits, integer). */
export const MAX_KEY_DAILY_LIMIT = 100_000_000;

/** POST /api/keys. */
export class CreateApiKeyDto {
  @IsBoundedString(1, 100) name: string;

  @ApiPropertyOptional({
    enum: API_SCOPES,
    isArray: true,
    description: 'default `["ai", "chats:read"]`',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(API_SCOPES.length)
  @ArrayUnique()
  @IsIn(API_SCOPES, { each: true })
  scopes?: ApiScope[];

  @ApiPropertyOptional({ format: 'date-time', description: 'in the future; none: never expires' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  expiresAt?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_KEY_DAILY_LIMIT,
    nullable: true,
    description: 'credits this key may consume per local day (APP_TIMEZONE); none: no own cap',
  })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(MAX_KEY_DAILY_LIMIT)
  dailyCreditLimit?: number | null;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "a team's key: its calls spend from this team's credit pool (OWNER or ADMIN of the team " +
      'only: 403 for a MEMBER, 404 for anyone else); refused once its maker leaves the team',
  })
  @IsOptional()
  @IsUUID()
  teamId?: string;
}

/** PATCH /api/keys/{id}: either field; `dailyCreditLimit: null` removes the key's own cap. */
export class UpdateApiKeyDto {
  @IsBoundedString(1, 100, true) name?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_KEY_DAILY_LIMIT,
    nullable: true,
  })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(MAX_KEY_DAILY_LIMIT)
  dailyCreditLimit?: number | null;
}

/** A key as listed: never the secret, only its public prefix. */
export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'CI script' }) name: string;
  @ApiProperty({ example: 'sk-7GqZk2Ld', description: 'the first characters of the key' })
  prefix: string;
  @ApiProperty({ enum: API_SCOPES, isArray: true }) scopes: ApiScope[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) dailyCreditLimit: number | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "a team's key: the team whose pool its calls spend from; null: personal",
  })
  teamId: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

/** The answer of POST /api/keys: the only time the secret is shown. */
export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({
    example: 'sk-7GqZk2Ld…',
    description: '`sk-` and 44 base62 characters (262 random bits); shown only in this answer',
  })
  key: string;
}

/** DELETE /api/keys/{id}: the key is revoked from `revokedAt` on. */
export class RevokedApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) revokedAt: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto], description: 'active and expired keys, newest first' })
  keys: ApiKeyDto[];
}
