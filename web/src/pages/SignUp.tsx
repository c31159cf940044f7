import {
  Alert,
  Anchor,
  Button,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * `/{locale}/auth/signup`: `POST /api/auth/signup` (signs in at once, cookie set); the page
 * then says a verification mail was sent (its link opens `/{locale}/auth/verify-email`). A
 * referral link's `?ref=` code goes with the sign-up (`/{locale}/signup?ref=…` opens this page).
 */
export function SignUp() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const queryClient = useQueryClient();
  const [search] = useSearchParams();
  const referralCode = search.get('ref')?.trim().slice(0, 64) || undefined;
  const signup = useMutation({
    mutationFn: async (body: {
      email: string;
      password: string;
      name?: string;
      referralCode?: string;
    }) => unwrap(await api.POST('/api/auth/signup', { body })),
    onSuccess: () => queryClient.resetQueries({ queryKey: ['session'] }),
  });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    signup.mutate({
      email: String(form.get('email')),
      password: String(form.get('password')),
      ...(name ? { name } : {}),
      ...(referralCode ? { referralCode } : {}),
    });
  };

  if (signup.data) {
    return (
      <Paper withBorder p="lg">
        <Title order={1} size="h2" mb="md">
          {t('auth.signUpTitle')}
        </Title>
        <Alert color="green" role="status" mb="md">
          {t('auth.signedUp', { email: signup.data.user.email })}
        </Alert>
        <Button component={Link} to={`/${locale}/dashboard`}>
          {t('auth.continue')}
        </Button>
      </Paper>
    );
  }
  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t('auth.signUpTitle')}
      </Title>
      <form onSubmit={submit}>
        <Stack>
          <TextInput name="name" label={t('auth.name')} autoComplete="name" maxLength={100} />
          <TextInput
            name="email"
            type="email"
            label={t('auth.email')}
            autoComplete="email"
            required
          />
          <PasswordInput
            name="password"
            label={t('auth.password')}
            description={t('auth.passwordHint')}
            autoComplete="new-password"
            minLength={8}
            required
          />
          <ErrorNote error={signup.error} />
          <Button type="submit" loading={signup.isPending}>
            {t('auth.submitSignUp')}
          </Button>
          <Text size="sm">
            {t('auth.haveAccount')}{' '}
            <Anchor component={Link} to={`/${locale}/auth/signin`} c="indigo.9">
              {t('app.signIn')}
            </Anchor>
          </Text>
        </Stack>
      </form>
    </Paper>
  );
}
