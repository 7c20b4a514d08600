// Runs a pexe translated to WebAssembly by `pexe` (the NaCl IRT shim).
//
//   import { run } from './index.js';
//   import { browserHost } from './threads/platform.js';
//   const { exitCode, fault } = await run(wasmBytes, {
//     args: ['hello.pexe'], env: { HOME: '/' },
//     files: { '/data/in.txt': 'hello' },
//     stdout: (chunk) => out.push(chunk),
//   }, browserHost);
//
// The host (`browserHost`, or `nodeHost` from internal/node/host.js) brings
// what differs between Node and browsers: Node's modules (file system,
// terminals) and how a guest thread's Worker starts. Nothing in this
// folder imports a `node:` module, so browser bundles never see one.
//
// The module must follow the runtime ABI (abi.md; checked at start). By
// default the guest runs in Workers (one per guest thread; the calling
// thread serves the process-wide calls and never blocks); where Workers
// with shared memory are unavailable (a page that is not cross-origin
// isolated, or `threads: false`) it runs on the calling thread, and
// thread_create fails with EAGAIN.

import { AbiMismatch, checkModule } from './abi.js';
import { loadPepper, pepper as pepperCode } from '../pepper/load.js';
import { FAULT_EXIT_STATUS } from './defs.js';
import { moduleInfo } from './module-info.js';
import { Process, createMemory } from './process.js';
import { buildImports, classify, createThread, runMain } from './thread.js';
import { EXITING } from './control.js';

export { AbiMismatch };

async function compile(wasm) {
  if (wasm instanceof WebAssembly.Module) return { module: wasm, bytes: null };
  let bytes;
  if (wasm instanceof Uint8Array) bytes = wasm;
  else if (wasm instanceof ArrayBuffer) bytes = new Uint8Array(wasm);
  else if (ArrayBuffer.isView(wasm)) bytes = new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength);
  else throw new TypeError('run() takes a WebAssembly.Module or the bytes of one');
  return { module: await WebAssembly.compile(bytes), bytes };
}

/**
 * Runs a translated pexe (a WebAssembly.Module or its bytes). Resolves when
 * the guest exits: `{ exitCode }`, or `{ exitCode: 134, fault }` when it
 * faulted (`fault` = "guest fault: <message> in function <name>").
 * Rejects when the module does not follow the ABI (AbiMismatch) or on a
 * runtime bug.
 *
 * Options:
 * - `args`: argv, args[0] being the program name as given (strings).
 * - `env`: environment, `{ NAME: value }` or `['NAME=value']` (default empty).
 * - `files`: in-memory files, `{ '/path': Uint8Array | string }`.
 * - `stdin`: Uint8Array | string (read to the end, then EOF), a function
 *   returning the next chunk (null at EOF), or `'inherit'` (Node: fd 0).
 *   Default: empty.
 * - `stdout`, `stderr`: a function receiving Uint8Array copies, or
 *   `'inherit'` (Node: the host's fd 1 / 2, byte for byte), or null
 *   (discard). Default: `'inherit'` in Node, discarded elsewhere.
 * - `output`: instead of those two, an output ring (public/output.js's
 *   OutputRing, or its buffer, from threads/output-ring.js
 *   createOutputRing): stdout and stderr go into it in the
 *   order written, straight from every guest thread, and the embedder reads
 *   it, on another thread (a writer waits while the ring is full).
 * - `tty`: whether hook streams report being terminals (newlib then
 *   line-buffers stdout); a boolean, or one per fd 0-2. Inherited fds
 *   report what the host fd is.
 * - `hostFs` (Node): false (default), true (the whole host file system), or
 *   a host directory (or an array of them) exposed at its own path.
 * - `cwd`: the guest's starting directory (default: the host's when
 *   `hostFs` is set, else '/').
 * - `stackSize`: bytes of the main thread's stack (default 8 MiB).
 * - `trace`: true (IRT calls to stderr) or a function receiving lines.
 * - `threads`: false to run on the calling thread (one guest thread).
 * - `cooperative`: false to never fall back to cooperative threads (JSPI,
 *   threads/coop.js) where Workers cannot share memory.
 * - `onThreadRefused(reason)`: called once when the guest asks for a
 *   thread that cannot run here (thread_create answers EAGAIN); `reason`
 *   says why in words. A Pepper embedder's `threadRefused` is the default.
 *
 * `host`: where this runs: `browserHost` (threads/platform.js) or
 * `nodeHost` (internal/node/host.js).
 */
