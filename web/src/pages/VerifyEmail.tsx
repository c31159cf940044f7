import { Alert, Button, Paper, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * `/{locale}/auth/verify-email?token=…`, the mailed link: verifies on a click (a POST of the
 * token to `/api/auth/verify-email`), never on load, so a mail scanner opening the link
 * verifies nothing.
 */
export function VerifyEmail() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/auth/verify-email', { body: { token } })),
    onSuccess: () => queryClient.invalidateQueries(),
  });

  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t('auth.verifyTitle')}
      </Title>
      {!token ? (
        <Alert color="red" role="alert">
          {t('auth.verifyMissing')}
        </Alert>
      ) : verify.isSuccess ? (
        <>
          <Alert color="green" role="status" mb="md">
            {t('auth.verified')}
          </Alert>
          <Button component={Link} to={`/${locale}/dashboard`}>
            {t('auth.continue')}
          </Button>
        </>
      ) : (
        <>
          <Text mb="md">{t('auth.verifyExplain')}</Text>
          <ErrorNote error={verify.error} />
          <Button onClick={() => verify.mutate()} loading={verify.isPending}>
            {t('auth.verifyButton')}
          </Button>
        </>
      )}
    </Paper>
  );
}
