import { Grid, Group, NativeSelect, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { UIMessage } from 'ai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { Loading } from '../components/Loading';
import { useCredits } from '../session';
import { ChatList } from './ChatList';
import { ChatParams, type ChatOptions } from './ChatParams';
import { ChatSession } from './ChatSession';
import { ChatTools } from './ChatTools';

/**
 * `/{locale}/dashboard/chat` (`?id=` continues one of my chats): the model picker
 * (`GET /api/ai/models`), the balance, the conversation (ChatSession); beside it my chats
 * (ChatList), and for a saved chat its tags and public link (ChatTools).
 */
export default function Chat() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const existing = params.get('id');
  // A new uuid starts a new chat on the first message (the service creates it).
  const [newId] = useState(() => crypto.randomUUID());
  const chatId = existing ?? newId;
  const [modelId, setModelId] = useState<string | null>(null);
  const [options, setOptions] = useState<ChatOptions>({});
  const credits = useCredits();
  const models = useQuery({
    queryKey: ['models'],
    queryFn: async () => unwrap(await api.GET('/api/ai/models')).models,
  });
  const history = useQuery({
    queryKey: ['chat', existing],
    enabled: !!existing,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/chats/{id}', {
          params: { path: { id: existing! }, query: { messages: 100 } },
        }),
      ).data,
  });

  const chosen = modelId ?? models.data?.[0]?.id ?? '';
  if (models.isPending || (existing && history.isPending)) return <Loading />;
  const initial: UIMessage[] = (history.data?.messages ?? [])
    .filter((m) => m.role !== 'TOOL')
    .map((m) => ({
      id: m.id,
      role: m.role === 'USER' ? 'user' : 'assistant',
      parts: [{ type: 'text', text: m.content }],
    }));

  return (
    <Grid>
      <Grid.Col span={{ base: 12, md: 3 }}>
        <ChatList />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 9 }}>
        <Group justify="space-between" align="end" mb="md">
          <Title order={1}>{history.data?.title || t('chat.title')}</Title>
          <Group align="end">
            <NativeSelect
              label={t('chat.model')}
              value={chosen}
              onChange={(e) => setModelId(e.currentTarget.value)}
              data={(models.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
            />
            <Text fw={700} data-testid="chat-balance" aria-live="polite">
              {credits.data ? t('chat.balance', { count: credits.data.balance }) : ''}
            </Text>
          </Group>
        </Group>
        {existing && history.data && (
          <ChatTools chatId={existing} tagIds={history.data.tags.map((x) => x.id)} />
        )}
        <ChatParams value={options} onChange={setOptions} />
        <ErrorNote error={models.error ?? history.error} />
        {models.data?.length === 0 ? (
          <Text>{t('chat.noModels')}</Text>
        ) : (
          <ChatSession
            key={chatId}
            chatId={chatId}
            modelId={chosen}
            initial={initial}
            options={options}
          />
        )}
      </Grid.Col>
    </Grid>
  );
}
