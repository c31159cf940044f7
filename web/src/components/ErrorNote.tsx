import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The service's message for a failed call, in an alert (nothing when there is no error). */
export function ErrorNote({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" role="alert" my="sm">
      {t('app.error', { message })}
    </Alert>
  );
}
