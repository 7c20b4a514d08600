// Pepper functions served on the calling guest thread itself, not by the
// browser side: the 3D graphics interfaces (PPB_Graphics3D and every
// PPB_OpenGLES2* interface) and PPB_VideoDecoder (whose pictures are
// textures of the plugin's GL context), run by the thread that owns the page's 3D
// surface — the plugin's main thread, which received the surface canvas
// as an OffscreenCanvas (page.js, threads/spawn.js). GL calls are many
// and small; making them where the WebGL context lives means none of them
// crosses threads.
//
// - `THREAD_SERVED_KEYS`: every function of those interfaces, from the ABI
//   list (abi.gen.js), so a new GL interface there is served here or the
//   check below fails.
// - `localImplementations(thread, link, options)`: their implementations
//   for a thread that owns a surface (gl/*.js, one file per group), keyed
//   like the browser's; plugin.js puts them in that thread's imports in
//   place of forwarding. Options: `debug`, `profile` (gl/debug.js).
// - The browser side (browser.js) offers these interfaces only when the
//   process has a 3D surface, and a call that reaches it anyway — from a
//   thread without the surface — is the guest's fault (a GuestFault naming
//   the function and the thread).
// - What the thread needs from the browser goes through `$` functions of
//   ppb/graphics-3d-registry.js: registering a Graphics3D resource (so
//   BindGraphics, AddRef and Release work as for any resource), asking
//   whether one is alive, unbinding a lost one, guest memory from the
//   browser's heap (glGetString's strings, mapped ranges), log lines. The
//   browser tells the thread a Graphics3D is gone with a main-loop item
//   `{ local: 'Graphics3D.destroyed', id }` (`handleLocalItem`). Video
//   decoders are resources the same way (`$VideoDecoder.create`, an item
//   `{ local: 'VideoDecoder.destroyed', id }`).

import { PPB_INTERFACES } from '../runtime/abi.js';
import { instrument } from './gl/debug.js';
import { ThreadGL } from './gl/env.js';
import buffers from './gl/buffers.js';
import draw from './gl/draw.js';
import framebuffers from './gl/framebuffers.js';
import getters from './gl/getters.js';
import graphics3d, { handleLocalItem as glItem } from './gl/graphics-3d.js';
import mapSub from './gl/map-sub.js';
import programs from './gl/programs.js';
import queries from './gl/queries.js';
import state from './gl/state.js';
import strings from './gl/strings.js';
import textures from './gl/textures.js';
import vertexArrays from './gl/vertex-arrays.js';
import videoDecoder, { handleLocalItem as videoItem } from './gl/video-decoder.js';

/** Interfaces served by the thread that owns the 3D surface. */
export const THREAD_SERVED_INTERFACES = Object.freeze(
  Object.keys(PPB_INTERFACES).filter((name) => /^PPB_((Graphics3D|OpenGLES2)[A-Za-z()]*|VideoDecoder);/.test(name)),
);

/** Their functions' keys. */
export const THREAD_SERVED_KEYS = new Set(THREAD_SERVED_INTERFACES.flatMap((name) => PPB_INTERFACES[name]));

/** The GL families, in the order their files are read. */
const FAMILIES = Object.freeze({
  'graphics-3d': graphics3d,
  buffers,
  textures,
  framebuffers,
  programs,
  state,
  draw,
  queries,
  'vertex-arrays': vertexArrays,
  'map-sub': mapSub,
  strings,
  getters,
  'video-decoder': videoDecoder,
});

/**
 * The thread-served implementations for `thread` (which owns a surface):
 * key → function of the key's raw arguments. Throws (a runtime bug) when a
 * key is missing, defined twice, or not thread-served.
 */
export function localImplementations(thread, link, options = {}) {
  const env = new ThreadGL(thread, link, options);
  const out = Object.create(null);
  for (const [family, make] of Object.entries(FAMILIES)) {
    for (const [key, fn] of Object.entries(make(env))) {
      if (!THREAD_SERVED_KEYS.has(key)) throw new Error(`runtime bug: gl/${family}.js implements ${key}, which is not a thread-served function`);
      if (key in out) throw new Error(`runtime bug: ${key} is implemented twice (gl/${family}.js)`);
      out[key] = fn;
    }
  }
  const missing = [...THREAD_SERVED_KEYS].filter((k) => !(k in out));
  if (missing.length) throw new Error(`runtime bug: no thread implementation of ${missing.join(', ')}`);
  thread.local = { handle: (item) => glItem(env, item) || videoItem(env, item), env };
  return instrument(env, out);
}
