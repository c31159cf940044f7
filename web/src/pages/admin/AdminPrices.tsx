import { Alert, Button, Card, Group, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { PriceChanges } from './PriceChanges';
import { PriceVersions } from './PriceVersions';

/**
 * `/{locale}/admin/prices`: the price catalogue of `src/prices`. Running the price sync now
 * (`POST /api/admin/prices/sync`: 503 when PRICES_URL is unset or its source fails), the
 * increases it held for a decision, and each model's price versions. Prices are USD per million
 * tokens.
 */
export default function AdminPrices() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const sync = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/admin/prices/sync')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'prices'] }),
  });
  const list = (ids: string[]) => (ids.length ? ids.join(', ') : t('admin.prices.noModels'));

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.prices.title')}
      </Title>
      <Text size="sm" mb="sm">
        {t('admin.prices.explain')}
      </Text>
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="xs">
          {t('admin.prices.sync')}
        </Title>
        <Text size="sm" mb="sm">
          {t('admin.prices.syncExplain')}
        </Text>
        <Group>
          <Button onClick={() => sync.mutate()} loading={sync.isPending}>
            {t('admin.prices.syncNow')}
          </Button>
        </Group>
        <ErrorNote
          error={sync.error}
          messages={{
            SERVICE_UNAVAILABLE: t('admin.prices.syncUnavailable', {
              message: sync.error?.message,
            }),
          }}
        />
        {sync.data && (
          <Alert color="green" role="status" mt="sm" data-testid="sync-report">
            {t('admin.prices.report', {
              applied: list(sync.data.applied),
              held: list(sync.data.held),
              missing: list(sync.data.missing),
              count: sync.data.unchanged.length,
            })}
          </Alert>
        )}
      </Card>
      <PriceChanges />
      <PriceVersions />
    </>
  );
}
