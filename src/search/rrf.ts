/** The constant k of reciprocal rank fusion (Cormack et al. 2009; docs/search.md). */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each id scores Σ 1 / (k + rank) over the lists it appears in (rank
 * from 1), so an id found by both keyword and semantic search outranks one found by either
 * alone at the same ranks. Best first; ties keep the order of first appearance (the first list
 * wins). Raw scores of the lists are not compared, only ranks.
 */
export function reciprocalRankFusion(
  lists: string[][],
  k = RRF_K,
): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  }
  return [...scores.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score);
}
