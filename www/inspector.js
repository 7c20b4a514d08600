// The inspector's views: overview (header and contents), functions list,
// block tree, the three-column listing (virtualized), one function's
// PNaClAsm beside its WebAssembly text, verifier diagnostics, statistics.
//
// It renders what the analysis worker computed (loader.js); the page
// (app.js) owns tabs, keyboard and loading.

import { VirtualList } from './vlist.js';
import { escapeHtml, highlightAsm, highlightWat } from './highlight.js';
import { formatBytes } from './loader.js';

const $ = (id) => document.getElementById(id);
const ROW = 18;
const fmt = (n) => (n == null ? '—' : Number(n).toLocaleString('en-US'));
const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(2)}%` : '—');
const bitPos = (bit) => `${Math.floor(bit / 8)}:${bit % 8}`;

export class Inspector {
  constructor(app) {
    this.app = app;
    this.summary = null;
    this.listing = null;
    this.functions = []; // FunctionSummary rows currently shown (filtered, sorted)
    this.errLines = new Set();
    this.findHit = -1;

    this.fnList = new VirtualList($('fn-list'), {
      rowHeight: ROW,
      render: (i, el) => this.renderFunctionRow(i, el),
      onActivate: (i) => this.openFunction(this.functions[i].id, { focus: false }),
    });
    this.blockRows = [];
    this.expanded = new Set();
    this.blockList = new VirtualList($('block-list'), {
      rowHeight: ROW,
      render: (i, el) => this.renderBlockRow(i, el),
      onActivate: (i, e) => this.activateBlock(i, e),
    });
    $('block-list').addEventListener('keydown', (e) => this.blockKey(e));
    this.listView = new VirtualList($('listing'), {
      rowHeight: ROW,
      render: (i, el) => this.renderListingRow(i, el),
      onActivate: () => {},
    });
    this.diagList = new VirtualList($('diag-list'), {
      rowHeight: ROW,
      render: (i, el) => this.renderDiagRow(i, el),
      onActivate: (i) => this.jumpToDiagnostic(i),
    });

    $('fn-filter').addEventListener('input', () => this.refreshFunctions());
    $('fn-filter').addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'Enter') {
        e.preventDefault();
        $('fn-list').focus();
        if (this.functions.length) this.fnList.select(Math.max(0, this.fnList.selected), { scroll: true });
        if (e.key === 'Enter' && this.functions.length) this.fnList.onActivate(this.fnList.selected);
      }
    });
    $('fn-sort').addEventListener('change', () => this.refreshFunctions());
    $('goto-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.gotoText($('goto-input').value.trim());
    });
    $('find-form').addEventListener('submit', (e) => e.preventDefault());
    $('find-input').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        this.find($('find-input').value, e.shiftKey ? -1 : 1);
      }
    });
  }

  // ------------------------------------------------------------ whole file

  clear() {
    this.summary = null;
    this.listing = null;
    this.errLines = new Set();
    this.functions = [];
    this.fnList.setCount(0);
    this.blockRows = [];
    this.blockList.setCount(0);
    this.listView.setCount(0);
    this.diagList.setCount(0);
    $('fn-count').textContent = '';
    $('block-count').textContent = '';
    $('diag-count').textContent = '';
    $('listing-info').textContent = '';
    $('fn-title').innerHTML = '<span class="muted">Pick a function in the list (Enter).</span>';
    $('fn-asm').textContent = '';
    $('fn-wat').textContent = '';
    $('view-stats').replaceChildren();
    this.statsShown = false;
  }

  showSummary(summary) {
    this.summary = summary;
    this.maxFnBytes = Math.max(1, ...summary.functions.map((f) => f.bytes ?? 0));
    const defined = summary.functions.filter((f) => f.defined).length;
    $('fn-count').textContent = `${defined}/${summary.functions.length}`;
    this.refreshFunctions();
    const n = summary.diagnostics.length;
    $('diag-count').textContent = n ? String(n) : '';
    $('diag-count').classList.toggle('err', n > 0);
    this.diagList.setCount(n);
    this.renderDiagSummary();
    this.renderOverview();
  }

  // ------------------------------------------------------------ overview

  renderOverview() {
    const s = this.summary;
    const view = $('view-overview');
    const h = s.header;
    const c = s.counts;
    const entry = s.entryPoint != null ? s.functions[s.entryPoint] : null;
    const largest = s.functions.filter((f) => f.defined).sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0)).slice(0, 8);
    const headerFields = h
      ? h.fields
          .map((f) => {
            const what = f.tag === 1 ? 'PNaCl version' : f.tag === 2 ? 'align bitcode records' : `tag ${f.tag}`;
            const val = f.value != null ? f.value : f.type === 'flag' ? 'set' : `[${f.data.join(', ')}]`;
            return `<dt>${escapeHtml(what)}</dt><dd>${escapeHtml(String(val))} <span class="muted">(${f.type})</span></dd>`;
          })
          .join('')
      : '';
    const chip = (t, cls = '') => `<span class="chip ${cls}">${escapeHtml(t)}</span>`;
    const status = s.valid
      ? '<span class="badge ok">valid PNaCl — translates</span>'
      : s.decodeError
        ? '<span class="badge err">unreadable</span>'
        : `<span class="badge err">${s.diagnostics.length} ABI problem${s.diagnostics.length === 1 ? '' : 's'}</span>`;
    const diags = s.diagnostics
      .slice(0, 6)
      .map((d, i) => `<div><button class="link" data-diag="${i}">${escapeHtml(d.pos)}</button> ${escapeHtml(d.message)}</div>`)
      .join('');
    view.innerHTML = `
      <div class="overview">
        <div class="card">
          <h3>File</h3>
          <dl class="kv">
            <dt>name</dt><dd>${escapeHtml(this.app.fileName ?? '')}</dd>
            <dt>size</dt><dd>${fmt(s.size)} bytes (${formatBytes(s.size)})</dd>
            <dt>status</dt><dd>${status}</dd>
            ${h ? `<dt>magic</dt><dd>${escapeHtml(h.magic)}</dd><dt>header</dt><dd>${h.size} bytes, ${h.fields.length} field${h.fields.length === 1 ? '' : 's'}</dd>${headerFields}` : '<dt>header</dt><dd>unreadable</dd>'}
            <dt>module version</dt><dd>${s.version ?? '—'}</dd>
            <dt>entry point</dt><dd>${entry ? `<button class="link" data-fn="${entry.id}">@f${entry.id} ${escapeHtml(entry.name ?? '')}</button>` : '<span class="muted">none</span>'}</dd>
          </dl>
        </div>
        <div class="card">
          <h3>Contents</h3>
          <div class="big-numbers">
            <div><b>${fmt(c.definedFunctions)}</b><span>functions with bodies</span></div>
            <div><b>${fmt(c.instructions)}</b><span>instructions</span></div>
            <div><b>${fmt(c.blocks)}</b><span>basic blocks</span></div>
            <div><b>${fmt(c.globals)}</b><span>globals (${formatBytes(c.globalBytes)})</span></div>
            <div><b>${fmt(c.types)}</b><span>types</span></div>
            <div><b>${fmt(c.constants)}</b><span>constants</span></div>
          </div>
          <dl class="kv" style="margin-top:10px">
            <dt>declared functions</dt><dd>${fmt(c.functions)} (${fmt(c.intrinsics)} intrinsics)</dd>
          </dl>
        </div>
        <div class="card">
          <h3>What it needs from its host</h3>
          <div class="muted" style="margin-bottom:6px">IRT interfaces it asks for</div>
          <div class="chips">${s.irt.interfaces.map((n) => chip(n, !s.irt.unsupported.includes(n) ? 'good' : /ppapi/.test(n) ? 'bad' : 'off')).join('') || '<span class="muted">none named</span>'}</div>
          ${s.irt.unsupported.length ? `<div class="muted" style="margin:8px 0 0">Dashed: not answered by the JavaScript runtime (libc asks for several versions of some interfaces and uses the one answered).${s.irt.unsupported.some((n) => /ppapi/.test(n)) ? ' <b style="color:var(--err)">Red</b>: a Pepper plugin — it starts only inside a browser embedding of the Pepper API, not in this runner.' : ''}</div>` : ''}
          <div class="muted" style="margin:10px 0 6px">Intrinsics</div>
          <div class="chips">${s.irt.intrinsics.map((n) => chip(n)).join('') || '<span class="muted">none</span>'}</div>
        </div>
        <div class="card">
          <h3>Largest functions</h3>
          <table class="grid">
            <tr><th class="l">function</th><th>bytes</th><th>insts</th></tr>
            ${largest
              .map(
                (f) =>
                  `<tr><td class="l"><button class="link" data-fn="${f.id}">@f${f.id}</button> ${escapeHtml(f.name ?? '')}</td><td>${fmt(f.bytes)}</td><td>${fmt(f.instructions)}</td></tr>`,
              )
              .join('')}
          </table>
        </div>
        ${s.diagnostics.length ? `<div class="card wide"><h3>Diagnostics</h3>${diags}${s.diagnostics.length > 6 ? `<div class="muted">… ${s.diagnostics.length - 6} more in the Diagnostics tab</div>` : ''}</div>` : ''}
      </div>`;
    view.querySelectorAll('[data-fn]').forEach((b) => b.addEventListener('click', () => this.openFunction(Number(b.dataset.fn))));
    view.querySelectorAll('[data-diag]').forEach((b) => b.addEventListener('click', () => this.jumpToDiagnostic(Number(b.dataset.diag))));
  }

  // ------------------------------------------------------------ functions list

  refreshFunctions() {
    if (!this.summary) return;
    const q = $('fn-filter').value.trim().toLowerCase();
    let rows = this.summary.functions;
    if (q) {
      const idq = q.replace(/^@?f/, '');
      rows = rows.filter((f) => (f.name ?? '').toLowerCase().includes(q) || String(f.id) === idq || `@f${f.id}` === q);
    }
    const sort = $('fn-sort').value;
    if (sort === 'size') rows = [...rows].sort((a, b) => (b.bytes ?? -1) - (a.bytes ?? -1) || a.id - b.id);
    else if (sort === 'name') rows = [...rows].sort((a, b) => (a.name ?? '\uffff').localeCompare(b.name ?? '\uffff') || a.id - b.id);
    this.functions = rows;
    this.fnList.selected = -1;
    this.fnList.setCount(rows.length);
  }

  renderFunctionRow(i, el) {
    const f = this.functions[i];
    el.className = `vrow fn-row${f.defined ? '' : ' decl'}`;
    const name = f.name ?? (f.defined ? '(no name)' : '(declaration)');
    const width = f.bytes ? Math.max(2, Math.round((f.bytes / this.maxFnBytes) * 100)) : 0;
    el.title = `@f${f.id} ${f.name ?? ''}\n${f.linkage} ${f.type}${f.defined ? `\n${f.bytes} bytes, ${f.instructions} instructions, ${f.blocks} blocks` : '\n(declaration)'}`;
    el.innerHTML =
      `<span class="id">@f${f.id}</span><span class="name${f.name ? '' : ' anon'}">${escapeHtml(name)}</span>` +
      `<span class="num size" style="--w:${width}%">${f.bytes != null ? fmt(f.bytes) : ''}</span><span class="num">${f.instructions != null ? fmt(f.instructions) : ''}</span>`;
  }

  selectFunctionInList(id) {
    const i = this.functions.findIndex((f) => f.id === id);
    if (i >= 0) this.fnList.select(i, { scroll: true });
  }

  async openFunction(id, { focus = true } = {}) {
    const f = this.summary?.functions[id];
    if (!f) return;
    this.currentFunction = id;
    this.app.showTab('function');
    this.selectFunctionInList(id);
    const title = $('fn-title');
    title.innerHTML =
      `<span class="sig">${highlightAsm(`${f.defined ? 'define' : 'declare'} ${f.linkage} ${f.type.replace('(', ` @f${f.id}(`)}`)}</span>` +
      `<span>${escapeHtml(f.name ?? '')}</span>` +
      (f.defined
        ? `<span class="facts">${fmt(f.bytes)} bytes · ${fmt(f.instructions)} instructions · ${fmt(f.blocks)} blocks · ${fmt(f.constants)} constants · at ${escapeHtml(f.pos)}</span>` +
          ` <button class="link" id="fn-in-listing">show in listing</button>`
        : '<span class="facts">declaration only</span>');
    $('fn-in-listing')?.addEventListener('click', () => this.showFunctionInListing(id));
    const asmEl = $('fn-asm');
    const watEl = $('fn-wat');
    if (!f.defined) {
      asmEl.innerHTML = `<span class="placeholder">@f${f.id} has no body${f.intrinsic ? ': it is a PNaCl intrinsic, which the translator expands inline' : ''}.</span>`;
      watEl.innerHTML = '';
      $('asm-info').textContent = '';
      $('wat-info').textContent = '';
      return;
    }
    asmEl.innerHTML = '<span class="placeholder">disassembling…</span>';
    watEl.innerHTML = '<span class="placeholder">translating…</span>';
    let r;
    try {
      r = await this.app.analysis.functionText(id);
    } catch (e) {
      asmEl.innerHTML = `<span class="placeholder">${escapeHtml(e.message)}</span>`;
      watEl.innerHTML = '';
      return;
    }
    if (this.currentFunction !== id) return;
    const big = (t) => t.length > 600_000;
    asmEl.innerHTML = big(r.asm) ? escapeHtml(r.asm) : highlightAsm(r.asm);
    $('asm-info').textContent = `${fmt(r.asm.split('\n').length - 1)} lines`;
    if (r.wat != null) {
      watEl.innerHTML = big(r.wat) ? escapeHtml(r.wat) : highlightWat(r.wat);
      $('wat-info').textContent = `${fmt(r.wat.split('\n').length - 1)} lines`;
    } else {
      watEl.innerHTML = `<span class="placeholder">${escapeHtml(r.watError ?? 'not available')}</span>`;
      $('wat-info').textContent = '';
    }
    asmEl.scrollTop = 0;
    watEl.scrollTop = 0;
    if (focus) asmEl.focus({ preventScroll: true });
  }

  async showFunctionInListing(id) {
    const l = await this.app.ensureListing();
    const b = l?.blocks.find((b) => b.fn === id);
    if (b) this.gotoLine(b.line);
  }

  // ------------------------------------------------------------ listing

  setListing(listing) {
    this.listing = listing;
    const n = listing.lineStarts.length - 1;
    this.errLines = new Set();
    for (const d of this.summary?.diagnostics ?? []) {
      const line = this.lineForBit(d.byte * 8 + d.bit);
      if (line >= 0) this.errLines.add(line);
    }
    this.listView.setCount(n);
    $('listing-info').textContent = `${fmt(n)} lines · ${formatBytes(listing.text.length)} of text · ${listing.ms.toFixed(0)} ms`;
    this.buildBlockRows();
  }

  line(i) {
    const l = this.listing;
    let end = l.lineStarts[i + 1];
    if (end > l.lineStarts[i] && l.text.charCodeAt(end - 1) === 10) end--;
    return l.text.slice(l.lineStarts[i], end);
  }

  renderListingRow(i, el) {
    const text = this.line(i);
    const a = text.indexOf('|');
    const b = a < 0 ? -1 : text.indexOf('|', a + 1);
    let cls = 'vrow lrow';
    if (this.errLines.has(i)) cls += ' err';
    if (i === this.findHit) cls += ' hit';
    el.className = cls;
    if (a < 0) {
      el.innerHTML = `<span class="c-pos"></span><span class="c-rec"></span><span class="c-asm">${highlightAsm(text)}</span>`;
      return;
    }
    const pos = text.slice(0, a).trim();
    const rec = b < 0 ? text.slice(a + 1) : text.slice(a + 1, b);
    const asm = b < 0 ? '' : text.slice(b + 1);
    el.innerHTML =
      `<span class="c-pos">${escapeHtml(pos)}</span><span class="c-rec">${escapeHtml(rec)}</span>` +
      `<span class="c-asm">${highlightAsm(asm)}</span>`;
  }

  /** The line of the record holding `bit`: the last line whose position is <= bit. */
  lineForBit(bit) {
    const pos = this.listing?.linePos;
    if (!pos || !pos.length) return -1;
    let lo = 0;
    let hi = pos.length - 1;
    // First line with pos >= bit.
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pos[mid] < bit) lo = mid + 1;
      else hi = mid;
    }
    if (pos[lo] > bit || pos[lo] < bit) {
      // Not an exact record start: the record that contains it starts earlier.
      let l = pos[lo] > bit ? lo - 1 : lo;
      while (l > 0 && pos[l - 1] === pos[l]) l--;
      return Math.max(0, l);
    }
    // Exact: the first line carrying that position.
    return lo;
  }

  gotoLine(line, { focus = true } = {}) {
    this.app.showTab('listing');
    this.listView.scrollToIndex(line, { center: true, select: true });
    requestAnimationFrame(() => this.listView.flash(line));
    if (focus) $('listing').focus({ preventScroll: true });
  }

  async gotoBit(bit) {
    await this.app.ensureListing();
    const line = this.lineForBit(bit);
    if (line >= 0) this.gotoLine(line);
    return line;
  }

  async gotoText(t) {
    let m;
    if ((m = /^(\d+):([0-7])$/.exec(t))) return this.gotoBit(Number(m[1]) * 8 + Number(m[2]));
    if ((m = /^(?:line\s*)?(\d+)$/i.exec(t))) {
      await this.app.ensureListing();
      return this.gotoLine(Math.min(Number(m[1]), this.listView.count) - 1);
    }
    if ((m = /^@?f(\d+)$/.exec(t))) return this.showFunctionInListing(Number(m[1]));
    this.app.toast(`Go to: "${t}" is not byte:bit, a line number or @fN`, true);
  }

  async find(q, dir) {
    if (!q) return;
    const l = await this.app.ensureListing();
    if (!l) return;
    const from = this.findHit >= 0 ? this.findHit : Math.max(0, this.listView.selected);
    const start = dir > 0 ? l.lineStarts[Math.min(from + 1, l.lineStarts.length - 1)] : l.lineStarts[from];
    let at = dir > 0 ? l.text.indexOf(q, start) : start > 0 ? l.text.lastIndexOf(q, start - 1) : -1;
    if (at < 0) at = dir > 0 ? l.text.indexOf(q) : l.text.lastIndexOf(q); // wrap
    if (at < 0) {
      this.app.toast(`not found: ${q}`, true);
      return;
    }
    // Line containing offset `at`.
    let lo = 0;
    let hi = l.lineStarts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (l.lineStarts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    this.findHit = lo;
    this.listView.invalidate();
    this.gotoLine(lo, { focus: false });
  }

  // ------------------------------------------------------------ block tree

  buildBlockRows() {
    const blocks = this.listing?.blocks ?? [];
    $('block-count').textContent = blocks.length ? String(blocks.length) : '';
    if (this.expanded.size === 0 && blocks.length) this.expanded.add(0);
    this.children = blocks.map(() => []);
    blocks.forEach((b, i) => {
      if (b.parent >= 0) this.children[b.parent].push(i);
    });
    const rows = [];
    const walk = (i) => {
      rows.push(i);
      if (this.expanded.has(i)) for (const c of this.children[i]) walk(c);
    };
    blocks.forEach((b, i) => b.parent < 0 && walk(i));
    this.blockRows = rows;
    this.blockList.setCount(rows.length);
  }

  renderBlockRow(i, el) {
    const bi = this.blockRows[i];
    const b = this.listing.blocks[bi];
    const kids = this.children[bi].length;
    el.className = 'vrow tree-row';
    el.style.paddingLeft = `${6 + b.depth * 14}px`;
    const f = b.fn != null ? this.summary?.functions[b.fn] : null;
    const label = b.id === 12 ? `@f${b.fn ?? '?'}${f?.name ? ' ' + f.name : ''}` : '';
    const bits = b.endBit - b.bit;
    el.innerHTML =
      `<span class="twisty">${kids ? (this.expanded.has(bi) ? '▾' : '▸') : ''}</span>` +
      `<span class="bname">${escapeHtml(b.name)}</span>` +
      (label ? `<span class="bfn">${escapeHtml(label)}</span>` : '') +
      `<span class="bsize">${formatBytes(Math.round(bits / 8))}</span><span class="bpos">${bitPos(b.bit)}</span>`;
    el.title = `${b.name} block (id ${b.id}) at ${bitPos(b.bit)}, ${fmt(bits)} bits${kids ? `, ${kids} nested` : ''}`;
  }

  toggleBlock(bi, open) {
    const has = this.expanded.has(bi);
    if (open === has || !this.children[bi].length) return false;
    if (has) this.expanded.delete(bi);
    else this.expanded.add(bi);
    const sel = this.blockList.selected;
    this.buildBlockRows();
    this.blockList.select(this.blockRows.indexOf(bi) >= 0 ? this.blockRows.indexOf(bi) : sel);
    return true;
  }

  activateBlock(i, e) {
    const bi = this.blockRows[i];
    if (e?.target?.classList?.contains('twisty')) {
      this.toggleBlock(bi);
      return;
    }
    const b = this.listing.blocks[bi];
    this.gotoLine(b.line, { focus: false });
  }

  blockKey(e) {
    const i = this.blockList.selected;
    if (i < 0) return;
    const bi = this.blockRows[i];
    if (e.key === 'ArrowRight' || e.key === 'l') {
      e.preventDefault();
      if (!this.toggleBlock(bi, true) && this.children[bi].length) this.blockList.select(i + 1, { scroll: true });
    } else if (e.key === 'ArrowLeft' || e.key === 'h') {
      e.preventDefault();
      if (!this.toggleBlock(bi, false)) {
        const parent = this.listing.blocks[bi].parent;
        const pi = this.blockRows.indexOf(parent);
        if (pi >= 0) this.blockList.select(pi, { scroll: true });
      }
    }
  }

  // ------------------------------------------------------------ diagnostics

  renderDiagSummary() {
    const s = this.summary;
    const n = s.diagnostics.length;
    $('diag-summary').innerHTML = n
      ? `<b style="color:var(--err)">${n} problem${n === 1 ? '' : 's'}</b> — ${s.decodeError ? 'the pexe cannot be read to the end' : 'it breaks the PNaCl ABI rules, so it is not translated'}. Enter or click jumps to the record in the listing.`
      : '<b style="color:var(--ok)">No problems.</b> The pexe passes the PNaCl ABI verifier (pnacl-abicheck’s rules).';
  }

  renderDiagRow(i, el) {
    const d = this.summary.diagnostics[i];
    el.className = 'vrow diag-row';
    const fn = d.function != null ? `@f${d.function}${d.functionName ? ' ' + d.functionName : ''}${d.block != null ? ` %b${d.block}` : ''}` : '';
    el.title = d.text;
    el.innerHTML = `<span class="dpos">${escapeHtml(d.pos)}</span><span class="dmsg">${escapeHtml(d.message)}</span><span class="dfn">${escapeHtml(fn)}</span>`;
  }

  async jumpToDiagnostic(i) {
    const d = this.summary.diagnostics[i];
    if (!d) return;
    this.diagList.select(i);
    await this.gotoBit(d.byte * 8 + d.bit);
  }

  // ------------------------------------------------------------ statistics

  async showStats() {
    if (this.statsShown) return;
    this.statsShown = true;
    const view = $('view-stats');
    view.innerHTML = '<div class="empty">computing…</div>';
    let stats = null;
    try {
      stats = await this.app.analysis.stats();
    } catch (e) {
      view.innerHTML = `<div class="empty">${escapeHtml(e.message)}</div>`;
      return;
    }
    if (!stats) {
      view.innerHTML = '<div class="empty">No statistics for this file.</div>';
      return;
    }
    view.replaceChildren(renderStats(stats, this));
  }
}

function renderStats(stats, inspector) {
  const root = document.createElement('div');
  root.className = 'stats';
  const file = stats.fileBits;
  const blocks = [...stats.blocks].sort((a, b) => b.bits - a.bits);
  const maxBits = Math.max(1, ...blocks.map((b) => b.bits));
  let html = `<h3>Blocks</h3>
    <div class="muted" style="margin-bottom:8px">${fmt(file / 8)} bytes = ${fmt(file)} bits${stats.headerBits ? `, header ${fmt(stats.headerBits)} bits` : ''}.
    Bits include nested blocks; own bits leave them out.</div>
    <table class="grid"><tr><th class="l">block</th><th>id</th><th>count</th><th class="l">bits</th><th>% file</th><th>own bits</th><th>records</th><th>% abbrev</th><th>abbrev defs</th></tr>`;
  for (const b of blocks) {
    const recs = b.records.reduce((a, r) => a + r.count, 0);
    const abbr = b.records.reduce((a, r) => a + r.abbreviated, 0);
    html += `<tr><td class="l">${escapeHtml(b.name)}</td><td>${b.blockId}</td><td>${fmt(b.count)}</td>
      <td class="l"><span class="meter" style="width:${Math.max(1, Math.round((b.bits / maxBits) * 120))}px"></span>${fmt(b.bits)}</td><td>${pct(b.bits, file)}</td>
      <td>${fmt(b.ownBits)}</td><td>${fmt(recs)}</td><td>${recs ? ((100 * abbr) / recs).toFixed(1) + '%' : '—'}</td>
      <td>${fmt(b.abbrevDefs)}</td></tr>`;
  }
  html += '</table><h3>Records by block</h3><table class="grid"><tr><th class="l">record</th><th>code</th><th>count</th><th class="l">bits</th><th>% file</th><th>% abbrev</th><th>bits/record</th></tr>';
  for (const b of blocks) {
    if (!b.records.length) continue;
    html += `<tr class="blockrow"><td class="l" colspan="7">${escapeHtml(b.name)} (id ${b.blockId})</td></tr>`;
    const recMax = Math.max(1, ...b.records.map((r) => r.bits));
    for (const r of [...b.records].sort((x, y) => y.bits - x.bits)) {
      html += `<tr class="sub"><td class="l">${escapeHtml(r.name || '')}</td><td>${r.code}</td><td>${fmt(r.count)}</td>
        <td class="l"><span class="meter" style="width:${Math.max(1, Math.round((r.bits / recMax) * 90))}px"></span>${fmt(r.bits)}</td>
        <td>${pct(r.bits, file)}</td><td>${r.count ? ((100 * r.abbreviated) / r.count).toFixed(1) + '%' : '—'}</td><td>${r.count ? (r.bits / r.count).toFixed(2) : '—'}</td></tr>`;
    }
  }
  html += '</table>';
  const fns = [...(stats.functions ?? [])].sort((a, b) => b.bits - a.bits).slice(0, 30);
  if (fns.length) {
    html += '<h3>Largest functions</h3><table class="grid"><tr><th class="l">function</th><th>bits</th><th>bytes</th><th>% file</th><th class="l">at</th></tr>';
    for (const f of fns) {
      html += `<tr><td class="l">${f.func != null ? `<button class="link" data-fn="${f.func}">@f${f.func}</button>` : `block ${f.index}`} ${escapeHtml(f.name ?? '')}</td>
        <td>${fmt(f.bits)}</td><td>${fmt(Math.round(f.bits / 8))}</td><td>${pct(f.bits, file)}</td><td class="l">${escapeHtml(f.pos)}</td></tr>`;
    }
    html += '</table>';
  }
  root.innerHTML = html;
  root.querySelectorAll('[data-fn]').forEach((b) => b.addEventListener('click', () => inspector.openFunction(Number(b.dataset.fn))));
  return root;
}
