import { Badge, Card, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { Loading } from '../../components/Loading';

/**
 * `/{locale}/admin/models`: the model catalogue with prices in USD per thousand tokens (input, output,
 * cached input), context size, capabilities and whether a provider serves it now
 * (`GET /api/ai/models`). Prices come from the service's configuration.
 */
export default function AdminModels() {
  const { t, i18n } = useTranslation();
  const models = useQuery({
    queryKey: ['models'],
    queryFn: async () => unwrap(await api.GET('/api/ai/models')).models,
  });
  const price = (p?: number) =>
    p === undefined
      ? '—'
      : new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 4 }).format(p);
  return (
    <>
      <Title order={1} mb="md">
        {t('admin.models.title')}
      </Title>
      <Text size="sm" mb="sm">
        {t('admin.models.explain')}
      </Text>
      <ErrorNote error={models.error} />
      {!models.data && !models.error && <Loading />}
      {models.data && (
        <Card withBorder>
          <Table.ScrollContainer minWidth={800}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('admin.models.model')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.provider')}</Table.Th>
                  <Table.Th>{t('admin.models.input')}</Table.Th>
                  <Table.Th>{t('admin.models.output')}</Table.Th>
                  <Table.Th>{t('admin.models.cached')}</Table.Th>
                  <Table.Th>{t('admin.models.context')}</Table.Th>
                  <Table.Th>{t('admin.models.capabilities')}</Table.Th>
                  <Table.Th>{t('admin.models.available')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {models.data.map((m) => (
                  <Table.Tr key={m.id}>
                    <Table.Td>
                      {m.name}
                      <Text size="xs">{m.id}</Text>
                    </Table.Td>
                    <Table.Td>{m.providerId}</Table.Td>
                    <Table.Td>{price(m.inputPrice)}</Table.Td>
                    <Table.Td>{price(m.outputPrice)}</Table.Td>
                    <Table.Td>{price(m.cachedInputPrice)}</Table.Td>
                    <Table.Td>{m.maxTokens.toLocaleString(i18n.language)}</Table.Td>
                    <Table.Td>{m.capabilities.join(', ')}</Table.Td>
                    <Table.Td>
                      <Badge color={m.available ? 'teal.9' : 'gray.8'}>
                        {m.available ? t('admin.models.yes') : t('admin.models.no')}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
    </>
  );
}
