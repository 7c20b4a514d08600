// Translation on a pool of Workers (translateStreaming's `threads`): the
// calling thread streams the pexe into a BodySplitter, which answers each
// function block as a job (its header; the bytes are the file's, which this
// thread holds) as soon as its bytes are in; Workers, each with
// an instance of the same compiled translator (./pool-worker-core.js),
// decode, verify and translate the jobs; the calling thread stitches the
// results in order (Stitcher) and finishes the module. The module is
// byte-identical to the one-thread Translator's (src/back/parallel.rs).
//
// Only postMessage with transfer: no SharedArrayBuffer, so it works on
// pages that are not cross-origin isolated, and in Node (worker_threads).
//
// Anything unusual — bytes that are not a pexe, records between function
// blocks, a module without bodies, a body a Worker refuses — goes to the
// one-thread Translator over every byte seen, whose answer (its module, or
// its exact error with every diagnostic) is the reference. The bytes are
// kept until the end for that.
//
// Scheduling: the jobs found wait in one queue; a Worker with room (at
// most IN_FLIGHT batches) gets a batch of them, as one message with two
// transferred buffers, the jobs' headers and the piece of the file their
// bodies lie in (consecutive bodies: one piece, copied once from the
// chunks kept here), and its results come packed in one: a message per
// body would cost more than small bodies take. A batch also crosses into
// and out of the translator once, not once per body: the splitter answers
// the headers of a chunk's jobs end to end, a Worker translates a batch in
// one call (translateBatch), the Stitcher takes its results in one
// (defineBodies). Batches are runs of consecutive bodies, so their
// results are stitched batch by batch, in the order they were sent. A batch takes a
// quarter of the queue's share per Worker, between BATCH_MIN and BATCH_MAX
// bytes of input ("guided" scheduling): large batches while much is
// queued, so a Worker seldom waits for the calling thread to answer, small
// ones at the end, so Workers finish together; a lone Worker has no one to
// finish with, and takes the whole queue up to BATCH_MAX (fewer round
// trips: xsystem35.pexe in 6 batches, not 15). A Worker with nothing to do
// gets what is queued at once, so the last bytes of a download are
// translated without waiting. A large chunk (the whole pexe at hand) is
// split FEED_BYTES at a time, and batches are handed out as it is split,
// sized as if the rest of the chunk were queued already (it will be, in
// the time a Worker takes for a few bodies) and only whole ones: each
// Worker gets its IN_FLIGHT large batches while this thread splits on,
// makes its Stitcher and returns to take results. (Handing out small
// batches sized by what was split so far left busy Workers waiting for all
// of that; handing batches only to idle Workers left each idle from the
// end of its first batch to the end of the split, as this thread cannot
// hear that a batch is done before: 5 ms of a 40 ms glb_nacl.pexe.)
//
// Start-up: the prefix (the bytes before the first body) and the first
// jobs go to the Workers first; the calling thread makes its Stitcher
// once the chunk's jobs are out, while they make their BodyTranslators
// and translate.
//
// Workers outlive a translation: the next one reuses them (no start-up,
// the instance warmed up). Idle ones end after IDLE_MS, and never keep
// Node running.
//
// The host (the entry registers it, setPoolHost):
//   host.concurrency()   the hardware's threads (navigator.hardwareConcurrency, os.availableParallelism())
//   host.workersAvailable()  whether Workers can start here
//   host.createWorker()  a translation Worker: { post(msg, transfer?), onMessage(fn), onError(fn),
//                        onExit(fn), terminate(), ref(), unref() }

import { bytesOf, glue, guarded, translatorModule, wrapError } from './index.js';
import { PexeError } from '../../public/errors.js';

/** Input bytes of the jobs in one message to a Worker: at least (unless fewer are queued), at most. */
const BATCH_MIN = 16 * 1024;
const BATCH_MAX = 256 * 1024;
/** Batches a Worker holds at once (one running, one waiting). */
const IN_FLIGHT = 2;
/** Bytes of a job's header (BodySplitter.feed's answer: SplitBody::HEADER). */
const HEADER = 32;
/** The splitter is fed at most this much at a time, so Workers start before a large buffer is split. */
const FEED_BYTES = 64 * 1024;
/** An idle Worker ends after this long. */
const IDLE_MS = 10_000;

