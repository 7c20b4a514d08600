// Type declarations of the `pexe` npm package: read, check, translate and run
// PNaCl programs (.pexe files) in browsers and in Node >= 20.
//
//   import { inspect, disassemble, translate, run, Translator } from 'pexe';
//
// Importing the package loads its WebAssembly (top-level await), so every
// function below is ready to call once the import resolves. All functions
// that take a pexe accept its bytes as a Uint8Array, an ArrayBuffer or any
// other ArrayBufferView.

/** The bytes of a pexe (or, for `run`, of a translated module). */
export type BytesLike = Uint8Array | ArrayBuffer | ArrayBufferView;

/** One problem of a pexe: a verifier diagnostic, or the error that stopped decoding. */
export interface Diagnostic {
  /** Position of the record at fault, `"byte:bit"` (`"0:0"` for problems of the module as a whole). */
  pos: string;
  /** The byte and bit of `pos`, as numbers. */
  byte: number;
  bit: number;
  /** The message alone, e.g. `"Module has no entry point (disallowed)"`. */
  message: string;
  /** The function concerned: its value id N (`@fN`), or null. */
  function: number | null;
  functionName: string | null;
  /** The basic block (`%bN`) and instruction index in that function, when known. */
  block: number | null;
  inst: number | null;
  /** The whole line as `pexe verify` prints it after the file name: `"byte:bit: error: message (in function @f3 \"main\", …)"`. */
  text: string;
}

/** What went wrong, for errors the package throws (`PexeError.kind`). */
export type PexeErrorKind =
  | 'decode'     // the bytes are not a readable pexe (diagnostics: the one decode error)
  | 'verify'     // the pexe breaks the PNaCl ABI rules (diagnostics: all problems)
  | 'translate'  // the back end could not translate it (no diagnostics)
  | 'options'    // bad arguments (an unknown target or mode, a finished Translator, …)
  | 'panic';     // a bug in pexe: the Rust panic message (the module stays usable)

/** The error every package function throws for bad input; never a hang. */
export class PexeError extends Error {
  readonly name: 'PexeError';
  readonly kind: PexeErrorKind;
  /** Positioned problems (empty for 'translate', 'options', 'panic'). */
  readonly diagnostics: Diagnostic[];
  /** `disassemble` only: the listing up to the record at fault. */
  readonly listing?: string;
}

// ---------------------------------------------------------------- inspect

export interface HeaderField {
  /** 1 = PNaCl version, 2 = align-bitcode-records flag. */
  tag: number;
  type: 'buffer' | 'uint32' | 'flag';
  /** The value of a uint32 field, else null. */
  value: number | null;
  /** The field's raw data bytes. */
  data: number[];
}

export interface HeaderSummary {
  magic: 'PEXE';
  /** PNaCl bitcode version (2). */
  version: number;
  /** Bytes the header takes; the bitstream starts here. */
  size: number;
  fields: HeaderField[];
}

export interface FunctionSummary {
  /** Value id N: the function is `@fN` in listings and diagnostics. */
  id: number;
  /** Name from the module symbol table, or null (stripped pexes). */
  name: string | null;
  /** The signature in PNaClAsm, e.g. `"i32 (i32, i32)"`. */
  type: string;
  linkage: 'external' | 'internal' | 'other';
  /** Has a body (a function block). */
  defined: boolean;
  /** A declared PNaCl intrinsic (`llvm.*`). */
  intrinsic: boolean;
  /** Position of the declaration record. */
  pos: string;
  /** Bits and bytes of the function block (enter to end of block), null without a body. */
  bits: number | null;
  bytes: number | null;
  /** Instructions, basic blocks and constants of the body, null without a body. */
  instructions: number | null;
  blocks: number | null;
  constants: number | null;
}

export interface GlobalSummary {
  /** Global index N: the variable is `@gN`. */
  id: number;
  name: string | null;
  /** Bytes of its initializer. */
  size: number;
  /** Alignment in bytes (0 = unspecified). */
  align: number;
  isConst: boolean;
  /** Relocations (addresses of functions or globals) in its initializer. */
  relocations: number;
  pos: string;
}

