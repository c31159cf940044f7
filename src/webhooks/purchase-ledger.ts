import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuditTargetType } from '../audit/audit-event.entity';
import { CreditsService, type LedgerAccount } from '../credits/credits.service';
import { TeamLedgerService } from '../credits/team-ledger.service';

/**
 * The account a purchase granted its credits to, as its refunds and disputes act on it: the
 * buyer's own balance, or the team's pool for a purchase made for a team. Both follow one rule:
 * a clawback is one REFUND entry on that account, bounded by its balance (never below 0, the
 * shortfall written in the entry, nothing owed later); a give-back is one ADJUSTMENT entry; each
 * keyed by its reference (once), in the caller's transaction with its balance change.
 */
@Injectable()
export class PurchaseLedger {
  constructor(
    private readonly credits: CreditsService,
    private readonly teamLedger: TeamLedgerService,
  ) {}

  /** The entry recorded under `reference` with its account, or null. */
  find(reference: string, m: EntityManager) {
    return this.credits.findByReference(reference, m);
  }

  /** Σ of the account's entries whose reference starts with `prefix`, in credits (signed). */
  sum(account: LedgerAccount, prefix: string, m: EntityManager): Promise<number> {
    return account.kind === 'team'
      ? this.teamLedger.sumByReferencePrefix(account.id, prefix, m)
      : this.credits.sumByReferencePrefix(account.id, prefix, m);
  }

  /** Takes back up to `amount` credits once per `reference`; returns the credits taken. */
  clawback(
    account: LedgerAccount,
    amount: number,
    reference: string,
    description: string,
    m: EntityManager,
  ): Promise<number> {
    return account.kind === 'team'
      ? this.teamLedger.clawback(account.id, amount, reference, description, m)
      : this.credits.clawback(account.id, amount, reference, description, m);
  }

  /** Gives `amount` credits back as an ADJUSTMENT once per `reference`; false when seen before. */
  giveBack(
    account: LedgerAccount,
    amount: number,
    reference: string,
    description: string,
    m: EntityManager,
  ): Promise<boolean> {
    return account.kind === 'team'
      ? this.teamLedger.grant(account.id, null, amount, 'ADJUSTMENT', description, reference, m)
      : this.credits.grant(account.id, amount, 'ADJUSTMENT', description, reference, m);
  }

  /** The audit target of the account. */
  target(account: LedgerAccount): { targetType: AuditTargetType; targetId: string } {
    return { targetType: account.kind, targetId: account.id };
  }
}
