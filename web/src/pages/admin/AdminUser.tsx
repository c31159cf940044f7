import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNote } from '../../components/ErrorNote';
import { Loading } from '../../components/Loading';
import { AuditTable } from './AuditTable';

type Update = components['schemas']['UpdateUserDto'];

/**
 * `/{locale}/admin/users/{id}`: one user (`GET /api/users/{id}`); adjust the balance with a
 * reason, change plan and role (`PUT /api/users/{id}`, an ADJUSTMENT entry for credits), end
 * every session (`DELETE /api/users/{id}/sessions`), turn two-factor off
 * (`DELETE /api/users/{id}/2fa`); the audit events about the user.
 */
export default function AdminUser() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const [done, setDone] = useState('');
  const path = { params: { path: { id } } };
  const user = useQuery({
    queryKey: ['admin', 'user', id],
    queryFn: async () => unwrap(await api.GET('/api/users/{id}', path)).data,
  });
  const after = (message: string) => () => {
    setDone(message);
    void queryClient.invalidateQueries({ queryKey: ['admin'] });
  };
  const update = useMutation({
    mutationFn: async (body: Update) => unwrap(await api.PUT('/api/users/{id}', { ...path, body })),
    onSuccess: after(t('admin.user.saved')),
  });
  const endSessions = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/users/{id}/sessions', path)).data,
    onSuccess: (d) => after(t('admin.user.sessionsEnded', { count: d.ended }))(),
  });
  const reset2fa = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/users/{id}/2fa', path)),
    onSuccess: after(t('admin.user.twoFactorReset')),
  });
  if (!user.data) return user.error ? <ErrorNote error={user.error} /> : <Loading />;
  const u = user.data;

  const adjust = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const change = Number(form.get('change'));
    const reason = String(form.get('reason')).trim();
    update.mutate({ credits: Math.max(0, u.credits + change), reason });
  };

  return (
    <>
      <Title order={1} mb="md">
        {u.email}
      </Title>
      <ErrorNote error={update.error ?? endSessions.error ?? reset2fa.error} />
      {done && (
        <Alert color="green" role="status" mb="sm">
          {done}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }} mb="lg">
        <Card withBorder>
          <Text size="sm" c="dark.6">
            {t('dashboard.balance')}
          </Text>
          <Text size="xl" fw={700} data-testid="user-credits">
            {t('dashboard.credits', { count: u.credits })}
          </Text>
          <form onSubmit={adjust}>
            <NumberInput
              name="change"
              label={t('admin.user.change')}
              description={t('admin.user.changeHint')}
              required
              allowDecimal={false}
              mt="sm"
            />
            <TextInput
              name="reason"
              label={t('admin.user.reason')}
              required
              maxLength={200}
              mt="xs"
            />
            <Button type="submit" mt="sm" loading={update.isPending}>
              {t('admin.user.adjust')}
            </Button>
          </form>
        </Card>
        <Card withBorder>
          <Group grow align="end">
            <Select
              label={t('dashboard.plan')}
              data={['FREE', 'BASIC', 'PRO']}
              value={u.plan}
              allowDeselect={false}
              onChange={(plan) => plan && update.mutate({ plan: plan as Update['plan'] })}
            />
            <Select
              label={t('admin.users.role')}
              data={['USER', 'ADMIN']}
              value={u.role}
              allowDeselect={false}
              onChange={(role) => role && update.mutate({ role: role as Update['role'] })}
            />
          </Group>
          <Text size="sm" mt="md">
            {u.emailVerified ? t('admin.user.verified') : t('admin.user.unverified')}
          </Text>
          <Group mt="md">
            <Button variant="outline" color="red.9" onClick={() => endSessions.mutate()}>
              {t('admin.user.endSessions')}
            </Button>
            <Button variant="outline" color="red.9" onClick={() => reset2fa.mutate()}>
              {t('admin.user.reset2fa')}
            </Button>
          </Group>
        </Card>
      </SimpleGrid>
      <Card withBorder>
        <Title order={2} size="h3" mb="sm">
          {t('admin.user.history')}
        </Title>
        <AuditTable filter={{ targetType: 'user', targetId: id }} />
      </Card>
    </>
  );
}
