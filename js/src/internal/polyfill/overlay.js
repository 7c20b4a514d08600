// What the element shows while it loads or after it failed: an `<embed>`
// cannot hold children, so the polyfill draws over its box instead — a
// fixed-position layer in a shadow root (the page's style sheets cannot
// reach it, its own cannot leak), kept on the element's box on every
// frame while it is shown (scrolling, resizing, layout changes).
//
//   loading   a progress bar: download, then translation, then start-up
//   error     "couldn't load": lastError, and the verifier's diagnostics
//             with their byte:bit positions when the pexe is invalid
//   crash     what Chrome's sad-plugin picture said, with the fault

// A box too small to hold the panel (0×0 embeds are common: Stockfish,
// the SDK's examples) gets a compact card at the box's position instead,
// clamped into the viewport, so no state is ever a silent blank box.
// The layer has `data-pexe-overlay` and `data-state` attributes (tests
// and page authors can find it); `PexeConfig.ui = false` turns it off.

const STYLE = `
:host { all: initial; }
.panel {
  box-sizing: border-box; position: fixed; overflow: hidden; pointer-events: auto;
  display: flex; flex-direction: column; justify-content: center; gap: 8px;
  padding: 12px 14px; border-radius: 6px;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #e8eaed; background: #202124; box-shadow: 0 2px 10px rgba(0, 0, 0, 0.35);
}
.panel.compact { justify-content: flex-start; padding-right: 34px; }
.close {
  position: absolute; top: 6px; right: 6px; width: 22px; height: 22px; padding: 0; border: 0; border-radius: 4px;
  font: 16px/22px system-ui, sans-serif; color: #bdc1c6; background: transparent; cursor: pointer;
}
.close:hover { background: #3c4043; color: #fff; }
.panel:not(.compact) .close { display: none; }
.title { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.detail { color: #bdc1c6; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-size: 12px; }
.bar { height: 6px; border-radius: 3px; background: #3c4043; overflow: hidden; }
.fill { height: 100%; width: 0; border-radius: 3px; background: #8ab4f8; transition: width 120ms linear; }
.bar.indeterminate .fill { width: 30%; animation: slide 1.1s ease-in-out infinite; }
@keyframes slide { from { margin-left: -30%; } to { margin-left: 100%; } }
.error .title { color: #f28b82; }
.crash .title { color: #fdd663; }
.message { white-space: pre-wrap; word-break: break-word; user-select: text; }
.list { margin: 0; padding: 0; list-style: none; overflow: auto; font: 12px/1.45 ui-monospace, Menlo, Consolas, monospace; color: #dadce0; user-select: text; }
.list li { white-space: pre-wrap; word-break: break-word; }
`;

/** Minimum panel size; smaller boxes get a compact card. */
const MIN_WIDTH = 220;
const MIN_HEIGHT = 64;

