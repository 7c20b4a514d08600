// One guest thread: its IRT import object and how its entry point runs.
//
// Each thread is one instance of the module (its own `__stack_pointer`,
// `__stack_limit` and `__tp` globals) on the shared memory. The IRT
// functions split in two (abi.js HOST_CALLS): thread-side ones (basic,
// tls, thread_exit, futex, clock, random, query) run right here; host-side
// ones (fdio, filename, memory, thread_create) touch process-wide state
// and come in as `hostCalls`: direct functions when the thread runs on the
// host, synchronous calls to the host from a Worker.
//
// Running an entry point ends in one of five outcomes:
//   {type: 'exit', status}          exit() or a return from `_start`
//   {type: 'thread-exit'}           thread_exit() or a return from the thread function
//   {type: 'fault', message}        a guest fault (faults.js)
//   {type: 'terminated'}            the process ended while it waited (faults.js Terminated)
//   {type: 'error', error}          a runtime bug

import { HOST_CALLS, IRT_FUNCTIONS, uniformPpapiImports } from './abi.js';
import { pepper } from '../pepper/load.js';
import { PepperStart } from '../pepper/start.js';
import { EXITING, WAKE_EPOCH, waitWhileRunning } from './control.js';
import { ExitError, GuestFault, Terminated, ThreadExit, describeFault, envFaultMessage } from './faults.js';
import { basic } from './irt/basic.js';
import { clock, monotonicNs } from './irt/clock.js';
import { futex } from './irt/futex.js';
import { ppapihook } from './irt/ppapihook.js';
import { query } from './irt/query.js';
import { random } from './irt/random.js';
import { threadLocal } from './irt/thread.js';
import { tls } from './irt/tls.js';
import { GuestMemory } from './memory.js';
import { startReturnStatus } from './module-info.js';
import { strace } from './strace.js';

/** Whether this JS thread may block in Atomics.wait (not a page's main thread). */
export function canBlockHere() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The state of one guest thread.
 * @param {object} o
 * @param {WebAssembly.Memory} o.memory
 * @param {Int32Array} o.control  control.js block
 * @param {number} o.tid
 * @param {bigint} [o.processStartNs]
 * @param {number} [o.processors]
 */
export function createThread({ memory, control, tid, processStartNs, processors, pepper = false }) {
  const canBlock = canBlockHere();
  const sleeper = canBlock ? new Int32Array(new SharedArrayBuffer(4)) : null;
  return {
    tid,
    memory,
    mem: new GuestMemory(memory),
    control,
    canBlock,
    /** Whether the process is a Pepper plugin with a browser side. */
    pepper,
    /** The plugin's 3D surface (an OffscreenCanvas) on its main thread, else null. */
    canvas3d: null,
    /** Puts an item on this thread's own Pepper main loop (main thread only). */
    queueItem: null,
    processors,
    startNs: monotonicNs(),
    processStartNs: processStartNs ?? monotonicNs(),
    /** Set once instantiated. */
    exports: null,
    sleep(ms) {
      if (!(ms > 0)) return;
      if (sleeper) {
        waitWhileRunning(control, sleeper, 0, 0, ms);
      } else {
        const end = performance.now() + ms;
        while (performance.now() < end);
      }
    },
  };
}

/**
 * The import object for `thread`. `hostCalls` has the HOST_CALLS functions;
 * `trace` is a line sink (or falsy for no tracing); `link` reaches the
 * browser side of Pepper (threads/rpc.js HostLink or DirectLink) when the
 * thread belongs to a Pepper plugin (`thread.pepper`). With `coop`
 * (threads/coop.js), `blocking` replaces the IRT functions that wait with
 * async ones, imported as WebAssembly.Suspending.
 */
