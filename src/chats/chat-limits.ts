/** Messages per chat in chat reads unless `?messages=` says otherwise: reads stay bounded. */
export const DEFAULT_CHAT_MESSAGES = 20;
/** Most messages per chat one chat read returns; the rest through GET /api/chats/{id}/messages. */
export const MAX_CHAT_MESSAGES = 100;
