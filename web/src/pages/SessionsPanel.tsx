import { Button, Card, Group, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * My sessions (`GET /api/auth/sessions`): device, address, state; end one
 * (`DELETE /api/auth/sessions/{id}`) or every other (`DELETE /api/auth/sessions`).
 */
export function SessionsPanel() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['sessions'],
    queryFn: async () => unwrap(await api.GET('/api/auth/sessions')).sessions,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['sessions'] });
  const endOne = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const endOthers = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/auth/sessions')),
    onSuccess: refresh,
  });

  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h3">
          {t('settings.sessions')}
        </Title>
        <Button size="xs" variant="outline" onClick={() => endOthers.mutate()}>
          {t('settings.endOthers')}
        </Button>
      </Group>
      <ErrorNote error={sessions.error ?? endOne.error ?? endOthers.error} />
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('settings.device')}</Table.Th>
            <Table.Th>{t('settings.address')}</Table.Th>
            <Table.Th>{t('settings.created')}</Table.Th>
            <Table.Th>{t('settings.state')}</Table.Th>
            <Table.Th>{t('settings.end')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sessions.data?.map((s) => (
            <Table.Tr key={s.id} data-testid="session-row">
              <Table.Td>{s.userAgent ?? '—'}</Table.Td>
              <Table.Td>{s.ip ?? '—'}</Table.Td>
              <Table.Td>{new Date(s.createdAt).toLocaleString(i18n.language)}</Table.Td>
              <Table.Td>
                {s.current ? (
                  <Text span fw={700} size="sm" c="indigo.9">
                    {t('settings.current')}
                  </Text>
                ) : s.active ? (
                  t('settings.active')
                ) : (
                  t('settings.ended')
                )}
              </Table.Td>
              <Table.Td>
                {s.active && !s.current && (
                  <Button
                    size="xs"
                    variant="outline"
                    color="red.9"
                    aria-label={t('settings.endSession', { id: s.id.slice(0, 8) })}
                    onClick={() => endOne.mutate(s.id)}
                  >
                    {t('settings.end')}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
