// End to end: modules built to the runtime ABI (helpers/wasm.mjs), run by
// run() on one thread and in Workers, and by the Node runner (run.mjs) as
// a child process: output, exit status, startup info, stdin, threads,
// futexes, exits from any thread, every kind of guest fault, tracing.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import * as nodePath from 'node:path';
import * as os from 'node:os';
import { fileURLToPath } from 'node:url';
import { run, AbiMismatch } from './helpers/runtime.mjs';
import { abiModule, op, callIrt, text, I32, F32 } from './helpers/wasm.mjs';
import { HELLO, THREADS, EXIT_FROM_THREAD, TRY_THREAD, DEADLOCK, FAULTS, faulting, write, exit, createThread } from './helpers/cases.mjs';

const RUN_MJS = fileURLToPath(new URL('../src/internal/node/run.mjs', import.meta.url));
const dec = (chunks) => Buffer.concat(chunks).toString();

async function capture(wasm, options = {}) {
  const out = [];
  const err = [];
  const result = await run(wasm, { stdout: (c) => out.push(c), stderr: (c) => err.push(c), ...options });
  return { ...result, stdout: dec(out), stderr: dec(err) };
}

for (const threads of [false, true]) {
  const mode = threads ? 'workers' : 'one thread';

  test(`${mode}: hello world`, async () => {
    const r = await capture(HELLO, { threads });
    assert.deepEqual([r.exitCode, r.stdout, r.fault], [0, 'Hello, World!\n', undefined]);
  });

  test(`${mode}: _start's return value is the exit status (i32, and f32 bits)`, async () => {
    const argc = abiModule({
      funcs: [{ name: '_start', params: [I32], results: [I32], body: [...op.local_get(0), ...op.i32_load(8)] }],
    });
    assert.equal((await capture(argc, { threads, args: ['p', 'a', 'b'] })).exitCode, 3);
    // Like bitcast.pexe: returns the startinfo address as float bits. The
    // startup info is mapped right after the 8 MiB stack at __heap_base.
    const bits = abiModule({
      heapBase: 0x20000,
      funcs: [{ name: '_start', params: [I32], results: [F32], body: [...op.local_get(0), ...op.f32_reinterpret_i32()] }],
    });
    assert.equal((await capture(bits, { threads })).exitCode, 0x20000 + (8 << 20));
    assert.equal((await capture(bits, { threads, stackSize: 1 << 20 })).exitCode, 0x20000 + (1 << 20));
  });

  test(`${mode}: stdin to stdout`, async () => {
    const BUF = 0x11000, N = 0x10f10;
    const cat = abiModule({
      funcs: [{
        name: '_start', params: [I32], body: [
          ...op.block(), ...op.loop(),
          ...op.i32_const(0), ...op.i32_const(BUF), ...op.i32_const(7), ...op.i32_const(N), ...callIrt('read'),
          ...op.br_if(1),
          ...op.i32_const(N), ...op.i32_load(), ...op.i32_eqz(), ...op.br_if(1),
          ...op.i32_const(1), ...op.i32_const(BUF), ...op.i32_const(N), ...op.i32_load(), ...op.i32_const(N + 4),
          ...callIrt('write'), ...op.drop(),
          ...op.br(0), ...op.end(), ...op.end(),
          ...exit(0),
        ],
      }],
    });
    const input = 'line one\nline two\n'.repeat(100);
    const r = await capture(cat, { threads, stdin: input });
    assert.equal(r.stdout, input);
  });

  test(`${mode}: guest faults end the run with a message naming the function`, async () => {
    for (const [what, body, message] of FAULTS) {
      const r = await capture(faulting(body), { threads });
      assert.equal(r.exitCode, 134, what);
      assert.match(r.fault, new RegExp(message), what);
    }
  });

  test(`${mode}: an untimed futex wait nobody can end is a deadlock fault`, async () => {
    const r = await capture(DEADLOCK, { threads });
    assert.equal(r.exitCode, 134);
    assert.match(r.fault, /^guest fault: deadlock: every thread is waiting on a futex in function _start$/);
  });

  test(`${mode}: trace lines for every IRT call`, async () => {
    const lines = [];
    const r = await capture(HELLO, { threads, trace: (l) => lines.push(l) });
    assert.equal(r.exitCode, 0);
    assert.deepEqual(lines, ['[pexe 0] write(1, 0x10000, 14, 0x10f00) = 0', '[pexe 0] exit(0) -> exit']);
  });
}

test('workers: thread_create, futex join, thread_exit clears the stack flag', async () => {
  for (let i = 0; i < 5; i++) {
    const r = await capture(THREADS);
    assert.deepEqual([r.exitCode, r.stdout, r.fault], [0x77, 'thread\nmain\n', undefined]);
  }
});

test('one thread: thread_create fails with EAGAIN', async () => {
  assert.equal((await capture(TRY_THREAD, { threads: false })).exitCode, 11);
});