export interface ModuleCounts {
  types: number;
  /** Declared functions, with and without bodies. */
  functions: number;
  definedFunctions: number;
  intrinsics: number;
  globals: number;
  /** Bytes of all global initializers. */
  globalBytes: number;
  /** Over all decoded bodies. */
  instructions: number;
  blocks: number;
  constants: number;
}

/** What the pexe needs from its host. */
export interface IrtImports {
  /** Intrinsic functions it declares (`llvm.nacl.read.tp`, `llvm.memcpy.p0i8.p0i8.i32`, …), sorted. */
  intrinsics: string[];
  /** IRT interfaces it names (the `nacl-irt-*` strings its libc queries through AT_SYSINFO), sorted. */
  interfaces: string[];
  /**
   * Those of `interfaces` of which the JavaScript runtime answers no version:
   * calls the program cannot make here.
   * (libc names several versions of some interfaces and uses the first one answered.)
   */
  unsupported: string[];
}

/** A Pepper browser interface a pexe asks for, and where this runtime offers it. */
export interface PepperInterface {
  /** The interface string (`PPB_Graphics2D;1.1`). */
  name: string;
  /** `everywhere` (Node and pages), `page` (only in a page), `nowhere` (not provided), `unknown` (not in the ABI list). */
  offered: 'everywhere' | 'page' | 'nowhere' | 'unknown';
}

/** What a Pepper plugin asks of the browser (empty lists for a command-line program). */
export interface PepperImports {
  /** Whether it is a Pepper plugin (it asks for `nacl-irt-ppapihook-0.1`). */
  plugin: boolean;
  /** PPB interfaces it names, sorted. */
  browser: PepperInterface[];
  /** PPP interfaces it names (offers), sorted. */
  offers: string[];
}

/** `inspect`'s answer: plain data, JSON-serializable (no typed arrays, no bigints). */
export interface ModuleSummary {
  /** Input size in bytes. */
  size: number;
  /** null if even the header could not be read (see `decodeError`). */
  header: HeaderSummary | null;
  /** The module VERSION record (1), null if not reached. */
  version: number | null;
  counts: ModuleCounts;
  /** Every declared function, in declaration order (value ids 0..). */
  functions: FunctionSummary[];
  globals: GlobalSummary[];
  /** Value id of the entry point (the external function `_start` with a body), or null. */
  entryPoint: number | null;
  irt: IrtImports;
  pepper: PepperImports;
  /** No decode error and no verifier diagnostics: `translate` accepts it. */
  valid: boolean;
  /** Verifier diagnostics in file order; a decode error is the last one. */
  diagnostics: Diagnostic[];
  /** The error that stopped decoding (also in `diagnostics`), or null. Everything before it is summarized. */
  decodeError: Diagnostic | null;
}

/** Summarizes a pexe. Never throws for bad input: problems land in `diagnostics`. */
export function inspect(bytes: BytesLike): ModuleSummary;

// ---------------------------------------------------------------- disassemble

export interface DisassembleOptions {
  /** `'full'` (default): positions, records and PNaClAsm, as `pexe dis`; `'records'`: `pexe dis --records` (what `pexe as` reads); `'asm'`: `pexe dis --asm`. */
  mode?: 'full' | 'records' | 'asm';
  /** List only the body of function `@fN` (`pexe dis --function N`). */
  function?: number;
}

/**
 * The pnacl-bcdis listing, byte for byte what `pexe dis` prints. On a decode
 * error throws a `PexeError` (kind 'decode') whose `listing` holds the lines
 * up to the record at fault.
 *
 * It runs in functionWat's printer module, loaded the first time it is
 * needed (see `functionWat`; `loadWatPrinter()` loads it ahead).
 */
export function disassemble(bytes: BytesLike, options?: DisassembleOptions): string;

// ---------------------------------------------------------------- translate

export interface TranslateOptions {
  /** `'wasm32'` (the default): a WebAssembly module. The streaming API takes only this one. */
  target?: 'wasm32';
  /** Write the name section (function names in traps and fault messages). Default true. */
  names?: boolean;
}

/** The Linux machines `translate` writes ELF objects for. */
export type NativeTarget = 'x86_64-linux' | 'aarch64-linux';

export interface NativeTranslateOptions {
  /** An ELF relocatable object for x86-64 (SSE4.2, POPCNT) or AArch64 (ARMv8.0) Linux. */
  target: NativeTarget;
}

