// The browser rows of the speed goals (issue 9), measured in headless
// Chromium in one run and printed as `examples/bench.rs` prints the CLI
// rows (measure, value, goal, ratio to the goal: >= 1.00 meets it).
// scripts/bench-browser.sh runs it (and builds what it needs):
//
//   node tests/browser/bench.mjs [--wasi DIR] [--repeat N] [--only size,translate,stream,stdout,runtime]
//
// Without --only: size, translate and stream.
//
// 1. size: the translator module (pexe_bg.wasm) gzipped, against the budget
//    (js/package.json config.wasmGzipBudget).
// 2. translate: the package's translateStreaming(bytes, { threads }) on the
//    page's main thread of a page that is NOT cross-origin isolated, for
//    glb_nacl.pexe and xsystem35.pexe: MB/s on 1 and 2 Workers (and on the
//    calling thread, threads: 0), each checked byte for byte against
//    translate(); rounds of the three in turn, median of the rounds after
//    two warm-ups (the pool's Workers are then started and warm, as for a
//    page's second pexe).
// 3. stream: xsystem35.pexe (1.65 MB, the largest pexe of the corpus) served
//    throttled in 64 KiB chunks, translateStreaming(fetch(url)) then
//    WebAssembly.compile: the time from the last chunk arriving to the module
//    ready to instantiate.
// 4. stdout: many small writes (a line, 61 bytes, per write) through the
//    page's runner as a user runs it (terminal included; each run in a
//    fresh Worker that translates and compiles the pexe, so the guest's
//    code is as cold as a user's; a second between runs, as a user reads
//    the output): output/lines.records (nothing but the writes: the goal's
//    row) and fasta (corpus; a real program, which also computes its
//    lines). Then fasta through the package's run() in a Worker: to a
//    stdout function that counts and hashes, on the guest's thread
//    (threads: false) and from a guest Worker through the runtime's output
//    ring (threads: true); into an OutputRing that the page drains once
//    per frame (run()'s `output`, what the runner does); and with stdout
//    discarded, the guest's own time, which bounds the others. The page is
//    cross-origin isolated.
// 5. runtime: the seven Benchmarks Game pexes through run() in a page's
//    Worker, against the same C built by clang -O2 for wasm32-wasi (--wasi
//    DIR, scripts/bench-browser.sh compiles them) run in a Worker of the same
//    page with @bjorn3/browser_wasi_shim; the run alone is timed (translation
//    and compilation before), outputs must agree.
//
// Machines differ and this one may be shared: the load average is printed
// with the rows.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CORPUS, REPO, launch, openPage, waitRun } from './helpers.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const WASI_DIR = opt('--wasi', null);
const REPEAT = Number(opt('--repeat', '1'));
// stdout and runtime only when asked for: the page runner's time grows
// faster than its output (fasta 2500: 25 KB in 0.45 s; 25000: 254 KB in
// 22 s; 250000 did not finish in 4 minutes), and runtime needs --wasi.
const ONLY = new Set(opt('--only', 'size,translate,stream').split(','));

const GLB = 'ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe';
const XSYSTEM = 'ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe';
const BENCH_RES = 'cli/binji_pnacl_c/test/benchmark/res';
/** As scripts/bench-runtime.sh runs them. */
const RUNTIME = [
  ['nbody', '5000000'],
  ['spectralnorm', '2000'],
  ['mandelbrot', '4000'],
  ['fannkuchredux', '10'],
  ['binarytrees', '16'],
  ['fasta', '2500000'],
  ['meteor', '2098'],
];

