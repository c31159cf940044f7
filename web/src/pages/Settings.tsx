import { Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { KeysPanel } from './KeysPanel';
import { PasswordEmailPanel } from './PasswordEmailPanel';
import { ProfilePanel } from './ProfilePanel';
import { SessionsPanel } from './SessionsPanel';
import { TwoFactorPanel } from './TwoFactorPanel';

/**
 * `/{locale}/dashboard/settings`: profile and preferences, password and email, two-factor,
 * my API keys and my sessions.
 */
export default function Settings() {
  const { t } = useTranslation();
  return (
    <>
      <Title order={1} mb="md">
        {t('settings.title')}
      </Title>
      <ProfilePanel />
      <PasswordEmailPanel />
      <TwoFactorPanel />
      <KeysPanel />
      <SessionsPanel />
    </>
  );
}