/**
 * Decodes, verifies and translates a pexe to one WebAssembly module
 * following the runtime ABI (threads + legacy exceptions; runs in Node 20
 * and current browsers). Throws a `PexeError` (kind 'decode', 'verify' or
 * 'translate') if the pexe is not valid.
 */
export function translate(bytes: BytesLike, options?: TranslateOptions): Uint8Array;
/**
 * With a native target: the ELF relocatable object `pexe translate
 * --target T` writes (byte for byte), to link with the native runtime
 * archive (`nativeRuntimeArchive`) into a static Linux executable
 * (`nativeLinkCommand`). Throws the same `PexeError`s as for WebAssembly.
 *
 * The native back end (Cranelift) is a WebAssembly module of its own
 * (`pexe_native_bg.wasm`, about 1.1 MB gzipped, four times the translator
 * loaded at import), loaded the first time it is needed: Node reads
 * the file; a browser makes a synchronous request, unless
 * `loadNativeTranslator()` has been awaited before (recommended in pages;
 * a synchronous request of this size on a page's main thread stalls it).
 * It compiles on one thread.
 */
export function translate(bytes: BytesLike, options: NativeTranslateOptions): Uint8Array;

/** Loads the native translator in the background; resolves once `translate` needs no loading for native targets. */
export function loadNativeTranslator(): Promise<void>;

/**
 * The native runtime (the NaCl IRT over Linux system calls, `runtime/` in
 * the repository) as a static archive for `target`, which a native object
 * is linked with: the package's `native/libpexe_runtime-<target>.a`. Node
 * reads it; browsers fetch it next to the package (bundlers do not copy
 * it: serve the package's `native/` folder). Rejects when this build of
 * the package has none for the target.
 */
export function nativeRuntimeArchive(target: NativeTarget): Promise<Uint8Array>;

/** The archive's file name: `libpexe_runtime-<target>.a`. */
export function nativeRuntimeFileName(target: NativeTarget): string;

export interface LinkCommandOptions {
  /** The executable to write (default `'app'`). */
  output?: string;
  /** The object file (default `<output>.o`). */
  object?: string;
  /** The runtime archive (default `nativeRuntimeFileName(target)`). */
  archive?: string;
  /**
   * The C compiler driver. Default: as `pexe build` picks it, `cc` on a
   * machine of the target's architecture (in browsers: x86-64), else
   * Debian's cross compiler (`aarch64-linux-gnu-gcc`, `x86_64-linux-gnu-gcc`).
   */
  cc?: string;
}

/**
 * The one-line shell command that links an object and the runtime
 * archive into a static executable, the one `pexe build` runs:
 * `cc -static -Wl,--gc-sections -o app app.o libpexe_runtime-x86_64-linux.a`.
 * The executable runs the pexe sandboxed; it takes the pexe's arguments,
 * `PEXE_DIRS=dir1:dir2` names the host directories it may use
 * (`pexe build --help`). Pepper plugins translate but do not link.
 */
export function nativeLinkCommand(target: NativeTarget, options?: LinkCommandOptions): string;

// ---------------------------------------------------------------- stats and WAT

export interface RecordStats {
  code: number;
  /** The pnacl-bcanalyzer name (`INST_BINOP`, …), `unknown` for codes PNaCl does not define. */
  name: string;
  count: number;
  bits: number;
  /** Written with an abbreviation (index 4 and up). */
  abbreviated: number;
}

export interface BlockStats {
  blockId: number;
  /** `module`, `function`, … (`unknown` for other ids). */
  name: string;
  count: number;
  /** Bits, nested blocks included. */
  bits: number;
  /** Bits without nested blocks. */
  ownBits: number;
  subblocks: number;
  abbrevDefs: number;
  abbrevDefBits: number;
  records: RecordStats[];
}

export interface FunctionSize {
  /** Which function block (0 = the first in the file). */
  index: number;
  /** Its value id (`@fN`), when a matching declaration exists. */
  func: number | null;
  name: string | null;
  bits: number;
  records: number;
  /** Position of the block's enter record. */
  pos: string;
}

