import * as bcrypt from 'bcrypt';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EmailVerificationService } from '../../src/auth/account/email-verification.service';
import { AuthService } from '../../src/auth/auth.service';
import { ChatsService } from '../../src/chats/chats.service';
import type { Chat } from '../../src/chats/chat.entity';
import type { SessionUser } from '../../src/common/auth/session-user';
import { CreditsService } from '../../src/credits/credits.service';
import { TeamLedgerService } from '../../src/credits/team-ledger.service';
import { TeamInvitationsService } from '../../src/teams/team-invitations.service';
import type { TeamRole } from '../../src/teams/team-role';
import type { Team } from '../../src/teams/team.entity';
import { TeamsService } from '../../src/teams/teams.service';
import type { Role, User } from '../../src/users/user.entity';
import { UsersService } from '../../src/users/users.service';
import type { TestApp } from './test-app';

/** Password of every factory user. */
export const PASSWORD = 'correct horse battery';
// Hashed once per test file at the production cost, instead of once per user.
let passwordHash: Promise<string> | undefined;

export interface TestUser {
  user: User;
  token: string;
  /** `{Authorization: 'Bearer …'}` for supertest's `.set()`. */
  auth: { Authorization: string };
}

/**
 * A user created through UsersService with a session token. Verified by default, through the
 * same service a followed link uses, so the sign-up bonus (SIGNUP_CREDITS) and ADMIN_EMAILS
 * apply as for a real user; `verified: false` leaves the address unproven.
 */
export async function newUser(
  t: TestApp,
  opts: { email?: string; name?: string; role?: Role; credits?: number; verified?: boolean } = {},
): Promise<TestUser> {
  passwordHash ??= bcrypt.hash(PASSWORD, 12);
  const users = t.app.get(UsersService);
  const email = opts.email ?? `user-${randomBytes(5).toString('hex')}@example.com`;
  let user = await users.create({
    email,
    name: opts.name ?? 'Test User',
    role: opts.role,
    passwordHash: await passwordHash,
  });
  if (opts.verified !== false) {
    const verification = t.app.get(EmailVerificationService);
    await t.app.get(DataSource).transaction((m) => verification.markVerified(user.id, m));
    user = await users.get(user.id);
  }
  if (opts.credits !== undefined) {
    await t.app.get(CreditsService).adjustTo(user.id, opts.credits, 'test balance');
    user = await users.get(user.id);
  }
  const { accessToken } = await t.app.get(AuthService).issueToken(user);
  return { user, token: accessToken, auth: { Authorization: `Bearer ${accessToken}` } };
}

/** The session user the JWT guard would attach for `u`. */
export function sessionOf(u: TestUser): SessionUser {
  return { id: u.user.id, email: u.user.email, name: u.user.name, role: u.user.role };
}

/**
 * A chat owned by `owner`, created through ChatsService, with optional messages; `teamId`
 * shares it with that team (the owner must be a member).
 */
export async function newChat(
  t: TestApp,
  owner: TestUser,
  opts: { title?: string; messages?: string[]; teamId?: string } = {},
): Promise<Chat> {
  const chats = t.app.get(ChatsService);
  const chat = await chats.create(sessionOf(owner), opts.title ?? 'A chat');
  for (const [i, content] of (opts.messages ?? []).entries()) {
    await chats.addMessage(chat.id, owner.user.id, i % 2 ? 'ASSISTANT' : 'USER', content);
  }
  if (opts.teamId) return chats.setTeam(sessionOf(owner), chat.id, opts.teamId);
  return chat;
}

/**
 * A team created by `owner` through TeamsService; each of `members` joins with its role
 * through a real invitation and accept.
 */
export async function newTeam(
  t: TestApp,
  owner: TestUser,
  opts: { name?: string; members?: [TestUser, TeamRole][] } = {},
): Promise<Team> {
  const { team } = await t.app
    .get(TeamsService)
    .create(sessionOf(owner), { name: opts.name ?? 'A team' });
  const invitations = t.app.get(TeamInvitationsService);
  for (const [member, role] of opts.members ?? []) {
    const { token } = await invitations.create(sessionOf(owner), team.id, {
      email: member.user.email,
      role,
    });
    await invitations.accept(sessionOf(member), token);
  }
  return team;
}

/**
 * Grants `credits` to the team's credit pool (an ADJUSTMENT entry of the pool, no member's
 * balance involved), so that calls in the team's context (a team chat) can be paid.
 */
export async function fundPool(t: TestApp, teamId: string, credits = 1000): Promise<void> {
  await t.app
    .get(TeamLedgerService)
    .grant(teamId, null, credits, 'ADJUSTMENT', 'test pool', `test-pool:${randomUUID()}`);
}

/** Σ ledger amounts and the stored balance of one user: equal at every commit. */
export async function ledgerOf(
  t: TestApp,
  userId: string,
): Promise<{ credits: number; ledgerSum: number; entries: number }> {
  const [row] = await t.db.query(
    `SELECT u.credits, COALESCE(SUM(ct.amount), 0)::int AS "ledgerSum", COUNT(ct.id)::int AS entries
     FROM users u LEFT JOIN credit_transactions ct ON ct."userId" = u.id WHERE u.id = $1 GROUP BY u.id`,
    [userId],
  );
  return row;
}
