import type { SessionUser } from '../../common/auth/session-user';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import type { CallRequest } from '../../models/call.types';

/**
 * The team whose pool pays for a call, else undefined (the caller's own balance): a team's API
 * key spends from its team (a request naming another team is refused, 400); else the request's
 * `teamId` (null: the caller's own balance even in a team chat); else the team the chat is
 * shared with. Membership is checked by the admission statement itself (NOT_FOUND).
 */
export function payingTeam(
  user: SessionUser,
  dto: CallRequest,
  chatTeamId: string | null,
): string | undefined {
  const keyTeam = user.apiKey?.teamId;
  if (keyTeam) {
    if (dto.teamId !== undefined && dto.teamId !== keyTeam)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        "This API key spends from its team's pool: teamId may name only that team",
      );
    return keyTeam;
  }
  if (dto.teamId !== undefined) return dto.teamId ?? undefined;
  return chatTeamId ?? undefined;
}
