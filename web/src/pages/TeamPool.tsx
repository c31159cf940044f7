import { Button, Group, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../components/ErrorNote';

type Team = components['schemas']['TeamDto'];
type Member = components['schemas']['TeamMemberDto'];

/**
 * A team's credit pool: its balance and what running calls hold, my own use of it
 * (`GET /api/teams/{id}/credits`); for OWNERs and ADMINs, a transfer from my balance into it
 * (`POST …/credits/transfers`) and every member's use (`GET …/credits/usage`).
 */
export function TeamPool({ team, members }: { team: Team; members: Member[] | undefined }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const number = new Intl.NumberFormat(i18n.language);
  const manages = team.role !== 'MEMBER';
  const path = { path: { id: team.id } };
  const pool = useQuery({
    queryKey: ['team', team.id, 'pool'],
    queryFn: async () => unwrap(await api.GET('/api/teams/{id}/credits', { params: path })).data,
  });
  const usage = useQuery({
    queryKey: ['team', team.id, 'pool', 'usage'],
    enabled: manages,
    queryFn: async () =>
      unwrap(await api.GET('/api/teams/{id}/credits/usage', { params: path })).data,
  });
  const transfer = useMutation({
    mutationFn: async (amount: number) =>
      unwrap(
        await api.POST('/api/teams/{id}/credits/transfers', { params: path, body: { amount } }),
      ).data,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['team', team.id, 'pool'] });
      void queryClient.invalidateQueries({ queryKey: ['credits'] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    transfer.mutate(Number(new FormData(form).get('amount')), { onSuccess: () => form.reset() });
  };
  const emailOf = (userId: string) => members?.find((m) => m.id === userId)?.email ?? userId;
  const rows = manages ? usage.data?.members : pool.data && [pool.data.mine];

  return (
    <>
      <Title order={3} size="h4" my="xs">
        {t('teams.pool.title')}
      </Title>
      <ErrorNote error={pool.error ?? usage.error ?? transfer.error} />
      {pool.data && (
        <Text data-testid="pool-balance" mb="xs">
          {t('teams.pool.balance', {
            credits: number.format(pool.data.credits),
            held: number.format(pool.data.held),
          })}
        </Text>
      )}
      {manages && (
        <form onSubmit={submit}>
          <Group align="end" mb="sm">
            <TextInput
              name="amount"
              type="number"
              min={1}
              required
              label={t('teams.pool.amount')}
            />
            <Button type="submit" loading={transfer.isPending}>
              {t('teams.pool.transfer')}
            </Button>
          </Group>
        </form>
      )}
      <Table mb="md">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('auth.email')}</Table.Th>
            <Table.Th>{t('teams.pool.spent')}</Table.Th>
            <Table.Th>{t('teams.pool.calls')}</Table.Th>
            <Table.Th>{t('teams.pool.funded')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows?.map((m) => (
            <Table.Tr key={m.userId}>
              <Table.Td>{emailOf(m.userId)}</Table.Td>
              <Table.Td>{number.format(m.spent)}</Table.Td>
              <Table.Td>{number.format(m.calls)}</Table.Td>
              <Table.Td>{number.format(m.funded)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}
