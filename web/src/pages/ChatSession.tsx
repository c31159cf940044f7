import { useChat } from '@ai-sdk/react';
import { Button, FileInput, Group, Image, Paper, Stack, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { DefaultChatTransport, type FileUIPart, type UIMessage } from 'ai';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorNote } from '../components/ErrorNote';
import { BookmarkButton } from './ChatBookmarks';
import type { ChatOptions } from './ChatParams';

/** What the service puts in a reply's metadata: the chat, and once settled its cost. */
interface ReplyMetadata {
  chatId?: string;
  cost?: number;
  usage?: { promptTokens?: number; completionTokens?: number };
}

/** Text of a UI message: its text parts joined. */
const textOf = (m: UIMessage) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/** Files as the AI SDK's file parts, each a data URL. */
async function filesOf(files: File[]): Promise<FileUIPart[]> {
  const read = (f: File) =>
    new Promise<string>((done, fail) => {
      const reader = new FileReader();
      reader.onload = () => done(String(reader.result));
      reader.onerror = () => fail(reader.error);
      reader.readAsDataURL(f);
    });
  return Promise.all(
    files.map(async (f) => ({
      type: 'file',
      mediaType: f.type,
      filename: f.name,
      url: await read(f),
    })),
  );
}

/**
 * One conversation streamed from `POST /api/ai/chat` (the AI SDK's UI message stream) with
 * `useChat`, the session cookie going along (same origin). Each reply shows its cost from the
 * `finish` metadata; when a reply ends the balance and chat lists are read again. Stop aborts
 * the reply (the service charges what was produced).
 */
export function ChatSession(props: {
  chatId: string;
  modelId: string;
  initial: UIMessage[];
  options?: ChatOptions;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [input, setInput] = useState('');
  const [images, setImages] = useState<File[]>([]);
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

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setInput('');
    setImages([]);
    // Images go as file parts (data URLs), which the service reads as the user's images.
    const files = images.length ? await filesOf(images) : undefined;
    void sendMessage({ text, files }, { body: { modelId: props.modelId, ...props.options } });
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
            <Group justify="space-between">
              <Text size="xs" fw={700} c="dark.6">
                {m.role === 'user' ? t('chat.you') : t('chat.assistant')}
              </Text>
              <BookmarkButton messageId={m.id} />
            </Group>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{textOf(m)}</Text>
            {m.parts.map((p, i) =>
              p.type === 'file' && p.mediaType.startsWith('image/') ? (
                <Image key={i} src={p.url} alt={p.filename ?? t('chat.image')} maw={160} mt={4} />
              ) : null,
            )}
            {m.role === 'assistant' && m.metadata?.cost !== undefined && (
              <Text size="xs" c="dark.6" data-testid="cost">
                {t('chat.cost', { count: m.metadata.cost })}
              </Text>
            )}
          </Paper>
        ))}
      </Stack>
      <ErrorNote error={error} />
      <form onSubmit={(e) => void submit(e)}>
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
          <FileInput
            label={t('chat.images')}
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            clearable
            value={images}
            onChange={setImages}
            w={320}
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