export async function run(wasm, options, host) {
  if (typeof host?.workersAvailable !== 'function') throw new TypeError('run() needs a host (browserHost or nodeHost)');
  options ??= {};
  let plugin = null;
  // A Pepper plugin without a page: its messages go to `onMessage`.
  const embedder = options.embedder ?? {
    postMessage(value) {
      options.onMessage?.(value);
      plugin?.onActivity?.();
    },
    loaded() {
      plugin?.onLoaded?.();
    },
    log(level, source, text) {
      options.onLog?.(level, source, text);
    },
    loadFailed(message) {
      options.onLog?.('error', 'NativeClient', `NaCl module load failed: ${message}`);
      plugin?.onLoadFailed?.(message);
    },
    missingInterface(name) {
      options.onLog?.('warning', 'pexe', `the plugin asked for ${name}, which this runtime does not provide`);
    },
  };
  const launched = await launch(wasm, { ...options, embedder }, host);
  plugin = launched.plugin;
  if (plugin) return drivePlugin(plugin, options);
  return launched.exited;
}

/**
 * `run` for pages: the guest's main thread always runs in a Worker (so
 * blocking calls never run on the page's main thread); rejects where that
 * is impossible (no cross-origin isolation).
 */
export function runInWorker(wasm, options, host) {
  return run(wasm, { ...options, threads: true, requireWorkers: true }, host);
}

/**
 * Starts a translated Pepper plugin (a pexe that calls
 * nacl-irt-ppapihook-0.1) and returns its handle at once:
 * `{ postMessage(value), setView(view), setFocus(bool), destroy(),
 * exited }`, `exited` resolving like `run()` (plus `destroyed: true` after
 * `destroy()`). Options are `run()`'s, and:
 * - `embedder`: the page side: `postMessage(value)` (plugin → page),
 *   `log(level, source, text)`, `loaded()`, `loadFailed(message)`,
 *   `missingInterface(name)`, optionally `rewriteUrl(href)`;
 * - `attributes`: DidCreate's argn/argv, `[[name, value], …]` in order;
 * - `view`: the initial view (`{ rect: {x, y, width, height}, … }`);
 * - `baseUrl`: the document URL that the plugin's URLs resolve against;
 * - `fetch`: the fetch function URL loads use (default: global fetch);
 * - `glDebug`, `glProfile`: the 3D layer's debug mode (WebGL errors read
 *   after every GL call and logged) and profile mode (time per frame
 *   logged), see pepper/gl/debug.js; `glLoseContextAfterFrames`: loses the
 *   WebGL context after that many frames (a test of context loss);
 * - `storage`: the file systems (pepper/storage/index.js Storage: the
 *   page's, or Node's `nodeStorage`; default: both in memory).
 * - `socketRelay`: the URL of a socket relay (`ws://127.0.0.1:PORT/`,
 *   docs/relay.md) through which TCPSocket, UDPSocket and HostResolver
 *   reach the network; `network`: such a network given directly (Node's
 *   sockets: internal/node/net.js). Default: neither — every network
 *   operation is PP_ERROR_NOACCESS, as Chrome answered pages.
 * Rejects (AbiMismatch) when the module is not a Pepper plugin.
 */
export async function startPlugin(wasm, options, host) {
  if (typeof host?.workersAvailable !== 'function') throw new TypeError('startPlugin() needs a host (browserHost or nodeHost)');
  const launched = await launch(wasm, options ?? {}, host);
  if (!launched.plugin) throw new AbiMismatch('the module is not a Pepper plugin (it does not import the PPB functions)');
  return launched.plugin;
}

