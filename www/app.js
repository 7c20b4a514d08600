// The page: opening pexes (file, drop, sample, URL), tabs, keyboard,
// downloads; the inspector views (inspector.js) and the runner, which shows
// a program in a terminal (runner.js) or a Pepper plugin in a box with a
// message console (plugin.js).
//
// Deep links: ?url=/corpus/x.pexe streams a URL, ?sample=echo opens a
// bundled sample; #tab=listing picks a tab. With neither, the hello sample
// opens. window.pexeApp exposes the state to the browser tests.

import { Analysis, fetchBytes, formatBytes, listSamples, readFile } from './loader.js';
import { Inspector } from './inspector.js';
import { Runner } from './runner.js';
import { PluginView } from './plugin.js';

const $ = (id) => document.getElementById(id);
const TABS = ['overview', 'listing', 'function', 'diagnostics', 'stats'];

class App {
  constructor() {
    this.analysis = new Analysis();
    this.analysis.onProgress = (p) => this.progress(p);
    this.bytes = null;
    this.summary = null;
    this.fileName = null;
    this.listing = null;
    this.listingPromise = null;
    this.loadToken = 0;
    this.progressLog = [];
    this.tab = 'overview';
    this.inspector = new Inspector(this);
    this.runner = new Runner(this);
    this.plugin = new PluginView(this);
    this.mode = 'program';
    this.wire();
    this.showIsolation();
  }

