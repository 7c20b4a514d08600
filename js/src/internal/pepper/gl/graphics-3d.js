// PPB_Graphics3D;1.0 on the thread that owns the 3D surface
// (ppapi/c/ppb_graphics_3d.h; behaviour as Chromium's plugin side and
// renderer had it: ppapi/thunk/ppb_graphics_3d_thunk.cc,
// ppapi/proxy/ppb_graphics_3d_proxy.cc, ppapi/shared_impl/
// ppb_graphics_3d_shared.cc, content/renderer/pepper/ppb_graphics_3d_impl.cc).
//
//   int32_t GetAttribMaxValue(PP_Resource instance, int32_t attribute, int32_t* value)
//   PP_Resource Create(PP_Instance instance, PP_Resource share_context, const int32_t attrib_list[])
//   PP_Bool IsGraphics3D(PP_Resource resource)
//   int32_t GetAttribs(PP_Resource context, int32_t attrib_list[])
//   int32_t SetAttribs(PP_Resource context, const int32_t attrib_list[])
//   int32_t GetError(PP_Resource context)
//   int32_t ResizeBuffers(PP_Resource context, int32_t width, int32_t height)
//   int32_t SwapBuffers(PP_Resource context, struct PP_CompletionCallback callback)
//
// - Create makes a WebGL2 context on the page's 3D surface (an
//   OffscreenCanvas this thread owns) and registers the resource with the
//   browser (`$Graphics3D.create`), so BindGraphics, AddRef and Release
//   work as for any resource; when the browser destroys it, it tells this
//   thread (a `{ local: 'Graphics3D.destroyed' }` item), which drops the
//   GL state. A second live context gets a canvas of its own: it renders,
//   but only the surface's context can be shown (the page has one canvas).
// - The creation attributes map to WebGL's: alpha, depth, stencil (sizes >
//   0), antialias (SAMPLES and SAMPLE_BUFFERS > 0), preserveDrawingBuffer
//   (SWAP_BEHAVIOR = BUFFER_PRESERVED); colours are not premultiplied, as
//   Chrome composited the plugin's buffer. An unknown attribute fails
//   Create, as in Chrome. WIDTH × HEIGHT is the drawing buffer's size.
// - SwapBuffers: WebGL presents what was drawn when the thread's task
//   ends; the callback runs on this thread's loop at the next display
//   frame (requestAnimationFrame, or a 60 Hz timer), so a plugin that waits
//   for it draws at the display's rate, and a hidden page (the view's
//   pageVisible, a `Graphics3D.pageVisible` item) stops it without losing
//   state.
//   A second swap while one is pending fails with PP_ERROR_INPROGRESS,
//   through Chrome's completion rules (a required callback is called with
//   the error). All GL runs on the main thread, where a blocking callback
//   is refused (PP_ERROR_BLOCKS_MAIN_THREAD).
// - Context loss (the WebGL context's `webglcontextlost`): the context is
//   unbound, a pending swap completes with PP_ERROR_CONTEXT_LOST, and
//   PPP_Graphics_3D;1.0 Graphics3DContextLost runs on the main thread. The
//   lost context stays lost (Pepper has no restore): the plugin creates a
//   new one, which gets the surface once WebGL has restored it.
// - GetAttribMaxValue, GetAttribs, SetAttribs and GetError answer
//   PP_ERROR_FAILED for a valid context, exactly as Chrome did (its shared
//   implementation never implemented them: "TODO(alokp): Implement me");
//   a plugin written against Chrome never got anything else.

import { GLContext } from './context.js';
import { INSTANCE_ID, ITEM, PP, PP_CALLBACK, CALLBACK_FLAG } from '../defs.js';
import { releaseObjects, resetContext, setupContext } from './strings.js';

