import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InvitationNotifier, LoggingInvitationNotifier } from './invitation-notifier';
import { InvitationsController, TeamInvitationsController } from './invitations.controller';
import { TeamInvitation } from './team-invitation.entity';
import { TeamMember } from './team-member.entity';
import { TeamMembersController } from './team-members.controller';
import { TeamMembersService } from './team-members.service';
import { Team } from './team.entity';
import { TeamInvitationsService } from './team-invitations.service';
import { TeamsController } from './teams.controller';
import { TeamsService } from './teams.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { teamsConfig } from './teams.config';

/**
 * Teams, members, roles and invitations. Exports TeamsService for membership questions
 * (`requireTeamRole`, `roleOf`, `teamIdsOf`); it imports no feature module, so `chats` can
 * depend on it and not the reverse. Replace the InvitationNotifier binding to send mail.
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(teamsConfig),
    TypeOrmModule.forFeature([Team, TeamMember, TeamInvitation]),
  ],
  controllers: [
    TeamsController,
    TeamMembersController,
    TeamInvitationsController,
    InvitationsController,
  ],
  providers: [
    TeamsService,
    TeamMembersService,
    TeamInvitationsService,
    { provide: InvitationNotifier, useClass: LoggingInvitationNotifier },
  ],
  exports: [TeamsService],
})
export class TeamsModule {}
