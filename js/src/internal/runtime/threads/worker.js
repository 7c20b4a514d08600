// A Worker that runs one guest thread (the main thread or one made by
// thread_create). The Worker's entry script is browser-worker.js in
// browsers and internal/node/worker.js in Node; each makes the port to the
// host thread and calls `serveThread`.
//
// The host posts one message:
//   { type: 'init', role: 'main' | 'thread', module, memory, control,
//     channel, tid, setup (main: startinfo, stackPointer, stackLimit) or
//     spec (thread: func, stack, stackLimit, tp), startResults,
//     processStartNs, processors, trace: false | 'fd' | 'post',
//     passthrough: boolean }
// The Worker instantiates the module with its own IRT imports (host-side
// calls go back to the host through `channel`, rpc.js), runs the entry
// point and posts the outcome ({type: 'exit' | 'thread-exit' | 'fault' |
// 'error', ...}, thread.js). The host then ends the Worker.

import { HOST_CALLS } from '../abi.js';
import { buildImports, classify, createThread, runMain, runThread } from '../thread.js';
import { loadPepper, pepper } from '../../pepper/load.js';
import { OutputRingWriter } from './output-ring.js';
import { withPassthrough } from './passthrough.js';
import { HostLink, rpcFunctions } from './rpc.js';

/** The port to the host thread: { post(msg), onMessage(fn) }. */
let port;
/** Node's `node:fs` (stdio passthrough, trace lines to fd 2), or null. */
let nodeFs = null;
/** The host's `loadPepper` (threads/platform.js), for a plugin's threads. */
let pepperLoader = null;
let started = false;
/** The plugin's main thread, once the guest has entered Pepper. */
let plugin = null;
/** Items that arrived before the plugin's main loop was ready. */
const early = [];
let ended = false;

/**
 * Serves one guest thread on `port`. In a browser the entry script must
 * call this before its first await, or the init message could be
 * dispatched to nobody; Node queues messages until a listener is attached.
 */
export function serveThread(hostPort, { nodeFs: fs = null, loadPepper: loader } = {}) {
  pepperLoader = loader;
  port = hostPort;
  nodeFs = fs;
  port.onMessage((msg) => {
    if (msg?.type === 'pepper-item') {
      if (plugin) runPluginItem(msg.item);
      else early.push(msg.item);
      return;
    }
    if (msg?.type !== 'init' || started) return;
    started = true;
    start(msg).then(
      (outcome) => outcome && end(outcome),
      (e) => end({ type: 'error', message: String(e?.message ?? e), stack: String(e?.stack ?? '') }),
    );
  });
}

/** Posts this thread's outcome once. */
function end(outcome) {
  if (ended) return;
  ended = true;
  if (outcome.type === 'error' && outcome.error) {
    const e = outcome.error;
    outcome = { type: 'error', message: String(e?.message ?? e), stack: String(e?.stack ?? '') };
  }
  port.post(outcome);
}

/** The plugin's main loop: each step starts when the one before is done. */
let chain = Promise.resolve();

/**
 * Runs one step of the plugin's main loop (boot, then each item); an exit
 * or a fault in guest code ends the thread (and the process) as it would
 * any thread.
 */
function runPluginStep(step) {
  chain = chain.then(() => (ended ? undefined : step())).catch((e) => end(classify(e, plugin.thread.exports)));
}

function runPluginItem(item) {
  runPluginStep(() => plugin.handle(item));
}

async function start(init) {
  if (init.pepper) await loadPepper(pepperLoader);
  const thread = createThread({
    memory: init.memory,
    control: init.control,
    tid: init.tid,
    processStartNs: init.processStartNs,
    processors: init.processors,
    pepper: !!init.pepper,
  });
  thread.canvas3d = init.canvas3d ?? null;
  thread.glOptions = init.glOptions ?? {};
  // Items this thread schedules on its own main loop (SwapBuffers' callback).
  thread.queueItem = (item) => runPluginItem(item);
  const post = (msg) => port.post(msg);
  const link = new HostLink(init.channel, post, init.tid, init.control);
  let hostCalls = rpcFunctions([...HOST_CALLS], link);
  const ring = init.outputRing ? new OutputRingWriter(init.outputRing) : null;
  // Always: besides Node's fds and the ring, a discarded stdout/stderr
  // (its STDIO slot) is handled here.
  hostCalls = withPassthrough(hostCalls, {
    mem: thread.mem,
    control: init.control,
    nodeFs: init.passthrough ? nodeFs : null,
    ring,
  });
  let trace = null;
  if (init.trace === 'fd' && nodeFs) trace = (line) => nodeFs.writeSync(2, `${line}\n`);
  else if (init.trace) trace = (line) => post({ type: 'trace', line });
  const imports = buildImports(thread, hostCalls, { trace, link });
  const instance = await WebAssembly.instantiate(init.module, imports);
  const outcome = init.role === 'main'
    ? runMain(thread, instance, init.setup, init.startResults)
    : runThread(thread, instance, init.spec);
  if (outcome.type !== 'pepper') return outcome;
  // The guest entered Pepper: this thread becomes the plugin's main loop.
  plugin = new (pepper().PluginMain)(thread, link, outcome.funcs);
  runPluginStep(() => plugin.boot());
  for (const item of early.splice(0)) runPluginItem(item);
  return null;
}
