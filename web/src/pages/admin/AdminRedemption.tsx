import { Alert, Badge, Button, Card, Group, Table, Text, Title } from '@mantine/core';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNote } from '../../components/ErrorNote';
import { download } from '../../lib/csv';
import { RedemptionBatchForm } from './RedemptionBatchForm';

type Batch = components['schemas']['RedemptionBatchDto'];

const STATUS_COLOR: Record<Batch['status'], string> = {
  active: 'teal.9',
  disabled: 'gray.8',
  expired: 'orange.9',
};

/**
 * `/{locale}/admin/redemption`: batches of redemption codes with their counts, newest first, a
 * page at a time (`GET /api/admin/redemption-batches`); making one; exporting a batch's codes
 * as a CSV file, which works once (`POST …/{id}/export`: the service keeps only their hashes
 * afterwards); disabling a batch (`POST …/{id}/disable`).
 */
export default function AdminRedemption() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const batches = useInfiniteQuery({
    queryKey: ['admin', 'redemption'],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/admin/redemption-batches', {
          params: { query: { limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'redemption'] });
  const exportCodes = useMutation({
    mutationFn: async (batch: Batch) => {
      const path = { id: batch.id };
      const csv = unwrap(
        await api.POST('/api/admin/redemption-batches/{id}/export', {
          params: { path },
          parseAs: 'text',
        }),
      );
      download(`redemption-codes-${batch.id}.csv`, csv);
      return batch;
    },
    onSettled: refresh,
  });
  const disable = useMutation({
    mutationFn: async (id: string) =>
      unwrap(
        await api.POST('/api/admin/redemption-batches/{id}/disable', {
          params: { path: { id } },
        }),
      ),
    onSuccess: refresh,
  });
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(i18n.language) : '—');
  const rows = batches.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.redemption.title')}
      </Title>
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="xs">
          {t('admin.redemption.batches')}
        </Title>
        <Text size="sm" mb="sm">
          {t('admin.redemption.exportOnce')}
        </Text>
        <ErrorNote error={batches.error ?? exportCodes.error ?? disable.error} />
        {exportCodes.data && (
          <Alert color="green" role="status" mb="sm">
            {t('admin.redemption.exported', { name: exportCodes.data.name })}
          </Alert>
        )}
        {batches.isSuccess && rows.length === 0 && <Text>{t('admin.redemption.none')}</Text>}
        {rows.length > 0 && (
          <Table.ScrollContainer minWidth={1000}>
            <Table data-testid="batches">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('admin.redemption.name')}</Table.Th>
                  <Table.Th>{t('admin.redemption.creditsCol')}</Table.Th>
                  <Table.Th>{t('admin.redemption.codes')}</Table.Th>
                  <Table.Th>{t('admin.redemption.redeemed')}</Table.Th>
                  <Table.Th>{t('admin.redemption.available')}</Table.Th>
                  <Table.Th>{t('admin.redemption.expired')}</Table.Th>
                  <Table.Th>{t('admin.redemption.status')}</Table.Th>
                  <Table.Th>{t('admin.redemption.expires')}</Table.Th>
                  <Table.Th>{t('admin.redemption.actions')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((b) => (
                  <Table.Tr key={b.id}>
                    <Table.Td>
                      {b.name}
                      <Text size="xs">{when(b.createdAt)}</Text>
                    </Table.Td>
                    <Table.Td>{b.credits}</Table.Td>
                    <Table.Td>
                      {b.counts.created}
                      <Text size="xs">
                        {t('admin.redemption.uses', { count: b.usesPerCode })}
                        {b.onePerUser && `, ${t('admin.redemption.oncePerUser')}`}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {b.counts.redeemed}
                      <Text size="xs">
                        {t('admin.redemption.redemptions', { count: b.counts.redemptions })}
                      </Text>
                    </Table.Td>
                    <Table.Td>{b.counts.available}</Table.Td>
                    <Table.Td>{b.counts.expired}</Table.Td>
                    <Table.Td>
                      <Badge color={STATUS_COLOR[b.status]}>
                        {t(`admin.redemption.state.${b.status}`)}
                      </Badge>
                      {b.exportedAt && (
                        <Text size="xs">
                          {t('admin.redemption.exportedAt', { when: when(b.exportedAt) })}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {b.expiresAt ? when(b.expiresAt) : t('admin.redemption.never')}
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        {!b.exportedAt && (
                          <Button
                            size="xs"
                            aria-label={t('admin.redemption.exportOf', { name: b.name })}
                            loading={exportCodes.isPending && exportCodes.variables?.id === b.id}
                            onClick={() => exportCodes.mutate(b)}
                          >
                            {t('admin.redemption.export')}
                          </Button>
                        )}
                        {b.status === 'active' && (
                          <Button
                            size="xs"
                            variant="outline"
                            color="red.9"
                            aria-label={t('admin.redemption.disableOf', { name: b.name })}
                            loading={disable.isPending && disable.variables === b.id}
                            onClick={() => disable.mutate(b.id)}
                          >
                            {t('admin.redemption.disable')}
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {batches.hasNextPage && (
          <Button mt="sm" variant="outline" onClick={() => void batches.fetchNextPage()}>
            {t('admin.more')}
          </Button>
        )}
      </Card>
      <RedemptionBatchForm />
    </>
  );
}
