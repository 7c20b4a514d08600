// The download a page pays at import: the translator module
// (internal/translator/wasm/pexe_bg.wasm, translator and inspector
// together), gzipped, within the budget of js/package.json
// (config.wasmGzipBudget, the one place it is set; scripts/build-pkg.sh
// prints where the build stands). The WAT printer is a module of its own,
// loaded only by functionWat, disassemble and stats.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { pkgDir, repo } from './helpers.mjs';

const budget = JSON.parse(readFileSync(path.join(repo, 'js', 'package.json'), 'utf8')).config.wasmGzipBudget;
const wasmDir = path.join(pkgDir, 'internal', 'translator', 'wasm');
const gzipped = (file) => gzipSync(readFileSync(path.join(wasmDir, file)), { level: 9 }).length;

test(`the translator module is at most ${budget} bytes gzipped`, () => {
  assert.ok(Number.isInteger(budget) && budget > 0, 'js/package.json config.wasmGzipBudget');
  const size = gzipped('pexe_bg.wasm');
  console.log(`SIZE pexe_bg.wasm ${readFileSync(path.join(wasmDir, 'pexe_bg.wasm')).length} bytes, ${size} gzipped (budget ${budget})`);
  assert.ok(size <= budget, `pexe_bg.wasm is ${size} bytes gzipped, over the budget of ${budget} (js/package.json config.wasmGzipBudget)`);
});

test('the WAT printer is not in the translator module', () => {
  // wasmprinter's operator printing brings these strings along.
  const text = readFileSync(path.join(wasmDir, 'pexe_bg.wasm')).toString('latin1');
  for (const s of ['i32.atomic.rmw8.cmpxchg_u', 'memory.atomic.notify']) assert.ok(!text.includes(s), s);
  const printer = readFileSync(path.join(wasmDir, 'pexe_wat_bg.wasm')).toString('latin1');
  assert.ok(printer.includes('memory.atomic.notify'));
  console.log(`SIZE pexe_wat_bg.wasm ${printer.length} bytes, ${gzipped('pexe_wat_bg.wasm')} gzipped (loaded by functionWat, disassemble, stats)`);
});
