import { decideRoute, parsePath, type RouteDecision } from './route-rules';

const ALLOW: RouteDecision = { action: 'allow' };
const NOT_FOUND: RouteDecision = { action: 'notFound' };
const to = (location: string): RouteDecision => ({ action: 'redirect', location });

const SESSIONS = { none: null, USER: { role: 'USER' }, ADMIN: { role: 'ADMIN' } } as const;
type SessionName = keyof typeof SESSIONS;

/** [path, expected without a session, with a USER session, with an ADMIN session]. */
const TABLE: [string, RouteDecision, RouteDecision, RouteDecision][] = [
  // Locale prefix (spec Authentication 8)
  ['/', to('/en'), to('/en'), to('/en')],
  ['/?ref=mail', to('/en?ref=mail'), to('/en?ref=mail'), to('/en?ref=mail')],
  ['/dashboard', to('/en/dashboard'), to('/en/dashboard'), to('/en/dashboard')],
  [
    '/admin/users?page=2',
    to('/en/admin/users?page=2'),
    to('/en/admin/users?page=2'),
    to('/en/admin/users?page=2'),
  ],
  ['/en', ALLOW, ALLOW, ALLOW],
  ['/zh/', ALLOW, ALLOW, ALLOW],
  ['/fr', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  ['/fr/dashboard', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  ['/zh-CN/admin', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  ['/EN/dashboard', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  // Dashboard needs a session (spec Authentication 7)
  ['/en/dashboard', to('/en/auth/signin?callbackUrl=%2Fen%2Fdashboard'), ALLOW, ALLOW],
  [
    '/zh/dashboard/settings?tab=billing',
    to('/zh/auth/signin?callbackUrl=%2Fzh%2Fdashboard%2Fsettings%3Ftab%3Dbilling'),
    ALLOW,
    ALLOW,
  ],
  ['/en//Dashboard/', to('/en/auth/signin?callbackUrl=%2Fen%2FDashboard%2F'), ALLOW, ALLOW],
  ['/en/%64ashboard', to('/en/auth/signin?callbackUrl=%2Fen%2F%2564ashboard'), ALLOW, ALLOW],
  ['/en/dashboardish', ALLOW, ALLOW, ALLOW],
  // Admin needs role ADMIN
  ['/en/admin', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/zh/admin/users', to('/zh/unauthorized'), to('/zh/unauthorized'), ALLOW],
  ['/en/ADMIN/users', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/en/x/../admin', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/en/%2e%2e/en/admin', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  ['/en/admin%2Fusers', to('/en/unauthorized'), to('/en/unauthorized'), ALLOW],
  // Public pages
  ['/en/auth/signin', ALLOW, ALLOW, ALLOW],
  ['/zh/auth/signup', ALLOW, ALLOW, ALLOW],
  ['/en/unauthorized', ALLOW, ALLOW, ALLOW],
  ['/zh/payment/success?payment_intent=pi_1', ALLOW, ALLOW, ALLOW],
  ['/en/share/3q2-7wEjdQ_x9Jk1c0bZ5mH8tLr4uVvA2yN6pQsDfGh', ALLOW, ALLOW, ALLOW],
  ['/zh/SHARE/abc', ALLOW, ALLOW, ALLOW],
  ['/en/pricing', ALLOW, ALLOW, ALLOW],
  // Not page paths: the rules do not apply
  ['/api/users', ALLOW, ALLOW, ALLOW],
  ['/API/admin', ALLOW, ALLOW, ALLOW],
  ['/_next/static/chunk', ALLOW, ALLOW, ALLOW],
  ['/_vercel/insights', ALLOW, ALLOW, ALLOW],
  ['/uploads/1700000000000-a', ALLOW, ALLOW, ALLOW],
  ['/favicon.ico', ALLOW, ALLOW, ALLOW],
  ['/en/admin/report.pdf', ALLOW, ALLOW, ALLOW],
  ['/health/live', ALLOW, ALLOW, ALLOW],
  ['/v1/models/gpt-4o-mini', ALLOW, ALLOW, ALLOW],
  ['/V1/unknown', ALLOW, ALLOW, ALLOW],
  ['/v1', ALLOW, ALLOW, ALLOW],
  // Undecodable
  ['/en/%E0%A4%A', NOT_FOUND, NOT_FOUND, NOT_FOUND],
  ['/en/dashboard%00', NOT_FOUND, NOT_FOUND, NOT_FOUND],
];

describe('decideRoute', () => {
  const rows = TABLE.flatMap(([path, ...expected]) =>
    (Object.keys(SESSIONS) as SessionName[]).map((name, i) => [path, name, expected[i]] as const),
  );

  it.each(rows)('%s with session %s', (path, session, expected) => {
    expect(decideRoute(path, SESSIONS[session], undefined)).toEqual(expected);
  });

  it('redirects unprefixed paths to /zh when Accept-Language prefers Chinese', () => {
    const zh = 'zh-CN,zh;q=0.9,en;q=0.8';
    expect(decideRoute('/', null, zh)).toEqual(to('/zh'));
    expect(decideRoute('/dashboard?x=1', null, zh)).toEqual(to('/zh/dashboard?x=1'));
    expect(decideRoute('/dashboard', null, 'en-US,zh;q=0.5')).toEqual(to('/en/dashboard'));
    // The prefix in the path wins over the header.
    expect(decideRoute('/en/dashboard', { role: 'USER' }, zh)).toEqual(ALLOW);
  });

  it('never builds an off-site redirect', () => {
    for (const path of ['//evil.example/dashboard', '/\\evil.example/x', '//evil/dashboard']) {
      const decision = decideRoute(path, null, undefined);
      if (decision.action === 'redirect') expect(decision.location).toMatch(/^\/(en|zh)(\/|$)/);
      if (decision.action === 'redirect') expect(decision.location).not.toMatch(/^\/\//);
    }
  });

  it('treats a role other than ADMIN, or no role, as not an admin', () => {
    expect(decideRoute('/en/admin', { role: 'admin' }, undefined)).toEqual(to('/en/unauthorized'));
    expect(decideRoute('/en/admin', {}, undefined)).toEqual(to('/en/unauthorized'));
  });
});

describe('parsePath', () => {
  it('is invalid without a leading slash or when too long', () => {
    expect(parsePath('en/admin')).toEqual({ kind: 'invalid' });
    expect(parsePath('https://evil.example/en')).toEqual({ kind: 'invalid' });
    expect(parsePath(`/en/${'a'.repeat(2100)}`)).toEqual({ kind: 'invalid' });
  });

  it('decodes segments and keeps the encoded, collapsed pathname', () => {
    expect(parsePath('/zh//dashboard/%E8%AE%BE%E7%BD%AE?a=1')).toEqual({
      kind: 'page',
      segments: ['zh', 'dashboard', '设置'],
      pathname: '/zh/dashboard/%E8%AE%BE%E7%BD%AE',
      search: '?a=1',
    });
  });

  it('treats encoded dots and prefixes as what they decode to', () => {
    expect(parsePath('/en/a%2ejs').kind).toBe('nonPage');
    expect(parsePath('/%61pi/users').kind).toBe('nonPage');
    expect(parsePath('/apiary').kind).toBe('nonPage');
  });

  it('leaves /v1 to the OpenAI wire protocol: never a page, nor a frontend asset', () => {
    expect(parsePath('/v1/models/gpt-4.1-mini')).toEqual({
      kind: 'nonPage',
      segments: ['v1', 'models', 'gpt-4.1-mini'],
      asset: false,
    });
    expect(parsePath('/%761/x').kind).toBe('nonPage');
    // Only the whole first segment: `/v1beta` is an ordinary (unprefixed) page path.
    expect(parsePath('/v1beta').kind).toBe('page');
  });
});
