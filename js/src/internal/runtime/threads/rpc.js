// Synchronous calls from a guest thread (a Worker) to the host thread.
//
// Each Worker has a channel: an Int32Array on a SharedArrayBuffer,
// [0] state, [1] result. The caller sets PENDING, posts
// `{type: 'call', name, args}` and blocks in Atomics.wait until the host
// has run the function, stored the result and set DONE (or FAILED when the
// host function threw: a runtime bug, reported by the host). The host
// thread never blocks, so it can always answer. Results are i32 (every
// host-side IRT function returns 0 or an errno); i64 arguments travel as
// BigInt.

export const IDLE = 0;
export const PENDING = 1;
export const DONE = 2;
export const FAILED = 3;

/** A new channel (host side creates it and sends it to the Worker). */
export function createChannel() {
  return new Int32Array(new SharedArrayBuffer(8));
}

/** A host call that failed on the host: the runtime is broken, not the guest. */
export class HostCallError extends Error {
  constructor(name) {
    super(`runtime bug: host call irt.${name} failed`);
    this.name = 'HostCallError';
  }
}

/** Guest side: functions named `names` that call the host through `channel`. */
export function rpcFunctions(names, channel, post) {
  const fns = {};
  for (const name of names) {
    fns[name] = (...args) => {
      Atomics.store(channel, 0, PENDING);
      post({ type: 'call', name, args });
      while (Atomics.load(channel, 0) === PENDING) Atomics.wait(channel, 0, PENDING);
      const state = Atomics.load(channel, 0);
      Atomics.store(channel, 0, IDLE);
      if (state !== DONE) throw new HostCallError(name);
      return channel[1];
    };
  }
  return fns;
}

/**
 * Host side: runs call `msg` with `hostCalls` and answers on `channel`.
 * Returns the exception when the host function threw (after answering
 * FAILED), else null.
 */
export function serveCall(hostCalls, channel, msg) {
  let state = DONE;
  let failure = null;
  try {
    const fn = hostCalls[msg.name];
    if (typeof fn !== 'function') throw new Error(`no host call irt.${msg.name}`);
    channel[1] = fn(...msg.args) | 0;
  } catch (e) {
    state = FAILED;
    failure = e;
  }
  Atomics.store(channel, 0, state);
  Atomics.notify(channel, 0);
  return failure;
}
