// run()'s `output` option (public/output.js OutputRing): stdout and stderr
// in one shared ring that the embedder drains, from the guest's own thread
// and from guest threads in Workers; their order, the last bytes before an
// exit or a fault, and a ring much smaller than the output.

import test from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { OutputRing } from '../src/public/output.js';
import { run } from './helpers/runtime.mjs';
import { HELLO, interleaved, interleavedText } from './helpers/cases.mjs';

const dec = new TextDecoder();

/** run() in a Worker of its own (the guest's thread, or its host thread, is not the reader's). */
function runInAWorker(wasm, options, output) {
  const w = new Worker(new URL('./helpers/output-worker.mjs', import.meta.url), { workerData: { wasm, options, output } });
  return new Promise((resolve, reject) => {
    w.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m.result)));
    w.once('error', reject);
  }).finally(() => w.terminate());
}

/**
 * Runs `wasm` with `output: ring` in a Worker while draining the ring here
 * as a page would (between tasks); returns the run's result and what came
 * out.
 */
async function drained(wasm, options, ring = new OutputRing()) {
  const got = { 1: '', 2: '', both: '' };
  const take = () =>
    ring.read((fd, bytes) => {
      const text = dec.decode(bytes);
      got[fd] += text;
      got.both += text;
    });
  let done = false;
  const reader = (async () => {
    while (!done) {
      if (take() === 0) await ring.wait(20);
      else await new Promise((r) => setTimeout(r, 1));
    }
  })();
  let result;
  try {
    result = await runInAWorker(wasm, options, ring.buffer);
  } finally {
    done = true;
  }
  done = true;
  await reader;
  take();
  return { ...result, stdout: got[1], stderr: got[2], both: got.both };
}

for (const threads of [false, true]) {
  const mode = threads ? 'workers' : 'one thread';

  test(`${mode}: output ring: hello`, async () => {
    const r = await drained(HELLO, { threads });
    assert.deepEqual([r.exitCode, r.stdout, r.stderr], [0, 'Hello, World!\n', '']);
  });

  test(`${mode}: output ring: stdout and stderr in the order written, the last bytes before exit and fault`, async () => {
    const [out, err, both] = interleavedText(3000);
    const ok = await drained(interleaved(3000), { threads });
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.both, both);
    assert.deepEqual([ok.stdout, ok.stderr], [out, err]);
    const faulted = await drained(interleaved(3000, 'fault'), { threads });
    assert.equal(faulted.exitCode, 134);
    assert.match(faulted.fault, /unreachable/);
    assert.equal(faulted.both, both);
  });

  test(`${mode}: output ring: far more output than the ring holds`, async () => {
    // 64 bytes: every few writes wait for the reader, on this thread.
    const [, , both] = interleavedText(2000);
    const r = await drained(interleaved(2000), { threads }, new OutputRing(64));
    assert.equal(r.exitCode, 0);
    assert.equal(r.both, both);
  });
}

test('one thread: output ring read on the guest\'s own thread, when it holds all the output', async () => {
  const ring = new OutputRing();
  const [out, err] = interleavedText(100);
  const r = await run(interleaved(100, 'fault'), { threads: false, output: ring });
  const got = { 1: '', 2: '' };
  ring.read((fd, bytes) => (got[fd] += dec.decode(bytes)));
  assert.equal(r.exitCode, 134);
  assert.deepEqual([got[1], got[2]], [out, err]);
});

test('output ring: a new reader on the buffer of another; bad options', async () => {
  const ring = new OutputRing(1000);
  assert.equal(ring.capacity, 1024);
  const again = new OutputRing(ring.buffer);
  assert.equal(again.capacity, 1024);
  assert.throws(() => new OutputRing(new SharedArrayBuffer(100)), TypeError);
  await assert.rejects(run(HELLO, { output: new SharedArrayBuffer(64) }), TypeError);
  await assert.rejects(run(HELLO, { output: ring.buffer, stdout: () => {} }), TypeError);
  // Nothing written: wait times out with false.
  assert.equal(await ring.wait(5), false);
});

// A discarded stdout/stderr (no sink: run()'s default outside Node) in
// guest Workers: the writes end in the guest's own Worker. They went to the
// host thread one round trip each (fasta in a page's Worker: 0.5 MB/s).
test('workers: writes to a discarded output end in the guest thread, checked as the host checks them', async () => {
  const { FileSystem } = await import('../src/internal/runtime/fs/index.js');
  const { createControl, STDIO, STDIO_DISCARD } = await import('../src/internal/runtime/control.js');
  const { withPassthrough } = await import('../src/internal/runtime/threads/passthrough.js');
  const { GuestMemory } = await import('../src/internal/runtime/memory.js');
  const { errno } = await import('../src/internal/runtime/defs.js');

  // Which stdio slots say "discard": the null sinks, until a dup2 puts a file there.
  const fs = new FileSystem({ stdout: null, stderr: () => {} });
  assert.deepEqual([1, 2].map((fd) => fs.passthroughFd(fd)), [STDIO_DISCARD, -1]);
  fs.dup2(2, 1);
  assert.equal(fs.passthroughFd(1), -1, 'fd 1 now refers to a sink');

  const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
  const mem = new GuestMemory(memory);
  const control = createControl();
  control[STDIO + 1] = STDIO_DISCARD;
  const slow = [];
  const calls = withPassthrough(
    { write: (...args) => (slow.push(args), 0), read: () => 0 },
    { mem, control },
  );
  assert.equal(calls.write(1, 0x100, 61, 0x10), 0);
  assert.equal(new DataView(memory.buffer).getUint32(0x10, true), 61, 'the count written');
  // Out of memory: EFAULT, as the host's write answers.
  assert.equal(calls.write(1, 0xfff0, 61, 0x10), errno.EFAULT);
  assert.equal(calls.write(1, 0x100, 4, 0x10000), errno.EFAULT);
  assert.deepEqual(slow, [], 'no host call');
  // Other fds still go to the host.
  assert.equal(calls.write(2, 0x100, 4, 0x10), 0);
  assert.equal(slow.length, 1);

  // End to end: a guest in a Worker writing to a discarded stdout.
  const lines = [];
  const r = await run(HELLO, { threads: true, stdout: null, trace: (l) => lines.push(l) });
  assert.equal(r.exitCode, 0);
  assert.deepEqual(lines, ['[pexe 0] write(1, 0x10000, 14, 0x10f00) = 0', '[pexe 0] exit(0) -> exit']);
});
