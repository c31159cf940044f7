import { AnthropicTestServer } from './anthropic-server';
import { GeminiTestServer } from './gemini-server';
import { OpenAiTestServer } from './openai-server';

/**
 * `npm run mock:openai`: the local model servers from the tests, on fixed ports, for trying the
 * metered AI paths without real keys: OpenAI's wire protocol on MOCK_OPENAI_PORT (default 4010),
 * Anthropic's on MOCK_ANTHROPIC_PORT (4011) and Gemini's on MOCK_GEMINI_PORT (4012), so every
 * model of the catalogue is available. Each answers from the request (`auto`, see auto-reply.ts):
 * a call of the first offered tool (or the forced one) with arguments fitting its schema, JSON
 * fitting a requested schema, else `Hello from the test model.`; every reply reports 10 prompt and
 * 20 completion tokens, plus MOCK_CACHED_TOKENS prompt tokens read from the cache (default 0).
 * Prints the variables to start the API with.
 */
async function main(): Promise<void> {
  const port = (name: string, fallback: number) => Number(process.env[name] || fallback);
  const openai = await new OpenAiTestServer().start(port('MOCK_OPENAI_PORT', 4010));
  const anthropic = await new AnthropicTestServer().start(port('MOCK_ANTHROPIC_PORT', 4011));
  const gemini = await new GeminiTestServer().start(port('MOCK_GEMINI_PORT', 4012));
  const cached = Number(process.env.MOCK_CACHED_TOKENS || 0);
  for (const server of [openai, anthropic, gemini]) {
    server.auto = true;
    server.cachedTokens = cached;
  }
  const env = {
    OPENAI_API_KEY: 'local',
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: 'local',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'local',
    GEMINI_BASE_URL: gemini.url,
  };
  console.log(
    `Local model servers: OpenAI, Anthropic and Gemini wire protocols (OPENAI_BASE_URL=${openai.url})`,
  );
  console.log(
    `Start the API with:\n${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' \\\n')} npm start`,
  );
}

void main();