/** Compiles, checks, lays out and starts a module: `{ exited, plugin? }`. */
async function launch(wasm, options, host) {
  const { module, bytes } = await compile(wasm);
  const { pepper } = checkModule(module);
  if (pepper) await Promise.all([loadPepper(host.loadPepper), host.preparePepper?.()]);
  // The thread machinery (Workers, cooperative threads, output rings) only
  // for a run that may start threads or that writes to an output ring.
  const threads = options.threads !== false || options.output != null ? await host.loadThreads() : null;
  const info = bytes ? moduleInfo(bytes) : { memory: null, startResults: null };
  const node = host.node;
  const useWorkers = options.threads !== false && host.workersAvailable();
  if (options.requireWorkers && !useWorkers) {
    throw new Error('Workers with shared memory are not available here (a page must be cross-origin isolated)');
  }
  const cooperative = !useWorkers && options.threads !== false && options.cooperative !== false && threads.coopAvailable();
  const defaultOut = node ? 'inherit' : null;
  const output = options.output == null ? null : outputRingOf(options, threads);
  const opts = {
    ...options,
    stdout: output ? { ring: output, stream: 0 } : options.stdout === undefined ? defaultOut : options.stdout,
    stderr: output ? { ring: output, stream: 1 } : options.stderr === undefined ? defaultOut : options.stderr,
    onThreadRefused: options.onThreadRefused ?? options.embedder?.threadRefused?.bind(options.embedder),
  };
  const memory = createMemory(info.memory);
  const proc = new Process({ module, memory, options: opts, node });
  if (!useWorkers && !cooperative) proc.threadRefusal = refusalReason(options, host);
  const setup = await proc.prepare();
  const traceSink = traceSinkFor(options.trace, node);
  let handle = null;
  if (pepper) {
    // The page's drawing surfaces, when there is a page: an OffscreenCanvas
    // for 2D (drawn here, by the browser side) and one for 3D (drawn by the
    // plugin's main thread).
    proc.surfaces = options.surfaces ?? null;
    // The GL layer's modes (pepper/gl/debug.js), for the surface's thread.
    proc.glOptions = { debug: !!options.glDebug, profile: !!options.glProfile, loseContextAfterFrames: options.glLoseContextAfterFrames ?? 0 };
    proc.browser = new (pepperCode().Browser)({
      has3d: !!options.surfaces?.canvas3d,
      canvas2d: options.surfaces?.canvas2d ?? null,
      proc,
      embedder: options.embedder ?? {},
      attributes: options.attributes,
      view: options.view,
      baseUrl: options.baseUrl,
      fetch: options.fetch,
      storage: options.storage,
      network: networkFor(options, host),
      webSocket: host.WebSocket ?? null,
      transport: { toMain() {} },
    });
    handle = pluginHandle(proc.browser);
  }

  let exited;
  if (useWorkers) {
    exited = threads.runInWorkers({
      proc,
      platform: host,
      setup,
      startResults: info.startResults,
      traceSink,
      traceInWorker: options.trace === true && !!node,
      passthrough: !!node,
      onStart: (control) => handle?.setControl(control),
    });
  } else if (cooperative) {
    // No shared-memory Workers here, but WebAssembly can suspend: the
    // guest's threads take turns on this thread (threads/coop.js).
    exited = threads.runCooperative({
      proc,
      setup,
      startResults: info.startResults,
      traceSink,
      onStart: (control) => handle?.setControl(control),
    });
  } else {
    exited = runInline({ proc, setup, startResults: info.startResults, traceSink, onStart: (control) => handle?.setControl(control) });
  }
  if (!handle) return { exited };
  // A plugin that faults after being refused interfaces most likely called
  // through the NULL it got: say so with the fault.
  exited = exited.then((r) => {
    const missing = [...proc.browser.missing];
    if (!r.fault || missing.length === 0) return r;
    return { ...r, fault: `${r.fault} (after the plugin was refused ${missing.join(', ')})` };
  });
  handle.exited = exited;
  return { exited, plugin: handle };
}

/**
 * The writer of `options.output` (public/output.js's OutputRing, or its
 * SharedArrayBuffer). It carries stdout and stderr both, so neither may be
 * given besides. `threads`: the thread machinery (threads/modules.js).
 */