/** `pexe stats` as data: where the bits go, per block kind, record code and function. */
export interface Stats {
  fileBits: number;
  headerBits: number;
  /** Where reading stopped: the end of the module block, or the item that could not be read. */
  end: string;
  blocks: BlockStats[];
  /** Every function block, in file order. */
  functions: FunctionSize[];
  /** The bitstream error that stopped reading, or null. */
  error: Diagnostic | null;
}

/**
 * Bit statistics, up to the first bitstream error (never throws for bad
 * input). Like `disassemble`, in functionWat's printer module.
 */
export function stats(bytes: BytesLike): Stats;

export interface WatOptions {
  /** Value id N of a function with a body (`@fN`); otherwise a PexeError of kind 'options'. */
  function: number;
  /** Use the module's function names (default true). */
  names?: boolean;
}

/**
 * The WebAssembly text of the function translated from `@fN`: the
 * `(func ...)` that `pexe translate --wat` prints for it (without the
 * module's indentation). Throws like `translate` if the pexe does not
 * translate. The last translation is kept, so asking for one function
 * after another of the same pexe costs only the printing.
 *
 * The printer is a WebAssembly module of its own (`pexe_wat_bg.wasm`,
 * about 160 KB gzipped, which also runs `disassemble` and `stats`),
 * loaded the first time one of them is needed: Node reads
 * the file; a browser makes a synchronous request, unless
 * `loadWatPrinter()` has been awaited before (recommended in pages).
 */
export function functionWat(bytes: BytesLike, options: WatOptions): string;

/** Loads functionWat's printer in the background; resolves once functionWat, disassemble and stats need no loading. */
export function loadWatPrinter(): Promise<void>;

// ---------------------------------------------------------------- streaming

export interface Progress {
  /** Bytes fed so far. */
  bytesRead: number;
  /** Function bodies the pexe declares (known once the declarations are read, else null). */
  functionsTotal: number | null;
  functionsDecoded: number;
  /** Always 0 for an Inspector. Translation runs inside `finish()`, which reports it as it goes. */
  functionsTranslated: number;
  /** Verifier problems found so far (a Translator's `finish()` throws if > 0). */
  diagnostics: number;
  /** 'decode' while fed, 'translate' inside finish(), 'done' after it. */
  phase: 'decode' | 'translate' | 'done';
}

export interface StreamOptions {
  /** Called after every `feed` and as `finish` progresses (synchronously, from inside those calls). */
  onProgress?: (progress: Progress) => void;
}

/**
 * Push translator: feed the chunks of a pexe as they arrive (e.g. from a
 * `fetch()` body); bodies are decoded and verified as soon as their bytes
 * are in, so a bad pexe fails before the download ends.
 *
 *   const t = new Translator({ onProgress: (p) => show(p) });
 *   for await (const chunk of response.body) t.feed(chunk);
 *   const wasm = t.finish();
 */
export class Translator {
  constructor(options?: TranslateOptions & StreamOptions);
  /** Throws a PexeError (kind 'decode') as soon as the bytes cannot be a pexe. */
  feed(chunk: BytesLike): Progress;
  /** Translates and returns the module; throws like `translate`. The Translator is spent afterwards. */
  finish(): Uint8Array;
  /** The counters now (also after `finish`). The four getters below are its fields. */
  readonly progress: Progress;
  readonly bytesRead: number;
  readonly functionsDecoded: number;
  readonly functionsTranslated: number;
  readonly functionsTotal: number | null;
  /** Releases its memory at once (otherwise the garbage collector does, eventually). */
  free(): void;
}

/**
 * Push form of `inspect`: `finish()` gives the same summary as
 * `inspect(wholeFile)`, and never throws for bad input. (One difference: a
 * block whose length word points past the end of the file is an error as
 * soon as `inspect` sees it, while a stream reads on until the data runs
 * out, so it may report a later error first.)
 */
export class Inspector {
  constructor(options?: StreamOptions);
  feed(chunk: BytesLike): Progress;
  finish(): ModuleSummary;
  readonly progress: Progress;
  readonly bytesRead: number;
  readonly functionsDecoded: number;
  readonly functionsTranslated: number;
  readonly functionsTotal: number | null;
  free(): void;
}

