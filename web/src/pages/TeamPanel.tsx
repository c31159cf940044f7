import {
  Alert,
  Anchor,
  Button,
  Card,
  Code,
  Group,
  Select,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../components/ErrorNote';
import { useSession } from '../session';
import { TeamPool } from './TeamPool';

type Team = components['schemas']['TeamDto'];
type Role = Team['role'];
const ROLES: Role[] = ['OWNER', 'ADMIN', 'MEMBER'];

/**
 * One team: its members with their roles (owners and admins change roles and remove members),
 * its credit pool (TeamPool), its pending invitations (invite by email, the link shown once; revoke) and the chats shared
 * with it (`GET /api/teams/{id}/chats`).
 */
export function TeamPanel({ team }: { team: Team }) {
  const { t } = useTranslation();
  const { locale } = useParams();
  const me = useSession().data;
  const queryClient = useQueryClient();
  const [inviteRole, setInviteRole] = useState<Role>('MEMBER');
  const manages = team.role !== 'MEMBER';
  const id = { id: team.id };
  const members = useQuery({
    queryKey: ['team', team.id, 'members'],
    queryFn: async () =>
      unwrap(await api.GET('/api/teams/{id}/members', { params: { path: id } })).data,
  });
  const invitations = useQuery({
    queryKey: ['team', team.id, 'invitations'],
    enabled: manages,
    queryFn: async () =>
      unwrap(await api.GET('/api/teams/{id}/invitations', { params: { path: id } })).data,
  });
  const chats = useQuery({
    queryKey: ['team', team.id, 'chats'],
    queryFn: async () =>
      unwrap(await api.GET('/api/teams/{id}/chats', { params: { path: id } })).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['team', team.id] });
  const changeRole = useMutation({
    mutationFn: async ({ userId, role }: { userId: string; role: Role }) =>
      unwrap(
        await api.PATCH('/api/teams/{id}/members/{userId}', {
          params: { path: { ...id, userId } },
          body: { role },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async (userId: string) =>
      unwrap(
        await api.DELETE('/api/teams/{id}/members/{userId}', {
          params: { path: { ...id, userId } },
        }),
      ),
    onSuccess: refresh,
  });
  const invite = useMutation({
    mutationFn: async (email: string) =>
      unwrap(
        await api.POST('/api/teams/{id}/invitations', {
          params: { path: id },
          body: { email, role: inviteRole },
        }),
      ).data,
    onSuccess: refresh,
  });
  const revoke = useMutation({
    mutationFn: async (invitationId: string) =>
      unwrap(
        await api.DELETE('/api/teams/{id}/invitations/{invitationId}', {
          params: { path: { ...id, invitationId } },
        }),
      ),
    onSuccess: refresh,
  });
  const submitInvite = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    invite.mutate(String(new FormData(form).get('email')).trim(), {
      onSuccess: () => form.reset(),
    });
  };

  return (
    <Card withBorder>
      <Title order={2} size="h3" mb="sm">
        {team.name}
      </Title>
      <ErrorNote
        error={
          members.error ??
          invitations.error ??
          chats.error ??
          changeRole.error ??
          remove.error ??
          invite.error ??
          revoke.error
        }
      />
      <Title order={3} size="h4" mb="xs">
        {t('teams.members')}
      </Title>
      <Table mb="md">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('auth.email')}</Table.Th>
            <Table.Th>{t('teams.roleLabel')}</Table.Th>
            {manages && <Table.Th>{t('teams.remove')}</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {members.data?.map((m) => (
            <Table.Tr key={m.id}>
              <Table.Td>{m.name ? `${m.name} <${m.email}>` : m.email}</Table.Td>
              <Table.Td>
                {manages && m.id !== me?.id ? (
                  <Select
                    aria-label={t('teams.roleOf', { email: m.email })}
                    data={ROLES.map((r) => ({ value: r, label: t(`teams.role.${r}`) }))}
                    value={m.role}
                    allowDeselect={false}
                    onChange={(role) =>
                      role && changeRole.mutate({ userId: m.id, role: role as Role })
                    }
                    w={160}
                  />
                ) : (
                  t(`teams.role.${m.role}`)
                )}
              </Table.Td>
              {manages && (
                <Table.Td>
                  {m.id !== me?.id && (
                    <Button
                      size="xs"
                      variant="outline"
                      color="red.9"
                      aria-label={t('teams.removeMember', { email: m.email })}
                      onClick={() => remove.mutate(m.id)}
                    >
                      {t('teams.remove')}
                    </Button>
                  )}
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <TeamPool team={team} members={members.data} />
      {manages && (
        <>
          <Title order={3} size="h4" mb="xs">
            {t('teams.invitations')}
          </Title>
          <form onSubmit={submitInvite}>
            <Group align="end" mb="sm">
              <TextInput name="email" type="email" label={t('auth.email')} required />
              <Select
                label={t('teams.roleLabel')}
                data={ROLES.filter((r) => r !== 'OWNER').map((r) => ({
                  value: r,
                  label: t(`teams.role.${r}`),
                }))}
                value={inviteRole}
                allowDeselect={false}
                onChange={(r) => r && setInviteRole(r as Role)}
              />
              <Button type="submit" loading={invite.isPending}>
                {t('teams.invite')}
              </Button>
            </Group>
          </form>
          {invite.data && (
            <Alert
              color="green"
              role="status"
              mb="sm"
              title={t('teams.invited', { email: invite.data.email })}
            >
              <Text size="sm">{t('teams.linkOnce')}</Text>
              <Code block>{invite.data.acceptUrl}</Code>
            </Alert>
          )}
          {invitations.data?.map((inv) => (
            <Group key={inv.id} justify="space-between" mb={4}>
              <Text size="sm">
                {inv.email} · {t(`teams.role.${inv.role}`)} · {t(`teams.status.${inv.status}`)}
              </Text>
              <Button
                size="xs"
                variant="outline"
                aria-label={t('teams.revokeInvitation', { email: inv.email })}
                onClick={() => revoke.mutate(inv.id)}
              >
                {t('teams.revoke')}
              </Button>
            </Group>
          ))}
        </>
      )}
      <Title order={3} size="h4" my="xs">
        {t('teams.chats')}
      </Title>
      {chats.data?.length === 0 && <Text size="sm">{t('teams.noChats')}</Text>}
      {chats.data?.map((chat) => (
        <div key={chat.id}>
          <Anchor component={Link} to={`/${locale}/dashboard/chat?id=${chat.id}`} c="indigo.9">
            {chat.title || t('dashboard.untitled')}
          </Anchor>
        </div>
      ))}
    </Card>
  );
}
