// Process-wide counters every guest thread sees: an Int32Array on a
// SharedArrayBuffer (a plain ArrayBuffer when there is no shared memory,
// which means one thread). Fields, by index:

/** Live guest threads (spawned and not yet ended). */
export const LIVE = 0;
/** Threads in an untimed futex wait (for deadlock detection). */
export const WAITING = 1;
/** Bumped by every futex wake: a deadlock check sees whether anyone woke. */
export const WAKE_EPOCH = 2;
/** Next thread id to hand out. */
export const NEXT_TID = 3;
/** Host fd that guest fd 0, 1, 2 passes straight through to, or -1 (3 slots). */
export const STDIO = 4;
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
