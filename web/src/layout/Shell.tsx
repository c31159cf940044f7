import { AppShell, Button, Group, NavLink, Text } from '@mantine/core';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useParams } from 'react-router';
import { Loading } from '../components/Loading';
import { useSession } from '../session';
import { LanguageSwitch } from './LanguageSwitch';

/** The admin pages in the navigation, in its order (`admin.nav.<page>` names each). */
const ADMIN_NAV = [
  'users',
  'payments',
  'redemption',
  'upstreams',
  'models',
  'prices',
  'audit',
  'usage',
];

/**
 * Signed-in pages: a header (name, language switch, the user and a sign-out form that POSTs
 * `/api/auth/signout`, which ends the session and clears the cookie) and the navigation, with
 * the admin pages for role ADMIN.
 */
export function Shell() {
  const { t } = useTranslation();
  const { locale } = useParams();
  const { pathname } = useLocation();
  const session = useSession();
  const links = [
    { to: `/${locale}/dashboard`, label: t('app.dashboard') },
    { to: `/${locale}/dashboard/chat`, label: t('app.chat') },
    { to: `/${locale}/dashboard/billing`, label: t('app.billing') },
    { to: `/${locale}/dashboard/budgets`, label: t('app.budgets') },
    { to: `/${locale}/dashboard/teams`, label: t('app.teams') },
    { to: `/${locale}/dashboard/settings`, label: t('app.settings') },
  ];
  const admin = session.data?.role === 'ADMIN';
  const adminLinks = ADMIN_NAV.map((page) => ({
    to: `/${locale}/admin/${page}`,
    label: t(`admin.nav.${page}`),
  }));
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 'xs' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Text fw={700}>{t('app.title')}</Text>
          <Group gap="md">
            <LanguageSwitch />
            {session.data && <Text size="sm">{session.data.email}</Text>}
            <form method="post" action="/api/auth/signout">
              <Button type="submit" variant="outline" size="xs">
                {t('app.signOut')}
              </Button>
            </form>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t('app.nav')}>
        {links.map((link) => (
          <NavLink
            key={link.to}
            component={Link}
            to={link.to}
            label={link.label}
            active={pathname === link.to}
            aria-current={pathname === link.to ? 'page' : undefined}
          />
        ))}
        {admin && (
          <>
            <Text size="xs" fw={700} c="dark.6" mt="md" px="sm" id="admin-nav">
              {t('admin.nav.title')}
            </Text>
            {adminLinks.map((link) => (
              <NavLink
                key={link.to}
                component={Link}
                to={link.to}
                label={link.label}
                active={pathname.startsWith(link.to)}
                aria-current={pathname === link.to ? 'page' : undefined}
              />
            ))}
          </>
        )}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
