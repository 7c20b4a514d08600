// How a guest stops: exit, thread exit, or a fault.
//
// - `ExitError(status)` is thrown by IRT `exit` and unwinds the guest's wasm
//   frames; the thread runner catches it and ends the whole process.
// - `ThreadExit(flag)` is thrown by IRT `thread_exit` and ends one thread.
// - A guest fault is any `WebAssembly.RuntimeError` (a trap), a `GuestFault`
//   raised by `env.fault`, a JS `RangeError` for an exhausted call stack
//   (deep guest recursion), or the longjmp exception escaping every frame.
//   It ends the guest, never the host: `describeFault` turns it into
//   "guest fault: <message> in function <name>", naming the innermost wasm
//   frame of the error's stack. Any other exception is a runtime bug.

import { FAULT_KIND } from './defs.js';

/** Thrown by IRT `exit(status)`: the whole guest process ends. */
export class ExitError extends Error {
  constructor(status) {
    super(`guest exited with status ${status}`);
    this.name = 'ExitError';
    this.status = status | 0;
  }
}

/** Thrown by IRT `thread_exit(flag)`: this thread ends; `flag` is cleared after. */
export class ThreadExit extends Error {
  constructor(flag) {
    super('guest thread exited');
    this.name = 'ThreadExit';
    this.flag = flag >>> 0;
  }
}

/**
 * Unwinds a guest thread whose run has ended while it waited (a host call,
 * a futex, a sleep): the control block's EXITING is set. The thread's own
 * JS thread then returns to its event loop, where a Worker can end.
 */
export class Terminated extends Error {
  constructor() {
    super('the run has ended');
    this.name = 'Terminated';
  }
}

/** A fault the runtime detects itself (`env.fault`, a deadlock, ...). */
export class GuestFault extends Error {
  constructor(message) {
    super(message);
    this.name = 'GuestFault';
  }
}

/** The message of `env.fault(kind, detail)`. */
export function envFaultMessage(kind, detail) {
  switch (kind) {
    case FAULT_KIND.STACK_OVERFLOW:
      return 'stack overflow (alloca below the stack limit)';
    case FAULT_KIND.LONGJMP:
      return 'longjmp to a jmp_buf with no live setjmp';
    case FAULT_KIND.NO_BODY:
      return `call of function ${detail >>> 0}, which has no body`;
    case FAULT_KIND.BAD_INTRINSIC:
      return `bad use of an intrinsic (detail ${detail | 0})`;
    default:
      return `unknown fault kind ${kind | 0} (detail ${detail | 0})`;
  }
}

// One stack line of a wasm frame, as V8 and SpiderMonkey print them:
//   "    at fact (wasm://wasm/1a2b3c4d:wasm-function[5]:0x7e)"
//   "    at wasm://wasm/1a2b3c4d:wasm-function[5]:0x7e"
//   "fact@wasm://wasm/1a2b3c4d:wasm-function[5]:0x7e"
const V8_NAMED = /^\s*at (?:async )?(.+?) \((?:wasm:\/\/|.*wasm-function\[)/;
const ANY_WASM = /wasm-function\[(\d+)\]/;
const SM_NAMED = /^(.+?)@.*wasm-function\[/;

/**
 * The name of the innermost wasm function in an error stack, or null when
 * the stack has no wasm frame. Unnamed functions come out as
 * `wasm-function[N]`.
 */
export function innermostWasmFunction(stack) {
  if (typeof stack !== 'string') return null;
  for (const line of stack.split('\n')) {
    const index = ANY_WASM.exec(line);
    if (!index) continue;
    const named = V8_NAMED.exec(line) ?? SM_NAMED.exec(line);
    if (named && !named[1].includes('wasm://')) return named[1];
    return `wasm-function[${index[1]}]`;
  }
  return null;
}

/**
 * What a guest fault is, or null when `err` is not one (a runtime bug, or
 * an exit). `longjmpTag` is the module's exported `__pexe_longjmp_tag`.
 */
export function faultMessage(err, longjmpTag) {
  if (err instanceof GuestFault) return err.message;
  if (typeof WebAssembly !== 'undefined' && err instanceof WebAssembly.RuntimeError) {
    return err.message;
  }
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return `call stack exhausted (${err.message})`;
  }
  if (
    typeof WebAssembly !== 'undefined' &&
    WebAssembly.Exception &&
    err instanceof WebAssembly.Exception &&
    (!longjmpTag || err.is(longjmpTag))
  ) {
    return envFaultMessage(FAULT_KIND.LONGJMP, 0);
  }
  return null;
}

/**
 * "guest fault: <message> in function <name>" for a guest fault, or null.
 * The function part is left out when the stack holds no wasm frame (a
 * wasm exception carries no stack).
 */
export function describeFault(err, longjmpTag) {
  const message = faultMessage(err, longjmpTag);
  if (message === null) return null;
  const fn = innermostWasmFunction(err?.stack);
  return fn === null ? `guest fault: ${message}` : `guest fault: ${message} in function ${fn}`;
}
