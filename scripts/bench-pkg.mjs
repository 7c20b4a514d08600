#!/usr/bin/env node
// The npm package's translation speed in Node: the CPU time of one
// `translate(bytes, { target: 'wasm32' })` (the translator module in this
// thread, one core), median of N runs after two warm-up runs, per pexe.
// CPU time, not wall time: on a shared machine it moves less. A benchmark,
// not a test; build the package first (scripts/build-pkg.sh).
//
//   node scripts/bench-pkg.mjs [--runs N] [--pkg DIR] [PEXE ...]
//
// Default: 15 runs of pkg/ on the corpus's two largest Pepper pexes
// (xsystem35, glbench). To compare two builds, run each in turn a few
// times (--pkg A, --pkg B, --pkg A, ...): the machine's load moves both.

import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const corpus = process.env.PEXE_CORPUS ?? path.resolve(repo, '../shared/corpus');

const args = process.argv.slice(2);
let runs = 15;
let pkg = path.join(repo, 'pkg');
const files = [];
while (args.length > 0) {
  const a = args.shift();
  if (a === '--runs') runs = Number(args.shift());
  else if (a === '--pkg') pkg = path.resolve(args.shift());
  else files.push(a);
}
if (!(runs >= 1)) throw new Error('--runs takes a positive count');
if (files.length === 0) {
  files.push(
    path.join(corpus, 'ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe'),
    path.join(corpus, 'ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe'),
  );
}

const { translate } = await import(pathToFileURL(path.join(pkg, 'node.js')).href);

/** CPU milliseconds (user + system) of `f()`. */
function cpuMs(f) {
  const start = process.cpuUsage();
  f();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`package ${pkg}, ${runs} runs`);
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  for (let k = 0; k < 2; k++) translate(bytes, { target: 'wasm32' });
  const ms = [];
  for (let k = 0; k < runs; k++) ms.push(cpuMs(() => translate(bytes, { target: 'wasm32' })));
  const m = median(ms);
  const mbs = bytes.length / 1e6 / (m / 1000);
  console.log(
    `${path.basename(file).padEnd(16)} ${(bytes.length / 1e6).toFixed(2)} MB  median ${m.toFixed(1)} ms CPU ` +
      `(min ${Math.min(...ms).toFixed(1)})  ${mbs.toFixed(1)} MB/s`,
  );
}
