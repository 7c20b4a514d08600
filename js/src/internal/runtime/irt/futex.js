// IRT interface "nacl-irt-futex-0.1". Thread side: Atomics.wait and
// Atomics.notify on the guest's shared memory.
//
//   futex_wait_abs(volatile int *addr, int value, const struct timespec *abstime)
//       EAGAIN if *addr != value; ETIMEDOUT once the absolute (realtime)
//       deadline passes; 0 when woken (callers re-check their condition).
//   futex_wake(volatile int *addr, int nwake, int *count)
//
// Deadlock detection: a thread in an untimed wait counts itself in the
// control block's WAITING. Waiters sleep in slices; when every live thread
// is waiting and no wake happened during a whole slice, the guest can never
// continue, and the wait raises a GuestFault instead of hanging forever.
// A thread that may not block (a page's main thread) can only be the one
// thread of its process: an untimed wait there is a deadlock at once.

import { LIVE, WAITING, WAKE_EPOCH, waitWhileRunning } from '../control.js';
import { errno } from '../defs.js';
import { GuestFault } from '../faults.js';
import { readTimespec, realtimeNs } from './clock.js';
import { fail, guardAll } from './guard.js';

/** Length of one untimed-wait slice, between deadlock checks (ms). */
export const DEADLOCK_SLICE_MS = 500;

export const DEADLOCK_MESSAGE = 'deadlock: every thread is waiting on a futex';

/** The futex functions for one thread ({ mem, control, canBlock, sleep }). */
export function futex(thread) {
  const { mem, control } = thread;
  const index = (addr) => {
    if ((addr & 3) !== 0) fail(errno.EINVAL);
    mem.check(addr, 4);
    return (addr >>> 0) >> 2;
  };

  function waitForever(i32, i, value) {
    Atomics.add(control, WAITING, 1);
    try {
      let epoch = Atomics.load(control, WAKE_EPOCH);
      let stalled = false;
      for (;;) {
        const result = waitWhileRunning(control, i32, i, value, DEADLOCK_SLICE_MS);
        if (result !== 'timed-out') return 0;
        const now = Atomics.load(control, WAKE_EPOCH);
        const allWaiting = Atomics.load(control, WAITING) >= Atomics.load(control, LIVE);
        if (allWaiting && now === epoch && stalled) throw new GuestFault(DEADLOCK_MESSAGE);
        stalled = allWaiting && now === epoch;
        epoch = now;
      }
    } finally {
      Atomics.sub(control, WAITING, 1);
    }
  }

  return guardAll({
    futex_wait_abs(addr, value, abstimePtr) {
      const i = index(addr);
      const deadlineNs = abstimePtr === 0 ? null : readTimespec(mem, abstimePtr);
      const i32 = mem.i32();
      if (Atomics.load(i32, i) !== value) return errno.EAGAIN;
      if (deadlineNs === null) {
        if (!thread.canBlock) throw new GuestFault(DEADLOCK_MESSAGE);
        return waitForever(i32, i, value);
      }
      const ms = Number(deadlineNs - realtimeNs()) / 1e6;
      if (ms <= 0) return errno.ETIMEDOUT;
      if (!thread.canBlock) {
        // The only thread: nobody can change *addr; sleep until the deadline.
        thread.sleep(ms);
        return errno.ETIMEDOUT;
      }
      const result = waitWhileRunning(control, i32, i, value, ms);
      if (result === 'timed-out') return errno.ETIMEDOUT;
      return result === 'not-equal' ? errno.EAGAIN : 0;
    },
    futex_wake(addr, nwake, countPtr) {
      const i = index(addr);
      mem.check(countPtr, 4);
      const n = nwake > 0 ? Atomics.notify(mem.i32(), i, nwake) : 0;
      Atomics.add(control, WAKE_EPOCH, 1);
      mem.setI32(countPtr, n);
      return 0;
    },
  });
}
