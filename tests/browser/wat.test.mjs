// www/wat.js (the page's per-function WebAssembly text) against the CLI:
// for every corpus pexe that translates, every function it prints equals
// the function in `pexe translate --wat` (wasmprinter), line for line,
// except the decimal float comments `(;=…;)`, whose number formatting
// differs. Runs in Node (no browser); needs target/release/pexe.
//
// Also checks the mapping the page relies on: table slot 53 + N holds pexe
// function @fN (runtime ABI), and that slot's function carries @fN's name.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CORPUS, REPO } from './helpers.mjs';
import { PEXE_FUNCTION_SLOT_BASE, WasmModule } from '../../www/wat.js';

const PEXE = path.join(REPO, 'target', 'release', 'pexe');
const skip = !fs.existsSync(PEXE) ? 'target/release/pexe is not built' : !fs.existsSync(CORPUS) ? 'no corpus' : false;

function corpusPexes() {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.pexe')) out.push(p);
    }
  };
  walk(CORPUS);
  return out.sort();
}

const stripDecimals = (t) => t.replace(/ \(;=[^;]*;\)/g, '');
/** Whether a line closes every parenthesis it opens (comments `(;…;)` included, which balance too). */
const balanced = (line) => [...line].reduce((n, c) => n + (c === '(') - (c === ')'), 0) === 0;

test('wat.js prints every corpus function as wasmprinter does', { skip, timeout: 600_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-wat-'));
  let files = 0;
  let functions = 0;
  try {
    for (const file of corpusPexes()) {
      const wasmPath = path.join(tmp, 'm.wasm');
      try {
        execFileSync(PEXE, ['translate', file, '-o', wasmPath], { stdio: ['ignore', 'ignore', 'pipe'] });
      } catch {
        continue; // invalid pexes (regression/*) do not translate
      }
      const wat = execFileSync(PEXE, ['translate', '--wat', file], { maxBuffer: 1 << 30 }).toString();
      const module = new WasmModule(new Uint8Array(fs.readFileSync(wasmPath)));
      const lines = wat.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const m = /^ {2}\(func .*\(;(\d+);\)/.exec(lines[i]);
        if (!m) continue;
        // One line when the body is empty, else up to the closing `  )`.
        let j = i;
        if (!balanced(lines[i])) while (lines[j] !== '  )') j++;
        const expected = stripDecimals(lines.slice(i, j + 1).map((l) => l.slice(2)).join('\n') + '\n');
        const actual = stripDecimals(module.functionText(Number(m[1])));
        if (actual !== expected) {
          const a = actual.split('\n');
          const e = expected.split('\n');
          const k = e.findIndex((l, n) => l !== a[n]);
          assert.fail(`${path.relative(CORPUS, file)} function ${m[1]}, line ${k + 1}:\n  expected: ${e[k]}\n  actual:   ${a[k]}`);
        }
        functions++;
        i = j;
      }
      files++;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`# wat.js: ${functions} functions of ${files} pexes identical to pexe translate --wat`);
  assert.ok(files >= 30, `${files} pexes translated`);
  assert.ok(functions >= 10_000, `${functions} functions compared`);
});

test('table slot 53 + N holds @fN', { skip }, () => {
  const file = path.join(CORPUS, 'cli/binji_pnacl_c/test/res/printf.pexe');
  const tmp = path.join(os.tmpdir(), `pexe-wat-slot-${process.pid}.wasm`);
  execFileSync(PEXE, ['translate', file, '-o', tmp]);
  const module = new WasmModule(new Uint8Array(fs.readFileSync(tmp)));
  fs.rmSync(tmp);
  // printf.pexe: @f1 is main, @f14 is _start (named in its symbol table).
  for (const [id, name] of [[1, 'main'], [14, '_start'], [19, '_vfprintf_r']]) {
    const index = module.functionIndexOfSlot(PEXE_FUNCTION_SLOT_BASE + id);
    assert.notEqual(index, null, `@f${id} has a table slot`);
    assert.match(module.functionText(index), new RegExp(`^\\(func \\$${name} \\(;${index};\\)`));
  }
  // @f0 is a declaration (llvm.memcpy): no function in its slot.
  assert.equal(module.functionIndexOfSlot(PEXE_FUNCTION_SLOT_BASE + 0), null);
});
