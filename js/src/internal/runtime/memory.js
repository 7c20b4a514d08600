// Access to the guest's linear memory.
//
// The memory is a `WebAssembly.Memory` that any thread may grow, and
// growing replaces `memory.buffer` with a longer one. The accessors keep
// the views of the last buffer they saw and take the current one only when
// an access reaches past them: memory never shrinks, a shared memory's old
// buffer stays a view of the same bytes, and an unshared one's is detached
// (length 0), so a kept view is right wherever it reaches. (Reading
// `memory.buffer` of a shared memory makes a new object each time: per IRT
// call, that was a fifth of a line-by-line writer's time.) `view()` and
// `u8()` give the whole current memory. All multi-byte values are
// little-endian (wasm's order).
//
// Accesses outside the memory throw `MemoryFault`; the IRT functions turn it
// into EFAULT rather than letting a bad guest pointer become a host error.

/** A guest pointer or range that lies outside the linear memory. */
export class MemoryFault extends Error {
  constructor(addr, len) {
    super(`bad guest address 0x${(addr >>> 0).toString(16)} (${len} bytes)`);
    this.name = 'MemoryFault';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class GuestMemory {
  /** @param {WebAssembly.Memory} memory */
  constructor(memory) {
    this.memory = memory;
    this.keep(memory.buffer);
  }

  /** Keeps views of `buffer` (see the top of this file). */
  keep(buffer) {
    this.kept = new Uint8Array(buffer);
    this.keptView = new DataView(buffer);
  }

  /** Current size in bytes. */
  get byteLength() {
    return this.memory.buffer.byteLength;
  }

  view() {
    this.keep(this.memory.buffer);
    return this.keptView;
  }

  u8() {
    this.keep(this.memory.buffer);
    return this.kept;
  }

  i32() {
    return new Int32Array(this.memory.buffer);
  }

  /**
   * Throws `MemoryFault` unless [addr, addr+len) is inside the memory;
   * after it, the kept views reach over the range.
   */
  check(addr, len) {
    addr >>>= 0;
    if (len < 0) throw new MemoryFault(addr, len);
    if (addr + len <= this.kept.length) return;
    this.keep(this.memory.buffer);
    if (addr + len > this.kept.length) throw new MemoryFault(addr, len);
  }

  getU8(addr) {
    this.check(addr, 1);
    return this.kept[addr >>> 0];
  }

  getI32(addr) {
    this.check(addr, 4);
    return this.keptView.getInt32(addr >>> 0, true);
  }

  getU32(addr) {
    this.check(addr, 4);
    return this.keptView.getUint32(addr >>> 0, true);
  }

  /** A 64-bit value as a BigInt (signed). */
  getI64(addr) {
    this.check(addr, 8);
    return this.keptView.getBigInt64(addr >>> 0, true);
  }

  setU8(addr, value) {
    this.check(addr, 1);
    this.kept[addr >>> 0] = value;
  }

  setU16(addr, value) {
    this.check(addr, 2);
    this.keptView.setUint16(addr >>> 0, value, true);
  }

  setI32(addr, value) {
    this.check(addr, 4);
    this.keptView.setInt32(addr >>> 0, value | 0, true);
  }

  setU32(addr, value) {
    this.check(addr, 4);
    this.keptView.setUint32(addr >>> 0, value >>> 0, true);
  }

  /** Stores a 64-bit value given as a BigInt or a (safe-integer) Number. */
  setI64(addr, value) {
    this.check(addr, 8);
    this.keptView.setBigInt64(addr >>> 0, BigInt.asIntN(64, BigInt(value)), true);
  }

  /**
   * A view of [addr, addr+len) on the guest's bytes, for a caller that
   * copies them at once: made from the kept view (u8() would make new
   * views of the whole memory, per write a third of a line's cost).
   */
  bytes(addr, len) {
    this.check(addr, len);
    return this.kept.subarray(addr >>> 0, (addr >>> 0) + len);
  }

  /** A copy of [addr, addr+len) (a plain, non-shared Uint8Array). */
  read(addr, len) {
    this.check(addr, len);
    return this.kept.slice(addr >>> 0, (addr >>> 0) + len);
  }

  /** Copies `bytes` to `addr`. */
  write(addr, bytes) {
    this.check(addr, bytes.length);
    this.kept.set(bytes, addr >>> 0);
  }

  /** Zeroes [addr, addr+len). */
  fill0(addr, len) {
    this.check(addr, len);
    this.kept.fill(0, addr >>> 0, (addr >>> 0) + len);
  }

  /**
   * The bytes of the NUL-terminated string at `addr` (without the NUL), at
   * most `max` bytes long; throws `MemoryFault` if no NUL is found in time.
   */
  readCBytes(addr, max = 4096) {
    addr >>>= 0;
    const u8 = this.u8();
    const end = Math.min(u8.length, addr + max + 1);
    for (let i = addr; i < end; i++) {
      if (u8[i] === 0) return u8.slice(addr, i);
    }
    throw new MemoryFault(addr, max);
  }

  /** The NUL-terminated string at `addr`, decoded as UTF-8. */
  readCString(addr, max = 4096) {
    return decoder.decode(this.readCBytes(addr, max));
  }

  /** Writes `bytes` followed by a NUL; returns the bytes written (with the NUL). */
  writeCBytes(addr, bytes) {
    this.check(addr, bytes.length + 1);
    const u8 = this.u8();
    u8.set(bytes, addr >>> 0);
    u8[(addr >>> 0) + bytes.length] = 0;
    return bytes.length + 1;
  }

  /** Grows the memory by `pages` wasm pages; returns false if it cannot. */
  grow(pages) {
    try {
      this.memory.grow(pages);
      return true;
    } catch {
      return false;
    }
  }
}

/** UTF-8 bytes of a string. */
export function utf8(s) {
  return encoder.encode(s);
}

/** A string from UTF-8 bytes (which may be a view on shared memory). */
export function fromUtf8(bytes) {
  return decoder.decode(bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice());
}
