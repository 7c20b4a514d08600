// IRT interface "nacl-irt-basic-0.1". Thread side.
//
//   exit(status)                   never returns: throws ExitError
//   gettod(struct timeval *tv)     {int64 sec; int32 usec}
//   clock(nacl_irt_clock_t *ticks) process CPU time in µs (CLOCKS_PER_SEC 1e6)
//   nanosleep(const struct timespec *req, struct timespec *rem)
//   sched_yield()
//   sysconf(name, int *value)      _SC_NPROCESSORS_ONLN, _SC_PAGESIZE (64 KiB)

import { PAGE_SIZE, SC, errno } from '../defs.js';
import { ExitError } from '../faults.js';
import { processCpuNs, readTimespec, realtimeNs, writeTime } from './clock.js';
import { fail, guardAll } from './guard.js';

/** How many processors to report (the host's, at least 1). */
function processors(thread) {
  const n = thread.processors ?? globalThis.navigator?.hardwareConcurrency;
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** The basic functions for one thread ({ mem, sleep(ms), processStartNs, ... }). */
export function basic(thread) {
  const { mem } = thread;
  const fns = guardAll({
    gettod(tvPtr) {
      writeTime(mem, tvPtr, realtimeNs(), 1000);
      return 0;
    },
    clock(ticksPtr) {
      mem.check(ticksPtr, 4);
      mem.setI32(ticksPtr, Number((processCpuNs(thread.processStartNs) / 1000n) & 0xffffffffn));
      return 0;
    },
    nanosleep(reqPtr, remPtr) {
      const ns = readTimespec(mem, reqPtr);
      if (ns < 0n) fail(errno.EINVAL);
      if (remPtr !== 0) mem.check(remPtr, 16);
      thread.sleep(Number(ns) / 1e6);
      if (remPtr !== 0) writeTime(mem, remPtr, 0n, 1);
      return 0;
    },
    sched_yield() {
      return 0;
    },
    sysconf(name, valuePtr) {
      let value;
      if (name === SC.PAGESIZE) value = PAGE_SIZE;
      else if (name === SC.NPROCESSORS_ONLN) value = processors(thread);
      else fail(errno.EINVAL);
      mem.check(valuePtr, 4);
      mem.setI32(valuePtr, value);
      return 0;
    },
  });
  // exit is not guarded: it never returns, it unwinds the guest.
  fns.exit = function exit(status) {
    throw new ExitError(status);
  };
  return fns;
}
