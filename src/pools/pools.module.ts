import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { TeamsModule } from '../teams/teams.module';
import { TeamPoolsController } from './team-pools.controller';
import { TeamPoolsService } from './team-pools.service';

/**
 * Team credit pools as members use them (balance, funding, usage per member). The pool's ledger
 * is the credits module's (TeamLedgerService); the roles are the teams module's.
 */
@Module({
  imports: [CreditsModule, TeamsModule],
  controllers: [TeamPoolsController],
  providers: [TeamPoolsService],
})
export class PoolsModule {}
