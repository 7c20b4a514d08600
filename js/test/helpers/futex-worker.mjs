// A worker_threads worker for futex.test.mjs: runs the IRT futex functions
// of its own thread context on the shared memory it is given, as a guest
// thread in a Worker would. Does nothing when loaded as a main module (the
// test runner loads every file under test/).

import { isMainThread, parentPort, workerData } from 'node:worker_threads';

if (!isMainThread) {
  const { createThread } = await import('../../src/internal/runtime/thread.js');
  const { futex } = await import('../../src/internal/runtime/irt/futex.js');
  const thread = createThread({ memory: workerData.memory, control: workerData.control, tid: workerData.tid });
  const irt = futex(thread);
  const { mem } = thread;
  const { role, word } = workerData;
  if (role === 'waiter') {
    // Wait while the word is 0; report what each wait returned.
    const results = [];
    parentPort.postMessage({ ready: true });
    while (Atomics.load(mem.i32(), word >> 2) === 0) results.push(irt.futex_wait_abs(word, 0, 0));
    parentPort.postMessage({ results, value: mem.getI32(word) });
  } else if (role === 'waker') {
    thread.sleep(100);
    Atomics.store(mem.i32(), word >> 2, 42);
    const r = irt.futex_wake(word, 1, 0x40);
    parentPort.postMessage({ r, woken: mem.getI32(0x40) });
  } else if (role === 'stuck') {
    try {
      irt.futex_wait_abs(word, 0, 0);
      parentPort.postMessage({ fault: null });
    } catch (e) {
      parentPort.postMessage({ fault: e.message });
    }
  }
}
