import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, toBool, toInt, type WithNodeEnv } from '../config/feature-environment';

/** PostgreSQL: the server's URL (required in production) or the embedded server's folder and port. */
export class DatabaseEnvironment implements WithNodeEnv {
  /** Read for the production rule; validated by AppEnvironment. */
  NODE_ENV?: string;
  @ValidateIf(
    (o: DatabaseEnvironment) => o.NODE_ENV === 'production' || o.DATABASE_URL !== undefined,
  )
  @Transform(emptyToUndefined)
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_MIGRATIONS_RUN?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) DB_POOL_SIZE?: number;
  @IsOptional() @IsString() EMBEDDED_PG_DIR?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(65535) EMBEDDED_PG_PORT?: number;
}

/** The `db` slice. */
export interface DatabaseConfig {
  /** Undefined: start the embedded PostgreSQL. */
  url?: string;
  migrationsRun: boolean;
  /** Connections of each worker's pool (DB_POOL_SIZE): the total is workers × this. */
  poolSize: number;
  embeddedDir: string;
  embeddedPort: number;
}

/** The `db` slice from validated variables. */
export function buildDatabaseConfig(env: DatabaseEnvironment): DatabaseConfig {
  return {
    url: env.DATABASE_URL,
    migrationsRun: env.DB_MIGRATIONS_RUN ?? true,
    poolSize: env.DB_POOL_SIZE ?? 10,
    embeddedDir: env.EMBEDDED_PG_DIR ?? '.data/pg',
    embeddedPort: env.EMBEDDED_PG_PORT ?? 54329,
  };
}

/** The `db` slice, read by its module with `@Inject(databaseConfig.KEY)`. */
export const databaseConfig = defineConfigSlice({
  name: 'db',
  environment: DatabaseEnvironment,
  build: buildDatabaseConfig,
});
