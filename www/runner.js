// The runner's Program view: args/env/stdin fields, a terminal pane, exit
// status and timings (plugin.js is its Plugin view). Each run happens in its own Worker (run-worker.js), started ahead
// of time so the package is already loaded when Run is pressed; Stop
// terminates it (and with it every guest thread's Worker).

import { escapeHtml } from './highlight.js';

const $ = (id) => document.getElementById(id);
const MAX_TERMINAL_CHARS = 256_000;

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
    this.term = $('terminal');
    this.status = $('run-status');
    this.worker = null; // the running one
    this.spare = null; // pre-started for the next run
    this.decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
    this.termChars = 0;
    this.pending = [];
    this.pendingChars = 0;
    this.flushFrame = 0;
    this.endsWithNewline = true;
    this.lastRun = null;
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
    if (this.term.childNodes.length) return;
    const el = document.createElement('span');
    el.className = 'hint';
    el.textContent = 'Output of the program appears here. Press r or ▶ Run; arguments and environment go in the fields above.';
    this.term.append(el);
    this.hintEl = el;
  }

  /** Starts a Worker for the next run, loading the package in the background. */
  prepare() {
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
    this.term.replaceChildren();
    this.termChars = 0;
    this.pending = [];
    this.pendingChars = 0;
    this.flushFrame = 0;
    this.endsWithNewline = true;
    this.hintEl = null;
  }

  dropHint() {
    this.hintEl?.remove();
    this.hintEl = null;
  }

  /**
   * Queues guest or system output for the terminal. A chatty guest sends a
   * message per write: touching the DOM (and reading its layout) for each
   * made output quadratic — 250 KB of fasta took 22 s. Text is gathered
   * and shown once per frame, each flush a node of its own (no copying of
   * one ever-growing text node).
   */
  write(text, cls = null) {
    if (!text) return;
    this.dropHint();
    const last = this.pending.at(-1);
    if (last && last.cls === cls) last.text += text;
    else this.pending.push({ text, cls });
    this.pendingChars += text.length;
    this.endsWithNewline = text.endsWith('\n');
    if (!this.flushFrame) this.flushFrame = requestAnimationFrame(() => this.flush());
  }

  /** Shows the queued output (next frame, or now: a run's end). */
  flush() {
    if (this.flushFrame) cancelAnimationFrame(this.flushFrame);
    this.flushFrame = 0;
    if (!this.pending.length) return;
    // More than the terminal keeps (a burst, or a hidden page without
    // frames): only the end of it is shown.
    let drop = this.pendingChars - MAX_TERMINAL_CHARS;
    if (drop > 0) {
      this.term.replaceChildren();
      this.termChars = 0;
      while (drop > 0) {
        const p = this.pending[0];
        const n = Math.min(drop, p.text.length);
        if (n === p.text.length) this.pending.shift();
        else p.text = p.text.slice(n);
        this.pendingChars -= n;
        drop -= n;
      }
    }
    const atBottom = this.term.scrollHeight - this.term.scrollTop - this.term.clientHeight < 30;
    const nodes = this.pending.map(({ text, cls }) => {
      if (!cls) return document.createTextNode(text);
      const span = document.createElement('span');
      span.className = cls;
      span.textContent = text;
      return span;
    });
    this.term.append(...nodes);
    this.termChars += this.pendingChars;
    this.pending = [];
    this.pendingChars = 0;
    // Keep the page responsive with chatty guests: the terminal holds the
    // last MAX_TERMINAL_CHARS characters (each frame lays out all it holds).
    while (this.termChars > MAX_TERMINAL_CHARS && this.term.firstChild) {
      const first = this.term.firstChild;
      const len = first.textContent.length;
      const excess = this.termChars - MAX_TERMINAL_CHARS;
      if (len <= excess) {
        first.remove();
        this.termChars -= len;
      } else {
        const text = first.nodeType === Node.TEXT_NODE ? first : first.firstChild;
        // Cut at a line's end where there is one, so no partial line shows.
        const cut = text.data.indexOf('\n', excess);
        const n = cut >= 0 && cut < len - 1 ? cut + 1 : excess;
        text.deleteData(0, n);
        this.termChars -= n;
      }
    }
    if (atBottom) this.term.scrollTop = this.term.scrollHeight;
  }

  system(text, extra = '') {
    this.dropHint();
    const needsNewline = (this.termChars + this.pendingChars) > 0 && !this.endsWithNewline;
    this.write(`${needsNewline ? '\n' : ''}${text}\n`, `sys${extra ? ' ' + extra : ''}`);
    this.flush();
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
    const run = { threads, clickT, firstOutputT: null, exitCode: null, fault: null, timings: null, stdout: '', stderr: '', phase: 'load' };
    this.lastRun = run;
    window.__pexeLastRun = run; // for the browser tests
    $('run-btn').disabled = true;
    $('stop-btn').disabled = false;
    this.decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
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
    this.prepare(); // the next run's worker loads while this one runs
    const pexe = app.bytes.slice();
    w.postMessage({ pexe, args, env, stdin, threads }, [pexe.buffer]);
  }

  onMessage(w, run, m) {
    if (this.worker !== w) return;
    if (m.phase) {
      run.phase = m.phase;
      const label = { translate: 'translating…', compile: 'compiling…', run: 'running…' }[m.phase];
      this.setStatus(`<span class="spinner"></span><span class="muted">${label}</span>`);
      if (m.phase === 'run') run.runT = m.t;
    } else if (m.out) {
      const text = this.decoders[m.out].decode(m.chunk, { stream: true });
      if (run.firstOutputT === null && text.length) {
        run.firstOutputT = performance.timeOrigin + performance.now();
      }
      // The tests read what the guest wrote (the terminal keeps the last 256 K characters).
      if (m.out === 1) run.stdout += run.stdout.length < 16_000_000 ? text : '';
      else run.stderr += run.stderr.length < 16_000_000 ? text : '';
      run.outBytes = (run.outBytes ?? 0) + m.chunk.byteLength;
      run.outChunks = (run.outChunks ?? 0) + 1;
      this.write(text, m.out === 2 ? 'err' : null);
    } else if (m.done || m.failed) {
      this.finish(w, run, m);
    }
  }

  finish(w, run, m) {
    w.terminate();
    this.worker = null;
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
        const rest = this.decoders[fd].decode();
        if (rest) this.write(rest, fd === 2 ? 'err' : null);
      }
      if (m.fault) this.system(`pexe: ${m.fault}`, 'fault');
      this.system(`exit status ${m.exitCode}${m.fault ? ' (guest fault)' : ''} · ${ms(run.totalMs)} ms`);
      this.setStatus(`<span class="exit ${m.exitCode === 0 ? 'ok' : 'bad'}" id="exit-status">exit ${m.exitCode}</span>${timing}`);
    }
    run.done = true;
  }

  stop(why = 'stopped') {
    const w = this.worker;
    if (!w) return;
    w.terminate();
    this.worker = null;
    const run = this.lastRun;
    if (run) {
      run.done = true;
      run.stopped = true;
    }
    this.system(`${why} by the user`);
    this.setStatus(`<span class="exit bad">${why}</span>`);
    $('run-btn').disabled = false;
    $('stop-btn').disabled = true;
  }
}

function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
