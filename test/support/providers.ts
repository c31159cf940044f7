import { AnthropicTestServer } from '../servers/anthropic-server';
import { GeminiTestServer } from '../servers/gemini-server';
import { OpenAiTestServer } from '../servers/openai-server';

/** The three local provider servers and the configuration pointing the app at them. */
export interface Providers {
  openai: OpenAiTestServer;
  anthropic: AnthropicTestServer;
  gemini: GeminiTestServer;
  /**
   * Env for createTestApp: keys, base URLs, a 5 ms retry base so retries stay fast, and a 200 ms
   * drain after a client left (ABORT_DRAIN_MS), so a stalled upstream is given up soon.
   */
  env: Record<string, string>;
  /** Clears replies and recorded requests. */
  reset(): void;
  stop(): Promise<void>;
}

export const KEYS = { openai: 'sk-test-openai', anthropic: 'sk-ant-test', gemini: 'gm-test-key' };

/** Env for createTestApp pointing the app at three local provider servers (by their `url`). */
export function providerEnv(servers: {
  openai: { url: string };
  anthropic: { url: string };
  gemini: { url: string };
}): Record<string, string> {
  return {
    OPENAI_API_KEY: KEYS.openai,
    OPENAI_BASE_URL: servers.openai.url,
    ANTHROPIC_API_KEY: KEYS.anthropic,
    ANTHROPIC_BASE_URL: servers.anthropic.url,
    GEMINI_API_KEY: KEYS.gemini,
    GEMINI_BASE_URL: servers.gemini.url,
    AI_RETRY_BASE_DELAY_MS: '5',
    // A client gone from a stalled upstream: the drain gives up soon (the tests of the drain set
    // their own bound).
    ABORT_DRAIN_MS: '200',
  };
}

export async function startProviders(): Promise<Providers> {
  const openai = await new OpenAiTestServer().start();
  const anthropic = await new AnthropicTestServer().start();
  const gemini = await new GeminiTestServer().start();
  const all = [openai, anthropic, gemini];
  return {
    openai,
    anthropic,
    gemini,
    env: providerEnv({ openai, anthropic, gemini }),
    reset: () => {
      for (const s of all) s.reset();
    },
    stop: async () => {
      await Promise.all(all.map((s) => s.stop()));
    },
  };
}
