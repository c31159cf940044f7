import type { Locale } from './locale';
import { escapeHtml } from './placeholder.page';

/** What the page shows: the button to press, or the result of pressing it. */
export type VerifyEmailState = 'confirm' | 'missing' | 'verified' | 'invalid';

interface Text {
  title: string;
  body: string;
}

const TEXT: Record<Locale, Record<VerifyEmailState, Text> & { button: string; next: string }> = {
  en: {
    confirm: {
      title: 'Verify your email address',
      body: 'Press the button to confirm that this address is yours.',
    },
    missing: {
      title: 'Link incomplete',
      body: 'This link has no token. Open the link from the mail exactly as it was sent.',
    },
    verified: {
      title: 'Email verified',
      body: 'Thank you! Your address is verified.',
    },
    invalid: {
      title: 'Link not valid',
      body: 'This link is unknown, used or expired. Sign in and ask for a new verification mail.',
    },
    button: 'Verify my email',
    next: 'Go to your dashboard',
  },
  zh: {
    confirm: { title: '验证您的邮箱', body: '请点击下方按钮，确认此邮箱地址属于您。' },
    missing: { title: '链接不完整', body: '此链接缺少令牌。请按邮件中的原样打开链接。' },
    verified: { title: '邮箱已验证', body: '谢谢！您的邮箱已验证。' },
    invalid: {
      title: '链接无效',
      body: '此链接无效、已使用或已过期。请登录后重新发送验证邮件。',
    },
    button: '验证我的邮箱',
    next: '前往控制台',
  },
};

/**
 * Content-Security-Policy of the page: no scripts and no requests; inline style; the form may
 * post only to this origin.
 */
export const VERIFY_EMAIL_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";

/**
 * `/{locale}/auth/verify-email`, the page a verification mail's link opens. `confirm` (a GET
 * with `?token=`) shows a button whose form POSTs the token back to the same path: the address is
 * verified only when a person presses it, never by the GET alone, so a mail scanner that fetches
 * links does not use the token up. The other states show the POST's result (or a link without a
 * token). `token` (echoed into the form, escaped) is only used for `confirm`.
 */
export function verifyEmailPage(locale: Locale, state: VerifyEmailState, token = ''): string {
  const t = TEXT[locale];
  const { title, body } = t[state];
  const action =
    state === 'confirm'
      ? `<form method="post" action="/${locale}/auth/verify-email">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">${t.button}</button>
</form>`
      : state === 'verified'
        ? `<p><a href="/${locale}/dashboard">${t.next}</a></p>`
        : '';
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0}main{max-width:32rem;padding:2rem;text-align:center}button{font:inherit;padding:.6rem 1.2rem;cursor:pointer}</style>
</head>
<body>
<main data-state="${state}">
<h1>${title}</h1>
<p>${body}</p>
${action}
</main>
</body>
</html>
`;
}
