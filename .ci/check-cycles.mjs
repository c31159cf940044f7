#!/usr/bin/env node
// Fails (exit 1) on any import cycle among the files under src/ but one: TypeORM's Chat and
// Message entities name each other in their relations (`() => Message`, `() => Chat`), which the
// ORM resolves lazily. Type-only imports count too: a cycle through types still ties two files'
// designs together. Usage: node .ci/check-cycles.mjs (from the repository root).
import { normalizeOptions, parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';

const ALLOWED = [['src/chats/chat.entity.ts', 'src/chats/message.entity.ts']];

/** The cycle's files in a fixed order, so a rotation of an allowed cycle matches it. */
const key = (files) => [...files].sort().join(' -> ');
const allowed = new Set(ALLOWED.map(key));

const tree = await parseDependencyTree(
  'src/**/*.ts',
  normalizeOptions({ context: process.cwd(), transform: false }),
);
const cycles = parseCircular(tree);
const refused = cycles.filter((cycle) => !allowed.has(key(cycle)));
if (refused.length > 0) {
  console.error(`Import cycles (only ${ALLOWED.map(key).join('; ')} is allowed):`);
  console.error(prettyCircular(refused));
  process.exit(1);
}
console.log(
  `Import cycles: ${cycles.length ? `only the allowed ${cycles.map(key).join('; ')}` : 'none'}.`,
);
