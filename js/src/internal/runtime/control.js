// Process-wide counters every guest thread sees: an Int32Array on a
// SharedArrayBuffer (a plain ArrayBuffer when there is no shared memory,
// which means one thread). Fields, by index:

import { Terminated } from './faults.js';

/** Live guest threads (spawned and not yet ended). */
export const LIVE = 0;
/** Threads in an untimed futex wait (for deadlock detection). */
export const WAITING = 1;
/** Bumped by every futex wake: a deadlock check sees whether anyone woke. */
export const WAKE_EPOCH = 2;
/** Next thread id to hand out. */
export const NEXT_TID = 3;
/**
 * Where guest fd 0, 1, 2 writes without a call to the host thread (3
 * slots): a host fd (>= 0), -1 (none: calls go to the host), -2 - k for
 * stream k of the output ring, or STDIO_DISCARD.
 */
export const STDIO = 4;
/** A STDIO slot's value for an output that is discarded (no sink): writes end in the calling thread. */
export const STDIO_DISCARD = -4;
/** Set once the process is ending. */
export const EXITING = 7;
const FIELDS = 8;

/** A new control block: one live thread (the main one), stdio not passed through. */
export function createControl() {
  const buffer = typeof SharedArrayBuffer === 'function'
    ? new SharedArrayBuffer(FIELDS * 4)
    : new ArrayBuffer(FIELDS * 4);
  const control = new Int32Array(buffer);
  control[LIVE] = 1;
  control[NEXT_TID] = 1;
  control.fill(-1, STDIO, STDIO + 3);
  return control;
}

/** How often a guest thread blocked in a Worker looks at EXITING (ms). */
export const EXIT_CHECK_MS = 100;

/**
 * `Atomics.wait(i32, index, value, ms)` for a guest thread, in slices: once
 * the process is ending (EXITING) it throws Terminated, so the thread's
 * Worker returns to its event loop. A browser ends a Worker blocked in
 * Atomics.wait only by forcing it, and for a Worker started by another
 * Worker that force is timed on the parent's thread: if the parent (a
 * plugin's host Worker) ends first, such a child never ends, and neither
 * does the parent. Returns what Atomics.wait returns.
 */
export function waitWhileRunning(control, i32, index, value, ms = Infinity) {
  const end = ms === Infinity ? Infinity : performance.now() + ms;
  for (;;) {
    if (Atomics.load(control, EXITING)) throw new Terminated();
    const left = end === Infinity ? EXIT_CHECK_MS : end - performance.now();
    if (left <= 0) return 'timed-out';
    const result = Atomics.wait(i32, index, value, Math.min(left, EXIT_CHECK_MS));
    if (result !== 'timed-out') return result;
  }
}
