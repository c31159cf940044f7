import { Button, Group, MultiSelect, Stack, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { useTags } from './ChatList';

/**
 * Tools for one saved chat: its tags (pick mine or make a new one, `PUT /api/chats/{id}/tags`)
 * and its public link (`POST /api/chats/{id}/share` makes a new one each time, the old one
 * stops working; `DELETE` revokes it).
 */
export function ChatTools({ chatId, tagIds }: { chatId: string; tagIds: string[] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const tags = useTags();
  const [link, setLink] = useState<string | null>(null);
  const share = useQuery({
    queryKey: ['share', chatId],
    queryFn: async () =>
      unwrap(await api.GET('/api/chats/{id}/share', { params: { path: { id: chatId } } })).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['chats'] });
  const setTags = useMutation({
    mutationFn: async (ids: string[]) =>
      unwrap(
        await api.PUT('/api/chats/{id}/tags', {
          params: { path: { id: chatId } },
          body: { tagIds: ids },
        }),
      ),
    onSuccess: async () => {
      await refresh();
      await queryClient.invalidateQueries({ queryKey: ['chat', chatId] });
    },
  });
  const addTag = useMutation({
    mutationFn: async (name: string) =>
      unwrap(await api.POST('/api/tags', { body: { name } })).data,
    onSuccess: async (tag) => {
      await queryClient.invalidateQueries({ queryKey: ['tags'] });
      setTags.mutate([...tagIds, tag.id]);
    },
  });
  const makeLink = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/chats/{id}/share', { params: { path: { id: chatId } } })).data,
    onSuccess: (made) => {
      setLink(made.url);
      void share.refetch();
    },
  });
  const revoke = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/api/chats/{id}/share', { params: { path: { id: chatId } } })),
    onSuccess: () => {
      setLink(null);
      void share.refetch();
    },
  });
  const newTag = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('tag')).trim();
    if (name) addTag.mutate(name);
    e.currentTarget.reset();
  };

  return (
    <Stack gap="xs" mb="md">
      <Group align="end">
        <MultiSelect
          label={t('chatList.chatTags')}
          data={(tags.data ?? []).map((x) => ({ value: x.id, label: x.name }))}
          value={tagIds}
          onChange={(ids) => setTags.mutate(ids)}
          w={260}
        />
        <form onSubmit={newTag}>
          <Group align="end" gap="xs">
            <TextInput name="tag" label={t('chatList.newTag')} maxLength={50} />
            <Button type="submit" variant="outline" loading={addTag.isPending}>
              {t('chatList.addTag')}
            </Button>
          </Group>
        </form>
      </Group>
      <Group align="end">
        <Button variant="outline" onClick={() => makeLink.mutate()} loading={makeLink.isPending}>
          {share.data?.shared ? t('chatList.newLink') : t('chatList.share')}
        </Button>
        {share.data?.shared && (
          <Button variant="subtle" color="red.9" onClick={() => revoke.mutate()}>
            {t('chatList.unshare')}
          </Button>
        )}
        {link && <TextInput readOnly label={t('chatList.link')} value={link} w={420} />}
      </Group>
      <ErrorNote error={setTags.error ?? addTag.error ?? makeLink.error ?? revoke.error} />
    </Stack>
  );
}
