// A worker_threads worker for output.test.mjs: runs one module with run()'s
// `output` ring, so that the guest's thread (or its host thread) is not the
// reader's, as in a page, where the guest runs in a Worker and the page
// drains the ring. Does nothing when loaded as a main module (the test
// runner loads every file under test/).

import { isMainThread, parentPort, workerData } from 'node:worker_threads';

if (!isMainThread) {
  const { run } = await import('./runtime.mjs');
  const { wasm, options, output } = workerData;
  run(wasm, { ...options, output }).then(
    (result) => parentPort.postMessage({ result }),
    (e) => parentPort.postMessage({ error: String(e?.stack ?? e) }),
  );
}
