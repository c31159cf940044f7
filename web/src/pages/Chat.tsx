import { Grid, Group, NativeSelect, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { FileUIPart, UIMessage } from 'ai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../components/ErrorNote';
import { Loading } from '../components/Loading';
import { useCredits, useSession } from '../session';
import { ChatList } from './ChatList';
import { ChatParams } from './ChatParams';
import { ChatSession } from './ChatSession';
import { ChatTools } from './ChatTools';
import { useChatSettings } from './useChatSettings';

/** A saved image's name as the user gave it: the stored name without its time and random part. */
const shownName = (stored: string) => stored.replace(/^\d{1,16}-(?:[0-9a-f]{32}-)?/, '');

/** Saved messages as UI messages: text, and the images they were sent with (signed links). */
function toUiMessages(messages: components['schemas']['MessageDto'][]): UIMessage[] {
  return messages
    .filter((m) => m.role !== 'TOOL')
    .map((m) => ({
      id: m.id,
      role: m.role === 'USER' ? 'user' : 'assistant',
      parts: [
        { type: 'text', text: m.content },
        ...(m.attachments ?? []).map((a): FileUIPart => ({
          type: 'file',
          mediaType: a.contentType,
          filename: shownName(a.filename),
          url: a.url,
        })),
      ],
    }));
}

/**
 * `/{locale}/dashboard/chat` (`?id=` continues one of my chats): the model picker
 * (`GET /api/ai/models`), the balance, the conversation (ChatSession); beside it my chats
 * (ChatList), and for a saved chat its tags and public link (ChatTools). Each chat is its own
 * view, so its parameters never carry over to another.
 */
export default function Chat() {
  const [params] = useSearchParams();
  const existing = params.get('id');
  // A new uuid starts a new chat on the first message (the service creates it).
  const [newId] = useState(() => crypto.randomUUID());
  const chatId = existing ?? newId;
  return <ChatView key={chatId} chatId={chatId} existing={existing} />;
}

/**
 * One chat: its model and parameters start from the chat's settings and are saved to it
 * (useChatSettings); a reopened chat shows its messages with their images.
 */
function ChatView({ chatId, existing }: { chatId: string; existing: string | null }) {
  const { t } = useTranslation();
  const credits = useCredits();
  const session = useSession();
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
  const settings = useChatSettings({
    chatId,
    chat: history.data,
    owner: !existing || (!!history.data && history.data.userId === session.data?.id),
    fallbackModel: models.data?.[0]?.id ?? '',
  });

  if (models.isPending || (existing && history.isPending)) return <Loading />;
  const initial = toUiMessages(history.data?.messages ?? []);

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
              value={settings.modelId}
              onChange={(e) => settings.setModelId(e.currentTarget.value)}
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
        <ChatParams value={settings.options} onChange={settings.setOptions} />
        <ErrorNote error={models.error ?? history.error ?? settings.error} />
        {models.data?.length === 0 ? (
          <Text>{t('chat.noModels')}</Text>
        ) : (
          <ChatSession
            chatId={chatId}
            modelId={settings.modelId}
            initial={initial}
            options={settings.options}
            onReply={settings.created}
          />
        )}
      </Grid.Col>
    </Grid>
  );
}
