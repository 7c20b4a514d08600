// Guest output without a round trip: stdout and stderr written by guest
// threads in Workers go into one shared ring, and the host thread hands it
// to the embedder's stdout/stderr functions as it drains it. A `write` to
// a function sink costs a copy, not a message to the host and a wait for
// its answer (which, on a busy page, took a millisecond each).
//
// Layout (SharedArrayBuffer): Int32 words [0] bytes written (total, mod
// 2^32), [1] bytes drained (total), [2] capacity, [3] writers' lock, then
// the data. A record is a 4-byte header — which stream (0 stdout, 1
// stderr) in the top byte, the length below — and the bytes, wrapping at
// the capacity. One ring for both streams keeps their order as the guest
// made the calls. A writer holds the lock for its whole record; when the
// ring is full it waits for the host to drain ([1]).

const WRITTEN = 0;
const DRAINED = 1;
const CAPACITY = 2;
const LOCK = 3;
const HEADER = 16;

/** Bytes of data a ring holds. */
export const RING_BYTES = 1 << 20;
/** The largest record (a longer write is split). */
const MAX_RECORD = RING_BYTES >> 2;

export function createOutputRing(capacity = RING_BYTES) {
  const sab = new SharedArrayBuffer(HEADER + capacity);
  new Int32Array(sab, 0, 4)[CAPACITY] = capacity;
  return sab;
}

/** A guest thread's writer: `write(stream, bytes)` (stream 0 or 1). */
export class OutputRingWriter {
  constructor(sab) {
    this.words = new Int32Array(sab, 0, 4);
    this.capacity = this.words[CAPACITY];
    this.data = new Uint8Array(sab, HEADER);
    this.header = new Uint8Array(4);
    // A record must always fit in an empty ring.
    this.maxRecord = Math.min(MAX_RECORD, (this.capacity >> 1) - 4);
    this.headerView = new DataView(this.header.buffer);
  }

  lock() {
    while (Atomics.compareExchange(this.words, LOCK, 0, 1) !== 0) Atomics.wait(this.words, LOCK, 1, 5);
  }

  unlock() {
    Atomics.store(this.words, LOCK, 0);
    Atomics.notify(this.words, LOCK, 1);
  }

  put(at, bytes) {
    const start = at % this.capacity;
    const first = Math.min(bytes.length, this.capacity - start);
    this.data.set(bytes.subarray(0, first), start);
    if (first < bytes.length) this.data.set(bytes.subarray(first), 0);
  }

  write(stream, bytes) {
    this.lock();
    try {
      for (let off = 0; off < bytes.length || off === 0; off += this.maxRecord) {
        const part = bytes.subarray(off, off + this.maxRecord);
        const need = 4 + part.length;
        for (;;) {
          const used = (Atomics.load(this.words, WRITTEN) - Atomics.load(this.words, DRAINED)) | 0;
          if (this.capacity - used >= need) break;
          Atomics.wait(this.words, DRAINED, Atomics.load(this.words, DRAINED), 50);
        }
        const at = Atomics.load(this.words, WRITTEN) >>> 0;
        this.headerView.setInt32(0, ((stream & 0xff) << 24) | part.length, true);
        this.put(at, this.header);
        this.put(at + 4, part);
        Atomics.store(this.words, WRITTEN, (at + need) | 0);
        Atomics.notify(this.words, WRITTEN);
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
    this.words = new Int32Array(sab, 0, 4);
    this.capacity = this.words[CAPACITY];
    this.data = new Uint8Array(sab, HEADER);
    this.deliver = deliver;
    this.running = false;
  }

  take(at, n) {
    const out = new Uint8Array(n);
    const start = at % this.capacity;
    const first = Math.min(n, this.capacity - start);
    out.set(this.data.subarray(start, start + first));
    if (first < n) out.set(this.data.subarray(0, n - first), first);
    return out;
  }

  drain() {
    const end = Atomics.load(this.words, WRITTEN) >>> 0;
    let at = Atomics.load(this.words, DRAINED) >>> 0;
    let stream = -1;
    let parts = [];
    const flush = () => {
      if (parts.length === 0) return;
      const n = parts.reduce((s, p) => s + p.length, 0);
      const out = new Uint8Array(n);
      let o = 0;
      for (const p of parts) {
        out.set(p, o);
        o += p.length;
      }
      this.deliver(stream, out);
      parts = [];
    };
    while (at !== end) {
      const header = new DataView(this.take(at, 4).buffer).getInt32(0, true);
      const s = header >>> 24;
      const len = header & 0xffffff;
      if (s !== stream) flush();
      stream = s;
      parts.push(this.take(at + 4, len));
      at = (at + 4 + len) >>> 0;
    }
    flush();
    Atomics.store(this.words, DRAINED, end | 0);
    Atomics.notify(this.words, DRAINED);
  }

  start() {
    this.running = true;
    const loop = async () => {
      while (this.running) {
        const seen = Atomics.load(this.words, WRITTEN);
        if (seen === Atomics.load(this.words, DRAINED)) {
          const w = Atomics.waitAsync(this.words, WRITTEN, seen, 100);
          if (w.async) await w.value;
          continue;
        }
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
