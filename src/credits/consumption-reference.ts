/** A model call's CONSUMPTION reference, `consumption:<request id>` (credit-holds.service.ts). */
const CONSUMPTION_REFERENCE =
  /^consumption:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The generation id of a ledger entry: the request id of a model call's CONSUMPTION (its
 * generation record's id, src/generations); null for any other entry (a debt collected, a grant).
 */
export function generationIdOf(type: string, reference: string | null): string | null {
  if (type !== 'CONSUMPTION' || !reference) return null;
  return CONSUMPTION_REFERENCE.exec(reference)?.[1] ?? null;
}
