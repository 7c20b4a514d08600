// Where the runtime runs, behind one small interface (a "host"):
//
//   host.name                 'browser' | 'node'
//   host.node                 Node's modules { fs, path, os, tty: { isatty }, process }, or null
//   host.workersAvailable()   whether guest threads can run in Workers here
//   host.createWorker({ pepper })  a Worker running a guest thread (of a Pepper plugin or not;
//                             only after loadThreads()):
//                             { post(msg, transfer?), onMessage(fn), onError(fn), onExit(fn), terminate() → Promise, unref() }
//   host.WebSocket            optional: the WebSocket constructor where the global has none
//                             (Node 20), for PPB_WebSocket and the socket relay
//   host.loadPepper()         Pepper's code (pepper/modules.js PEPPER), or a Promise of it
//                             (pepper/load.js): imported statically here, on demand in Node
//   host.preparePepper()      optional: resolves once what a Pepper plugin needs is loaded
//                             (Node: host.WebSocket), before the plugin starts
//   host.loadThreads()        the thread machinery (threads/modules.js THREADS), or a Promise
//                             of it: imported statically here, on demand in Node
//
// This file is the browser's host. Node's is internal/node/host.js, which
// starts internal/node/worker.js in worker_threads; keeping it out of this
// folder keeps every `node:` import out of what a browser bundle reaches.
// The other end of the Worker is browser-worker.js, or for a Pepper
// plugin browser-plugin-worker.js (→ worker.js).

import { PEPPER } from '../../pepper/modules.js';
import { THREADS } from './modules.js';

/** The browser host: module Workers on a cross-origin isolated page. */
export const browserHost = {
  name: 'browser',
  node: null,

  loadPepper: () => PEPPER,

  loadThreads: () => THREADS,

  /**
   * Whether guest threads can run in Workers here: Workers exist and the
   * shared memory may be sent to them (a page must be cross-origin isolated).
   */
  workersAvailable() {
    if (typeof SharedArrayBuffer !== 'function') return false;
    return typeof Worker === 'function' && globalThis.crossOriginIsolated === true;
  },

  createWorker({ pepper = false } = {}) {
    // Written out in full, in this form, so that bundlers (Vite, webpack,
    // Parcel, esbuild with plugins) see the Worker's script, build it and
    // rewrite the URL: a URL computed elsewhere would be left pointing at a
    // file the bundle does not have. A plugin's threads need Pepper's code;
    // other programs' threads start without loading it.
    const w = pepper
      ? new Worker(new URL('./browser-plugin-worker.js', import.meta.url), { type: 'module' })
      : new Worker(new URL('./browser-worker.js', import.meta.url), { type: 'module' });
    const exitFns = [];
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer ?? []),
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
