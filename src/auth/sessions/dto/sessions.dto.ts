import { ApiProperty } from '@nestjs/swagger';

/** Why a listed session no longer works (null: it does). */
export const SESSION_END_REASONS = ['revoked', 'credentials_changed'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** One sign-in of mine, as GET /api/auth/sessions lists it. */
export class SignedInSessionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'the session this request was made with' }) current: boolean;
  @ApiProperty({ description: 'false once ended (`endReason`); expired sessions are not listed' })
  active: boolean;
  @ApiProperty({
    // null listed among the values too: JSON Schema checks `enum` before `nullable`.
    enum: [...SESSION_END_REASONS, null],
    nullable: true,
    type: String,
    description:
      '`revoked`: signed out or ended through this API; `credentials_changed`: a password ' +
      'change or reset, or two-factor on, off or reset by an admin, ended every earlier session',
  })
  endReason: SessionEndReason | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'last request, recorded at most once a minute' })
  lastSeenAt: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Mozilla/5.0 (X11; Linux x86_64)' })
  userAgent: string | null;
  @ApiProperty({ nullable: true, type: String, example: '203.0.113.7' }) ip: string | null;
}

/** GET /api/auth/sessions. */
export class SessionListDto {
  @ApiProperty({ type: [SignedInSessionDto], description: 'newest first, at most 200' })
  sessions: SignedInSessionDto[];
}

/** DELETE /api/auth/sessions and /api/auth/sessions/{id}. */
export class EndedSessionsDto {
  @ApiProperty({
    type: 'integer',
    description: 'sessions this call ended (0: already ended)',
    example: 2,
  })
  ended: number;
}

/** A row of LIST_SESSIONS_SQL. */
export interface SessionRow {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ip: string | null;
  revokedAt: Date | null;
  superseded: boolean;
}

/** The listed shape of `row`; `currentSid` is the caller's own session. */
export function mapSignedInSession(
  row: SessionRow,
  currentSid: string | undefined,
): SignedInSessionDto {
  const endReason: SessionEndReason | null = row.revokedAt
    ? 'revoked'
    : row.superseded
      ? 'credentials_changed'
      : null;
  return {
    id: row.id,
    current: row.id === currentSid,
    active: endReason === null,
    endReason,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    userAgent: row.userAgent,
    ip: row.ip,
  };
}
