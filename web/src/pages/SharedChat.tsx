import { Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { Loading } from '../components/Loading';

/**
 * `/{locale}/share/{token}`, a chat's public link, opened signed out too: the title and the
 * messages as they were when the link was made (`GET /api/share/{token}`), read only.
 */
export default function SharedChat() {
  const { t } = useTranslation();
  const { token } = useParams();
  const shared = useQuery({
    queryKey: ['share-page', token],
    queryFn: async () =>
      unwrap(await api.GET('/api/share/{token}', { params: { path: { token: token! } } })).data,
  });
  if (shared.isPending) return <Loading />;
  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {shared.data?.title || t('dashboard.untitled')}
      </Title>
      <ErrorNote error={shared.error} />
      <Stack gap="sm" data-testid="shared-messages">
        {(shared.data?.messages ?? [])
          .filter((m) => m.role !== 'TOOL')
          .map((m, i) => (
            <Paper key={i} withBorder p="sm" bg={m.role === 'USER' ? 'gray.0' : undefined}>
              <Text size="xs" fw={700} c="dark.6">
                {m.role === 'USER' ? t('chatList.user') : t('chat.assistant')}
              </Text>
              <Text style={{ whiteSpace: 'pre-wrap' }}>{m.content}</Text>
            </Paper>
          ))}
      </Stack>
    </Paper>
  );
}
