// The package's command line, `pkg/bin/pexe.mjs` (what `npx pexe` runs):
// outputs and exit codes match the native `pexe` CLI.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pexe, cliTests, corpus, corpusFile, INVALID, nativePexe, pkgBin, pkgDir, runSpecs } from './helpers.mjs';

/** Runs `node pkg/bin/pexe.mjs ARGS`. */
function npmPexe(args, options = {}) {
  return spawnSync(process.execPath, [pkgBin, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
}

function nativeRun(args, options = {}) {
  return spawnSync(nativePexe, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
}

test('pexe run FILE -- ARGS: the guest output and exit status', () => {
  const spec = runSpecs().find((s) => s.name === 'printf/printf-3.txt');
  const r = npmPexe(['run', spec.file, '--', ...spec.args], { cwd: cliTests });
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.equal(r.stdout, Buffer.from(spec.stdout).toString('latin1'));
  // Options before FILE; argv[0] override; environment.
  const r2 = npmPexe(['run', '--argv0', 'renamed', '--env', 'A=1', spec.file, 'x'], { cwd: cliTests });
  assert.equal(r2.status, 0);
  assert.equal(r2.stdout, 'arg0 = renamed\narg1 = x\n');
});

test('pexe run of a threaded program, and of a bad pexe', () => {
  const spec = runSpecs().find((s) => s.name === 'thread.txt');
  const r = npmPexe(['run', spec.file], { cwd: cliTests });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, Buffer.from(spec.stdout).toString('latin1'));

  const bad = path.join(corpus, 'cli/binji_pnacl_c/test/regression/2.pexe');
  const rb = npmPexe(['run', bad]);
  assert.equal(rb.status, 1);
  assert.match(rb.stderr, /^.*regression\/2\.pexe:\d+:\d: error: /);
  const missing = npmPexe(['run', '/nonexistent/app.pexe']);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^error: \/nonexistent\/app\.pexe: /);
});

test('pexe dis: the same listing, errors and exit codes as the native CLI', () => {
  const files = ['cli/binji_pnacl_c/test/res/puts.pexe', ...INVALID];
  for (const rel of files) {
    const file = path.join(corpus, rel);
    for (const flags of [[], ['--records'], ['--asm']]) {
      const ours = npmPexe(['dis', ...flags, file]);
      const theirs = nativeRun(['dis', ...flags, file]);
      assert.equal(ours.stdout, theirs.stdout, `${rel} ${flags}`);
      assert.equal(ours.stderr, theirs.stderr, `${rel} ${flags}`);
      assert.equal(ours.status, theirs.status, `${rel} ${flags}`);
    }
  }
  const file = path.join(corpus, 'cli/binji_pnacl_c/test/res/puts.pexe');
  assert.equal(npmPexe(['dis', '--function', '14', file]).stdout, nativeRun(['dis', '--function', '14', file]).stdout);
  // From standard input.
  const fromStdin = npmPexe(['dis', '-'], { input: readFileSync(file) });
  assert.equal(fromStdin.stdout, nativeRun(['dis', file]).stdout);
});

test('pexe verify: the same lines and exit codes as the native CLI', () => {
  const files = [path.join(corpus, 'cli/binji_pnacl_c/test/res/puts.pexe'), ...[...INVALID].map((r) => path.join(corpus, r))];
  const ours = npmPexe(['verify', ...files]);
  const theirs = nativeRun(['verify', ...files]);
  assert.ok(theirs.stdout.split('\n').length > INVALID.size);
  assert.equal(ours.stdout, theirs.stdout);
  assert.equal(ours.status, 1);
  assert.equal(theirs.status, 1);
  const valid = npmPexe(['verify', files[0]]);
  assert.deepEqual([valid.status, valid.stdout], [0, '']);
  assert.deepEqual([npmPexe(['verify', '-q', ...files]).stdout, npmPexe(['verify', '-q', ...files]).status], ['', 1]);
});

test('pexe translate -o and pexe inspect', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pexe-npm-'));
  try {
    const rel = 'cli/binji_pnacl_c/test/res/setjmp.pexe';
    const out = path.join(dir, 'setjmp.wasm');
    const r = npmPexe(['translate', path.join(corpus, rel), '-o', out]);
    assert.equal(r.status, 0, r.stderr);
    const wasm = readFileSync(out);
    assert.ok(WebAssembly.validate(wasm));
    assert.ok(wasm.equals(pexe.translate(corpusFile(rel))));
    // The translated module runs too.
    const spec = runSpecs().find((s) => s.name === 'setjmp.txt');
    const ran = npmPexe(['run', out, '--', ...spec.args]);
    assert.equal(ran.stdout, Buffer.from(spec.stdout).toString('latin1'));

    const inspected = npmPexe(['inspect', path.join(corpus, rel)]);
    assert.equal(inspected.status, 0);
    assert.deepEqual(JSON.parse(inspected.stdout), pexe.inspect(corpusFile(rel)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('usage errors exit 2', () => {
  for (const args of [[], ['frobnicate'], ['dis'], ['dis', '--records', '--asm', 'x.pexe'], ['run', '--stack-size', 'lots', 'x.pexe'], ['verify']]) {
    const r = npmPexe(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /usage: pexe/);
  }
  const help = npmPexe(['help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: pexe <command>/);
});

test('npx pexe: the package installed in a project provides the command', (t) => {
  const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
  if (npm.status !== 0) {
    // In CI a missing tool is a failure: a skipped test would be a test that does not exist.
    assert.notEqual(process.env.CI, 'true', 'npm is not installed (CI=true)');
    t.skip('npm is not installed');
    return;
  }
  const project = mkdtempSync(path.join(tmpdir(), 'pexe-npx-'));
  try {
    writeFileSync(path.join(project, 'package.json'), '{ "name": "uses-pexe", "private": true, "type": "module" }\n');
    // A copy, as `npm pack` would ship it (the files list of package.json).
    const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    const copy = path.join(project, 'pexe-pkg');
    for (const f of [...manifest.files, 'package.json']) cpSync(path.join(pkgDir, f), path.join(copy, f), { recursive: true });
    const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    const install = spawnSync('npm', ['install', '--offline', '--no-save', './pexe-pkg'], { cwd: project, encoding: 'utf8', env });
    assert.equal(install.status, 0, install.stderr);
    const puts = path.join(corpus, 'cli/binji_pnacl_c/test/res/printf.pexe');
    const r = spawnSync('npx', ['--no-install', 'pexe', 'run', puts, '--', 'via', 'npx'], { cwd: project, encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `arg0 = ${puts}\narg1 = via\narg2 = npx\n`);
    // And the package resolves by name from the project.
    const imp = spawnSync(process.execPath, ['--input-type=module', '-e', "import { version } from 'pexe'; console.log(version)"], { cwd: project, encoding: 'utf8' });
    assert.equal(imp.stdout.trim(), manifest.version, imp.stderr);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