test('one thread: a refused thread_create is reported once, with the reason', async () => {
  const reasons = [];
  const twice = abiModule({
    funcs: [
      {
        name: '_start', params: [I32], results: [I32], body: [
          ...op.i32_const(54), ...op.i32_const(0x18000), ...op.i32_const(0), ...callIrt('thread_create'), ...op.drop(),
          ...op.i32_const(54), ...op.i32_const(0x18000), ...op.i32_const(0), ...callIrt('thread_create'),
        ],
      },
      { name: 'worker', body: [] },
    ],
  });
  const r = await capture(twice, { threads: false, onThreadRefused: (reason) => reasons.push(reason) });
  assert.equal(r.exitCode, 11);
  assert.deepEqual(reasons, ['guest threads are turned off (threads: false)']);
  // Where threads run, nothing is reported.
  const none = [];
  assert.equal((await capture(TRY_THREAD, { onThreadRefused: (reason) => none.push(reason) })).exitCode, 0);
  assert.deepEqual(none, []);
});

test('workers: exit() from a thread ends a main thread spinning in wasm', async () => {
  const t0 = Date.now();
  const r = await capture(EXIT_FROM_THREAD);
  assert.equal(r.exitCode, 7);
  assert.ok(Date.now() - t0 < 10000);
});

test('workers: a fault in a thread ends the run and names the thread function', async () => {
  const wasm = abiModule({
    funcs: [
      { name: '_start', params: [I32], body: [...createThread(), ...op.loop(), ...op.br(0), ...op.end()] },
      { name: 'worker', body: [...op.unreachable()] },
    ],
  });
  const r = await capture(wasm);
  assert.equal(r.exitCode, 134);
  assert.equal(r.fault, 'guest fault: unreachable in function worker');
});

test('workers: when the main thread thread_exits, the last thread to end ends the run', async () => {
  const wasm = abiModule({
    data: [text(0x10000, 'thread\n')],
    funcs: [
      { name: '_start', params: [I32], body: [...createThread(), ...op.i32_const(0), ...callIrt('thread_exit')] },
      { name: 'worker', body: [...write(1, 0x10000, 7)] },
    ],
  });
  const r = await capture(wasm);
  assert.deepEqual([r.exitCode, r.stdout], [0, 'thread\n']);
});

test('a module that does not follow the ABI is rejected before it runs', async () => {
  const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  await assert.rejects(run(bytes), (e) => e instanceof AbiMismatch && /0 imports/.test(e.message));
});

test('the Node runner: argv[0], arguments, environment, byte-exact output, exit status', (t) => {
  const dir = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'pexe-run-'));
  t.after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));
  // _start(si): write argv[argc-1] (its length found by a strlen loop), then
  // envp[0] likewise, then exit(argc).
  const strlenWrite = (ptrExpr) => [
    ...ptrExpr, ...op.local_set(1), ...op.i32_const(0), ...op.local_set(2),
    ...op.block(), ...op.loop(),
    ...op.local_get(1), ...op.local_get(2), ...op.i32_add(), ...op.i32_load8_u(), ...op.i32_eqz(), ...op.br_if(1),
    ...op.local_get(2), ...op.i32_const(1), ...op.i32_add(), ...op.local_set(2), ...op.br(0),
    ...op.end(), ...op.end(),
    ...op.i32_const(1), ...op.local_get(1), ...op.local_get(2), ...op.i32_const(0x10f00), ...callIrt('write'), ...op.drop(),
  ];
  // argv[argc-1] is at si + 4*argc + 8; envp[0] at si + 4*argc + 16.
  const argcTimes4 = [...op.local_get(0), ...op.i32_load(8), ...op.i32_const(2), ...op.i32_shl()];
  const argvLast = [...op.local_get(0), ...argcTimes4, ...op.i32_add(), ...op.i32_load(8)];
  const envFirst = [...op.local_get(0), ...argcTimes4, ...op.i32_add(), ...op.i32_load(16)];
  const wasm = abiModule({
    data: [{ at: 0x10000, bytes: new Uint8Array([0xff, 0x00, 0x0a, 0xfe]) }],
    funcs: [{
      name: '_start', params: [I32], locals: [I32, I32], body: [
        ...strlenWrite(argvLast),
        ...strlenWrite(envFirst),
        ...write(1, 0x10000, 4),
        ...write(2, 0x10000, 2),
        ...op.local_get(0), ...op.i32_load(8), ...callIrt('exit'),
      ],
    }],
  });
  const file = nodePath.join(dir, 'prog.wasm');
  nodeFs.writeFileSync(file, wasm);
  const r = spawnSync(process.execPath, [RUN_MJS, '--argv0', 'res/prog.pexe', '--env', 'K=v w', file, '--', 'a', 'last arg'], { timeout: 60000 });
  assert.equal(r.status, 3, r.stderr.toString());
  assert.deepEqual([...r.stdout], [...Buffer.from('last argK=v w'), 0xff, 0x00, 0x0a, 0xfe]);
  assert.deepEqual([...r.stderr], [0xff, 0x00]);
  // A fault: message on stderr, status 134.
  const boom = abiModule({ funcs: [{ name: '_start', params: [I32], body: [...op.unreachable()] }] });
  nodeFs.writeFileSync(file, boom);
  const f = spawnSync(process.execPath, [RUN_MJS, file], { timeout: 60000 });
  assert.equal(f.status, 134);
  assert.equal(f.stderr.toString(), 'pexe: guest fault: unreachable in function _start\n');
  // --trace goes to stderr.
  nodeFs.writeFileSync(file, HELLO);
  const tr = spawnSync(process.execPath, [RUN_MJS, '--trace', file], { timeout: 60000 });
  assert.equal(tr.stdout.toString(), 'Hello, World!\n');
  assert.equal(tr.stderr.toString(), '[pexe 0] write(1, 0x10000, 14, 0x10f00) = 0\n[pexe 0] exit(0) -> exit\n');
});

