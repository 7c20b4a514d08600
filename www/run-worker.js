// One guest run, in its own Worker, so the page never blocks: translate the
// pexe (its bodies on the package's translation Workers), compile the
// module, run it, stream stdout/stderr back.
//
// The page creates this worker ahead of time (the package's wasm is loaded
// while the user reads), posts one `{ pexe, args, env, stdin }`, and
// terminates the worker to stop a run (Workers of guest threads, which the
// runtime starts from here, end with it).
//
// Messages to the page:
//   { ready }                                      the package is loaded
//   { phase: 'translate'|'compile'|'run', t }      a phase starts (t: performance.timeOrigin-based ms)
//   { out: 1|2, chunk }                            guest output (Uint8Array, transferred)
//   { done, exitCode, fault, timings }             the guest exited
//   { failed, error }                              translation or the runtime failed

import * as pkg from './pkg/index.js';

const now = () => performance.timeOrigin + performance.now();

/**
 * Guest output on its way to the page, gathered: a guest whose stdout is a
 * terminal writes a line at a time, and a message per line (40 000 for
 * fasta 250000) kept the page busy for longer than the run. Sent when 64
 * KiB have gathered, when 16 ms have passed since the last send (output
 * still appears as it is written), when the stream changes (stdout and
 * stderr keep their order), and at the end.
 */
const output = {
  fd: 0,
  parts: [],
  bytes: 0,
  last: 0,
  timer: 0,
  add(fd, chunk) {
    if (fd !== this.fd) this.flush();
    this.fd = fd;
    // Copies: the runtime may reuse its buffers.
    this.parts.push(chunk.slice());
    this.bytes += chunk.length;
    if (this.bytes >= 1 << 16 || performance.now() - this.last >= 16) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), 16);
  },
  flush() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.last = performance.now();
    if (this.bytes === 0) return;
    const chunk = new Uint8Array(this.bytes);
    let at = 0;
    for (const p of this.parts) {
      chunk.set(p, at);
      at += p.length;
    }
    this.parts = [];
    this.bytes = 0;
    self.postMessage({ out: this.fd, chunk, t: now() }, [chunk.buffer]);
  },
};

self.onmessage = async (e) => {
  const { pexe, args, env, stdin, threads } = e.data;
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
      stdout: sink(1),
      stderr: sink(2),
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
