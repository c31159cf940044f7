import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { formatMajor, toMinorUnits } from '../billing/money';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { CreditPackRow } from './credit-pack.entity';
import type { CreditPack } from './credit-packs';
import type { AdminCreditPackDto, CreditPackDto, SetCreditPackDto } from './dto/wallet.dto';
import { walletConfig } from './wallet.config';
import { WalletErrorCode } from './wallet.errors';

const byPrice = (a: CreditPackDto, b: CreditPackDto) =>
  a.currency.localeCompare(b.currency) || a.amount - b.amount || a.id.localeCompare(b.id);

/**
 * The credit packs: CREDIT_PACKS as configured, each replaced by an admin's edit of the same id
 * (`credit_packs`), plus the packs admins added. A pack whose edit says `active = false` is off
 * sale. Read on each request: an edit applies at once, on every instance.
 */
@Injectable()
export class CreditPacksService {
  constructor(
    @Inject(walletConfig.KEY) private readonly wallet: ConfigType<typeof walletConfig>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  /** The packs on sale, by currency then price. */
  async onSale(): Promise<CreditPackDto[]> {
    return (await this.all())
      .filter((p) => p.active)
      .map(({ id, credits, amount, currency }) => ({
        id,
        credits,
        amount,
        currency,
      }));
  }

  /** Pack `id` when it is on sale. Throws UNKNOWN_PACK (400) otherwise. */
  async require(id: string): Promise<CreditPack> {
    const pack = (await this.onSale()).find((p) => p.id === id);
    if (!pack) throw new AppError(WalletErrorCode.UNKNOWN_PACK, `No credit pack ${id} is on sale`);
    return pack;
  }

  /** Every pack, on sale or not, with where it comes from. */
  async all(): Promise<AdminCreditPackDto[]> {
    const rows = await this.dataSource.getRepository(CreditPackRow).find();
    const edited = new Map(rows.map((r) => [r.id, r]));
    const packs: AdminCreditPackDto[] = this.wallet.packs
      .filter((p) => !edited.has(p.id))
      .map((p) => ({ ...p, source: 'env', active: true }));
    for (const r of rows)
      packs.push({
        id: r.id,
        credits: r.credits,
        amount: Number(formatMajor(r.amount)),
        currency: r.currency,
        source: 'admin',
        active: r.active,
      });
    return packs.sort(byPrice);
  }

  /** Sets pack `id` as an admin edit (replacing the env's pack of that id), audited. */
  async set(admin: SessionUser, id: string, dto: SetCreditPackDto): Promise<AdminCreditPackDto> {
    const row: Omit<CreditPackRow, 'updatedAt'> = {
      id,
      credits: dto.credits,
      amount: toMinorUnits(dto.amount),
      currency: dto.currency,
      active: dto.active ?? true,
      updatedBy: admin.id,
    };
    await this.dataSource.transaction(async (m) => {
      await m.getRepository(CreditPackRow).upsert(row, ['id']);
      await this.audit.record(m, {
        action: 'credit_pack.set',
        targetType: 'credit_pack',
        targetId: id,
        details: {
          credits: dto.credits,
          amount: row.amount,
          currency: dto.currency,
          active: row.active,
        },
      });
    });
    return (await this.all()).find((p) => p.id === id)!;
  }

  /**
   * Removes the admin edit of pack `id`: the env's pack of that id (if any) is sold again as
   * configured. Throws NOT_FOUND (404) when the pack has no edit.
   */
  async reset(id: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const { affected } = await m.getRepository(CreditPackRow).delete({ id });
      if (!affected) throw new AppError(CommonErrorCode.NOT_FOUND, 'This pack has no admin edit');
      await this.audit.record(m, {
        action: 'credit_pack.delete',
        targetType: 'credit_pack',
        targetId: id,
      });
    });
  }
}
