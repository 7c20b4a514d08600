// A JS value written into shared memory for a reader that cannot receive
// messages: the page's main thread waiting (spinning: it may not
// Atomics.wait) inside postMessageAndAwaitResponse while the host Worker
// produces the answer. Values are what vars convert to (vars.js toJs):
// undefined, null, booleans, numbers, strings, ArrayBuffers, arrays and
// plain objects of those.
//
// Buffer: a growable SharedArrayBuffer. Int32 words [0] state (0 waiting,
// 1 ready), [1] status (REPLY), [2] byte length; the encoding from byte 16:
// a tag byte, then int32 / float64 / u32 length + bytes / u32 count + items
// (a dictionary's items are key strings and values in turn).

export const REPLY = Object.freeze({ OK: 0, ERROR: 1 });

const TAG = Object.freeze({ UNDEFINED: 0, NULL: 1, FALSE: 2, TRUE: 3, INT32: 4, DOUBLE: 5, STRING: 6, BUFFER: 7, ARRAY: 8, DICT: 9 });
const HEADER = 16;

/** A buffer for answers (growable up to `max` bytes). */
export function createReplyBuffer(max = 1 << 28) {
  return new SharedArrayBuffer(HEADER + 4096, { maxByteLength: max });
}

class Writer {
  constructor() {
    this.bytes = new Uint8Array(256);
    this.len = 0;
  }
  room(n) {
    if (this.len + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.len + n) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.bytes.subarray(0, this.len));
    this.bytes = b;
  }
  u8(v) {
    this.room(1);
    this.bytes[this.len++] = v;
  }
  u32(v) {
    this.room(4);
    new DataView(this.bytes.buffer).setUint32(this.len, v, true);
    this.len += 4;
  }
  f64(v) {
    this.room(8);
    new DataView(this.bytes.buffer).setFloat64(this.len, v, true);
    this.len += 8;
  }
  raw(b) {
    this.u32(b.length);
    this.room(b.length);
    this.bytes.set(b, this.len);
    this.len += b.length;
  }
}

function write(w, v) {
  if (v === undefined) return w.u8(TAG.UNDEFINED);
  if (v === null) return w.u8(TAG.NULL);
  if (v === true || v === false) return w.u8(v ? TAG.TRUE : TAG.FALSE);
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff && !Object.is(v, -0)) {
      w.u8(TAG.INT32);
      return w.u32(v >>> 0);
    }
    w.u8(TAG.DOUBLE);
    return w.f64(v);
  }
  if (typeof v === 'string') {
    w.u8(TAG.STRING);
    return w.raw(new TextEncoder().encode(v));
  }
  if (v instanceof ArrayBuffer) {
    w.u8(TAG.BUFFER);
    return w.raw(new Uint8Array(v));
  }
  if (Array.isArray(v)) {
    w.u8(TAG.ARRAY);
    w.u32(v.length);
    for (const item of v) write(w, item);
    return undefined;
  }
  const keys = Object.keys(v);
  w.u8(TAG.DICT);
  w.u32(keys.length);
  for (const k of keys) {
    w.raw(new TextEncoder().encode(k));
    write(w, v[k]);
  }
  return undefined;
}

/** Writes `value` with `status` into `sab` and marks it ready. */
export function encodeValue(sab, status, value) {
  const w = new Writer();
  write(w, value);
  const need = HEADER + w.len;
  if (need > sab.byteLength) {
    if (need > sab.maxByteLength) {
      return encodeValue(sab, REPLY.ERROR, `the answer is too large (${w.len} bytes)`);
    }
    sab.grow(need);
  }
  new Uint8Array(sab, HEADER, w.len).set(w.bytes.subarray(0, w.len));
  const words = new Int32Array(sab, 0, 4);
  words[1] = status;
  words[2] = w.len;
  Atomics.store(words, 0, 1);
  return undefined;
}

/** Marks `sab` as waiting for an answer. */
export function resetReply(sab) {
  Atomics.store(new Int32Array(sab, 0, 4), 0, 0);
}

/** Whether an answer is ready. */
export function replyReady(sab) {
  return Atomics.load(new Int32Array(sab, 0, 4), 0) === 1;
}

/** Reads the answer: `{ status, value }`. */
export function decodeValue(sab) {
  const words = new Int32Array(sab, 0, 4);
  const status = words[1];
  const bytes = new Uint8Array(sab, HEADER, words[2]).slice();
  const dv = new DataView(bytes.buffer);
  let at = 0;
  const str = () => {
    const n = dv.getUint32(at, true);
    at += 4;
    const s = new TextDecoder().decode(bytes.subarray(at, at + n));
    at += n;
    return s;
  };
  const read = () => {
    const tag = bytes[at++];
    switch (tag) {
      case TAG.UNDEFINED:
        return undefined;
      case TAG.NULL:
        return null;
      case TAG.FALSE:
        return false;
      case TAG.TRUE:
        return true;
      case TAG.INT32: {
        const v = dv.getInt32(at, true);
        at += 4;
        return v;
      }
      case TAG.DOUBLE: {
        const v = dv.getFloat64(at, true);
        at += 8;
        return v;
      }
      case TAG.STRING:
        return str();
      case TAG.BUFFER: {
        const n = dv.getUint32(at, true);
        at += 4;
        const b = bytes.slice(at, at + n).buffer;
        at += n;
        return b;
      }
      case TAG.ARRAY: {
        const n = dv.getUint32(at, true);
        at += 4;
        const out = [];
        for (let i = 0; i < n; i++) out.push(read());
        return out;
      }
      case TAG.DICT: {
        const n = dv.getUint32(at, true);
        at += 4;
        const out = {};
        for (let i = 0; i < n; i++) {
          const k = str();
          out[k] = read();
        }
        return out;
      }
      default:
        throw new Error(`bad value tag ${tag}`);
    }
  };
  return { status, value: read() };
}
