// The `pexe` npm package: read, check, translate and run PNaCl programs in
// browsers and in Node >= 20. The API and its types are in index.d.ts.
//
//   import { inspect, disassemble, translate, run, Translator } from 'pexe';
//
// Layout of the package (scripts/build-pkg.sh assembles it):
//   index.js, index.d.ts   this entry: thin wrappers over the two parts below
//   pexe.js, pexe_bg.wasm  the Rust library (src/web.rs) through wasm-bindgen
//                          (`--target web`: plain ESM, no bundler needed)
//   runtime/               the JavaScript IRT runtime that runs translated modules
//   bin/pexe.mjs           `npx pexe run|translate|dis|verify|inspect`
//
// The wrappers accept any BufferSource, turn errors from Rust into
// PexeError, turn a Rust panic (a trap) into a PexeError carrying the
// panic message, and add `run`, which translates a pexe before running it.

import initWasm, * as wasm from './pexe.js';
import { run as runModule, runInWorker as runModuleInWorker, AbiMismatch } from './runtime/index.js';
import { IRT_INTERFACES } from './runtime/abi.js';

export { AbiMismatch };

const isNode = typeof process !== 'undefined' && !!process.versions?.node;

// Load the WebAssembly once, at import. In Node, fetch() cannot read file:
// URLs, so the bytes are read here; in browsers (and for http: URLs) the
// glue fetches and compiles them streaming.
async function load() {
  const url = new URL('./pexe_bg.wasm', import.meta.url);
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    await initWasm({ module_or_path: await readFile(url) });
  } else {
    await initWasm({ module_or_path: url });
  }
}
await load();

/** The package version, and the PNaCl bitcode version it reads. */
export const version = wasm.version();
export const pnaclVersion = 2;

/** The error every package function throws for bad input. See index.d.ts. */
export class PexeError extends Error {
  constructor(message, { kind = 'translate', diagnostics = [], listing, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'PexeError';
    this.kind = kind;
    this.diagnostics = diagnostics;
    if (listing !== undefined) this.listing = listing;
  }
}

// What Rust threw, as the package's error. A trap is a panic when the hook
// left a message (console_error_panic_hook has printed it and the stack).
function wrapError(e) {
  if (e instanceof PexeError) return e;
  if (e instanceof WebAssembly.RuntimeError) {
    const message = wasm.takePanicMessage();
    if (message !== undefined) {
      return new PexeError(`pexe panicked (a bug; please report it): ${message}`, { kind: 'panic', cause: e });
    }
    return e;
  }
  if (e instanceof Error && e.name === 'PexeError' && typeof e.kind === 'string') {
    return new PexeError(e.message, { kind: e.kind, diagnostics: e.diagnostics ?? [], listing: e.listing });
  }
  return e;
}

function guarded(f) {
  try {
    return f();
  } catch (e) {
    throw wrapError(e);
  }
}

/** A Uint8Array over any BufferSource (no copy). */
function bytesOf(input, what = 'a pexe') {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer)) {
    return new Uint8Array(input);
  }
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(`expected the bytes of ${what} (a Uint8Array, ArrayBuffer or other ArrayBufferView)`);
}

// Interfaces the runtime answers no version of (Pepper's, which only an
// embedder providing Pepper answers). libc asks for several versions of
// some (nacl-irt-memory-0.1, -0.2, -0.3) and takes the first answered, so
// one answered version is enough.
const family = (name) => name.replace(/-[0-9][0-9.]*$/, '');
const ANSWERED_FAMILIES = new Set(Object.keys(IRT_INTERFACES).map(family));

function withUnsupported(summary) {
  summary.irt.unsupported = summary.irt.interfaces.filter((name) => !ANSWERED_FAMILIES.has(family(name)));
  return summary;
}

/** Summarizes a pexe; never throws for bad input. */
export function inspect(bytes) {
  const input = bytesOf(bytes);
  return withUnsupported(guarded(() => wasm.inspect(input)));
}

/** The pnacl-bcdis listing, as `pexe dis` prints it. */
export function disassemble(bytes, options) {
  const input = bytesOf(bytes);
  return guarded(() => wasm.disassemble(input, options));
}

