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
// for records, [5] where the open record's header is, [6] 1 while there is
// an open record, then the data. A record is a 4-byte header — which stream
// (0 stdout, 1 stderr) in the top byte, the length below — and the bytes,
// wrapping at the capacity. One ring for both streams keeps their order as
// the guest made the calls. A writer holds the lock for its whole write.
//
// A write of the same stream as the last record goes into that record (the
// open one) rather than a record of its own: a guest writing line by line
// then costs the reader one copy per batch, not one per line. Only the open
// record ever changes, and only by growing; the reader takes records up to
// it without the lock, and closes it (under the lock, if it gets it at
// once) to take it too. A header read as ending past the written total is
// one that grew after the reader looked: the reader stops before it.

const WRITTEN = 0;
const DRAINED = 1;
const CAPACITY = 2;
const LOCK = 3;
const SLEEPING = 4;
const OPEN = 5;
const OPEN_SET = 6;
const HEADER = 32;

/** Bytes of data a ring holds. */
export const RING_BYTES = 1 << 20;
/** The largest record (a longer write is split): a quarter of the ring, at most this. */
const MAX_RECORD = 1 << 20;
/** How long a writer that cannot block (a page's main thread) spins on a full ring before giving up. */
const SPIN_MS = 2000;
/** How long a reader tries for the writers' lock to close the open record (writers hold it for a copy). */
const CLOSE_SPIN_MS = 1;

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

/** Reads and writes headers and bytes at total positions of a ring, across its end. */
class RingData {
  constructor(sab) {
    this.words = new Int32Array(sab, 0, 8);
    this.capacity = this.words[CAPACITY];
    // Positions are int32 totals (mod 2^32); the capacity divides 2^32, so
    // the low bits are the offset, and int arithmetic stays on V8's fast path.
    this.mask = this.capacity - 1;
    this.data = new Uint8Array(sab, HEADER);
    this.view = new DataView(sab, HEADER);
    this.scratch = new Uint8Array(4);
    this.scratchView = new DataView(this.scratch.buffer);
  }

  /** Copies `bytes` into the ring at total position `at`. */
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

  /** Copies `n` bytes of the ring from total position `at` into `out` at `o`. */
  copy(at, n, out, o) {
    const start = at & this.mask;
    const first = Math.min(n, this.capacity - start);
    out.set(this.data.subarray(start, start + first), o);
    if (first < n) out.set(this.data.subarray(0, n - first), o + first);
  }

  getHeader(at) {
    const start = at & this.mask;
    if (start + 4 <= this.capacity) return this.view.getInt32(start, true);
    this.copy(at, 4, this.scratch, 0);
    return this.scratchView.getInt32(0, true);
  }

  setHeader(at, header) {
    const start = at & this.mask;
    if (start + 4 <= this.capacity) {
      this.view.setInt32(start, header, true);
      return;
    }
    this.scratchView.setInt32(0, header, true);
    this.put(at, this.scratch);
  }

  // The writers' lock, a futex mutex: only a contended lock costs a wait and
  // a notify (a guest writing line by line makes hundreds of thousands of writes).
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

  /** The lock if it comes within `ms` (a writer may have ended holding it). */
  tryLock(ms) {
    if (Atomics.compareExchange(this.words, LOCK, 0, 1) === 0) return true;
    const until = performance.now() + ms;
    do {
      if (Atomics.compareExchange(this.words, LOCK, 0, 1) === 0) return true;
    } while (performance.now() < until);
    return false;
  }

  unlock() {
    if (Atomics.exchange(this.words, LOCK, 0) === 2) Atomics.notify(this.words, LOCK, 1);
  }
}

/** A guest thread's writer: `write(stream, bytes)` (stream 0 or 1). */
export class OutputRingWriter {
  constructor(sab) {
    this.sab = sab;
    this.ring = new RingData(sab);
    this.words = this.ring.words;
    this.capacity = this.ring.capacity;
    // A record must always fit in an empty ring, and a long write should
    // not wait for the ring to empty completely.
    this.maxRecord = Math.min(MAX_RECORD, (this.capacity >> 2) - 4);
    // DRAINED as last seen: it only grows, so room counted from it is never too much.
    this.drained = Atomics.load(this.words, DRAINED);
  }

