// `run` of the npm package: corpus programs give their expected output
// (cli/binji_pnacl_c/test/*.txt), through the whole pipeline in Node:
// pexe bytes -> translate (wasm) -> runtime (Workers for threads).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pexe, cliTests, corpusFile, native, repo, runSpecs, sink } from './helpers.mjs';

const { run, runInWorker, translate, PexeError } = pexe;

const specs = runSpecs();

test('the corpus has the run descriptions these tests need', () => {
  const names = specs.map((s) => s.name);
  for (const n of ['puts.txt', 'printf/printf-0.txt', 'printf/printf-3.txt', 'setjmp.txt', 'thread.txt']) {
    assert.ok(names.includes(n), `${n} among ${names.join(', ')}`);
  }
});

for (const spec of specs.filter((s) => !s.slow)) {
  test(`run ${spec.name}: ${spec.file} ${spec.args.join(' ')}`, async () => {
    const bytes = new Uint8Array(readFileSync(path.join(cliTests, spec.file)));
    const stdout = sink();
    const stderr = sink();
    const result = await run(bytes, { args: [spec.file, ...spec.args], stdout, stderr });
    assert.equal(result.fault, undefined, `fault: ${result.fault}\n${stderr.text()}`);
    assert.equal(result.exitCode, 0, stderr.text());
    assert.ok(Buffer.from(spec.stdout).equals(stdout.bytes()), `stdout of ${spec.name}:\n${stdout.text().slice(0, 2000)}`);
  });
}

test('run: the exit status, from the bundled sample (factorial of 5 = 120)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pexe-npm-'));
  try {
    const out = path.join(dir, 'fact.pexe');
    native(['as', path.join(repo, 'samples', 'fact.records'), '-o', out]);
    const result = await run(readFileSync(out), { stdout: null, stderr: null });
    assert.deepEqual(result, { exitCode: 120 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run takes translated bytes or a compiled module too, and stdin', async () => {
  const spec = specs.find((s) => s.name === 'printf/printf-3.txt');
  const wasm = translate(corpusFile(`cli/binji_pnacl_c/test/${spec.file}`));
  for (const program of [wasm, await WebAssembly.compile(wasm)]) {
    const stdout = sink();
    const result = await run(program, { args: [spec.file, ...spec.args], stdout, stdin: 'ignored' });
    assert.equal(result.exitCode, 0);
    assert.ok(Buffer.from(spec.stdout).equals(stdout.bytes()), stdout.text());
  }
});

test('run: argv[0] defaults to "pexe"', async () => {
  const stdout = sink();
  await run(corpusFile('cli/binji_pnacl_c/test/res/printf.pexe'), { stdout });
  assert.equal(stdout.text(), 'arg0 = pexe\n');
});

test('run on one thread (threads: false) and in a Worker (runInWorker)', async () => {
  const spec = specs.find((s) => s.name === 'setjmp.txt');
  const bytes = corpusFile(`cli/binji_pnacl_c/test/${spec.file}`);
  for (const go of [(o) => run(bytes, { ...o, threads: false }), (o) => runInWorker(bytes, o)]) {
    const stdout = sink();
    const result = await go({ args: [spec.file, ...spec.args], stdout });
    assert.equal(result.exitCode, 0);
    assert.ok(Buffer.from(spec.stdout).equals(stdout.bytes()), stdout.text());
  }
});

test('run of a pexe that does not translate rejects with a PexeError', async () => {
  await assert.rejects(run(corpusFile('cli/binji_pnacl_c/test/regression/1.pexe')), (e) => e instanceof PexeError && e.kind === 'decode');
  await assert.rejects(run(new TextEncoder().encode('hello')), (e) => e instanceof PexeError && e.kind === 'decode');
  await assert.rejects(run('app.pexe'), TypeError);
});
