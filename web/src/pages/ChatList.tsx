import { Anchor, Badge, Group, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { BookmarkList } from './ChatBookmarks';

/** My tags (`GET /api/tags`), shared by the list's filter and the chat's tag editor. */
export function useTags() {
  return useQuery({
    queryKey: ['tags'],
    queryFn: async () => unwrap(await api.GET('/api/tags')).data,
  });
}

/**
 * The chat page's side list: my chats, newest first, filtered by one of my tags
 * (`GET /api/chats?tag=`), each with its tags; and a search over my messages
 * (`GET /api/search`, keyword mode) whose results open their chat.
 */
export function ChatList() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const [tag, setTag] = useState('');
  const [query, setQuery] = useState('');
  const tags = useTags();
  const chats = useQuery({
    queryKey: ['chats', 'list', tag],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/chats', {
          params: { query: { limit: 50, ...(tag ? { tag: [tag] } : {}) } },
        }),
      ).data,
  });
  const found = useQuery({
    queryKey: ['search', query],
    enabled: query !== '',
    queryFn: async () =>
      unwrap(await api.GET('/api/search', { params: { query: { q: query, mode: 'keyword' } } }))
        .data,
  });
  const search = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setQuery(String(new FormData(e.currentTarget).get('q')).trim());
  };
  const open = (id: string) => `/${locale}/dashboard/chat?id=${id}`;

  return (
    <Stack gap="sm" component="nav" aria-label={t('chatList.title')}>
      <Title order={2} size="h4">
        {t('chatList.title')}
      </Title>
      <form onSubmit={search} role="search">
        <TextInput name="q" type="search" label={t('chatList.search')} />
      </form>
      {query && (
        <section aria-label={t('chatList.results')}>
          <Text size="sm" fw={700}>
            {t('chatList.results')}
          </Text>
          {found.data?.length === 0 && <Text size="sm">{t('chatList.noResults')}</Text>}
          <Stack gap={4} data-testid="search-results">
            {(found.data ?? []).map((r) => (
              <Anchor
                key={r.message.id}
                component={Link}
                to={open(r.chat.id)}
                c="indigo.9"
                size="sm"
              >
                {r.chat.title || t('dashboard.untitled')}: {r.snippet}
              </Anchor>
            ))}
          </Stack>
        </section>
      )}
      <NativeSelect
        label={t('chatList.tag')}
        value={tag}
        onChange={(e) => setTag(e.currentTarget.value)}
        data={[
          { value: '', label: t('chatList.allTags') },
          ...(tags.data ?? []).map((x) => ({ value: x.id, label: x.name })),
        ]}
      />
      <ErrorNote error={chats.error ?? found.error ?? tags.error} />
      <Stack gap={6} data-testid="chat-list">
        {chats.data?.length === 0 && <Text size="sm">{t('dashboard.noChats')}</Text>}
        {(chats.data ?? []).map((c) => (
          <Group key={c.id} gap={4} wrap="wrap">
            <Anchor component={Link} to={open(c.id)} c="indigo.9" size="sm">
              {c.title || t('dashboard.untitled')}
            </Anchor>
            {c.tags.map((x) => (
              <Badge key={x.id} size="xs" variant="outline" color="dark">
                {x.name}
              </Badge>
            ))}
          </Group>
        ))}
      </Stack>
      <BookmarkList />
    </Stack>
  );
}