/** PP_Graphics3DAttrib (ppapi/c/pp_graphics_3d.h). */
export const ATTRIB = Object.freeze({
  ALPHA_SIZE: 0x3021,
  BLUE_SIZE: 0x3022,
  GREEN_SIZE: 0x3023,
  RED_SIZE: 0x3024,
  DEPTH_SIZE: 0x3025,
  STENCIL_SIZE: 0x3026,
  SAMPLES: 0x3031,
  SAMPLE_BUFFERS: 0x3032,
  NONE: 0x3038,
  HEIGHT: 0x3056,
  WIDTH: 0x3057,
  SWAP_BEHAVIOR: 0x3093,
  BUFFER_PRESERVED: 0x3094,
  BUFFER_DESTROYED: 0x3095,
  GPU_PREFERENCE: 0x11000,
  GPU_PREFERENCE_LOW_POWER: 0x11001,
  GPU_PREFERENCE_PERFORMANCE: 0x11002,
  SINGLE_BUFFER: 0x3085,
});

/** The longest attribute list read (pairs). */
const MAX_ATTRIBS = 64;

/** Parses an attribute list; null when it holds an unknown attribute. */
export function parseAttribs(views, ptr) {
  const a = {
    alpha: 0, depth: 0, stencil: 0, samples: 0, sampleBuffers: 0,
    width: 0, height: 0, preserved: false, singleBuffer: false, lowPower: false,
  };
  if (ptr === 0) return a;
  for (let i = 0; i < MAX_ATTRIBS; i++) {
    const key = views.getI32('PPB_Graphics3D.Create', ptr + 8 * i);
    if (key === ATTRIB.NONE) return a;
    const value = views.getI32('PPB_Graphics3D.Create', ptr + 8 * i + 4);
    switch (key) {
      case ATTRIB.ALPHA_SIZE: a.alpha = value; break;
      case ATTRIB.DEPTH_SIZE: a.depth = value; break;
      case ATTRIB.STENCIL_SIZE: a.stencil = value; break;
      case ATTRIB.SAMPLES: a.samples = value; break;
      case ATTRIB.SAMPLE_BUFFERS: a.sampleBuffers = value; break;
      case ATTRIB.SWAP_BEHAVIOR: a.preserved = value === ATTRIB.BUFFER_PRESERVED; break;
      case ATTRIB.WIDTH: a.width = value; break;
      case ATTRIB.HEIGHT: a.height = value; break;
      case ATTRIB.SINGLE_BUFFER: a.singleBuffer = value !== 0; break;
      case ATTRIB.GPU_PREFERENCE: a.lowPower = value === ATTRIB.GPU_PREFERENCE_LOW_POWER; break;
      // Valid, and ignored by Chrome too.
      case ATTRIB.RED_SIZE:
      case ATTRIB.GREEN_SIZE:
      case ATTRIB.BLUE_SIZE:
        break;
      default:
        return null;
    }
  }
  return null;
}

/** WebGL's context attributes for parsed Pepper attributes. */
function webglAttributes(a) {
  return {
    alpha: a.alpha > 0,
    depth: a.depth > 0,
    stencil: a.stencil > 0,
    antialias: a.samples > 0 && a.sampleBuffers > 0 && !a.singleBuffer,
    premultipliedAlpha: false,
    preserveDrawingBuffer: a.preserved || a.singleBuffer,
    powerPreference: a.lowPower ? 'low-power' : 'high-performance',
  };
}

/**
 * How a call with a completion callback finishes on the main thread
 * (Chrome's EnterBase::SetResult, as Browser.completion does on the host):
 * a result at hand goes to a required callback later (the call answers
 * PP_OK_COMPLETIONPENDING) or is answered directly to an optional one.
 */
function settle(env, cb, result) {
  if (cb.optional) return result;
  env.queue([ITEM.CALLBACK, cb.func, cb.userData, result]);
  return PP.OK_COMPLETIONPENDING;
}

/** Drops context `c`'s state on this thread (its resource is gone). */
export function dropContext(env, c) {
  if (c.destroyed) return;
  c.destroyed = true;
  env.contexts.delete(c.id);
  if (env.last === c) env.last = null;
  if (c.swapPending) {
    const { func, userData } = c.swapPending;
    c.swapPending = null;
    env.queue([ITEM.CALLBACK, func, userData, PP.ERROR_ABORTED]);
  }
  for (const ptr of c.strings.values()) env.free(ptr);
  c.strings.clear();
  for (const [ptr, m] of c.mapped) env.poolFree(ptr, m.size);
  c.mapped.clear();
  if (!c.lost && !c.gl.isContextLost()) {
    releaseObjects(c);
    resetContext(c);
  }
  if (env.surfaceOwner === c) env.surfaceOwner = null;
}