let host = null;
const idle = [];
let generation = 0;

/** Where Workers come from (called once by the entry). */
export function setPoolHost(h) {
  host = h;
}

/**
 * How many Workers `threads` asks for: undefined or 'auto' → the hardware's
 * threads, capped by src/limits.rs (MAX_TRANSLATE_WORKERS); 0 → none (the
 * calling thread translates); n → n, capped. None where Workers cannot start.
 */
export function poolSize(threads) {
  const cap = glue.maxTranslateWorkers();
  let n;
  if (threads === undefined || threads === 'auto') n = host?.concurrency() ?? 0;
  else if (Number.isInteger(threads) && threads >= 0) n = threads;
  else throw new PexeError(`option 'threads' must be 'auto' or a number of Workers (0: none), got ${String(threads)}`, { kind: 'options' });
  if (n === 0 || !host || !host.workersAvailable()) return 0;
  return Math.max(1, Math.min(n, cap));
}

class PoolWorker {
  constructor() {
    this.port = host.createWorker();
    this.inFlight = 0;
    this.timer = null;
    this.broken = false;
    this.owner = null;
    this.port.onMessage((msg) => this.owner?.message(this, msg));
    const lost = (why) => {
      this.broken = true;
      this.owner?.message(this, { gen: this.owner.gen, error: { message: why, kind: null, panic: true } });
    };
    this.port.onError((e) => lost(`a translation Worker failed: ${e?.message ?? e}`));
    this.port.onExit(() => lost('a translation Worker ended'));
    this.port.post({ module: translatorModule() });
  }

  take(owner) {
    clearTimeout(this.timer);
    this.timer = null;
    this.owner = owner;
    this.inFlight = 0;
    this.port.ref();
  }

  release() {
    this.owner = null;
    // Still busy with batches of a translation that gave up: not worth waiting for.
    if (this.broken || this.inFlight > 0) {
      this.broken = true;
      this.port.terminate();
      return;
    }
    this.port.unref();
    idle.push(this);
    this.timer = setTimeout(() => {
      const i = idle.indexOf(this);
      if (i >= 0) idle.splice(i, 1);
      this.port.terminate();
    }, IDLE_MS);
    // Node: an idle Worker's timer does not keep the process alive either.
    this.timer.unref?.();
  }
}

function takeWorkers(n, owner) {
  const out = [];
  while (out.length < n && idle.length) out.push(idle.pop());
  while (out.length < n) out.push(new PoolWorker());
  for (const w of out) w.take(owner);
  return out;
}


/**
 * Translates the chunks of `source` (an async iterable of Uint8Array) on
 * `workers` Workers; resolves to the module's bytes or rejects as
 * Translator.finish would. `options`: { target, names, onProgress }.
 */
export async function translateOnPool(source, options, workers) {
  const job = new PoolTranslation(options, workers);
  try {
    for await (const chunk of source) job.feed(chunk);
    return await job.finish();
  } finally {
    job.close();
  }
}

class PoolTranslation {
  constructor(options, workers) {
    this.options = { target: options?.target, names: options?.names };
    this.onProgress = options?.onProgress ?? null;
    // Checks the options as a Translator would, before any Worker starts.
    guarded(() => new glue.Translator(this.options)).free();
    this.gen = ++generation;
    this.splitter = guarded(() => new glue.BodySplitter());
    // Started now, so that they load while the first bytes arrive.
    this.workers = takeWorkers(workers, this);
    this.kept = [];
    // Where each kept chunk starts in the file, and the one a batch's bytes were last copied from.
    this.keptAt = [];
    this.keptCursor = 0;
    this.bytesRead = 0;
    this.fallback = null;
    this.stitcher = null;
    // The bytes before the first body, once the splitter has them: read
    // once, as every read of the getter copies them (261 KB in X).
    this.prefix = null;
    this.total = null;
    // The queued jobs: the headers buffer holding each one's header, its
    // offset there, and its body's bytes in the file (start, end).
    this.queue = { headers: [], at: [], start: [], end: [] };
    this.queueHead = 0;
    this.queuedBytes = 0;
    this.batches = 0;
    // What a batch takes of the queue (see the top of the file).
    this.parts = workers === 1 ? 1 : 4 * workers;
    this.ended = false;
    // Results of batches that came back before an earlier one: batch → { results, ends }.
    this.results = new Map();
    this.nextBatch = 0;
    this.done = 0;
    this.failure = null;
    this.wake = null;
  }

