// Facts about a module that the JS API does not reflect: the limits of the
// imported memory (needed to create it before instantiation) and the result
// type of `_start` (a returning `_start` exits with its value read as i32,
// and an f32 result must be read as its bits). Read from the binary: the
// type, import, function and export sections only.

const SECTION = { custom: 0, type: 1, import: 2, function: 3, export: 7 };
/**
 * The custom section the translator puts first in a module that can never
 * start a guest thread (src/back/wasm/mod.rs SINGLE_THREADED_SECTION).
 */
export const SINGLE_THREADED_SECTION = 'pexe.single-threaded';
const VALTYPE = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128', 0x70: 'funcref', 0x6f: 'externref' };
/** One decoder for every name: each new TextDecoder costs Node some 10 µs, and a plugin's module has ~1500 names. */
const UTF8 = new TextDecoder();

class Reader {
  constructor(bytes, pos = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }

  byte() {
    if (this.pos >= this.end) throw new Error('unexpected end of the module');
    return this.bytes[this.pos++];
  }

  u32() {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error('bad LEB128 in the module');
  }

  name() {
    const len = this.u32();
    if (this.pos + len > this.end) throw new Error('unexpected end of the module');
    const s = UTF8.decode(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }

  limits() {
    const flags = this.byte();
    const min = this.u32();
    const max = flags & 1 ? this.u32() : undefined;
    return { min, max, shared: (flags & 2) !== 0 };
  }
}

/**
 * Reads `{ memory: {min, max, shared} | null, startResults: string[] | null,
 * pepper, singleThreaded }` from wasm bytes (`pepper`: it imports the PPB
 * functions, so it is a Pepper plugin; `singleThreaded`: the translator
 * marked it as never starting a guest thread). Throws on a malformed binary.
 */
export function moduleInfo(bytes) {
  bytes = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error('not a WebAssembly module');
  }
  const r = new Reader(bytes, 8);
  const types = [];
  const funcTypes = [];
  let memory = null;
  let startFunc = null;
  let pepper = false;
  let singleThreaded = false;
  while (r.pos < r.end) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > r.end) throw new Error('section runs past the end of the module');
    const s = new Reader(bytes, r.pos, end);
    if (id === SECTION.custom) {
      if (s.name() === SINGLE_THREADED_SECTION) singleThreaded = true;
    } else if (id === SECTION.type) {
      for (let n = s.u32(); n > 0; n--) {
        if (s.byte() !== 0x60) throw new Error('unsupported type form');
        const params = [];
        for (let k = s.u32(); k > 0; k--) params.push(VALTYPE[s.byte()] ?? '?');
        const results = [];
        for (let k = s.u32(); k > 0; k--) results.push(VALTYPE[s.byte()] ?? '?');
        types.push({ params, results });
      }
    } else if (id === SECTION.import) {
      for (let n = s.u32(); n > 0; n--) {
        if (s.name() === 'ppapi') pepper = true;
        s.name();
        const kind = s.byte();
        if (kind === 0) funcTypes.push(s.u32());
        else if (kind === 1) {
          s.byte();
          s.limits();
        } else if (kind === 2) memory = s.limits();
        else if (kind === 3) {
          s.byte();
          s.byte();
        } else if (kind === 4) {
          s.byte();
          s.u32();
        } else throw new Error(`unknown import kind ${kind}`);
      }
    } else if (id === SECTION.function) {
      for (let n = s.u32(); n > 0; n--) funcTypes.push(s.u32());
    } else if (id === SECTION.export) {
      for (let n = s.u32(); n > 0; n--) {
        const name = s.name();
        const kind = s.byte();
        const index = s.u32();
        if (kind === 0 && name === '_start') startFunc = index;
      }
    }
    r.pos = end;
  }
  const startType = startFunc === null ? undefined : types[funcTypes[startFunc]];
  return { memory, startResults: startType ? startType.results : null, pepper, singleThreaded };
}

/**
 * The exit status of a `_start` that returned `value`: the value read as
 * an i32 (the low 32 bits of its bit pattern), 0 for no value.
 * `results` is `_start`'s result types when known (from `moduleInfo`).
 */
export function startReturnStatus(value, results) {
  if (value === undefined) return 0;
  const type = results?.[0];
  if (typeof value === 'bigint') return Number(BigInt.asIntN(32, value));
  if (type === 'f32') return new Int32Array(new Float32Array([value]).buffer)[0];
  if (type === 'f64') return new Int32Array(new Float64Array([value]).buffer)[0];
  if (type === 'i32' || (Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 32)) {
    return value | 0;
  }
  // Unknown type, not an integer: a float. Read it as f32 bits.
  return new Int32Array(new Float32Array([value]).buffer)[0];
}
