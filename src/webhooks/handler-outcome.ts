/** What a handler did; logged with the event (`applied`/`stale`: a subscription state). */
export type HandlerOutcome =
  | 'granted'
  | 'clawed-back'
  | 'applied'
  | 'stale'
  | 'duplicate'
  | 'ignored'
  | 'unknown-user'
  | 'deferred';
