// The host side of one guest process: everything process-wide.
//
// A `Process` owns the guest's memory, the file system and descriptor table
// (fs/index.js), the page allocator (irt/memory.js), the control block
// (control.js) and the host-side IRT functions (`hostCalls`: fdio,
// filename, memory, thread_create). It lives on the thread that called
// `run()`; guest threads reach `hostCalls` directly (one inline thread) or
// through synchronous calls from their Workers (threads/).
//
// `prepare()` lays out the memory (abi.md, "Memory layout"): it learns
// `__heap_base` from a probe instance that never runs, hands everything
// above it to the page allocator, and maps, in order, the main thread's
// stack and the startup info block.

import { createControl, LIVE, STDIO } from './control.js';
import { DEFAULT_STACK_SIZE, MAX_WASM_PAGES, PAGE_SIZE, errno } from './defs.js';
import { FileSystem } from './fs/index.js';
import { fdio } from './irt/fdio.js';
import { filename } from './irt/filename.js';
import { PageAllocator, memory as memoryCalls } from './irt/memory.js';
import { threadCreate } from './irt/thread.js';
import { monotonicNs } from './irt/clock.js';
import { IRT_FUNCTIONS, uniformPpapiImports } from './abi.js';
import { GuestMemory } from './memory.js';
import { envStrings, startInfoSize, writeStartInfo } from './startinfo.js';

/** The smallest memory the ABI ever declares (1 MiB + the guard page). */
const MIN_PAGES = 17;

/** Creates the shared memory for a module whose memory import is `limits` (or unknown). */
export function createMemory(limits) {
  const initial = Math.max(limits?.min ?? MIN_PAGES, 1);
  const maximum = limits?.max ?? MAX_WASM_PAGES;
  return new WebAssembly.Memory({ initial, maximum, shared: true });
}

/**
 * Imports that satisfy the module's import list but do nothing (for the
 * probe). The PPB functions (about 700) only for a module that imports them.
 */
function probeImports(module, memory) {
  const irt = {};
  for (const { name } of IRT_FUNCTIONS) irt[name] = () => errno.ENOSYS;
  const pepper = WebAssembly.Module.imports(module).some((i) => i.module === 'ppapi');
  return { env: { memory, fault() {}, fmod_f64: (a, b) => a % b }, irt, ppapi: pepper ? uniformPpapiImports(() => 0) : {} };
}

/**
 * Instantiates `module` without running it, to read `__heap_base`. When
 * the memory's size was not known (no bytes to read it from), grows the
 * memory until the instantiation links.
 */
export async function probeHeapBase(module, memory) {
  for (let attempt = 0; ; attempt++) {
    try {
      const { exports } = await WebAssembly.instantiate(module, probeImports(module, memory));
      return exports.__heap_base.value >>> 0;
    } catch (e) {
      const pages = memory.buffer.byteLength / PAGE_SIZE;
      const tooSmall = e instanceof WebAssembly.LinkError && /memory/i.test(e.message);
      if (!tooSmall || attempt > 16 || pages >= MAX_WASM_PAGES) throw e;
      memory.grow(Math.min(pages, MAX_WASM_PAGES - pages));
    }
  }
}

export class Process {
  /**
   * @param {object} o
   * @param {WebAssembly.Module} o.module
   * @param {WebAssembly.Memory} o.memory
   * @param {object} o.options  run() options
   * @param {object|null} o.node  { fs, path, os, tty, process } in Node, else null
   */
  constructor({ module, memory, options, node }) {
    this.module = module;
    this.memory = memory;
    this.mem = new GuestMemory(memory);
    this.options = options;
    this.control = createControl();
    this.startNs = monotonicNs();
    this.processors = processorCount(node);
    const hostDirs = hostDirList(options.hostFs);
    this.fs = new FileSystem({
      files: options.files,
      hostDirs,
      nodeFs: node?.fs ?? null,
      nodePath: node?.path ?? null,
      nodeTty: node?.tty ?? null,
      cwd: options.cwd ?? (hostDirs.length > 0 ? node.process.cwd() : '/'),
      stdin: options.stdin,
      stdout: options.stdout,
      stderr: options.stderr,
      tty: options.tty,
      onStdioChange: (fd) => this.updateStdio(fd),
    });
    for (const fd of [0, 1, 2]) this.updateStdio(fd);
    this.pages = null;
    /** (func, stack, tp, stackLimit) → errno; null when threads are unavailable. */
    this.spawner = null;
    /** Why there is no spawner (run() sets it), for `options.onThreadRefused`. */
    this.threadRefusal = 'guest threads are not available here';
    /** The outputs under write-behind (`startWriteBehind`). */
    this.writeBehind = [];
    this.refusalReported = false;
    this.hostCalls = {
      ...fdio(this),
      ...filename(this),
      ...memoryCalls(this),
      ...threadCreate(this),
    };
  }

