// The runtime ABI as data: what a translated pexe imports and exports.
//
// abi.md ("Imports", "Entry points") is the contract; this file is its JS
// side. Every pexe imports `env.memory`, `env.fault`, `env.fmod_f64` and then
// the 52 IRT functions below, always in this order, so the table address of
// IRT function k is 1 + k (address 1 is the AT_SYSINFO value: `query`).
//
// Each IRT entry: [name, argument kinds, result kind]. Argument kinds say
// how a trace prints them and give the wasm type (`l` is i64, all others
// i32): i int, x hex int, o octal mode, f fd, p pointer, s C string, l i64.
// Result kinds: e errno (0 = success), b bytes written (query), p pointer
// (tls_get), n none.

export const IRT_FUNCTIONS = Object.freeze([
  ['query', 'spi', 'b'],
  ['exit', 'i', 'n'],
  ['gettod', 'p', 'e'],
  ['clock', 'p', 'e'],
  ['nanosleep', 'pp', 'e'],
  ['sched_yield', '', 'e'],
  ['sysconf', 'ip', 'e'],
  ['close', 'f', 'e'],
  ['dup', 'fp', 'e'],
  ['dup2', 'ff', 'e'],
  ['read', 'fpip', 'e'],
  ['write', 'fpip', 'e'],
  ['seek', 'flip', 'e'],
  ['fstat', 'fp', 'e'],
  ['getdents', 'fpip', 'e'],
  ['fchdir', 'f', 'e'],
  ['fchmod', 'fo', 'e'],
  ['fsync', 'f', 'e'],
  ['fdatasync', 'f', 'e'],
  ['ftruncate', 'fl', 'e'],
  ['isatty', 'fp', 'e'],
  ['open', 'sxop', 'e'],
  ['stat', 'sp', 'e'],
  ['mkdir', 'so', 'e'],
  ['rmdir', 's', 'e'],
  ['chdir', 's', 'e'],
  ['getcwd', 'pi', 'e'],
  ['unlink', 's', 'e'],
  ['truncate', 'sl', 'e'],
  ['lstat', 'sp', 'e'],
  ['link', 'ss', 'e'],
  ['rename', 'ss', 'e'],
  ['symlink', 'ss', 'e'],
  ['chmod', 'so', 'e'],
  ['access', 'si', 'e'],
  ['readlink', 'spip', 'e'],
  ['utimes', 'sp', 'e'],
  ['mmap', 'pixxil', 'e'],
  ['munmap', 'pi', 'e'],
  ['mprotect', 'pix', 'e'],
  ['tls_init', 'p', 'e'],
  ['tls_get', '', 'p'],
  ['thread_create', 'ppp', 'e'],
  ['thread_exit', 'p', 'n'],
  ['thread_nice', 'i', 'e'],
  ['futex_wait_abs', 'pip', 'e'],
  ['futex_wake', 'pip', 'e'],
  ['clock_getres', 'ip', 'e'],
  ['clock_gettime', 'ip', 'e'],
  ['get_random_bytes', 'pip', 'e'],
  ['ppapi_start', 'p', 'e'],
  ['ppapi_register_thread_creator', 'p', 'n'],
].map(([name, args, result], index) => Object.freeze({ index, name, args, result })));

/** IRT function name → its entry. */
export const IRT_BY_NAME = Object.freeze(
  Object.fromEntries(IRT_FUNCTIONS.map((f) => [f.name, f])),
);

/** The table address of IRT function `index` (abi.md: element 1 + k). */
export function irtAddress(index) {
  return 1 + index;
}

/**
 * Interfaces `query` answers: name → [first, last] IRT index (inclusive).
 * The table a caller passes must hold 4 bytes per slot.
 */
export const IRT_INTERFACES = Object.freeze({
  'nacl-irt-basic-0.1': [1, 6],
  'nacl-irt-fdio-0.1': [7, 14],
  'nacl-irt-dev-fdio-0.1': [7, 14],
  'nacl-irt-dev-fdio-0.3': [7, 20],
  'nacl-irt-dev-filename-0.3': [21, 36],
  'nacl-irt-memory-0.3': [37, 39],
  'nacl-irt-tls-0.1': [40, 41],
  'nacl-irt-thread-0.1': [42, 44],
  'nacl-irt-futex-0.1': [45, 46],
  'nacl-irt-clock_get-0.1': [47, 48],
  'nacl-irt-random-0.1': [49, 49],
});

/** Answered only when the embedder provides Pepper (never, so far). */
export const PEPPER_INTERFACES = Object.freeze({
  'nacl-irt-ppapihook-0.1': [50, 51],
});

/**
 * IRT functions whose state is process-wide (file descriptors, the file
 * system, the page allocator, the thread list). They run on the host
 * thread; guest threads in Workers reach them through a synchronous call.
 */
export const HOST_CALLS = Object.freeze(
  new Set([
    ...IRT_FUNCTIONS.slice(7, 40).map((f) => f.name),
    'thread_create',
  ]),
);

/** The imports every module must have, in order: [module, name, kind]. */
export const EXPECTED_IMPORTS = Object.freeze([
  ['env', 'memory', 'memory'],
  ['env', 'fault', 'function'],
  ['env', 'fmod_f64', 'function'],
  ...IRT_FUNCTIONS.map((f) => ['irt', f.name, 'function']),
]);

/** Exports the runtime uses: [name, kind, required]. */
export const EXPECTED_EXPORTS = Object.freeze([
  ['_start', 'function', true],
  ['__pexe_thread_start', 'function', true],
  ['__pexe_init_data', 'function', true],
  ['table', 'table', true],
  ['__heap_base', 'global', true],
  ['__stack_pointer', 'global', true],
  ['__stack_limit', 'global', true],
  ['__tp', 'global', true],
  ['__pexe_longjmp_tag', 'tag', false],
]);

/** A module that does not follow the runtime ABI. */
export class AbiMismatch extends Error {
  constructor(message) {
    super(message);
    this.name = 'AbiMismatch';
  }
}

/**
 * Checks a module's imports and exports against the ABI (with
 * `WebAssembly.Module.imports` / `exports`); throws `AbiMismatch` naming
 * the first difference.
 */
export function checkModule(module) {
  const imports = WebAssembly.Module.imports(module);
  if (imports.length !== EXPECTED_IMPORTS.length) {
    throw new AbiMismatch(
      `the module has ${imports.length} imports; the runtime ABI has ${EXPECTED_IMPORTS.length}`,
    );
  }
  imports.forEach((imp, i) => {
    const [module, name, kind] = EXPECTED_IMPORTS[i];
    if (imp.module !== module || imp.name !== name || imp.kind !== kind) {
      throw new AbiMismatch(
        `import ${i} is ${imp.module}.${imp.name} (${imp.kind}); the runtime ABI expects ${module}.${name} (${kind})`,
      );
    }
  });
  const exports = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
  for (const [name, kind, required] of EXPECTED_EXPORTS) {
    const got = exports.get(name);
    if (got === undefined) {
      if (required) throw new AbiMismatch(`the module does not export ${name}`);
    } else if (got !== kind) {
      throw new AbiMismatch(`export ${name} is a ${got}; the runtime ABI expects a ${kind}`);
    }
  }
}
