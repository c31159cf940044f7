import { Alert, Anchor, Button, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * `/{locale}/auth/forgot-password`: asks for a reset link (`POST /api/auth/password/forgot`).
 * The service answers the same for every address, so the page says only that a link goes out
 * when the address has an account; the link opens `/{locale}/auth/reset-password`.
 */
export function ForgotPassword() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const forgot = useMutation({
    mutationFn: async (email: string) =>
      unwrap(await api.POST('/api/auth/password/forgot', { body: { email } })),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    forgot.mutate(String(new FormData(e.currentTarget).get('email')).trim());
  };

  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t('reset.forgotTitle')}
      </Title>
      {forgot.isSuccess ? (
        <Alert color="green" role="status" mb="md">
          {t('reset.sent', { email: forgot.variables })}
        </Alert>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <Text>{t('reset.forgotExplain')}</Text>
            <TextInput
              name="email"
              type="email"
              label={t('auth.email')}
              autoComplete="email"
              required
            />
            <ErrorNote error={forgot.error} />
            <Button type="submit" loading={forgot.isPending}>
              {t('reset.send')}
            </Button>
          </Stack>
        </form>
      )}
      <Text size="sm" mt="md">
        <Anchor component={Link} to={`/${locale}/auth/signin`} c="indigo.9">
          {t('reset.backToSignIn')}
        </Anchor>
      </Text>
    </Paper>
  );
}