export function buildImports(thread, hostCalls, { trace = null, link = null, coop = false, blocking = null } = {}) {
  const local = {
    ...basic(thread),
    ...tls(thread),
    ...threadLocal(),
    ...futex(thread),
    ...clock(thread),
    ...random(thread),
    ...query(thread),
    ...ppapihook(thread),
  };
  let irt = {};
  for (const { name } of IRT_FUNCTIONS) {
    const fn = HOST_CALLS.has(name) ? hostCalls[name] : local[name];
    if (typeof fn !== 'function') throw new Error(`runtime bug: no implementation of irt.${name}`);
    irt[name] = fn;
  }
  if (trace) irt = strace(irt, { sink: trace, mem: thread.mem, tid: thread.tid });
  if (coop && blocking) {
    for (const [name, fn] of Object.entries(blocking)) irt[name] = new WebAssembly.Suspending(fn);
  }
  // A Pepper plugin also links against the PPB functions. Without a
  // browser side (no link) the hook is not answered, so nothing reaches
  // them. Other modules import none (about 700 functions not to list).
  const ppapi = !thread.pepper
    ? {}
    : link
      ? pepper().pepperImports(thread, link, { coop })
      : uniformPpapiImports(() => {
          throw new GuestFault('a Pepper browser function was called outside a Pepper plugin');
        });
  return {
    ppapi,
    env: {
      memory: thread.memory,
      fault(kind, detail) {
        throw new GuestFault(envFaultMessage(kind, detail));
      },
      fmod_f64(a, b) {
        return a % b;
      },
    },
    irt,
  };
}

/** What an exception that ended a thread means (see the module doc). */
export function classify(err, exports) {
  if (err instanceof ExitError) return { type: 'exit', status: err.status };
  if (err instanceof PepperStart) return { type: 'pepper', funcs: err.funcs };
  if (err instanceof ThreadExit) return { type: 'thread-exit', flag: err.flag };
  if (err instanceof Terminated) return { type: 'terminated' };
  const message = describeFault(err, exports?.__pexe_longjmp_tag);
  if (message !== null) return { type: 'fault', message };
  return { type: 'error', error: err };
}

function attach(thread, instance) {
  thread.exports = instance.exports;
  return instance.exports;
}

/**
 * Runs the main thread: sets its stack and thread pointer, initializes the
 * data image (once per process, here), calls `_start(startinfo)`.
 * `setup` = { startinfo, stackPointer, stackLimit }.
 */
export function runMain(thread, instance, setup, startResults) {
  const ex = attach(thread, instance);
  try {
    ex.__stack_pointer.value = setup.stackPointer;
    ex.__stack_limit.value = setup.stackLimit;
    ex.__tp.value = 0;
    ex.__pexe_init_data();
    const value = ex._start(setup.startinfo);
    return { type: 'exit', status: startReturnStatus(value, startResults) };
  } catch (e) {
    return classify(e, ex);
  }
}

/**
 * Runs a thread created by thread_create: `spec` = { func, stack,
 * stackLimit, tp }. A thread_exit stores 0 to its flag here, after the
 * wasm frames are gone.
 */
export function runThread(thread, instance, spec) {
  const ex = attach(thread, instance);
  let outcome;
  try {
    ex.__stack_pointer.value = spec.stack;
    ex.__stack_limit.value = spec.stackLimit;
    ex.__tp.value = spec.tp;
    ex.__pexe_thread_start(spec.func);
    outcome = { type: 'thread-exit', flag: 0 };
  } catch (e) {
    outcome = classify(e, ex);
  }
  if (outcome.type === 'thread-exit' && outcome.flag !== 0) {
    clearStackFlag(thread, outcome.flag);
  }
  return outcome;
}

/** thread_exit's promise: *flag = 0, then wake whoever waits on it. */
export function clearStackFlag(thread, flag) {
  if (Atomics.load(thread.control, EXITING)) return;
  try {
    thread.mem.check(flag, 4);
  } catch {
    return; // a bad flag pointer: nothing to clear
  }
  if ((flag & 3) !== 0) return;
  const i32 = thread.mem.i32();
  Atomics.store(i32, flag >>> 2, 0);
  Atomics.notify(i32, flag >>> 2);
  Atomics.add(thread.control, WAKE_EPOCH, 1);
}
