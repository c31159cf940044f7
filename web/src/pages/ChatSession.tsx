import { useChat } from '@ai-sdk/react';
import { Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorNote } from '../components/ErrorNote';

/** What the service puts in a reply's metadata: the chat, and once settled its cost. */
interface ReplyMetadata {
  chatId?: string;
  cost?: number;
  usage?: { promptTokens?: number; completionTokens?: number };
}

/** Text of a UI message: its text parts joined. */
const textOf = (m: UIMessage) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/**
 * One conversation streamed from `POST /api/ai/chat` (the AI SDK's UI message stream) with
 * `useChat`, the session cookie going along (same origin). Each reply shows its cost from the
 * `finish` metadata; when a reply ends the balance and chat lists are read again. Stop aborts
 * the reply (the service charges what was produced).
 */
export function ChatSession(props: { chatId: string; modelId: string; initial: UIMessage[] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [input, setInput] = useState('');
  const { messages, sendMessage, status, stop, error } = useChat<UIMessage<ReplyMetadata>>({
    id: props.chatId,
    messages: props.initial as UIMessage<ReplyMetadata>[],
    transport: new DefaultChatTransport({ api: '/api/ai/chat', credentials: 'same-origin' }),
    onFinish: () => {
      void queryClient.invalidateQueries({ queryKey: ['credits'] });
      void queryClient.invalidateQueries({ queryKey: ['chats'] });
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
    },
  });
  const busy = status === 'submitted' || status === 'streaming';

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setInput('');
    void sendMessage({ text }, { body: { modelId: props.modelId } });
  };

  return (
    <Stack>
      <Stack role="log" aria-live="polite" gap="sm">
        {messages.length === 0 && <Text c="dark.6">{t('chat.empty')}</Text>}
        {messages.map((m) => (
          <Paper
            key={m.id}
            withBorder
            p="sm"
            bg={m.role === 'user' ? 'gray.0' : undefined}
            data-testid={`message-${m.role}`}
          >
            <Text size="xs" fw={700} c="dark.6">
              {m.role === 'user' ? t('chat.you') : t('chat.assistant')}
            </Text>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{textOf(m)}</Text>
            {m.role === 'assistant' && m.metadata?.cost !== undefined && (
              <Text size="xs" c="dark.6" data-testid="cost">
                {t('chat.cost', { count: m.metadata.cost })}
              </Text>
            )}
          </Paper>
        ))}
      </Stack>
      <ErrorNote error={error} />
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Textarea
            label={t('chat.message')}
            placeholder={t('chat.placeholder')}
            value={input}
            onChange={(e) => setInput(e.currentTarget.value)}
            autosize
            minRows={2}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <Group>
            <Button type="submit" disabled={busy || !props.modelId}>
              {t('chat.send')}
            </Button>
            {busy && (
              <Button variant="outline" color="red.9" onClick={() => void stop()}>
                {t('chat.stop')}
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
