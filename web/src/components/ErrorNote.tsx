import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';

/**
 * The service's message for a failed call, in an alert (nothing when there is no error).
 * `messages` gives the page's own text for some error codes (`code` of the answer), in place
 * of the service's message: for codes whose meaning the page can say better.
 */
export function ErrorNote({
  error,
  messages,
}: {
  error: unknown;
  messages?: Partial<Record<string, string>>;
}) {
  const { t } = useTranslation();
  if (!error) return null;
  const own = error instanceof ApiError && error.code ? messages?.[error.code] : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" role="alert" my="sm">
      {own ?? t('app.error', { message })}
    </Alert>
  );
}