  /** Waits until the reader has made room for `need` bytes after total position `at`. */
  waitForRoom(at, need) {
    let spinUntil = 0;
    for (;;) {
      const drained = Atomics.load(this.words, DRAINED);
      this.drained = drained;
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
    const { ring, words } = this;
    ring.lock();
    try {
      for (let off = 0; off < bytes.length || off === 0; off += this.maxRecord) {
        const part = bytes.length <= this.maxRecord ? bytes : bytes.subarray(off, off + this.maxRecord);
        // Everything below changes only under the lock, which this writer holds.
        const at = words[WRITTEN];
        const open = words[OPEN];
        const openHeader = words[OPEN_SET] === 1 ? ring.getHeader(open) : -1;
        const extend = openHeader !== -1 && openHeader >>> 24 === stream && (openHeader & 0xffffff) + part.length <= this.maxRecord;
        const need = extend ? part.length : 4 + part.length;
        if (this.capacity - ((at - this.drained) | 0) < need) {
          this.drained = Atomics.load(words, DRAINED);
          if (this.capacity - ((at - this.drained) | 0) < need) {
            // Closed, so that the reader can take everything while this writer waits.
            Atomics.store(words, OPEN_SET, 0);
            this.waitForRoom(at, 4 + part.length);
          }
          off -= this.maxRecord;
          continue;
        }
        if (extend) {
          ring.put(at, part);
          ring.setHeader(open, openHeader + part.length);
        } else {
          ring.setHeader(at, ((stream & 0xff) << 24) | part.length);
          ring.put((at + 4) | 0, part);
          Atomics.store(words, OPEN, at);
          Atomics.store(words, OPEN_SET, 1);
        }
        Atomics.store(words, WRITTEN, (at + need) | 0);
        // Wake the reader only when it sleeps: otherwise it is about to drain.
        if (Atomics.load(words, SLEEPING) !== 0) {
          Atomics.store(words, SLEEPING, 0);
          Atomics.notify(words, WRITTEN);
        }
        if (bytes.length === 0) break;
      }
    } finally {
      ring.unlock();
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
    this.ring = new RingData(sab);
    this.words = this.ring.words;
    this.capacity = this.ring.capacity;
    this.deliver = deliver;
    this.running = false;
  }

  /**
   * Where the records from `from` that end at or below `end` stop, at
   * `stop` at the latest (a header ending past `end` grew after `end` was read).
   */
  wholeRecords(from, end, stop) {
    const span = (end - from) | 0;
    let at = from;
    while (at !== stop) {
      const next = (at + 4 + (this.ring.getHeader(at) & 0xffffff)) | 0;
      if (((next - from) | 0) > span) break;
      at = next;
    }
    return at;
  }

  /**
   * Delivers the records in [at, end), a run of one stream at a time; the
   * last one is cut at `end`. Returns how many bytes of output that was.
   */
  deliverRecords(at, end) {
    const { ring } = this;
    let total = 0;
    while (at !== end) {
      const stream = ring.getHeader(at) >>> 24;
      let n = 0;
      let p = at;
      while (p !== end) {
        const h = ring.getHeader(p);
        if (h >>> 24 !== stream) break;
        const len = Math.min(h & 0xffffff, (end - p - 4) | 0);
        n += len;
        p = (p + 4 + len) | 0;
      }
      const out = new Uint8Array(n);
      let o = 0;
      for (; at !== p; ) {
        const len = Math.min(ring.getHeader(at) & 0xffffff, (end - at - 4) | 0);
        ring.copy((at + 4) | 0, len, out, o);
        o += len;
        at = (at + 4 + len) | 0;
      }
      total += n;
      this.deliver(stream, out);
    }
    return total;
  }

  /**
   * Delivers what the ring holds; returns how many bytes that was. `last`:
   * the writers have ended (one may have ended holding the lock), so the
   * open record is taken as far as it was written.
   */
  drain(last = false) {
    const { words, ring } = this;
    const from = Atomics.load(words, DRAINED);
    let end = Atomics.load(words, WRITTEN);
    if (end === from) return 0;
    // Without the lock: the records before the open one, and before `end`.
    const open = Atomics.load(words, OPEN_SET) === 1 ? Atomics.load(words, OPEN) : end;
    const openInside = ((open - from) | 0) >= 0 && ((open - from) | 0) < ((end - from) | 0);
    let upTo = this.wholeRecords(from, end, openInside ? open : end);
    if (upTo === open && openInside) {
      if (ring.tryLock(CLOSE_SPIN_MS)) {
        // Closed, no writer adds to it: it and everything written up to now are whole.
        Atomics.store(words, OPEN_SET, 0);
        end = Atomics.load(words, WRITTEN);
        ring.unlock();
        upTo = end;
      } else if (last) {
        Atomics.store(words, OPEN_SET, 0);
        upTo = end;
      }
    } else if (last) {
      upTo = end;
    }
    if (upTo === from) return 0;
    const total = this.deliverRecords(from, upTo);
    Atomics.store(words, DRAINED, upTo);
    Atomics.notify(words, DRAINED);
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
    this.drain(true);
  }
}
