// Turns the failures of an IRT function body into its errno result.
//
// IRT functions return 0 or a positive errno. Bodies throw `FsError` (file
// system), `MemoryFault` (a guest pointer outside the memory → EFAULT) or
// `IrtError` (any other errno); `guard` catches those and returns the
// number. Everything else (exit, thread exit, guest faults, runtime bugs)
// propagates.

import { errno } from '../defs.js';
import { FsError } from '../fs/index.js';
import { MemoryFault } from '../memory.js';

/** An IRT failure with a positive errno. */
export class IrtError extends Error {
  constructor(code) {
    super(`errno ${code}`);
    this.name = 'IrtError';
    this.errno = code;
  }
}

/** Throws `IrtError(code)`. */
export function fail(code) {
  throw new IrtError(code);
}

/** The errno for a caught error, or undefined when it is not an IRT failure. */
export function errnoOf(e) {
  if (e instanceof IrtError || e instanceof FsError) return e.errno;
  if (e instanceof MemoryFault) return errno.EFAULT;
  return undefined;
}

/** Wraps every function of `fns` so its IRT failures become errno results. */
export function guardAll(fns) {
  const out = {};
  for (const [name, fn] of Object.entries(fns)) {
    out[name] = (...args) => {
      try {
        return fn(...args);
      } catch (e) {
        const code = errnoOf(e);
        if (code === undefined) throw e;
        return code;
      }
    };
    Object.defineProperty(out[name], 'name', { value: name });
  }
  return out;
}
