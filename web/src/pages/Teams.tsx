import {
  Button,
  Card,
  Group,
  NavLink,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { TeamPanel } from './TeamPanel';

/**
 * `/{locale}/dashboard/teams`: my teams (`GET /api/teams`), a new team (`POST /api/teams`), the
 * invitations waiting for me (`GET /api/invitations`; accepted through the mailed link), and
 * the chosen team's members, invitations and shared chats.
 */
export default function Teams() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<string | null>(null);
  const teams = useQuery({
    queryKey: ['teams'],
    queryFn: async () => unwrap(await api.GET('/api/teams')).data,
  });
  const mine = useQuery({
    queryKey: ['invitations', 'mine'],
    queryFn: async () => unwrap(await api.GET('/api/invitations')).data,
  });
  const create = useMutation({
    mutationFn: async (body: { name: string; description?: string }) =>
      unwrap(await api.POST('/api/teams', { body })).data,
    onSuccess: (team) => {
      setChosen(team.id);
      void queryClient.invalidateQueries({ queryKey: ['teams'] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    create.mutate(
      { name: String(new FormData(form).get('name')).trim() },
      { onSuccess: () => form.reset() },
    );
  };
  const team = teams.data?.find((x) => x.id === (chosen ?? teams.data?.[0]?.id));

  return (
    <>
      <Title order={1} mb="md">
        {t('teams.title')}
      </Title>
      <ErrorNote error={teams.error ?? mine.error ?? create.error} />
      <SimpleGrid cols={{ base: 1, md: 3 }} mb="lg">
        <Card withBorder>
          <Title order={2} size="h3" mb="sm">
            {t('teams.mine')}
          </Title>
          {teams.data?.length === 0 && <Text>{t('teams.none')}</Text>}
          <Stack gap={0} component="nav" aria-label={t('teams.mine')}>
            {teams.data?.map((x) => (
              <NavLink
                key={x.id}
                label={x.name}
                description={t(`teams.role.${x.role}`)}
                active={x.id === team?.id}
                aria-current={x.id === team?.id ? 'true' : undefined}
                onClick={() => setChosen(x.id)}
                component="button"
              />
            ))}
          </Stack>
        </Card>
        <Card withBorder>
          <Title order={2} size="h3" mb="sm">
            {t('teams.create')}
          </Title>
          <form onSubmit={submit}>
            <Group align="end">
              <TextInput name="name" label={t('teams.name')} required maxLength={100} />
              <Button type="submit" loading={create.isPending}>
                {t('teams.createButton')}
              </Button>
            </Group>
          </form>
        </Card>
        <Card withBorder>
          <Title order={2} size="h3" mb="sm">
            {t('teams.invitedMe')}
          </Title>
          {mine.data?.length === 0 && <Text>{t('teams.noInvitations')}</Text>}
          {mine.data?.map((inv) => (
            <Text key={inv.id} size="sm">
              {t('teams.invitedTo', {
                team: inv.team.name,
                role: t(`teams.role.${inv.role}`),
                until: new Date(inv.expiresAt).toLocaleDateString(i18n.language),
              })}
            </Text>
          ))}
        </Card>
      </SimpleGrid>
      {team && <TeamPanel key={team.id} team={team} />}
    </>
  );
}