  progress(phase) {
    return {
      bytesRead: this.bytesRead,
      functionsTotal: this.total,
      functionsDecoded: this.done,
      functionsTranslated: this.done,
      diagnostics: 0,
      phase,
    };
  }

  report(phase = 'decode') {
    this.onProgress?.(this.progress(phase));
  }

  feed(chunk) {
    // A Worker refused a body: the Translator says why, now.
    if (this.failure) this.toFallback();
    // Kept for the fallback and for batches handed out later. While this
    // call splits the chunk and hands out batches nothing else runs, so
    // the caller's bytes serve; they are copied before it returns (the
    // caller may reuse its buffer) or calls anything of the caller's
    // (onProgress). Copied after the split, the copy of a whole pexe does
    // not hold back the Workers' first batches (0.6 to 0.9 ms of
    // xsystem35.pexe's 1.65 MB in Chromium).
    const bytes = bytesOf(chunk, 'a chunk');
    const k = this.kept.length;
    this.kept.push(bytes);
    this.keptAt.push(this.bytesRead);
    this.bytesRead += bytes.length;
    try {
      if (this.fallback) {
        this.fallback.feed(bytes);
        return;
      }
      for (let at = 0; at < bytes.length && !this.fallback; at += FEED_BYTES) {
        this.split(bytes.subarray(at, at + FEED_BYTES));
        // Whole batches only, sized by the chunk: its rest comes right away.
        const pending = bytes.length - (at + FEED_BYTES);
        if (!this.fallback && pending > 0) this.pump({ pending });
      }
      if (this.fallback) return;
      this.pump();
    } finally {
      this.kept[k] = bytes.slice();
    }
    // Made once the Workers have work: results cannot come before this chunk is split.
    if (!this.stitcher && this.prefix) this.start(this.prefix);
    if (!this.fallback) this.report();
  }

  split(piece) {
    let headers;
    try {
      headers = this.splitter.feed(piece);
    } catch (e) {
      this.toFallback(e);
      return;
    }
    if (!this.prefix) {
      const prefix = this.splitter.prefix;
      if (!prefix) return;
      // The Workers make their translators while this thread splits on.
      for (const w of this.workers) w.port.post({ gen: this.gen, prefix, options: this.options });
      this.prefix = prefix;
    }
    if (!headers.length) return;
    const q = this.queue;
    const view = new DataView(headers.buffer, headers.byteOffset, headers.length);
    // A header's body and end positions are u64 LE bits at 16 and 24.
    const byteAt = (at) => view.getUint32(at, true) / 8 + view.getUint32(at + 4, true) * 0x20000000;
    for (let at = 0; at < headers.length; at += HEADER) {
      const start = byteAt(at + 16);
      const end = byteAt(at + 24);
      q.headers.push(headers);
      q.at.push(at);
      q.start.push(start);
      q.end.push(end);
      this.queuedBytes += HEADER + end - start;
    }
  }

  start(prefix) {
    try {
      this.stitcher = new glue.Stitcher(prefix, this.options);
    } catch (e) {
      this.toFallback(e);
      return;
    }
    this.total = this.stitcher.functionsTotal;
  }

  /** Sends a batch to every Worker with room (see the top of the file). */
  /** `pending`: bytes of input about to be split (the rest of a large chunk). */
  pump({ end = false, pending = 0 } = {}) {
    if (!this.workers || this.failure) return;
    for (const w of this.workers) {
      while (w.inFlight < IN_FLIGHT && this.queueHead < this.queue.at.length) {
        const share = (this.queuedBytes + pending) / this.parts;
        const target = Math.min(BATCH_MAX, Math.max(BATCH_MIN, share));
        // Less than a batch waits for more bytes, unless the Worker is idle
        // and more bytes are not at hand, or the input has ended.
        if (this.queuedBytes < target && (w.inFlight > 0 || pending > 0) && !end) break;
        this.send(w, target);
      }
    }
  }

