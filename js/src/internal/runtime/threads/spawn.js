// The host thread's side of guest threads in Workers.
//
// `runInWorkers` starts the guest's main thread in a Worker and keeps one
// Worker per guest thread. The host thread itself never blocks: it answers
// the Workers' synchronous host calls (rpc.js), starts a Worker for each
// thread_create (a thread's Worker can start while its creator waits on a
// futex, because Workers are only ever made here), forwards trace lines,
// and ends the run on the first exit or fault: every Worker is terminated
// (Worker.terminate also interrupts a thread blocked in Atomics.wait or
// spinning in wasm), then the promise settles.

import { EXITING, LIVE, NEXT_TID } from '../control.js';
import { FAULT_EXIT_STATUS, errno } from '../defs.js';
import { OutputRingReader, createOutputRing } from './output-ring.js';
import { createChannel, serveCall } from './rpc.js';

/**
 * Runs the process `proc` (prepared; `setup` from `proc.prepare()`) with
 * every guest thread in a Worker of `platform` (the host, platform.js). Resolves
 * `{ exitCode }` or `{ exitCode: 134, fault }`; rejects on a runtime bug.
 *
 * @param {object} o
 * @param {import('../process.js').Process} o.proc
 * @param {object} o.platform
 * @param {object} o.setup
 * @param {string[]|null} o.startResults
 * @param {((line: string) => void)|null} o.traceSink  host-side trace sink
 * @param {boolean} o.traceInWorker  Workers write trace lines to fd 2 themselves (Node)
 * @param {boolean} o.passthrough  Workers write inherited stdio themselves (Node)
 */
export function runInWorkers({ proc, platform, setup, startResults, traceSink, traceInWorker, passthrough, onStart }) {
  return new Promise((resolve, reject) => {
    /** Each live Worker, and its host-call channel (rpc.js). */
    const workers = new Map();
    let finished = false;
    /** The main thread's Worker (the plugin's main loop, for Pepper). */
    let mainWorker = null;
    /** Items for the plugin's main thread, posted in order. */
    const toMain = (item) => {
      if (!finished) mainWorker?.post({ type: 'pepper-item', item });
    };

    // Guest output written through the ring reaches the embedder as the
    // host drains it; the last drain happens before the run settles. The
    // embedder's own ring (run()'s `output`) is drained by the embedder.
    const ring = proc.enableOutputRing({ inherit: !traceInWorker, create: createOutputRing });
    const drainer = ring && proc.outputSinks
      ? new OutputRingReader(ring, (stream, bytes) => proc.outputSinks[stream]?.(bytes))
      : null;
    drainer?.start();
    // A host-side write to a stream the ring carries (a dup of fd 1, say)
    // comes after what the ring holds.
    if (drainer) for (const d of [proc.fs.fds[1], proc.fs.fds[2]]) if (d?.ringStream >= 0) d.drainRing = () => drainer.drain();

    const finish = (result, error) => {
      if (finished) return;
      finished = true;
      drainer?.stop();
      Atomics.store(proc.control, EXITING, 1);
      // A thread waiting for a host call's answer wakes, sees EXITING and
      // returns to its Worker's event loop (control.js waitWhileRunning).
      for (const channel of workers.values()) Atomics.notify(channel, 0);
      proc.spawner = null;
      // The Workers end even if the browser side fails to shut down.
      let shutdownError = null;
      try {
        proc.browser?.shutdown();
      } catch (e) {
        shutdownError = new Error(`runtime bug: ending the plugin's resources: ${e?.message ?? e}`);
      }
      const all = [...workers.keys()].map((w) => w.terminate());
      workers.clear();
      const failure = error ?? shutdownError;
      Promise.all(all).then(() => (failure ? reject(failure) : resolve(result)));
    };

    const bug = (message, stack) => {
      const e = new Error(`runtime bug: ${message}`);
      if (stack) e.stack = `${e.message}\n${stack}`;
      finish(null, e);
    };

    // Host calls: the IRT's process-wide functions, then the browser side
    // of Pepper (keys of abi.gen.js and its internal `$` functions).
    const dispatch = (name, args, tid) => {
      const irt = proc.hostCalls[name];
      if (irt) return irt(...args);
      if (proc.browser) return proc.browser.call(name, tid, args);
      throw new Error(`no host call ${name}`);
    };
    if (proc.browser) proc.browser.transport = { toMain };

    const start = (role, tid, extra, transfer = []) => {
      const channel = createChannel();
      const w = platform.createWorker({ pepper: !!proc.browser });
      workers.set(w, channel);
      let ended = false;
      w.onMessage((msg) => {
        if (finished) return;
        switch (msg?.type) {
          case 'call':
            serveCall(dispatch, channel, msg, (failure) =>
              bug(`host call ${msg.name} threw: ${failure?.message ?? failure}`, failure?.stack),
            );
            break;
          case 'trace':
            traceSink?.(msg.line);
            break;
          case 'exit':
            ended = true;
            finish({ exitCode: msg.status });
            break;
          case 'fault':
            ended = true;
            finish({ exitCode: FAULT_EXIT_STATUS, fault: msg.message });
            break;
          case 'thread-exit': {
            ended = true;
            workers.delete(w);
            w.terminate();
            if (Atomics.sub(proc.control, LIVE, 1) <= 1) finish({ exitCode: 0 });
            break;
          }
          case 'error':
            ended = true;
            bug(msg.message, msg.stack);
            break;
          case 'terminated':
            // Left a wait once EXITING was set: only after finish().
            ended = true;
            break;
          default:
            bug(`unexpected message from thread ${tid}: ${JSON.stringify(msg)}`);
        }
      });
      w.onError((e) => bug(`thread ${tid}: ${e?.message ?? e}`, e?.stack));
      w.onExit((code) => {
        if (!finished && !ended) bug(`the Worker of thread ${tid} stopped (exit code ${code})`);
      });
      w.post({
        type: 'init',
        role,
        tid,
        module: proc.module,
        memory: proc.memory,
        control: proc.control,
        channel,
        processStartNs: proc.startNs,
        processors: proc.processors,
        startResults,
        trace: traceInWorker ? 'fd' : traceSink ? 'post' : false,
        passthrough,
        outputRing: ring,
        pepper: !!proc.browser,
        ...extra,
      }, transfer);
      return w;
    };

    proc.spawner = (func, stack, tp, stackLimit) => {
      if (finished) return errno.EAGAIN;
      const tid = Atomics.add(proc.control, NEXT_TID, 1);
      try {
        start('thread', tid, { spec: { func, stack, stackLimit, tp } });
      } catch {
        return errno.EAGAIN;
      }
      return 0;
    };

    try {
      // The plugin's 3D surface belongs to its main thread, which makes
      // the GL calls (pepper/gl/).
      const canvas3d = proc.surfaces?.canvas3d ?? null;
      mainWorker = start('main', 0, { setup, canvas3d, glOptions: proc.glOptions ?? null }, canvas3d ? [canvas3d] : []);
    } catch (e) {
      finish(null, e);
    }
    // The embedder may end the run (an instance removed from its page).
    onStart?.({ stop: (result) => finish(result) });
  });
}