/** Context loss of `canvas`'s WebGL context: every context drawing on it. */
function contextLost(env, canvas) {
  for (const c of [...env.contexts.values()]) {
    if (c.canvas !== canvas || c.lost) continue;
    c.lost = true;
    if (c.swapPending) {
      const { func, userData } = c.swapPending;
      c.swapPending = null;
      env.queue([ITEM.CALLBACK, func, userData, PP.ERROR_CONTEXT_LOST]);
    }
    env.link.call('$Graphics3D.lost', [c.id]);
    env.report('warning', `Graphics3D ${c.id}: the WebGL context was lost; the plugin is told (PPP_Graphics_3D.Graphics3DContextLost)`);
    env.queue({ ppp: 'call', iface: 'PPP_Graphics_3D;1.0', member: 'Graphics3DContextLost', args: [INSTANCE_ID] });
  }
}

function watch(env, canvas) {
  if (env.watched.has(canvas)) return;
  env.watched.add(canvas);
  canvas.addEventListener('webglcontextlost', (e) => {
    e.preventDefault(); // lets WebGL restore it, for a context created later
    contextLost(env, canvas);
  });
}

/** Test hook (options.loseContextAfterFrames): loses the context as a GPU reset would. */
function maybeLoseContext(env, c) {
  const n = env.options.loseContextAfterFrames;
  if (!n || env.lostOnPurpose) return;
  c.frames = (c.frames ?? 0) + 1;
  if (c.frames < n) return;
  const ext = c.gl.getExtension('WEBGL_lose_context');
  if (!ext) return;
  env.lostOnPurpose = true;
  ext.loseContext();
  setTimeout(() => ext.restoreContext(), env.options.restoreContextAfterMs ?? 500);
}

