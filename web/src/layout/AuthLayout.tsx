import { Container, Group, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Outlet } from 'react-router';
import { LanguageSwitch } from './LanguageSwitch';

/** Signed-out pages: the console's name, the language switch, and a narrow column. */
export function AuthLayout() {
  const { t } = useTranslation();
  return (
    <Container size={440} py="xl">
      <Group component="header" justify="space-between" mb="lg">
        <Title order={2} component="p" size="h3">
          {t('app.title')}
        </Title>
        <LanguageSwitch />
      </Group>
      <main>
        <Outlet />
      </main>
    </Container>
  );
}
