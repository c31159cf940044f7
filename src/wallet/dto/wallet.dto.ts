import Decimal from 'decimal.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  ValidateBy,
} from 'class-validator';
import { PURCHASE_CURRENCIES, type PurchaseCurrency } from '../../billing/purchase.entity';
import { MAX_PACK_AMOUNT, MAX_PACK_CREDITS, PACK_ID } from '../credit-packs';

/** A finite number with at most two decimals (minor units are whole). */
function IsMajorUnits() {
  return ValidateBy({
    name: 'isMajorUnits',
    validator: {
      validate: (v: unknown) =>
        typeof v === 'number' && Number.isFinite(v) && new Decimal(v).decimalPlaces() <= 2,
      defaultMessage: () => '$property must be a number with at most two decimals',
    },
  });
}

/** A credit pack on sale: `credits` for `amount` major units of `currency`. */
export class CreditPackDto {
  @ApiProperty({ example: 'starter' }) id: string;
  @ApiProperty({ type: 'integer', example: 1000 }) credits: number;
  @ApiProperty({ example: 10, description: 'major units of `currency`' }) amount: number;
  @ApiProperty({ enum: PURCHASE_CURRENCIES, example: 'usd' }) currency: PurchaseCurrency;
}

/** `GET /api/credits/packs`: the packs on sale, cheapest first. */
export class CreditPacksDto {
  @ApiProperty({ type: [CreditPackDto] }) packs: CreditPackDto[];
}

/** A pack as an admin sees it: where it comes from and whether it is on sale. */
export class AdminCreditPackDto extends CreditPackDto {
  @ApiProperty({
    enum: ['env', 'admin'],
    description: '`env`: CREDIT_PACKS as configured; `admin`: an admin edit overrides or adds it',
  })
  source: 'env' | 'admin';
  @ApiProperty({ description: 'false: taken off sale by an admin' }) active: boolean;
}

/** `GET /api/admin/credit-packs`: every pack, on sale or not. */
export class AdminCreditPacksDto {
  @ApiProperty({ type: [AdminCreditPackDto] }) packs: AdminCreditPackDto[];
}

/** `DELETE /api/admin/credit-packs/{pack}`: the admin edit is gone. */
export class CreditPackDeletedDto {
  @ApiProperty({ example: 'starter' }) id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}

/** `PUT /api/admin/credit-packs/{pack}`: the pack as it is to be sold (replaces the env's). */
export class SetCreditPackDto {
  @ApiProperty({ type: 'integer', example: 1000, minimum: 1, maximum: MAX_PACK_CREDITS })
  @IsInt()
  @Min(1)
  @Max(MAX_PACK_CREDITS)
  credits: number;

  @ApiProperty({ example: 10, minimum: 0.5, maximum: MAX_PACK_AMOUNT, description: 'major units' })
  @IsMajorUnits()
  @Min(0.5)
  @Max(MAX_PACK_AMOUNT)
  amount: number;

  @ApiProperty({ enum: PURCHASE_CURRENCIES })
  @IsIn(PURCHASE_CURRENCIES)
  currency: PurchaseCurrency;

  @ApiPropertyOptional({ default: true, description: 'false takes the pack off sale' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

/** The `{pack}` (a pack id) of an admin pack route. */
export class PackParamDto {
  @ApiProperty({ example: 'starter' })
  @IsString()
  @Matches(PACK_ID, { message: 'pack is 1-64 letters, digits, "-" or "_"' })
  pack: string;
}

/** `POST /api/credits/checkout`: buy pack `packId` through Stripe Checkout. */
export class PackCheckoutDto {
  @ApiProperty({ example: 'starter', description: 'a pack of `GET /api/credits/packs`' })
  @IsString()
  @Matches(PACK_ID, { message: 'packId is 1-64 letters, digits, "-" or "_"' })
  packId: string;

  @ApiPropertyOptional({
    default: false,
    description: 'save the card for later payments (card only, then)',
  })
  @IsOptional()
  @IsBoolean()
  saveCard?: boolean;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "buy for this team's credit pool (its OWNER or ADMIN only: 403 for a MEMBER, 404 for " +
      'anyone else)',
  })
  @IsOptional()
  @IsUUID()
  teamId?: string;
}

/** `POST /api/billing/checkout`: subscribe to `plan` through Stripe Checkout. */
export class PlanCheckoutDto {
  @ApiProperty({ enum: ['BASIC', 'PRO'], example: 'PRO' })
  @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(['BASIC', 'PRO'])
  plan: 'BASIC' | 'PRO';
}

/** A Checkout Session to send the browser to. */
export class CheckoutSessionDto {
  @ApiProperty({ example: 'https://checkout.stripe.com/c/pay/cs_test_a1b2' }) url: string;
  @ApiProperty({ example: 'cs_test_a1b2' }) sessionId: string;
}

/** `POST /api/billing/portal`: the customer portal's page for this user. */
export class PortalSessionDto {
  @ApiProperty({ example: 'https://billing.stripe.com/p/session/test_a1b2' }) url: string;
}
