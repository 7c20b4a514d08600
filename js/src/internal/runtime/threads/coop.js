// Cooperative guest threads, for hosts that cannot share memory with
// Workers (a page that is not cross-origin isolated, and its Workers) but
// can suspend WebAssembly: JS Promise Integration (JSPI).
//
// Every guest thread is an instance of the module on the one memory, all
// on this JS thread. Each is entered through `WebAssembly.promising`, and
// the IRT functions that block — futex_wait_abs, nanosleep, sched_yield —
// and every Pepper call (a blocking Pepper call waits for the browser) are
// `WebAssembly.Suspending`: when one has to wait, its thread's wasm stack
// is set aside and the others run until the wait ends (Atomics.waitAsync,
// a timer, the browser's answer). So a pexe's threads work, one at a time:
// a thread that computes without blocking holds this JS thread until it
// blocks (a chess search runs to its time or depth limit).
//
// When the run ends (exit, fault, the embedder), threads that are set
// aside are never resumed into guest code: every Suspending function
// checks EXITING after its wait and unwinds with `Terminated`.

import { EXITING, LIVE, NEXT_TID, WAITING, WAKE_EPOCH } from '../control.js';
import { errno, FAULT_EXIT_STATUS } from '../defs.js';
import { GuestFault, Terminated } from '../faults.js';
import { readTimespec, realtimeNs, writeTime } from '../irt/clock.js';
import { DEADLOCK_MESSAGE, DEADLOCK_SLICE_MS } from '../irt/futex.js';
import { errnoOf, fail } from '../irt/guard.js';
import { pepper } from '../../pepper/load.js';
import { buildImports, classify, clearStackFlag, createThread } from '../thread.js';
import { startReturnStatus } from '../module-info.js';

/** Whether this host can suspend WebAssembly (JSPI). */
export function coopAvailable() {
  return typeof WebAssembly.Suspending === 'function' && typeof WebAssembly.promising === 'function';
}

/** An async IRT body whose failures become errno results (guard.js). */
function guardAsync(fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (e) {
      const code = errnoOf(e);
      if (code === undefined) throw e;
      return code;
    }
  };
}

const later = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The blocking IRT functions of one cooperative thread. */
export function coopBlocking(thread) {
  const { mem, control } = thread;
  const alive = () => {
    if (Atomics.load(control, EXITING)) throw new Terminated();
  };
  const index = (addr) => {
    if ((addr & 3) !== 0) fail(errno.EINVAL);
    mem.check(addr, 4);
    return (addr >>> 0) >> 2;
  };
  return {
    futex_wait_abs: guardAsync(async (addr, value, abstimePtr) => {
      const i = index(addr);
      const deadlineNs = abstimePtr === 0 ? null : readTimespec(mem, abstimePtr);
      const i32 = mem.i32();
      if (Atomics.load(i32, i) !== value) return errno.EAGAIN;
      if (deadlineNs !== null) {
        const ms = Number(deadlineNs - realtimeNs()) / 1e6;
        if (ms <= 0) return errno.ETIMEDOUT;
        const w = Atomics.waitAsync(i32, i, value, ms);
        const r = w.async ? await w.value : w.value;
        alive();
        if (r === 'timed-out') return errno.ETIMEDOUT;
        return r === 'not-equal' ? errno.EAGAIN : 0;
      }
      // Untimed: wait in slices, and call it a deadlock when every thread
      // waits and nobody woke anyone for a whole slice (futex.js).
      Atomics.add(control, WAITING, 1);
      try {
        let epoch = Atomics.load(control, WAKE_EPOCH);
        let stalled = false;
        for (;;) {
          const w = Atomics.waitAsync(i32, i, value, DEADLOCK_SLICE_MS);
          const r = w.async ? await w.value : w.value;
          alive();
          if (r !== 'timed-out') return 0;
          const now = Atomics.load(control, WAKE_EPOCH);
          const allWaiting = Atomics.load(control, WAITING) >= Atomics.load(control, LIVE);
          if (allWaiting && now === epoch && stalled) throw new GuestFault(DEADLOCK_MESSAGE);
          stalled = allWaiting && now === epoch;
          epoch = now;
        }
      } finally {
        Atomics.sub(control, WAITING, 1);
      }
    }),
    nanosleep: guardAsync(async (reqPtr, remPtr) => {
      const ns = readTimespec(mem, reqPtr);
      if (ns < 0n) fail(errno.EINVAL);
      if (remPtr !== 0) mem.check(remPtr, 16);
      await later(Number(ns) / 1e6);
      alive();
      if (remPtr !== 0) writeTime(mem, remPtr, 0n, 1);
      return 0;
    }),
    sched_yield: async () => {
      await later(0);
      alive();
      return 0;
    },
  };
}

/**
 * HostLink's interface for a cooperative thread: direct calls whose answer
 * may be a Promise (`callAsync`); `call` is for answers that never wait.
 */
export class CoopLink {
  constructor(dispatch, tid, control) {
    this.dispatch = dispatch;
    this.tid = tid;
    this.control = control;
    this.last = { value: 0, payload: [] };
  }

  accept(r) {
    if (!(r && typeof r === 'object')) r = { value: r ?? 0, payload: [] };
    this.last = r;
    return typeof r.value === 'bigint' ? Number(BigInt.asIntN(32, r.value)) : Number(r.value) | 0;
  }

