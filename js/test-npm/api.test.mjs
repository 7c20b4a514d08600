// The npm package's synchronous API against the real corpus: inspect,
// disassemble, translate, and the errors they throw. The native CLI
// (target/release/pexe) is the oracle where one exists.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pexe, corpus, corpusFile, corpusPexes, INVALID, native, nativePexe } from './helpers.mjs';

const { inspect, disassemble, translate, PexeError } = pexe;

/** `pexe verify FILE` run natively: its lines without the `FILE:` prefix. */
function nativeVerify(rel) {
  const file = path.join(corpus, rel);
  const r = spawnSync(nativePexe, ['verify', file], { encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `pexe verify ${rel}: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.slice(file.length + 1));
}

test('inspect: every corpus pexe, diagnostics equal to pexe verify', () => {
  const files = corpusPexes();
  assert.ok(files.length >= 40, `${files.length} corpus pexes`);
  for (const rel of files) {
    const bytes = corpusFile(rel);
    const s = inspect(bytes);
    assert.equal(s.size, bytes.length, rel);
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s, `${rel}: plain JSON data`);
    assert.deepEqual(s.diagnostics.map((d) => d.text), nativeVerify(rel), `${rel}: the lines of pexe verify`);
    for (const d of s.diagnostics) {
      assert.equal(d.pos, `${d.byte}:${d.bit}`, rel);
      assert.ok(d.text.startsWith(`${d.pos}: error: `), d.text);
    }
    if (INVALID.has(rel)) {
      assert.equal(s.valid, false, rel);
      assert.ok(s.decodeError, `${rel}: a decode error`);
      assert.equal(s.diagnostics.at(-1)?.text, s.decodeError.text);
      continue;
    }
    assert.equal(s.valid, true, `${rel}: ${s.diagnostics.map((d) => d.text).join('\n')}`);
    assert.equal(s.decodeError, null);
    assert.equal(s.version, 1);
    assert.equal(s.header.version, 2);
    assert.equal(s.counts.functions, s.functions.length);
    assert.equal(s.counts.globals, s.globals.length);
    const defined = s.functions.filter((f) => f.defined);
    assert.equal(s.counts.definedFunctions, defined.length, rel);
    assert.equal(s.counts.instructions, defined.reduce((n, f) => n + f.instructions, 0), rel);
    assert.equal(s.counts.globalBytes, s.globals.reduce((n, g) => n + g.size, 0), rel);
    for (const f of defined) {
      assert.ok(f.bits > 0 && f.bytes === Math.ceil(f.bits / 8), `${rel} @f${f.id}`);
    }
    // Function blocks lie inside the file and do not overlap.
    assert.ok(defined.reduce((n, f) => n + f.bits, 0) <= (bytes.length - s.header.size) * 8, rel);
    assert.equal(s.functions[s.entryPoint].name, '_start', rel);
    for (const f of s.functions.filter((f) => f.intrinsic)) {
      assert.ok(f.name.startsWith('llvm.') && !f.defined, f.name);
      assert.ok(s.irt.intrinsics.includes(f.name));
    }
  }
});

test('inspect: header, functions and IRT interfaces of puts.pexe', () => {
  const s = inspect(corpusFile('cli/binji_pnacl_c/test/res/puts.pexe'));
  assert.equal(s.header.magic, 'PEXE');
  assert.deepEqual(
    s.header.fields.find((f) => f.tag === 1),
    { tag: 1, type: 'uint32', value: 2, data: [2, 0, 0, 0] },
  );
  const start = s.functions[s.entryPoint];
  assert.deepEqual([start.name, start.linkage, start.defined, start.type], ['_start', 'external', true, 'void (i32)']);
  assert.ok(s.irt.interfaces.includes('nacl-irt-basic-0.1'), s.irt.interfaces.join());
  assert.ok(s.irt.interfaces.includes('nacl-irt-fdio-0.1'));
  // libc asks for memory-0.1/0.2 as well; the runtime answers 0.3.
  assert.deepEqual(s.irt.unsupported, []);
  assert.ok(s.irt.intrinsics.includes('llvm.nacl.read.tp'));
});

test('inspect: a Pepper plugin lists the browser interfaces it asks for and where each is offered', () => {
  const s = inspect(corpusFile('ppapi/cptaffe_pnacl-test/hello_tutorial.pexe'));
  assert.ok(s.valid);
  assert.equal(s.pepper.plugin, true);
  assert.ok(!s.irt.unsupported.includes('nacl-irt-ppapihook-0.1'), 'the hook is answered to plugins');
  const offered = Object.fromEntries(s.pepper.browser.map((i) => [i.name, i.offered]));
  assert.equal(offered['PPB_Var;1.2'], 'everywhere');
  assert.ok(s.pepper.offers.includes('PPP_Instance;1.1'), s.pepper.offers.join());
  const m = inspect(corpusFile('ppapi/darinf_maelstrom_web/maelstrom.pexe'));
  assert.equal(Object.fromEntries(m.pepper.browser.map((i) => [i.name, i.offered]))['PPB_Graphics2D;1.1'], 'page');
  assert.equal(inspect(corpusFile('cli/binji_pexe_py/tests/hello_world.pexe')).pepper.plugin, false);
});

test('inspect: bad input is described, not thrown', () => {
  for (const bytes of [new Uint8Array(0), new TextEncoder().encode('#!/bin/sh\necho hi\n'), corpusFile('cli/binji_pnacl_c/test/res/puts.pexe').subarray(0, 5000)]) {
    const s = inspect(bytes);
    assert.equal(s.valid, false);
    assert.ok(s.decodeError?.message, JSON.stringify(s.decodeError));
  }
  assert.match(inspect(new Uint8Array([0x42, 0x43, 0xc0, 0xde])).decodeError.message, /plain LLVM bitcode/);
});

test('inspect and translate accept any BufferSource', () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/start.pexe');
  const want = translate(bytes);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const padded = new Uint8Array(bytes.length + 8);
  padded.set(bytes, 4);
  for (const input of [buffer, new DataView(buffer), Buffer.from(bytes), padded.subarray(4, 4 + bytes.length)]) {
    assert.deepEqual(translate(input), want);
    assert.deepEqual(inspect(input), inspect(bytes));
  }
  assert.throws(() => inspect('PEXE'), TypeError);
  assert.throws(() => translate([1, 2, 3]), TypeError);
});

const DIS_FILES = [
  'cli/binji_pnacl_c/test/res/start.pexe',
  'cli/binji_pnacl_c/test/res/puts.pexe',
  'cli/binji_pnacl_c/test/res/dedupe_incoming.pexe',
  'cli/binji_pexe_py/tests/simple.pexe',
  'ppapi/cptaffe_pnacl-test/hello_tutorial.pexe',
];

test('disassemble equals pexe dis, in every mode', () => {
  for (const rel of DIS_FILES) {
    const file = path.join(corpus, rel);
    const bytes = corpusFile(rel);
    assert.equal(disassemble(bytes), native(['dis', file], { encoding: 'utf8' }), rel);
    assert.equal(disassemble(bytes, { mode: 'records' }), native(['dis', '--records', file], { encoding: 'utf8' }), rel);
    assert.equal(disassemble(bytes, { mode: 'asm' }), native(['dis', '--asm', file], { encoding: 'utf8' }), rel);
    const f = inspect(bytes).functions.filter((f) => f.defined).at(-1).id;
    assert.equal(
      disassemble(bytes, { mode: 'full', function: f }),
      native(['dis', '--function', String(f), file], { encoding: 'utf8' }),
      `${rel} @f${f}`,
    );
  }
});

test('disassemble of a bad pexe: PexeError with the partial listing pexe dis prints', () => {
  for (const rel of INVALID) {
    const file = path.join(corpus, rel);
    const r = spawnSync(nativePexe, ['dis', file], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.throws(
      () => disassemble(corpusFile(rel)),
      (e) => {
        assert.ok(e instanceof PexeError && e instanceof Error);
        assert.equal(e.name, 'PexeError');
        assert.equal(e.kind, 'decode');
        assert.equal(e.listing, r.stdout, `${rel}: listing up to the error`);
        assert.equal(`${file}:${e.diagnostics[0].text}\n`, r.stderr, rel);
        assert.equal(e.message, e.diagnostics[0].text);
        return true;
      },
    );
  }
});

test('disassemble: bad options are PexeErrors of kind options', () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/start.pexe');
  for (const options of [{ mode: 'wide' }, { function: -1 }, { function: 'main' }, 42]) {
    assert.throws(() => disassemble(bytes, options), (e) => e instanceof PexeError && e.kind === 'options', JSON.stringify(options));
  }
  // A function without a body: nothing to list (the CLI says the same).
  assert.throws(() => disassemble(bytes, { function: 1000 }), (e) => e instanceof PexeError && e.kind === 'decode');
});

test('translate: every valid corpus pexe, valid wasm, the same bytes as pexe translate', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pexe-npm-'));
  try {
    for (const rel of corpusPexes()) {
      const bytes = corpusFile(rel);
      if (INVALID.has(rel)) {
        assert.throws(
          () => translate(bytes, { target: 'wasm32' }),
          (e) => e instanceof PexeError && e.kind === 'decode' && e.diagnostics.length === 1,
          rel,
        );
        continue;
      }
      const wasm = translate(bytes, { target: 'wasm32' });
      assert.ok(wasm instanceof Uint8Array, rel);
      assert.ok(WebAssembly.validate(wasm), `${rel}: WebAssembly.validate`);
      const out = path.join(dir, 'out.wasm');
      native(['translate', path.join(corpus, rel), '-o', out]);
      assert.ok(Buffer.from(wasm).equals(readFileSync(out)), `${rel}: same bytes as the native pexe translate`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('translate: options', () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/puts.pexe');
  const named = translate(bytes);
  assert.deepEqual(translate(bytes, {}), named);
  assert.deepEqual(translate(bytes, { target: 'wasm32', names: true }), named);
  const bare = translate(bytes, { names: false });
  assert.ok(bare.length < named.length && WebAssembly.validate(bare));
  for (const options of [{ target: 'x86-64' }, { target: 32 }, { names: 'yes' }, 'wasm32']) {
    assert.throws(() => translate(bytes, options), (e) => e instanceof PexeError && e.kind === 'options', JSON.stringify(options));
  }
});

test('translate: verifier problems are a PexeError listing them all', () => {
  // start.pexe with `_start` made internal (linkage 0 -> 3; same record
  // size, so `pexe as` accepts the positions): no entry point.
  const file = path.join(corpus, 'cli/binji_pnacl_c/test/res/start.pexe');
  const records = native(['dis', '--records', file], { encoding: 'utf8' });
  const edited = records.replace('156:0|  3: <8, 2, 0, 0, 0>', '156:0|  3: <8, 2, 0, 0, 3>');
  assert.notEqual(edited, records, 'the declaration of _start is where it was');
  const dir = mkdtempSync(path.join(tmpdir(), 'pexe-npm-'));
  let bytes;
  try {
    writeFileSync(path.join(dir, 'in.rec'), edited);
    native(['as', path.join(dir, 'in.rec'), '-o', path.join(dir, 'out.pexe')]);
    bytes = new Uint8Array(readFileSync(path.join(dir, 'out.pexe')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = inspect(bytes);
  assert.equal(summary.valid, false);
  assert.equal(summary.decodeError, null);
  assert.equal(summary.entryPoint, null);
  assert.throws(
    () => translate(bytes),
    (e) => {
      assert.ok(e instanceof PexeError);
      assert.equal(e.kind, 'verify');
      assert.deepEqual(e.diagnostics, summary.diagnostics);
      assert.ok(e.diagnostics.some((d) => /no entry point/.test(d.message)), JSON.stringify(e.diagnostics));
      assert.match(e.message, /not valid PNaCl/);
      return true;
    },
  );
});

test('a Rust panic is a PexeError with the panic message, and the package still works', () => {
  assert.throws(
    () => pexe.__panicForTests('deliberate panic for the test'),
    (e) => e instanceof PexeError && e.kind === 'panic' && /deliberate panic for the test/.test(e.message) && e.cause instanceof WebAssembly.RuntimeError,
  );
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/puts.pexe');
  assert.ok(WebAssembly.validate(translate(bytes)));
  assert.ok(inspect(bytes).valid);
});

test('version', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../pkg/package.json', import.meta.url), 'utf8'));
  assert.equal(pexe.version, manifest.version);
  assert.match(pexe.version, /^\d+\.\d+\.\d+/);
  assert.equal(pexe.pnaclVersion, 2);
});

test('stats: pexe stats as data, consistent with inspect', () => {
  for (const rel of ['cli/binji_pnacl_c/test/res/puts.pexe', 'ppapi/cptaffe_pnacl-test/hello_tutorial.pexe', ...INVALID]) {
    const bytes = corpusFile(rel);
    const st = pexe.stats(bytes);
    assert.deepEqual(JSON.parse(JSON.stringify(st)), st, rel);
    assert.equal(st.fileBits, bytes.length * 8);
    if (INVALID.has(rel)) {
      // The decoder may fail where the bitstream is sound; not the reverse.
      if (st.error) assert.match(st.error.text, /^\d+:\d: error: /);
      continue;
    }
    assert.equal(st.error, null, rel);
    assert.equal(st.headerBits, 16 * 8);
    const module = st.blocks.find((b) => b.name === 'module');
    // Every bit of the bitstream is in the module block, once in some block's own bits.
    assert.equal(module.bits, st.fileBits - st.headerBits, rel);
    assert.equal(st.blocks.reduce((n, b) => n + b.ownBits, 0), module.bits, rel);
    // Function sizes: the same numbers inspect() gets its own way.
    const s = inspect(bytes);
    const defined = s.functions.filter((f) => f.defined);
    assert.equal(st.functions.length, defined.length, rel);
    for (const f of st.functions) {
      const g = s.functions[f.func];
      assert.equal(f.bits, g.bits, `${rel} @f${f.func}`);
      assert.equal(f.name, g.name);
    }
    // The native report's block table has the same numbers.
    const report = native(['stats', path.join(corpus, rel)], { encoding: 'utf8' });
    for (const b of st.blocks) {
      const records = b.records.reduce((m, r) => m + r.count, 0);
      const row = new RegExp(`^\\s*${b.blockId}\\s+${b.name}\\s+${b.count}\\s+${b.bits}\\s+\\S+\\s+${b.ownBits}\\s+\\S+\\s+${records}\\s`, 'm');
      assert.match(report, row, `${rel}: block ${b.name}`);
    }
  }
  assert.equal(pexe.stats(new Uint8Array([1, 2, 3])).error.pos, '0:0');
});

/** The `(func ...)` named `name` in module text, as functionWat cuts it. */
function cutFunc(wat, first) {
  const lines = wat.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`  (func ${first}`));
  assert.ok(at >= 0, `no (func ${first}`);
  const out = [];
  for (const line of lines.slice(at)) {
    out.push(line.slice(2));
    if (line === '  )') break;
  }
  return `${out.join('\n')}\n`;
}

test('functionWat: one function of pexe translate --wat', () => {
  const rel = 'cli/binji_pnacl_c/test/res/puts.pexe';
  const bytes = corpusFile(rel);
  const wat = native(['translate', '--wat', path.join(corpus, rel)], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const named = inspect(bytes).functions.filter((f) => f.defined && f.name && /^[A-Za-z_][A-Za-z0-9_.]*$/.test(f.name));
  assert.ok(named.length > 10);
  for (const f of [named[0], named[5], named.at(-1)]) {
    const text = pexe.functionWat(bytes, { function: f.id });
    assert.equal(text, cutFunc(wat, `$${f.name} `), `@f${f.id} ${f.name}`);
    assert.match(text, /^\(func \$/);
  }
  // Without names: numbered, and the function's own index.
  const plain = pexe.functionWat(bytes, { function: named[0].id, names: false });
  assert.match(plain, /^\(func \(;\d+;\) \(type \d+\)/);
  for (const bad of [{ function: 0 }, { function: 1e6 }, {}, { function: named[0].id, names: 1 }]) {
    if (bad.function === 0 && inspect(bytes).functions[0].defined) continue;
    assert.throws(() => pexe.functionWat(bytes, bad), (e) => e instanceof PexeError && e.kind === 'options', JSON.stringify(bad));
  }
  assert.throws(() => pexe.functionWat(corpusFile('cli/binji_pnacl_c/test/regression/1.pexe'), { function: 0 }), (e) => e instanceof PexeError && e.kind === 'decode');
});
