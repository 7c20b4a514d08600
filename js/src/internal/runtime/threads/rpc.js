// Synchronous calls from a guest thread (a Worker) to the host thread.
//
// Each Worker has a channel: an Int32Array on a SharedArrayBuffer,
//   [0] state   [1] i32 result   [2..3] f64 or i64 result
//   [4] payload length (words)   [5] fault message length (bytes)
//   [8 …] payload words, or the fault message's UTF-8
// The caller sets PENDING, posts `{type: 'call', name, args, tid}` and
// blocks in Atomics.wait until the host has answered. The host thread
// never blocks, so it can always answer — at once, or later: a host
// function may return a Promise (a blocking Pepper call, a message loop
// waiting for work), and the caller's thread simply waits until it
// settles. Results: a number (i32, and the same value as f64), a BigInt
// (i64), or `{ value, payload: [i32 words] }`. A host function that throws
// a GuestFault answers FAULT: the guest thread raises that fault (a bad
// pointer handed to the browser is the guest's bug). Anything else it
// throws answers FAILED: a runtime bug, reported by the host.

import { waitWhileRunning } from '../control.js';
import { GuestFault } from '../faults.js';

export const IDLE = 0;
export const PENDING = 1;
export const DONE = 2;
export const FAILED = 3;
export const FAULT = 4;

const HEADER_WORDS = 8;
/** Payload words a channel holds (a loop item needs 7). */
export const MAX_PAYLOAD = 56;
const CHANNEL_BYTES = 4 * (HEADER_WORDS + MAX_PAYLOAD);

/** A new channel (host side creates it and sends it to the Worker). */
export function createChannel() {
  return new Int32Array(new SharedArrayBuffer(CHANNEL_BYTES));
}

/** A host call that failed on the host: the runtime is broken, not the guest. */
export class HostCallError extends Error {
  constructor(name) {
    super(`runtime bug: host call ${name} failed`);
    this.name = 'HostCallError';
  }
}

/** The guest thread's end of a channel. */
export class HostLink {
  constructor(channel, post, tid, control) {
    this.channel = channel;
    this.post = post;
    this.tid = tid;
    /** The process's control block: a call the host never answers ends once it is EXITING. */
    this.control = control;
    this.f64s = new Float64Array(channel.buffer, 8, 1);
    this.i64s = new BigInt64Array(channel.buffer, 8, 1);
  }

  /** Calls host function `name`; returns its i32 result. */
  call(name, args) {
    const ch = this.channel;
    Atomics.store(ch, 0, PENDING);
    this.post({ type: 'call', name, args, tid: this.tid });
    while (Atomics.load(ch, 0) === PENDING) waitWhileRunning(this.control, ch, 0, PENDING);
    const state = Atomics.load(ch, 0);
    Atomics.store(ch, 0, IDLE);
    if (state === FAULT) {
      const n = ch[5];
      const bytes = new Uint8Array(ch.buffer, 4 * HEADER_WORDS, n).slice();
      throw new GuestFault(new TextDecoder().decode(bytes));
    }
    if (state !== DONE) throw new HostCallError(name);
    return ch[1];
  }

  /** The last answer as a double. */
  f64() {
    return this.f64s[0];
  }

  /** The last answer as a 64-bit integer. */
  i64() {
    return this.i64s[0];
  }

  /** The last answer's payload words (a copy). */
  payload() {
    const n = this.channel[4];
    return Array.from(this.channel.subarray(HEADER_WORDS, HEADER_WORDS + n));
  }
}

/**
 * The same interface as HostLink for a guest thread that runs on the host
 * thread itself: calls are direct. Such a thread never waits, so an
 * answer that would have to wait is a runtime bug (the browser refuses
 * blocking calls on the main thread before making one).
 */
export class DirectLink {
  constructor(dispatch, tid) {
    this.dispatch = dispatch;
    this.tid = tid;
    this.last = { value: 0, payload: [] };
  }

  call(name, args) {
    let r = this.dispatch(name, args, this.tid);
    if (r && typeof r.then === 'function') {
      throw new Error(`runtime bug: ${name} would have to wait on the host thread`);
    }
    if (!(r && typeof r === 'object')) r = { value: r ?? 0, payload: [] };
    this.last = r;
    return typeof r.value === 'bigint' ? Number(BigInt.asIntN(32, r.value)) : Number(r.value) | 0;
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

/** Guest side: functions named `names` that call the host through `link`. */
export function rpcFunctions(names, link) {
  const fns = {};
  for (const name of names) fns[name] = (...args) => link.call(name, args);
  return fns;
}

/** Stores `result` in the channel and wakes the caller. */
export function answer(channel, result) {
  if (result && typeof result === 'object') {
    const words = result.payload ?? [];
    if (words.length > MAX_PAYLOAD) throw new Error(`runtime bug: a ${words.length}-word answer`);
    channel.set(words, HEADER_WORDS);
    channel[4] = words.length;
    result = result.value ?? 0;
  } else {
    channel[4] = 0;
  }
  if (typeof result === 'bigint') {
    new BigInt64Array(channel.buffer, 8, 1)[0] = BigInt.asIntN(64, result);
    channel[1] = Number(BigInt.asIntN(32, result));
  } else {
    const n = Number(result ?? 0);
    new Float64Array(channel.buffer, 8, 1)[0] = n;
    channel[1] = n | 0;
  }
  Atomics.store(channel, 0, DONE);
  Atomics.notify(channel, 0);
}

/** Answers with a guest fault carrying `message`. */
export function answerFault(channel, message) {
  const bytes = new TextEncoder().encode(String(message)).subarray(0, 4 * MAX_PAYLOAD);
  new Uint8Array(channel.buffer, 4 * HEADER_WORDS, bytes.length).set(bytes);
  channel[5] = bytes.length;
  Atomics.store(channel, 0, FAULT);
  Atomics.notify(channel, 0);
}

function answerFailed(channel) {
  Atomics.store(channel, 0, FAILED);
  Atomics.notify(channel, 0);
}

/**
 * Host side: runs call `msg` with `dispatch(name, args, tid)` and answers
 * on `channel` (now or when a returned Promise settles). `onBug(error)`
 * hears runtime bugs (after FAILED has been answered).
 */
export function serveCall(dispatch, channel, msg, onBug) {
  const fail = (e) => {
    if (e instanceof GuestFault) {
      answerFault(channel, e.message);
      return;
    }
    answerFailed(channel);
    onBug(e);
  };
  let result;
  try {
    result = dispatch(msg.name, msg.args, msg.tid);
  } catch (e) {
    fail(e);
    return;
  }
  if (result && typeof result.then === 'function') {
    result.then(
      (r) => {
        try {
          answer(channel, r);
        } catch (e) {
          fail(e);
        }
      },
      fail,
    );
    return;
  }
  try {
    answer(channel, result);
  } catch (e) {
    fail(e);
  }
}
