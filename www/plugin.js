// The runner's Plugin view: a Pepper plugin (a pexe that asks for
// nacl-irt-ppapihook-0.1) runs in a box on the page, beside a message
// console. A line typed in the console is posted to the plugin as a string
// message; the plugin's messages are listed (strings as text, other values
// as JSON), with the element's lifecycle events: load, error (lastError),
// crash (exitStatus). Starting a plugin goes through plugin-host.js.
//
// window.__pexePlugin exposes the current instance's events and messages to
// the browser tests.

import { startPlugin } from './plugin-host.js';
import { splitArgs } from './runner.js';

const $ = (id) => document.getElementById(id);
/** Console entries kept (a chatty engine posts thousands of lines). */
const MAX_ENTRIES = 5000;
const HISTORY = 100;

/** Parses `name=value name2="two words"` into DidCreate's [name, value] pairs, in order. */
export function parseAttributes(s) {
  const out = [];
  for (const item of splitArgs(s)) {
    const eq = item.indexOf('=');
    if (eq > 0) out.push([item.slice(0, eq), item.slice(eq + 1)]);
    else if (item) out.push([item, '']);
  }
  return out;
}

/** A plugin's message as one console line: strings as they are, anything else as JSON. */
export function messageText(value) {
  if (typeof value === 'string') return value;
  try {
    const json = JSON.stringify(value, (key, v) => {
      if (v instanceof ArrayBuffer) return { ArrayBuffer: v.byteLength };
      if (ArrayBuffer.isView(v)) return { [v.constructor.name]: v.length };
      return v === undefined ? null : v;
    });
    return json ?? String(value);
  } catch {
    return String(value);
  }
}

