import type { Locale } from './locale';

const TEXT: Record<Locale, { title: string; body: string; back: string }> = {
  en: {
    title: 'Payment confirmed',
    body: 'Thank you! Your payment is confirmed. Your credits or plan will appear in your account shortly.',
    back: 'Back to your dashboard',
  },
  zh: {
    title: '支付成功',
    body: '感谢您的付款！付款已确认，积分或套餐将很快显示在您的账户中。',
    back: '返回控制台',
  },
};

/**
 * The small HTML page at `/{locale}/payment/success`, the processor's return address: it only
 * confirms; credits arrive through the webhook. Static text, no request data is echoed.
 */
export function paymentSuccessPage(locale: Locale): string {
  const t = TEXT[locale];
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.title}</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0}main{max-width:32rem;padding:2rem;text-align:center}</style>
</head>
<body>
<main>
<h1>${t.title}</h1>
<p>${t.body}</p>
<p><a href="/${locale}/dashboard">${t.back}</a></p>
</main>
</body>
</html>
`;
}
