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
import { buildImports, createThread, runMain, runThread } from '../thread.js';
import { withPassthrough } from './passthrough.js';
import { rpcFunctions } from './rpc.js';

/** The port to the host thread: { post(msg), onMessage(fn) }. */
let port;
/** Node's `node:fs` (stdio passthrough, trace lines to fd 2), or null. */
let nodeFs = null;
let started = false;

/**
 * Serves one guest thread on `port`. In a browser the entry script must
 * call this before its first await, or the init message could be
 * dispatched to nobody; Node queues messages until a listener is attached.
 */
export function serveThread(hostPort, { nodeFs: fs = null } = {}) {
  port = hostPort;
  nodeFs = fs;
  port.onMessage((msg) => {
    if (msg?.type !== 'init' || started) return;
    started = true;
    start(msg).then(
      (outcome) => port.post(outcome),
      (e) => port.post({ type: 'error', message: String(e?.message ?? e), stack: String(e?.stack ?? '') }),
    );
  });
}

async function start(init) {
  const thread = createThread({
    memory: init.memory,
    control: init.control,
    tid: init.tid,
    processStartNs: init.processStartNs,
    processors: init.processors,
  });
  const post = (msg) => port.post(msg);
  let hostCalls = rpcFunctions([...HOST_CALLS], init.channel, post);
  if (init.passthrough && nodeFs) {
    hostCalls = withPassthrough(hostCalls, { mem: thread.mem, control: init.control, nodeFs });
  }
  let trace = null;
  if (init.trace === 'fd' && nodeFs) trace = (line) => nodeFs.writeSync(2, `${line}\n`);
  else if (init.trace) trace = (line) => post({ type: 'trace', line });
  const imports = buildImports(thread, hostCalls, { trace });
  const instance = await WebAssembly.instantiate(init.module, imports);
  const outcome = init.role === 'main'
    ? runMain(thread, instance, init.setup, init.startResults)
    : runThread(thread, instance, init.spec);
  if (outcome.type === 'error') {
    const e = outcome.error;
    return { type: 'error', message: String(e?.message ?? e), stack: String(e?.stack ?? '') };
  }
  return outcome;
}
