import { purchaseStatusPage } from './purchase-status.page';

describe('purchaseStatusPage', () => {
  it.each([
    ['pending', 'Payment pending', '等待付款确认', true],
    ['processing', 'Payment pending', '等待付款确认', true],
    ['succeeded', 'Payment confirmed', '支付成功', false],
    ['failed', 'Payment not completed', '支付未完成', false],
    ['canceled', 'Payment not completed', '支付未完成', false],
    ['refunded', 'Payment refunded', '已退款', false],
    ['disputed', 'Payment disputed', '付款争议中', false],
  ] as const)('%s: says so in en and zh', (status, en, zh, refreshes) => {
    const english = purchaseStatusPage('en', { status, credits: 279 });
    expect(english).toContain(`<h1>${en}</h1>`);
    expect(english.includes('http-equiv="refresh"')).toBe(refreshes);
    expect(purchaseStatusPage('zh', { status, credits: 279 })).toContain(`<h1>${zh}</h1>`);
  });

  it('shows the credits and nothing for an unknown purchase', () => {
    expect(purchaseStatusPage('zh', { status: 'succeeded', credits: 279 })).toContain('279 积分');
    expect(purchaseStatusPage('en', null)).toContain('Payment not found');
  });
});
