// IRT interface "nacl-irt-thread-0.1".
//
//   thread_create(void (*start)(void), void *stack, void *thread_ptr)
//       host side: the process starts a new guest thread (a Worker) that
//       calls `start` with `__stack_pointer = stack`, `__tp = thread_ptr`;
//       EAGAIN when threads are unavailable (no Workers or no shared memory).
//   thread_exit(int32_t *stack_flag)
//       thread side: never returns; throws ThreadExit, and the thread runner
//       stores 0 to *stack_flag (Atomics.store + notify) once the thread's
//       wasm frames are gone, then ends the thread.
//   thread_nice(int nice)   ENOSYS: threads have no priorities here.

import { errno } from '../defs.js';
import { ThreadExit } from '../faults.js';

/** thread_create over `proc` ({ spawnThread(func, stack, tp) → errno }). */
export function threadCreate(proc) {
  return {
    thread_create(func, stack, tp) {
      return proc.spawnThread(func >>> 0, stack >>> 0, tp >>> 0);
    },
  };
}

/** The thread-side functions. */
export function threadLocal() {
  return {
    thread_exit(flag) {
      throw new ThreadExit(flag);
    },
    thread_nice() {
      return errno.ENOSYS;
    },
  };
}
