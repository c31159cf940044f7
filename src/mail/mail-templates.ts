import type { Locale } from '../i18n/locale';
import type { MailParams, MailTemplate, RemovedAccess } from './mail.types';

interface Texts {
  subject: string;
  /** Paragraphs before the link. */
  body: (p: MailParams) => string[];
  /** The link's label; none: the mail has no link. */
  action?: string;
  /** Paragraphs after the link. */
  footer?: string[];
}

const TEMPLATES: Record<MailTemplate, Record<Locale, Texts>> = {
  'verify-email': {
    en: {
      subject: 'Confirm your email address',
      body: () => [
        'Please confirm that this is your email address. The link works once, for 24 hours.',
      ],
      action: 'Confirm my email',
      footer: ['If you did not sign up, ignore this mail: nothing happens without the link.'],
    },
    zh: {
      subject: '请验证您的邮箱地址',
      body: () => ['请确认这是您的邮箱地址。该链接仅可使用一次，24 小时内有效。'],
      action: '验证邮箱',
      footer: ['如果您没有注册，请忽略此邮件：不点击链接不会有任何变化。'],
    },
  },
  'password-reset': {
    en: {
      subject: 'Reset your password',
      body: () => [
        'Someone asked to reset the password of your account. The link works once, for 1 hour.',
      ],
      action: 'Choose a new password',
      footer: ['If it was not you, ignore this mail: your password stays as it is.'],
    },
    zh: {
      subject: '重置您的密码',
      body: () => ['有人请求重置您账户的密码。该链接仅可使用一次，1 小时内有效。'],
      action: '设置新密码',
      footer: ['如果不是您本人操作，请忽略此邮件：您的密码不会改变。'],
    },
  },
  'password-changed': {
    en: {
      subject: 'Your password was changed',
      body: (p) => [
        'The password of your account was just reset, and every session was signed out.',
        ...removedParagraphs('en', p.removed),
        'If it was not you, reset your password at once and contact support.',
      ],
    },
    zh: {
      subject: '您的密码已更改',
      body: (p) => [
        '您账户的密码刚刚被重置，所有会话均已退出。',
        ...removedParagraphs('zh', p.removed),
        '如果不是您本人操作，请立即重置密码并联系客服。',
      ],
    },
  },
  'unproven-setup-removed': {
    en: {
      subject: 'Your email address is confirmed',
      body: (p) => [
        'Your email address is confirmed. Until now nobody had proven it, so what was set up on the account before could have been set up by someone else.',
        ...removedParagraphs('en', p.removed),
        'If you set these up yourself, set them up again.',
      ],
    },
    zh: {
      subject: '您的邮箱地址已验证',
      body: (p) => [
        '您的邮箱地址已验证。此前无人证明过该地址，因此账户上此前的设置可能是他人所为。',
        ...removedParagraphs('zh', p.removed),
        '如果这些是您本人设置的，请重新设置。',
      ],
    },
  },
  'email-change-confirm': {
    en: {
      subject: 'Confirm your new email address',
      body: (p) => [
        `Confirm ${p.newEmail ?? 'this address'} as the new address of your account. The link works once, for 24 hours.`,
      ],
      action: 'Confirm the new address',
      footer: ['If you did not ask for this, ignore this mail: nothing changes without the link.'],
    },
    zh: {
      subject: '请确认您的新邮箱地址',
      body: (p) => [
        `请确认将 ${p.newEmail ?? '此地址'} 设为您账户的新邮箱。该链接仅可使用一次，24 小时内有效。`,
      ],
      action: '确认新邮箱',
      footer: ['如果您没有发起此请求，请忽略此邮件：不点击链接不会有任何变化。'],
    },
  },
  'email-change-notice': {
    en: {
      subject: 'Your email address is about to change',
      body: (p) => [
        `Someone asked to move your account to ${p.newEmail ?? 'another address'}. It changes only once the new address is confirmed.`,
        'If it was not you, change your password at once.',
      ],
    },
    zh: {
      subject: '您的邮箱地址即将更改',
      body: (p) => [
        `有人请求将您的账户改为 ${p.newEmail ?? '另一个地址'}。只有在新地址确认后才会更改。`,
        '如果不是您本人操作，请立即修改密码。',
      ],
    },
  },
  'budget-threshold': {
    en: {
      subject: 'A spending budget is nearly used',
      body: (p) => [
        `The ${p.budget?.scope} budget's ${p.budget?.window} window has used ${p.budget?.used} of its ${p.budget?.limit} credits (${p.budget?.threshold} % or more).`,
        'Calls go on until the limit; then they are refused until the window resets. This mail is sent once per window.',
      ],
    },
    zh: {
      subject: '预算即将用完',
      body: (p) => [
        `${p.budget?.scope} 预算的 ${p.budget?.window} 窗口已使用 ${p.budget?.used} / ${p.budget?.limit} 积分（达到 ${p.budget?.threshold}% 或以上）。`,
        '在达到上限之前调用照常进行；达到上限后将被拒绝，直到窗口重置。每个窗口只发送一次此邮件。',
      ],
    },
  },
  'payment-failed': {
    en: {
      subject: 'Your subscription payment failed',
      body: (p) => [
        `We could not collect the payment of ${p.amountDue} for your subscription.`,
        'Your plan stays as it is while the payment is retried. Please check your payment method in the billing portal.',
      ],
      action: 'Open my settings',
      footer: [
        'If every retry fails, the subscription ends and the account returns to the free plan.',
      ],
    },
    zh: {
      subject: '您的订阅付款失败',
      body: (p) => [
        `我们未能收取您订阅的 ${p.amountDue} 款项。`,
        '在重试付款期间，您的套餐保持不变。请在账单门户中检查您的付款方式。',
      ],
      action: '打开我的设置',
      footer: ['如果所有重试都失败，订阅将结束，账户将回到免费套餐。'],
    },
  },
};

