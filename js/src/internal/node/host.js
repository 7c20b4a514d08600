// The runtime's Node host (see internal/runtime/threads/platform.js for the
// interface): Node's modules for the guest's file system, terminals and
// stdio passthrough, and guest threads in worker_threads running
// ./worker.js. Only the Node entry (src/node.js) and the Node runner
// (run.mjs) import this file: it is where the runtime's `node:` imports
// live, out of reach of browser bundles. What only threads or Pepper use
// (worker_threads, the thread machinery, Pepper's code) is imported when a
// run first needs it: a single-threaded program starts without it.

/**
 * Node's built-in modules as require() hands them out. An ES module
 * namespace of node:fs (`import * as fs`, or any named import) reads every
 * export, and its ReadStream getter loads Node's streams, some twenty
 * modules that nothing here uses. process.getBuiltinModule is Node 20.16+.
 */
export const builtin =
  typeof process.getBuiltinModule === 'function'
    ? (id) => process.getBuiltinModule(id)
    : (await import('node:module')).createRequire(import.meta.url);

const fs = builtin('node:fs');
const os = builtin('node:os');
const path = builtin('node:path');

/**
 * node:tty's isatty, loading node:tty (and node:net with it) only for a
 * character device that may be one: a file or a pipe is never a terminal,
 * nor is one of Linux's memory devices (major 1: /dev/null, /dev/zero…),
 * where benchmarks and scripts send output (newlib asks on its first
 * write to a character device).
 */
function isatty(fd) {
  try {
    const st = fs.fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    if (process.platform === 'linux' && linuxMajor(st.rdev) === LINUX_MEMORY_DEVICES) return false;
  } catch {
    return false;
  }
  return builtin('node:tty').isatty(fd);
}

/** The major number of Linux's character devices /dev/null, /dev/zero… */
const LINUX_MEMORY_DEVICES = 1;

/** A Linux device number's major (glibc's encoding: bits 8–19 and 32–43). */
function linuxMajor(rdev) {
  return ((rdev >>> 8) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
}

/** Stack of a guest thread's Worker in Node (MiB): the wasm call depth limit. */
export const WORKER_STACK_MB = 8;

/** The Node host. */
export const nodeHost = {
  name: 'node',
  node: { fs, path, os, tty: { isatty }, process },
  /**
   * A WebSocket for PPB_WebSocket and the socket relay where Node has none
   * (Node 20): ours, set by `preparePepper()`.
   */
  WebSocket: globalThis.WebSocket ?? null,

  /** Pepper's code, imported when a plugin first needs it (pepper/load.js). */
  loadPepper: () => import('../pepper/modules.js').then((m) => m.PEPPER),

  /** The thread machinery, and worker_threads for `createWorker()`: imported before a run that may start threads. */
  async loadThreads() {
    const { THREADS } = await import('../runtime/threads/modules.js');
    this.Worker = builtin('node:worker_threads').Worker;
    return THREADS;
  },

  /** worker_threads' Worker, once `loadThreads()` has run. */
  Worker: null,

  /** Loads what only a Pepper plugin uses (our WebSocket: node:tls and node:crypto load slowly). */
  async preparePepper() {
    this.WebSocket ??= (await import('./websocket.js')).NodeWebSocket;
  },

  /** worker_threads can always share memory. */
  workersAvailable() {
    return typeof SharedArrayBuffer === 'function';
  },

  createWorker() {
    // The entry runs as an ES module: the package is `"type": "module"`.
    const w = new this.Worker(new URL('./worker.js', import.meta.url), {
      resourceLimits: { stackSizeMb: WORKER_STACK_MB },
    });
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer ?? []),
      onMessage: (fn) => w.on('message', fn),
      onError: (fn) => w.on('error', fn),
      onExit: (fn) => w.on('exit', fn),
      terminate: () => w.terminate().then(() => undefined, () => undefined),
      unref: () => w.unref(),
    };
  },
};
