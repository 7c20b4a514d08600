// Typed views on the guest's memory for the GL layer's hot paths.
//
// GL calls pass many small arrays (uniform values, vertex data, pixels), so
// the views are kept instead of rebuilt on every call (runtime/memory.js
// builds fresh ones, which is right for the rarer IRT calls). They are
// remade only when a range does not fit: the shared memory only grows (old
// views stay valid over the old length), and a non-shared memory's growth
// detaches its buffer, which makes every old view empty.
//
// A pointer the plugin passes that does not lie in its memory is the
// plugin's bug: `check` throws a GuestFault naming the GL function.

import { GuestFault } from '../../runtime/faults.js';

const decoder = new TextDecoder();

export class GuestViews {
  /** @param {WebAssembly.Memory} memory */
  constructor(memory) {
    this.memory = memory;
    this.buffer = null;
    this.remap();
  }

  remap() {
    const b = this.memory.buffer;
    this.buffer = b;
    this.u8 = new Uint8Array(b);
    this.i8 = new Int8Array(b);
    this.u16 = new Uint16Array(b, 0, b.byteLength >>> 1);
    this.i16 = new Int16Array(b, 0, b.byteLength >>> 1);
    this.i32 = new Int32Array(b, 0, b.byteLength >>> 2);
    this.u32 = new Uint32Array(b, 0, b.byteLength >>> 2);
    this.f32 = new Float32Array(b, 0, b.byteLength >>> 2);
  }

  /**
   * Throws a GuestFault unless [ptr, ptr+len) lies in the memory (after
   * catching up with its growth). `fn` names the GL function.
   */
  check(fn, ptr, len) {
    ptr >>>= 0;
    if (len < 0 || ptr + len > this.u8.length) {
      this.remap();
      if (len < 0 || ptr + len > this.u8.length) {
        throw new GuestFault(`${fn} was given a bad pointer (0x${ptr.toString(16)}, ${len} bytes)`);
      }
    }
  }

  getI32(fn, ptr) {
    this.check(fn, ptr, 4);
    return (ptr & 3) === 0 ? this.i32[ptr >>> 2] : new DataView(this.buffer).getInt32(ptr >>> 0, true);
  }

  setI32(fn, ptr, value) {
    this.check(fn, ptr, 4);
    if ((ptr & 3) === 0) this.i32[ptr >>> 2] = value;
    else new DataView(this.buffer).setInt32(ptr >>> 0, value | 0, true);
  }

  setF32(fn, ptr, value) {
    this.check(fn, ptr, 4);
    if ((ptr & 3) === 0) this.f32[ptr >>> 2] = value;
    else new DataView(this.buffer).setFloat32(ptr >>> 0, value, true);
  }

  setU8(fn, ptr, value) {
    this.check(fn, ptr, 1);
    this.u8[ptr >>> 0] = value;
  }

  /**
   * `count` 32-bit words at `ptr` as an Int32Array/Float32Array view (no
   * copy) when aligned, else a copy.
   */
  words(fn, ptr, count, float) {
    this.check(fn, ptr, 4 * count);
    ptr >>>= 0;
    if ((ptr & 3) === 0) {
      const v = float ? this.f32 : this.i32;
      return v.subarray(ptr >>> 2, (ptr >>> 2) + count);
    }
    const copy = this.u8.slice(ptr, ptr + 4 * count);
    return float ? new Float32Array(copy.buffer) : new Int32Array(copy.buffer);
  }

  /** A view (no copy) of `len` bytes at `ptr`. */
  bytes(fn, ptr, len) {
    this.check(fn, ptr, len);
    ptr >>>= 0;
    return this.u8.subarray(ptr, ptr + len);
  }

  /**
   * A view of `len` bytes at `ptr` whose element type matches GL `type`
   * (as WebGL's pixel and buffer uploads require), or a copy when `ptr` is
   * not aligned for it. Returns [view, elementOffset] for WebGL2's
   * (srcData, srcOffset) overloads.
   */
  typedAt(fn, ptr, len, elementBytes, Kind) {
    this.check(fn, ptr, len);
    ptr >>>= 0;
    if (elementBytes === 1) return [this.u8, ptr];
    if (ptr % elementBytes === 0) {
      const whole = Kind === Float32Array ? this.f32 : Kind === Uint16Array ? this.u16 : Kind === Uint32Array ? this.u32 : new Kind(this.buffer, 0, Math.floor(this.buffer.byteLength / elementBytes));
      return [whole, ptr / elementBytes];
    }
    const copy = this.u8.slice(ptr, ptr + Math.ceil(len / elementBytes) * elementBytes);
    return [new Kind(copy.buffer), 0];
  }

  /** The NUL-terminated string at `ptr` (at most `max` bytes). */
  cString(fn, ptr, max = 1 << 20) {
    ptr >>>= 0;
    const u8 = this.u8.length > ptr ? this.u8 : (this.remap(), this.u8);
    const end = Math.min(u8.length, ptr + max);
    for (let i = ptr; i < end; i++) {
      if (u8[i] === 0) return decoder.decode(u8.slice(ptr, i));
    }
    throw new GuestFault(`${fn} was given a bad string pointer (0x${ptr.toString(16)}: no NUL within the memory)`);
  }

  /** `len` bytes at `ptr` decoded as UTF-8. */
  string(fn, ptr, len) {
    this.check(fn, ptr, len);
    ptr >>>= 0;
    return decoder.decode(this.u8.slice(ptr, ptr + len));
  }

  /**
   * Writes `text` as a C string into a buffer of `bufSize` bytes at `ptr`
   * (truncated, always NUL-terminated when bufSize > 0) and returns the
   * characters written without the NUL (GL's `length` out-parameter).
   */
  putString(fn, ptr, bufSize, text) {
    if (bufSize <= 0 || ptr === 0) return 0;
    const bytes = new TextEncoder().encode(text);
    const n = Math.min(bytes.length, bufSize - 1);
    this.check(fn, ptr, n + 1);
    this.u8.set(bytes.subarray(0, n), ptr >>> 0);
    this.u8[(ptr >>> 0) + n] = 0;
    return n;
  }
}