/** A fetch() Response, its body, or any (async) iterable of chunks. */
export type ChunkSource =
  | Response
  | ReadableStream<Uint8Array>
  | AsyncIterable<BytesLike>
  | Iterable<BytesLike>;

export interface PoolOptions {
  /**
   * Workers to translate function bodies on while the bytes arrive:
   * `'auto'` (the default) starts as many as the hardware has threads
   * (`navigator.hardwareConcurrency`, Node's `os.availableParallelism()`),
   * at most 8; a number asks for that many (at most 8); `0` translates on
   * the calling thread, as a `Translator` does (so does `'auto'` for bytes
   * under 256 KiB handed over whole). Workers exchange messages
   * only (no shared memory), so pages need no cross-origin isolation.
   * Where Workers cannot start, the calling thread translates.
   */
  threads?: number | 'auto';
}

/**
 * Translates a pexe as it arrives: `await translateStreaming(fetch('app.pexe'), { onProgress })`.
 * Function bodies are translated on a pool of Workers as soon as their
 * bytes are in (`threads`); the module is byte for byte the one
 * `translate` makes, and a pexe that does not translate rejects with the
 * same `PexeError`. The source may also be the bytes themselves:
 * `await translateStreaming(bytes, { threads: 2 })` is `translate` on two
 * Workers. The Workers stay a few seconds for the next translation, then
 * end (they never keep Node running).
 *
 * Progress: `functionsDecoded` and `functionsTranslated` count the bodies
 * back from the Workers (both the same).
 */
export function translateStreaming(
  source: ChunkSource | BytesLike | Promise<Response>,
  options?: TranslateOptions & StreamOptions & PoolOptions,
): Promise<Uint8Array>;

/** The same for an Inspector. */
export function inspectStreaming(
  source: ChunkSource | Promise<Response>,
  options?: StreamOptions,
): Promise<ModuleSummary>;

// ---------------------------------------------------------------- run

/** Where output goes: a function receiving chunks (copies), `'inherit'` (Node: the host's fd), or null (discard). */
export type OutputSink = ((chunk: Uint8Array) => void) | 'inherit' | null;

export interface RunOptions {
  /** argv; `args[0]` is the program name. Default `['pexe']`. */
  args?: string[];
  /** Environment: `{ NAME: value }` or `['NAME=value']`. Default empty. */
  env?: Record<string, string> | string[];
  /** In-memory files: `{ '/path': bytes or text }`. */
  files?: Record<string, Uint8Array | string>;
  /** All of stdin (then EOF), a function returning the next chunk (null at EOF), or `'inherit'` (Node: fd 0). Default empty. */
  stdin?: Uint8Array | string | (() => Uint8Array | string | null) | 'inherit';
  /** Default: `'inherit'` in Node, discarded in browsers. */
  stdout?: OutputSink;
  stderr?: OutputSink;
  /**
   * Instead of `stdout` and `stderr` (give one or the other): both into this
   * ring, in the order the guest writes them, which the embedder reads on
   * another thread (an `OutputRing`, or its `buffer` posted from one).
   */
  output?: OutputRing | SharedArrayBuffer;
  /** Whether stdio hooks report being terminals (newlib then line-buffers stdout). */
  tty?: boolean | [boolean, boolean, boolean];
  /** Node: expose the host file system (true), or these host directories. Default false. */
  hostFs?: boolean | string | string[];
  /** The guest's starting directory. */
  cwd?: string;
  /** Bytes of the main thread's stack (default 8 MiB). */
  stackSize?: number;
  /** true: IRT calls to stderr; or a function receiving the trace lines. */
  trace?: boolean | ((line: string) => void);
  /** false: run on the calling thread (no guest threads). Default: Workers where shared memory allows. */
  threads?: boolean;
  /** false: where Workers cannot share memory, do not run threads one at a time (JSPI); thread_create fails instead. */
  cooperative?: boolean;
  /** Called once when the guest asks for a thread that cannot run here (its thread_create gets EAGAIN), with the reason in words. */
  onThreadRefused?: (reason: string) => void;
}