const formatBytes = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`);

export class Overlay {
  constructor(element, name) {
    this.element = element;
    this.name = name;
    this.host = null;
    this.panel = null;
    this.frame = 0;
    this.last = '';
  }

  ensure() {
    if (this.host) return;
    const host = document.createElement('div');
    host.setAttribute('data-pexe-overlay', '');
    host.style.cssText = 'all: initial; position: fixed; left: 0; top: 0; width: 0; height: 0; z-index: 2147483647; pointer-events: none;';
    const root = host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    this.panel = document.createElement('div');
    this.panel.className = 'panel';
    root.append(style, this.panel);
    (document.body ?? document.documentElement).appendChild(host);
    this.host = host;
    this.follow();
  }

  /** Keeps the panel on the element's box, once per frame while shown. */
  follow() {
    cancelAnimationFrame(this.frame);
    const step = () => {
      if (!this.host) return;
      this.place();
      this.frame = requestAnimationFrame(step);
    };
    step();
  }

  place() {
    const el = this.element;
    const p = this.panel;
    if (!el.isConnected || el.getClientRects().length === 0) {
      if (p.style.display !== 'none') p.style.display = 'none';
      return;
    }
    const r = el.getBoundingClientRect();
    const compact = r.width < MIN_WIDTH || r.height < MIN_HEIGHT;
    const w = compact ? Math.min(Math.max(r.width, 320), innerWidth - 16) : r.width;
    const left = compact ? Math.min(Math.max(r.left, 8), Math.max(8, innerWidth - w - 8)) : r.left;
    const top = compact ? Math.min(Math.max(r.top, 8), Math.max(8, innerHeight - 120)) : r.top;
    const key = `${left}|${top}|${w}|${compact ? 'auto' : r.height}|${compact}`;
    if (key === this.last && p.style.display !== 'none') return;
    this.last = key;
    p.style.display = '';
    p.classList.toggle('compact', compact);
    p.style.left = `${left}px`;
    p.style.top = `${top}px`;
    p.style.width = `${w}px`;
    p.style.height = compact ? 'auto' : `${r.height}px`;
    p.style.maxHeight = compact ? `${Math.max(80, innerHeight - top - 8)}px` : '';
  }

  render(state, parts, { closable = false } = {}) {
    this.ensure();
    this.host.setAttribute('data-state', state);
    this.panel.className = `panel ${state}${this.panel.classList.contains('compact') ? ' compact' : ''}`;
    if (closable) {
      // A card over a tiny (often 0×0) element may cover the page: it can be closed.
      const close = document.createElement('button');
      close.className = 'close';
      close.type = 'button';
      close.title = 'Close';
      close.setAttribute('aria-label', 'Close');
      close.textContent = '×';
      close.addEventListener('click', () => this.hide());
      parts = [...parts, close];
    }
    this.panel.replaceChildren(...parts);
    this.last = '';
    this.place();
  }

  /**
   * The loading state: `fraction` in [0, 1], or null while unknown;
   * `detail` a line under the title.
   */
  progress(fraction, detail) {
    if (this.state === 'loading' && this.fill) {
      this.title.textContent = `Loading ${this.name}…`;
      this.update(fraction, detail);
      return;
    }
    this.state = 'loading';
    const title = text('div', 'title', `Loading ${this.name}…`);
    this.title = title;
    const bar = document.createElement('div');
    bar.className = 'bar';
    this.fill = document.createElement('div');
    this.fill.className = 'fill';
    bar.append(this.fill);
    this.detailLine = text('div', 'detail', '');
    this.bar = bar;
    this.render('loading', [title, bar, this.detailLine]);
    this.update(fraction, detail);
  }

  update(fraction, detail) {
    const known = typeof fraction === 'number' && Number.isFinite(fraction);
    this.bar.classList.toggle('indeterminate', !known);
    this.fill.style.width = known ? `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%` : '';
    this.bar.setAttribute('role', 'progressbar');
    if (known) this.bar.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
    this.detailLine.textContent = detail ?? '';
  }

  /** Download progress, as a line of text. */
  static downloadDetail(loaded, total) {
    return total > 0 ? `Downloading: ${formatBytes(loaded)} of ${formatBytes(total)}` : `Downloading: ${formatBytes(loaded)}`;
  }

  /** The failed state: `message` (lastError), and lines (diagnostics) under it. */
  error(title, message, lines = []) {
    this.state = 'error';
    this.fill = null;
    const parts = [text('div', 'title', title), text('div', 'message', message)];
    if (lines.length > 0) {
      const list = document.createElement('ol');
      list.className = 'list';
      for (const line of lines) list.append(text('li', '', line));
      parts.push(list);
    }
    this.render('error', parts, { closable: true });
  }

  /** The crashed state. */
  crash(message, detail) {
    this.state = 'crash';
    this.fill = null;
    const parts = [text('div', 'title', `${this.name} has crashed`), text('div', 'message', message)];
    if (detail) parts.push(text('div', 'message detail', detail));
    this.render('crash', parts, { closable: true });
  }

  hide() {
    cancelAnimationFrame(this.frame);
    this.host?.remove();
    this.host = null;
    this.panel = null;
    this.fill = null;
    this.state = null;
  }
}

function text(tag, className, content) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  el.textContent = content;
  return el;
}
