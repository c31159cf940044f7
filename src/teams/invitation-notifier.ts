import { Injectable, Logger } from '@nestjs/common';
import type { TeamRole } from './team-role';

/** What a mailer needs to tell someone they were invited. */
export interface InvitationNotice {
  email: string;
  teamId: string;
  teamName: string;
  role: TeamRole;
  /** `{APP_BASE_URL}/invitations/accept?token=…`: carries the secret token. */
  acceptUrl: string;
  expiresAt: Date;
  invitedBy: { id: string; name: string | null; email: string };
}

/**
 * The seam for delivering invitations (the default only logs; no mail is sent). Bind another class
 * to this token to send mail; a failure is logged and does not undo the invitation.
 */
export abstract class InvitationNotifier {
  abstract notify(notice: InvitationNotice): Promise<void>;
}

/** Default: logs the accept URL at debug level (so it is silent at the default `info`). */
@Injectable()
export class LoggingInvitationNotifier extends InvitationNotifier {
  private readonly logger = new Logger('Invitations');

  async notify(notice: InvitationNotice): Promise<void> {
    this.logger.debug(
      `Invitation to ${notice.email} for team ${notice.teamId} as ${notice.role}: ${notice.acceptUrl}`,
    );
  }
}
