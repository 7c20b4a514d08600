// The browser benchmark's Worker (tests/browser/bench.mjs serves it at
// /bench/): runs one program and times the run alone (translation and
// compilation are done before the clock starts), with stdout counted and
// hashed rather than shown.
//
//   { kind: 'pexe', url, args, threads, output, runs }   the package: translate, compile,
//        run() `runs` times (default 1; the last is timed: from the second
//        on, the module's code is warm); stdout to a function that counts
//        and hashes, or with `output` (an OutputRing's buffer) into that
//        ring, which the page drains, or with `output: 'discard'` nowhere
//        (the guest's own time)
//   { kind: 'wasi', url, args }            clang's wasm32-wasi build, @bjorn3/browser_wasi_shim
//
// Answers { ms, exitCode, bytes, hash, fault } or { error }.

import * as pkg from '/pkg/index.js';
import { WASI, Fd, OpenFile, File, wasi as defs } from '/bench/wasi/index.js';

/** Counts and hashes (FNV-1a) what it is given. */
function counter() {
  const c = { bytes: 0, hash: 0x811c9dc5 };
  c.add = (chunk) => {
    c.bytes += chunk.length;
    let h = c.hash;
    for (let i = 0; i < chunk.length; i++) h = Math.imul(h ^ chunk[i], 0x01000193);
    c.hash = h >>> 0;
  };
  return c;
}

/** stdout for the WASI build: a regular file (so libc buffers fully, as newlib does for the pexe) that counts. */
class CountingOut extends Fd {
  constructor(c) {
    super();
    this.c = c;
  }
  fd_write(data) {
    this.c.add(data);
    return { ret: 0, nwritten: data.byteLength };
  }
  fd_fdstat_get() {
    return { ret: 0, fdstat: new defs.Fdstat(defs.FILETYPE_REGULAR_FILE, 0) };
  }
}

async function runPexe({ url, args, threads, output, runs = 1 }) {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const module = await WebAssembly.compile(await pkg.translateStreaming(bytes, { threads: 0 }));
  let last = null;
  for (let i = 0; i < runs; i++) {
    const out = counter();
    const sinks = output === 'discard' ? { stdout: null, stderr: null } : output ? { output } : { stdout: out.add, stderr: () => {} };
    const t0 = performance.now();
    const r = await pkg.run(module, { args, ...sinks, tty: false, threads });
    const ms = performance.now() - t0;
    last = { ms, exitCode: r.exitCode, fault: r.fault ?? null, bytes: out.bytes, hash: out.hash };
    if (r.exitCode !== 0) break;
  }
  return last;
}

async function runWasi({ url, args }) {
  const module = await WebAssembly.compile(await (await fetch(url)).arrayBuffer());
  const out = counter();
  const wasi = new WASI(args, [], [new OpenFile(new File([])), new CountingOut(out), new CountingOut(counter())]);
  const t0 = performance.now();
  const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
  const exitCode = wasi.start(instance);
  const ms = performance.now() - t0;
  return { ms, exitCode, fault: null, bytes: out.bytes, hash: out.hash };
}

self.onmessage = async (e) => {
  try {
    self.postMessage(await (e.data.kind === 'pexe' ? runPexe(e.data) : runWasi(e.data)));
  } catch (err) {
    self.postMessage({ error: String(err?.stack ?? err) });
  }
};
self.postMessage({ ready: true });
