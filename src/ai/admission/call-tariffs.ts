import type { SessionUser } from '../../common/auth/session-user';
import type { ModelDescriptor } from '../../models/model-catalogue';
import type { PriceBook, PricingMode } from '../../prices/price-book.service';
import type { Tariff } from '../../prices/tariff';

/**
 * The tariff of each model that may answer a call, chosen at admission (the price version in
 * force at `opts.at`, the admission's time from the Clock; the caller's plan's markup):
 * `model`'s, or AppError MODEL_NOT_PRICED (400) before anything is held or sent; a fallback
 * without a price is left out of `fallbacks`.
 */
export async function priceCall(
  prices: PriceBook,
  opts: { at: Date; plan: SessionUser['plan']; pricing: PricingMode },
  model: ModelDescriptor,
  candidates: ModelDescriptor[],
): Promise<{ tariffs: Record<string, Tariff>; fallbacks: ModelDescriptor[] }> {
  await prices.fresh();
  const tariffs: Record<string, Tariff> = { [model.id]: prices.tariff(model, opts) };
  const fallbacks = candidates.filter((m) => {
    try {
      tariffs[m.id] = prices.tariff(m, opts);
      return true;
    } catch {
      return false;
    }
  });
  return { tariffs, fallbacks };
}
