import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { billingConfig } from './billing.config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { BillingErrorCode } from './billing.errors';
import type { SessionUser } from '../common/auth/session-user';
import { UsersService } from '../users/users.service';
import {
  type ClientSecretDto,
  type CreatePaymentIntentDto,
  type InvoicesDto,
  mapInvoice,
  mapRefund,
  type PaymentConfigDto,
  type RefundDto,
  type RefundResponseDto,
} from './dto/payment.dto';
import { idempotencyKey } from './idempotency';
import { isTwoDecimalCurrency, toMinorUnits } from './money';
import { StripeClient } from './stripe.client';

/** Metadata `type` of a credit purchase (spec Payments rule 3); the webhook grants on it. */
export const CREDIT_PURCHASE = 'credit_purchase';

/** Spec "Payments and credits": one-time payments, credit purchases, refunds and invoices. */
@Injectable()
export class PaymentsService {
  constructor(
    private readonly stripe: StripeClient,
    private readonly users: UsersService,
    @Inject(billingConfig.KEY) private readonly billing: ConfigType<typeof billingConfig>,
    private readonly audit: AuditService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** The publishable key and configured plan prices. Throws PAYMENTS_NOT_CONFIGURED (503). */
  paymentConfig(): PaymentConfigDto {
    if (!this.stripe.configured)
      throw new AppError(BillingErrorCode.PAYMENTS_NOT_CONFIGURED, 'Payments are not configured');
    const { publishableKey, prices } = this.billing.stripe;
    const plans = (['BASIC', 'PRO'] as const)
      .filter((plan) => prices[plan])
      .map((plan) => ({ plan, priceId: prices[plan]! }));
    return { publishableKey: publishableKey ?? null, plans };
  }

  /**
   * A payment intent for `amount` major units of `currency` (default usd); the processor
   * receives `amount * 100` (rule 1). Nothing is granted for it. Throws 400 for a currency that
   * does not have two decimals, and the processor errors of StripeClient.call.
   */
  async createPaymentIntent(
    user: SessionUser,
    dto: CreatePaymentIntentDto,
    clientKey?: string,
  ): Promise<ClientSecretDto> {
    const currency = dto.currency ?? 'usd';
    if (!isTwoDecimalCurrency(currency))
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        `currency ${currency} is not supported: amounts are sent as amount × 100`,
      );
    const key = idempotencyKey(user.id, 'payment-intent', clientKey);
    const intent = await this.stripe.call('paymentIntents.create', (s) =>
      s.paymentIntents.create(
        {
          amount: minor(dto.amount),
          currency,
          metadata: { userId: user.id },
        },
        { idempotencyKey: key },
      ),
    );
    return { clientSecret: intent.client_secret! };
  }

  /**
   * Refunds a payment intent: in full without `amount`, else `amount * 100` minor units.
   * Credits bought with it are taken back by the `charge.refunded` webhook, not here.
   * Throws the processor errors of StripeClient.call (an unknown intent is 400).
   */
  async refund(admin: SessionUser, dto: RefundDto, clientKey?: string): Promise<RefundResponseDto> {
    const key = idempotencyKey(admin.id, 'refund', clientKey);
    const refund = await this.stripe.call('refunds.create', (s) =>
      s.refunds.create(
        {
          payment_intent: dto.paymentIntentId,
          ...(dto.amount === undefined ? {} : { amount: minor(dto.amount) }),
          metadata: { requestedBy: admin.id },
        },
        { idempotencyKey: key },
      ),
    );
    // The refund itself lives at the processor; the row records who asked for it. A refused
    // refund threw above and writes none.
    await this.audit.record(this.dataSource.manager, {
      action: 'payment.refund',
      targetType: 'payment',
      targetId: dto.paymentIntentId,
      details: {
        refundId: refund.id,
        amount: refund.amount,
        currency: refund.currency,
        status: refund.status,
      },
    });
    return { refund: mapRefund(refund) };
  }

  /**
   * At most 10 of the session user's invoices in the processor's order (newest first); an
   * empty list without a payment customer (spec Limits 5). Throws the errors of call().
   */
  async history(user: SessionUser): Promise<InvoicesDto> {
    if (!this.stripe.configured)
      throw new AppError(BillingErrorCode.PAYMENTS_NOT_CONFIGURED, 'Payments are not configured');
    const { paymentCustomerId } = await this.users.get(user.id);
    if (!paymentCustomerId) return { invoices: [] };
    const page = await this.stripe.call('invoices.list', (s) =>
      s.invoices.list({ customer: paymentCustomerId, limit: 10 }),
    );
    return { invoices: page.data.slice(0, 10).map(mapInvoice) };
  }
}

/** `toMinorUnits` with its RangeError as a 400 (validation already bounds the decimals). */
function minor(amount: number): number {
  try {
    return toMinorUnits(amount);
  } catch {
    throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'amount must have at most two decimals');
  }
}