test('the Node runner: a single-threaded module runs on the main thread, its output in order on either path', (t) => {
  const dir = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'pexe-run-'));
  t.after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));
  // stdout, stderr, then 3000 small writes to stdout (more than write-behind
  // holds), stderr again, a clock call, then a fault.
  const N = 3000;
  const body = [
    ...write(1, 0x10000, 2), ...write(2, 0x10002, 2),
    ...op.i32_const(N), ...op.local_set(1),
    ...op.loop(), ...write(1, 0x10004, 32), ...op.local_get(1), ...op.i32_const(1), ...op.i32_sub(), ...op.local_tee(1), ...op.br_if(0), ...op.end(),
    ...write(2, 0x10002, 2),
    ...op.i32_const(0x10f00), ...callIrt('clock'), ...op.drop(),
    ...op.unreachable(),
  ];
  const module = (singleThreaded) => abiModule({
    singleThreaded,
    data: [text(0x10000, 'o1e1' + '0123456789abcdefghijklmnopqrstu\n')],
    funcs: [{ name: '_start', params: [I32], locals: [I32], body }],
  });
  const expected = 'o1e1' + '0123456789abcdefghijklmnopqrstu\n'.repeat(N) + 'e1pexe: guest fault: unreachable in function _start\n';
  const cases = [
    // [module marked, node's stack flag, runs on the main thread]
    [true, ['--stack-size=7680'], true],
    [true, [], false], // too shallow a stack for the guest: a Worker
    [false, ['--stack-size=7680'], false], // may start threads: Workers
  ];
  for (const [marked, flags, inline] of cases) {
    const file = nodePath.join(dir, 'prog.wasm');
    nodeFs.writeFileSync(file, module(marked));
    const outFile = nodePath.join(dir, 'out.txt');
    const fd = nodeFs.openSync(outFile, 'w');
    const r = spawnSync(process.execPath, [...flags, RUN_MJS, '--verbose', file], { stdio: ['ignore', fd, fd], timeout: 60000 });
    nodeFs.closeSync(fd);
    const what = `marked ${marked}, ${flags.join(' ') || 'no flag'}`;
    assert.equal(r.status, 134, what);
    const note = inline ? 'pexe: single-threaded module: running on the main thread\n' : '';
    assert.equal(nodeFs.readFileSync(outFile, 'utf8'), note + expected, what);
  }
});

test('the Node runner: --dir exposes a host directory, nothing else', (t) => {
  const dir = nodeFs.realpathSync(nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'pexe-dir-')));
  t.after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));
  nodeFs.writeFileSync(nodePath.join(dir, 'in.txt'), 'from the host');
  // open("in.txt"), read 64 bytes, write them to stdout; exit(open's errno).
  const PATH = 0x10000, FD = 0x10100, BUF = 0x11000, N = 0x10104;
  const wasm = abiModule({
    data: [text(PATH, 'in.txt\0')],
    funcs: [{
      name: '_start', params: [I32], locals: [I32], body: [
        ...op.i32_const(PATH), ...op.i32_const(0), ...op.i32_const(0), ...op.i32_const(FD), ...callIrt('open'),
        ...op.local_tee(1), ...op.if(), ...op.local_get(1), ...callIrt('exit'), ...op.end(),
        ...op.i32_const(FD), ...op.i32_load(), ...op.i32_const(BUF), ...op.i32_const(64), ...op.i32_const(N), ...callIrt('read'), ...op.drop(),
        ...op.i32_const(1), ...op.i32_const(BUF), ...op.i32_const(N), ...op.i32_load(), ...op.i32_const(N + 4), ...callIrt('write'), ...op.drop(),
        ...exit(0),
      ],
    }],
  });
  const file = nodePath.join(dir, 'prog.wasm');
  nodeFs.writeFileSync(file, wasm);
  const ok = spawnSync(process.execPath, [RUN_MJS, '--dir', dir, file], { cwd: dir, timeout: 60000 });
  assert.equal(ok.stderr.toString(), '');
  assert.equal(ok.stdout.toString(), 'from the host');
  assert.equal(ok.status, 0);
  const none = spawnSync(process.execPath, [RUN_MJS, file], { cwd: dir, timeout: 60000 });
  assert.equal(none.status, 2, 'ENOENT without --dir');
});
