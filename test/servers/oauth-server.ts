import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Google account that approves the next authorization (OpenID userinfo shape). */
export interface GoogleAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

/** The GitHub account that approves the next authorization: `GET /user` plus its emails. */
export interface GitHubAccount {
  id: number;
  login: string;
  name?: string | null;
  /** The public profile email (often null). */
  email?: string | null;
  avatar_url?: string;
  emails: { email: string; primary: boolean; verified: boolean; visibility?: string | null }[];
}

type ProviderId = 'google' | 'github';
type Account = GoogleAccount | GitHubAccount;

/** One request as the server received it; `form` is the parsed urlencoded body. */
export interface OAuthRequest {
  provider: ProviderId;
  method: string;
  /** Path and query, e.g. `/google/auth?client_id=…`. */
  url: string;
  headers: IncomingMessage['headers'];
  form?: Record<string, string>;
}

/** Client credentials the server accepts, per provider. */
export const OAUTH_CLIENTS = {
  google: { id: 'test-client.apps.googleusercontent.com', secret: 'GOCSPX-test-secret' },
  github: { id: 'Iv1.testclient', secret: 'github-test-secret' },
} as const;

const token = () => randomBytes(16).toString('hex');

/**
 * A local OAuth 2.0 authorization server speaking Google's and GitHub's protocols on
 * 127.0.0.1: the authorization endpoint approves at once as `google` / `github` (or answers
 * `?error=` when `deny` is set) and redirects back with code and state; the token endpoint
 * checks client credentials, redirect_uri and the single-use code; the user endpoints answer
 * in the providers' real shapes for the issued bearer token.
 */
export class OAuthTestServer {
  url = '';
  google: GoogleAccount = { sub: '1', email: 'g@example.com', email_verified: true };
  github: GitHubAccount = { id: 1, login: 'octocat', emails: [] };
  /** Answer the next authorizations with this `error` (e.g. `access_denied`) instead of a code. */
  deny?: string;
  readonly requests: OAuthRequest[] = [];
  private readonly codes = new Map<
    string,
    { provider: ProviderId; redirectUri: string; account: Account }
  >();
  private readonly tokens = new Map<string, { provider: ProviderId; account: Account }>();
  private server?: Server;

  /** Configuration pointing the app at this server for both providers. */
  env(): Record<string, string> {
    return {
      GOOGLE_CLIENT_ID: OAUTH_CLIENTS.google.id,
      GOOGLE_CLIENT_SECRET: OAUTH_CLIENTS.google.secret,
      GOOGLE_AUTHORIZATION_URL: `${this.url}/google/o/oauth2/v2/auth`,
      GOOGLE_TOKEN_URL: `${this.url}/google/token`,
      GOOGLE_USERINFO_URL: `${this.url}/google/v1/userinfo`,
      GITHUB_CLIENT_ID: OAUTH_CLIENTS.github.id,
      GITHUB_CLIENT_SECRET: OAUTH_CLIENTS.github.secret,
      GITHUB_AUTHORIZATION_URL: `${this.url}/github/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${this.url}/github/login/oauth/access_token`,
      GITHUB_USER_URL: `${this.url}/github/api/user`,
      GITHUB_EMAILS_URL: `${this.url}/github/api/user/emails`,
    };
  }

  /** The next Google approval comes from this account. */
  asGoogle(sub: string, email: string, verified = true): void {
    const picture = 'https://lh3.googleusercontent.com/a/x';
    this.google = { sub, email, email_verified: verified, name: 'Grace G', picture };
  }

  /** The next GitHub approval: `email` primary (verified or not), another verified address. */
  asGitHub(id: number, email: string, verified = true): void {
    this.github = {
      id,
      login: `dev${id}`,
      emails: [
        { email: `other${id}@example.com`, primary: false, verified: true },
        { email, primary: true, verified, visibility: 'private' },
      ],
    };
  }

  /** Requests to one endpoint kind of a provider. */
  calls(provider: ProviderId, kind: 'authorize' | 'token' | 'user' | 'emails'): OAuthRequest[] {
    return this.requests.filter((r) => r.provider === provider && route(r.url)?.[1] === kind);
  }

  reset(): void {
    this.deny = undefined;
    this.requests.length = 0;
  }

