import { Button, Card, Group, SegmentedControl, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNote } from '../../components/ErrorNote';
import { KINDS } from './price-kinds';

type Change = components['schemas']['PriceChangeDto'];

/**
 * The increases the sync held (`GET /api/admin/prices/changes`): those waiting for a decision,
 * or every one with its outcome; each pending one approved (its prices apply from now: a new
 * version) or rejected (the price stays), `POST …/changes/{id}/approve|reject`.
 */
export function PriceChanges() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<'PENDING' | 'ALL'>('PENDING');
  const changes = useQuery({
    queryKey: ['admin', 'prices', 'changes', shown],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/admin/prices/changes', {
          params: { query: shown === 'PENDING' ? { status: 'PENDING' } : {} },
        }),
      ).data,
  });
  const decide = useMutation({
    mutationFn: async ({ id, approve }: { id: string; approve: boolean }) => {
      const params = { params: { path: { id } } };
      return unwrap(
        approve
          ? await api.POST('/api/admin/prices/changes/{id}/approve', params)
          : await api.POST('/api/admin/prices/changes/{id}/reject', params),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'prices'] }),
  });
  const when = (iso: string) => new Date(iso).toLocaleString(i18n.language);
  const rise = (c: Change) =>
    KINDS.filter((k) => c.prices[k] !== undefined && c.prices[k] !== c.previous[k])
      .map((k) => `${t(`admin.prices.kind.${k}`)} ${c.previous[k] ?? '—'} → ${c.prices[k]}`)
      .join('; ');

  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="xs">
        {t('admin.prices.changes')}
      </Title>
      <Text size="sm" mb="sm">
        {t('admin.prices.changesExplain')}
      </Text>
      <SegmentedControl
        aria-label={t('admin.prices.show')}
        value={shown}
        onChange={(v) => setShown(v as typeof shown)}
        data={[
          { value: 'PENDING', label: t('admin.prices.pending') },
          { value: 'ALL', label: t('admin.prices.all') },
        ]}
        mb="sm"
        style={{ alignSelf: 'flex-start' }}
      />
      <ErrorNote error={changes.error ?? decide.error} />
      {changes.data?.length === 0 && <Text>{t('admin.prices.noChanges')}</Text>}
      {!!changes.data?.length && (
        <Table.ScrollContainer minWidth={800}>
          <Table data-testid="price-changes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.models.model')}</Table.Th>
                <Table.Th>{t('admin.prices.increase')}</Table.Th>
                <Table.Th>{t('admin.prices.prices')}</Table.Th>
                <Table.Th>{t('admin.prices.held')}</Table.Th>
                <Table.Th>{t('admin.prices.decision')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {changes.data.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>{c.modelId}</Table.Td>
                  <Table.Td>+{c.increasePercent}%</Table.Td>
                  <Table.Td>{rise(c)}</Table.Td>
                  <Table.Td>{when(c.createdAt)}</Table.Td>
                  <Table.Td>
                    {c.status === 'PENDING' ? (
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          aria-label={t('admin.prices.approveOf', { model: c.modelId })}
                          loading={decide.isPending && decide.variables?.id === c.id}
                          onClick={() => decide.mutate({ id: c.id, approve: true })}
                        >
                          {t('admin.prices.approve')}
                        </Button>
                        <Button
                          size="xs"
                          variant="outline"
                          color="red.9"
                          aria-label={t('admin.prices.rejectOf', { model: c.modelId })}
                          disabled={decide.isPending && decide.variables?.id === c.id}
                          onClick={() => decide.mutate({ id: c.id, approve: false })}
                        >
                          {t('admin.prices.reject')}
                        </Button>
                      </Group>
                    ) : (
                      <>
                        {t(`admin.prices.status.${c.status}`)}
                        {c.decidedAt && <Text size="xs">{when(c.decidedAt)}</Text>}
                      </>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
