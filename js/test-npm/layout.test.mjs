// The built package's shape: conditional exports pick node.js in Node and
// index.js everywhere else, and nothing the browser entry or the browser's
// Worker script reaches imports a Node module (bundlers would have to stub
// it). The bundler test (tests/browser/bundlers.test.mjs) checks the same
// by building real apps; this is the quick, exact check.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pkgDir } from './helpers.mjs';

const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));

test('exports: types, node → node.js, default → index.js', () => {
  assert.deepEqual(Object.keys(manifest.exports['.']), ['types', 'node', 'default']);
  assert.deepEqual(manifest.exports['.'], { types: './index.d.ts', node: './node.js', default: './index.js' });
  for (const f of Object.values(manifest.exports['.'])) assert.ok(existsSync(path.join(pkgDir, f)), f);
  for (const field of ['private', 'devDependencies', 'scripts']) assert.equal(manifest[field], undefined, field);
});

/** The module specifiers of a JS file: static and dynamic imports, re-exports, and `new URL('…', import.meta.url)`. */
function specifiers(text) {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('//'))
    .join('\n');
  const out = [];
  for (const re of [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g]) {
    // A specifier has no spaces; `'import ' + q(url)` (code the polyfill
    // writes for a Worker) is a string being built, not an import.
    for (const m of code.matchAll(re)) if (!/\s/.test(m[1])) out.push(m[1]);
  }
  // A URL relative to the module (wasm-bindgen's glue writes 'pexe_bg.wasm').
  for (const m of code.matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url/g)) {
    out.push(/^(\.{1,2}\/|[a-z]+:)/.test(m[1]) ? m[1] : `./${m[1]}`);
  }
  return out;
}

/** Every file reachable from `entry`, with the specifiers that are not files of the package. */
function reach(entry) {
  const seen = new Set();
  const external = [];
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.m?js$/.test(file)) continue;
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('./') || spec.startsWith('../')) {
        const target = path.resolve(path.dirname(file), spec);
        assert.ok(existsSync(target), `${path.relative(pkgDir, file)} refers to ${spec}, which is missing`);
        todo.push(target);
      } else {
        external.push(`${path.relative(pkgDir, file)}: ${spec}`);
      }
    }
  }
  return { files: [...seen].map((f) => path.relative(pkgDir, f)).sort(), external };
}

test('the browser entry and its Worker script reach no Node module (nor anything outside the package)', () => {
  const { files, external } = reach(path.join(pkgDir, 'index.js'));
  assert.deepEqual(external, []);
  // Found through the literal `new Worker(new URL(…))` and `new URL('….wasm')`, as bundlers find them.
  assert.ok(files.includes('internal/runtime/threads/browser-worker.js'), files.join('\n'));
  assert.ok(files.includes('internal/runtime/threads/browser-plugin-worker.js'), files.join('\n'));
  assert.ok(files.includes('internal/translator/wasm/pexe_bg.wasm'), files.join('\n'));
  // The translation Workers' script and the WAT printer, found the same way.
  assert.ok(files.includes('internal/translator/pool-worker.js'), files.join('\n'));
  assert.ok(files.includes('internal/translator/wasm/pexe_wat_bg.wasm'), files.join('\n'));
  assert.ok(!files.some((f) => f.startsWith('internal/node/') || f === 'node.js'), files.join('\n'));
});

test("a guest thread's Worker for a program that is not a plugin reaches none of Pepper's code; a plugin's does", () => {
  const threads = path.join(pkgDir, 'internal/runtime/threads');
  const plain = reach(path.join(threads, 'browser-worker.js')).files;
  // Only the small pieces the runtime's core uses (the loader, the ABI's
  // names, how a plugin's main thread starts).
  assert.deepEqual(
    plain.filter((f) => f.startsWith('internal/pepper/')),
    ['internal/pepper/defs.js', 'internal/pepper/load.js', 'internal/pepper/start.js'],
  );
  const plugin = reach(path.join(threads, 'browser-plugin-worker.js')).files;
  assert.ok(plugin.includes('internal/pepper/modules.js'), plugin.join('\n'));
});

test('the polyfill reaches no Node module; its Workers and the translator are found as bundlers find them', () => {
  assert.deepEqual(
    [manifest.exports['./polyfill'], manifest.exports['./polyfill.js'], manifest.exports['./pexe-sw.js']],
    ['./polyfill.js', './polyfill.js', './pexe-sw.js'],
  );
  const { files, external } = reach(path.join(pkgDir, 'polyfill.js'));
  assert.deepEqual(external, []);
  for (const f of [
    'internal/polyfill/main.js',
    'internal/polyfill/translate-worker.js',
    'internal/pepper/host-worker.js',
    'internal/runtime/threads/browser-worker.js',
    'internal/runtime/threads/browser-plugin-worker.js',
    'internal/translator/wasm/pexe_bg.wasm',
    'internal/translator/wasm/build.js',
  ]) {
    assert.ok(files.includes(f), `${f} is not reached:\n${files.join('\n')}`);
  }
  assert.ok(!files.some((f) => f.startsWith('internal/node/') || f === 'node.js' || f === 'index.js'), files.join('\n'));
  assert.ok(existsSync(path.join(pkgDir, 'pexe-sw.js')));
});

test('the Node entry reaches Node modules only through node: specifiers', () => {
  const { files, external } = reach(path.join(pkgDir, 'node.js'));
  assert.ok(external.length > 0);
  for (const e of external) assert.match(e, /: node:/);
  assert.ok(files.includes('internal/node/worker.js'), files.join('\n'));
  assert.ok(files.includes('internal/translator/node-worker.js'), files.join('\n'));
});
