import type { PurchaseStatus } from '../billing/purchase.entity';
import type { Locale } from './locale';

/** The states the page tells apart; `{credits}` is replaced by the purchase's credits. */
type Shown = 'pending' | 'succeeded' | 'failed' | 'refunded' | 'disputed' | 'unknown';

const SHOWN: Record<PurchaseStatus, Shown> = {
  pending: 'pending',
  processing: 'pending',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'failed',
  refunded: 'refunded',
  disputed: 'disputed',
};

const TEXT: Record<Locale, Record<Shown, { title: string; body: string }> & { back: string }> = {
  en: {
    pending: {
      title: 'Payment pending',
      body: 'We are waiting for the payment to be confirmed. {credits} credits will be added as soon as it is; this page updates itself.',
    },
    succeeded: {
      title: 'Payment confirmed',
      body: 'Thank you! {credits} credits have been added to your account.',
    },
    failed: {
      title: 'Payment not completed',
      body: 'The payment failed or was canceled. No credits were added and nothing was charged.',
    },
    refunded: {
      title: 'Payment refunded',
      body: 'This payment was refunded; its {credits} credits were taken back.',
    },
    disputed: {
      title: 'Payment disputed',
      body: 'This payment is disputed with the card issuer; its {credits} credits were taken back until the dispute is settled.',
    },
    unknown: { title: 'Payment not found', body: 'We could not find this payment.' },
    back: 'Back to your dashboard',
  },
  zh: {
    pending: {
      title: '等待付款确认',
      body: '正在等待付款确认。确认后将立即为您添加 {credits} 积分；本页面会自动刷新。',
    },
    succeeded: { title: '支付成功', body: '感谢您的付款！{credits} 积分已添加到您的账户。' },
    failed: { title: '支付未完成', body: '付款失败或已取消。未添加积分，也未扣款。' },
    refunded: { title: '已退款', body: '此笔付款已退款，相应的 {credits} 积分已收回。' },
    disputed: {
      title: '付款争议中',
      body: '此笔付款正在争议中，相应的 {credits} 积分已暂时收回，待争议结束后处理。',
    },
    unknown: { title: '未找到付款', body: '找不到这笔付款。' },
    back: '返回控制台',
  },
};

/**
 * `/{locale}/payment/success?purchase=<id>`: the purchase's state and credits in the
 * page's language, read without a session, so nothing else of the purchase or its buyer is
 * shown. A pending purchase refreshes every 5 s until the webhook has moved it.
 */
export function purchaseStatusPage(
  locale: Locale,
  purchase: { status: PurchaseStatus; credits: number } | null,
): string {
  const shown: Shown = purchase ? SHOWN[purchase.status] : 'unknown';
  const t = TEXT[locale][shown];
  const body = t.body.replace('{credits}', String(purchase?.credits ?? 0));
  const refresh = shown === 'pending' ? '\n<meta http-equiv="refresh" content="5">' : '';
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${t.title}</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0}main{max-width:32rem;padding:2rem;text-align:center}</style>
</head>
<body>
<main data-status="${shown}">
<h1>${t.title}</h1>
<p>${body}</p>
<p><a href="/${locale}/dashboard">${TEXT[locale].back}</a></p>
</main>
</body>
</html>
`;
}
