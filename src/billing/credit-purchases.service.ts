import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../config/app-settings.config';
import { billingConfig } from './billing.config';
import { sharedConfig } from '../config/shared.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { DataSource } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { Locale } from '../i18n/locale';
import type { PurchaseCreditsDto } from './dto/payment.dto';
import type { PurchaseCreatedDto, PurchaseNextActionDto } from './dto/purchase.dto';
import { idempotencyKey } from './idempotency';
import { formatMajor, maxCreditsFor, toMinorUnits } from './money';
import { CREDIT_PURCHASE } from './payments.service';
import type { PaymentMethod, PurchaseCurrency } from './purchase.entity';
import { insertPurchaseSql, PURCHASE_BY_INTENT_SQL } from './purchases.sql';
import { StripeClient } from './stripe.client';
import { TeamsService } from '../teams/teams.service';

/**
 * `POST /api/credits/purchase` (spec Payments rule 3): a payment intent for card,
 * Alipay or WeChat Pay, and the `purchases` row that the webhooks then move along.
 */
@Injectable()
export class CreditPurchasesService {
  constructor(
    private readonly stripe: StripeClient,
    @Inject(billingConfig.KEY) private readonly billing: ConfigType<typeof billingConfig>,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly teams: TeamsService,
  ) {}

  /**
   * Creates the intent with `payment_method_types: [method]` and metadata `{userId, credits,
   * type: 'credit_purchase', purchaseId}`, and `teamId` for a purchase for a team's pool (the
   * caller its OWNER or ADMIN: 404 for a non-member, 403 for a MEMBER, checked first). Alipay and WeChat Pay are confirmed here (Alipay with
   * `return_url` = `{APP_BASE_URL}/{locale}/payment/success?purchase=<id>`, WeChat Pay with
   * `client: web`) so the answer carries `nextAction`; card is confirmed by Stripe.js.
   * Throws 400 VALIDATION_FAILED for a currency the method does not take, an amount above the
   * currency's maximum or more credits than it buys; the processor errors of StripeClient.call.
   */
  async purchase(
    user: SessionUser,
    dto: PurchaseCreditsDto,
    locale: Locale,
    clientKey?: string,
  ): Promise<PurchaseCreatedDto> {
    const method: PaymentMethod = dto.paymentMethod ?? 'card';
    const currency: PurchaseCurrency = dto.currency ?? (method === 'card' ? 'usd' : 'cny');
    if (dto.teamId) await this.teams.requireTeamRole(user, dto.teamId, 'ADMIN');
    if (method !== 'card' && currency !== 'cny')
      throw new AppError(CommonErrorCode.VALIDATION_FAILED, `${method} is paid in cny only`);
    this.checkBounds(dto, currency);

    const amount = minor(dto.amount);
    const key = idempotencyKey(user.id, 'credit-purchase', clientKey);
    // Derived from the key, so a retry with the same Idempotency-Key sends identical parameters
    // (the return URL names the purchase) and gets the first intent back.
    const purchaseId = clientKey ? uuidFrom(key) : randomUUID();
    const { baseUrl } = this.appSettings;
    const returnUrl = `${baseUrl}/${locale}/payment/success?purchase=${purchaseId}`;
    const params: Stripe.PaymentIntentCreateParams = {
      amount,
      currency,
      payment_method_types: [method],
      description: `${dto.credits} credits for ${formatMajor(amount)} ${currency.toUpperCase()}`,
      metadata: {
        userId: user.id,
        credits: String(dto.credits),
        type: CREDIT_PURCHASE,
        ...(dto.teamId ? { teamId: dto.teamId } : {}),
      },
    };
    if (method !== 'card') {
      Object.assign(params, {
        confirm: true,
        payment_method_data: { type: method },
        ...(method === 'alipay'
          ? { return_url: returnUrl }
          : { payment_method_options: { wechat_pay: { client: 'web' } } }),
      });
    }
    const intent = await this.stripe.call('paymentIntents.create', (s) =>
      s.paymentIntents.create(params, { idempotencyKey: key }),
    );
    const insert = insertPurchaseSql({
      id: purchaseId,
      userId: user.id,
      paymentIntentId: intent.id,
      method,
      currency,
      amount,
      credits: dto.credits,
      teamId: dto.teamId ?? null,
    });
    await this.dataSource.query(insert.sql, insert.params);
    const [row] = await this.dataSource.query(PURCHASE_BY_INTENT_SQL, [intent.id]);
    return {
      clientSecret: intent.client_secret!,
      purchaseId: row.id,
      status: row.status,
      nextAction: nextActionOf(intent),
    };
  }

  private checkBounds(dto: PurchaseCreditsDto, currency: PurchaseCurrency): void {
    const [max, perUnit] =
      currency === 'cny'
        ? [this.billing.purchaseMaxCny, this.shared.creditsPerCny]
        : [this.billing.purchaseMaxUsd, this.shared.creditsPerUsd];
    const unit = currency.toUpperCase();
    if (dto.amount > max)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        `amount must not be greater than ${max} ${unit}`,
        { maxAmount: max },
      );
    const maxCredits = maxCreditsFor(dto.amount, perUnit);
    if (dto.credits > maxCredits)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        `${dto.amount} ${unit} buys at most ${maxCredits} credits (${perUnit} per ${unit})`,
        { maxCredits },
      );
  }
}

/** The client's next step from the intent's `next_action` (API 2024-06-20 shapes), or null. */
export function nextActionOf(intent: Stripe.PaymentIntent): PurchaseNextActionDto | null {
  const next = intent.next_action;
  if (next?.type === 'alipay_handle_redirect' && next.alipay_handle_redirect?.url)
    return { type: 'alipay_handle_redirect', url: next.alipay_handle_redirect.url };
  if (next?.type === 'wechat_pay_display_qr_code' && next.wechat_pay_display_qr_code)
    return {
      type: 'wechat_pay_display_qr_code',
      image_data_url: next.wechat_pay_display_qr_code.image_data_url,
      data: next.wechat_pay_display_qr_code.data,
    };
  return null;
}

/** A UUID-shaped id from a hash (stable for one Idempotency-Key). */
export function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `toMinorUnits` with its RangeError as a 400 (validation already bounds the decimals). */
function minor(amount: number): number {
  try {
    return toMinorUnits(amount);
  } catch {
    throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'amount must have at most two decimals');
  }
}
