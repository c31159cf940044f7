import { Alert, Button, Paper, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/** The two mailed address links: verify the address, or move the account to a new one. */
const KINDS = {
  verify: { path: '/api/auth/verify-email', text: 'auth' },
  change: { path: '/api/user/email/confirm', text: 'account.confirmEmail' },
} as const;

/**
 * `/{locale}/auth/verify-email?token=…` and `/{locale}/auth/confirm-email?token=…` (an email
 * change), the mailed links: act on a click (a POST of the token), never on load, so a mail
 * scanner opening the link changes nothing.
 */
export function VerifyEmail({ kind = 'verify' }: { kind?: keyof typeof KINDS }) {
  const { path, text } = KINDS[kind];
  const { t } = useTranslation();
  const { locale } = useParams();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: async () => unwrap(await api.POST(path, { body: { token } })),
    onSuccess: () => queryClient.invalidateQueries(),
  });

  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t(`${text}.verifyTitle`)}
      </Title>
      {!token ? (
        <Alert color="red" role="alert">
          {t(`${text}.verifyMissing`)}
        </Alert>
      ) : verify.isSuccess ? (
        <>
          <Alert color="green" role="status" mb="md">
            {t(`${text}.verified`)}
          </Alert>
          <Button component={Link} to={`/${locale}/dashboard`}>
            {t('auth.continue')}
          </Button>
        </>
      ) : (
        <>
          <Text mb="md">{t(`${text}.verifyExplain`)}</Text>
          <ErrorNote error={verify.error} />
          <Button onClick={() => verify.mutate()} loading={verify.isPending}>
            {t(`${text}.verifyButton`)}
          </Button>
        </>
      )}
    </Paper>
  );
}
