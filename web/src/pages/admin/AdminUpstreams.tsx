import { Alert, Badge, Button, Card, Group, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { UpstreamForm, type UpstreamInput } from './UpstreamForm';

// Badge text stays above 4.5:1 on each (autoContrast writes dark text on yellow).
const STATE_COLOR = { healthy: 'teal.9', cooling: 'yellow.9', failing: 'red.9' } as const;

/**
 * `/{locale}/admin/upstreams`: every upstream with its health, cooldown, last error and this
 * minute's usage (`GET /api/admin/upstreams`); add one, change one, and test one with a
 * one-token call (`POST /api/admin/upstreams/{id}/test`).
 */
export default function AdminUpstreams() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<string | null>(null);
  const upstreams = useQuery({
    queryKey: ['admin', 'upstreams'],
    queryFn: async () => unwrap(await api.GET('/api/admin/upstreams')).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'upstreams'] });
  const create = useMutation({
    mutationFn: async (body: UpstreamInput) =>
      unwrap(await api.POST('/api/admin/upstreams', { body })),
    onSuccess: refresh,
  });
  const change = useMutation({
    mutationFn: async ({ id, body }: { id: string; body: UpstreamInput }) => {
      // The provider is fixed once created: a change sends the other fields.
      const fields: Partial<UpstreamInput> = { ...body };
      delete fields.provider;
      return unwrap(
        await api.PATCH('/api/admin/upstreams/{id}', { params: { path: { id } }, body: fields }),
      );
    },
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const test = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.POST('/api/admin/upstreams/{id}/test', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(i18n.language) : '—');
  const being = upstreams.data?.find((u) => u.id === editing);

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.upstreams.title')}
      </Title>
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="sm">
          {being ? t('admin.upstreams.editName', { name: being.name }) : t('admin.upstreams.add')}
        </Title>
        <UpstreamForm
          key={being?.id ?? 'new'}
          upstream={being}
          busy={create.isPending || change.isPending}
          onSave={(body) => (being ? change.mutate({ id: being.id, body }) : create.mutate(body))}
          onCancel={being ? () => setEditing(null) : undefined}
        />
        <ErrorNote error={create.error ?? change.error} />
      </Card>
      <ErrorNote error={upstreams.error ?? test.error} />
      {test.data && (
        <Alert
          color={test.data.ok ? 'green' : 'red'}
          role="status"
          mb="sm"
          data-testid="test-result"
        >
          {test.data.ok
            ? t('admin.upstreams.testOk', { model: test.data.model, ms: test.data.latencyMs })
            : t('admin.upstreams.testFailed', {
                model: test.data.model,
                message: test.data.message,
              })}
        </Alert>
      )}
      <Card withBorder>
        {upstreams.data?.length === 0 && <Text>{t('admin.upstreams.none')}</Text>}
        {!!upstreams.data?.length && (
          <Table.ScrollContainer minWidth={800}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('auth.name')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.provider')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.models')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.health')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.cooldown')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.minute')}</Table.Th>
                  <Table.Th>{t('admin.upstreams.actions')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {upstreams.data.map((u) => (
                  <Table.Tr key={u.id}>
                    <Table.Td>
                      {u.name}
                      {!u.enabled && <Text size="xs">{t('admin.upstreams.disabled')}</Text>}
                    </Table.Td>
                    <Table.Td>{u.provider}</Table.Td>
                    <Table.Td>{u.models.join(', ') || t('admin.upstreams.allModels')}</Table.Td>
                    <Table.Td>
                      <Badge color={STATE_COLOR[u.state]} autoContrast>
                        {t(`admin.upstreams.state.${u.state}`)}
                      </Badge>
                      {u.lastError && (
                        <Text size="xs">
                          {u.lastError.message} ({when(u.lastErrorAt)})
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {u.cooldownUntil ? when(u.cooldownUntil) : '—'}
                      <Text size="xs">
                        {t('admin.upstreams.failures', { count: u.consecutiveFailures })}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {t('admin.upstreams.usage', {
                        requests: u.minuteUsage.requests,
                        tokens: u.minuteUsage.tokens,
                      })}
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs">
                        <Button
                          size="xs"
                          aria-label={t('admin.upstreams.testName', { name: u.name })}
                          loading={test.isPending && test.variables === u.id}
                          onClick={() => test.mutate(u.id)}
                        >
                          {t('admin.upstreams.test')}
                        </Button>
                        {u.source === 'table' && (
                          <Button
                            size="xs"
                            variant="outline"
                            aria-label={t('admin.upstreams.editName', { name: u.name })}
                            onClick={() => setEditing(u.id)}
                          >
                            {t('admin.upstreams.edit')}
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
      </Card>
    </>
  );
}
