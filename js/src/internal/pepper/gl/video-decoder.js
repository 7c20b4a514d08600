// PPB_VideoDecoder 0.1, 0.2, 1.0 and 1.1 on the thread that owns the 3D
// surface, over WebCodecs' VideoDecoder (ppapi/c/ppb_video_decoder.h;
// behaviour as Chrome's plugin side had it: ppapi/proxy/
// video_decoder_resource.cc, ppapi/thunk/ppb_video_decoder_thunk.cc).
//
//   PP_Resource Create(PP_Instance instance)
//   PP_Bool IsVideoDecoder(PP_Resource resource)
//   int32_t Initialize(PP_Resource video_decoder, PP_Resource graphics3d_context,
//                      PP_VideoProfile profile, PP_HardwareAcceleration acceleration,
//                      uint32_t min_picture_count, struct PP_CompletionCallback callback)   (1.1)
//     1.0 and 0.2: no min_picture_count; 0.1: PP_Bool allow_software_fallback
//   int32_t Decode(PP_Resource video_decoder, uint32_t decode_id, uint32_t size,
//                  const void* buffer, struct PP_CompletionCallback callback)
//   int32_t GetPicture(PP_Resource video_decoder, struct PP_VideoPicture* picture,
//                      struct PP_CompletionCallback callback)
//     0.1 and 0.2: struct PP_VideoPicture_0_1 (no visible_rect)
//   void RecyclePicture(PP_Resource video_decoder, const struct PP_VideoPicture* picture)
//   int32_t Flush(PP_Resource video_decoder, struct PP_CompletionCallback callback)
//   int32_t Reset(PP_Resource video_decoder, struct PP_CompletionCallback callback)
//
// - The decoder lives where the plugin's GL does: pictures are textures of
//   the plugin's own Graphics3D context (the one given to Initialize),
//   named in its name space (GL_TEXTURE_2D, RGBA, LINEAR, CLAMP_TO_EDGE,
//   as Chrome made them), so the plugin binds them with glBindTexture. A
//   decoded VideoFrame is uploaded with texImage2D when a texture is free;
//   the GL state the upload touches is put back. RecyclePicture frees the
//   texture. Chrome deleted the textures with the decoder; so do we.
// - Initialize maps the profile to a WebCodecs codec string (H.264
//   profiles to `avc1.PPCC00`, VP8, VP9) and the acceleration hint to
//   `hardwareAcceleration` (ONLY → prefer-hardware, WITHFALLBACK →
//   no-preference, NONE → prefer-software), asks isConfigSupported, and
//   completes with PP_OK or PP_ERROR_NOTSUPPORTED (one line in the
//   embedder's log says which profile and why). 0.1's allow_software_fallback
//   is WITHFALLBACK or ONLY, as in Chrome.
// - Decode: Pepper takes any split of the bitstream, WebCodecs one frame per
//   chunk. H.264 (Annex B) is cut into access units at NAL boundaries (a
//   new slice with first_mb_in_slice 0, or an AUD/SEI/SPS/PPS after a
//   slice), and the end of each Decode buffer ends a NAL unit and, when
//   the unit holds a slice, the access unit: a buffer must hold whole NAL
//   units, and a picture's slices must come in one buffer (what the
//   Pepper examples and pnacl_player do). A VP8/VP9 buffer is one frame.
//   Until a key frame (IDR), frames are dropped, as WebCodecs needs.
//   Decode completes at once while fewer than 8 chunks wait in the decoder
//   (Chrome's 8 shared-memory buffers), else when one is taken.
//   decode_id comes back in the picture of the frame that started with it.
// - Flush completes (PP_OK) when every frame decoded has become a picture;
//   a GetPicture pending then is aborted. WebCodecs then needs a key frame
//   again. Reset aborts a pending Decode and GetPicture, drops the frames
//   and pictures the plugin has not taken, and completes with PP_OK.
//   Decode during Flush or Reset, GetPicture during Reset, Flush during
//   Reset and Reset during Flush fail (PP_ERROR_FAILED); a second one of the same call pending is
//   PP_ERROR_INPROGRESS. A WebCodecs error makes every later call fail
//   with PP_ERROR_RESOURCE_FAILED and runs the pending callbacks with it.

