import { api, unwrap } from '../../api/client';
import type { components, operations } from '../../api/schema';

/** The query of `GET /api/admin/usage` without its page. */
export type UsageQuery = Omit<
  NonNullable<operations['AdminUsageController_list']['parameters']['query']>,
  'limit' | 'cursor'
>;
export type UsageGroup = NonNullable<UsageQuery['groupBy']>;
export type UsageRow = components['schemas']['AdminUsageRowDto'];
export type UsagePage = components['schemas']['AdminUsageDto'];

export const USAGE_GROUPS: UsageGroup[] = ['user', 'team', 'model', 'key', 'day'];
/** Groups per page: the most the API gives (a 100-day range by day is one page). */
export const USAGE_PAGE = 100;

/** One page of groups (`cursor` from the previous page). */
export async function usagePage(query: UsageQuery, cursor?: string): Promise<UsagePage> {
  return unwrap(
    await api.GET('/api/admin/usage', {
      params: { query: { ...query, limit: USAGE_PAGE, ...(cursor ? { cursor } : {}) } },
    }),
  );
}

/** Every group of `query`, page after page (for the CSV export of the whole range). */
export async function allUsageRows(query: UsageQuery): Promise<UsageRow[]> {
  const rows: UsageRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await usagePage(query, cursor);
    rows.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

/** The CSV columns: the group's label and key, then its sums. */
export const CSV_COLUMNS = [
  'label',
  'key',
  'requests',
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'cacheSavings',
  'credits',
] as const;
