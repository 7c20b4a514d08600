// Runs a pexe translated to WebAssembly by `pexe` (the NaCl IRT shim).
//
//   import { run } from './index.js';
//   import { browserHost } from './threads/platform.js';
//   const { exitCode, fault } = await run(wasmBytes, {
//     args: ['hello.pexe'], env: { HOME: '/' },
//     files: { '/data/in.txt': 'hello' },
//     stdout: (chunk) => out.push(chunk),
//   }, browserHost);
//
// The host (`browserHost`, or `nodeHost` from internal/node/host.js) brings
// what differs between Node and browsers: Node's modules (file system,
// terminals) and how a guest thread's Worker starts. Nothing in this
// folder imports a `node:` module, so browser bundles never see one.
//
// The module must follow the runtime ABI (abi.md; checked at start). By
// default the guest runs in Workers (one per guest thread; the calling
// thread serves the process-wide calls and never blocks); where Workers
// with shared memory are unavailable (a page that is not cross-origin
// isolated, or `threads: false`) it runs on the calling thread, and
// thread_create fails with EAGAIN.

import { AbiMismatch, checkModule } from './abi.js';
import { FAULT_EXIT_STATUS } from './defs.js';
import { moduleInfo } from './module-info.js';
import { Process, createMemory } from './process.js';
import { buildImports, createThread, runMain } from './thread.js';
import { runInWorkers } from './threads/spawn.js';

export { AbiMismatch };

async function compile(wasm) {
  if (wasm instanceof WebAssembly.Module) return { module: wasm, bytes: null };
  let bytes;
  if (wasm instanceof Uint8Array) bytes = wasm;
  else if (wasm instanceof ArrayBuffer) bytes = new Uint8Array(wasm);
  else if (ArrayBuffer.isView(wasm)) bytes = new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength);
  else throw new TypeError('run() takes a WebAssembly.Module or the bytes of one');
  return { module: await WebAssembly.compile(bytes), bytes };
}

/**
 * Runs a translated pexe (a WebAssembly.Module or its bytes). Resolves when
 * the guest exits: `{ exitCode }`, or `{ exitCode: 134, fault }` when it
 * faulted (`fault` = "guest fault: <message> in function <name>").
 * Rejects when the module does not follow the ABI (AbiMismatch) or on a
 * runtime bug.
 *
 * Options:
 * - `args`: argv, args[0] being the program name as given (strings).
 * - `env`: environment, `{ NAME: value }` or `['NAME=value']` (default empty).
 * - `files`: in-memory files, `{ '/path': Uint8Array | string }`.
 * - `stdin`: Uint8Array | string (read to the end, then EOF), a function
 *   returning the next chunk (null at EOF), or `'inherit'` (Node: fd 0).
 *   Default: empty.
 * - `stdout`, `stderr`: a function receiving Uint8Array copies, or
 *   `'inherit'` (Node: the host's fd 1 / 2, byte for byte), or null
 *   (discard). Default: `'inherit'` in Node, discarded elsewhere.
 * - `tty`: whether hook streams report being terminals (newlib then
 *   line-buffers stdout); a boolean, or one per fd 0-2. Inherited fds
 *   report what the host fd is.
 * - `hostFs` (Node): false (default), true (the whole host file system), or
 *   a host directory (or an array of them) exposed at its own path.
 * - `cwd`: the guest's starting directory (default: the host's when
 *   `hostFs` is set, else '/').
 * - `stackSize`: bytes of the main thread's stack (default 8 MiB).
 * - `trace`: true (IRT calls to stderr) or a function receiving lines.
 * - `threads`: false to run on the calling thread (one guest thread).
 *
 * `host`: where this runs: `browserHost` (threads/platform.js) or
 * `nodeHost` (internal/node/host.js).
 */
export async function run(wasm, options, host) {
  if (typeof host?.workersAvailable !== 'function') throw new TypeError('run() needs a host (browserHost or nodeHost)');
  options ??= {};
  const { module, bytes } = await compile(wasm);
  checkModule(module);
  const info = bytes ? moduleInfo(bytes) : { memory: null, startResults: null };
  const node = host.node;
  const useWorkers = options.threads !== false && host.workersAvailable();
  if (options.requireWorkers && !useWorkers) {
    throw new Error('Workers with shared memory are not available here (a page must be cross-origin isolated)');
  }
  const defaultOut = node ? 'inherit' : null;
  const opts = {
    ...options,
    stdout: options.stdout === undefined ? defaultOut : options.stdout,
    stderr: options.stderr === undefined ? defaultOut : options.stderr,
  };
  const memory = createMemory(info.memory);
  const proc = new Process({ module, memory, options: opts, node });
  const setup = await proc.prepare();
  const traceSink = traceSinkFor(options.trace, node);

  if (useWorkers) {
    return runInWorkers({
      proc,
      platform: host,
      setup,
      startResults: info.startResults,
      traceSink,
      traceInWorker: options.trace === true && !!node,
      passthrough: !!node,
    });
  }
  return runInline({ proc, setup, startResults: info.startResults, traceSink });
}

/**
 * `run` for pages: the guest's main thread always runs in a Worker (so
 * blocking calls never run on the page's main thread); rejects where that
 * is impossible (no cross-origin isolation).
 */
export function runInWorker(wasm, options, host) {
  return run(wasm, { ...options, threads: true, requireWorkers: true }, host);
}

/** One guest thread on the calling thread. */
async function runInline({ proc, setup, startResults, traceSink }) {
  const thread = createThread({
    memory: proc.memory,
    control: proc.control,
    tid: 0,
    processStartNs: proc.startNs,
    processors: proc.processors,
  });
  const imports = buildImports(thread, proc.hostCalls, { trace: traceSink });
  const instance = await WebAssembly.instantiate(proc.module, imports);
  const outcome = runMain(thread, instance, setup, startResults);
  switch (outcome.type) {
    case 'exit':
      return { exitCode: outcome.status };
    case 'thread-exit':
      return { exitCode: 0 };
    case 'fault':
      return { exitCode: FAULT_EXIT_STATUS, fault: outcome.message };
    default: {
      const e = new Error(`runtime bug: ${outcome.error?.message ?? outcome.error}`);
      e.cause = outcome.error;
      throw e;
    }
  }
}

function traceSinkFor(trace, node) {
  if (!trace) return null;
  if (typeof trace === 'function') return trace;
  if (node) return (line) => node.fs.writeSync(2, `${line}\n`);
  return (line) => console.error(line);
}