export class PluginView {
  constructor(app) {
    this.app = app;
    this.box = $('plugin-box');
    this.log = $('console-log');
    this.input = $('console-input');
    this.instance = null;
    this.state = null; // what window.__pexePlugin shows
    this.history = [];
    this.historyAt = 0;
    this.outBuf = { 1: '', 2: '' };
    $('console-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.send();
    });
    this.input.addEventListener('keydown', (e) => this.inputKey(e));
    this.hint();
  }

  /** A plugin is starting or running. */
  get running() {
    return this.token != null;
  }

  /** A new file is open: the idle box says what starting would do. */
  opened(name, isPlugin) {
    if (this.running) return;
    this.box.dataset.state = '';
    $('plugin-placeholder').textContent = isPlugin
      ? `${name}: press r or ▶ Start to run it here.`
      : `${name} is not a Pepper plugin (it runs in the Program view, p). Open a pexe that asks for nacl-irt-ppapihook-0.1.`;
  }

  hint() {
    if (this.log.childElementCount) return;
    this.entry('hint', 'Messages to and from the plugin appear here. Start it with r or ▶ Run, then type a line below (m).');
  }

  clear() {
    this.log.replaceChildren();
    if (!this.running) this.hint();
  }

  /** Appends one console line: kind is in (from the plugin), out (sent), event, log, err, out-fd, hint. */
  entry(kind, text, { label = null } = {}) {
    this.log.querySelector('.c-hint')?.remove();
    const atBottom = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 30;
    const li = document.createElement('li');
    li.className = `c-${kind}`;
    if (label) {
      const l = document.createElement('span');
      l.className = 'c-label';
      l.textContent = label;
      li.append(l);
    }
    li.append(text);
    this.log.append(li);
    while (this.log.childElementCount > MAX_ENTRIES) this.log.firstElementChild.remove();
    if (atBottom) this.log.scrollTop = this.log.scrollHeight;
    return li;
  }

  setStatus(html) {
    $('run-status').innerHTML = html;
  }

  async start() {
    const app = this.app;
    if (!app.bytes) {
      app.toast('Open a pexe first', true);
      return;
    }
    if (this.running) this.stop('restarted');
    const name = app.fileName ?? 'plugin.pexe';
    const attributes = parseAttributes($('attrs-input').value);
    const attr = Object.fromEntries(attributes.map(([k, v]) => [k.toLowerCase(), v]));
    // The element as a page would have written it: the box takes its size.
    const full = [['type', 'application/x-pnacl'], ['src', name], ...attributes.filter(([k]) => !/^(type|src)$/i.test(k))];
    const size = (v, fallback) => (/^\d+$/.test(v ?? '') ? Number(v) : fallback);
    this.box.style.setProperty('--plugin-w', `${size(attr.width, 200)}px`);
    this.box.style.setProperty('--plugin-h', `${size(attr.height, 150)}px`);
    $('plugin-placeholder').textContent = `${name}: starting…`;
    this.box.dataset.state = 'loading';
    $('plugin-caption').textContent = `<embed ${full.map(([k, v]) => `${k}="${v}"`).join(' ')}>`;

    const state = { name, events: [], messages: [], sent: [], loaded: false, done: false, lastError: null, exitStatus: null };
    this.state = state;
    window.__pexePlugin = state;
    const t0 = performance.now();
    this.entry('event', `${name}`, { label: 'start' });
    this.setStatus('<span class="spinner"></span><span class="muted">translating…</span>');
    $('run-btn').disabled = true;
    $('stop-btn').disabled = false;
    this.outBuf = { 1: '', 2: '' };
    const token = {};
    this.token = token;
    const instance = await startPlugin(
      this.box,
      { pexe: app.bytes, name, attributes: full, translate: () => this.translate(app.loadToken) },
      (event) => {
        if (this.state === state) this.onEvent(state, event, t0);
      },
    );
    if (this.token !== token) {
      instance.destroy(); // stopped while it started, or it failed to start
      return;
    }
    this.instance = instance;
  }

  /** The open file's WebAssembly, from the analysis Worker, if it is still the file this plugin started from. */
  async translate(loadToken) {
    const { wasm } = await this.app.analysis.translate();
    if (this.app.loadToken !== loadToken) throw new Error('another file was opened while this one was translated');
    return wasm;
  }

  onEvent(state, ev, t0) {
    state.events.push({ type: ev.type, ...(ev.lastError != null ? { lastError: ev.lastError } : {}), ...(ev.exitStatus != null ? { exitStatus: ev.exitStatus } : {}) });
    const ms = () => `${(performance.now() - t0).toFixed(0)} ms`;
    // Stopped by the page: what the instance says as it goes is of no interest.
    if (state.stopped && ev.type !== 'loadend') return;
    switch (ev.type) {
      case 'progress': {
        const label = { translate: 'translating…', compile: 'compiling…', start: 'starting…' }[ev.phase] ?? ev.phase;
        this.setStatus(`<span class="spinner"></span><span class="muted">${label}</span>`);
        break;
      }
      case 'load':
        state.loaded = true;
        state.loadMs = performance.now() - t0;
        this.box.dataset.state = 'running';
        $('plugin-placeholder').textContent = `${state.name}: running (it has drawn nothing yet); it talks through the console.`;
        this.entry('event', `the plugin has loaded · ${ms()}`, { label: 'load' });
        this.setStatus(`<span class="exit ok" id="plugin-state">running</span><span class="timing">loaded in <b>${ms()}</b></span>`);
        this.input.disabled = false;
        $('console-send').disabled = false;
        break;
      case 'message':
        state.messages.push(ev.data);
        this.entry('in', messageText(ev.data), { label: '←' });
        break;
      case 'log':
        this.entry(ev.level === 'error' ? 'err' : 'log', ev.text, { label: ev.level ?? 'log' });
        break;
      case 'output': {
        // stdout/stderr of the plugin (printf): whole lines.
        const buf = this.outBuf[ev.fd] + ev.text;
        const lines = buf.split('\n');
        this.outBuf[ev.fd] = lines.pop();
        for (const line of lines) this.entry(ev.fd === 2 ? 'stderr' : 'stdout', line, { label: ev.fd === 2 ? 'stderr' : 'stdout' });
        break;
      }
      case 'missing':
        this.entry('log', `the plugin asked for ${ev.name}, which this runtime does not provide`, { label: 'missing' });
        break;
      case 'error':
        state.lastError = ev.lastError;
        if (ev.exitStatus != null) state.exitStatus = ev.exitStatus;
        this.end(state, 'error', ev.lastError);
        if (ev.fault) this.entry('log', ev.fault, { label: 'fault' });
        this.entry('err', ev.lastError, { label: 'error' });
        this.setStatus(`<span class="exit bad" id="plugin-state">error</span>`);
        break;
      case 'crash':
        state.lastError = ev.lastError;
        state.exitStatus = ev.exitStatus;
        this.end(state, 'crashed', `${ev.lastError} · exitStatus ${ev.exitStatus}`);
        if (ev.fault) this.entry('log', ev.fault, { label: 'fault' });
        this.entry('err', `${ev.lastError} · exitStatus ${ev.exitStatus}`, { label: 'crash' });
        this.setStatus(`<span class="exit bad" id="plugin-state">crashed · exit ${ev.exitStatus}</span>`);
        break;
      case 'ended':
        this.end(state, 'stopped', 'stopped');
        break;
      default:
        break;
    }
  }

  end(state, boxState, text) {
    state.done = true;
    this.token = null;
    for (const fd of [1, 2]) {
      if (this.outBuf[fd]) this.entry(fd === 2 ? 'stderr' : 'stdout', this.outBuf[fd], { label: fd === 2 ? 'stderr' : 'stdout' });
      this.outBuf[fd] = '';
    }
    this.instance = null;
    this.box.dataset.state = boxState;
    $('plugin-placeholder').textContent = `${state.name}: ${text}`;
    this.input.disabled = true;
    $('console-send').disabled = true;
    $('run-btn').disabled = !this.app.summary?.valid;
    $('stop-btn').disabled = true;
  }

  /** Posts the console line to the plugin as a string message. */
  send() {
    const line = this.input.value;
    if (!this.instance) {
      this.app.toast('No plugin is running (r starts it)', true);
      return;
    }
    this.instance.postMessage(line);
    this.state.sent.push(line);
    this.entry('out', line, { label: '→' });
    if (line && this.history.at(-1) !== line) this.history.push(line);
    if (this.history.length > HISTORY) this.history.shift();
    this.historyAt = this.history.length;
    this.input.value = '';
  }

  inputKey(e) {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    this.historyAt = Math.max(0, Math.min(this.history.length, this.historyAt + (e.key === 'ArrowUp' ? -1 : 1)));
    this.input.value = this.history[this.historyAt] ?? '';
  }

  stop(why = 'stopped') {
    if (!this.running) return;
    const instance = this.instance;
    this.token = null;
    this.instance = null;
    instance?.destroy();
    if (this.state) {
      this.state.stopped = true;
      this.end(this.state, 'stopped', `${why} by the user`);
    }
    this.entry('event', `${why} by the user`, { label: 'stop' });
    this.setStatus(`<span class="exit bad" id="plugin-state">${why}</span>`);
  }
}
