import { OpenAiTestServer } from './openai-server';

/**
 * `npm run mock:openai`: the local OpenAI-compatible server from the tests, on a fixed port,
 * for trying the metered AI path without a real key. Every reply reports 10 prompt and
 * 20 completion tokens.
 */
async function main(): Promise<void> {
  const server = await new OpenAiTestServer().start(Number(process.env.MOCK_OPENAI_PORT ?? 4010));
  console.log(`OpenAI-compatible test server: OPENAI_BASE_URL=${server.url}`);
}

void main();
