import type { ModelDescriptor } from '../../models/model-catalogue';
import { catalogueCandidates, dearestEstimate } from './fallback-models';

const model = (
  id: string,
  providerId: ModelDescriptor['providerId'],
  costPerToken: string,
  over: Partial<ModelDescriptor> = {},
): ModelDescriptor =>
  ({
    id,
    name: id,
    providerId,
    maxTokens: 8000,
    maxOutputTokens: 4096,
    costPerToken,
    available: true,
    capabilities: [],
    parameters: {},
    ...over,
  }) as ModelDescriptor;

const prompt = (chars: number) => [{ role: 'user', content: 'x'.repeat(chars) }];

describe('dearestEstimate', () => {
  it('is the largest estimate over the models: ceil(101 tokens × 0.0003 × 1000) = 31', () => {
    const models = [model('a', 'openai', '0.0001'), model('c', 'google', '0.0003')];
    expect(dearestEstimate(models, { messages: prompt(401), images: 0, toolTokens: 0 })).toBe(31);
    expect(dearestEstimate([], { messages: prompt(401), images: 0, toolTokens: 0 })).toBe(0);
  });

  it('counts images at each model’s provider worst case (OpenAI 1445, Anthropic 1600)', () => {
    const call = { messages: prompt(4), images: 1, toolTokens: 0 };
    // (1 + 1445) × 0.1 = 144.6 → 145; (1 + 1600) × 0.1 = 160.1 → 161.
    expect(dearestEstimate([model('a', 'openai', '0.0001')], call)).toBe(145);
    const both = [model('a', 'openai', '0.0001'), model('b', 'anthropic', '0.0001')];
    expect(dearestEstimate(both, call)).toBe(161);
  });
});

describe('catalogueCandidates', () => {
  const b = model('b', 'anthropic', '0.0002');
  const c = model('c', 'google', '0.0003', { capabilities: ['vision'] });
  const a = model('a', 'openai', '0.0001', { fallbacks: ['b', 'gone', 'c', 'a'] });
  const catalogue = { find: (id: string) => [a, b, c].find((m) => m.id === id) };

  it('is the model, then its available fallbacks in order (itself and unknown ones left out)', () => {
    expect(catalogueCandidates(catalogue, a, 0).map((m) => m.id)).toEqual(['a', 'b', 'c']);
  });

  it('leaves out a fallback without vision when the prompt has images', () => {
    expect(catalogueCandidates(catalogue, a, 2).map((m) => m.id)).toEqual(['a', 'c']);
  });

  it('is the model alone when it has no fallbacks', () => {
    expect(catalogueCandidates(catalogue, b, 0)).toEqual([b]);
  });
});