  /** Listens on 127.0.0.1:`port` (0 = any free port). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => this.handle(req, raw, res));
    });
    await new Promise<void>((done) => this.server!.listen(port, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((done) => this.server?.close(() => done()) ?? done());
  }

  private handle(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const found = route(req.url ?? '');
    if (!found) return json(res, 404, { message: 'Not Found' });
    const [provider, kind] = found;
    const form = raw ? Object.fromEntries(new URLSearchParams(raw)) : undefined;
    this.requests.push({
      provider,
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      form,
    });
    const query = new URL(req.url ?? '', this.url).searchParams;
    if (kind === 'authorize') return this.authorize(provider, query, res);
    if (kind === 'token') return this.exchange(provider, req, form ?? {}, res);
    // Google also takes `?access_token=` (the app should not send it in the URL; tests check).
    const bearer =
      /^(?:Bearer|token) (\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ??
      (provider === 'google' ? query.get('access_token') : null);
    const grant = bearer ? this.tokens.get(bearer) : undefined;
    if (!grant || grant.provider !== provider) {
      return provider === 'google'
        ? json(res, 401, { error: 'invalid_request', error_description: 'Invalid Credentials' })
        : json(res, 401, { message: 'Bad credentials', status: '401' });
    }
    if (provider === 'google') return json(res, 200, grant.account);
    const { emails, ...user } = grant.account as GitHubAccount;
    if (kind === 'emails') return json(res, 200, emails);
    const { login, id } = user;
    json(res, 200, {
      login,
      id,
      node_id: `U_${id}`,
      avatar_url: user.avatar_url ?? `https://avatars.githubusercontent.com/u/${id}?v=4`,
      html_url: `https://github.com/${login}`,
      type: 'User',
      name: user.name ?? null,
      email: user.email ?? null,
    });
  }

  private authorize(provider: ProviderId, q: URLSearchParams, res: ServerResponse): void {
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== OAUTH_CLIENTS[provider].id || !redirectUri)
      return text(res, 400, 'invalid client_id or redirect_uri');
    const back = new URL(redirectUri);
    if (this.deny) {
      back.searchParams.set('error', this.deny);
    } else if (q.get('response_type') !== 'code') {
      back.searchParams.set('error', 'unsupported_response_type');
    } else {
      const code = token();
      const account = structuredClone(provider === 'google' ? this.google : this.github);
      this.codes.set(code, { provider, redirectUri, account });
      back.searchParams.set('code', code);
    }
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.toString() }).end();
  }

  private exchange(
    provider: ProviderId,
    req: IncomingMessage,
    form: Record<string, string>,
    res: ServerResponse,
  ): void {
    const client = OAUTH_CLIENTS[provider];
    const grant = this.codes.get(form.code);
    this.codes.delete(form.code); // a code serves once, even when the exchange fails
    let error: string | undefined;
    if (form.client_id !== client.id || form.client_secret !== client.secret)
      error = provider === 'google' ? 'invalid_client' : 'incorrect_client_credentials';
    else if (form.grant_type !== 'authorization_code') error = 'unsupported_grant_type';
    else if (!grant || grant.provider !== provider || grant.redirectUri !== form.redirect_uri)
      error = provider === 'google' ? 'invalid_grant' : 'bad_verification_code';

    const accessToken = error ? undefined : `${provider === 'google' ? 'ya29.' : 'gho_'}${token()}`;
    if (accessToken) this.tokens.set(accessToken, { provider, account: grant!.account });
    if (provider === 'google') {
      return error
        ? json(res, 400, { error, error_description: 'Bad Request' })
        : json(res, 200, {
            access_token: accessToken,
            expires_in: 3599,
            scope: 'openid https://www.googleapis.com/auth/userinfo.email',
            token_type: 'Bearer',
          });
    }
    // GitHub answers 200 even for errors, urlencoded unless JSON is asked for.
    const body: Record<string, string> = error
      ? { error, error_description: 'The code passed is incorrect or expired.' }
      : { access_token: accessToken!, scope: 'read:user,user:email', token_type: 'bearer' };
    if (/application\/json/.test(req.headers.accept ?? '')) return json(res, 200, body);
    res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' });
    res.end(new URLSearchParams(body).toString());
  }
}

const ROUTES: [RegExp, ProviderId, 'authorize' | 'token' | 'user' | 'emails'][] = [
  [/^\/google\/o\/oauth2\/v2\/auth$/, 'google', 'authorize'],
  [/^\/google\/token$/, 'google', 'token'],
  [/^\/google\/v1\/userinfo$/, 'google', 'user'],
  [/^\/github\/login\/oauth\/authorize$/, 'github', 'authorize'],
  [/^\/github\/login\/oauth\/access_token$/, 'github', 'token'],
  [/^\/github\/api\/user$/, 'github', 'user'],
  [/^\/github\/api\/user\/emails$/, 'github', 'emails'],
];

function route(url: string): [ProviderId, 'authorize' | 'token' | 'user' | 'emails'] | undefined {
  const path = url.split('?')[0];
  const hit = ROUTES.find(([re]) => re.test(path));
  return hit ? [hit[1], hit[2]] : undefined;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
}
