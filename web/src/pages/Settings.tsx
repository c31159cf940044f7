import { Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { KeysPanel } from './KeysPanel';
import { SessionsPanel } from './SessionsPanel';

/** `/{locale}/dashboard/settings`: my API keys and my sessions. */
export default function Settings() {
  const { t } = useTranslation();
  return (
    <>
      <Title order={1} mb="md">
        {t('settings.title')}
      </Title>
      <KeysPanel />
      <SessionsPanel />
    </>
  );
}
