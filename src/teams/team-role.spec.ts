import { hasTeamRole, memberChangeDenied, type TeamRole } from './team-role';

describe('team roles', () => {
  it('orders OWNER > ADMIN > MEMBER', () => {
    expect(hasTeamRole('OWNER', 'ADMIN')).toBe(true);
    expect(hasTeamRole('ADMIN', 'ADMIN')).toBe(true);
    expect(hasTeamRole('MEMBER', 'ADMIN')).toBe(false);
    expect(hasTeamRole('ADMIN', 'OWNER')).toBe(false);
  });

  // [actor, target, next (null = remove), allowed]
  const others: [TeamRole, TeamRole, TeamRole | null, boolean][] = [
    ['OWNER', 'OWNER', 'MEMBER', true],
    ['OWNER', 'ADMIN', null, true],
    ['OWNER', 'MEMBER', 'OWNER', true],
    ['ADMIN', 'MEMBER', 'ADMIN', true],
    ['ADMIN', 'MEMBER', 'MEMBER', true],
    ['ADMIN', 'MEMBER', null, true],
    ['ADMIN', 'MEMBER', 'OWNER', false],
    ['ADMIN', 'ADMIN', 'MEMBER', false],
    ['ADMIN', 'ADMIN', null, false],
    ['ADMIN', 'OWNER', 'MEMBER', false],
    ['ADMIN', 'OWNER', null, false],
    ['MEMBER', 'MEMBER', null, false],
    ['MEMBER', 'MEMBER', 'ADMIN', false],
  ];
  it.each(others)('%s changing another %s to %s: allowed=%s', (actor, target, next, ok) => {
    expect(memberChangeDenied(actor, target, next, false) === null).toBe(ok);
  });

  it('lets anyone leave or lower their own role, never raise it', () => {
    for (const role of ['OWNER', 'ADMIN', 'MEMBER'] as const) {
      expect(memberChangeDenied(role, role, null, true)).toBeNull();
      expect(memberChangeDenied(role, role, 'MEMBER', true)).toBeNull();
    }
    expect(memberChangeDenied('MEMBER', 'MEMBER', 'ADMIN', true)).not.toBeNull();
    expect(memberChangeDenied('ADMIN', 'ADMIN', 'OWNER', true)).not.toBeNull();
  });
});
