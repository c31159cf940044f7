import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { featureEnvironment, toInt } from '../config/feature-environment';

/** Team invitations. */
export class TeamsEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(365) INVITATION_TTL_DAYS?: number;
}

/** The `teams` slice of AppConfig. */
export interface TeamsConfig {
  /** Days before a team invitation expires (default 7). */
  invitationTtlDays: number;
}

/** The `teams` slice from validated variables. */
export function buildTeamsConfig(env: TeamsEnvironment): TeamsConfig {
  return { invitationTtlDays: env.INVITATION_TTL_DAYS ?? 7 };
}

/** The `teams` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const teamsConfig = registerAs('teams', (): TeamsConfig =>
  buildTeamsConfig(featureEnvironment(TeamsEnvironment)),
);
