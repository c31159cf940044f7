import { reciprocalRankFusion, RRF_K } from './rrf';

describe('reciprocal rank fusion (k = 60)', () => {
  it('scores Σ 1/(k + rank) and ranks an id of both lists first', () => {
    const fused = reciprocalRankFusion([
      ['a', 'both'],
      ['c', 'both'],
    ]);
    expect(fused[0]).toEqual({ id: 'both', score: 2 / (RRF_K + 2) });
    expect(fused.map((f) => f.id)).toEqual(['both', 'a', 'c']);
    expect(fused[1].score).toBe(1 / (RRF_K + 1));
  });

  it('keeps one list as it is, and answers nothing for no lists', () => {
    expect(reciprocalRankFusion([['x', 'y', 'z']]).map((f) => f.id)).toEqual(['x', 'y', 'z']);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