export default (env) => {
  const views = env.views;
  const G3D = 'PPB_Graphics3D;1.0:';

  /** The surface canvas if it is free (its owner's resource may be gone without the item having arrived yet). */
  const freeSurface = () => {
    const canvas = env.thread.canvas3d;
    if (!canvas) return null;
    const owner = env.surfaceOwner;
    if (owner && !owner.destroyed && !owner.lost && env.link.call('$Graphics3D.alive', [owner.id]) !== 0) return null;
    if (owner) dropContext(env, owner);
    return canvas;
  };

  const readCallback = (ptr) => {
    views.check('PPB_Graphics3D.SwapBuffers', ptr, PP_CALLBACK.SIZE);
    return {
      func: views.getI32('PPB_Graphics3D.SwapBuffers', ptr + PP_CALLBACK.func) >>> 0,
      userData: views.getI32('PPB_Graphics3D.SwapBuffers', ptr + PP_CALLBACK.user_data) >>> 0,
      optional: (views.getI32('PPB_Graphics3D.SwapBuffers', ptr + PP_CALLBACK.flags) & CALLBACK_FLAG.OPTIONAL) !== 0,
    };
  };

  return {
    [`${G3D}GetAttribMaxValue`](instance, attribute, value) {
      // The thunk enters `instance` as a Graphics3D resource.
      return env.ctx(instance) ? PP.ERROR_FAILED : PP.ERROR_BADRESOURCE;
    },
    [`${G3D}Create`](instance, share, attribList) {
      if (instance !== INSTANCE_ID) return 0;
      if (share !== 0) {
        // Two WebGL contexts cannot share objects.
        env.report('error', 'PPB_Graphics3D.Create: share_context is not supported (WebGL contexts cannot share objects)');
        return 0;
      }
      const a = parseAttribs(views, attribList >>> 0);
      if (!a) return 0;
      const width = Math.max(1, a.width);
      const height = Math.max(1, a.height);
      let canvas = freeSurface();
      const surface = canvas !== null;
      if (!canvas) {
        if (typeof OffscreenCanvas !== 'function') return 0;
        canvas = new OffscreenCanvas(width, height);
      }
      canvas.width = width;
      canvas.height = height;
      let gl = null;
      try {
        gl = canvas.getContext('webgl2', webglAttributes(a));
      } catch {
        gl = null;
      }
      if (!gl || gl.isContextLost()) return 0;
      if (env.profile && !env.watched.has(gl)) {
        env.watched.add(gl);
        env.profile.watchWebGL(gl);
      }
      const id = env.link.call('$Graphics3D.create', [width, height, surface ? 1 : 0]);
      if (id === 0) return 0;
      const c = new GLContext({ id, canvas, gl, attribs: a, surface });
      setupContext(c);
      if (surface) {
        // The canvas keeps its WebGL context: a later Graphics3D reuses it
        // from GL's initial state.
        resetContext(c);
        env.surfaceOwner = c;
      }
      watch(env, canvas);
      env.contexts.set(id, c);
      if (env.options.debug) env.report('log', `Graphics3D ${id}: ${width}×${height} ${JSON.stringify(webglAttributes(a))}${surface ? '' : ' (off the surface)'}`);
      return id;
    },
    [`${G3D}IsGraphics3D`](resource) {
      return env.link.call('$Graphics3D.alive', [resource]) !== 0 ? 1 : 0;
    },
    [`${G3D}GetAttribs`](context) {
      return env.ctx(context) ? PP.ERROR_FAILED : PP.ERROR_BADRESOURCE;
    },
    [`${G3D}SetAttribs`](context) {
      return env.ctx(context) ? PP.ERROR_FAILED : PP.ERROR_BADRESOURCE;
    },
    [`${G3D}GetError`](context) {
      return env.ctx(context) ? PP.ERROR_FAILED : PP.ERROR_BADRESOURCE;
    },
    [`${G3D}ResizeBuffers`](context, width, height) {
      const c = env.ctx(context);
      if (!c) return PP.ERROR_BADRESOURCE;
      if (width < 0 || height < 0) return PP.ERROR_BADARGUMENT;
      c.attribs.width = width;
      c.attribs.height = height;
      if (!c.lost) {
        c.canvas.width = Math.max(1, width);
        c.canvas.height = Math.max(1, height);
      }
      return PP.OK;
    },
    [`${G3D}SwapBuffers`](context, callback) {
      const cb = readCallback(callback >>> 0);
      // Every GL call runs on the main thread, where blocking is refused.
      if (cb.func === 0) return PP.ERROR_BLOCKS_MAIN_THREAD;
      const c = env.ctx(context);
      if (!c) return settle(env, cb, PP.ERROR_BADRESOURCE);
      if (c.swapPending) {
        env.report('error', 'PPB_Graphics3D.SwapBuffers: Plugin attempted swap with previous swap still pending.');
        return settle(env, cb, PP.ERROR_INPROGRESS);
      }
      // WebGL knows of a loss at once; its event comes later. A required
      // callback still waits for a frame, so a plugin that swaps again from
      // it does not spin.
      if (c.lost || c.gl.isContextLost()) {
        if (cb.optional) return PP.ERROR_CONTEXT_LOST;
        env.frames.request(() => env.queue([ITEM.CALLBACK, cb.func, cb.userData, PP.ERROR_CONTEXT_LOST]));
        return PP.OK_COMPLETIONPENDING;
      }
      c.endFrame();
      env.profile?.frameEnd(c);
      c.swapPending = { func: cb.func, userData: cb.userData };
      env.frames.request(() => {
        if (c.swapPending === null || c.destroyed) return;
        c.swapPending = null;
        env.profile?.frameStart(c);
        env.queue([ITEM.CALLBACK, cb.func, cb.userData, c.gl.isContextLost() ? PP.ERROR_CONTEXT_LOST : PP.OK]);
      });
      maybeLoseContext(env, c);
      return PP.OK_COMPLETIONPENDING;
    },
  };
};

/** Main-loop items for this thread's GL state (local.js). */
export function handleLocalItem(env, item) {
  if (item.local === 'Graphics3D.destroyed') {
    const c = env.contexts.get(item.id);
    if (c) dropContext(env, c);
    return true;
  }
  if (item.local === 'Graphics3D.pageVisible') {
    env.frames.setVisible(item.visible);
    return true;
  }
  return false;
}

