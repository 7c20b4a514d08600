// A guest thread blocked in a Worker when its process ends: in a host call
// the host will not answer, in a futex wait, in a sleep. It must leave the
// wait by itself (control.js waitWhileRunning → Terminated), because a
// browser ends a blocked Worker started by another Worker only by forcing
// it, from the parent's thread, and a plugin's host Worker may be gone by
// then (polyfill-element.test.mjs watches the Workers of a real page).

import test from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { EXITING, EXIT_CHECK_MS, createControl, waitWhileRunning } from '../src/internal/runtime/control.js';
import { Terminated } from '../src/internal/runtime/faults.js';
import { classify } from '../src/internal/runtime/thread.js';
import { HostLink, createChannel } from '../src/internal/runtime/threads/rpc.js';

/** Sets control[index] = 1 and notifies, from another thread, after `ms`. */
function setLater(i32, index, ms) {
  const w = new Worker(
    `const { workerData: { i32, index, ms } } = require('node:worker_threads');
     setTimeout(() => { Atomics.store(i32, index, 1); Atomics.notify(i32, index); }, ms);`,
    { eval: true, workerData: { i32, index, ms } },
  );
  return new Promise((resolve) => w.once('exit', resolve));
}

test('waitWhileRunning answers as Atomics.wait while the process runs', async () => {
  const control = createControl();
  const word = new Int32Array(new SharedArrayBuffer(4));
  assert.equal(waitWhileRunning(control, word, 0, 1, 10), 'not-equal');
  const t0 = performance.now();
  assert.equal(waitWhileRunning(control, word, 0, 0, 2.5 * EXIT_CHECK_MS), 'timed-out');
  assert.ok(performance.now() - t0 >= 2.5 * EXIT_CHECK_MS - 1, 'waits the whole time, across slices');
  const done = setLater(word, 0, 150);
  assert.equal(waitWhileRunning(control, word, 0, 0), 'ok');
  await done;
});

test('a thread waiting with no deadline leaves once the process is ending', async () => {
  const control = createControl();
  const word = new Int32Array(new SharedArrayBuffer(4));
  const done = setLater(control, EXITING, 150);
  const t0 = performance.now();
  assert.throws(() => waitWhileRunning(control, word, 0, 0), Terminated);
  assert.ok(performance.now() - t0 < 150 + 5 * EXIT_CHECK_MS, 'within a few slices');
  await done;
  // Already ending: no wait at all.
  assert.throws(() => waitWhileRunning(control, word, 0, 0, 10_000), Terminated);
});

test('a host call the host never answers ends as Terminated, an outcome of its own', async () => {
  const control = createControl();
  const posted = [];
  const link = new HostLink(createChannel(), (msg) => posted.push(msg), 3, control);
  const done = setLater(control, EXITING, 100);
  let err;
  try {
    link.call('fd_write', [1, 0, 0, 0]);
  } catch (e) {
    err = e;
  }
  await done;
  assert.ok(err instanceof Terminated, String(err));
  assert.deepEqual(posted, [{ type: 'call', name: 'fd_write', args: [1, 0, 0, 0], tid: 3 }]);
  assert.deepEqual(classify(err, null), { type: 'terminated' });
});