/**
 * Guest output through shared memory, for `run`'s `output` option: stdout
 * and stderr go into one ring in the order the guest writes them, each
 * write a copy straight from the guest's memory, with no message and no
 * wake-up of the reader per write. The reader takes out what is there
 * when it likes, on another thread than the guest's (a writer waits while
 * the ring is full): a page makes the ring, posts its `buffer` to the
 * Worker that calls `run`, and reads once per animation frame.
 *
 * ```js
 * const ring = new OutputRing();
 * worker.postMessage({ output: ring.buffer });        // run(module, { output }) there
 * for (;;) {
 *   await ring.wait();                               // until the guest writes
 *   await new Promise(requestAnimationFrame);        // what else comes this frame
 *   ring.read((fd, bytes) => show(fd, decoders[fd].decode(bytes, { stream: true })));
 * }
 * ```
 *
 * Needs SharedArrayBuffer: a cross-origin isolated page (or its Workers),
 * or Node.
 */
export class OutputRing {
  /** A ring of `capacity` bytes (default 4 MiB, rounded up to a power of two), or the reading side of a ring's `buffer` made elsewhere. */
  constructor(capacity?: number | SharedArrayBuffer);
  /** What `run`'s `output` takes, and what to post to the thread that calls `run`. */
  readonly buffer: SharedArrayBuffer;
  /** Bytes it holds at most (a longer write goes in as it is read). */
  readonly capacity: number;
  /**
   * Takes out everything written so far: `deliver(fd, bytes)` for each run
   * of one stream, in the order written (`bytes` is the caller's to keep).
   * Returns how many bytes that was. A write being made at this moment
   * comes at the next read; once the run has settled or its Worker was
   * terminated, `{ ended: true }` takes all that was written (a writer may
   * have been stopped in the middle of a write).
   */
  read(deliver: (fd: 1 | 2, bytes: Uint8Array) => void, options?: { ended?: boolean }): number;
  /** Resolves true once there is something to read (at once if there is), false after `timeoutMs`. */
  wait(timeoutMs?: number): Promise<boolean>;
}

export interface RunResult {
  /** The guest's exit status; 134 after a guest fault. */
  exitCode: number;
  /** `"guest fault: <message> in function <name>"` when the guest trapped. */
  fault?: string;
}

/**
 * Runs a program: a pexe (translated first), the bytes of a module
 * `translate` made, or a compiled `WebAssembly.Module` of one. Resolves
 * when the guest exits; a guest trap resolves with exit code 134 and
 * `fault`, never taking the host down. Rejects with a PexeError if the
 * pexe does not translate.
 */
export function run(program: BytesLike | WebAssembly.Module, options?: RunOptions): Promise<RunResult>;

/** `run` for pages: the guest's main thread always runs in a Worker (needs a cross-origin-isolated page). */
export function runInWorker(program: BytesLike | WebAssembly.Module, options?: RunOptions): Promise<RunResult>;

// ---------------------------------------------------------------- embed (pages)

/** Options of `embed()`; the same names as the polyfill's `window.PexeConfig`. */
export interface EmbedOptions {
  /**
   * The plugin: a manifest (.nmf) URL, as Chrome's `<embed src>` took; or,
   * beyond Chrome, the URL of a .pexe or its bytes, run without a
   * manifest. Optional only when `element` is a NaCl element with its own src.
   */
  src?: string | URL | Blob | BytesLike;
  /** More DidCreate arguments (argn/argv), after the element's attributes. */
  attributes?: Record<string, string> | Array<[string, string]>;
  /** Size of the `<embed>` embed() creates in `element` (default '100%' each). */
  width?: number | string;
  height?: number | string;
  /** URL prefix → replacement, for every URL the plugin and its element fetch (longest prefix wins). */
  urlMap?: Record<string, string>;
  /** Console output: Chrome's "NativeClient: …" lines at 'info' (default), explanations at 'warn'/'debug'. */
  logLevel?: 'none' | 'error' | 'warn' | 'info' | 'debug';
  /** Without cross-origin isolation, run the plugin's threads one at a time (JSPI). Default true. */
  cooperativeThreads?: boolean;
  /** Keep translations in IndexedDB, keyed by the pexe's SHA-256 and the translator build. Default true. */
  cache?: boolean;
  /** Draw the loading, error and crash panels over the element. Default true. */
  ui?: boolean;
  /**
   * Where the page's file systems (PPB_FileSystem's TEMPORARY and
   * PERSISTENT, shared by every plugin of the page) live: 'auto' (default:
   * OPFS, else IndexedDB, else memory). For the polyfill, the page's legacy
   * `webkitRequestFileSystem` API is put over the same store; `false`
   * leaves the browser's own API alone.
   */
  fileSystem?: 'auto' | 'opfs' | 'idb' | 'memory' | false;
  /**
   * A socket relay (`ws://…` or `wss://…`; docs/relay.md, `pexe relay`)
   * through which plugins' TCPSocket, UDPSocket and HostResolver reach the
   * network. Default null: every socket operation is PP_ERROR_NOACCESS, as
   * Chrome answered pages.
   */
  socketRelay?: string | null;
  /**
   * Every line the plugin's element would log, whatever `logLevel`: the
   * plugin's PPB_Console messages, Chrome's "NativeClient: …" lines, the
   * interfaces it was refused, its stdout/stderr (level 'debug').
   */
  onLog?: (level: 'error' | 'warn' | 'info' | 'debug', text: string) => void;
  /** Only meaningful for the polyfill (window.PexeConfig): see js/README.md. */
  serviceWorker?: boolean | string | { url?: string; scope?: string; coep?: 'credentialless' | 'require-corp' };
}

