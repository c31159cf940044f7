import { Anchor, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { LOCALES } from '../i18n';

const NAMES = { en: 'English', zh: '中文' } as const;

/** Links to this page in each language (the locale segment swapped, query kept). */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const { pathname, search } = useLocation();
  const rest = pathname.replace(/^\/[^/]+/, '');
  return (
    <Group component="nav" aria-label={t('app.language')} gap="sm">
      {LOCALES.map((locale) => (
        <Anchor
          key={locale}
          component={Link}
          to={`/${locale}${rest}${search}`}
          lang={locale}
          aria-current={i18n.language === locale ? 'true' : undefined}
          fw={i18n.language === locale ? 700 : 400}
          c="indigo.9"
        >
          {NAMES[locale]}
        </Anchor>
      ))}
    </Group>
  );
}
