// The package's native targets: translate(bytes, { target: 'x86_64-linux'
// | 'aarch64-linux' }) through the native translator module
// (pexe_native_bg.wasm), the runtime archives in native/, and the link
// command. An object is linked as a user would, with the package's archive
// and command and the system's compiler, then run against the corpus's
// expected output; it is the CLI's object byte for byte.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { pexe, corpusFile, cliTests, native, pkgDir, runSpecs, INVALID } from './helpers.mjs';

const FANNKUCH = 'cli/binji_pnacl_c/test/benchmark/res/fannkuchredux.pexe';
const spec = runSpecs().find((s) => s.name === 'benchmark/fannkuchredux.txt');

/** The ELF header fields the tests look at. */
function elf(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.deepEqual([...b.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46], 'ELF magic');
  return { class: b[4], data: b[5], type: b.readUInt16LE(16), machine: b.readUInt16LE(18) };
}
const ET_REL = 1;
const EM_X86_64 = 62;
const EM_AARCH64 = 183;

function tempDir(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pexe-native-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** Links `object` in `dir` with the package's archive and link command (run by the shell); the executable's path. */
async function link(dir, target, object, cc) {
  const archive = await pexe.nativeRuntimeArchive(target);
  writeFileSync(path.join(dir, 'fannkuchredux.o'), object);
  writeFileSync(path.join(dir, pexe.nativeRuntimeFileName(target)), archive);
  const command = pexe.nativeLinkCommand(target, { output: 'fannkuchredux', object: 'fannkuchredux.o', cc });
  execFileSync('sh', ['-c', command], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  return path.join(dir, 'fannkuchredux');
}

test('the native module and archives are in the package, out of the default download', () => {
  const wasmDir = path.join(pkgDir, 'internal', 'translator', 'wasm');
  const module = readFileSync(path.join(wasmDir, 'pexe_native_bg.wasm'));
  console.log(`SIZE pexe_native_bg.wasm ${module.length} bytes, ${gzipSync(module, { level: 9 }).length} gzipped`);
  // Cranelift's names stay out of the translator module the page loads at import.
  const translator = readFileSync(path.join(wasmDir, 'pexe_bg.wasm')).toString('latin1');
  assert.ok(!translator.includes('cranelift'), 'pexe_bg.wasm holds Cranelift');
  assert.ok(module.toString('latin1').includes('cranelift'));
  for (const target of ['x86_64-linux', 'aarch64-linux']) {
    const archive = path.join(pkgDir, 'native', `libpexe_runtime-${target}.a`);
    assert.ok(existsSync(archive), `${archive} (scripts/build-pkg.sh copies it)`);
    assert.equal(readFileSync(archive).subarray(0, 8).toString('latin1'), '!<arch>\n');
  }
});

test('x86-64: the object is the CLI\'s, links with the package\'s archive and command, and runs', async (t) => {
  const bytes = corpusFile(FANNKUCH);
  const object = pexe.translate(bytes, { target: 'x86_64-linux' });
  assert.ok(object instanceof Uint8Array);
  assert.deepEqual(elf(object), { class: 2, data: 1, type: ET_REL, machine: EM_X86_64 });

  const cli = native(['translate', '--target', 'x86_64-linux', path.join(cliTests, 'benchmark/res/fannkuchredux.pexe')]);
  assert.equal(object.length, cli.length, 'object size, package vs target/release/pexe translate');
  assert.ok(Buffer.from(object).equals(cli), 'the object differs from `pexe translate --target x86_64-linux`');

  assert.equal(pexe.nativeLinkCommand('x86_64-linux'), 'cc -static -Wl,--gc-sections -o app app.o libpexe_runtime-x86_64-linux.a');
  const dir = tempDir(t);
  const exe = await link(dir, 'x86_64-linux', object);
  const run = spawnSync(exe, spec.args, { cwd: dir });
  assert.equal(run.status, 0, run.stderr.toString());
  assert.equal(run.stdout.toString('latin1'), Buffer.from(spec.stdout).toString('latin1'));
});

test('AArch64: an ELF relocatable for AArch64 that links and runs under QEMU', async (t) => {
  const object = pexe.translate(corpusFile(FANNKUCH), { target: 'aarch64-linux' });
  assert.deepEqual(elf(object), { class: 2, data: 1, type: ET_REL, machine: EM_AARCH64 });
  const cli = native(['translate', '--target', 'aarch64-linux', path.join(cliTests, 'benchmark/res/fannkuchredux.pexe')]);
  assert.ok(Buffer.from(object).equals(cli), 'the object differs from `pexe translate --target aarch64-linux`');

  // scripts/setup.sh installs both.
  for (const c of ['aarch64-linux-gnu-gcc', 'qemu-aarch64-static']) assert.ok(has(c), `${c} is missing (scripts/setup.sh)`);
  const dir = tempDir(t);
  const exe = await link(dir, 'aarch64-linux', object, 'aarch64-linux-gnu-gcc');
  const run = spawnSync('qemu-aarch64-static', [exe, ...spec.args], { cwd: dir });
  assert.equal(run.status, 0, run.stderr.toString());
  assert.equal(run.stdout.toString('latin1'), Buffer.from(spec.stdout).toString('latin1'));
});

/** start.pexe with `_start` made internal (as api.test.mjs does it): it decodes but does not verify. */
function unverifiable() {
  const file = path.join(cliTests, 'res/start.pexe');
  const records = native(['dis', '--records', file], { encoding: 'utf8' });
  const edited = records.replace('156:0|  3: <8, 2, 0, 0, 0>', '156:0|  3: <8, 2, 0, 0, 3>');
  assert.notEqual(edited, records, 'the declaration of _start is where it was');
  const dir = mkdtempSync(path.join(tmpdir(), 'pexe-native-'));
  try {
    writeFileSync(path.join(dir, 'in.rec'), edited);
    native(['as', path.join(dir, 'in.rec'), '-o', path.join(dir, 'out.pexe')]);
    return new Uint8Array(readFileSync(path.join(dir, 'out.pexe')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a pexe that does not verify, or does not decode, fails with the same PexeError for every target', () => {
  const cases = [['start.pexe without an entry point', unverifiable(), 'verify'], ...[...INVALID].slice(0, 2).map((rel) => [rel, corpusFile(rel), 'decode'])];
  for (const [what, bytes, kind] of cases) {
    const caught = (target) => {
      try {
        pexe.translate(bytes, { target });
      } catch (e) {
        return e;
      }
      assert.fail(`${what} translated for ${target}`);
    };
    const wasm = caught('wasm32');
    assert.ok(wasm instanceof pexe.PexeError);
    assert.equal(wasm.kind, kind, what);
    assert.ok(wasm.diagnostics.length > 0, what);
    for (const target of ['x86_64-linux', 'aarch64-linux']) {
      const e = caught(target);
      assert.ok(e instanceof pexe.PexeError, `${what} ${target}: ${e}`);
      assert.deepEqual(
        { kind: e.kind, message: e.message, diagnostics: e.diagnostics },
        { kind: wasm.kind, message: wasm.message, diagnostics: wasm.diagnostics },
        `${what} ${target}`,
      );
    }
  }
  // Not a pexe at all: a decode error, alike.
  const garbage = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
  const messages = ['wasm32', 'x86_64-linux'].map((target) => {
    try {
      pexe.translate(garbage, { target });
    } catch (e) {
      return [e.name, e.kind, e.message];
    }
    return null;
  });
  assert.equal(messages[0][1], 'decode');
  assert.deepEqual(messages[1], messages[0]);
});

test('options: native targets are for translate only; names are checked', async () => {
  const bytes = corpusFile(FANNKUCH);
  assert.throws(() => new pexe.Translator({ target: 'x86_64-linux' }), { name: 'PexeError', kind: 'options', message: /target 'x86_64-linux' is not 'wasm32' \(native targets: translate\(\)\)/ });
  assert.throws(() => pexe.translate(bytes, { target: 'riscv64-linux' }), { name: 'PexeError', kind: 'options', message: /target 'riscv64-linux' is not 'wasm32'/ });
  assert.throws(() => pexe.nativeLinkCommand('wasm32'), { name: 'PexeError', kind: 'options' });
  await assert.rejects(pexe.nativeRuntimeArchive('x86_64'), { name: 'PexeError', kind: 'options' });
  assert.equal(
    pexe.nativeLinkCommand('aarch64-linux', { output: 'my app', cc: 'aarch64-linux-gnu-gcc' }),
    "aarch64-linux-gnu-gcc -static -Wl,--gc-sections -o 'my app' 'my app.o' libpexe_runtime-aarch64-linux.a",
  );
  await pexe.loadNativeTranslator();
});