/** Test hook, not API: a Rust panic, to check that it surfaces as a PexeError. */
export function __panicForTests(message) {
  return guarded(() => wasm.__panicForTests(String(message)));
}

/** Decodes, verifies and translates a pexe to a WebAssembly module. */
export function translate(bytes, options) {
  const input = bytesOf(bytes);
  return guarded(() => wasm.translate(input, options));
}

/** `pexe stats` as data; never throws for bad input. */
export function stats(bytes) {
  const input = bytesOf(bytes);
  return guarded(() => wasm.stats(input));
}

/** The WebAssembly text of the function translated from `@fN`. */
export function functionWat(bytes, options) {
  const input = bytesOf(bytes);
  return guarded(() => wasm.functionWat(input, options));
}

// ---------------------------------------------------------------- streaming

class Stream {
  #raw;
  constructor(raw) {
    this.#raw = raw;
  }
  feed(chunk) {
    const input = bytesOf(chunk, 'a chunk');
    return guarded(() => this.#raw.feed(input));
  }
  finish() {
    return guarded(() => this.#raw.finish());
  }
  get progress() {
    return guarded(() => this.#raw.progress);
  }
  get bytesRead() {
    return this.progress.bytesRead;
  }
  get functionsDecoded() {
    return this.progress.functionsDecoded;
  }
  get functionsTranslated() {
    return this.progress.functionsTranslated;
  }
  get functionsTotal() {
    return this.progress.functionsTotal;
  }
  free() {
    this.#raw?.free();
    this.#raw = null;
  }
}

/** Push translator: `feed(chunk)` as bytes arrive, then `finish()` for the module. */
export class Translator extends Stream {
  constructor(options) {
    super(guarded(() => new wasm.Translator(options)));
  }
}

/** Push inspector: `feed(chunk)` as bytes arrive, then `finish()` for the summary. */
export class Inspector extends Stream {
  constructor(options) {
    super(guarded(() => new wasm.Inspector(options)));
  }
  finish() {
    return withUnsupported(super.finish());
  }
}

// The chunks of a fetch() Response, a ReadableStream, or an (async) iterable.
async function* chunksOf(source) {
  source = await source;
  if (source && typeof source.arrayBuffer === 'function' && 'body' in source && 'ok' in source) {
    if (!source.ok) throw new Error(`fetching ${source.url || 'the pexe'}: HTTP ${source.status} ${source.statusText}`.trim());
    source = source.body;
    if (source === null) return;
  }
  if (source && typeof source.getReader === 'function') {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (source && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    yield* source;
    return;
  }
  throw new TypeError('expected a Response, a ReadableStream or an iterable of chunks');
}

async function feedAll(stream, source) {
  try {
    for await (const chunk of chunksOf(source)) stream.feed(chunk);
    return stream.finish();
  } finally {
    stream.free();
  }
}

/** Translates a pexe as it downloads: `await translateStreaming(fetch(url), { onProgress })`. */
export function translateStreaming(source, options) {
  return feedAll(new Translator(options), source);
}

/** Inspects a pexe as it downloads. */
export function inspectStreaming(source, options) {
  return feedAll(new Inspector(options), source);
}

// ---------------------------------------------------------------- run

const PEXE_MAGIC = [0x50, 0x45, 0x58, 0x45]; // "PEXE"
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"

function startsWith(bytes, magic) {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}

// What the runtime runs: a compiled module, or the bytes of one (a pexe is
// translated first; anything else that is not wasm goes to the translator
// too, which says what is wrong with it).
function programOf(program) {
  if (program instanceof WebAssembly.Module) return program;
  const bytes = bytesOf(program, 'a pexe or WebAssembly module');
  if (startsWith(bytes, WASM_MAGIC) && !startsWith(bytes, PEXE_MAGIC)) return bytes;
  return translate(bytes);
}

function runOptions(options) {
  return { ...options, args: options?.args ?? ['pexe'] };
}

/** Runs a pexe (or a module `translate` made). Resolves `{ exitCode, fault? }`. */
export async function run(program, options = {}) {
  return runModule(programOf(program), runOptions(options));
}

/** `run` for pages: the guest's main thread always runs in a Worker. */
export async function runInWorker(program, options = {}) {
  return runModuleInWorker(programOf(program), runOptions(options));
}
