import { OAuthTestServer } from './oauth-server';

/**
 * `npm run mock:oauth`: the local Google and GitHub OAuth 2.0 server from the tests, on a fixed
 * port (MOCK_OAUTH_PORT, default 4020), for trying social login without real apps. Every
 * authorization is approved at once as MOCK_OAUTH_EMAIL (default ada@example.com), verified
 * unless MOCK_OAUTH_UNVERIFIED=1. Prints the variables to start the API with.
 */
async function main(): Promise<void> {
  const server = await new OAuthTestServer().start(Number(process.env.MOCK_OAUTH_PORT ?? 4020));
  const email = process.env.MOCK_OAUTH_EMAIL ?? 'ada@example.com';
  const verified = !['1', 'true'].includes(process.env.MOCK_OAUTH_UNVERIFIED ?? '');
  server.asGoogle('google-local-1', email, verified);
  server.asGitHub(1001, email, verified);
  const env = Object.entries(server.env()).map(([k, v]) => `${k}=${v}`);
  console.log(`OAuth test server on ${server.url}, approving as ${email} (verified: ${verified})`);
  console.log(`Start the API with:\n${env.join(' \\\n')} npm start`);
}

void main();