  wire() {
    document.querySelectorAll('.tab').forEach((t) => t.addEventListener('click', () => this.showTab(t.dataset.tab)));
    document.querySelectorAll('.side-tab').forEach((t) => t.addEventListener('click', () => this.showSide(t.dataset.side)));
    $('open-file').addEventListener('click', () => $('file-input').click());
    $('file-input').addEventListener('change', async (e) => {
      const f = e.target.files?.[0];
      if (f) await this.openFile(f);
      e.target.value = '';
    });
    $('sample-select').addEventListener('change', async (e) => {
      const v = e.target.value;
      if (v) await this.openSample(v);
    });
    $('url-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const url = $('url-input').value.trim();
      if (url) this.openUrl(url);
    });
    // Drag and drop anywhere.
    let depth = 0;
    window.addEventListener('dragenter', (e) => {
      if (![...(e.dataTransfer?.types ?? [])].includes('Files')) return;
      depth++;
      $('drop-overlay').hidden = false;
    });
    window.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (!depth) $('drop-overlay').hidden = true;
    });
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', async (e) => {
      e.preventDefault();
      depth = 0;
      $('drop-overlay').hidden = true;
      const f = e.dataTransfer?.files?.[0];
      if (f) await this.openFile(f);
    });
    // Downloads menu.
    const menu = $('download-menu').querySelector('.menu-items');
    $('download-btn').addEventListener('click', (e) => {
      e.stopPropagation();
      menu.hidden = !menu.hidden;
    });
    document.addEventListener('click', () => (menu.hidden = true));
    menu.querySelectorAll('[data-download]').forEach((b) => b.addEventListener('click', () => this.download(b.dataset.download)));
    $('help-btn').addEventListener('click', () => ($('help').hidden = false));
    $('link-dialog').addEventListener('click', (e) => {
      if (e.target === $('link-dialog')) $('link-dialog').hidden = true;
    });
    $('help').addEventListener('click', (e) => {
      if (e.target === $('help')) $('help').hidden = true;
    });
    $('dock-btn').addEventListener('click', () => this.toggleDock());
    $('run-btn').addEventListener('click', () => this.run());
    $('stop-btn').addEventListener('click', () => this.stop());
    $('clear-btn').addEventListener('click', () => (this.mode === 'plugin' ? this.plugin.clear() : this.runner.clear()));
    document.querySelectorAll('.mode').forEach((b) => {
      b.addEventListener('click', () => this.setMode(b.dataset.mode));
      b.addEventListener('keydown', (e) => {
        if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
          e.preventDefault();
          this.setMode(this.mode === 'program' ? 'plugin' : 'program', { focus: true });
        }
      });
    });
    $('attrs-input').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        this.run();
      }
    });
    document.addEventListener('keydown', (e) => this.key(e));
  }

  showIsolation() {
    const b = $('iso-badge');
    if (globalThis.crossOriginIsolated) {
      b.className = 'iso-badge on';
      b.textContent = 'isolated · threads';
      b.title = 'The page is cross-origin isolated: guest threads run in Workers on shared memory.';
    } else {
      b.className = 'iso-badge off';
      b.textContent = 'not isolated · 1 thread';
      b.title = 'The page is not cross-origin isolated (no COOP/COEP headers): guests run with one thread; thread_create fails.';
    }
  }

  // ------------------------------------------------------------ loading

  begin(name) {
    this.loadToken++;
    this.progressLog = [];
    this.fileName = name;
    this.bytes = null;
    this.summary = null;
    this.listing = null;
    this.listingPromise = null;
    this.inspector.clear();
    $('file-name').textContent = name;
    $('file-name').title = name;
    $('file-meta').textContent = 'loading…';
    $('file-status').hidden = true;
    document.title = `${name} — pexe`;
    return this.loadToken;
  }

  async openFile(file) {
    const token = this.begin(file.name);
    try {
      const bytes = await readFile(file);
      this.progress({ bytesRead: bytes.length, total: bytes.length, phase: 'decode' });
      const r = await this.analysis.openBytes(bytes);
      if (token === this.loadToken) this.loaded(r.summary, bytes, r.ms);
    } catch (e) {
      if (token === this.loadToken) this.failed(e);
    }
  }

  async openSample(name) {
    const sample = (this.samples ?? []).find((s) => s.name === name);
    const file = sample?.file ?? `${name}.pexe`;
    const token = this.begin(file);
    try {
      const bytes = await fetchBytes(`samples/${file}`);
      const r = await this.analysis.openBytes(bytes);
      if (token === this.loadToken) this.loaded(r.summary, bytes, r.ms);
      history.replaceState(null, '', `?sample=${encodeURIComponent(name)}${location.hash}`);
    } catch (e) {
      if (token === this.loadToken) this.failed(e);
    }
    $('sample-select').value = '';
  }

  async openUrl(url) {
    const name = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || url);
    const token = this.begin(name);
    $('url-input').value = url;
    this.progress({ bytesRead: 0, total: null, phase: 'download' });
    try {
      const r = await this.analysis.openUrl(url);
      if (token === this.loadToken) this.loaded(r.summary, r.bytes, r.ms);
      history.replaceState(null, '', `?url=${encodeURIComponent(url)}${location.hash}`);
    } catch (e) {
      if (token === this.loadToken) this.failed(e);
    }
  }

  progress(p) {
    this.progressLog.push({ bytesRead: p.bytesRead, total: p.total ?? null, functionsDecoded: p.functionsDecoded ?? null, phase: p.phase });
    const el = $('progress');
    el.hidden = false;
    const frac = p.total ? Math.min(1, p.bytesRead / p.total) : p.functionsTotal ? p.functionsDecoded / p.functionsTotal : 0.05;
    $('progress-bar').style.width = `${(frac * 100).toFixed(1)}%`;
    const fns = p.functionsTotal ? ` · ${p.functionsDecoded}/${p.functionsTotal} functions decoded` : '';
    const diags = p.diagnostics ? ` · ${p.diagnostics} problems` : '';
    $('progress-text').textContent =
      p.phase === 'finish'
        ? 'finishing…'
        : `${formatBytes(p.bytesRead)}${p.total ? ` of ${formatBytes(p.total)}` : ''}${fns}${diags}`;
  }

  endProgress() {
    $('progress-bar').style.width = '100%';
    setTimeout(() => ($('progress').hidden = true), 250);
  }

  loaded(summary, bytes, ms) {
    this.endProgress();
    this.bytes = bytes;
    this.summary = summary;
    const c = summary.counts;
    $('file-meta').textContent = `${formatBytes(bytes.length)} · ${c.definedFunctions} functions · ${c.instructions.toLocaleString('en-US')} instructions · read in ${ms < 10 ? ms.toFixed(1) : ms.toFixed(0)} ms`;
    const st = $('file-status');
    st.hidden = false;
    if (summary.valid) {
      st.className = 'badge ok';
      st.textContent = 'valid';
    } else {
      st.className = 'badge err';
      st.textContent = summary.decodeError ? 'unreadable' : `${summary.diagnostics.length} problem${summary.diagnostics.length === 1 ? '' : 's'}`;
    }
    this.inspector.showSummary(summary);
    // A Pepper plugin runs in the Plugin view, anything else in the terminal.
    this.setMode(isPepper(summary) ? 'plugin' : 'program');
    this.plugin.opened(this.fileName, isPepper(summary));
    // Enabled even while something runs: a new file's run replaces it.
    $('run-btn').disabled = !summary.valid;
    $('run-btn').title = summary.valid ? 'Run (r)' : 'Not valid PNaCl: it cannot be translated';
    // The listing (and block tree) is computed in the background right away.
    this.ensureListing();
    if (this.tab === 'stats') this.inspector.showStats();
    if (this.tab === 'function') this.showTab('overview');
  }

  failed(e) {
    this.endProgress();
    $('file-meta').textContent = '';
    const st = $('file-status');
    st.hidden = false;
    st.className = 'badge err';
    st.textContent = 'failed';
    $('view-overview').innerHTML = `<div class="empty"><h2>Could not open ${escape(this.fileName ?? '')}</h2><div>${escape(e.message)}</div></div>`;
    this.showTab('overview');
    this.toast(e.message, true);
  }

  /** The full listing, computed once per file (in the worker). */
  ensureListing() {
    if (this.listing) return Promise.resolve(this.listing);
    if (!this.bytes) return Promise.resolve(null);
    if (!this.listingPromise) {
      const token = this.loadToken;
      $('listing-info').textContent = 'disassembling…';
      this.listingPromise = this.analysis.listing().then(
        (l) => {
          if (token !== this.loadToken) return null;
          this.listing = l;
          this.inspector.setListing(l);
          if (l.error) {
            const d = l.error.diagnostics.at(-1);
            const info = $('listing-info');
            const span = document.createElement('span');
            span.className = 'err';
            span.textContent = ` · stops at ${d?.pos ?? 'an error'}: the file cannot be read further`;
            info.title = l.error.message;
            info.append(span);
          }
          return l;
        },
        (e) => {
          if (token === this.loadToken) $('listing-info').textContent = `no listing: ${e.message}`;
          return null;
        },
      );
    }
    return this.listingPromise;
  }

  // ------------------------------------------------------------ tabs, keys

  showTab(name) {
    if (!TABS.includes(name)) return;
    this.tab = name;
    document.querySelectorAll('.tab').forEach((t) => {
      t.classList.toggle('active', t.dataset.tab === name);
      t.setAttribute('aria-selected', String(t.dataset.tab === name));
    });
    for (const t of TABS) $(`view-${t}`).hidden = t !== name;
    if (name === 'listing') this.ensureListing();
    if (name === 'stats' && this.summary) this.inspector.showStats();
    if (name === 'diagnostics') this.inspector.diagList.update();
    if (name === 'listing') this.inspector.listView.update();
  }

  showSide(name) {
    document.querySelectorAll('.side-tab').forEach((t) => {
      t.classList.toggle('active', t.dataset.side === name);
      t.setAttribute('aria-selected', String(t.dataset.side === name));
    });
    $('side-functions').hidden = name !== 'functions';
    $('side-blocks').hidden = name !== 'blocks';
    if (name === 'blocks') {
      this.ensureListing();
      this.inspector.blockList.update();
    } else this.inspector.fnList.update();
  }

  toggleDock() {
    const r = $('runner');
    r.classList.toggle('collapsed');
    const collapsed = r.classList.contains('collapsed');
    $('dock-btn').textContent = collapsed ? '▴' : '▾';
    $('dock-btn').setAttribute('aria-expanded', String(!collapsed));
  }

  // ------------------------------------------------------------ runner

  /** Shows the runner's Program view (terminal) or its Plugin view (box and console). */
  setMode(mode, { focus = false } = {}) {
    if (mode !== 'program' && mode !== 'plugin') return;
    this.mode = mode;
    document.querySelectorAll('.mode').forEach((b) => {
      const on = b.dataset.mode === mode;
      b.classList.toggle('active', on);
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      if (on && focus) b.focus();
    });
    $('runner').dataset.mode = mode;
    $('terminal').hidden = mode !== 'program';
    $('program-fields').hidden = mode !== 'program';
    $('plugin-view').hidden = mode !== 'plugin';
    $('plugin-fields').hidden = mode !== 'plugin';
    if (!this.running) $('run-btn').textContent = mode === 'plugin' ? '▶ Start' : '▶ Run';
  }

  get running() {
    return this.runner.running || this.plugin.running;
  }

  run() {
    if (this.mode === 'plugin') {
      if (this.runner.running) this.runner.stop('restarted');
      return this.plugin.start();
    }
    if (this.plugin.running) this.plugin.stop('restarted');
    return this.runner.run();
  }

  stop() {
    if (this.plugin.running) this.plugin.stop();
    if (this.runner.running) this.runner.stop();
  }

  key(e) {
    const t = e.target;
    const typing = t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement;
    if (e.key === 'Escape') {
      $('help').hidden = true;
      $('link-dialog').hidden = true;
      $('download-menu').querySelector('.menu-items').hidden = true;
      if (typing) t.blur();
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    // The plugin's box has the keyboard while it has focus (Tab leaves it).
    if (t instanceof Element && t.closest('#plugin-box')) return;
    const focusList = (id) => {
      const el = $(id);
      el.focus();
    };
    switch (e.key) {
      case '/':
        e.preventDefault();
        this.showSide('functions');
        $('fn-filter').focus();
        $('fn-filter').select();
        break;
      case 'r':
        e.preventDefault();
        this.run();
        break;
      case 's':
        if (this.running) {
          e.preventDefault();
          this.stop();
        }
        break;
      case 'p':
        e.preventDefault();
        this.setMode(this.mode === 'plugin' ? 'program' : 'plugin');
        break;
      case 'm':
        if (this.mode === 'plugin' && !$('console-input').disabled) {
          e.preventDefault();
          $('console-input').focus();
        }
        break;
      case '1': case '2': case '3': case '4': case '5':
        e.preventDefault();
        this.showTab(TABS[Number(e.key) - 1]);
        if (e.key === '2') focusList('listing');
        if (e.key === '4') focusList('diag-list');
        break;
      case ':':
        e.preventDefault();
        this.showTab('listing');
        $('goto-input').focus();
        $('goto-input').select();
        break;
      case 'f':
        e.preventDefault();
        this.showTab('listing');
        $('find-input').focus();
        $('find-input').select();
        break;
      case 'b':
        e.preventDefault();
        this.showSide('blocks');
        focusList('block-list');
        break;
      case 'F':
        e.preventDefault();
        this.showSide('functions');
        focusList('fn-list');
        break;
      case 'o':
        e.preventDefault();
        $('file-input').click();
        break;
      case 't':
        e.preventDefault();
        this.toggleDock();
        break;
      case '?':
        e.preventDefault();
        $('help').hidden = !$('help').hidden;
        break;
      default:
    }
  }

  toast(message, error = false) {
    document.querySelector('.toast')?.remove();
    const el = document.createElement('div');
    el.className = `toast${error ? ' err' : ''}`;
    el.textContent = message;
    document.body.append(el);
    setTimeout(() => el.remove(), 4000);
  }

  // ------------------------------------------------------------ downloads

  async download(what) {
    $('download-menu').querySelector('.menu-items').hidden = true;
    if (!this.bytes) return this.toast('Open a pexe first', true);
    const base = (this.fileName ?? 'program').replace(/\.pexe$/i, '');
    try {
      if (what === 'pexe') return save(this.bytes, `${base}.pexe`, 'application/x-pnacl');
      if (what === 'wasm') {
        const { wasm, ms } = await this.analysis.translate();
        this.toast(`translated in ${ms.toFixed(0)} ms: ${formatBytes(wasm.byteLength)}`);
        return save(wasm, `${base}.wasm`, 'application/wasm');
      }
      if (what === 'listing') {
        const l = await this.ensureListing();
        if (l) save(l.text, `${base}.txt`, 'text/plain');
        return;
      }
      if (what === 'records') {
        const text = await this.analysis.call('records');
        return save(text, `${base}.records`, 'text/plain');
      }
      const [kind, target] = what.split(':');
      if (kind === 'native') {
        this.toast(`translating for ${target}…`);
        const { bytes, ms } = await this.analysis.call('native', { target });
        this.showSize(what, bytes.byteLength);
        this.toast(`${target} object in ${ms.toFixed(0)} ms: ${formatBytes(bytes.byteLength)}`);
        return save(bytes, `${base}-${target}.o`, 'application/x-object');
      }
      if (kind === 'runtime') {
        const { bytes, name } = await this.analysis.call('runtime', { target });
        this.showSize(what, bytes.byteLength);
        return save(bytes, name, 'application/x-archive');
      }
      if (what === 'link') return this.showLinkCommands(base);
    } catch (e) {
      this.toast(e.message, true);
    }
  }

  /** Tells each item of the Download menu its size once made (native objects, runtime archives). */
  showSize(what, size) {
    const el = document.querySelector(`#download-menu [data-size="${what}"]`);
    if (el) el.textContent = formatBytes(size);
  }

  /** The link commands for the file names the menu saves under, in a dialog with Copy buttons. */
  async showLinkCommands(base) {
    const dialog = $('link-dialog');
    for (const row of dialog.querySelectorAll('.link-row')) {
      const input = row.querySelector('.link-cmd');
      input.value = await this.analysis.call('link-command', { target: row.dataset.target, base });
      row.querySelector('.link-copy').onclick = async () => {
        input.select();
        try {
          await navigator.clipboard.writeText(input.value);
          this.toast('copied');
        } catch {
          // Without clipboard permission the text stays selected for Ctrl+C.
          document.execCommand?.('copy');
        }
      };
    }
    $('link-pepper').hidden = !isPepper(this.summary);
    dialog.hidden = false;
    dialog.querySelector('.link-cmd').select();
  }
}

