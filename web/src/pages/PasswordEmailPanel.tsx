import {
  Alert,
  Button,
  Card,
  Checkbox,
  Group,
  PasswordInput,
  SimpleGrid,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * Password change (`POST /api/auth/password`: my other sessions end, this one gets a fresh
 * cookie; optionally my API keys end too) and email change (`POST /api/user/email`: a link to
 * the new address, which moves the account once followed).
 */
export function PasswordEmailPanel() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const password = useMutation({
    mutationFn: async (body: {
      currentPassword: string;
      newPassword: string;
      revokeKeys: boolean;
    }) => unwrap(await api.POST('/api/auth/password', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions'] }),
  });
  const email = useMutation({
    mutationFn: async (body: { newEmail: string; password?: string; totpCode?: string }) => {
      const res = await api.POST('/api/user/email', { body });
      if (!res.response.ok) unwrap(res);
      return body.newEmail;
    },
  });
  const submitPassword = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    password.mutate(
      {
        currentPassword: String(data.get('currentPassword')),
        newPassword: String(data.get('newPassword')),
        revokeKeys: data.get('revokeKeys') === 'on',
      },
      { onSuccess: () => form.reset() },
    );
  };
  const submitEmail = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const code = String(data.get('totpCode') ?? '').trim();
    email.mutate({
      newEmail: String(data.get('newEmail')).trim(),
      password: String(data.get('password')),
      ...(code ? { totpCode: code } : {}),
    });
  };

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} mb="lg">
      <Card withBorder>
        <Title order={2} size="h3" mb="sm">
          {t('account.password')}
        </Title>
        <form onSubmit={submitPassword}>
          <PasswordInput
            name="currentPassword"
            label={t('account.currentPassword')}
            required
            autoComplete="current-password"
          />
          <PasswordInput
            name="newPassword"
            label={t('account.newPassword')}
            description={t('auth.passwordHint')}
            required
            minLength={8}
            autoComplete="new-password"
            mt="xs"
          />
          <Checkbox name="revokeKeys" label={t('account.revokeKeys')} mt="sm" />
          <Button type="submit" mt="sm" loading={password.isPending}>
            {t('account.changePassword')}
          </Button>
        </form>
        <ErrorNote error={password.error} />
        {password.isSuccess && (
          <Alert color="green" role="status" mt="sm">
            {t('account.passwordChanged')}
          </Alert>
        )}
      </Card>
      <Card withBorder>
        <Title order={2} size="h3" mb="sm">
          {t('account.email')}
        </Title>
        <form onSubmit={submitEmail}>
          <TextInput name="newEmail" type="email" label={t('account.newEmail')} required />
          <Group grow mt="xs">
            <PasswordInput
              name="password"
              label={t('auth.password')}
              autoComplete="current-password"
            />
            <TextInput name="totpCode" label={t('account.totpIfOn')} autoComplete="one-time-code" />
          </Group>
          <Button type="submit" mt="sm" loading={email.isPending}>
            {t('account.changeEmail')}
          </Button>
        </form>
        <ErrorNote error={email.error} />
        {email.data && (
          <Alert color="green" role="status" mt="sm">
            {t('account.emailSent', { email: email.data })}
          </Alert>
        )}
      </Card>
    </SimpleGrid>
  );
}
