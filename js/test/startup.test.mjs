// What the Node runner loads to start a single-threaded command-line
// program (`pexe run`'s common case): neither the thread machinery nor
// Pepper's code (host.loadThreads(), host.loadPepper() bring them when a
// run needs them), nor worker_threads or Node's streams. Each costs start-up
// time and none of it is used. The same holds for the runner as `pexe run`
// starts it, bundled by scripts/bundle-runtime.mjs.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import * as nodePath from 'node:path';
import * as os from 'node:os';
import { fileURLToPath } from 'node:url';
import { exit, write } from './helpers/cases.mjs';
import { abiModule, callIrt, op, text, I32 } from './helpers/wasm.mjs';
import { errno } from '../src/internal/runtime/defs.js';
import { testNeeding } from './helpers/needs.mjs';
import { BUNDLE_ENTRY, bundleRuntime, loadEsbuild } from '../scripts/bundle-runtime.mjs';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const RUN_MJS = nodePath.join(SRC, 'internal/node/run.mjs');

/** Everything reached from `start` by following `next` (each item once). */
function reach(start, next) {
  const seen = new Set();
  const todo = [start];
  while (todo.length) {
    const item = todo.pop();
    if (seen.has(item)) continue;
    seen.add(item);
    todo.push(...next(item));
  }
  return seen;
}

/** Files reached from `entry` through static imports (a dynamic import() is what defers a file). */
function staticReach(entry) {
  const imports = (file) => {
    const code = nodeFs.readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    return [...code.matchAll(/^\s*(?:import|export)\b[^;('"]*?(?:\bfrom\s*)?['"](\.[^'"]+)['"]/gm)].map((m) =>
      nodePath.resolve(nodePath.dirname(file), m[1]),
    );
  };
  return [...reach(entry, imports)].map((f) => nodePath.relative(SRC, f));
}

test('the Node runner imports neither the thread machinery nor Pepper at start', () => {
  const files = staticReach(RUN_MJS);
  assert.ok(files.includes('internal/runtime/thread.js'), files.join('\n'));
  for (const lazy of ['internal/runtime/threads/', 'internal/pepper/browser.js', 'internal/pepper/modules.js', 'internal/node/websocket.js']) {
    assert.deepEqual(files.filter((f) => f.startsWith(lazy)), [], lazy);
  }
});

/**
 * Runs `wasm` with run.mjs (`args` before it, stdout to `stdout`): its
 * exit status, stdout, and stderr's lines, which end with Node's own list
 * of the built-in modules it loaded (written at exit, not through
 * process.stderr, which would load streams itself).
 */
function runListingModules(t, wasm, { args = [], stdout = 'pipe', runner = RUN_MJS } = {}) {
  const dir = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'pexe-startup-'));
  t.after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));
  const file = nodePath.join(dir, 'guest.wasm');
  nodeFs.writeFileSync(file, wasm);
  const preload = nodePath.join(dir, 'list.cjs');
  nodeFs.writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, process.moduleLoadList.join('\\n')));\n");
  const r = spawnSync(process.execPath, ['--stack-size=7680', '--require', preload, runner, ...args, file], {
    stdio: ['pipe', stdout, 'pipe'],
    input: '',
    timeout: 60000,
  });
  return { status: r.status, stdout: r.stdout?.toString(), lines: r.stderr.toString().split('\n') };
}

const HELLO = abiModule({
  singleThreaded: true,
  data: [text(0x10000, 'Hello, World!\n')],
  funcs: [{ name: '_start', params: [I32], body: [...write(1, 0x10000, 14), ...exit(0)] }],
});

/** Runs HELLO with `runner`: it prints, on the main thread, without worker_threads, streams or tty. */
function helloLoadsNoWorkersStreamsOrTty(t, runner) {
  const r = runListingModules(t, HELLO, { args: ['--verbose'], runner });
  assert.equal(r.stdout, 'Hello, World!\n');
  assert.ok(r.lines.includes('pexe: single-threaded module: running on the main thread'), r.lines.join('\n'));
  for (const name of ['worker_threads', 'stream', 'net', 'tty']) {
    assert.ok(!r.lines.includes(`NativeModule ${name}`), `${name} is loaded`);
  }
}

test('a single-threaded program on pipes loads no worker_threads, streams or tty', (t) => {
  helloLoadsNoWorkersStreamsOrTty(t, RUN_MJS);
});

// `pexe run` starts the runner bundled (scripts/bundle-runtime.mjs, run by
// build.rs): code splitting must keep what run.mjs imports lazily out of
// the files the bundle's entry loads at start.
const esbuild = await loadEsbuild();

testNeeding(!esbuild && 'esbuild is not installed (npm ci in js/)', 'the bundled runner loads at start what run.mjs imports statically, no more', {}, async (t) => {
  const dir = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'pexe-bundle-'));
  t.after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));
  const outputs = await bundleRuntime(dir, esbuild);
  const loaded = reach(BUNDLE_ENTRY, (file) => outputs[file].imports);
  const sources = [...loaded].flatMap((f) => outputs[f].inputs).sort();
  assert.deepEqual(sources, staticReach(RUN_MJS).sort());
  // What the bundle is for: far fewer files than modules.
  assert.ok(loaded.size <= 4, [...loaded].join('\n'));
  // And lazily imported code does sit in the other chunks.
  const lazy = Object.keys(outputs).filter((f) => !loaded.has(f)).flatMap((f) => outputs[f].inputs);
  for (const file of ['internal/runtime/threads/spawn.js', 'internal/pepper/modules.js', 'internal/node/websocket.js', 'internal/node/net.js']) {
    assert.ok(lazy.includes(file), file);
  }
  helloLoadsNoWorkersStreamsOrTty(t, nodePath.join(dir, BUNDLE_ENTRY));
});

test('output to /dev/null is no terminal, and asking does not load tty', (t) => {
  // exit(isatty(1, &result)): newlib asks so on its first write to a
  // character device.
  const isatty = abiModule({
    singleThreaded: true,
    funcs: [{
      name: '_start',
      params: [I32],
      body: [...op.i32_const(1), ...op.i32_const(0x10f00), ...callIrt('isatty'), ...callIrt('exit')],
    }],
  });
  const devNull = nodeFs.openSync('/dev/null', 'w');
  t.after(() => nodeFs.closeSync(devNull));
  const r = runListingModules(t, isatty, { stdout: devNull });
  assert.equal(r.status, errno.ENOTTY, r.lines.join('\n'));
  for (const name of ['net', 'tty']) {
    assert.ok(!r.lines.includes(`NativeModule ${name}`), `${name} is loaded`);
  }
});
