// PP_Var: the values a plugin and its page exchange, and their reference
// counts. The browser side owns every var; the plugin holds ids.
//
// A var in guest memory is a 16-byte struct PP_Var (defs.js PP_VAR): its
// type, and in `value` a bool, an int32, a double, or — for strings,
// arrays, dictionaries, array buffers and resources — the 64-bit id of an
// entry here. Entries are reference counted exactly as Chrome's
// VarTracker does: created with one reference for the caller, AddRef and
// Release from the plugin, containers hold a reference to each element,
// and an entry is destroyed (its guest memory freed) at zero.
//
// Where the bytes live: a string keeps its UTF-8 here and copies it into
// guest memory the first time VarToUtf8 asks (the pointer stays valid while
// the var lives); an array buffer lives in guest memory from the start, so
// VarArrayBuffer.Map can return a pointer the plugin writes through.
//
// JS ⇄ var conversion follows content/renderer/pepper/v8_var_converter.cc
// (pepper-facts.md §8): int32 numbers become INT32, other numbers DOUBLE,
// ArrayBuffer (and views, by their bytes) ARRAY_BUFFER, arrays ARRAY, other
// objects DICTIONARY from their own enumerable keys; cycles fail.

import { fromUtf8, utf8 } from '../runtime/memory.js';
import { PP_VAR, REFCOUNTED_VARS, VAR } from './defs.js';

/** Conversion failed (a cycle, an unsupported value, no memory). */
export class VarConversionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'VarConversionError';
  }
}

const UNDEFINED = Object.freeze({ type: VAR.UNDEFINED, value: 0 });
const NULL = Object.freeze({ type: VAR.NULL, value: 0 });

/** A var value: `{ type, value }` (value: bool/int/double, or an entry id). */
export function makeVar(type, value = 0) {
  return { type, value };
}

export const Vars = Object.freeze({ UNDEFINED, NULL });

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 decoding; null when `bytes` is not valid UTF-8. */
export function decodeUtf8Strict(bytes) {
  try {
    return utf8Decoder.decode(bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice());
  } catch {
    return null;
  }
}

export class VarStore {
  /**
   * @param {object} o
   * @param {import('../runtime/memory.js').GuestMemory} o.mem
   * @param {import('./heap.js').GuestHeap} o.heap
   * @param {(id: number) => void} [o.onResourceRelease] a RESOURCE var's last reference dropped
   */
  constructor({ mem, heap, onResourceRelease, onResourceAddRef }) {
    this.mem = mem;
    this.heap = heap;
    this.onResourceRelease = onResourceRelease ?? (() => {});
    this.onResourceAddRef = onResourceAddRef ?? (() => {});
    /** id → { type, refs, ... } */
    this.entries = new Map();
    this.nextId = 1;
  }

  /** Number of live refcounted vars (for leak tests and diagnostics). */
  get size() {
    return this.entries.size;
  }

  // ---------------------------------------------------------- guest memory

  /** The PP_Var at `ptr` (struct copy; no reference taken). */
  read(ptr) {
    this.mem.check(ptr, PP_VAR.SIZE);
    const view = this.mem.view();
    const type = view.getInt32(ptr >>> 0, true);
    const at = (ptr >>> 0) + PP_VAR.value;
    switch (type) {
      case VAR.UNDEFINED:
      case VAR.NULL:
        return makeVar(type);
      case VAR.BOOL:
        return makeVar(type, view.getInt32(at, true) !== 0 ? 1 : 0);
      case VAR.INT32:
        return makeVar(type, view.getInt32(at, true));
      case VAR.DOUBLE:
        return makeVar(type, view.getFloat64(at, true));
      default: {
        if (!REFCOUNTED_VARS.has(type)) return makeVar(VAR.UNDEFINED);
        const id = view.getBigInt64(at, true);
        return makeVar(type, id > 0n && id < 2n ** 53n ? Number(id) : 0);
      }
    }
  }

