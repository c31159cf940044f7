import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api/client';

/** The signed-in user (`GET /api/auth/session`), or null without a session. */
export function useSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async () => unwrap(await api.GET('/api/auth/session')).user ?? null,
    staleTime: 60_000,
  });
}

/** The balance and today's usage (`GET /api/credits`), refreshed after each reply. */
export function useCredits() {
  return useQuery({
    queryKey: ['credits'],
    queryFn: async () => unwrap(await api.GET('/api/credits')),
  });
}