  call(name, args) {
    const r = this.dispatch(name, args, this.tid);
    if (r && typeof r.then === 'function') throw new Error(`runtime bug: ${name} waits; use callAsync`);
    return this.accept(r);
  }

  /** The answer, waiting for it if it is a Promise (then the thread is set aside). */
  callAsync(name, args) {
    const r = this.dispatch(name, args, this.tid);
    if (!(r && typeof r.then === 'function')) return this.accept(r);
    return r.then((v) => {
      if (Atomics.load(this.control, EXITING)) throw new Terminated();
      return this.accept(v);
    });
  }

  f64() {
    return Number(this.last.value);
  }

  i64() {
    return BigInt.asIntN(64, BigInt(this.last.value));
  }

  payload() {
    return [...(this.last.payload ?? [])];
  }
}

/**
 * Runs `proc` with cooperative threads. Resolves like run():
 * `{ exitCode }` or `{ exitCode: 134, fault }`; rejects on a runtime bug.
 */
export function runCooperative({ proc, setup, startResults, traceSink, onStart }) {
  return new Promise((resolve, reject) => {
    let finished = false;
    const finish = (result, error) => {
      if (finished) return;
      finished = true;
      Atomics.store(proc.control, EXITING, 1);
      proc.browser?.shutdown();
      if (error) reject(error);
      else resolve(result);
    };
    const settleOutcome = (o) => {
      switch (o.type) {
        case 'exit':
          return finish({ exitCode: o.status });
        case 'fault':
          return finish({ exitCode: FAULT_EXIT_STATUS, fault: o.message });
        case 'terminated':
          return undefined;
        default: {
          const e = new Error(`runtime bug: ${o.error?.message ?? o.error}`);
          e.cause = o.error;
          return finish(null, e);
        }
      }
    };

    const dispatch = (name, args, tid) => {
      const irt = proc.hostCalls[name];
      if (irt) return irt(...args);
      return proc.browser.call(name, tid, args);
    };

    async function makeThread(tid) {
      const thread = createThread({
        memory: proc.memory,
        control: proc.control,
        tid,
        processStartNs: proc.startNs,
        processors: proc.processors,
        pepper: !!proc.browser,
      });
      const link = proc.browser ? new CoopLink(dispatch, tid, proc.control) : null;
      if (tid === 0) {
        thread.canvas3d = proc.surfaces?.canvas3d ?? null;
        thread.glOptions = proc.glOptions;
      }
      const imports = buildImports(thread, proc.hostCalls, {
        trace: traceSink,
        link,
        coop: true,
        blocking: coopBlocking(thread),
      });
      const instance = await WebAssembly.instantiate(proc.module, imports);
      thread.exports = instance.exports;
      return { thread, link, exports: instance.exports };
    }

    /** A thread ended: the last one ends the run (status 0). */
    const threadEnded = () => {
      if (Atomics.sub(proc.control, LIVE, 1) <= 1) finish({ exitCode: 0 });
    };

    proc.spawner = (func, stack, tp, stackLimit) => {
      if (finished) return errno.EAGAIN;
      const tid = Atomics.add(proc.control, NEXT_TID, 1);
      (async () => {
        const { thread, exports } = await makeThread(tid);
        if (finished) return;
        exports.__stack_pointer.value = stack;
        exports.__stack_limit.value = stackLimit;
        exports.__tp.value = tp;
        try {
          await WebAssembly.promising(exports.__pexe_thread_start)(func);
          threadEnded();
        } catch (e) {
          const o = classify(e, exports);
          if (o.type === 'thread-exit') {
            if (o.flag !== 0) clearStackFlag(thread, o.flag);
            threadEnded();
          } else {
            settleOutcome(o);
          }
        }
      })().catch((e) => finish(null, e));
      return 0;
    };

    (async () => {
      const { thread, link, exports } = await makeThread(0);
      exports.__stack_pointer.value = setup.stackPointer;
      exports.__stack_limit.value = setup.stackLimit;
      exports.__tp.value = 0;
      exports.__pexe_init_data();
      onStart?.({ stop: (result) => finish(result) });
      let value;
      try {
        value = await WebAssembly.promising(exports._start)(setup.startinfo);
      } catch (e) {
        const o = classify(e, exports);
        if (o.type === 'pepper') return runPluginMain(thread, link, o.funcs);
        if (o.type === 'thread-exit') return threadEnded();
        return settleOutcome(o);
      }
      return finish({ exitCode: startReturnStatus(value, startResults) });
    })().catch((e) => finish(null, e));

    /** The plugin's main loop: items one at a time, each may set itself aside. */
    function runPluginMain(thread, link, funcs) {
      const main = new (pepper().PluginMain)(thread, link, funcs, { coop: true });
      let chain = Promise.resolve();
      const run = (step) => {
        chain = chain
          .then(() => (finished ? undefined : step()))
          .catch((e) => settleOutcome(classify(e, thread.exports)));
      };
      proc.browser.transport = { toMain: (item) => setTimeout(() => run(() => main.handle(item)), 0) };
      thread.queueItem = (item) => setTimeout(() => run(() => main.handle(item)), 0);
      run(() => main.boot());
    }
  });
}
