// The GL state of the one guest thread that owns the page's 3D surface
// (the plugin's main thread): its Graphics3D contexts by resource id, the
// surface canvas and which context draws on it, the display-frame clock
// that paces SwapBuffers, and the few browser services the thread needs
// (local.js describes the split; ppb/graphics-3d-registry.js is the
// browser's half).

import { GuestViews } from './memory.js';

/**
 * Runs callbacks at the next display frame: requestAnimationFrame where the
 * thread has it (a Worker started by a page), else a timer at 60 Hz on a
 * fixed grid (a Worker started by a Worker: Chrome offers rAF only to the
 * former, and throws in the latter). No frame comes while the page is
 * hidden (the embedder's view says so: setVisible).
 */
export class FrameClock {
  constructor(scope = globalThis, hz = 60) {
    this.scope = scope;
    this.raf = typeof scope.requestAnimationFrame === 'function' ? scope.requestAnimationFrame.bind(scope) : null;
    this.period = 1000 / hz;
    this.origin = performance.now();
    this.waiting = [];
    this.scheduled = false;
    this.hidden = false;
    this.tick = () => {
      this.scheduled = false;
      if (this.hidden) return;
      const due = this.waiting;
      this.waiting = [];
      for (const fn of due) fn();
    };
  }

  request(fn) {
    this.waiting.push(fn);
    this.schedule();
  }

  /** While the page is hidden no frame comes (swaps wait; nothing is lost). */
  setVisible(visible) {
    this.hidden = !visible;
    this.schedule();
  }

  schedule() {
    if (this.scheduled || this.hidden || this.waiting.length === 0) return;
    this.scheduled = true;
    if (this.raf) {
      try {
        this.raf(this.tick);
        return;
      } catch {
        this.raf = null;
      }
    }
    const now = performance.now();
    const next = this.origin + Math.ceil((now - this.origin + 1) / this.period) * this.period;
    setTimeout(this.tick, Math.max(0, next - now));
  }
}

export class ThreadGL {
  /**
   * @param {object} thread  runtime/thread.js createThread's state (canvas3d, queueItem, memory)
   * @param {object} link    the thread's link to the browser (threads/rpc.js)
   * @param {object} [options]  { debug, profile, loseContextAfterFrames, restoreContextAfterMs }
   */
  constructor(thread, link, options = {}) {
    this.thread = thread;
    this.link = link;
    this.options = options ?? {};
    this.views = new GuestViews(thread.memory);
    /** Graphics3D resource id → GLContext. */
    this.contexts = new Map();
    this.last = null;
    /** The context drawing on the surface canvas (thread.canvas3d), or null. */
    this.surfaceOwner = null;
    this.frames = new FrameClock();
    /** Canvases whose loss events are watched. */
    this.watched = new WeakSet();
    /** Pooled guest blocks by size (poolAlloc). */
    this.pool = new Map();
    /** Debug-mode GL errors (debug.js). */
    this.debugErrors = [];
  }

  /** The live context `id`, or null (GL calls on anything else do nothing, as in Chrome). */
  ctx(id) {
    const l = this.last;
    if (l !== null && l.id === id) return l;
    const c = this.contexts.get(id) ?? null;
    if (c !== null) this.last = c;
    return c;
  }

  /** A zeroed block of guest memory owned by the browser side (0 when exhausted). */
  alloc(bytes) {
    return this.link.call('$GuestHeap.alloc', [bytes >>> 0]) >>> 0;
  }

  free(ptr) {
    if (ptr) this.link.call('$GuestHeap.free', [ptr >>> 0]);
  }

  /**
   * A block of at least `bytes` for short-lived use (mapped ranges): freed
   * blocks are kept here by size class and reused, so a plugin that maps
   * every frame does not call the browser every frame. Returns
   * { ptr, size } (ptr 0 when exhausted).
   */
  poolAlloc(bytes) {
    let size = 256;
    while (size < bytes) size *= 2;
    const free = this.pool.get(size);
    if (free?.length) return { ptr: free.pop(), size };
    return { ptr: this.alloc(size), size };
  }

  poolFree(ptr, size) {
    if (!ptr) return;
    let free = this.pool.get(size);
    if (!free) this.pool.set(size, (free = []));
    free.push(ptr);
  }

  /** A line for the embedder's log. */
  report(level, text, source = 'pexe-gl') {
    this.link.call('$Graphics3D.report', [level, String(text), source]);
  }

  /** Puts an item on this thread's own main loop (a callback or a PPP call). */
  queue(item) {
    this.thread.queueItem(item);
  }
}
