// Guest output without a round trip: stdout and stderr written by guest
// threads in Workers go into one shared ring, and a reader on another
// thread takes them out in batches. A `write` costs a copy, not a message
// to the host and a wait for its answer (which, on a busy page, took a
// millisecond each). The reader is the host thread, which hands the bytes
// to the embedder's stdout/stderr functions, or the embedder itself: run()'s
// `output` option (public/output.js), which a page drains once per frame.
//
// Layout (SharedArrayBuffer): Int32 words [0] bytes written (total, mod
// 2^32), [1] bytes drained (total), [2] capacity, [3] writers' lock (0
// free, 1 held, 2 held and waited for), [4] the reader is asleep waiting
// for records, then the data. A record is a 4-byte header — which stream (0 stdout, 1
// stderr) in the top byte, the length below — and the bytes, wrapping at
// the capacity. One ring for both streams keeps their order as the guest
// made the calls. A writer holds the lock for its whole record; when the
// ring is full it waits for the reader to drain ([1]).

const WRITTEN = 0;
const DRAINED = 1;
const CAPACITY = 2;
const LOCK = 3;
const SLEEPING = 4;
const HEADER = 32;

/** Bytes of data a ring holds. */
export const RING_BYTES = 1 << 20;
/** The largest record (a longer write is split): a quarter of the ring, at most this. */
const MAX_RECORD = 1 << 20;
/** How long a writer that cannot block (a page's main thread) spins on a full ring before giving up. */
const SPIN_MS = 2000;

/**
 * A new ring of `capacity` bytes: a power of two (positions are totals
 * modulo 2^32), from 32 bytes to 1 GiB.
 */
export function createOutputRing(capacity = RING_BYTES) {
  if (!Number.isInteger(capacity) || capacity < 32 || capacity > 1 << 30 || (capacity & (capacity - 1)) !== 0) {
    throw new RangeError(`an output ring holds a power of two bytes from 32 to 2^30, not ${capacity}`);
  }
  const sab = new SharedArrayBuffer(HEADER + capacity);
  new Int32Array(sab, 0, 8)[CAPACITY] = capacity;
  return sab;
}

/** Whether `sab` is a ring createOutputRing made (its capacity word matches its size). */
export function isOutputRing(sab) {
  return (
    typeof SharedArrayBuffer === 'function' &&
    sab instanceof SharedArrayBuffer &&
    sab.byteLength > HEADER &&
    new Int32Array(sab, 0, 8)[CAPACITY] === sab.byteLength - HEADER
  );
}

/** A guest thread's writer: `write(stream, bytes)` (stream 0 or 1). */
export class OutputRingWriter {
  constructor(sab) {
    this.sab = sab;
    this.words = new Int32Array(sab, 0, 8);
    this.capacity = this.words[CAPACITY];
    // Positions are int32 totals (mod 2^32); the capacity divides 2^32, so
    // the low bits are the offset, and int arithmetic stays on V8's fast path.
    this.mask = this.capacity - 1;
    this.data = new Uint8Array(sab, HEADER);
    this.header = new Uint8Array(4);
    // A record must always fit in an empty ring, and a long write should
    // not wait for the ring to empty completely.
    this.maxRecord = Math.min(MAX_RECORD, (this.capacity >> 2) - 4);
    this.headerView = new DataView(this.header.buffer);
    this.dataView = new DataView(sab, HEADER);
  }

  // A futex mutex: only a contended lock costs a wait and a notify (a
  // guest writing line by line writes hundreds of thousands of records).
  lock() {
    if (Atomics.compareExchange(this.words, LOCK, 0, 1) === 0) return;
    while (Atomics.exchange(this.words, LOCK, 2) !== 0) {
      try {
        Atomics.wait(this.words, LOCK, 2, 5);
      } catch {
        // a page's main thread may not block: it spins
      }
    }
  }

  unlock() {
    if (Atomics.exchange(this.words, LOCK, 0) === 2) Atomics.notify(this.words, LOCK, 1);
  }

  put(at, bytes) {
    const start = at & this.mask;
    if (start + bytes.length <= this.capacity) {
      this.data.set(bytes, start);
      return;
    }
    const first = this.capacity - start;
    this.data.set(bytes.subarray(0, first), start);
    this.data.set(bytes.subarray(first), 0);
  }

  putHeader(at, header) {
    const start = at & this.mask;
    if (start + 4 <= this.capacity) {
      this.dataView.setInt32(start, header, true);
      return;
    }
    this.headerView.setInt32(0, header, true);
    this.put(at, this.header);
  }

  /** Waits until the reader has made room for `need` bytes after total position `at`. */
  waitForRoom(at, need) {
    let spinUntil = 0;
    for (;;) {
      const drained = Atomics.load(this.words, DRAINED);
      if (this.capacity - ((at - drained) | 0) >= need) return;
      if (spinUntil === 0) {
        try {
          Atomics.wait(this.words, DRAINED, drained, 50);
          continue;
        } catch {
          // A page's main thread may not block: spin, for a while.
          spinUntil = performance.now() + SPIN_MS;
        }
      }
      if (performance.now() > spinUntil) throw new Error('the output ring stayed full: nothing reads it (read it on another thread than the writer)');
    }
  }

