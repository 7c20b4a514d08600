// Tracing of IRT calls: a Proxy over the `irt` import namespace that logs
// each call with its arguments and its result, one line per call:
//
//   [pexe 0] open("data.txt", 0x0, 0o0, 0x1ffd8) = 2 (ENOENT)
//   [pexe 0] write(1, 0x10a20, 14, 0x1ff8c) = 0
//   [pexe 1] exit(0) -> exit
//
// The bracket holds the thread id. Pointers are hex, modes octal, C
// strings are read from guest memory and quoted. Tracing stays out of the
// IRT bodies: wrapping is the only thing this file does. Off by default.

import { IRT_BY_NAME } from './abi.js';
import { errnoName } from './defs.js';
import { ExitError, GuestFault, ThreadExit } from './faults.js';

const MAX_STRING = 256;

function formatArg(kind, value, mem) {
  switch (kind) {
    case 'p':
    case 'x':
      return `0x${(value >>> 0).toString(16)}`;
    case 'o':
      return `0o${(value >>> 0).toString(8)}`;
    case 'l':
      return String(value);
    case 's': {
      if (value === 0) return 'NULL';
      try {
        return JSON.stringify(mem.readCString(value, MAX_STRING));
      } catch {
        return `0x${(value >>> 0).toString(16)}`;
      }
    }
    default:
      return String(value | 0);
  }
}

function formatResult(kind, value) {
  if (kind === 'n' || value === undefined) return '';
  if (kind === 'p') return ` = 0x${(value >>> 0).toString(16)}`;
  if (kind === 'e' && value !== 0) return ` = ${value} (${errnoName[value] ?? '?'})`;
  return ` = ${value}`;
}

function formatThrow(e) {
  if (e instanceof ExitError) return ' -> exit';
  if (e instanceof ThreadExit) return ' -> thread exit';
  if (e instanceof GuestFault) return ` -> fault: ${e.message}`;
  return ` -> threw ${e?.name ?? 'error'}: ${e?.message ?? e}`;
}

/**
 * Wraps `irt` (name → function) so every call is logged to `sink(line)`.
 * `mem` reads string arguments; `tid` labels the lines.
 */
export function strace(irt, { sink, mem, tid = 0 }) {
  const wrapped = new Map();
  return new Proxy(irt, {
    get(target, name) {
      const fn = target[name];
      const entry = typeof name === 'string' ? IRT_BY_NAME[name] : undefined;
      if (typeof fn !== 'function' || !entry) return fn;
      let w = wrapped.get(name);
      if (!w) {
        w = (...args) => {
          const call = `[pexe ${tid}] ${name}(${args.map((a, i) => formatArg(entry.args[i], a, mem)).join(', ')})`;
          let result;
          try {
            result = fn(...args);
          } catch (e) {
            sink(call + formatThrow(e));
            throw e;
          }
          sink(call + formatResult(entry.result, result));
          return result;
        };
        wrapped.set(name, w);
      }
      return w;
    },
  });
}
