import { DEFAULT_MODELS } from './default-models';
import { buildSharedConfig } from '../config/shared.config';
import {
  maxOutputTokensOf,
  maxReplyTokens,
  ModelCatalogue,
  validateCatalogue,
} from './model-catalogue';
import { PROVIDER_IDS } from './model-entry';
import { buildModelsConfig } from './models.config';

const reasoningOf = (m: { reasoningBudget?: number }) => m.reasoningBudget ?? 0;

const entry = (over: Record<string, unknown> = {}) => ({
  id: 'm1',
  name: 'Model 1',
  providerId: 'openai',
  maxTokens: 1000,
  costPerToken: '0.00001',
  ...over,
});

describe('model catalogue', () => {
  it('ships at least two valid models per provider', () => {
    expect(validateCatalogue(DEFAULT_MODELS, 'default')).toHaveLength(DEFAULT_MODELS.length);
    for (const p of PROVIDER_IDS) {
      expect(DEFAULT_MODELS.filter((m) => m.providerId === p).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('marks every default chat model with its capabilities, and every reasoning one with a budget', () => {
    for (const m of DEFAULT_MODELS.filter((d) => d.kind !== 'embedding')) {
      expect(m.capabilities?.length).toBeGreaterThan(0);
      expect(m.capabilities?.includes('reasoning')).toBe(m.reasoningBudget !== undefined);
    }
  });

  it('ships an embedding model for each provider with an embeddings API (chat search)', () => {
    const embedding = DEFAULT_MODELS.filter((m) => m.kind === 'embedding');
    expect(embedding.map((m) => m.providerId).sort()).toEqual(['google', 'openai']);
  });

  it('states the output maximum of every default chat model, within its context window', () => {
    for (const m of DEFAULT_MODELS.filter((d) => d.kind !== 'embedding')) {
      expect(m.maxOutputTokens).toBeGreaterThan(reasoningOf(m));
      expect(m.maxOutputTokens).toBeLessThanOrEqual(m.maxTokens);
    }
    const byId = (id: string) => DEFAULT_MODELS.find((m) => m.id === id)!;
    expect(maxOutputTokensOf(byId('gpt-4o-mini'))).toBe(16384);
    expect(maxReplyTokens(byId('gpt-5-mini'))).toBe(128000 - 1024);
  });

  it('defaults maxOutputTokens to 4096, or the context window when smaller', () => {
    const [wide, narrow] = validateCatalogue(
      [entry({ maxTokens: 128000 }), entry({ id: 'm2', maxTokens: 2048 })],
      'f.json',
    );
    expect(wide.maxOutputTokens).toBeUndefined();
    expect(maxOutputTokensOf(wide)).toBe(4096);
    expect(maxOutputTokensOf(narrow)).toBe(2048);
  });

  it('accepts fallbacks naming other chat models', () => {
    const [m] = validateCatalogue([entry({ fallbacks: ['m2'] }), entry({ id: 'm2' })], 'f.json');
    expect(m.fallbacks).toEqual(['m2']);
  });

  it('accepts numbers for costPerToken and keeps them exact as strings', () => {
    const [m] = validateCatalogue([entry({ costPerToken: 0.000002 })], 'f.json');
    expect(m.costPerToken).toBe('0.000002');
  });

  it.each([
    ['a zero costPerToken', [entry({ costPerToken: 0 })], /costPerToken/],
    ['a negative costPerToken', [entry({ costPerToken: -1 })], /costPerToken/],
    ['duplicate ids', [entry(), entry()], /duplicate model id: m1/],
    ['an unknown provider', [entry({ providerId: 'acme' })], /providerId/],
    ['an unknown field', [entry({ secret: 1 })], /secret/],
    ['an empty list', [], /non-empty/],
    ['an unknown kind', [entry({ kind: 'rerank' })], /kind/],
    [
      'an embedding model of a provider without embeddings',
      [entry({ providerId: 'anthropic', kind: 'embedding' })],
      /kind: anthropic has no embeddings API/,
    ],
    ['an unknown capability', [entry({ capabilities: ['telepathy'] })], /capabilities/],
    [
      'a reasoning model without a budget',
      [entry({ capabilities: ['reasoning'] })],
      /reasoningBudget/,
    ],
    ['a maxOutputTokens of 0', [entry({ maxOutputTokens: 0 })], /maxOutputTokens/],
    ['a fractional maxOutputTokens', [entry({ maxOutputTokens: 10.5 })], /maxOutputTokens/],
    [
      'a maxOutputTokens above the context window',
      [entry({ maxTokens: 8000, maxOutputTokens: 9000 })],
      /maxOutputTokens: must not exceed maxTokens/,
    ],
    [
      'a reasoning model whose budget leaves no output',
      [
        entry({
          maxTokens: 128000,
          capabilities: ['reasoning'],
          reasoningBudget: 4096,
          maxOutputTokens: 4096,
        }),
      ],
      /maxOutputTokens: must exceed reasoningBudget/,
    ],
    [
      'a budget under 1024',
      [entry({ capabilities: ['reasoning'], reasoningBudget: 10 })],
      /reasoningBudget/,
    ],
    ['a model falling back to itself', [entry({ fallbacks: ['m1'] })], /fall back to itself/],
    [
      'a fallback that is no chat model of the catalogue',
      [entry({ fallbacks: ['m2'] }), entry({ id: 'm2', kind: 'embedding' })],
      /m1 fallbacks: m2 is not a chat model/,
    ],
    ['an unknown fallback', [entry({ fallbacks: ['nope'] })], /nope is not a chat model/],
    ['more than 5 fallbacks', [entry({ fallbacks: ['a', 'b', 'c', 'd', 'e', 'f'] })], /fallbacks/],
  ])('rejects %s, naming the file', (_name, raw, message) => {
    expect(() => validateCatalogue(raw, 'models.json')).toThrow(message);
    expect(() => validateCatalogue(raw, 'models.json')).toThrow(/models.json/);
  });

  it('makes chat and embedding models available while an upstream row serves them, or their provider has a key', () => {
    // The default catalogue with an OpenAI key only.
    const catalogue = new ModelCatalogue(
      buildModelsConfig({ MAX_OUTPUT_TOKENS: 4096 }),
      buildSharedConfig({ OPENAI_API_KEY: 'sk-test' }),
    );
    const gemini = () => catalogue.embeddingModel('gemini-embedding-001')!.available;
    const openai = () => catalogue.embeddingModel('text-embedding-3-small')!.available;
    expect([gemini(), openai()]).toEqual([false, true]);
    catalogue.setServed(new Set(['gemini-embedding-001', 'gemini-2.5-flash']));
    expect([gemini(), openai(), !!catalogue.find('gemini-2.5-flash')]).toEqual([true, true, true]);
    catalogue.setServed(new Set());
    expect([gemini(), openai(), !!catalogue.find('gemini-2.5-flash')]).toEqual([
      false,
      true,
      false,
    ]);
  });
});