function row(measure, value, goal, ratio) {
  console.log(`${measure.padEnd(44)} ${value.padStart(14)}   goal ${goal.padEnd(22)} ratio ${ratio.toFixed(2).padStart(5)} ${ratio >= 1 ? 'met' : 'MISSED'}`);
}
function info(measure, value) {
  console.log(`${measure.padEnd(44)} ${value.padStart(14)}`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg()[0].toFixed(1);

/** output/lines.records assembled (by the release CLI) into a temporary file. */
function assembleLines() {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-bench-')), 'lines.pexe');
  const records = path.join(REPO, 'tests/browser/output/lines.records');
  const r = spawnSync(path.join(REPO, 'target/release/pexe'), ['as', records, '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pexe as ${records}: ${r.stderr || r.error}`);
  return out;
}
const LINES_BYTES = 163840 * 61;
let linesPexe = null;

/** Serves /bench/ (the Worker script, lines.pexe), /bench/wasi/ (the WASI shim) and /bench/c/ (clang's builds) to a page. */
async function routeBench(page) {
  const shim = path.join(REPO, 'tests/browser/node_modules/@bjorn3/browser_wasi_shim/dist');
  await page.context().route('**/bench/**', (route) => {
    const p = new URL(route.request().url()).pathname;
    let file = null;
    if (p.startsWith('/bench/wasi/')) file = path.join(shim, p.slice('/bench/wasi/'.length));
    else if (p.startsWith('/bench/c/') && WASI_DIR) file = path.join(WASI_DIR, path.basename(p));
    else if (p === '/bench/lines.pexe') file = linesPexe ??= assembleLines();
    else file = path.join(REPO, 'tests/browser/bench', path.basename(p));
    if (!fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
    // The page may be cross-origin isolated: these come from its own origin.
    return route.fulfill({ status: 200, body: fs.readFileSync(file), headers: { 'content-type': type, 'cross-origin-resource-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } });
  });
}

/**
 * `inWorker` with stdout and stderr into an OutputRing that the page
 * drains as the runner does (once per frame after a write wakes it), its
 * bytes counted and hashed here.
 */
function inWorkerWithRing(page, job) {
  return page.evaluate(async (job) => {
    const { OutputRing } = await import('/pkg/public/output.js');
    const ring = new OutputRing();
    const c = { bytes: 0, hash: 0x811c9dc5 };
    const take = () =>
      ring.read((fd, chunk) => {
        if (fd !== 1) return;
        c.bytes += chunk.length;
        let h = c.hash;
        for (let i = 0; i < chunk.length; i++) h = Math.imul(h ^ chunk[i], 0x01000193);
        c.hash = h >>> 0;
      });
    let running = true;
    (async () => {
      while (running) {
        if (!(await ring.wait(250)) || !running) continue;
        await new Promise((r) => requestAnimationFrame(r));
        take();
      }
    })();
    const w = new Worker('/bench/runtime-worker.js', { type: 'module' });
    const r = await new Promise((resolve) => {
      w.onmessage = (e) => (e.data.ready ? w.postMessage({ ...job, output: ring.buffer }) : resolve(e.data));
      w.onerror = (e) => resolve({ error: e.message || 'worker error' });
    });
    running = false;
    w.terminate();
    take();
    return { ...r, bytes: c.bytes, hash: c.hash };
  }, job);
}

/** Runs one job in a fresh bench Worker of `page`. */
function inWorker(page, job) {
  return page.evaluate(
    (job) =>
      new Promise((resolve) => {
        const w = new Worker('/bench/runtime-worker.js', { type: 'module' });
        w.onmessage = (e) => {
          if (e.data.ready) return w.postMessage(job);
          w.terminate();
          resolve(e.data);
        };
        w.onerror = (e) => {
          w.terminate();
          resolve({ error: e.message || 'worker error' });
        };
      }),
    job,
  );
}

console.log(`browser rows: headless Chromium, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);

// ---- 1. size
if (ONLY.has('size')) {
  const budget = JSON.parse(fs.readFileSync(path.join(REPO, 'js/package.json'), 'utf8')).config.wasmGzipBudget;
  const dir = path.join(REPO, 'pkg/internal/translator/wasm');
  const size = (f) => {
    const b = fs.readFileSync(path.join(dir, f));
    return [b.length, gzipSync(b, { level: 9 }).length];
  };
  const [raw, gz] = size('pexe_bg.wasm');
  row('package download: pexe_bg.wasm gzipped', `${(gz / 1000).toFixed(1)} KB`, `≤ ${budget / 1000} KB`, budget / gz);
  info('  raw', `${(raw / 1000).toFixed(1)} KB`);
  const [wraw, wgz] = size('pexe_wat_bg.wasm');
  info('  WAT printer, loaded by functionWat', `${(wgz / 1000).toFixed(1)} KB gz`);
  info('    raw', `${(wraw / 1000).toFixed(1)} KB`);
}

// ---- 2, 3: a page that is not cross-origin isolated
if (ONLY.has('translate') || ONLY.has('stream')) {
  const env = await launch({ isolation: false });
  try {
    const page = await openPage(env, '?sample=hello');
    if (ONLY.has('translate')) {
      for (const rel of [GLB, XSYSTEM]) {
        const r = await page.evaluate(
          async ({ url, runs }) => {
            const pkg = await import('/pkg/index.js');
            const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
            const want = pkg.translate(bytes);
            const out = { size: bytes.length, isolated: globalThis.crossOriginIsolated, threads: { 0: [], 1: [], 2: [] } };
            // Rounds of 0, 1, 2 Workers in turn, so that a change of the machine's load weighs on each alike.
            for (let i = 0; i < runs + 2; i++) {
              for (const threads of [0, 1, 2]) {
                const t0 = performance.now();
                const wasm = await pkg.translateStreaming(bytes, { threads });
                const ms = performance.now() - t0;
                if (wasm.length !== want.length || !wasm.every((b, k) => b === want[k])) throw new Error(`threads ${threads}: not translate's bytes`);
                if (i >= 2) out.threads[threads].push(ms);
              }
            }
            return out;
          },
          { url: `/corpus/${rel}`, runs: Math.max(5, REPEAT) },
        );
        const mbs = (t) => r.size / 1e6 / (median(t) / 1000);
        const [m0, m1, m2] = [mbs(r.threads[0]), mbs(r.threads[1]), mbs(r.threads[2])];
        const name = path.basename(rel);
        row(`translation, package in Chromium, 1 Worker: ${name}`, `${m1.toFixed(1)} MB/s`, '≥ 30 MB/s', m1 / 30);
        row(`  2 Workers ÷ 1 Worker`, `${(m2 / m1).toFixed(2)}×`, '≥ 1.7×', m2 / m1 / 1.7);
        info(`  2 Workers`, `${m2.toFixed(1)} MB/s`);
        info(`  calling thread (threads: 0)`, `${m0.toFixed(1)} MB/s`);
        if (r.isolated) info('  (the page was cross-origin isolated)', '');
      }
      info(`  (median of ${Math.max(5, REPEAT)} runs after 2 warm-ups; page not isolated; load ${load()})`, '');
    }

    if (ONLY.has('stream')) {
      const file = fs.readFileSync(path.join(CORPUS, XSYSTEM));
      const CHUNK = 64 * 1024;
      const EVERY_MS = 8;
      // A server of its own: one chunk every EVERY_MS (8 MB/s, a fast connection).
      const server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/x-pnacl', 'content-length': file.length, 'access-control-allow-origin': '*' });
        let at = 0;
        const tick = () => {
          const end = Math.min(at + CHUNK, file.length);
          res.write(file.subarray(at, end));
          at = end;
          if (at < file.length) setTimeout(tick, EVERY_MS);
          else res.end();
        };
        tick();
      });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${server.address().port}/xsystem35.pexe`;
      try {
        for (const threads of [2, 0]) {
          const r = await page.evaluate(
            async ({ url, threads, runs }) => {
              const pkg = await import('/pkg/index.js');
              const out = [];
              for (let i = 0; i < runs; i++) {
                let last = 0;
                const stamp = new TransformStream({
                  transform(chunk, c) {
                    last = performance.now();
                    c.enqueue(chunk);
                  },
                });
                const t0 = performance.now();
                const response = await fetch(url, { cache: 'no-store' });
                const wasm = await pkg.translateStreaming(response.body.pipeThrough(stamp), { threads });
                const translated = performance.now();
                await WebAssembly.compile(wasm);
                const ready = performance.now();
                out.push({ total: ready - t0, download: last - t0, toBytes: translated - last, toModule: ready - last });
              }
              return out;
            },
            { url, threads, runs: Math.max(3, REPEAT) },
          );
          const toModule = median(r.map((x) => x.toModule));
          const label = threads ? `${threads} Workers` : 'calling thread';
          if (threads) row(`streaming: last byte → module ready (${label})`, `${toModule.toFixed(0)} ms`, '≤ 100 ms', 100 / toModule);
          else info(`  on the calling thread (threads: 0)`, `${toModule.toFixed(0)} ms`);
          info(`    of which translation ends`, `${median(r.map((x) => x.toBytes)).toFixed(0)} ms`);
          info(`    download (throttled)`, `${median(r.map((x) => x.download)).toFixed(0)} ms`);
        }
        info(`  (xsystem35.pexe ${(file.length / 1e6).toFixed(2)} MB in ${CHUNK / 1024} KiB chunks every ${EVERY_MS} ms; load ${load()})`, '');
      } finally {
        server.close();
      }
    }
    await page.close();
  } finally {
    await env.close();
  }
}

// ---- 4, 5: a cross-origin isolated page
if (ONLY.has('stdout') || ONLY.has('runtime')) {
  const env = await launch({ isolation: true });
  try {
    if (ONLY.has('stdout')) {
      const FASTA = `/corpus/${BENCH_RES}/fasta.pexe`;
      // The page's runner, as a user runs it: terminal included. Each run
      // has a Worker of its own, which translates and compiles the pexe.
      const page = await openPage(env);
      await routeBench(page);
      /** Median { bytes, ms } of REPEAT runs of the runner's current file. */
      const runnerRuns = async (what, bytes) => {
        const runs = [];
        for (let i = 0; i < Math.max(1, REPEAT); i++) {
          await page.waitForTimeout(1000);
          await page.click('#run-btn');
          const run = await waitRun(page, 600_000);
          if (run.exitCode !== 0) throw new Error(`${what} in the page: exit ${run.exitCode} ${run.fault ?? run.error ?? ''}`);
          runs.push(
            await page.evaluate(() => {
              const r = window.__pexeLastRun;
              return { bytes: r.outBytes, ms: r.endT - r.runT };
            }),
          );
          if (runs.at(-1).bytes !== bytes) throw new Error(`${what} in the page: ${runs.at(-1).bytes} bytes, not ${bytes}`);
        }
        return { bytes, ms: median(runs.map((r) => r.ms)) };
      };
      const open = async (url) => {
        await page.goto(`${env.server.url}?url=${encodeURIComponent(url)}`);
        await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
      };
      await open('/bench/lines.pexe');
      const lines = await runnerRuns('lines', LINES_BYTES);
      const linesMbs = lines.bytes / 1e6 / (lines.ms / 1000);
      row('stdout of a guest in the page (runner)', `${linesMbs.toFixed(1)} MB/s`, '≥ 100 MB/s', linesMbs / 100);
      info(`  lines: ${(lines.bytes / 1e6).toFixed(1)} MB of 61-byte writes, nothing else (median of ${Math.max(1, REPEAT)})`, `${lines.ms.toFixed(0)} ms`);
      const n = 250000;
      await open(FASTA);
      await page.fill('#args-input', String(n));
      const ui = await runnerRuns('fasta', 2541745);
      info(`  fasta ${n}: ${(ui.bytes / 1e6).toFixed(1)} MB of 61-byte writes, computed (median)`, `${(ui.bytes / 1e6 / (ui.ms / 1000)).toFixed(1)} MB/s`);
      const big = 1000000;
      const fasta = { name: 'fasta', url: FASTA, args: ['fasta.pexe', String(big)], bytes: 10166745 };
      const linesJob = { name: 'lines', url: '/bench/lines.pexe', args: ['lines.pexe'], bytes: LINES_BYTES };
      const jobs = [
        ["fasta, stdout function, guest's thread", fasta, { threads: false }],
        ['fasta, stdout function, guest Worker', fasta, { threads: true }],
        ["fasta, OutputRing, page drains, guest's thread", fasta, { threads: false, output: 'ring' }],
        ['fasta, OutputRing, page drains, guest Worker', fasta, { threads: true, output: 'ring' }],
        ["fasta, stdout discarded, guest's thread", fasta, { threads: false, output: 'discard' }],
        ['fasta, stdout discarded, guest Worker', fasta, { threads: true, output: 'discard' }],
        ['fasta, OutputRing, again (warm code)', fasta, { threads: false, output: 'ring', runs: 2 }],
        ['fasta, stdout discarded, again (warm code)', fasta, { threads: false, output: 'discard', runs: 2 }],
        ["lines, stdout function, guest's thread", linesJob, { threads: false }],
        ["lines, OutputRing, page drains, guest's thread", linesJob, { threads: false, output: 'ring' }],
        ["lines, stdout discarded, guest's thread", linesJob, { threads: false, output: 'discard' }],
        ['lines, OutputRing, page drains, guest Worker', linesJob, { threads: true, output: 'ring' }],
      ];
      info(`  package run() in a Worker: fasta ${big} (${(fasta.bytes / 1e6).toFixed(1)} MB), lines (${(LINES_BYTES / 1e6).toFixed(1)} MB):`, '');
      // Rounds of every kind in turn, so that a change of the machine's load weighs on each alike.
      const times = jobs.map(() => []);
      for (let i = 0; i < Math.max(1, REPEAT); i++) {
        for (const [k, [label, prog, o]] of jobs.entries()) {
          const job = { kind: 'pexe', url: prog.url, args: prog.args, ...o };
          const r = o.output === 'ring' ? await inWorkerWithRing(page, job) : await inWorker(page, job);
          if (r.error || r.exitCode !== 0) throw new Error(`${label}: ${r.error ?? r.fault ?? r.exitCode}`);
          const want = prog.bytes * (o.output === 'ring' ? (o.runs ?? 1) : 1);
          if (o.output !== 'discard' && r.bytes !== want) throw new Error(`${label}: ${r.bytes} bytes, not ${want}`);
          times[k].push(r.ms);
        }
      }
      for (const [k, [label, prog]] of jobs.entries()) info(`    ${label}`, `${(prog.bytes / 1e6 / (median(times[k]) / 1000)).toFixed(1)} MB/s`);
      if (WASI_DIR && fs.existsSync(path.join(WASI_DIR, 'fasta.wasm'))) {
        const r = await inWorker(page, { kind: 'wasi', url: '/bench/c/fasta.wasm', args: ['fasta', String(big)] });
        if (!r.error) info(`  (clang's fasta, output only counted)`, `${(r.bytes / 1e6 / (r.ms / 1000)).toFixed(1)} MB/s`);
      }
      info(`  (median of ${Math.max(1, REPEAT)}; a fresh Worker per run, the module compiled there; load ${load()})`, '');
      await page.close();
    }

    if (ONLY.has('runtime')) {
      if (!WASI_DIR) {
        info('(run time rows skipped: give --wasi DIR with clang builds; scripts/bench-browser.sh C_SOURCES_DIR makes them)', '');
      } else {
        const page = await openPage(env, '?sample=hello');
        await routeBench(page);
        const ratios = [];
        info('run time in the page (ms, best of ' + REPEAT + ')', 'pexe / clang');
        for (const [name, arg] of RUNTIME) {
          const best = async (job) => {
            let b = null;
            for (let i = 0; i < REPEAT; i++) {
              const r = await inWorker(page, job);
              if (r.error) throw new Error(`${name} (${job.kind}): ${r.error}`);
              if (r.exitCode !== 0) throw new Error(`${name} (${job.kind}): exit ${r.exitCode} ${r.fault ?? ''}`);
              if (!b || r.ms < b.ms) b = r;
            }
            return b;
          };
          const p = await best({ kind: 'pexe', url: `/corpus/${BENCH_RES}/${name}.pexe`, args: [`${name}.pexe`, arg], threads: false });
          const c = await best({ kind: 'wasi', url: `/bench/c/${name}.wasm`, args: [name, arg] });
          const same = p.bytes === c.bytes && p.hash === c.hash;
          ratios.push(p.ms / c.ms);
          info(`  ${name} ${arg}${same ? '' : '  (OUTPUTS DIFFER)'}`, `${p.ms.toFixed(0)} / ${c.ms.toFixed(0)} = ${(p.ms / c.ms).toFixed(2)}×`);
        }
        const geo = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length);
        info('run time, run() ÷ clang wasm in the page, geomean of 7', `${geo.toFixed(2)}×`);
        info(`  worst`, `${Math.max(...ratios).toFixed(2)}×`);
        info(`  (load ${load()})`, '');
        await page.close();
      }
    }
  } finally {
    await env.close();
  }
}