function outputRingOf(options, { OutputRingWriter, isOutputRing }) {
  const sab = isOutputRing(options.output) ? options.output : options.output.buffer;
  if (!isOutputRing(sab)) throw new TypeError("option 'output' must be an OutputRing (or its buffer)");
  if (options.stdout != null || options.stderr != null) {
    throw new TypeError("option 'output' carries stdout and stderr: give it or them, not both");
  }
  return new OutputRingWriter(sab);
}

/**
 * Why a guest on one thread cannot start another: what thread_create's
 * EAGAIN means here, in words for the embedder (`onThreadRefused`).
 */
function refusalReason(options, host) {
  if (options.threads === false) return 'guest threads are turned off (threads: false)';
  const why = [];
  if (!host.workersAvailable()) {
    why.push(
      host.node
        ? 'Workers with shared memory are not available'
        : 'the page is not cross-origin isolated (no COOP/COEP headers), so Workers cannot share its memory',
    );
  }
  why.push(
    options.cooperative === false
      ? 'cooperative threads are turned off'
      : 'this browser cannot suspend WebAssembly (no JSPI) to run them cooperatively',
  );
  return `the plugin needs a thread, and guest threads cannot run here: ${why.join(', and ')}`;
}

/** The network a plugin's sockets use (Browser's `network`), or null. */
function networkFor(options, host) {
  if (options.network) return options.network;
  if (!options.socketRelay) return null;
  const embedder = options.embedder ?? {};
  return pepperCode().relayNetwork(String(options.socketRelay), {
    WebSocket: embedder.WebSocket ?? globalThis.WebSocket ?? host.WebSocket,
    log: (text) => embedder.log?.('error', 'pexe', text),
  });
}

/** The embedder's handle on a running plugin. */
function pluginHandle(browser) {
  let control = null;
  let stopped = false;
  return {
    exited: null,
    setControl(c) {
      control = c;
      if (stopped) control.stop({ exitCode: 0, destroyed: true });
    },
    postMessage(value) {
      browser.postMessage(value);
    },
    /** Resolves with the handler's answer (see Browser.postBlockingMessage). */
    postBlockingMessage(value) {
      return browser.postBlockingMessage(value);
    },
    setView(view) {
      browser.setView(view);
    },
    setFocus(hasFocus) {
      browser.setFocus(hasFocus);
    },
    /** The page lost the pointer lock the plugin had. */
    mouseLockLost() {
      browser.mouseLockLost();
    },
    /** An input event from the page (ppb/input.js eventState); resolves whether the plugin handled it. */
    inputEvent(event) {
      return browser.inputEvent(event);
    },
    /** Live vars and resources (for leak checks). */
    stats() {
      return { vars: browser.vars.size, resources: browser.resources.size, heapBytes: browser.heap.liveBytes };
    },
    /** Removes the instance: every guest thread ends. */
    destroy() {
      stopped = true;
      control?.stop({ exitCode: 0, destroyed: true });
    },
  };
}

/**
 * `run()` of a Pepper plugin without a page: posts `options.messages`
 * (an array or an (async) iterable) in order, hands each message the
 * plugin posts to `options.onMessage`, and ends when the plugin exits, or
 * once the input has ended and the plugin has posted nothing for
 * `options.idleTimeout` ms (default 2000).
 */
async function drivePlugin(plugin, options) {
  const idleMs = options.idleTimeout ?? 2000;
  let inputDone = false;
  let loaded = false;
  let idleTimer = null;
  const armIdle = () => {
    clearTimeout(idleTimer);
    if (inputDone && loaded) idleTimer = setTimeout(() => plugin.destroy(), idleMs);
  };
  plugin.onActivity = armIdle;
  plugin.onLoaded = () => {
    loaded = true;
    armIdle();
  };
  let loadError = null;
  plugin.onLoadFailed = (message) => {
    loadError = message;
    plugin.destroy();
  };
  (async () => {
    try {
      for await (const m of options.messages ?? []) plugin.postMessage(m);
    } finally {
      inputDone = true;
      armIdle();
    }
  })().catch(() => {});
  const result = await plugin.exited;
  clearTimeout(idleTimer);
  const { destroyed, ...rest } = result;
  if (loadError !== null) return { exitCode: 1, loadError };
  return destroyed ? { ...rest, exitCode: 0, idle: true } : rest;
}