import { CALLBACK_FLAG, INSTANCE_ID, ITEM, PP, PP_CALLBACK } from '../defs.js';
import { GL } from './enums.js';
import { textureRecord } from './textures.js';

/** Chrome's limits (ppapi/proxy/video_decoder_constants.h). */
const MAX_PENDING_DECODES = 8;
const MAX_BITSTREAM_BUFFER_SIZE = 4 << 20;
const MAX_PICTURE_COUNT = 32;
const MAX_PICTURE_DELAY = 128;
/** Textures made when the plugin asks for fewer. */
const DEFAULT_PICTURE_COUNT = 16;

/** PP_VideoPicture (1.0, 1.1): 36 bytes; PP_VideoPicture_0_1: 20 bytes. */
const PICTURE = Object.freeze({ decode_id: 0, texture_id: 4, texture_target: 8, texture_size: 12, visible_rect: 20 });

/** PP_HardwareAcceleration. */
const ACCEL = Object.freeze({ ONLY: 0, WITHFALLBACK: 1, NONE: 2 });
const ACCEL_WEBCODECS = ['prefer-hardware', 'no-preference', 'prefer-software'];
const ACCEL_NAMES = ['PP_HARDWAREACCELERATION_ONLY', 'PP_HARDWAREACCELERATION_WITHFALLBACK', 'PP_HARDWAREACCELERATION_NONE'];

/** PP_VideoProfile → [name, WebCodecs codec string, kind]. */
const PROFILES = [
  ['PP_VIDEOPROFILE_H264BASELINE', 'avc1.420033', 'h264'],
  ['PP_VIDEOPROFILE_H264MAIN', 'avc1.4D0033', 'h264'],
  ['PP_VIDEOPROFILE_H264EXTENDED', 'avc1.580033', 'h264'],
  ['PP_VIDEOPROFILE_H264HIGH', 'avc1.640033', 'h264'],
  ['PP_VIDEOPROFILE_H264HIGH10PROFILE', 'avc1.6E0033', 'h264'],
  ['PP_VIDEOPROFILE_H264HIGH422PROFILE', 'avc1.7A0033', 'h264'],
  ['PP_VIDEOPROFILE_H264HIGH444PREDICTIVEPROFILE', 'avc1.F40033', 'h264'],
  ['PP_VIDEOPROFILE_H264SCALABLEBASELINE', 'avc1.530033', 'h264'],
  ['PP_VIDEOPROFILE_H264SCALABLEHIGH', 'avc1.560033', 'h264'],
  ['PP_VIDEOPROFILE_H264STEREOHIGH', 'avc1.800033', 'h264'],
  ['PP_VIDEOPROFILE_H264MULTIVIEWHIGH', 'avc1.760033', 'h264'],
  ['PP_VIDEOPROFILE_VP8_ANY', 'vp8', 'vp8'],
  ['PP_VIDEOPROFILE_VP9_ANY', 'vp09.00.10.08', 'vp9'],
];

/** The NAL units of an Annex B buffer (each with its start code). */
export function nalUnits(data) {
  const starts = [];
  for (let i = 0; i + 2 < data.length; i++) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      starts.push(i > 0 && data[i - 1] === 0 ? i - 1 : i);
      i += 2;
    }
  }
  if (starts.length === 0) return data.length ? [{ bytes: data, type: -1, header: -1 }] : [];
  const out = [];
  if (starts[0] > 0) out.push({ bytes: data.subarray(0, starts[0]), type: -1, header: -1 });
  for (let k = 0; k < starts.length; k++) {
    const bytes = data.subarray(starts[k], k + 1 < starts.length ? starts[k + 1] : data.length);
    const h = bytes[2] === 1 ? 3 : 4;
    out.push({ bytes, type: bytes.length > h ? bytes[h] & 0x1f : -1, header: h });
  }
  return out;
}

