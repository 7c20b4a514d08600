// A small wasm encoder for the runtime's tests: builds modules that follow
// the runtime ABI (abi.md) the way the back end's output does, with bodies
// written as opcode bytes. Only what the tests need.

import { IRT_FUNCTIONS } from '../../src/internal/runtime/abi.js';
import { SINGLE_THREADED_SECTION } from '../../src/internal/runtime/module-info.js';

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F32 = 0x7d;
export const F64 = 0x7c;

export function uleb(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

export function sleb(n) {
  const out = [];
  let v = BigInt(n);
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const str = (s) => {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
};
const vec = (items) => [...uleb(items.length), ...items.flat()];
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];

/** Opcodes as helpers: each returns an array of bytes. */
export const op = {
  unreachable: () => [0x00],
  nop: () => [0x01],
  block: () => [0x02, 0x40],
  loop: () => [0x03, 0x40],
  if: () => [0x04, 0x40],
  else: () => [0x05],
  end: () => [0x0b],
  br: (l) => [0x0c, ...uleb(l)],
  br_if: (l) => [0x0d, ...uleb(l)],
  return: () => [0x0f],
  call: (f) => [0x10, ...uleb(f)],
  call_indirect: (type) => [0x11, ...uleb(type), 0x00],
  drop: () => [0x1a],
  local_get: (i) => [0x20, ...uleb(i)],
  local_set: (i) => [0x21, ...uleb(i)],
  local_tee: (i) => [0x22, ...uleb(i)],
  global_get: (i) => [0x23, ...uleb(i)],
  global_set: (i) => [0x24, ...uleb(i)],
  i32_load: (offset = 0) => [0x28, 2, ...uleb(offset)],
  i32_load8_u: (offset = 0) => [0x2d, 0, ...uleb(offset)],
  i32_store: (offset = 0) => [0x36, 2, ...uleb(offset)],
  i32_store8: (offset = 0) => [0x3a, 0, ...uleb(offset)],
  i32_const: (n) => [0x41, ...sleb(n | 0)],
  i64_const: (n) => [0x42, ...sleb(n)],
  i32_eqz: () => [0x45],
  i32_eq: () => [0x46],
  i32_ne: () => [0x47],
  i32_add: () => [0x6a],
  i32_sub: () => [0x6b],
  i32_div_s: () => [0x6d],
  i32_rem_u: () => [0x70],
  i32_shl: () => [0x74],
  f32_reinterpret_i32: () => [0xbe],
  i32_atomic_load: (offset = 0) => [0xfe, 0x10, 2, ...uleb(offset)],
  i32_atomic_store: (offset = 0) => [0xfe, 0x17, 2, ...uleb(offset)],
  memory_init: (seg) => [0xfc, 0x08, ...uleb(seg), 0x00],
  data_drop: (seg) => [0xfc, 0x09, ...uleb(seg)],
};

/** Function index of IRT import `name` (env.fault is 0, env.fmod_f64 is 1). */
export function irt(name) {
  const k = IRT_FUNCTIONS.findIndex((f) => f.name === name);
  if (k < 0) throw new Error(`no IRT function ${name}`);
  return 2 + k;
}

/** Call an IRT function by name. */
export const callIrt = (name) => op.call(irt(name));

/** Index of the first defined function (after the 54 imported ones). */
export const FIRST_FUNC = 2 + IRT_FUNCTIONS.length;

/** Global indices. */
export const G = { stackPointer: 0, stackLimit: 1, tp: 2, heapBase: 3 };

/**
 * Builds an ABI module. `funcs`: [{ name, params: [types], results: [types],
 * locals: [types], body: bytes }] — function i gets index FIRST_FUNC + i and
 * table address 53 + i. `data`: [{ at, bytes }] passive segments written by
 * __pexe_init_data. `start` names the function exported as `_start`,
 * `threadStart` the `__pexe_thread_start` one (default: a function that
 * calls the table entry given).
 */
export function abiModule({ funcs, data = [], heapBase = 0x20000, minPages = 17, start = '_start', singleThreaded = false }) {
  const types = [];
  const typeIndex = (params, results) => {
    const key = `${params.join(',')}:${results.join(',')}`;
    let i = types.findIndex((t) => t.key === key);
    if (i < 0) {
      types.push({ key, params, results });
      i = types.length - 1;
    }
    return i;
  };
  // Imports.
  const imports = [];
  imports.push([...str('env'), ...str('memory'), 0x02, 0x03, ...uleb(minPages), ...uleb(65536)]);
  imports.push([...str('env'), ...str('fault'), 0x00, ...uleb(typeIndex([I32, I32], []))]);
  imports.push([...str('env'), ...str('fmod_f64'), 0x00, ...uleb(typeIndex([F64, F64], [F64]))]);
  for (const f of IRT_FUNCTIONS) {
    const params = [...f.args].map((k) => (k === 'l' ? I64 : I32));
    const results = f.result === 'n' ? [] : [I32];
    imports.push([...str('irt'), ...str(f.name), 0x00, ...uleb(typeIndex(params, results))]);
  }
  // Built-in functions: __pexe_init_data and __pexe_thread_start.
  const initBody = [];
  data.forEach((seg, i) => {
    initBody.push(...op.i32_const(seg.at), ...op.i32_const(0), ...op.i32_const(seg.bytes.length));
    initBody.push(...op.memory_init(i), ...op.data_drop(i));
  });
  const voidType = typeIndex([], []);
  const all = [
    ...funcs,
    { name: '__pexe_init_data', params: [], results: [], body: initBody },
    {
      name: '__pexe_thread_start',
      params: [I32],
      results: [],
      body: [...op.local_get(0), ...op.call_indirect(voidType)],
    },
  ];
  const funcTypes = all.map((f) => typeIndex(f.params ?? [], f.results ?? []));
  const codes = all.map((f) => {
    const locals = (f.locals ?? []).map((t) => [1, t]);
    const body = [...vec(locals), ...f.body, 0x0b];
    return [...uleb(body.length), ...body];
  });
  const indexOf = (name) => {
    const i = all.findIndex((f) => f.name === name);
    if (i < 0) throw new Error(`no function ${name}`);
    return FIRST_FUNC + i;
  };
  const tableSize = 1 + IRT_FUNCTIONS.length + funcs.length;
  const exports = [
    [...str('_start'), 0x00, ...uleb(indexOf(start))],
    [...str('__pexe_init_data'), 0x00, ...uleb(indexOf('__pexe_init_data'))],
    [...str('__pexe_thread_start'), 0x00, ...uleb(indexOf('__pexe_thread_start'))],
    [...str('table'), 0x01, 0x00],
    [...str('__stack_pointer'), 0x03, ...uleb(G.stackPointer)],
    [...str('__stack_limit'), 0x03, ...uleb(G.stackLimit)],
    [...str('__tp'), 0x03, ...uleb(G.tp)],
    [...str('__heap_base'), 0x03, ...uleb(G.heapBase)],
  ];
  const globals = [
    [I32, 1, ...op.i32_const(0), 0x0b],
    [I32, 1, ...op.i32_const(0), 0x0b],
    [I32, 1, ...op.i32_const(0), 0x0b],
    [I32, 0, ...op.i32_const(heapBase), 0x0b],
  ];
  // Elements: table[1 + k] = IRT import k; table[53 + i] = funcs[i].
  const elemFuncs = [
    ...IRT_FUNCTIONS.map((_, k) => 2 + k),
    ...funcs.map((_, i) => FIRST_FUNC + i),
  ];
  const elem = [0x00, ...op.i32_const(1), 0x0b, ...vec(elemFuncs.map((f) => uleb(f)))];
  const nameMap = vec(all.map((f, i) => [...uleb(FIRST_FUNC + i), ...str(f.name)]));
  const names = [...str('name'), 0x01, ...uleb(nameMap.length), ...nameMap];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    // The translator's mark of a module that never starts a thread.
    ...(singleThreaded ? section(0, str(SINGLE_THREADED_SECTION)) : []),
    ...section(1, vec(types.map((t) => [0x60, ...vec(t.params.map((p) => [p])), ...vec(t.results.map((r) => [r]))]))),
    ...section(2, vec(imports)),
    ...section(3, vec(funcTypes.map((t) => uleb(t)))),
    ...section(4, vec([[0x70, 0x00, ...uleb(tableSize)]])),
    ...section(6, vec(globals)),
    ...section(7, vec(exports)),
    ...section(9, vec([elem])),
    ...section(12, uleb(data.length)),
    ...section(10, vec(codes)),
    ...section(11, vec(data.map((seg) => [0x01, ...vec([...seg.bytes].map((b) => [b]))]))),
    ...section(0, names),
  ];
  return new Uint8Array(bytes);
}

/** A data segment holding a string (no NUL). */
export function text(at, s) {
  return { at, bytes: new TextEncoder().encode(s) };
}
