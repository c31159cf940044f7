import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { list, toInt } from '../config/feature-environment';

/** Who becomes an admin, and how long a session's user row is served from memory. */
export class UsersEnvironment {
  @IsOptional() @IsString() ADMIN_EMAILS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) SESSION_CACHE_TTL_MS?: number;
}

/** The `users` slice. */
export interface UsersConfig {
  /** Granted role ADMIN once their address is verified (ADMIN_EMAILS, lower-cased). */
  adminEmails: string[];
  /** How long a session row may be served from memory (ms; 0: read every time; default 30000). */
  sessionCacheTtlMs: number;
}

/** The `users` slice from validated variables. */
export function buildUsersConfig(env: UsersEnvironment): UsersConfig {
  return {
    adminEmails: list(env.ADMIN_EMAILS).map((e) => e.toLowerCase()),
    sessionCacheTtlMs: env.SESSION_CACHE_TTL_MS ?? 30_000,
  };
}

/** The `users` slice, read by its module with `@Inject(usersConfig.KEY)`. */
export const usersConfig = defineConfigSlice({
  name: 'users',
  environment: UsersEnvironment,
  build: buildUsersConfig,
});
