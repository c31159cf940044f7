import { createHash } from 'node:crypto';

/**
 * Deterministic embeddings for the local OpenAI and Gemini servers: a hashed bag of words
 * (lower-cased Latin words and CJK bigrams, each adding 1 to one dimension chosen by its hash),
 * with a few synonyms mapped to one word first, so "car" and "automobile" land on the same
 * dimension while keyword search sees two different words. Unrelated texts share no dimension
 * unless two words' hashes collide.
 */
const SYNONYMS: Record<string, string> = {
  automobile: 'car',
  vehicle: 'car',
  cars: 'car',
  automobiles: 'car',
  physician: 'doctor',
  doctors: 'doctor',
  puppy: 'dog',
  canine: 'dog',
  汽车: 'car',
  轿车: 'car',
};

export function hashedEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const token of tokens(text)) {
    const word = SYNONYMS[token] ?? token;
    const h = createHash('sha1').update(word).digest().readUInt32BE(0);
    vector[h % dimensions] += 1;
  }
  return vector;
}

function tokens(text: string): string[] {
  const out: string[] = [];
  for (const part of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!part) continue;
    const cjk = /\p{Script=Han}/u.test(part);
    if (!cjk) {
      out.push(part);
      continue;
    }
    const chars = Array.from(part);
    if (chars.length === 1) out.push(part);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  }
  return out;
}