/**
 * Cuts an H.264 Annex B stream given in whole NAL units into access units:
 * `push(bytes, uid)` returns the units it completed, `{ data, key, uid }`.
 */
export class H264Framer {
  constructor() {
    this.clear();
  }

  clear() {
    this.parts = [];
    this.hasSlice = false;
    this.key = false;
    this.uid = 0;
  }

  take(out) {
    if (this.hasSlice) {
      const size = this.parts.reduce((n, p) => n + p.length, 0);
      const data = new Uint8Array(size);
      let at = 0;
      for (const p of this.parts) {
        data.set(p, at);
        at += p.length;
      }
      out.push({ data, key: this.key, uid: this.uid });
    }
    this.clear();
  }

  push(bytes, uid) {
    const out = [];
    for (const nal of nalUnits(bytes)) {
      const slice = nal.type >= 1 && nal.type <= 5;
      if (this.hasSlice) {
        // A new picture: a slice whose first_mb_in_slice (ue(v)) is 0, or
        // the units that may only come before a picture's first slice.
        const firstMb0 = slice && nal.bytes.length > nal.header + 1 && (nal.bytes[nal.header + 1] & 0x80) !== 0;
        const before = (nal.type >= 6 && nal.type <= 9) || (nal.type >= 14 && nal.type <= 18);
        if (firstMb0 || before) this.take(out);
      }
      if (slice && !this.hasSlice) {
        this.hasSlice = true;
        this.uid = uid;
      }
      if (nal.type === 5) this.key = true;
      this.parts.push(nal.bytes.slice());
    }
    // The buffer's end ends its last NAL unit, and a picture begun.
    if (this.hasSlice) this.take(out);
    return out;
  }
}

/** Whether a VP8 or VP9 frame is a key frame. */
export function vpxKeyFrame(kind, data) {
  if (data.length === 0) return false;
  if (kind === 'vp8') return (data[0] & 1) === 0;
  // VP9 uncompressed header: frame_marker(2) profile_low(1) profile_high(1)
  // [reserved(1) when profile 3] show_existing_frame(1) frame_type(1).
  let bit = 0;
  const read = () => {
    const v = (data[bit >> 3] >> (7 - (bit & 7))) & 1;
    bit++;
    return v;
  };
  bit = 2;
  const profile = read() | (read() << 1);
  if (profile === 3) read();
  if (read()) return false;
  return read() === 0;
}

/** One decoder's state on this thread. */
class Decoder {
  constructor(id) {
    this.id = id;
    /** Chrome's decoder_last_error_: PP_ERROR_FAILED until initialized. */
    this.lastError = PP.ERROR_FAILED;
    this.initialized = false;
    this.closed = false;
    this.ctx = null;
    this.vd = null;
    this.config = null;
    this.kind = null;
    this.framer = null;
    this.needKey = true;
    this.droppedReported = false;
    this.maxTextures = DEFAULT_PICTURE_COUNT;
    /** Pending callbacks: { func, userData } or null. */
    this.initCb = null;
    this.decodeCb = null;
    this.pictureCb = null;
    this.flushCb = null;
    this.resetCb = null;
    /** Where GetPicture writes, and whether it is a PP_VideoPicture_0_1. */
    this.picturePtr = 0;
    this.picture01 = false;
    this.numDecodes = 0;
    this.decodeIds = new Uint32Array(MAX_PICTURE_DELAY);
    /** Decoded frames waiting for a free texture. */
    this.frames = [];
    /** Pictures not yet handed to the plugin: { uid, name, width, height }. */
    this.ready = [];
    /** Texture name → { width, height }; `free` lists the unused ones. */
    this.textures = new Map();
    this.free = [];
    this.flushed = false;
    /** Bumped by Reset: a Flush's answer from before it is stale. */
    this.generation = 0;
  }
}

