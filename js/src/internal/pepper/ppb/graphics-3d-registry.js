// The browser's half of PPB_Graphics3D, whose functions run on the thread
// that owns the 3D surface (../local.js, ../gl/): Graphics3D contexts are
// browser resources like any other, so PPB_Instance.BindGraphics and
// PPB_Core's reference counts work on them, while their GL state lives on
// that thread. Internal (`$` keys): none is in an interface table.
//
// - `$Graphics3D.create(width, height, onSurface)`: a new Graphics3D
//   resource for the calling thread (one reference, the plugin's). When
//   its last reference goes, the owning thread is told with a main-loop
//   item `{ local: 'Graphics3D.destroyed', id }` and drops its GL state.
// - `$Graphics3D.alive(id)`: 1 while `id` is a live Graphics3D.
// - `$Graphics3D.lost(id)`: its WebGL context was lost; Chrome unbinds a
//   lost context from the instance.
// - `$Graphics3D.report(level, text, source)`: a line for the embedder's log.
// - `$VideoDecoder.create()` / `$VideoDecoder.alive(id)`: PPB_VideoDecoder
//   resources (../gl/video-decoder.js), made and told of their end the same
//   way (`{ local: 'VideoDecoder.destroyed', id }`).
// - `$GuestHeap.alloc(bytes)` / `$GuestHeap.free(ptr)`: guest memory the
//   thread hands the plugin (glGetString's strings, mapped ranges), from
//   the browser's heap (heap.js), never the plugin's own malloc.

import { INSTANCE_ID } from '../defs.js';

export default (b) => ({
  '$Graphics3D.create'(cx, width, height, onSurface) {
    const r = {
      tid: cx.tid,
      width,
      height,
      onSurface: onSurface !== 0,
      lost: false,
    };
    const id = b.resources.add('Graphics3D', r);
    r.destroy = () => {
      if (b.state !== 'dead') b.transport.toMain({ local: 'Graphics3D.destroyed', id });
    };
    return id;
  },
  '$Graphics3D.alive'(cx, id) {
    return b.resources.get(id, 'Graphics3D') ? 1 : 0;
  },
  '$Graphics3D.lost'(cx, id) {
    const r = b.resources.get(id, 'Graphics3D');
    if (!r) return 0;
    r.lost = true;
    if (b.bound === id) b.impl['PPB_Instance;1.0:BindGraphics'](cx, INSTANCE_ID, 0);
    return 0;
  },
  '$VideoDecoder.create'(cx) {
    const r = { tid: cx.tid };
    const id = b.resources.add('VideoDecoder', r);
    r.destroy = () => {
      if (b.state !== 'dead') b.transport.toMain({ local: 'VideoDecoder.destroyed', id });
    };
    return id;
  },
  '$VideoDecoder.alive'(cx, id) {
    return b.resources.get(id, 'VideoDecoder') ? 1 : 0;
  },
  '$Graphics3D.report'(cx, level, text, source) {
    b.embedder.log?.(String(level), String(source || 'pexe-gl'), String(text));
    return 0;
  },
  '$GuestHeap.alloc'(cx, bytes) {
    return b.heap.alloc(bytes >>> 0);
  },
  '$GuestHeap.free'(cx, ptr) {
    b.heap.release(ptr >>> 0);
    return 0;
  },
});
