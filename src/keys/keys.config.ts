import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/** Personal API keys. */
export class KeysEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) API_KEY_RPM?: number;
}

/** The `keys` slice. */
export interface KeysConfig {
  /** Requests per minute of one personal API key (API_KEY_RPM, default 60). */
  apiKeyRpm: number;
}

/** The `keys` slice from validated variables. */
export function buildKeysConfig(env: KeysEnvironment): KeysConfig {
  return { apiKeyRpm: env.API_KEY_RPM ?? 60 };
}

/** The `keys` slice, read by its module with `@Inject(keysConfig.KEY)`. */
export const keysConfig = defineConfigSlice({
  name: 'keys',
  environment: KeysEnvironment,
  build: buildKeysConfig,
});
