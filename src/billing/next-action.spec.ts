import type Stripe from 'stripe';
import { nextActionOf } from './credit-purchases.service';

const intent = (next_action: unknown) => ({ next_action }) as unknown as Stripe.PaymentIntent;

describe('nextActionOf (API 2024-06-20 next_action shapes)', () => {
  it('takes the redirect url of alipay_handle_redirect', () => {
    const next = {
      type: 'alipay_handle_redirect',
      alipay_handle_redirect: {
        native_data: null,
        native_url: null,
        return_url: 'https://app.example.com/zh/payment/success?purchase=x',
        url: 'https://hooks.stripe.com/redirect/authenticate/src_1',
      },
    };
    expect(nextActionOf(intent(next))).toEqual({
      type: 'alipay_handle_redirect',
      url: 'https://hooks.stripe.com/redirect/authenticate/src_1',
    });
  });

  it('takes image_data_url and data of wechat_pay_display_qr_code, nothing else', () => {
    const next = {
      type: 'wechat_pay_display_qr_code',
      wechat_pay_display_qr_code: {
        data: 'weixin://wxpay/bizpayurl?pr=abc',
        hosted_instructions_url: 'https://pay.stripe.com/wechat/x',
        image_data_url: 'data:image/png;base64,AAAA',
        image_url_png: 'https://qr.stripe.com/x.png',
        image_url_svg: 'https://qr.stripe.com/x.svg',
      },
    };
    expect(nextActionOf(intent(next))).toEqual({
      type: 'wechat_pay_display_qr_code',
      image_data_url: 'data:image/png;base64,AAAA',
      data: 'weixin://wxpay/bizpayurl?pr=abc',
    });
  });

  it('is null for a card intent, another action, or a redirect without a url', () => {
    expect(nextActionOf(intent(null))).toBeNull();
    expect(nextActionOf(intent({ type: 'use_stripe_sdk', use_stripe_sdk: {} }))).toBeNull();
    expect(
      nextActionOf(intent({ type: 'alipay_handle_redirect', alipay_handle_redirect: {} })),
    ).toBeNull();
  });
});
