// The runtime ABI as data: what a translated pexe imports and exports.
//
// The function lists come from abi.gen.js, generated from the one list of
// the ABI (src/abi/irt.h, src/abi/ppapi.h; tests/abi.rs fails when the
// generated copy drifts). Every pexe imports `env.memory`, `env.fault`,
// `env.fmod_f64` and then the 52 IRT functions, always in this order, so
// the table address of IRT function k is 1 + k (address 1 is the
// AT_SYSINFO value: `query`). A Pepper plugin also imports every PPB
// function (`ppapi.<key>`), at table addresses 53 + k.
//
// Each IRT entry: { index, name, args, result }. Argument kinds say how a
// trace prints them and give the wasm type (`l` is i64, all others i32):
// i int, x hex int, o octal mode, f fd, p pointer, s C string, l i64.
// Result kinds: e errno (0 = success), b bytes written (query), p pointer
// (tls_get), n none.

import {
  IRT_FUNCTIONS as GEN_IRT,
  IRT_INTERFACES as GEN_IRT_INTERFACES,
  PPB_FUNCTIONS,
  PPB_INTERFACES,
  PPP_FUNCTIONS,
  PPP_INTERFACES,
  PPB_AVAILABILITY,
  PPAPI_HOOK,
} from './abi.gen.js';

export { PPB_FUNCTIONS, PPB_INTERFACES, PPP_FUNCTIONS, PPP_INTERFACES, PPB_AVAILABILITY, PPAPI_HOOK };

export const IRT_FUNCTIONS = Object.freeze(
  GEN_IRT.map((f) => Object.freeze({ index: f.index, name: f.name, args: f.trace, result: f.result, decl: f.decl })),
);

/** IRT function name → its entry. */
export const IRT_BY_NAME = Object.freeze(
  Object.fromEntries(IRT_FUNCTIONS.map((f) => [f.name, f])),
);

/** The table address of IRT function `index` (element 1 + k). */
export function irtAddress(index) {
  return 1 + index;
}

/** PPB function key → its import index. */
export const PPB_INDEX = new Map(PPB_FUNCTIONS.map((f) => [f.key, f.index]));

/** The table address of PPB function `index` (after the IRT's). */
export function ppbAddress(index) {
  return 1 + IRT_FUNCTIONS.length + index;
}

/** [first, last] IRT indices of a list of consecutive function names. */
function range(name, names) {
  const first = IRT_BY_NAME[names[0]].index;
  names.forEach((n, i) => {
    if (IRT_BY_NAME[n].index !== first + i) throw new Error(`abi.gen.js: ${name} is not a contiguous run of imports`);
  });
  return Object.freeze([first, first + names.length - 1]);
}

const ranges = Object.fromEntries(Object.entries(GEN_IRT_INTERFACES).map(([name, fns]) => [name, range(name, fns)]));

/**
 * Interfaces `query` answers: name → [first, last] IRT index (inclusive).
 * The table a caller passes must hold 4 bytes per slot.
 */
export const IRT_INTERFACES = Object.freeze(
  Object.fromEntries(Object.entries(ranges).filter(([name]) => name !== PPAPI_HOOK)),
);

/** Answered only to Pepper plugins. */
export const PEPPER_INTERFACES = Object.freeze({ [PPAPI_HOOK]: ranges[PPAPI_HOOK] });

/**
 * IRT functions whose state is process-wide (file descriptors, the file
 * system, the page allocator, the thread list). They run on the host
 * thread; guest threads in Workers reach them through a synchronous call.
 */
export const HOST_CALLS = Object.freeze(
  new Set([
    ...GEN_IRT_INTERFACES['nacl-irt-dev-fdio-0.3'],
    ...GEN_IRT_INTERFACES['nacl-irt-dev-filename-0.3'],
    ...GEN_IRT_INTERFACES['nacl-irt-memory-0.3'],
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

/** The imports of a Pepper plugin: the above, then every PPB function. */
export const EXPECTED_PEPPER_IMPORTS = Object.freeze([
  ...EXPECTED_IMPORTS,
  ...PPB_FUNCTIONS.map((f) => ['ppapi', f.key, 'function']),
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

/**
 * A `ppapi` import object whose every function is `fn` (imports the
 * module links against but that nothing may call yet).
 */
export function uniformPpapiImports(fn) {
  return Object.fromEntries(PPB_FUNCTIONS.map((f) => [f.key, fn]));
}

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
 * the first difference. Returns `{ pepper }`: whether the module is a
 * Pepper plugin (imports the PPB functions).
 */
export function checkModule(module) {
  const imports = WebAssembly.Module.imports(module);
  const pepper = imports.length > EXPECTED_IMPORTS.length;
  const expected = pepper ? EXPECTED_PEPPER_IMPORTS : EXPECTED_IMPORTS;
  if (imports.length !== expected.length) {
    throw new AbiMismatch(
      `the module has ${imports.length} imports; the runtime ABI has ${EXPECTED_IMPORTS.length} (${EXPECTED_PEPPER_IMPORTS.length} for a Pepper plugin)`,
    );
  }
  imports.forEach((imp, i) => {
    const [module, name, kind] = expected[i];
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
  return { pepper };
}
