export const TEAM_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const RANK: Record<TeamRole, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

/** True when `role` is `min` or above it (OWNER > ADMIN > MEMBER). */
export function hasTeamRole(role: TeamRole, min: TeamRole): boolean {
  return RANK[role] >= RANK[min];
}

/**
 * Why `actor` may not give the member `target` the role `next` (`null` = remove them), or null
 * when allowed. Rules: only an OWNER grants or removes OWNER; an ADMIN manages MEMBERs
 * (changes them to MEMBER or ADMIN, removes them); a MEMBER manages nobody. Anyone may leave or
 * lower their own role. The last-owner rule is checked separately, under a lock.
 */
export function memberChangeDenied(
  actor: TeamRole,
  target: TeamRole,
  next: TeamRole | null,
  self: boolean,
): string | null {
  if (self) {
    return next === null || RANK[next] <= RANK[actor] ? null : 'You cannot raise your own role';
  }
  if (actor === 'OWNER') return null;
  if (actor === 'MEMBER') return 'Managing members requires the team role ADMIN or OWNER';
  if (target !== 'MEMBER') return 'Only an OWNER may change or remove an ADMIN or OWNER';
  if (next === 'OWNER') return 'Only an OWNER may grant OWNER';
  return null;
}
