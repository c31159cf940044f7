import { AI_ERRORS, type AiErrorCode } from './ai/ai.errors';
import { AUTH_ERRORS, type AuthErrorCode } from './auth/auth.errors';
import { BILLING_ERRORS, type BillingErrorCode } from './billing/billing.errors';
import { COMMON_ERRORS, type CommonErrorCode } from './common/errors/app-error';
import { type ErrorSpec, mergeErrorTables } from './common/errors/error-table';
import type { WireErrorFormat } from './common/errors/wire-error-formats';
import { CREDITS_ERRORS, type CreditsErrorCode } from './credits/credits.errors';
import { GATEWAY_ERRORS, type GatewayErrorCode } from './gateway/gateway.errors';
import { GATEWAY_ERROR_FORMATS } from './gateway/wire-error-formats';
import { MODELS_ERRORS, type ModelsErrorCode } from './models/models.errors';
import { PLUGINS_ERRORS, type PluginsErrorCode } from './plugins/plugins.errors';
import { PRICES_ERRORS, type PricesErrorCode } from './prices/prices.errors';
import { REDEMPTION_ERRORS, type RedemptionErrorCode } from './redemption/redemption.errors';
import { SEARCH_ERRORS, type SearchErrorCode } from './search/search.errors';
import { TAGS_ERRORS, type TagsErrorCode } from './tags/tags.errors';
import { TASKS_ERRORS, type TasksErrorCode } from './tasks/tasks.errors';
import { TEAMS_ERRORS, type TeamsErrorCode } from './teams/teams.errors';
import { UPLOADS_ERRORS, type UploadsErrorCode } from './uploads/uploads.errors';
import { UPSTREAMS_ERRORS, type UpstreamsErrorCode } from './upstreams/upstreams.errors';
import { USERS_ERRORS, type UsersErrorCode } from './users/users.errors';
import { WALLET_ERRORS, type WalletErrorCode } from './wallet/wallet.errors';
import { WEBHOOKS_ERRORS, type WebhooksErrorCode } from './webhooks/webhooks.errors';

/**
 * Each module's table, from its `src/<module>/<module>.errors.ts`; common's holds the generic
 * codes. A new module's table joins this list, or AppError refuses its codes.
 */
export const ERROR_TABLES = [
  COMMON_ERRORS,
  USERS_ERRORS,
  AUTH_ERRORS,
  CREDITS_ERRORS,
  TEAMS_ERRORS,
  TAGS_ERRORS,
  UPLOADS_ERRORS,
  TASKS_ERRORS,
  SEARCH_ERRORS,
  PLUGINS_ERRORS,
  UPSTREAMS_ERRORS,
  MODELS_ERRORS,
  PRICES_ERRORS,
  AI_ERRORS,
  BILLING_ERRORS,
  WEBHOOKS_ERRORS,
  WALLET_ERRORS,
  GATEWAY_ERRORS,
  REDEMPTION_ERRORS,
] as const;

/**
 * Every error code of the application: the union of the modules' code enums. A module's enum
 * joins it together with its table above (the check below fails the build on either alone).
 */
export type ErrorCode =
  | CommonErrorCode
  | UsersErrorCode
  | AuthErrorCode
  | CreditsErrorCode
  | TeamsErrorCode
  | TagsErrorCode
  | UploadsErrorCode
  | TasksErrorCode
  | SearchErrorCode
  | PluginsErrorCode
  | UpstreamsErrorCode
  | ModelsErrorCode
  | PricesErrorCode
  | AiErrorCode
  | BillingErrorCode
  | WebhooksErrorCode
  | WalletErrorCode
  | GatewayErrorCode
  | RedemptionErrorCode;

type CodesOf<T> = T extends unknown ? keyof T : never;
type Tabled = CodesOf<(typeof ERROR_TABLES)[number]>;
/** Compiles only while ErrorCode and the codes of ERROR_TABLES are the same set. */
export const ERROR_TABLES_COVER_ERROR_CODE: [ErrorCode] extends [Tabled]
  ? [Tabled] extends [ErrorCode]
    ? true
    : never
  : never = true;

// AppError (common) accepts exactly these codes, without common importing any module. (Inside
// the block `ErrorCode` would name common's own alias, hence RegisteredCodes.)
type RegisteredCodes = ErrorCode;
declare module './common/errors/app-error' {
  interface ErrorCodeRegistry {
    codes: RegisteredCodes;
  }
}

/** The status of every code, for ErrorsModule.forRoot; a code two modules define throws here. */
export const ERROR_TABLE = mergeErrorTables(...ERROR_TABLES) as Readonly<
  Record<ErrorCode, ErrorSpec>
>;

/** The error shapes of other protocols, by path prefix: the gateway's OpenAI and Anthropic. */
export const WIRE_ERROR_FORMATS: readonly WireErrorFormat[] = [...GATEWAY_ERROR_FORMATS];
