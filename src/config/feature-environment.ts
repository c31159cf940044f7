import { applyDecorators } from '@nestjs/common';
import { type ClassConstructor, plainToInstance, Transform } from 'class-transformer';
import { IsString, ValidateBy, ValidateIf, validateSync } from 'class-validator';
import { StartupError } from '../common/errors/startup-error';

/**
 * The building blocks of every feature's environment class (`src/<feature>/<feature>.config.ts`):
 * transforms from the raw strings, shared validator options, and the validation of one class.
 */

/** Raw variables: process.env, plus the overrides a test passes to `AppModule.forRoot`. */
export type RawEnv = Record<string, string | undefined>;

/** `NODE_ENV`, for a class whose rules differ in production (validated by the app class). */
export interface WithNodeEnv {
  NODE_ENV?: string;
}

/** A whole number; unset or empty → undefined (the default applies); anything else → NaN fails. */
export const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
/** A number, as `toInt`; `@IsNumber` / `@IsInt` decide which are accepted. */
export const toNumber = toInt;
/** `1`, `true` or `yes` → true; any other text → false; unset or empty → undefined. */
export const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes'].includes(String(value));
/** Empty → undefined, so `FOO=` in a `.env` file means "unset". */
export const emptyToUndefined = ({ value }: { value: unknown }) =>
  value === '' ? undefined : value;
/** A comma-separated list, trimmed and lower-cased; empty → undefined (the default applies). */
export const toList = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const items = value
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  return items.length ? items : undefined;
};

/** `@IsUrl` options of an upstream base URL: http or https, a scheme required, no TLD needed. */
export const HTTP_URL = {
  require_tld: false,
  require_protocol: true,
  protocols: ['http', 'https'],
};

/** Splits a comma-separated value into trimmed, non-empty items (case kept). */
export const list = (v?: string): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * A pair of variables that go together (a client id and its secret, an access key and its
 * secret): both or neither. One alone fails at boot with a message naming both, never the value.
 */
export function SetTogether(a: string, b: string): PropertyDecorator {
  const given = (o: Record<string, unknown>) => !!(o[a] ?? o[b]);
  return applyDecorators(
    ValidateIf(given),
    Transform(emptyToUndefined),
    IsString({ message: `${a} and ${b} must be set together` }),
  );
}

/** An IANA time zone name the runtime knows (`Europe/Berlin`); the message names the value. */
export function IsTimeZone(): PropertyDecorator {
  return ValidateBy({
    name: 'isTimeZone',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isTimeZone(value),
      defaultMessage: (args) => `${String(args?.value)} is not an IANA time zone`,
    },
  });
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates `raw` against one environment class: the typed instance and one line per wrong
 * variable, `NAME: message[, message]` (empty when all are valid). Never throws.
 */
export function checkEnvironment<T extends object>(
  cls: ClassConstructor<T>,
  raw: Record<string, unknown>,
): { env: T; messages: string[] } {
  const env = plainToInstance(cls, raw, { excludeExtraneousValues: false });
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: false });
  const messages = errors.map(
    (e) => `${e.property}: ${Object.values(e.constraints ?? {}).join(', ')}`,
  );
  return { env, messages };
}

/** The boot error naming every wrong variable, one per line after `Invalid configuration:`. */
export function invalidConfiguration(messages: string[]): StartupError {
  return new StartupError(`Invalid configuration:\n  ${messages.join('\n  ')}`);
}

/**
 * One feature's variables read from `raw` (default: process.env), for its `registerAs` factory.
 * Throws StartupError naming each wrong variable.
 */
export function featureEnvironment<T extends object>(
  cls: ClassConstructor<T>,
  raw: RawEnv = process.env,
): T {
  const { env, messages } = checkEnvironment(cls, raw);
  if (messages.length) throw invalidConfiguration(messages);
  return env;
}
