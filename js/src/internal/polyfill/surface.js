// The plugin's box in the page. pepper/page.js draws a plugin into an
// element it owns (its 2D and 3D canvases are children of it, input and
// focus are taken from it, fullscreen and pointer lock apply to it), but a
// NaCl element is an <embed> or <object>, which cannot hold children and
// whose own rendering is the browser's. So each running plugin gets a
// `Surface`: a div kept exactly over the element's box (position: fixed,
// placed on every frame, so scrolling, resizing and layout changes follow),
// appended to <body> without a z-index, so that what the page positions
// above the plugin's place stays above it. A 0×0 element has a 0×0 surface.
// The element's own focus is passed on to the surface, where keyboard
// input is read.

/** Chromium fires only the prefixed event after a prefixed request. */
const FULLSCREEN_EVENTS = ['fullscreenchange', 'webkitfullscreenchange'];

export class Surface {
  constructor(element) {
    this.element = element;
    const box = document.createElement('div');
    box.setAttribute('data-pexe-surface', '');
    box.style.cssText =
      'position:fixed;left:0;top:0;width:0;height:0;margin:0;padding:0;border:0;outline:none;overflow:hidden;box-sizing:border-box;';
    (document.body ?? document.documentElement).appendChild(box);
    this.box = box;
    this.last = '';
    this.frame = 0;
    this.onFocus = () => box.focus({ preventScroll: true });
    element.addEventListener('focus', this.onFocus);
    // The page may make the element itself fullscreen (Oryol's pages call
    // webkitRequestFullscreen on the embed): the element then lies in the
    // top layer, above the box. The box follows it there as a popover,
    // shown after the element went fullscreen, so above it.
    // (A page that used the prefixed request gets only the prefixed event.)
    this.onFullscreen = () => this.followFullscreen();
    for (const type of FULLSCREEN_EVENTS) document.addEventListener(type, this.onFullscreen);
    this.place();
    const step = () => {
      this.place();
      this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  place() {
    const el = this.element;
    const shown = el.isConnected && el.getClientRects().length > 0;
    const r = el.getBoundingClientRect();
    const key = shown ? `${r.left}|${r.top}|${r.width}|${r.height}` : 'none';
    if (key === this.last) return;
    this.last = key;
    const s = this.box.style;
    s.display = shown ? 'block' : 'none';
    s.left = `${r.left}px`;
    s.top = `${r.top}px`;
    s.width = `${r.width}px`;
    s.height = `${r.height}px`;
  }

  followFullscreen() {
    const box = this.box;
    if (typeof box.showPopover !== 'function') return;
    const inFront = document.fullscreenElement === this.element;
    if (inFront && !box.matches(':popover-open')) {
      box.popover = 'manual';
      // The popover defaults (a background, a border, an inset) are not the box's.
      box.style.background = 'transparent';
      box.style.inset = 'auto';
      box.showPopover();
    } else if (!inFront && box.hasAttribute('popover')) {
      if (box.matches(':popover-open')) box.hidePopover();
      box.removeAttribute('popover');
    }
    this.last = '';
    this.place();
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    for (const type of FULLSCREEN_EVENTS) document.removeEventListener(type, this.onFullscreen);
    this.element.removeEventListener('focus', this.onFocus);
    this.box.remove();
  }
}