export default (env) => {
  const views = env.views;
  /** Decoder resource id → Decoder. */
  const decoders = new Map();
  env.videoDecoders = decoders;

  const callbackAt = (fn, ptr) => {
    views.check(fn, ptr, PP_CALLBACK.SIZE);
    return {
      func: views.getI32(fn, ptr + PP_CALLBACK.func) >>> 0,
      userData: views.getI32(fn, ptr + PP_CALLBACK.user_data) >>> 0,
      optional: (views.getI32(fn, ptr + PP_CALLBACK.flags) & CALLBACK_FLAG.OPTIONAL) !== 0,
    };
  };

  /** A result at hand, through Chrome's completion rules (graphics-3d.js settle). */
  const settle = (cb, result) => {
    if (cb.func === 0 || cb.optional) return result;
    env.queue([ITEM.CALLBACK, cb.func, cb.userData, result]);
    return PP.OK_COMPLETIONPENDING;
  };

  const run = (cb, result) => {
    if (cb) env.queue([ITEM.CALLBACK, cb.func, cb.userData, result]);
  };

  const decoderOf = (id) => {
    const d = decoders.get(id) ?? null;
    if (d && env.link.call('$VideoDecoder.alive', [id]) === 0) {
      destroy(d);
      return null;
    }
    return d;
  };

  /** The decoder's WebCodecs error: every pending call fails with it. */
  const fail = (d, why) => {
    if (d.closed || d.lastError === PP.ERROR_RESOURCE_FAILED) return;
    d.lastError = PP.ERROR_RESOURCE_FAILED;
    env.report('error', `PPB_VideoDecoder ${d.id}: the decoder failed (${why}); the plugin gets PP_ERROR_RESOURCE_FAILED`);
    for (const f of d.frames) f.frame.close();
    d.frames = [];
    for (const key of ['initCb', 'decodeCb', 'pictureCb', 'flushCb', 'resetCb']) {
      run(d[key], d.lastError);
      d[key] = null;
    }
  };

  /** Uploads `frame` into texture `name`, putting back the GL state the upload touches. */
  const upload = (d, name, frame) => {
    const c = d.ctx;
    const gl = c.gl;
    const r = textureRecord(c, name);
    const active = gl.getParameter(gl.ACTIVE_TEXTURE);
    gl.activeTexture(gl.TEXTURE0);
    const bound = gl.getParameter(gl.TEXTURE_BINDING_2D);
    const unpackBuffer = gl.getParameter(gl.PIXEL_UNPACK_BUFFER_BINDING);
    const store = [
      [gl.UNPACK_FLIP_Y_WEBGL, false],
      [gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false],
      [gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.BROWSER_DEFAULT_WEBGL],
      [gl.UNPACK_ALIGNMENT, 4],
      [gl.UNPACK_ROW_LENGTH, 0],
      [gl.UNPACK_SKIP_ROWS, 0],
      [gl.UNPACK_SKIP_PIXELS, 0],
    ].map(([p, v]) => {
      const old = gl.getParameter(p);
      if (old !== v) gl.pixelStorei(p, v);
      return [p, old, v];
    });
    if (unpackBuffer) gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
    gl.bindTexture(gl.TEXTURE_2D, r.obj);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, frame);
    gl.bindTexture(gl.TEXTURE_2D, bound);
    if (unpackBuffer) gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, unpackBuffer);
    for (const [p, old, v] of store) if (old !== v) gl.pixelStorei(p, old);
    gl.activeTexture(active);
  };

  /** A fresh texture in the plugin's name space, set up as Chrome made them. */
  const newTexture = (d) => {
    const c = d.ctx;
    const gl = c.gl;
    const r = textureRecord(c, c.genName(c.textures));
    const active = gl.getParameter(gl.ACTIVE_TEXTURE);
    gl.activeTexture(gl.TEXTURE0);
    const bound = gl.getParameter(gl.TEXTURE_BINDING_2D);
    gl.bindTexture(gl.TEXTURE_2D, r.obj);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.bindTexture(gl.TEXTURE_2D, bound);
    gl.activeTexture(active);
    d.textures.set(r.name, { width: 0, height: 0 });
    return r.name;
  };

  const writePicture = (d, p) => {
    const fn = 'PPB_VideoDecoder.GetPicture';
    const ptr = d.picturePtr;
    views.check(fn, ptr, d.picture01 ? 20 : 36);
    views.setI32(fn, ptr + PICTURE.decode_id, d.decodeIds[p.uid % MAX_PICTURE_DELAY]);
    views.setI32(fn, ptr + PICTURE.texture_id, p.name);
    views.setI32(fn, ptr + PICTURE.texture_target, GL.TEXTURE_2D);
    views.setI32(fn, ptr + PICTURE.texture_size, p.width);
    views.setI32(fn, ptr + PICTURE.texture_size + 4, p.height);
    if (!d.picture01) {
      views.setI32(fn, ptr + PICTURE.visible_rect, 0);
      views.setI32(fn, ptr + PICTURE.visible_rect + 4, 0);
      views.setI32(fn, ptr + PICTURE.visible_rect + 8, p.width);
      views.setI32(fn, ptr + PICTURE.visible_rect + 12, p.height);
    }
    d.picturePtr = 0;
  };

  /** Frames into free textures, pictures to a waiting GetPicture, a Flush's end. */
  const pump = (d) => {
    if (d.closed) return;
    const c = d.ctx;
    if (!c || c.destroyed || c.lost || c.gl.isContextLost()) {
      if (d.frames.length) fail(d, 'its Graphics3D context is gone');
      return;
    }
    while (d.frames.length) {
      let name = d.free.pop();
      if (name === undefined) {
        if (d.textures.size >= d.maxTextures) break;
        name = newTexture(d);
      }
      const { frame, uid } = d.frames.shift();
      const width = frame.displayWidth;
      const height = frame.displayHeight;
      try {
        upload(d, name, frame);
      } catch (e) {
        d.free.push(name);
        fail(d, `the upload into texture ${name} failed: ${e?.message ?? e}`);
        return;
      } finally {
        frame.close();
      }
      d.textures.set(name, { width, height });
      d.ready.push({ uid, name, width, height });
    }
    if (d.pictureCb && d.ready.length) {
      const cb = d.pictureCb;
      d.pictureCb = null;
      writePicture(d, d.ready.shift());
      run(cb, PP.OK);
    }
    if (d.flushCb && d.flushed && d.frames.length === 0) {
      d.flushed = false;
      if (d.pictureCb && d.ready.length === 0) {
        run(d.pictureCb, PP.ERROR_ABORTED);
        d.pictureCb = null;
      }
      const cb = d.flushCb;
      d.flushCb = null;
      run(cb, PP.OK);
    }
  };

  const dequeued = (d) => {
    if (d.decodeCb && d.vd && d.vd.decodeQueueSize < MAX_PENDING_DECODES) {
      const cb = d.decodeCb;
      d.decodeCb = null;
      run(cb, PP.OK);
    }
  };

  const makeDecoder = (d) => {
    const vd = new VideoDecoder({
      output: (frame) => {
        if (d.closed || d.vd !== vd) {
          frame.close();
          return;
        }
        d.frames.push({ frame, uid: frame.timestamp });
        pump(d);
      },
      error: (e) => {
        if (d.vd === vd && !d.closed) fail(d, `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
      },
    });
    vd.addEventListener?.('dequeue', () => dequeued(d));
    vd.configure(d.config);
    return vd;
  };

  /** Hands one frame's bytes to WebCodecs (dropped until a key frame). */
  const submit = (d, unit) => {
    if (d.needKey && !unit.key) {
      if (!d.droppedReported) {
        d.droppedReported = true;
        env.report('warning', `PPB_VideoDecoder ${d.id}: frames before the first key frame are dropped (WebCodecs starts at a key frame)`);
      }
      return;
    }
    d.needKey = false;
    try {
      d.vd.decode(new EncodedVideoChunk({ type: unit.key ? 'key' : 'delta', timestamp: unit.uid, data: unit.data }));
    } catch (e) {
      fail(d, `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
    }
  };

  const destroy = (d) => {
    if (d.closed) return;
    d.closed = true;
    decoders.delete(d.id);
    for (const f of d.frames) f.frame.close();
    d.frames = [];
    try {
      if (d.vd && d.vd.state !== 'closed') d.vd.close();
    } catch {
      // already closed
    }
    d.vd = null;
    const c = d.ctx;
    if (c && !c.destroyed && !c.lost) {
      for (const name of d.textures.keys()) {
        const r = c.textures.get(name);
        if (!r) continue;
        c.gl.deleteTexture(r.obj);
        c.textures.delete(name);
      }
    }
    d.textures.clear();
    // Chrome's tracked callbacks are aborted with their resource.
    for (const key of ['initCb', 'decodeCb', 'pictureCb', 'flushCb', 'resetCb']) {
      run(d[key], PP.ERROR_ABORTED);
      d[key] = null;
    }
  };
  env.destroyVideoDecoder = (id) => {
    const d = decoders.get(id);
    if (d) destroy(d);
  };

  const initialize = (fn, id, g3d, profile, accel, minCount, callback) => {
    const cb = callbackAt(fn, callback >>> 0);
    if (cb.func === 0) return PP.ERROR_BLOCKS_MAIN_THREAD;
    const d = decoderOf(id);
    if (!d) return settle(cb, PP.ERROR_BADRESOURCE);
    if (d.initialized) return settle(cb, PP.ERROR_FAILED);
    if (profile < 0 || profile >= PROFILES.length) return settle(cb, PP.ERROR_BADARGUMENT);
    if (minCount > MAX_PICTURE_COUNT) return settle(cb, PP.ERROR_BADARGUMENT);
    if (d.initCb) return settle(cb, PP.ERROR_INPROGRESS);
    if (!g3d) return settle(cb, PP.ERROR_BADRESOURCE);
    const c = env.ctx(g3d);
    if (!c) return settle(cb, PP.ERROR_BADRESOURCE);
    d.ctx = c;
    d.maxTextures = Math.max(minCount, DEFAULT_PICTURE_COUNT);
    d.initCb = { func: cb.func, userData: cb.userData };
    const [name, codec, kind] = PROFILES[profile];
    const acceleration = accel >= 0 && accel <= ACCEL.NONE ? accel : ACCEL.WITHFALLBACK;
    const config = { codec, hardwareAcceleration: ACCEL_WEBCODECS[acceleration], optimizeForLatency: true };
    const what = `${name} with ${ACCEL_NAMES[acceleration]} (WebCodecs ${JSON.stringify(config)})`;
    const done = (result, why) => {
      if (d.closed || !d.initCb) return;
      const initCb = d.initCb;
      d.initCb = null;
      d.lastError = result;
      if (result === PP.OK) {
        d.initialized = true;
      } else {
        env.report('error', `PPB_VideoDecoder.Initialize: ${what} ${why}; the plugin gets PP_ERROR_NOTSUPPORTED`);
      }
      run(initCb, result);
    };
    if (typeof VideoDecoder !== 'function' || typeof EncodedVideoChunk !== 'function') {
      queueMicrotask(() => done(PP.ERROR_NOTSUPPORTED, 'cannot be decoded: this browser has no WebCodecs VideoDecoder here'));
      return PP.OK_COMPLETIONPENDING;
    }
    VideoDecoder.isConfigSupported(config).then(
      (support) => {
        if (d.closed || !d.initCb) return;
        if (!support?.supported) return done(PP.ERROR_NOTSUPPORTED, 'is not supported by this browser\'s WebCodecs VideoDecoder');
        d.config = config;
        d.kind = kind;
        d.framer = kind === 'h264' ? new H264Framer() : null;
        try {
          d.vd = makeDecoder(d);
        } catch (e) {
          return done(PP.ERROR_NOTSUPPORTED, `could not be configured (${e?.message ?? e})`);
        }
        done(PP.OK);
      },
      (e) => done(PP.ERROR_NOTSUPPORTED, `could not be checked (${e?.message ?? e})`),
    );
    return PP.OK_COMPLETIONPENDING;
  };

  const decode = (id, decodeId, size, buffer, callback) => {
    const fn = 'PPB_VideoDecoder.Decode';
    const cb = callbackAt(fn, callback >>> 0);
    if (cb.func === 0) return PP.ERROR_BLOCKS_MAIN_THREAD;
    const d = decoderOf(id);
    if (!d) return settle(cb, PP.ERROR_BADRESOURCE);
    if (d.lastError) return settle(cb, d.lastError);
    if (d.flushCb || d.resetCb) return settle(cb, PP.ERROR_FAILED);
    if (d.decodeCb) return settle(cb, PP.ERROR_INPROGRESS);
    size >>>= 0;
    if (size > MAX_BITSTREAM_BUFFER_SIZE) return settle(cb, PP.ERROR_NOMEMORY);
    const bytes = views.bytes(fn, buffer >>> 0, size);
    let uid = ++d.numDecodes;
    if (uid === 0x7fffffff) d.numDecodes = 0;
    d.decodeIds[uid % MAX_PICTURE_DELAY] = decodeId >>> 0;
    const units = d.framer ? d.framer.push(bytes, uid) : [{ data: bytes.slice(), key: vpxKeyFrame(d.kind, bytes), uid }];
    for (const unit of units) submit(d, unit);
    if (d.lastError) return settle(cb, d.lastError);
    if (d.vd.decodeQueueSize < MAX_PENDING_DECODES) return settle(cb, PP.OK);
    d.decodeCb = { func: cb.func, userData: cb.userData };
    return PP.OK_COMPLETIONPENDING;
  };

  const getPicture = (id, picture, callback, v01) => {
    const fn = 'PPB_VideoDecoder.GetPicture';
    const cb = callbackAt(fn, callback >>> 0);
    if (cb.func === 0) return PP.ERROR_BLOCKS_MAIN_THREAD;
    const d = decoderOf(id);
    if (!d) return settle(cb, PP.ERROR_BADRESOURCE);
    if (d.lastError) return settle(cb, d.lastError);
    if (d.resetCb) return settle(cb, PP.ERROR_FAILED);
    if (d.pictureCb) return settle(cb, PP.ERROR_INPROGRESS);
    d.picturePtr = picture >>> 0;
    d.picture01 = v01;
    views.check(fn, d.picturePtr, v01 ? 20 : 36);
    if (d.ready.length) {
      writePicture(d, d.ready.shift());
      return settle(cb, PP.OK);
    }
    d.pictureCb = { func: cb.func, userData: cb.userData };
    return PP.OK_COMPLETIONPENDING;
  };

  const recyclePicture = (id, picture) => {
    const fn = 'PPB_VideoDecoder.RecyclePicture';
    const d = decoderOf(id);
    if (!d || d.lastError) return;
    const name = views.getI32(fn, (picture >>> 0) + PICTURE.texture_id) >>> 0;
    if (!d.textures.has(name) || d.free.includes(name) || d.ready.some((p) => p.name === name)) return;
    d.free.push(name);
    pump(d);
  };

  const flush = (id, callback) => {
    const cb = callbackAt('PPB_VideoDecoder.Flush', callback >>> 0);
    if (cb.func === 0) return PP.ERROR_BLOCKS_MAIN_THREAD;
    const d = decoderOf(id);
    if (!d) return settle(cb, PP.ERROR_BADRESOURCE);
    if (d.lastError) return settle(cb, d.lastError);
    if (d.resetCb) return settle(cb, PP.ERROR_FAILED);
    if (d.flushCb) return settle(cb, PP.ERROR_INPROGRESS);
    d.flushCb = { func: cb.func, userData: cb.userData };
    d.flushed = false;
    const generation = d.generation;
    const vd = d.vd;
    vd.flush().then(
      () => {
        if (d.closed || d.vd !== vd || d.generation !== generation) return;
        // WebCodecs starts again at a key frame after a flush.
        d.needKey = true;
        d.flushed = true;
        pump(d);
      },
      () => {}, // reset or closed: that path answers the callbacks
    );
    return PP.OK_COMPLETIONPENDING;
  };

  const reset = (id, callback) => {
    const cb = callbackAt('PPB_VideoDecoder.Reset', callback >>> 0);
    if (cb.func === 0) return PP.ERROR_BLOCKS_MAIN_THREAD;
    const d = decoderOf(id);
    if (!d) return settle(cb, PP.ERROR_BADRESOURCE);
    if (d.lastError) return settle(cb, d.lastError);
    if (d.flushCb) return settle(cb, PP.ERROR_FAILED);
    if (d.resetCb) return settle(cb, PP.ERROR_INPROGRESS);
    // Pending Decode and GetPicture callbacks are aborted after this call.
    run(d.decodeCb, PP.ERROR_ABORTED);
    d.decodeCb = null;
    run(d.pictureCb, PP.ERROR_ABORTED);
    d.pictureCb = null;
    d.generation++;
    try {
      d.vd.reset();
      d.vd.configure(d.config);
    } catch (e) {
      fail(d, `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
      return settle(cb, d.lastError);
    }
    for (const f of d.frames) f.frame.close();
    d.frames = [];
    d.framer?.clear();
    d.needKey = true;
    // Pictures the plugin never took go back to the pool.
    for (const p of d.ready) d.free.push(p.name);
    d.ready = [];
    d.resetCb = { func: cb.func, userData: cb.userData };
    queueMicrotask(() => {
      if (d.closed || !d.resetCb) return;
      const resetCb = d.resetCb;
      d.resetCb = null;
      run(resetCb, PP.OK);
    });
    return PP.OK_COMPLETIONPENDING;
  };

  const create = (instance) => {
    if (instance !== INSTANCE_ID) return 0;
    const id = env.link.call('$VideoDecoder.create', []);
    if (id === 0) return 0;
    decoders.set(id, new Decoder(id));
    return id;
  };
  const isVideoDecoder = (resource) => (env.link.call('$VideoDecoder.alive', [resource]) !== 0 ? 1 : 0);

  // Members alike in several versions share one key (abi.gen.js).
  const VD = 'PPB_VideoDecoder;';
  const fn = 'PPB_VideoDecoder.Initialize';
  const out = {
    [`${VD}0.1:Create`]: create,
    [`${VD}0.1:IsVideoDecoder`]: isVideoDecoder,
    [`${VD}0.1:Initialize`]: (id, g3d, profile, allowSoftware, callback) =>
      initialize(fn, id, g3d, profile, allowSoftware ? ACCEL.WITHFALLBACK : ACCEL.ONLY, 0, callback),
    [`${VD}0.2:Initialize`]: (id, g3d, profile, accel, callback) => initialize(fn, id, g3d, profile, accel, 0, callback),
    [`${VD}1.1:Initialize`]: (id, g3d, profile, accel, minCount, callback) =>
      initialize(fn, id, g3d, profile, accel, minCount >>> 0, callback),
    [`${VD}0.1:Decode`]: decode,
    [`${VD}0.1:GetPicture`]: (id, picture, callback) => getPicture(id, picture, callback, true),
    [`${VD}1.0:GetPicture`]: (id, picture, callback) => getPicture(id, picture, callback, false),
    [`${VD}0.1:RecyclePicture`]: recyclePicture,
    [`${VD}0.1:Flush`]: flush,
    [`${VD}0.1:Reset`]: reset,
  };
  return out;
};

/** Main-loop items for this thread's video decoders (local.js). */
export function handleLocalItem(env, item) {
  if (item.local === 'VideoDecoder.destroyed') {
    env.destroyVideoDecoder?.(item.id);
    return true;
  }
  return false;
}
