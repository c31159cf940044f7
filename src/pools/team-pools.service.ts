import { Injectable } from '@nestjs/common';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { TeamLedgerService, type PoolMemberUsage } from '../credits/team-ledger.service';
import { TeamsService } from '../teams/teams.service';
import type { PoolMemberUsageDto, TeamPoolDto, TeamPoolUsageDto } from './dto/team-pool.dto';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;

/**
 * A team's credit pool as its members use it: any member reads the balance and their own use;
 * OWNERs and ADMINs fund it (a transfer from their own balance) and read every member's use.
 * Roles are read on every call (TeamsService): a non-member gets 404, a MEMBER 403 for an
 * OWNER/ADMIN action, and nothing changes. Spending is not here: a call in the team's context
 * holds from the pool in the admission statement (CreditHoldsService).
 */
@Injectable()
export class TeamPoolsService {
  constructor(
    private readonly teams: TeamsService,
    private readonly ledger: TeamLedgerService,
    private readonly clock: Clock,
  ) {}

  /** The pool's balance, held credits and the caller's use over the last `days` (default 30). */
  async get(user: SessionUser, teamId: string, days?: number): Promise<TeamPoolDto> {
    const role = await this.teams.requireTeamRole(user, teamId, 'MEMBER');
    const since = this.since(days);
    const [pool, [mine]] = await Promise.all([
      this.ledger.balance(teamId),
      this.ledger.usage(teamId, since, user.id),
    ]);
    return {
      teamId,
      credits: pool.credits,
      held: pool.held,
      role,
      since: since.toISOString(),
      mine: mine ? mapUsage(mine) : { userId: user.id, spent: 0, calls: 0, funded: 0 },
    };
  }

  /** Every member's use over the last `days` (OWNER or ADMIN), most spent first. */
  async usage(user: SessionUser, teamId: string, days?: number): Promise<TeamPoolUsageDto> {
    await this.teams.requireTeamRole(user, teamId, 'ADMIN');
    const since = this.since(days);
    const rows = await this.ledger.usage(teamId, since);
    const members = rows.map(mapUsage).sort((a, b) => b.spent - a.spent || b.calls - a.calls);
    return { teamId, since: since.toISOString(), members };
  }

  /**
   * Moves `amount` credits from the caller's own balance to the pool (OWNER or ADMIN): one
   * transaction, two entries. 402 when the caller's balance is short.
   */
  async transfer(
    user: SessionUser,
    teamId: string,
    amount: number,
  ): Promise<{ credits: number; balance: number }> {
    await this.teams.requireTeamRole(user, teamId, 'ADMIN');
    const { balance, pool } = await this.ledger.transfer(user.id, teamId, amount);
    return { credits: pool, balance };
  }

  private since(days = DEFAULT_DAYS): Date {
    return new Date(this.clock.now().getTime() - days * DAY_MS);
  }
}

function mapUsage(u: PoolMemberUsage): PoolMemberUsageDto {
  return { userId: u.memberId, spent: u.spent, calls: u.calls, funded: u.funded };
}
