// A virtualized list: fixed-height rows, only the visible ones in the DOM.
//
//   const list = new VirtualList(container, {
//     rowHeight: 18,
//     count: lines.length,
//     render: (i, el) => { el.textContent = lines[i]; },   // fill a recycled row element
//     onActivate: (i) => …,                                   // Enter / click
//   });
//   list.scrollToIndex(i, { select: true, center: true });
//
// Rows are absolutely positioned inside a spacer as tall as the whole list,
// so the native scrollbar, wheel and touch scrolling all work. Browsers cap
// element heights (~33 M px in Chromium), so past MAX_SPACER the spacer is
// capped and scroll positions map proportionally onto row indices.
//
// Keyboard, when the container has focus: j/k or arrows move the selection,
// PageUp/PageDown, Home/End (g/G), Enter activates.

const MAX_SPACER = 8_000_000;
const OVERSCAN = 8;

export class VirtualList {
  constructor(container, { rowHeight, count = 0, render, onActivate = null, onSelect = null, rowClass = 'vrow' }) {
    this.container = container;
    this.rowHeight = rowHeight;
    this.render = render;
    this.onActivate = onActivate;
    this.onSelect = onSelect;
    this.rowClass = rowClass;
    this.selected = -1;
    this.rows = new Map(); // index → element
    this.pool = [];
    this.count = 0;

    container.classList.add('vlist');
    if (!container.hasAttribute('tabindex')) container.tabIndex = 0;
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    container.replaceChildren(this.spacer);

    this.frame = 0;
    container.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(container);
    container.addEventListener('click', (e) => {
      const row = e.target.closest(`.${this.rowClass}`);
      if (!row || !container.contains(row)) return;
      const i = Number(row.dataset.index);
      this.select(i);
      this.onActivate?.(i, e);
    });
    container.addEventListener('keydown', (e) => this.key(e));
    this.setCount(count);
  }

  /** Replaces the row count (content changed): re-renders everything visible. */
  setCount(count) {
    this.count = count;
    this.selected = Math.min(this.selected, count - 1);
    this.spacerHeight = Math.min(count * this.rowHeight, MAX_SPACER);
    this.spacer.style.height = `${this.spacerHeight}px`;
    this.invalidate();
  }

  /** Re-renders the visible rows (their content changed, not the count). */
  invalidate() {
    for (const el of this.rows.values()) this.release(el);
    this.rows.clear();
    this.update();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  /** True when the spacer is capped and positions are scaled. */
  get scaled() {
    return this.count * this.rowHeight > MAX_SPACER;
  }

  /** Index of the first visible row (fractional) for the current scrollTop. */
  firstVisible() {
    const top = this.container.scrollTop;
    if (!this.scaled) return top / this.rowHeight;
    const view = this.container.clientHeight;
    const maxTop = Math.max(1, this.spacerHeight - view);
    const visibleRows = view / this.rowHeight;
    return (Math.min(top, maxTop) / maxTop) * Math.max(0, this.count - visibleRows);
  }

  /** scrollTop that puts row `i` (fractional) at the top. */
  topFor(i) {
    if (!this.scaled) return i * this.rowHeight;
    const view = this.container.clientHeight;
    const maxTop = Math.max(1, this.spacerHeight - view);
    const visibleRows = view / this.rowHeight;
    return (i / Math.max(1, this.count - visibleRows)) * maxTop;
  }

  update() {
    const view = this.container.clientHeight;
    const first = this.firstVisible();
    const start = Math.max(0, Math.floor(first) - OVERSCAN);
    const end = Math.min(this.count, Math.ceil(first + view / this.rowHeight) + OVERSCAN);
    // Offset of row `start` in spacer coordinates: exact without scaling; with
    // scaling, rows are placed relative to the scroll position.
    const base = this.scaled ? this.container.scrollTop - (first - start) * this.rowHeight : start * this.rowHeight;
    for (const [i, el] of this.rows) {
      if (i < start || i >= end) {
        this.release(el);
        this.rows.delete(i);
      }
    }
    for (let i = start; i < end; i++) {
      let el = this.rows.get(i);
      if (!el) {
        el = this.pool.pop() ?? this.makeRow();
        el.dataset.index = String(i);
        this.render(i, el);
        this.spacer.appendChild(el);
        this.rows.set(i, el);
      }
      el.style.transform = `translateY(${base + (i - start) * this.rowHeight}px)`;
      el.classList.toggle('selected', i === this.selected);
    }
  }

  makeRow() {
    const el = document.createElement('div');
    el.className = this.rowClass;
    el.style.height = `${this.rowHeight}px`;
    return el;
  }

  release(el) {
    el.remove();
    el.className = this.rowClass;
    if (this.pool.length < 200) this.pool.push(el);
  }

  /** Number of rows in the DOM (for tests: far fewer than `count`). */
  get domRows() {
    return this.rows.size;
  }

  select(i, { scroll = false, center = false } = {}) {
    if (this.count === 0) return;
    i = Math.max(0, Math.min(this.count - 1, i));
    this.selected = i;
    if (scroll) this.scrollToIndex(i, { center });
    for (const [j, el] of this.rows) el.classList.toggle('selected', j === i);
    this.onSelect?.(i);
  }

  /** Scrolls so row `i` is visible (centered if asked, else minimally). */
  scrollToIndex(i, { center = false, select = false } = {}) {
    if (select) this.select(i);
    const view = this.container.clientHeight;
    const visibleRows = view / this.rowHeight;
    const first = this.firstVisible();
    let target = null;
    if (center) target = i - visibleRows / 2 + 0.5;
    else if (i < first) target = i;
    else if (i + 1 > first + visibleRows) target = i + 1 - visibleRows;
    if (target !== null) {
      this.container.scrollTop = this.topFor(Math.max(0, target));
      this.update();
    }
  }

  /** Marks row `i` briefly (after a jump). */
  flash(i) {
    const el = this.rows.get(i);
    if (!el) return;
    el.classList.remove('flash');
    void el.offsetWidth;
    el.classList.add('flash');
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const page = Math.max(1, Math.floor(this.container.clientHeight / this.rowHeight) - 1);
    const cur = this.selected < 0 ? Math.floor(this.firstVisible()) - 1 : this.selected;
    let next = null;
    switch (e.key) {
      case 'j': case 'ArrowDown': next = cur + 1; break;
      case 'k': case 'ArrowUp': next = cur - 1; break;
      case 'PageDown': next = cur + page; break;
      case 'PageUp': next = cur - page; break;
      case 'Home': case 'g': next = 0; break;
      case 'End': case 'G': next = this.count - 1; break;
      case 'Enter':
        if (this.selected >= 0) this.onActivate?.(this.selected, e);
        e.preventDefault();
        return;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();
    this.select(next, { scroll: true });
  }
}
