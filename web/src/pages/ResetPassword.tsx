import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Paper,
  PasswordInput,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * `/{locale}/auth/reset-password?token=…`, the mailed reset link: a new password (and whether
 * the API keys end too) posted with the token (`POST /api/auth/password/reset`), never on load.
 * Every earlier session ends, so the page then leads to sign-in.
 */
export function ResetPassword() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const queryClient = useQueryClient();
  const reset = useMutation({
    mutationFn: async (body: { password: string; revokeKeys: boolean }) =>
      unwrap(await api.POST('/api/auth/password/reset', { body: { token, ...body } })),
    onSuccess: () => queryClient.resetQueries({ queryKey: ['session'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    reset.mutate({
      password: String(form.get('password')),
      revokeKeys: form.get('revokeKeys') === 'on',
    });
  };

  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t('reset.resetTitle')}
      </Title>
      {!token ? (
        <Alert color="red" role="alert">
          {t('auth.verifyMissing')}
        </Alert>
      ) : reset.isSuccess ? (
        <>
          <Alert color="green" role="status" mb="md">
            {t('reset.done')}
          </Alert>
          <Button component={Link} to={`/${locale}/auth/signin`}>
            {t('app.signIn')}
          </Button>
        </>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <PasswordInput
              name="password"
              label={t('reset.newPassword')}
              description={t('auth.passwordHint')}
              autoComplete="new-password"
              minLength={8}
              required
            />
            <Checkbox name="revokeKeys" label={t('reset.revokeKeys')} defaultChecked />
            <ErrorNote error={reset.error} />
            <Button type="submit" loading={reset.isPending}>
              {t('reset.submit')}
            </Button>
            <Text size="sm">
              <Anchor component={Link} to={`/${locale}/auth/forgot-password`} c="indigo.9">
                {t('reset.newLink')}
              </Anchor>
            </Text>
          </Stack>
        </form>
      )}
    </Paper>
  );
}