  /** Stores `v` as a struct PP_Var at `ptr`. */
  write(ptr, v) {
    this.mem.check(ptr, PP_VAR.SIZE);
    const view = this.mem.view();
    const at = (ptr >>> 0) + PP_VAR.value;
    view.setInt32(ptr >>> 0, v.type, true);
    view.setInt32((ptr >>> 0) + 4, 0, true);
    switch (v.type) {
      case VAR.BOOL:
      case VAR.INT32:
        view.setInt32(at, v.value | 0, true);
        view.setInt32(at + 4, 0, true);
        break;
      case VAR.DOUBLE:
        view.setFloat64(at, v.value, true);
        break;
      default:
        view.setBigInt64(at, BigInt(REFCOUNTED_VARS.has(v.type) ? v.value : 0), true);
    }
  }

  // ------------------------------------------------------------- refcounts

  /** The live entry of `v` if it is a refcounted var of `type` (or any). */
  entry(v, type = v.type) {
    if (v.type !== type || !REFCOUNTED_VARS.has(type)) return null;
    const e = this.entries.get(v.value);
    return e && e.type === type ? e : null;
  }

  addRef(v) {
    const e = this.entry(v);
    if (e) e.refs++;
  }

  release(v) {
    const e = this.entry(v);
    if (!e) return;
    if (--e.refs > 0) return;
    this.entries.delete(v.value);
    this.destroy(e);
  }

  destroy(e) {
    switch (e.type) {
      case VAR.STRING:
        if (e.ptr) this.heap.release(e.ptr);
        break;
      case VAR.ARRAY_BUFFER:
        if (e.ptr) this.heap.release(e.ptr);
        break;
      case VAR.ARRAY:
        for (const item of e.items) this.release(item);
        break;
      case VAR.DICTIONARY:
        for (const item of e.map.values()) this.release(item);
        break;
      case VAR.RESOURCE:
        this.onResourceRelease(e.resource);
        break;
      default:
        break;
    }
  }

  add(type, fields) {
    const id = this.nextId++;
    this.entries.set(id, { type, refs: 1, ...fields });
    return makeVar(type, id);
  }

  // ----------------------------------------------------------------- makers

  /** A new string var (one reference) from a JS string. */
  string(str) {
    return this.add(VAR.STRING, { str, bytes: utf8(str), ptr: 0 });
  }

  /** A new string var from UTF-8 bytes; null var when they are not valid UTF-8. */
  stringFromUtf8(bytes) {
    const str = decodeUtf8Strict(bytes);
    if (str === null) return makeVar(VAR.NULL);
    return this.add(VAR.STRING, { str, bytes: bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice(), ptr: 0 });
  }

  /** The JS string of a string var, or null. */
  stringOf(v) {
    return this.entry(v, VAR.STRING)?.str ?? null;
  }

  /**
   * The guest address and length of a string var's UTF-8 (copied into
   * guest memory on first use), or null when `v` is not a string. An empty
   * string still gets a non-null address.
   */
  utf8In(v) {
    const e = this.entry(v, VAR.STRING);
    if (!e) return null;
    if (e.ptr === 0) {
      e.ptr = this.heap.allocBytes(e.bytes, 1);
      if (e.ptr === 0) return null;
    }
    return { ptr: e.ptr, len: e.bytes.length };
  }

  /** A new array buffer var of `length` zero bytes in guest memory, or null. */
  arrayBuffer(length) {
    const ptr = this.heap.alloc(Math.max(1, length));
    if (ptr === 0) return null;
    return this.add(VAR.ARRAY_BUFFER, { ptr, length });
  }

  /** A new array buffer var holding a copy of `bytes`, or null. */
  arrayBufferFrom(bytes) {
    const v = this.arrayBuffer(bytes.length);
    if (v && bytes.length) this.mem.write(this.entries.get(v.value).ptr, bytes);
    return v;
  }

  /** A new empty array var. */
  array() {
    return this.add(VAR.ARRAY, { items: [] });
  }

  /** A new empty dictionary var. */
  dictionary() {
    return this.add(VAR.DICTIONARY, { map: new Map() });
  }

  /** A new var wrapping resource `id` (takes a resource reference). */
  resource(id) {
    this.onResourceAddRef(id);
    return this.add(VAR.RESOURCE, { resource: id });
  }

  // ------------------------------------------------------------ conversion

