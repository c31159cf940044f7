/**
 * A signed event that is ours (e.g. a paid `credit_purchase`) but cannot be applied as it
 * stands: its metadata names a user that does not exist, or its `credits` is not a positive
 * integer. Thrown inside the event's transaction, so nothing is recorded; the webhook answers
 * 500 and keeps the event in the failed-webhooks table, where an operator sees that someone
 * paid, and can replay it once the cause is fixed (the account restored) or refund it. The
 * message names only processor ids and our user ids, never a secret.
 */
export class UnappliableEventError extends Error {
  override readonly name = 'UnappliableEvent';
}
