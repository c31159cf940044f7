import { Alert, Button, Card, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/**
 * `/{locale}/invitations/accept?token=…`: the mailed team invitation; joins on a button press
 * (`POST /api/invitations/accept`), never on load, so a mail scanner accepts nothing.
 */
export default function AcceptInvitation() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const accept = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/invitations/accept', { body: { token } })).data,
  });
  return (
    <Card withBorder maw={560}>
      <Title order={1} size="h2" mb="md">
        {t('teams.acceptTitle')}
      </Title>
      <ErrorNote error={accept.error} />
      {accept.data ? (
        <Alert color="green" role="status">
          {t('teams.joined', { team: accept.data.name })}{' '}
          <Link to={`/${locale}/dashboard/teams`}>{t('teams.title')}</Link>
        </Alert>
      ) : token ? (
        <Button onClick={() => accept.mutate()} loading={accept.isPending}>
          {t('teams.accept')}
        </Button>
      ) : (
        <Text>{t('teams.noToken')}</Text>
      )}
    </Card>
  );
}
