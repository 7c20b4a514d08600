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
    const sink = (fd) => (chunk) => {
      // Copies: the runtime may reuse its buffers.
      const copy = chunk.slice();
      self.postMessage({ out: fd, chunk: copy, t: now() }, [copy.buffer]);
    };
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
    self.postMessage({ done: true, exitCode: result.exitCode, fault: result.fault ?? null, timings });
  } catch (err) {
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