/** The events a plugin element fires, as Chrome's NaCl plugin did (none bubbles). */
export interface PexePluginEventMap {
  loadstart: ProgressEvent;
  /** While loading; `url` (the pexe's) on those about its bytes. */
  progress: ProgressEvent & { readonly url?: string };
  load: ProgressEvent & { readonly url?: string };
  loadend: ProgressEvent & { readonly url?: string };
  error: ProgressEvent;
  abort: ProgressEvent;
  /** After load: the module exited (`exitStatus`) or faulted. */
  crash: ProgressEvent;
  /** Plugin → page: `data` is a string, number, boolean, null, undefined, ArrayBuffer, array or plain object. */
  message: MessageEvent;
}

/** A running plugin: what `embed()` returns. Its events are dispatched on `element`. */
export class PexePlugin {
  /** The `<embed>`/`<object>` the plugin runs in. */
  readonly element: HTMLElement;
  /** Resolves at `load`; rejects with `Error(lastError)` at `error`/`abort`. */
  readonly ready: Promise<PexePlugin>;
  /** undefined (no manifest asked for yet), 1 (opened), 3 (loading), 4 (done). */
  readonly readyState: 1 | 3 | 4 | undefined;
  /** "", "NaCl module load failed: …" or "NaCl module crashed". */
  readonly lastError: string;
  /** -1, or the status the module exited with. */
  readonly exitStatus: number;
  /** Page → plugin (converted at once as Chrome did; queued until the plugin has loaded). */
  postMessage(message: unknown): void;
  /** The plugin's synchronous answer (PPB_Messaging 1.2 handlers; cross-origin isolated pages only); throws Chrome's exceptions. */
  postMessageAndAwaitResponse(message: unknown): unknown;
  addEventListener<K extends keyof PexePluginEventMap>(type: K, listener: (event: PexePluginEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof PexePluginEventMap>(type: K, listener: (event: PexePluginEventMap[K]) => void, options?: boolean | EventListenerOptions): void;
  /** Ends the instance and starts a new one (a new `ready`). */
  restart(): void;
  /** Ends the instance; removes the element if embed() created it. */
  destroy(): void;
}

/**
 * Runs a Pepper plugin in the page: in `element` itself when it is an
 * `<embed>`/`<object type="application/x-pnacl">`, else in an `<embed>`
 * created inside it. The load follows Chrome's (events, readyState,
 * lastError); the translation runs in a Worker and is cached. Browsers
 * only; throws a TypeError for unknown options.
 *
 *   const plugin = embed(box, { src: 'app.nmf' });
 *   plugin.addEventListener('message', (e) => console.log(e.data));
 *   await plugin.ready;
 *   plugin.postMessage('hello');
 */
export function embed(element: HTMLElement, options?: EmbedOptions): PexePlugin;

/** The runtime refused a module that does not follow the pexe runtime ABI. */
export class AbiMismatch extends Error {}

/** The package version, and the PNaCl bitcode version it reads. */
export const version: string;
export const pnaclVersion: 2;
