import { Anchor, Paper, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** A path inside the console that is no page. */
export function NotFound() {
  const { t, i18n } = useTranslation();
  return (
    <Paper withBorder p="lg">
      <Title order={1} size="h2" mb="md">
        {t('app.notFound')}
      </Title>
      <Anchor component={Link} to={`/${i18n.language}`} c="indigo.9">
        {t('app.home')}
      </Anchor>
    </Paper>
  );
}