  send(w, target) {
    const q = this.queue;
    let bytes = 0;
    const first = this.queueHead;
    let next = first;
    while (next < q.at.length && (bytes < target || next === first)) {
      bytes += HEADER + q.end[next] - q.start[next];
      next++;
    }
    this.queuedBytes -= bytes;
    // The headers end to end (a run from one feed is one copy), and the
    // file from the first body's bytes to the last one's end.
    const headers = new Uint8Array(HEADER * (next - first));
    for (let k = first; k < next; ) {
      let run = k + 1;
      while (run < next && q.headers[run] === q.headers[k]) run++;
      headers.set(q.headers[k].subarray(q.at[k], q.at[run - 1] + HEADER), HEADER * (k - first));
      k = run;
    }
    const base = q.start[first];
    const file = this.copyKept(base, q.end[next - 1]);
    this.queueHead = next;
    if (this.queueHead > 4096) {
      for (const key of Object.keys(q)) q[key] = q[key].slice(this.queueHead);
      this.queueHead = 0;
    }
    w.inFlight++;
    w.port.post({ gen: this.gen, batch: this.batches++, headers, bytes: file, base }, [headers.buffer, file.buffer]);
  }

  /** The file's bytes [from, to) in a new buffer, from the kept chunks (batches go in file order). */
  copyKept(from, to) {
    const out = new Uint8Array(to - from);
    let k = this.keptCursor;
    while (this.keptAt[k] + this.kept[k].length <= from) k++;
    this.keptCursor = k;
    for (let at = from; at < to; k++) {
      const chunk = this.kept[k];
      const piece = chunk.subarray(at - this.keptAt[k], Math.min(chunk.length, to - this.keptAt[k]));
      out.set(piece, at - from);
      at += piece.length;
    }
    return out;
  }

  /** A Worker's answer. */
  message(w, msg) {
    if (msg.gen !== this.gen) return;
    if (msg.error) {
      w.inFlight = Math.max(0, w.inFlight - 1);
      if (msg.error.panic) w.broken = true;
      this.failure ??= msg.error;
      this.wake?.();
      return;
    }
    if (!msg.results) return;
    w.inFlight--;
    this.results.set(msg.batch, msg);
    try {
      while (this.results.has(this.nextBatch)) {
        const { results, ends } = this.results.get(this.nextBatch);
        this.results.delete(this.nextBatch);
        this.stitcher.defineBodies(results, ends);
        this.nextBatch++;
        this.done += ends.length;
      }
    } catch (e) {
      this.failure ??= { message: String(wrapError(e)?.message ?? e), kind: null, panic: false };
      this.wake?.();
      return;
    }
    this.pump({ end: this.ended });
    if (!this.fallback) this.report();
    this.wake?.();
  }

  /** From here on the one-thread Translator reads every byte (see the top of the file). */
  toFallback() {
    if (this.fallback) return;
    this.releaseWorkers();
    const reported = this.bytesRead;
    let quiet = true;
    // Its reports go on from where the pool's were (the bytes it re-reads are not news).
    const onProgress = this.onProgress && ((p) => !quiet && p.bytesRead >= reported && this.onProgress(p));
    this.fallback = guarded(() => new glue.Translator({ ...this.options, onProgress }));
    try {
      for (const bytes of this.kept) guarded(() => this.fallback.feed(bytes));
    } finally {
      quiet = false;
    }
  }

  async finish() {
    if (!this.fallback) {
      try {
        this.splitter.finish();
      } catch (e) {
        this.toFallback(e);
      }
    }
    if (!this.fallback && !this.stitcher) this.toFallback();
    if (!this.fallback) {
      const bodies = this.splitter.bodies;
      this.ended = true;
      this.pump({ end: true });
      while (this.done < bodies && !this.failure) {
        await new Promise((resolve) => (this.wake = resolve));
        this.wake = null;
      }
      if (this.failure) this.toFallback();
    }
    if (this.fallback) {
      const f = this.fallback;
      const wasm = guarded(() => f.finish());
      return wasm;
    }
    this.releaseWorkers();
    this.report('translate');
    const wasm = guarded(() => this.stitcher.finish());
    this.report('done');
    return wasm;
  }

  releaseWorkers() {
    for (const w of this.workers ?? []) w.release();
    this.workers = null;
  }

  close() {
    this.releaseWorkers();
    this.splitter?.free();
    this.stitcher?.free();
    this.fallback?.free();
    this.splitter = this.stitcher = this.fallback = this.prefix = null;
    this.kept = [];
    this.keptAt = [];
  }
}
