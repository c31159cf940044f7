import { Button, Code, Table, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import type { operations } from '../../api/schema';
import { ErrorNote } from '../../components/ErrorNote';

export type AuditFilter = NonNullable<operations['AuditController_list']['parameters']['query']>;

/** The audit events matching `filter` (`GET /api/admin/audit`), newest first, a page at a time. */
export function AuditTable({ filter }: { filter: AuditFilter }) {
  const { t, i18n } = useTranslation();
  const events = useInfiniteQuery({
    queryKey: ['admin', 'audit', filter],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/admin/audit', {
          params: { query: { ...filter, limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = events.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <>
      <ErrorNote error={events.error} />
      {events.isSuccess && rows.length === 0 && <Text>{t('admin.audit.none')}</Text>}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table data-testid="audit-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.audit.at')}</Table.Th>
                <Table.Th>{t('admin.audit.actor')}</Table.Th>
                <Table.Th>{t('admin.audit.action')}</Table.Th>
                <Table.Th>{t('admin.audit.target')}</Table.Th>
                <Table.Th>{t('admin.audit.details')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>{new Date(e.at).toLocaleString(i18n.language)}</Table.Td>
                  <Table.Td>
                    {e.actorType}
                    {e.actorId && <Code ml={4}>{e.actorId.slice(0, 8)}</Code>}
                  </Table.Td>
                  <Table.Td>{e.action}</Table.Td>
                  <Table.Td>
                    {e.targetType} {e.targetId && <Code>{e.targetId.slice(0, 12)}</Code>}
                  </Table.Td>
                  <Table.Td>
                    {/* Long details (a price change's every kind) wrap, never widen the table. */}
                    <Code style={{ overflowWrap: 'anywhere' }}>{JSON.stringify(e.details)}</Code>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {events.hasNextPage && (
        <Button mt="sm" variant="outline" onClick={() => void events.fetchNextPage()}>
          {t('admin.more')}
        </Button>
      )}
    </>
  );
}
