// One guest run, in its own Worker, so the page never blocks: translate the
// pexe (its bodies on the package's translation Workers), compile the
// module, run it, stream stdout/stderr back.
//
// The page creates this worker ahead of time (the package's wasm is loaded
// while the user reads), posts one `{ pexe, args, env, stdin, threads,
// output }`, and terminates the worker to stop a run (Workers of guest
// threads, which the runtime starts from here, end with it). `output` is
// the buffer of the page's OutputRing (an isolated page), which the guest
// writes into and the page drains; or null, and the output comes as
// messages.
//
// Messages to the page:
//   { ready }                                      the package is loaded
//   { phase: 'translate'|'compile'|'run', t }      a phase starts (t: performance.timeOrigin-based ms)
//   { out: 1|2, chunk }                            guest output without a ring (Uint8Array, transferred)
//   { done, exitCode, fault, timings }             the guest exited (all its output is in the ring)
//   { failed, error }                              translation or the runtime failed

import * as pkg from './pkg/index.js';

const now = () => performance.timeOrigin + performance.now();

/** Bytes of output gathered before they are posted (without a ring). */
const BATCH_BYTES = 1 << 16;

/**
 * Guest output on its way to the page when there is no ring, gathered: a
 * guest whose stdout is a terminal writes a line at a time, and a message
 * per line (40 000 for fasta 250000) kept the page busy for longer than
 * the run. Each write is copied into one buffer, posted when 64 KiB have
 * gathered, when the stream changes (stdout and stderr keep their order),
 * when a write comes 16 ms after the last post (so output appears as it is
 * written), from a timer once the guest gives the thread back, and at the
 * end. The clock is Date.now(): performance.now() costs 150 ns a call in a
 * Chromium Worker, Date.now() 40.
 */
const output = {
  fd: 0,
  buf: new Uint8Array(BATCH_BYTES),
  bytes: 0,
  last: 0,
  timer: 0,
  add(fd, chunk) {
    if (fd !== this.fd || this.bytes + chunk.length > this.buf.length) this.flush();
    this.fd = fd;
    if (chunk.length > this.buf.length) {
      // A large write goes as it is (the runtime gave us a copy of our own).
      self.postMessage({ out: fd, chunk }, [chunk.buffer]);
      this.last = Date.now();
      return;
    }
    this.buf.set(chunk, this.bytes);
    this.bytes += chunk.length;
    if (Date.now() - this.last >= 16) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), 16);
  },
  flush() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.last = Date.now();
    if (this.bytes === 0) return;
    const chunk = this.buf.slice(0, this.bytes);
    this.bytes = 0;
    self.postMessage({ out: this.fd, chunk }, [chunk.buffer]);
  },
};

self.onmessage = async (e) => {
  const { pexe, args, env, stdin, threads, output: ring } = e.data;
  const timings = {};
  try {
    self.postMessage({ phase: 'translate', t: now() });
    let t = performance.now();
    // Function bodies on the package's pool of Workers (one per core, none
    // for a small pexe), the module byte for byte translate()'s.
    const wasm = await pkg.translateStreaming(pexe, { target: 'wasm32' });
    timings.translate = performance.now() - t;
    timings.wasmBytes = wasm.byteLength;

    self.postMessage({ phase: 'compile', t: now() });
    t = performance.now();
    const module = await WebAssembly.compile(wasm);
    timings.compile = performance.now() - t;

    self.postMessage({ phase: 'run', t: now() });
    const sink = (fd) => (chunk) => output.add(fd, chunk);
    t = performance.now();
    const result = await pkg.run(module, {
      args,
      env,
      stdin: stdin ?? '',
      ...(ring ? { output: ring } : { stdout: sink(1), stderr: sink(2) }),
      tty: [false, true, true],
      threads: threads && globalThis.crossOriginIsolated === true,
    });
    timings.run = performance.now() - t;
    output.flush();
    self.postMessage({ done: true, exitCode: result.exitCode, fault: result.fault ?? null, timings });
  } catch (err) {
    output.flush();
    self.postMessage({
      failed: true,
      timings,
      error: {
        name: err?.name ?? 'Error',
        kind: err?.kind ?? null,
        message: String(err?.message ?? err),
        diagnostics: Array.isArray(err?.diagnostics) ? err.diagnostics.slice(0, 50) : [],
      },
    });
  }
};

self.postMessage({ ready: true, isolated: globalThis.crossOriginIsolated === true });
