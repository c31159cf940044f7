import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, Route, Routes, useLocation, useParams } from 'react-router';
import { Loading } from './components/Loading';
import { isLocale } from './i18n';
import { AuthLayout } from './layout/AuthLayout';
import { Shell } from './layout/Shell';
import { ForgotPassword } from './pages/ForgotPassword';
import { NotFound } from './pages/NotFound';
import { ResetPassword } from './pages/ResetPassword';
import { SignIn } from './pages/SignIn';
import { SignUp } from './pages/SignUp';
import { Unauthorized } from './pages/Unauthorized';
import { VerifyEmail } from './pages/VerifyEmail';
import { useSession } from './session';

// The signed-in pages load on demand: the sign-in page's first load stays small.
const Dashboard = lazy(() => import('./pages/Dashboard'));
const Chat = lazy(() => import('./pages/Chat'));
const Settings = lazy(() => import('./pages/Settings'));
const Billing = lazy(() => import('./pages/Billing'));
const Teams = lazy(() => import('./pages/Teams'));
const Budgets = lazy(() => import('./pages/Budgets'));
const SharedChat = lazy(() => import('./pages/SharedChat'));
const AcceptInvitation = lazy(() => import('./pages/AcceptInvitation'));
const AdminUsers = lazy(() => import('./pages/admin/AdminUsers'));
const AdminUser = lazy(() => import('./pages/admin/AdminUser'));
const AdminPayments = lazy(() => import('./pages/admin/AdminPayments'));
const AdminUpstreams = lazy(() => import('./pages/admin/AdminUpstreams'));
const AdminModels = lazy(() => import('./pages/admin/AdminModels'));
const AdminAudit = lazy(() => import('./pages/admin/AdminAudit'));
const AdminUsage = lazy(() => import('./pages/admin/AdminUsage'));
const AdminRedemption = lazy(() => import('./pages/admin/AdminRedemption'));
const AdminPrices = lazy(() => import('./pages/admin/AdminPrices'));

/** The admin pages under `/{locale}/admin/`, each for role ADMIN only. */
const ADMIN_PAGES: [string, ReactNode][] = [
  ['users', <AdminUsers />],
  ['users/:id', <AdminUser />],
  ['payments', <AdminPayments />],
  ['upstreams', <AdminUpstreams />],
  ['models', <AdminModels />],
  ['prices', <AdminPrices />],
  ['audit', <AdminAudit />],
  ['usage', <AdminUsage />],
  ['redemption', <AdminRedemption />],
];

/**
 * The `/{locale}` segment: sets the page's language (and `<html lang>`); any other first
 * segment is not a page (the service answers 404 before the console loads, as here).
 */
function LocaleRoot() {
  const { locale } = useParams();
  const { i18n } = useTranslation();
  useEffect(() => {
    if (!isLocale(locale)) return;
    void i18n.changeLanguage(locale);
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
  }, [locale, i18n]);
  if (!isLocale(locale)) return <NotFound />;
  if (i18n.language !== locale) void i18n.changeLanguage(locale);
  return <Outlet />;
}

/**
 * The service's page rules, repeated for navigation inside the console: a signed-out visitor of
 * `dashboard` goes to sign-in (with the way back), a non-admin of `admin` to `unauthorized`.
 */
function Guard({ admin, children }: { admin?: boolean; children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  const { locale } = useParams();
  if (session.isPending) return <Loading />;
  const user = session.data;
  if (!user) {
    const back = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/${locale}/auth/signin?callbackUrl=${back}`} replace />;
  }
  if (admin && user.role !== 'ADMIN') return <Navigate to={`/${locale}/unauthorized`} replace />;
  return <>{children}</>;
}

/** Every page of the console under `/{locale}`. */
export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/:locale" element={<LocaleRoot />}>
          <Route element={<AuthLayout />}>
            <Route index element={<SignIn home />} />
            <Route path="auth/signin" element={<SignIn />} />
            <Route path="auth/signup" element={<SignUp />} />
            <Route path="signup" element={<SignUp />} />
            <Route path="auth/verify-email" element={<VerifyEmail />} />
            <Route path="auth/verify" element={<VerifyEmail />} />
            <Route path="auth/forgot-password" element={<ForgotPassword />} />
            <Route path="auth/reset-password" element={<ResetPassword />} />
            <Route path="auth/confirm-email" element={<VerifyEmail kind="change" />} />
            <Route path="unauthorized" element={<Unauthorized />} />
            <Route path="share/:token" element={<SharedChat />} />
            <Route path="*" element={<NotFound />} />
          </Route>
          <Route element={<Shell />}>
            <Route path="dashboard" element={<Guard>{<Dashboard />}</Guard>} />
            <Route path="dashboard/chat" element={<Guard>{<Chat />}</Guard>} />
            <Route path="dashboard/settings" element={<Guard>{<Settings />}</Guard>} />
            <Route path="dashboard/billing" element={<Guard>{<Billing />}</Guard>} />
            <Route path="dashboard/teams" element={<Guard>{<Teams />}</Guard>} />
            <Route path="dashboard/budgets" element={<Guard>{<Budgets />}</Guard>} />
            <Route path="invitations/accept" element={<Guard>{<AcceptInvitation />}</Guard>} />
            <Route path="admin" element={<Navigate to="users" replace />} />
            {ADMIN_PAGES.map(([path, page]) => (
              <Route key={path} path={`admin/${path}`} element={<Guard admin>{page}</Guard>} />
            ))}
            <Route path="admin/*" element={<Guard admin>{<NotFound />}</Guard>} />
          </Route>
        </Route>
        <Route path="*" element={<NotFound />} />
      </Routes>
    </Suspense>
  );
}
