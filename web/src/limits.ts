import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api/client';
import type { components } from './api/schema';

/**
 * One spending window that applies to the signed-in user, in credits (an entry of
 * `GET /api/credits/limits`): whose it is (`scope`: my `user` budget, a `team`'s or my `member`
 * cap in a team, a `key`'s, or the `plan`'s daily limit), its kind (`day`, `week`, `month`,
 * `hours`, `total`), the limit, what settled calls used, what running calls hold, what is left
 * and when it starts again (null for a window that does not reset).
 */
export type LimitWindow = components['schemas']['LimitDto'];

/** A key unique among the windows of one answer (a scope has one window per kind and length). */
export const windowKey = (w: LimitWindow) =>
  `${w.scope}:${w.scopeId}:${w.teamId ?? ''}:${w.window}:${w.hours ?? ''}`;

/**
 * Every window that applies to me, with what is left (`GET /api/credits/limits`); refreshed
 * with the balance after each reply (both share the `credits` query key prefix).
 */
export function useLimits() {
  return useQuery({
    queryKey: ['credits', 'limits'],
    queryFn: async () => unwrap(await api.GET('/api/credits/limits')).data,
  });
}
