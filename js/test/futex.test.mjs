// Futex wait/wake between two worker_threads on shared memory, and the
// deadlock check when every thread waits.

import test from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { createControl, LIVE } from '../src/internal/runtime/control.js';

const WORKER = new URL('./helpers/futex-worker.mjs', import.meta.url);

function start(data) {
  const w = new Worker(WORKER, { workerData: data });
  const messages = [];
  const waiters = [];
  w.on('message', (m) => {
    messages.push(m);
    waiters.splice(0).forEach((f) => f());
  });
  const next = async (pred) => {
    for (;;) {
      const m = messages.find(pred);
      if (m) return m;
      await new Promise((r) => waiters.push(r));
    }
  };
  return { w, next };
}

test('a waiter in one worker is woken by futex_wake from another', async () => {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  const control = createControl();
  control[LIVE] = 2;
  const word = 0x100;
  const waiter = start({ memory, control, role: 'waiter', word, tid: 1 });
  await waiter.next((m) => m.ready);
  const waker = start({ memory, control, role: 'waker', word, tid: 2 });
  const woke = await waker.next((m) => 'r' in m);
  const done = await waiter.next((m) => m.results);
  assert.equal(woke.r, 0);
  assert.equal(done.value, 42);
  // The waiter blocked (woken: 0) or saw the new value at once (EAGAIN).
  assert.ok(done.results.every((r) => r === 0 || r === 11), JSON.stringify(done.results));
  assert.ok(woke.woken <= 1);
  await Promise.all([waiter.w.terminate(), waker.w.terminate()]);
});

test('when every live thread waits forever, the wait faults with a deadlock', async () => {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  const control = createControl();
  control[LIVE] = 2;
  const a = start({ memory, control, role: 'stuck', word: 0x100, tid: 1 });
  const b = start({ memory, control, role: 'stuck', word: 0x200, tid: 2 });
  const t0 = Date.now();
  // The first to notice faults (in a real run that ends every thread).
  const first = await Promise.race([a.next((m) => 'fault' in m), b.next((m) => 'fault' in m)]);
  assert.match(first.fault, /deadlock/);
  assert.ok(Date.now() - t0 < 10000);
  await Promise.all([a.w.terminate(), b.w.terminate()]);
});
