import { Anchor, Badge, Button, Card, Group, Table, Text, TextInput, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';

/**
 * `/{locale}/admin/users`: every user, newest first, or those whose email or name holds the
 * search (`GET /api/users?q=`), a page at a time; each opens its admin page.
 */
export default function AdminUsers() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const [q, setQ] = useState('');
  const users = useInfiniteQuery({
    queryKey: ['admin', 'users', q],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/users', {
          params: {
            query: { limit: 50, ...(q ? { q } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setQ(String(new FormData(e.currentTarget).get('q') ?? '').trim());
  };
  const rows = users.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.users.title')}
      </Title>
      <form onSubmit={submit} role="search">
        <Group align="end" mb="md">
          <TextInput name="q" label={t('admin.users.search')} maxLength={100} w={320} />
          <Button type="submit">{t('admin.users.find')}</Button>
        </Group>
      </form>
      <ErrorNote error={users.error} />
      <Card withBorder>
        {users.isSuccess && rows.length === 0 && <Text>{t('admin.users.none')}</Text>}
        {rows.length > 0 && (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('auth.email')}</Table.Th>
                <Table.Th>{t('auth.name')}</Table.Th>
                <Table.Th>{t('admin.users.role')}</Table.Th>
                <Table.Th>{t('dashboard.plan')}</Table.Th>
                <Table.Th>{t('dashboard.balance')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((u) => (
                <Table.Tr key={u.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/${locale}/admin/users/${u.id}`} c="indigo.9">
                      {u.email}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{u.name}</Table.Td>
                  <Table.Td>
                    <Badge color={u.role === 'ADMIN' ? 'red.9' : 'gray.8'}>{u.role}</Badge>
                  </Table.Td>
                  <Table.Td>{u.plan}</Table.Td>
                  <Table.Td>{u.credits}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {users.hasNextPage && (
          <Button mt="sm" variant="outline" onClick={() => void users.fetchNextPage()}>
            {t('admin.more')}
          </Button>
        )}
      </Card>
    </>
  );
}
