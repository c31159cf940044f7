import { Anchor, Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

/** `/{locale}/unauthorized`: where the service sends a non-admin who opens `/admin`. */
export function Unauthorized() {
  const { t } = useTranslation();
  const { locale } = useParams();
  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t('unauthorized.title')}
      </Title>
      <Text mb="md">{t('unauthorized.body')}</Text>
      <Anchor component={Link} to={`/${locale}`} c="indigo.9">
        {t('app.home')}
      </Anchor>
    </Paper>
  );
}