  write(stream, bytes) {
    this.lock();
    try {
      for (let off = 0; off < bytes.length || off === 0; off += this.maxRecord) {
        const part = bytes.length <= this.maxRecord ? bytes : bytes.subarray(off, off + this.maxRecord);
        const need = 4 + part.length;
        // WRITTEN only changes under the lock, which this writer holds.
        const at = Atomics.load(this.words, WRITTEN);
        if (this.capacity - ((at - Atomics.load(this.words, DRAINED)) | 0) < need) this.waitForRoom(at, need);
        this.putHeader(at, ((stream & 0xff) << 24) | part.length);
        this.put((at + 4) | 0, part);
        Atomics.store(this.words, WRITTEN, (at + need) | 0);
        // Wake the reader only when it sleeps: otherwise it is about to drain.
        if (Atomics.load(this.words, SLEEPING) !== 0) {
          Atomics.store(this.words, SLEEPING, 0);
          Atomics.notify(this.words, WRITTEN);
        }
        if (bytes.length === 0) break;
      }
    } finally {
      this.unlock();
    }
  }
}

/**
 * The host's drain: calls `deliver(stream, bytes)` for each run of records
 * of one stream, in order. `drain()` empties the ring now; `start()` keeps
 * draining as data arrives until `stop()`.
 */
export class OutputRingReader {
  constructor(sab, deliver) {
    this.words = new Int32Array(sab, 0, 8);
    this.capacity = this.words[CAPACITY];
    this.mask = this.capacity - 1;
    this.data = new Uint8Array(sab, HEADER);
    this.view = new DataView(sab, HEADER);
    this.deliver = deliver;
    this.running = false;
  }

  /** Copies `n` bytes of the ring from total position `at` into `out` at `o`. */
  copy(at, n, out, o) {
    const start = at & this.mask;
    const first = Math.min(n, this.capacity - start);
    out.set(this.data.subarray(start, start + first), o);
    if (first < n) out.set(this.data.subarray(0, n - first), o + first);
  }

  header(at) {
    const start = at & this.mask;
    if (start + 4 <= this.capacity) return this.view.getInt32(start, true);
    const b = new Uint8Array(4);
    this.copy(at, 4, b, 0);
    return new DataView(b.buffer).getInt32(0, true);
  }

  /** Delivers what the ring holds; returns how many bytes that was. */
  drain() {
    const end = Atomics.load(this.words, WRITTEN);
    let at = Atomics.load(this.words, DRAINED);
    if (at === end) return 0;
    let total = 0;
    // One copy out per run of records of one stream.
    while (at !== end) {
      const stream = this.header(at) >>> 24;
      let n = 0;
      let p = at;
      while (p !== end) {
        const h = this.header(p);
        if (h >>> 24 !== stream) break;
        n += h & 0xffffff;
        p = (p + 4 + (h & 0xffffff)) | 0;
      }
      const out = new Uint8Array(n);
      let o = 0;
      for (; at !== p; ) {
        const len = this.header(at) & 0xffffff;
        this.copy((at + 4) | 0, len, out, o);
        o += len;
        at = (at + 4 + len) | 0;
      }
      total += n;
      this.deliver(stream, out);
    }
    Atomics.store(this.words, DRAINED, end | 0);
    Atomics.notify(this.words, DRAINED);
    return total;
  }

  /**
   * Resolves true once the ring holds records (at once if it does), false
   * after `timeoutMs`. Writers wake it: the first record written after it
   * went to sleep notifies.
   */
  async waitForRecords(timeoutMs = Infinity) {
    const seen = Atomics.load(this.words, WRITTEN);
    if (seen !== Atomics.load(this.words, DRAINED)) return true;
    Atomics.store(this.words, SLEEPING, 1);
    try {
      if (typeof Atomics.waitAsync === 'function') {
        const w = Atomics.waitAsync(this.words, WRITTEN, seen, timeoutMs);
        if (w.async) {
          // A timer as well: Node's event loop does not wait for waitAsync's timeout.
          let timer = null;
          const timeout = Number.isFinite(timeoutMs) ? new Promise((r) => (timer = setTimeout(r, timeoutMs))) : null;
          await (timeout ? Promise.race([w.value, timeout]) : w.value);
          clearTimeout(timer);
        }
      } else {
        // No Atomics.waitAsync (older browsers): look every 10 ms.
        const end = performance.now() + timeoutMs;
        while (Atomics.load(this.words, WRITTEN) === seen && performance.now() < end) {
          await new Promise((r) => setTimeout(r, Math.min(10, end - performance.now())));
        }
      }
    } finally {
      Atomics.store(this.words, SLEEPING, 0);
    }
    return Atomics.load(this.words, WRITTEN) !== Atomics.load(this.words, DRAINED);
  }

  start() {
    this.running = true;
    const loop = async () => {
      while (this.running) {
        if (!(await this.waitForRecords(100)) || !this.running) continue;
        this.drain();
        // Let larger batches gather when output streams in.
        await new Promise((r) => setTimeout(r, 0));
      }
    };
    loop();
  }

  stop() {
    this.running = false;
    this.drain();
  }
}