  /**
   * Lets guest threads in Workers write stdout/stderr through a shared ring
   * (threads/output-ring.js) instead of host calls: function sinks, and the
   * host's inherited fds 1/2 unless `inherit` is false (trace lines go
   * straight to fd 2 and must stay in order with the guest's). The host
   * thread writes what it drains, so a guest writing line by line (newlib's
   * stdout is line-buffered) costs a copy per line, not a system call per
   * line (fasta: 410 000 writes). Returns the ring, or null when no sink
   * goes through it. With the embedder's ring (run()'s `output`) that ring
   * is returned and `outputSinks` is null: the embedder drains it.
   * `create`: threads/output-ring.js createOutputRing, handed in by the
   * Worker side so that a run on one thread never loads that file.
   */
  enableOutputRing({ inherit = true, create }) {
    const outputs = [this.fs.fds[1], this.fs.fds[2]];
    // The embedder's ring (run()'s `output`): written as it is, read by the
    // embedder; no sinks here.
    const own = outputs.find((d) => d?.ring)?.ring;
    if (own) {
      this.outputRing = own.sab;
      this.outputSinks = null;
      return this.outputRing;
    }
    const ringSink = (d) => {
      if (typeof d?.sink === 'function') return d.sink;
      if (inherit && d?.sink === 'inherit' && d.nodeFs) return (bytes) => d.writeHost(bytes);
      return null;
    };
    const sinks = outputs.map(ringSink);
    if (!sinks.some((s) => s)) return null;
    this.outputRing = create();
    outputs.forEach((d, k) => {
      if (sinks[k]) d.ringStream = k;
    });
    this.outputSinks = sinks;
    for (const fd of [0, 1, 2]) this.updateStdio(fd);
    return this.outputRing;
  }

  /**
   * Starts write-behind (fs/stdio.js OutputDescription.startWriteBehind) on
   * stdout and stderr where they are host fds that are not terminals.
   * Returns whether any started; `flushOutputs` then sends them out.
   */
  startWriteBehind() {
    const outputs = new Set([this.fs.fds[1], this.fs.fds[2]]);
    this.writeBehind = [...outputs].filter((d) => d?.startWriteBehind?.(WRITE_BEHIND_BYTES));
    return this.writeBehind.length > 0;
  }

  /** Sends out what write-behind holds, but for description `except`. */
  flushOutputs(except = null) {
    for (const d of this.writeBehind) if (d !== except) d.flush();
  }

  updateStdio(fd) {
    Atomics.store(this.control, STDIO + fd, this.fs.passthroughFd(fd));
  }

  /**
   * Lays out the memory; returns the main thread's `{ startinfo,
   * stackPointer, stackLimit }`.
   */
  async prepare() {
    const heapBase = await probeHeapBase(this.module, this.memory);
    this.pages = new PageAllocator(this.mem, heapBase);
    const stackSize = Math.max(PAGE_SIZE, Math.ceil((this.options.stackSize ?? DEFAULT_STACK_SIZE) / PAGE_SIZE) * PAGE_SIZE);
    const stack = this.pages.map(stackSize);
    if (stack === 0) throw new Error(`cannot map a ${stackSize}-byte main stack`);
    const args = (this.options.args ?? []).map(String);
    const env = envStrings(this.options.env ?? {});
    const startinfo = this.pages.map(startInfoSize(args, env));
    if (startinfo === 0) throw new Error('cannot map the startup info');
    writeStartInfo(this.mem, startinfo, args, env);
    return { startinfo, stackPointer: stack + stackSize, stackLimit: stack };
  }

  /** IRT thread_create: hands the new thread to the spawner. */
  spawnThread(func, stack, tp) {
    if (!this.spawner) {
      this.reportRefusal();
      return errno.EAGAIN;
    }
    const region = this.pages.regionBelow(stack);
    const stackLimit = region ? region.start : 0x10000;
    Atomics.add(this.control, LIVE, 1);
    const result = this.spawner(func, stack, tp, stackLimit);
    if (result !== 0) Atomics.sub(this.control, LIVE, 1);
    return result;
  }

  /**
   * Tells the embedder, once, that the guest asked for a thread it cannot
   * have (`options.onThreadRefused(reason)`): the guest only sees EAGAIN,
   * and many programs then wait forever for a thread that never runs.
   */
  reportRefusal() {
    if (this.refusalReported) return;
    this.refusalReported = true;
    try {
      this.options.onThreadRefused?.(this.threadRefusal);
    } catch {
      // the embedder's callback must not break thread_create
    }
  }
}

/** Bytes an output holds under write-behind before it writes (Node's own pipe chunk). */
const WRITE_BEHIND_BYTES = 64 << 10;

/** `hostFs` option → host directories: true = the whole file system. */
function hostDirList(hostFs) {
  if (!hostFs) return [];
  if (hostFs === true) return ['/'];
  return Array.isArray(hostFs) ? hostFs : [hostFs];
}

function processorCount(node) {
  try {
    if (node?.os) return node.os.availableParallelism?.() ?? node.os.cpus().length;
  } catch {
    // fall through
  }
  return globalThis.navigator?.hardwareConcurrency ?? 1;
}
