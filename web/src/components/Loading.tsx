import { Center, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A centred spinner with an accessible name, while a page or its data loads. */
export function Loading() {
  const { t } = useTranslation();
  return (
    <Center p="xl" role="status" aria-label={t('app.loading')}>
      <Loader />
    </Center>
  );
}
