#!/usr/bin/env node
// Prints the gzip size of every asset in web/dist, then the JavaScript the sign-in page loads
// first (the entry chunk and its static imports, from Vite's manifest; the pages loaded on
// demand are not part of it), and fails when that is over LIMIT_KB (default 250 kB, 1 kB =
// 1000 bytes, gzip level 9). Run after `vite build`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const limitKb = Number(process.env.LIMIT_KB ?? 250);
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kb = (bytes) => (bytes / 1000).toFixed(1).padStart(8);

const assets = readdirSync(join(dist, 'assets')).sort();
for (const name of assets) console.log(`${kb(gz(join('assets', name)))} kB  assets/${name}`);

const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entry) throw new Error('no entry chunk in dist/.vite/manifest.json');
const firstLoad = new Set();
const walk = (key) => {
  const chunk = manifest[key];
  if (firstLoad.has(chunk.file)) return;
  firstLoad.add(chunk.file);
  for (const imported of chunk.imports ?? []) walk(imported);
};
walk(entry);
const total = [...firstLoad].reduce((sum, file) => sum + gz(file), 0);
console.log(`\nSign-in page, first load: ${[...firstLoad].join(' + ')}`);
console.log(`${kb(total)} kB of JavaScript, gzip (limit ${limitKb} kB)`);
if (total > limitKb * 1000) {
  console.error(`Over the limit by ${((total - limitKb * 1000) / 1000).toFixed(1)} kB`);
  process.exit(1);
}
