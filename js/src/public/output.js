// Guest output through shared memory: run()'s `output` option. stdout and
// stderr go into one ring (a SharedArrayBuffer) in the order the guest
// wrote them, each write a copy straight from the guest's memory, with no
// message or wake-up per write; the embedder drains the ring when it likes
// (a page: once per animation frame), usually on another thread than the
// guest's:
//
//   const ring = new OutputRing();                // in the page
//   worker.postMessage({ output: ring.buffer });  // run(module, { output }) in the Worker
//   for (;;) { await ring.wait(); ring.read((fd, bytes) => show(fd, bytes)); await nextFrame(); }
//
// The ring's layout and its writers are internal/runtime/threads/output-ring.js.

import { createOutputRing, isOutputRing, OutputRingReader } from '../internal/runtime/threads/output-ring.js';

/** The capacity of a ring made without one: 4 MiB (a frame of output at 100+ MB/s, and room to spare). */
const DEFAULT_BYTES = 4 << 20;

export class OutputRing {
  #reader;
  #deliver = null;

  /**
   * A new ring of `capacity` bytes (rounded up to a power of two, at least
   * 64), or the reader's side of an existing ring's `buffer` (from another
   * thread). Needs SharedArrayBuffer: a cross-origin isolated page, a
   * Worker of one, or Node.
   */
  constructor(capacity = DEFAULT_BYTES) {
    if (typeof SharedArrayBuffer === 'function' && capacity instanceof SharedArrayBuffer) {
      if (!isOutputRing(capacity)) throw new TypeError('this SharedArrayBuffer is not an OutputRing buffer');
      this.buffer = capacity;
    } else {
      if (typeof SharedArrayBuffer !== 'function' || globalThis.crossOriginIsolated === false) {
        throw new TypeError('an OutputRing needs SharedArrayBuffer (a cross-origin isolated page)');
      }
      const n = Number(capacity);
      if (!Number.isFinite(n) || n <= 0 || n > 1 << 30) throw new RangeError(`an OutputRing holds 64 bytes to 1 GiB, not ${capacity}`);
      this.buffer = createOutputRing(Math.max(64, 2 ** Math.ceil(Math.log2(n))));
    }
    this.#reader = new OutputRingReader(this.buffer, (stream, bytes) => this.#deliver(stream + 1, bytes));
  }

  /** Bytes the ring holds at most (a longer write goes in as the reader drains). */
  get capacity() {
    return this.#reader.capacity;
  }

  /**
   * Takes out everything written so far: `deliver(fd, bytes)` (fd 1 or 2,
   * a Uint8Array of its own) for each run of one stream, in the order
   * written. Returns how many bytes that was. Writers waiting for room go on.
   * A write being made at this moment comes at the next read; after the
   * run settled or its Worker was terminated, `{ ended: true }` takes all
   * that was written (a writer may have been stopped in the middle).
   */
  read(deliver, { ended = false } = {}) {
    this.#deliver = deliver;
    try {
      return this.#reader.drain(ended);
    } finally {
      this.#deliver = null;
    }
  }

  /**
   * Resolves true once there is something to read (at once if there is),
   * false after `timeoutMs`. The first write after it started waiting wakes
   * it; writes while nobody waits cost the writer nothing more.
   */
  wait(timeoutMs = Infinity) {
    return this.#reader.waitForRecords(timeoutMs);
  }
}