/** One guest thread on the calling thread. */
async function runInline({ proc, setup, startResults, traceSink, onStart }) {
  const thread = createThread({
    memory: proc.memory,
    control: proc.control,
    tid: 0,
    processStartNs: proc.startNs,
    processors: proc.processors,
    pepper: !!proc.browser,
  });
  const dispatch = (name, args, tid) => {
    const irt = proc.hostCalls[name];
    if (irt) return irt(...args);
    return proc.browser.call(name, tid, args);
  };
  const link = proc.browser ? new (pepperCode().DirectLink)(dispatch, 0) : null;
  thread.canvas3d = proc.surfaces?.canvas3d ?? null;
  thread.glOptions = proc.glOptions;
  const imports = buildImports(thread, proc.hostCalls, { trace: traceSink, link });
  // Trace lines go straight to fd 2: the guest's output must not wait.
  if (!traceSink && !proc.browser && proc.startWriteBehind()) flushBeforeCalls(imports.irt, proc);
  const instance = await WebAssembly.instantiate(proc.module, imports);
  let outcome;
  try {
    outcome = runMain(thread, instance, setup, startResults);
  } finally {
    proc.flushOutputs();
  }
  if (outcome.type !== 'pepper') return settle(outcome);

  // A Pepper plugin: this thread is its main loop. Items run one per
  // macrotask, in order; the run ends at the first exit or fault, or when
  // the embedder stops it.
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (result, error) => {
      if (done) return;
      done = true;
      Atomics.store(proc.control, EXITING, 1);
      proc.browser.shutdown();
      if (error) reject(error);
      else resolve(result);
    };
    const main = new (pepperCode().PluginMain)(thread, link, outcome.funcs);
    let chain = Promise.resolve();
    const step = (fn) => {
      chain = chain
        .then(() => (done ? undefined : fn()))
        .catch((e) => {
          try {
            finish(settle(classify(e, thread.exports)));
          } catch (bug) {
            finish(null, bug);
          }
        });
    };
    proc.browser.transport = { toMain: (item) => setTimeout(() => step(() => main.handle(item)), 0) };
    thread.queueItem = (item) => setTimeout(() => step(() => main.handle(item)), 0);
    onStart?.({ stop: (result) => finish(result) });
    step(() => main.boot());
  });
}

/**
 * Write-behind's ordering: every IRT call but a write first sends out what
 * the outputs hold, so that anything the guest does next that could be
 * observed (a read, a sleep, a file, exit) comes after what it wrote; a
 * write first sends out the other output's (stdout and stderr may be one
 * file).
 */
function flushBeforeCalls(irt, proc) {
  for (const [name, fn] of Object.entries(irt)) {
    irt[name] =
      name === 'write'
        ? (fd, buf, count, nwrote) => {
            proc.flushOutputs(proc.fs.fds[fd]);
            return fn(fd, buf, count, nwrote);
          }
        : (...args) => {
            proc.flushOutputs();
            return fn(...args);
          };
  }
}

/** A thread's outcome as run()'s result (throws for a runtime bug). */
function settle(outcome) {
  switch (outcome.type) {
    case 'exit':
      return { exitCode: outcome.status };
    case 'thread-exit':
      return { exitCode: 0 };
    case 'fault':
      return { exitCode: FAULT_EXIT_STATUS, fault: outcome.message };
    default: {
      const e = new Error(`runtime bug: ${outcome.error?.message ?? outcome.error}`);
      e.cause = outcome.error;
      throw e;
    }
  }
}

function traceSinkFor(trace, node) {
  if (!trace) return null;
  if (typeof trace === 'function') return trace;
  if (node) return (line) => node.fs.writeSync(2, `${line}\n`);
  return (line) => console.error(line);
}