/** A Pepper plugin: its libc asks the IRT for the Pepper hook (inspect()'s `pepper.plugin`). */
export function isPepper(summary) {
  return summary?.pepper?.plugin ?? (summary?.irt?.interfaces ?? []).some((n) => n.startsWith('nacl-irt-ppapihook'));
}

function save(data, name, type) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function escape(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

async function start() {
  // On a static host, isolation.js may be about to reload the page through
  // its service worker: start nothing before it is settled.
  if (window.pexeIsolation) await window.pexeIsolation;
  const app = new App();
  window.pexeApp = app;
  const samples = await listSamples();
  app.samples = samples;
  const sel = $('sample-select');
  for (const s of samples) {
    const o = document.createElement('option');
    o.value = s.name;
    o.textContent = `${s.name}.pexe — ${s.description}`;
    sel.append(o);
  }
  const params = new URLSearchParams(location.search);
  const hashTab = /tab=(\w+)/.exec(location.hash)?.[1];
  try {
    await app.analysis.ready;
  } catch (e) {
    app.failed(e);
    return;
  }
  if (params.get('url')) await app.openUrl(params.get('url'));
  else if (params.get('sample')) await app.openSample(params.get('sample'));
  else if (samples.length) await app.openSample(samples[0].name);
  else {
    $('view-overview').innerHTML =
      '<div class="empty"><h2>Open a pexe</h2><div>Drop a .pexe anywhere, press <kbd>o</kbd>, or paste a URL above.</div></div>';
  }
  if (hashTab) app.showTab(hashTab);
  document.body.dataset.ready = 'true';
}

start();