  /**
   * A new var (one reference) from a JS value, per Chrome's converter.
   * Throws VarConversionError for cycles and values it cannot hold.
   */
  fromJs(value, seen = new Set()) {
    switch (typeof value) {
      case 'undefined':
        return makeVar(VAR.UNDEFINED);
      case 'boolean':
        return makeVar(VAR.BOOL, value ? 1 : 0);
      case 'number':
        return Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff && !Object.is(value, -0)
          ? makeVar(VAR.INT32, value)
          : makeVar(VAR.DOUBLE, value);
      case 'string':
        return this.string(value);
      case 'object':
        break;
      default:
        throw new VarConversionError(`a ${typeof value} cannot be sent to a plugin`);
    }
    if (value === null) return makeVar(VAR.NULL);
    if (value instanceof Boolean) return makeVar(VAR.BOOL, value.valueOf() ? 1 : 0);
    if (value instanceof Number) return this.fromJs(value.valueOf());
    if (value instanceof String) return this.string(value.valueOf());
    if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)) {
      return this.bufferOrThrow(new Uint8Array(value));
    }
    if (ArrayBuffer.isView(value)) {
      return this.bufferOrThrow(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    }
    if (seen.has(value)) throw new VarConversionError('the value contains a cycle');
    seen.add(value);
    const made = [];
    try {
      if (Array.isArray(value)) {
        const arr = this.array();
        made.push(arr);
        const items = this.entries.get(arr.value).items;
        for (let i = 0; i < value.length; i++) {
          items.push(Object.hasOwn(value, i) ? this.fromJs(value[i], seen) : makeVar(VAR.UNDEFINED));
        }
        return arr;
      }
      const dict = this.dictionary();
      made.push(dict);
      const map = this.entries.get(dict.value).map;
      for (const key of Object.keys(value)) map.set(key, this.fromJs(value[key], seen));
      return dict;
    } catch (e) {
      for (const v of made) this.release(v);
      throw e;
    } finally {
      seen.delete(value);
    }
  }

  bufferOrThrow(bytes) {
    const v = this.arrayBufferFrom(bytes);
    if (!v) throw new VarConversionError(`no guest memory for a ${bytes.length}-byte ArrayBuffer`);
    return v;
  }

  /**
   * The JS value of var `v` (arrays and dictionaries deep, array buffers
   * copied). A var that has been released converts to null.
   */
  toJs(v, seen = new Set()) {
    switch (v.type) {
      case VAR.UNDEFINED:
        return undefined;
      case VAR.NULL:
        return null;
      case VAR.BOOL:
        return v.value !== 0;
      case VAR.INT32:
      case VAR.DOUBLE:
        return v.value;
      default:
        break;
    }
    const e = this.entry(v);
    if (!e) return null;
    switch (e.type) {
      case VAR.STRING:
        return e.str;
      case VAR.ARRAY_BUFFER: {
        const out = new ArrayBuffer(e.length);
        new Uint8Array(out).set(this.mem.u8().subarray(e.ptr, e.ptr + e.length));
        return out;
      }
      case VAR.ARRAY:
      case VAR.DICTIONARY: {
        if (seen.has(e)) throw new VarConversionError('the var contains a cycle');
        seen.add(e);
        try {
          if (e.type === VAR.ARRAY) return e.items.map((item) => this.toJs(item, seen));
          const out = {};
          for (const [key, item] of e.map) out[key] = this.toJs(item, seen);
          return out;
        } finally {
          seen.delete(e);
        }
      }
      case VAR.RESOURCE:
        // Chrome turns resource vars into objects only for a few types
        // (file systems); the rest arrive as null.
        return null;
      default:
        return null;
    }
  }
}

/** A var's 8 value bytes as two i32 words (int/bool, double bits, or id). */
export function varWords(v) {
  const dv = new DataView(new ArrayBuffer(8));
  if (v.type === 4) dv.setFloat64(0, v.value, true);
  else if (v.type <= 3) dv.setInt32(0, v.value | 0, true);
  else dv.setBigInt64(0, BigInt(v.value), true);
  return [dv.getInt32(0, true), dv.getInt32(4, true)];
}

/** The inverse of varWords. */
export function varFromWords(type, lo, hi) {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setInt32(0, lo, true);
  dv.setInt32(4, hi, true);
  if (type === 4) return { type, value: dv.getFloat64(0, true) };
  if (type <= 3) return { type, value: lo };
  return { type, value: Number(dv.getBigInt64(0, true)) };
}

export { fromUtf8 };
