import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/** Team invitations. */
export class TeamsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(365) INVITATION_TTL_DAYS?: number;
}

/** The `teams` slice. */
export interface TeamsConfig {
  /** Days before a team invitation expires (default 7). */
  invitationTtlDays: number;
}

/** The `teams` slice from validated variables. */
export function buildTeamsConfig(env: TeamsEnvironment): TeamsConfig {
  return { invitationTtlDays: env.INVITATION_TTL_DAYS ?? 7 };
}

/** The `teams` slice, read by its module with `@Inject(teamsConfig.KEY)`. */
export const teamsConfig = defineConfigSlice({
  name: 'teams',
  environment: TeamsEnvironment,
  build: buildTeamsConfig,
});