/** One sentence per kind of access removed (none when nothing was). */
function removedParagraphs(locale: Locale, r: RemovedAccess | undefined): string[] {
  if (!r) return [];
  const en = [
    r.keys ? `${r.keys} API key${r.keys === 1 ? ' was' : 's were'} revoked.` : '',
    r.twoFactor ? 'Two-factor authentication was turned off.' : '',
    r.links ? 'Links mailed earlier (email change, verification, reset) no longer work.' : '',
    r.data ? 'Its chats, scheduled tasks, team memberships and preferences were deleted.' : '',
  ];
  const zh = [
    r.keys ? `已撤销 ${r.keys} 个 API 密钥。` : '',
    r.twoFactor ? '两步验证已关闭。' : '',
    r.links ? '此前邮件中的链接（更改邮箱、验证、重置）已失效。' : '',
    r.data ? '账户中的对话、定时任务、团队成员身份和偏好设置已删除。' : '',
  ];
  return (locale === 'zh' ? zh : en).filter(Boolean);
}

const GREETING: Record<Locale, (name?: string | null) => string> = {
  en: (name) => (name ? `Hello ${name},` : 'Hello,'),
  zh: (name) => (name ? `${name}，您好：` : '您好：'),
};

/**
 * The subject, plain-text part and HTML part of `template` in `locale`. Every value from
 * outside (name, address, link) is HTML-escaped in the HTML part.
 */
export function renderMail(
  template: MailTemplate,
  locale: Locale,
  params: MailParams,
): { subject: string; text: string; html: string } {
  const t = TEMPLATES[template][locale];
  const paragraphs = [GREETING[locale](params.name), ...t.body(params)];
  const footer = t.footer ?? [];
  const link = t.action && params.link ? { label: t.action, href: params.link } : undefined;
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.href}`] : []), ...footer].join(
    '\n\n',
  );
  const p = (s: string) => `<p>${escapeHtml(s)}</p>`;
  const html = [
    `<!doctype html><html lang="${locale}"><body>`,
    ...paragraphs.map(p),
    ...(link ? [`<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>`] : []),
    ...footer.map(p),
    '</body></html>',
  ].join('\n');
  return { subject: t.subject, text: text + '\n', html };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
