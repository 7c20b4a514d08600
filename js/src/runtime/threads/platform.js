// Workers on each host, behind one small interface:
//
//   createWorker(url) → { post(msg), onMessage(fn), onError(fn), onExit(fn), terminate() → Promise }
//
// Node: worker_threads (the entry runs as an ES module because the package
// is `"type": "module"`). Browsers: a module Worker. The other end is in
// worker.js.

/** Stack of a guest thread's Worker in Node (MiB): the wasm call depth limit. */
export const WORKER_STACK_MB = 8;

/** The Node worker_threads platform (`wt` is the node:worker_threads module). */
export function nodePlatform(wt) {
  return {
    name: 'node',
    createWorker(url) {
      const w = new wt.Worker(url, { resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
      return {
        post: (msg) => w.postMessage(msg),
        onMessage: (fn) => w.on('message', fn),
        onError: (fn) => w.on('error', fn),
        onExit: (fn) => w.on('exit', fn),
        terminate: () => w.terminate().then(() => undefined, () => undefined),
        unref: () => w.unref(),
      };
    },
  };
}

/** The browser platform (module Workers). */
export function browserPlatform() {
  return {
    name: 'browser',
    createWorker(url) {
      const w = new Worker(url, { type: 'module' });
      const exitFns = [];
      return {
        post: (msg) => w.postMessage(msg),
        onMessage: (fn) => w.addEventListener('message', (e) => fn(e.data)),
        onError: (fn) => w.addEventListener('error', (e) => {
          e.preventDefault?.();
          fn(e.error ?? new Error(e.message || 'worker error'));
        }),
        onExit: (fn) => exitFns.push(fn),
        terminate: () => {
          w.terminate();
          for (const fn of exitFns) fn(0);
          return Promise.resolve();
        },
        unref: () => {},
      };
    },
  };
}

/**
 * Whether guest threads can run in Workers here: Workers exist and the
 * shared memory may be sent to them (a page must be cross-origin isolated).
 */
export function workersAvailable(node) {
  if (typeof SharedArrayBuffer !== 'function') return false;
  if (node?.worker_threads) return true;
  return typeof Worker === 'function' && globalThis.crossOriginIsolated === true;
}
