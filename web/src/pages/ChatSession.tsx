import { useChat } from '@ai-sdk/react';
import { Button, FileInput, Group, Image, Paper, Stack, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { DefaultChatTransport, type FileUIPart, type UIMessage } from 'ai';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
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

/**
 * Uploads the images (`POST /api/upload`) and returns them as the AI SDK's file parts holding
 * their signed links: the service reads an upload's link as that image and saves it with the
 * message, so the chat shows it again when reopened.
 */
async function uploaded(files: File[]): Promise<FileUIPart[]> {
  return Promise.all(
    files.map(async (file) => {
      const { data } = unwrap(
        await api.POST('/api/upload', {
          body: { file: file as unknown as string },
          bodySerializer: (body) => {
            const form = new FormData();
            form.append('file', body.file as unknown as File);
            return form;
          },
        }),
      );
      return { type: 'file' as const, mediaType: file.type, filename: file.name, url: data.url };
    }),
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
  /** Called when a reply has ended, stopped or not (the chat exists from then on). */
  onReply?: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [input, setInput] = useState('');
  const [images, setImages] = useState<File[]>([]);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const [uploading, setUploading] = useState(false);
  const { messages, sendMessage, status, stop, error } = useChat<UIMessage<ReplyMetadata>>({
    id: props.chatId,
    messages: props.initial as UIMessage<ReplyMetadata>[],
    transport: new DefaultChatTransport({ api: '/api/ai/chat', credentials: 'same-origin' }),
    onFinish: ({ isError }) => {
      void queryClient.invalidateQueries({ queryKey: ['credits'] });
      void queryClient.invalidateQueries({ queryKey: ['chats'] });
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
      if (!isError) props.onReply?.();
    },
  });
  const busy = uploading || status === 'submitted' || status === 'streaming';

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setUploadError(null);
    let files: FileUIPart[] | undefined;
    setUploading(true);
    try {
      files = images.length ? await uploaded(images) : undefined;
    } catch (failure) {
      // Nothing is sent: the text and the images stay for another try.
      setUploadError(failure);
      return;
    } finally {
      setUploading(false);
    }
    setInput('');
    setImages([]);
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
      <ErrorNote error={error ?? uploadError} />
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
            {(status === 'submitted' || status === 'streaming') && (
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
