import { Anchor, Button, CloseButton, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** My bookmarks (`GET /api/bookmarks`). */
function useBookmarks() {
  return useQuery({
    queryKey: ['bookmarks'],
    queryFn: async () =>
      unwrap(await api.GET('/api/bookmarks', { params: { query: { limit: 50 } } })).data,
  });
}

/**
 * Bookmarks a saved message (`POST /api/bookmarks`; again is the same bookmark). Only a message
 * the service has saved has a uuid: a reply still on screen from this visit has none yet.
 */
export function BookmarkButton({ messageId }: { messageId: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const bookmarks = useBookmarks();
  const add = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/bookmarks', { body: { messageId } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['bookmarks'] }),
  });
  if (!UUID.test(messageId)) return null;
  const marked = bookmarks.data?.some((b) => b.message.id === messageId);
  return (
    <Button
      size="compact-xs"
      variant="default"
      disabled={marked}
      loading={add.isPending}
      onClick={() => add.mutate()}
    >
      {marked ? t('bookmarks.marked') : t('bookmarks.add')}
    </Button>
  );
}

/** The side list of my bookmarks, each opening its chat, each removable (`DELETE`). */
export function BookmarkList() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const queryClient = useQueryClient();
  const bookmarks = useBookmarks();
  const remove = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/bookmarks/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['bookmarks'] }),
  });
  return (
    <Stack gap={4} data-testid="bookmark-list">
      <Title order={2} size="h4">
        {t('bookmarks.title')}
      </Title>
      <ErrorNote error={bookmarks.error ?? remove.error} />
      {bookmarks.data?.length === 0 && <Text size="sm">{t('bookmarks.none')}</Text>}
      {(bookmarks.data ?? []).map((b) => (
        <Group key={b.id} gap={4} wrap="nowrap" align="start">
          <Anchor
            component={Link}
            to={`/${locale}/dashboard/chat?id=${b.chat.id}`}
            c="indigo.9"
            size="sm"
          >
            {b.message.excerpt}
          </Anchor>
          <CloseButton
            size="sm"
            aria-label={t('bookmarks.remove')}
            onClick={() => remove.mutate(b.id)}
          />
        </Group>
      ))}
    </Stack>
  );
}
