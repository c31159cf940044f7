import { Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { Loading } from '../components/Loading';
import { useSession } from '../session';

/** Only a path of this site (`/en/...`), never `//host` or a full URL, is a way back. */
export function safeCallback(value: string | null, fallback: string): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.includes('\\')
    ? value
    : fallback;
}

/**
 * `/{locale}/auth/signin` (and `/{locale}`, where a signed-in visitor goes on to the dashboard):
 * email and password (`POST /api/auth/login`, which sets the session cookie); when the answer
 * asks for a second factor, a code step (`POST /api/auth/2fa/verify`). Then `callbackUrl`.
 */
export function SignIn({ home }: { home?: boolean }) {
  const { t } = useTranslation();
  const { locale } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const session = useSession();
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const target = safeCallback(params.get('callbackUrl'), `/${locale}/dashboard`);

  const done = async () => {
    await queryClient.resetQueries({ queryKey: ['session'] });
    navigate(target, { replace: true });
  };
  const login = useMutation({
    mutationFn: async (body: { email: string; password: string }) =>
      unwrap(await api.POST('/api/auth/login', { body })),
    onSuccess: async (answer) => {
      if ('mfaRequired' in answer && answer.mfaRequired) setMfaToken(answer.mfaToken);
      else await done();
    },
  });
  const verify = useMutation({
    // Digits are an authenticator code; anything else is one of the recovery codes.
    mutationFn: async (value: string) => {
      const body = /^\d{6,8}$/.test(value) ? { code: value } : { recoveryCode: value };
      return unwrap(
        await api.POST('/api/auth/2fa/verify', { body: { mfaToken: mfaToken!, ...body } }),
      );
    },
    onSuccess: done,
  });

  if (home && session.isPending) return <Loading />;
  if (home && session.data) return <Navigate to={`/${locale}/dashboard`} replace />;

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    login.mutate({ email: String(form.get('email')), password: String(form.get('password')) });
  };
  const submitCode = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    verify.mutate(String(new FormData(e.currentTarget).get('code')).trim());
  };

  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {mfaToken ? t('auth.totpTitle') : t('auth.signInTitle')}
      </Title>
      {home && <Text mb="md">{t('app.welcome')}</Text>}
      {mfaToken ? (
        <form onSubmit={submitCode}>
          <Stack>
            <TextInput
              name="code"
              label={t('auth.totpLabel')}
              autoComplete="one-time-code"
              required
              autoFocus
            />
            <ErrorNote error={verify.error} />
            <Button type="submit" loading={verify.isPending}>
              {t('auth.totpSubmit')}
            </Button>
          </Stack>
        </form>
      ) : (
        <form onSubmit={submit}>
          <Stack>
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
              autoComplete="current-password"
              required
            />
            <ErrorNote error={login.error} />
            <Button type="submit" loading={login.isPending}>
              {t('auth.submitSignIn')}
            </Button>
            <Text size="sm">
              <Anchor component={Link} to={`/${locale}/auth/forgot-password`} c="indigo.9">
                {t('reset.forgotLink')}
              </Anchor>
            </Text>
            <Text size="sm">
              {t('auth.noAccount')}{' '}
              <Anchor component={Link} to={`/${locale}/auth/signup`} c="indigo.9">
                {t('app.signUp')}
              </Anchor>
            </Text>
          </Stack>
        </form>
      )}
    </Paper>
  );
}
