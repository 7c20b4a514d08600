// IRT interface "nacl-irt-clock_get-0.1": clock_getres, clock_gettime;
// and the time sources every thread-side interface uses. Thread side.
//
//   clock_getres(clockid, struct timespec *res)
//   clock_gettime(clockid, struct timespec *tp)
//
// `struct nacl_abi_timespec` is { int64 tv_sec; int32 tv_nsec } (16 bytes).
// Clocks: REALTIME (0) is the host's wall clock; MONOTONIC (1) the host's
// monotonic clock (process.hrtime in Node, performance.now elsewhere);
// PROCESS_CPUTIME (2) the process's CPU time in Node (process.cpuUsage), the
// run's elapsed time elsewhere; THREAD_CPUTIME (3) this thread's elapsed
// time since it started (neither Node 20 nor browsers expose a thread's CPU
// time). Other ids are EINVAL.

import { CLOCK, TIME, errno } from '../defs.js';
import { fail, guardAll } from './guard.js';

const hasHrtime = typeof process !== 'undefined' && typeof process.hrtime?.bigint === 'function';
const hasCpuUsage = typeof process !== 'undefined' && typeof process.cpuUsage === 'function';

/** Wall-clock time in nanoseconds since the epoch (a BigInt). */
export function realtimeNs() {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e3)) * 1000n;
}

/** Monotonic time in nanoseconds (a BigInt), comparable across threads. */
export function monotonicNs() {
  if (hasHrtime) return process.hrtime.bigint();
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e3)) * 1000n;
}

/** CPU time of the process in nanoseconds (elapsed time without Node). */
export function processCpuNs(startNs) {
  if (hasCpuUsage) {
    const { user, system } = process.cpuUsage();
    return BigInt(user + system) * 1000n;
  }
  return monotonicNs() - startNs;
}

/** Writes a timespec / timeval: 64-bit seconds, then 32-bit `frac` units. */
export function writeTime(mem, addr, ns, unitNs) {
  mem.check(addr, TIME.SIZE);
  const sec = ns / 1_000_000_000n;
  const frac = Number(ns % 1_000_000_000n) / unitNs;
  mem.setI64(addr + TIME.sec, sec);
  mem.setI32(addr + TIME.frac, Math.floor(frac));
}

/** Reads a timespec as nanoseconds (a BigInt); EINVAL for a bad tv_nsec. */
export function readTimespec(mem, addr) {
  const sec = mem.getI64(addr + TIME.sec);
  const nsec = mem.getI32(addr + TIME.frac);
  if (nsec < 0 || nsec >= 1e9) fail(errno.EINVAL);
  return sec * 1_000_000_000n + BigInt(nsec);
}

/** The clock functions for one thread ({ mem, startNs, processStartNs }). */
export function clock(thread) {
  const { mem } = thread;
  const read = (id) => {
    switch (id) {
      case CLOCK.REALTIME:
        return realtimeNs();
      case CLOCK.MONOTONIC:
        return monotonicNs();
      case CLOCK.PROCESS_CPUTIME_ID:
        return processCpuNs(thread.processStartNs);
      case CLOCK.THREAD_CPUTIME_ID:
        return monotonicNs() - thread.startNs;
      default:
        return fail(errno.EINVAL);
    }
  };
  return guardAll({
    clock_getres(id, resPtr) {
      read(id);
      if (resPtr !== 0) writeTime(mem, resPtr, 1000n, 1);
      return 0;
    },
    clock_gettime(id, tpPtr) {
      writeTime(mem, tpPtr, read(id), 1);
      return 0;
    },
  });
}
