// The element's view, as Chrome reported it to the plugin
// (PPP_Instance DidChangeView; pepper/ppb/view.js):
//
//   rect         the element's box, CSS pixels, relative to the viewport
//   clip         the part of the box inside the viewport, relative to the box
//   visible      the page is visible and some of the box is on screen
//   pageVisible  document.visibilityState is "visible"
//   deviceScale  devicePixelRatio;  cssScale 1
//   scroll       the document's scroll offset
//
// A `ViewTracker` computes the view when anything that can change it
// happens — the element resized (ResizeObserver: its width/height
// attributes, CSS, the page's layout), scrolled or moved (scroll and
// resize events, IntersectionObserver), the tab hidden or shown, and
// every 250 ms for what nothing reports (visibility set by a style) — at
// most once per frame, and reports it only when it differs from the last.
//
// Focus is not here: the plugin's box (surface.js) takes it when clicked,
// and pepper/page.js reports its focus and blur (DidChangeFocus).

function viewOf(element, surface) {
  // A plugin that went fullscreen (PPB_Fullscreen) fills the screen with its box.
  const fullscreen = document.fullscreenElement !== null && (document.fullscreenElement === element || document.fullscreenElement === surface);
  if (fullscreen && document.fullscreenElement === surface) element = surface;
  const r = element.getBoundingClientRect();
  const shown = element.getClientRects().length > 0;
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const left = Math.max(0, r.left);
  const top = Math.max(0, r.top);
  const right = Math.min(vw, r.right);
  const bottom = Math.min(vh, r.bottom);
  const clip =
    shown && right > left && bottom > top
      ? { x: left - r.left, y: top - r.top, width: right - left, height: bottom - top }
      : { x: 0, y: 0, width: 0, height: 0 };
  const pageVisible = document.visibilityState !== 'hidden';
  const hidden = !shown || getComputedStyle(element).visibility === 'hidden';
  return {
    rect: { x: r.left, y: r.top, width: r.width, height: r.height },
    clip,
    fullscreen,
    visible: pageVisible && !hidden && clip.width > 0 && clip.height > 0,
    pageVisible,
    deviceScale: globalThis.devicePixelRatio || 1,
    cssScale: 1,
    scroll: { x: scrollX, y: scrollY },
  };
}

const round = (v) => JSON.stringify(v, (k, x) => (typeof x === 'number' ? Math.round(x * 100) / 100 : x));

export class ViewTracker {
  /**
   * @param {Element} element
   * @param {(view) => void} onView     a changed view
   * @param {Element} [surface]         the plugin's box over the element (surface.js)
   */
  constructor(element, onView, surface = null) {
    this.element = element;
    this.surface = surface;
    this.onView = onView;
    this.lastView = '';
    this.frame = 0;
    this.cleanups = [];
    const update = () => this.schedule();
    if (typeof ResizeObserver === 'function') {
      const ro = new ResizeObserver(update);
      ro.observe(element);
      this.cleanups.push(() => ro.disconnect());
    }
    if (typeof IntersectionObserver === 'function') {
      const io = new IntersectionObserver(update, { threshold: [0, 0.25, 0.5, 0.75, 1] });
      io.observe(element);
      this.cleanups.push(() => io.disconnect());
    }
    this.listen(window, 'scroll', update, { capture: true, passive: true });
    this.listen(window, 'resize', update, { passive: true });
    this.listen(document, 'visibilitychange', update);
    // Chromium fires only the prefixed event after a prefixed request.
    this.listen(document, 'fullscreenchange', update);
    this.listen(document, 'webkitfullscreenchange', update);
    // What no observer reports (a style or class change hiding the element
    // or an ancestor, a transform): a cheap look a few times a second.
    const timer = setInterval(update, 250);
    this.cleanups.push(() => clearInterval(timer));
  }

  listen(target, type, fn, options) {
    target.addEventListener(type, fn, options);
    this.cleanups.push(() => target.removeEventListener(type, fn, options));
  }

  /** The view now (also the initial one). */
  current() {
    const v = viewOf(this.element, this.surface);
    this.lastView = round(v);
    return v;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.element.isConnected) return;
      const v = viewOf(this.element, this.surface);
      const key = round(v);
      if (key === this.lastView) return;
      this.lastView = key;
      this.onView(v);
    });
  }

  stop() {
    cancelAnimationFrame(this.frame);
    for (const f of this.cleanups.splice(0)) f();
  }
}
