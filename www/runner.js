// The runner's Program view: args/env/stdin fields, a terminal pane, exit
// status and timings (plugin.js is its Plugin view). Each run happens in its own Worker (run-worker.js), started ahead
// of time (at start-up, then after each run, never during one) so the
// package is already loaded when Run is pressed; Stop terminates it (and
// with it every guest thread's Worker).
//
// Guest output: on a cross-origin isolated page, the guest writes stdout
// and stderr into a shared ring (the package's OutputRing, run()'s
// `output`) without a message or a wake-up per write, and this page takes
// out what is there once per animation frame — decoded once per batch,
// shown by the terminal (terminal.js) in the same frame. Elsewhere the run
// Worker posts the output in batches.

import { escapeHtml } from './highlight.js';
import { Terminal } from './terminal.js';

const $ = (id) => document.getElementById(id);
/** The output ring of a run: a frame of output at well over 100 MB/s. */
const RING_BYTES = 4 << 20;
/** What the page keeps of each stream for the tests (window.__pexeLastRun). */
const KEPT_CHARS = 16_000_000;

/** Splits a command line like a shell would for simple cases: spaces, '…' and "…" quoting, backslash escapes. */
export function splitArgs(s) {
  const out = [];
  let cur = '';
  let has = false;
  let q = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = null;
      else if (c === '\\' && q === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      q = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** `NAME=value NAME2="a b"` → { NAME: 'value', NAME2: 'a b' }. */
export function parseEnv(s) {
  const env = {};
  for (const item of splitArgs(s)) {
    const eq = item.indexOf('=');
    if (eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

export class Runner {
  constructor(app) {
    this.app = app;
    this.status = $('run-status');
    this.terminal = new Terminal($('terminal'));
    this.worker = null; // the running one
    this.spare = null; // pre-started for the next run
    this.lastRun = null;
    // The package's OutputRing class (loaded with the first Worker), where the page is isolated.
    this.ringClass = null;
    // The Run, Stop and Clear buttons belong to the page (app.js): they act
    // on this runner or on the Plugin view, whichever is shown.
    for (const id of ['args-input', 'env-input', 'stdin-input']) {
      $(id).addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          this.run();
        }
      });
    }
    this.prepare();
    this.hint();
  }

  /** The empty terminal says how to start. */
  hint() {
    this.terminal.hint('Output of the program appears here. Press r or ▶ Run; arguments and environment go in the fields above.');
  }

  /** Starts a Worker for the next run, loading the package in the background. */
  prepare() {
    if (globalThis.crossOriginIsolated === true && !this.ringClass) {
      this.ringClass = import('./pkg/public/output.js').then((m) => m.OutputRing);
      this.ringClass.catch(() => {});
    }
    if (this.spare) return;
    const w = new Worker(new URL('./run-worker.js', import.meta.url), { type: 'module' });
    const spare = { worker: w, ready: null };
    spare.ready = new Promise((resolve, reject) => {
      const onMsg = (e) => {
        if (e.data?.ready) {
          w.removeEventListener('message', onMsg);
          resolve();
        }
      };
      w.addEventListener('message', onMsg);
      w.addEventListener('error', (e) => {
        e.preventDefault();
        reject(new Error(`the runner worker could not start: is pkg/ built? ${e.message ?? ''}`));
      }, { once: true });
    });
    spare.ready.catch(() => {});
    this.spare = spare;
  }

  get running() {
    return this.worker !== null;
  }

  clear() {
    this.terminal.clear();
  }

  system(text, extra = '') {
    const t = this.terminal;
    const needsNewline = !t.empty && !t.endsWithNewline;
    t.write(`${needsNewline ? '\n' : ''}${text}\n`, `sys${extra ? ' ' + extra : ''}`);
    t.flush();
  }

  setStatus(html) {
    this.status.innerHTML = html;
  }

  async run() {
    const app = this.app;
    if (!app.bytes) {
      app.toast('Open a pexe first', true);
      return;
    }
    if (this.running) this.stop('restarted');
    const clickT = performance.timeOrigin + performance.now();
    const args = [app.fileName ?? 'program.pexe', ...splitArgs($('args-input').value)];
    const env = parseEnv($('env-input').value);
    const stdinText = $('stdin-input').value;
    const stdin = stdinText ? stdinText.replace(/\\n/g, '\n') + (stdinText.endsWith('\\n') ? '' : '\n') : '';
    // Guest threads need an isolated page; a pexe that never names the IRT
    // thread interface cannot create threads, so it runs on the runner
    // Worker itself (no second Worker to start: output comes sooner).
    const usesThreads = (app.summary?.irt.interfaces ?? []).some((n) => n.startsWith('nacl-irt-thread'));
    const threads = globalThis.crossOriginIsolated === true && usesThreads;
    this.prepare();
    const spare = this.spare;
    this.spare = null;
    const w = spare.worker;
    this.worker = w;
    const run = { threads, clickT, firstOutputT: null, exitCode: null, fault: null, timings: null, stdout: '', stderr: '', phase: 'load', outBytes: 0, outBatches: 0 };
    this.lastRun = run;
    window.__pexeLastRun = run; // for the browser tests
    $('run-btn').disabled = true;
    $('stop-btn').disabled = false;
    run.decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
    this.system(`$ ${args.map(shellQuote).join(' ')}${Object.keys(env).length ? `   (env: ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}`);
    this.setStatus('<span class="spinner"></span><span class="muted">loading…</span>');
    w.addEventListener('message', (e) => this.onMessage(w, run, e.data));
    w.addEventListener('error', (e) => {
      e.preventDefault();
      if (this.worker !== w) return;
      this.finish(w, run, { failed: true, error: { message: e.message || 'the runner worker failed' } });
    });
    try {
      await spare.ready;
    } catch (e) {
      this.finish(w, run, { failed: true, error: { message: e.message } });
      return;
    }
    if (this.worker !== w) return;
    // Output through a shared ring where the page is isolated (see the top of the file).
    let ring = null;
    try {
      const OutputRing = await this.ringClass;
      if (OutputRing) ring = new OutputRing(RING_BYTES);
    } catch {
      // no ring: the Worker posts the output
    }
    if (this.worker !== w) return;
    run.ring = ring;
    const pexe = app.bytes.slice();
    w.postMessage({ pexe, args, env, stdin, threads, output: ring?.buffer ?? null }, [pexe.buffer]);
    if (ring) this.pump(w, run);
  }

  /**
   * Takes the ring's output once per animation frame while `run` runs: it
   * sleeps until the guest writes, then lets the frame gather what else
   * comes. Hidden pages have no frames: there it takes the output at once.
   */
  async pump(w, run) {
    while (this.worker === w && !run.done) {
      if (!(await run.ring.wait(250))) continue;
      if (!document.hidden) await nextFrame();
      if (this.worker !== w || run.done) return;
      this.drain(run);
      this.terminal.flush();
    }
  }

  /** Everything the ring holds, to the run's record and the terminal (`ended`: the run's Worker is gone). */
  drain(run, ended = false) {
    run.ring?.read((fd, bytes) => this.output(run, fd, bytes), { ended });
  }

  /** Guest output: `bytes` of fd 1 or 2, decoded once per batch. */
  output(run, fd, bytes) {
    const text = run.decoders[fd].decode(bytes, { stream: true });
    if (run.firstOutputT === null && text.length) {
      run.firstOutputT = performance.timeOrigin + performance.now();
    }
    // The tests read what the guest wrote (the terminal keeps the last 256 K characters).
    if (fd === 1) run.stdout += run.stdout.length < KEPT_CHARS ? text : '';
    else run.stderr += run.stderr.length < KEPT_CHARS ? text : '';
    run.outBytes += bytes.byteLength;
    run.outBatches++;
    this.terminal.write(text, fd === 2 ? 'err' : null);
  }

  onMessage(w, run, m) {
    if (this.worker !== w) return;
    if (m.phase) {
      run.phase = m.phase;
      const label = { translate: 'translating…', compile: 'compiling…', run: 'running…' }[m.phase];
      this.setStatus(`<span class="spinner"></span><span class="muted">${label}</span>`);
      if (m.phase === 'run') run.runT = m.t;
    } else if (m.out) {
      // No ring: output posted by the Worker, shown at the next frame.
      this.output(run, m.out, m.chunk);
    } else if (m.done || m.failed) {
      this.finish(w, run, m);
    }
  }

  finish(w, run, m) {
    w.terminate();
    this.worker = null;
    // The last bytes the guest wrote, before the exit status.
    this.drain(run, true);
    $('run-btn').disabled = false;
    $('stop-btn').disabled = true;
    run.endT = performance.timeOrigin + performance.now();
    run.timings = m.timings ?? {};
    const t = run.timings;
    const ms = (x) => (x == null ? '—' : x < 10 ? x.toFixed(1) : x.toFixed(0));
    const first = run.firstOutputT != null ? run.firstOutputT - run.clickT : null;
    run.firstOutputMs = first;
    run.totalMs = run.endT - run.clickT;
    const timing =
      `<span class="timing">translate <b>${ms(t.translate)}</b> ms</span>` +
      `<span class="timing">compile <b>${ms(t.compile)}</b> ms</span>` +
      `<span class="timing">run <b>${ms(t.run)}</b> ms</span>` +
      (first != null ? `<span class="timing" title="from clicking Run to the first byte of output">first output <b>${ms(first)}</b> ms</span>` : '');
    if (m.failed) {
      run.exitCode = null;
      run.error = m.error.message;
      const diags = (m.error.diagnostics ?? []).map((d) => `  ${d.text ?? d.message}`).join('\n');
      this.system(`pexe: ${m.error.message}${diags ? '\n' + diags : ''}`, 'fault');
      this.setStatus(`<span class="exit bad">${escapeHtml(m.error.kind ?? 'error')}</span>${timing}`);
    } else {
      run.exitCode = m.exitCode;
      run.fault = m.fault;
      for (const fd of [1, 2]) {
        const rest = run.decoders[fd].decode();
        if (rest) this.terminal.write(rest, fd === 2 ? 'err' : null);
      }
      if (m.fault) this.system(`pexe: ${m.fault}`, 'fault');
      this.system(`exit status ${m.exitCode}${m.fault ? ' (guest fault)' : ''} · ${ms(run.totalMs)} ms`);
      this.setStatus(`<span class="exit ${m.exitCode === 0 ? 'ok' : 'bad'}" id="exit-status">exit ${m.exitCode}</span>${timing}`);
    }
    run.done = true;
    // The next run's Worker loads now, not while this one ran: loading the
    // package compiles the translator, which took a core from the guest
    // (fasta 250000 ran in 90-200 ms instead of 60).
    this.prepare();
  }

  stop(why = 'stopped') {
    const w = this.worker;
    if (!w) return;
    w.terminate();
    this.worker = null;
    const run = this.lastRun;
    if (run) {
      this.drain(run, true);
      run.done = true;
      run.stopped = true;
    }
    this.system(`${why} by the user`);
    this.setStatus(`<span class="exit bad">${why}</span>`);
    $('run-btn').disabled = false;
    $('stop-btn').disabled = true;
    this.prepare();
  }
}

/** The next animation frame (or now, if the page is hidden meanwhile). */
function nextFrame() {
  return new Promise((resolve) => {
    const done = () => {
      cancelAnimationFrame(id);
      document.removeEventListener('visibilitychange', done);
      resolve();
    };
    const id = requestAnimationFrame(done);
    document.addEventListener('visibilitychange', done);
  });
}

function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
