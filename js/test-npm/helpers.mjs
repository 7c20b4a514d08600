// Shared by the npm package's tests (js/test-npm/*.test.mjs): where the
// built package, the corpus and the native CLI are, and the corpus's run
// descriptions. The package must be built first (scripts/build-pkg.sh;
// scripts/test.sh does it).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repo = fileURLToPath(new URL('../../', import.meta.url));
export const pkgDir = path.join(repo, 'pkg');
export const corpus = path.join(repo, '..', 'shared', 'corpus');
export const cliTests = path.join(corpus, 'cli', 'binji_pnacl_c', 'test');
export const nativePexe = path.join(repo, 'target', 'release', 'pexe');
export const pkgBin = path.join(pkgDir, 'bin', 'pexe.mjs');

if (!existsSync(path.join(pkgDir, 'node.js'))) {
  throw new Error(`${pkgDir}/node.js is missing: build the package with scripts/build-pkg.sh`);
}

/** The package, as Node users import it (its `node` export; cli.test.mjs checks `import 'pexe'` resolves there). */
export const pexe = await import(path.join(pkgDir, 'node.js'));

/** A corpus file's bytes (path relative to the corpus folder). */
export function corpusFile(rel) {
  return new Uint8Array(readFileSync(path.join(corpus, rel)));
}

/** Every .pexe of the corpus, relative paths, sorted. */
export function corpusPexes() {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(corpus, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.pexe')) out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/** The regression pexes that must be rejected (corpus README). */
export const INVALID = new Set([1, 2, 4, 5, 6].map((n) => `cli/binji_pnacl_c/test/regression/${n}.pexe`));

/**
 * The run descriptions of cli/binji_pnacl_c/test (README of the corpus):
 * `{ name, file, args, stdout: Uint8Array, slow }` for each `*.txt` with
 * expected stdout.
 */
export function runSpecs() {
  const specs = [];
  const files = [
    ...readdirSync(cliTests).filter((f) => f.endsWith('.txt')),
    ...readdirSync(path.join(cliTests, 'printf')).map((f) => `printf/${f}`),
    ...readdirSync(path.join(cliTests, 'benchmark')).filter((f) => f.endsWith('.txt')).map((f) => `benchmark/${f}`),
  ];
  for (const name of files.sort()) {
    const text = readFileSync(path.join(cliTests, name), 'latin1');
    const header = (key) => new RegExp(`^#\\s*${key}:[ \\t]*(.*)$`, 'm').exec(text)?.[1];
    const file = header('FILE');
    if (!file || /--trace/.test(header('FLAGS') ?? '')) continue;
    let stdout;
    const stdoutFile = header('STDOUT_FILE');
    if (stdoutFile) stdout = readFileSync(path.join(cliTests, stdoutFile));
    else {
      const at = text.indexOf('# STDOUT:\n');
      if (at < 0) continue;
      stdout = Buffer.from(text.slice(at + '# STDOUT:\n'.length), 'latin1');
    }
    const args = (header('ARGS') ?? '').split(/\s+/).filter(Boolean);
    specs.push({ name, file, args, stdout: new Uint8Array(stdout), slow: header('SLOW') !== undefined });
  }
  return specs;
}

/** Output of the native `pexe` CLI (target/release/pexe), which cargo test --release builds. */
export function native(args, options = {}) {
  if (!existsSync(nativePexe)) throw new Error(`${nativePexe} is missing: cargo build --release`);
  return execFileSync(nativePexe, args, { maxBuffer: 1 << 30, ...options });
}

/** Collects output chunks; `.bytes()` joins them, `.text()` decodes. */
export function sink() {
  const chunks = [];
  const f = (chunk) => {
    if (!(chunk instanceof Uint8Array)) throw new TypeError(`a chunk that is not a Uint8Array: ${chunk}`);
    chunks.push(chunk.slice());
  };
  f.bytes = () => Buffer.concat(chunks);
  f.text = () => Buffer.concat(chunks).toString('utf8');
  return f;
}

/** `bytes` cut into chunks of the sizes `next()` gives. */
export function* chunked(bytes, next) {
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, Math.min(next(), bytes.length - at));
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

/** A reproducible source of chunk sizes: mostly small, sometimes large. */
export function randomSizes(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % 8 === 0 ? 1 + (s % 65536) : 1 + (s % 61);
  };
}
