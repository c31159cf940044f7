import { Badge, Card, Select, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { KINDS } from './price-kinds';

/**
 * A model's price versions (`GET /api/admin/prices/models/{modelId}/versions`), oldest first,
 * the last in force: the catalogue's own prices (in force since ever), then every stored
 * version from the sync or an admin's approval. The model is picked from the catalogue
 * (`GET /api/ai/models`).
 */
export function PriceVersions() {
  const { t, i18n } = useTranslation();
  const [picked, setPicked] = useState<string | null>(null);
  const models = useQuery({
    queryKey: ['models'],
    queryFn: async () => unwrap(await api.GET('/api/ai/models')).models,
  });
  const modelId = picked ?? models.data?.[0]?.id ?? null;
  const versions = useQuery({
    queryKey: ['admin', 'prices', 'versions', modelId],
    enabled: !!modelId,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/admin/prices/models/{modelId}/versions', {
          params: { path: { modelId: modelId! } },
        }),
      ).data,
  });
  const since = (iso: string) =>
    Date.parse(iso) === 0 ? t('admin.prices.always') : new Date(iso).toLocaleString(i18n.language);
  const rows = versions.data ?? [];

  return (
    <Card withBorder>
      <Title order={2} size="h3" mb="sm">
        {t('admin.prices.versions')}
      </Title>
      <ErrorNote error={models.error ?? versions.error} />
      <Select
        label={t('admin.models.model')}
        data={(models.data ?? []).map((m) => ({ value: m.id, label: `${m.name} (${m.id})` }))}
        value={modelId}
        onChange={(v) => v && setPicked(v)}
        allowDeselect={false}
        searchable
        maw={420}
        mb="sm"
      />
      {versions.isSuccess && rows.length === 0 && <Text>{t('admin.prices.noVersions')}</Text>}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={1000}>
          <Table data-testid="price-versions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.prices.effective')}</Table.Th>
                <Table.Th>{t('admin.prices.source')}</Table.Th>
                {KINDS.map((kind) => (
                  <Table.Th key={kind}>{t(`admin.prices.kind.${kind}`)}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((v, i) => (
                <Table.Tr key={v.id}>
                  <Table.Td>
                    {since(v.effectiveAt)}
                    {i === rows.length - 1 && (
                      <Badge color="teal.9" ml="xs">
                        {t('admin.prices.inForce')}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{t(`admin.prices.sources.${v.source}`)}</Table.Td>
                  {KINDS.map((kind) => (
                    <Table.Td key={kind}>{v.prices[kind] ?? '—'}</Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
