import { Transform } from 'class-transformer';
import { IsOptional, ValidateBy } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined } from '../config/feature-environment';
import { type CreditPack, parseCreditPacks, parsePlanCredits } from './credit-packs';

/** A JSON variable that `parse` accepts; the message gives parse's reason, never the value. */
function ParsesWith(parse: (raw: string) => unknown): PropertyDecorator {
  const problem = (value: unknown): string | null => {
    if (typeof value !== 'string') return 'is a JSON string';
    try {
      parse(value);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };
  return ValidateBy({
    name: 'parsesWith',
    validator: {
      validate: (value: unknown) => problem(value) === null,
      defaultMessage: (args) => `${args?.property} ${problem(args?.value)}`,
    },
  });
}

/** The credit packs sold through Checkout and the credits each plan includes per period. */
export class WalletEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @ParsesWith(parseCreditPacks) CREDIT_PACKS?: string;
  @IsOptional() @Transform(emptyToUndefined) @ParsesWith(parsePlanCredits) PLAN_CREDITS?: string;
}

/** The `wallet` slice. */
export interface WalletConfig {
  /**
   * CREDIT_PACKS (default none): the packs `GET /api/credits/packs` lists, unless an admin's edit
   * in `credit_packs` overrides one. `amount` in major units.
   */
  packs: CreditPack[];
  /**
   * PLAN_CREDITS (default none): credits a plan includes per paid period, granted on each paid
   * invoice of the subscription (a plan not listed includes none).
   */
  planCredits: Partial<Record<'BASIC' | 'PRO', number>>;
}

/** The `wallet` slice from validated variables. */
export function buildWalletConfig(env: WalletEnvironment): WalletConfig {
  return {
    packs: env.CREDIT_PACKS ? parseCreditPacks(env.CREDIT_PACKS) : [],
    planCredits: env.PLAN_CREDITS ? parsePlanCredits(env.PLAN_CREDITS) : {},
  };
}

/** The `wallet` slice, read by its module with `@Inject(walletConfig.KEY)`. */
export const walletConfig = defineConfigSlice({
  name: 'wallet',
  environment: WalletEnvironment,
  build: buildWalletConfig,
});
