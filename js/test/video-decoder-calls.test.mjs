// PPB_VideoDecoder's calls (gl/video-decoder.js) against a stand-in for
// WebCodecs and for the plugin's GL context: the completion rules of
// Chrome's video_decoder_resource.cc (Decode's 8 buffers, GetPicture's
// struct, Flush and Reset with PP_ERROR_ABORTED, the errors in between)
// and textures named in the plugin's context. The real decoding is
// tests/browser/video.test.mjs's.

import test from 'node:test';
import assert from 'node:assert/strict';
import { GLContext } from '../src/internal/pepper/gl/context.js';
import { GuestViews } from '../src/internal/pepper/gl/memory.js';
import { ThreadGL } from '../src/internal/pepper/gl/env.js';
import videoDecoder, { handleLocalItem } from '../src/internal/pepper/gl/video-decoder.js';
import { ITEM, PP } from '../src/internal/pepper/defs.js';

const GL_TEXTURE_2D = 0x0de1;

/** WebCodecs' VideoDecoder, driven by the test: `outputs` frames, `finish` flushes. */
class FakeVideoDecoder {
  static supported = true;
  static last = null;
  static async isConfigSupported(config) {
    return { supported: FakeVideoDecoder.supported, config };
  }
  constructor({ output, error }) {
    this.output = output;
    this.error = error;
    this.state = 'unconfigured';
    this.decodeQueueSize = 0;
    this.chunks = [];
    this.flushes = [];
    this.listeners = [];
    FakeVideoDecoder.last = this;
  }
  addEventListener(type, fn) {
    if (type === 'dequeue') this.listeners.push(fn);
  }
  configure(config) {
    this.config = config;
    this.state = 'configured';
  }
  decode(chunk) {
    this.chunks.push(chunk);
    this.decodeQueueSize++;
  }
  /** The decoder takes `n` chunks and outputs a frame for each. */
  take(n, width = 32, height = 16) {
    for (let i = 0; i < n; i++) {
      const chunk = this.chunks.shift();
      this.decodeQueueSize--;
      for (const fn of this.listeners) fn();
      this.output({ timestamp: chunk.timestamp, displayWidth: width, displayHeight: height, close() { this.closed = true; } });
    }
  }
  flush() {
    return new Promise((resolve, reject) => this.flushes.push({ resolve, reject }));
  }
  reset() {
    for (const f of this.flushes) f.reject(new Error('AbortError'));
    this.flushes = [];
    this.chunks = [];
    this.decodeQueueSize = 0;
    this.state = 'unconfigured';
  }
  close() {
    this.state = 'closed';
  }
}

class FakeChunk {
  constructor({ type, timestamp, data }) {
    Object.assign(this, { type, timestamp, data });
  }
}

/** A WebGL2 context that records texture uploads. */
function fakeGl() {
  const calls = [];
  const params = new Map();
  return {
    calls,
    TEXTURE_2D: GL_TEXTURE_2D, TEXTURE0: 0x84c0, RGBA: 0x1908, UNSIGNED_BYTE: 0x1401, LINEAR: 0x2601, CLAMP_TO_EDGE: 0x812f,
    TEXTURE_MIN_FILTER: 0x2801, TEXTURE_MAG_FILTER: 0x2800, TEXTURE_WRAP_S: 0x2802, TEXTURE_WRAP_T: 0x2803,
    ACTIVE_TEXTURE: 0x84e0, TEXTURE_BINDING_2D: 0x8069, PIXEL_UNPACK_BUFFER_BINDING: 0x88ef, PIXEL_UNPACK_BUFFER: 0x88ec,
    UNPACK_FLIP_Y_WEBGL: 0x9240, UNPACK_PREMULTIPLY_ALPHA_WEBGL: 0x9241, UNPACK_COLORSPACE_CONVERSION_WEBGL: 0x9243,
    BROWSER_DEFAULT_WEBGL: 0x9244, UNPACK_ALIGNMENT: 0x0cf5, UNPACK_ROW_LENGTH: 0x0cf2, UNPACK_SKIP_ROWS: 0x0cf3, UNPACK_SKIP_PIXELS: 0x0cf4,
    MAX_VERTEX_ATTRIBS: 0x8869,
    getParameter(p) {
      if (p === 0x8869) return 16;
      if (p === 0x84e0) return 0x84c0;
      if (p === 0x9243) return 0x9244;
      if (p === 0x0cf5) return 4;
      return params.get(p) ?? (p === 0x9240 || p === 0x9241 ? false : p === 0x8069 || p === 0x88ef ? null : 0);
    },
    createTexture: () => ({ texture: true }),
    deleteTexture: (t) => calls.push(['deleteTexture', t]),
    activeTexture: () => {},
    bindTexture: (target, t) => params.set(0x8069, t),
    texParameteri: () => {},
    pixelStorei: (p, v) => params.set(p, v),
    bindBuffer: () => {},
    texImage2D: (...args) => calls.push(['texImage2D', params.get(0x8069), args.at(-1)]),
    isContextLost: () => false,
  };
}

function setup() {
  globalThis.VideoDecoder = FakeVideoDecoder;
  globalThis.EncodedVideoChunk = FakeChunk;
  FakeVideoDecoder.supported = true;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const items = [];
  const logs = [];
  const alive = new Set();
  let nextId = 100;
  const link = {
    call(key, args) {
      if (key === '$VideoDecoder.create') {
        alive.add(++nextId);
        return nextId;
      }
      if (key === '$VideoDecoder.alive') return alive.has(args[0]) ? 1 : 0;
      if (key === '$Graphics3D.report') return logs.push(args[1]), 0;
      return 0;
    },
  };
  const thread = { memory, queueItem: (item) => items.push(item) };
  const env = new ThreadGL(thread, link);
  const gl = fakeGl();
  const ctx = new GLContext({ id: 7, canvas: {}, gl, attribs: {}, surface: true });
  env.contexts.set(7, ctx);
  const f = videoDecoder(env);
  const views = new GuestViews(memory);
  const u8 = new Uint8Array(memory.buffer);
  // Guest memory: callbacks at 0x100 (required) and 0x110 (optional),
  // pictures at 0x200, bitstream at 0x1000.
  views.setI32('t', 0x100, 0x55);
  views.setI32('t', 0x104, 0x66);
  views.setI32('t', 0x108, 0);
  views.setI32('t', 0x110, 0x77);
  views.setI32('t', 0x114, 0x88);
  views.setI32('t', 0x118, 1);
  const idr = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x68, 0xce, 0, 0, 0, 1, 0x65, 0x88, 0x84];
  const delta = [0, 0, 0, 1, 0x41, 0x9a, 0x02];
  const put = (bytes) => {
    u8.set(bytes, 0x1000);
    return bytes.length;
  };
  const callbacks = () => items.splice(0).filter((i) => Array.isArray(i) && i[0] === ITEM.CALLBACK).map((i) => [i[1], i[3]]);
  const picture = (at = 0x200) => Array.from({ length: 9 }, (_, i) => views.getI32('t', at + 4 * i));
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { f, env, ctx, gl, views, put, idr, delta, callbacks, picture, settle, logs, alive };
}

async function initialized(s, minPictures = 0) {
  const id = s.f['PPB_VideoDecoder;0.1:Create'](1);
  assert.ok(id > 0);
  assert.equal(s.f['PPB_VideoDecoder;1.1:Initialize'](id, 7, 3, 2, minPictures, 0x100), PP.OK_COMPLETIONPENDING);
  await s.settle();
  assert.deepEqual(s.callbacks(), [[0x55, PP.OK]]);
  assert.equal(FakeVideoDecoder.last.config.codec, 'avc1.640033');
  assert.equal(FakeVideoDecoder.last.config.hardwareAcceleration, 'prefer-software');
  return id;
}

test('Decode, then GetPicture: the frame is a texture of the plugin\'s context with its decode_id', async () => {
  const s = setup();
  const id = await initialized(s);
  const vd = FakeVideoDecoder.last;
  // A required callback with a result at hand is called later (Chrome's rules).
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 41, s.put(s.idr), 0x1000, 0x100), PP.OK_COMPLETIONPENDING);
  assert.deepEqual(s.callbacks(), [[0x55, PP.OK]]);
  assert.equal(vd.chunks[0].type, 'key');
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK_COMPLETIONPENDING);
  vd.take(1);
  assert.deepEqual(s.callbacks(), [[0x77, PP.OK]]);
  const [decodeId, texture, target, w, h, x, y, vw, vh] = s.picture();
  assert.deepEqual([decodeId, target, w, h, x, y, vw, vh], [41, GL_TEXTURE_2D, 32, 16, 0, 0, 32, 16]);
  assert.ok(s.ctx.textures.has(texture), 'the name is the plugin context\'s');
  assert.equal(s.gl.calls.filter((c) => c[0] === 'texImage2D').length, 1);
  assert.equal(s.gl.calls[0][1], s.ctx.textures.get(texture).obj, 'uploaded into that texture');
  // A second frame while the plugin holds the first goes to another texture;
  // a recycled one is used again.
  s.f['PPB_VideoDecoder;0.1:Decode'](id, 42, s.put(s.delta), 0x1000, 0x110);
  vd.take(1);
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x240, 0x110), PP.OK, 'a picture at hand: answered at once');
  const second = s.picture(0x240);
  assert.equal(second[0], 42);
  assert.notEqual(second[1], texture);
  s.f['PPB_VideoDecoder;0.1:RecyclePicture'](id, 0x200);
  s.f['PPB_VideoDecoder;0.1:Decode'](id, 43, s.put(s.delta), 0x1000, 0x110);
  vd.take(1);
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK);
  assert.deepEqual(s.picture().slice(0, 2), [43, texture], 'the recycled texture');
  // Destroying the decoder deletes its textures (as Chrome's destructor did).
  s.alive.delete(id);
  assert.ok(handleLocalItem(s.env, { local: 'VideoDecoder.destroyed', id }));
  assert.equal(s.ctx.textures.has(texture), false);
});

test('Decode waits when 8 chunks are queued; a second Decode meanwhile is PP_ERROR_INPROGRESS', async () => {
  const s = setup();
  const id = await initialized(s);
  const vd = FakeVideoDecoder.last;
  for (let i = 0; i < 7; i++) assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, i, s.put(i ? s.delta : s.idr), 0x1000, 0x110), PP.OK);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 7, s.put(s.delta), 0x1000, 0x110), PP.OK_COMPLETIONPENDING);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 8, s.put(s.delta), 0x1000, 0x110), PP.ERROR_INPROGRESS);
  assert.deepEqual(s.callbacks(), []);
  vd.take(1);
  assert.deepEqual(s.callbacks(), [[0x77, PP.OK]]);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 1, 5 << 20, 0x1000, 0x110), PP.ERROR_NOMEMORY);
});

test('frames before the first key frame are dropped', async () => {
  const s = setup();
  const id = await initialized(s);
  s.f['PPB_VideoDecoder;0.1:Decode'](id, 1, s.put(s.delta), 0x1000, 0x110);
  assert.equal(FakeVideoDecoder.last.chunks.length, 0);
  assert.equal(s.logs.length, 1);
  s.f['PPB_VideoDecoder;0.1:Decode'](id, 2, s.put(s.idr), 0x1000, 0x110);
  assert.equal(FakeVideoDecoder.last.chunks.length, 1);
});

test('Flush completes when every frame is a picture, aborting a pending GetPicture', async () => {
  const s = setup();
  const id = await initialized(s);
  const vd = FakeVideoDecoder.last;
  s.f['PPB_VideoDecoder;0.1:Decode'](id, 5, s.put(s.idr), 0x1000, 0x110);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Flush'](id, 0x100), PP.OK_COMPLETIONPENDING);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Flush'](id, 0x110), PP.ERROR_INPROGRESS);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 6, s.put(s.delta), 0x1000, 0x110), PP.ERROR_FAILED, 'no Decode during Flush');
  assert.equal(s.f['PPB_VideoDecoder;0.1:Reset'](id, 0x110), PP.ERROR_FAILED, 'no Reset during Flush');
  vd.take(1);
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK);
  assert.equal(s.picture()[0], 5);
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK_COMPLETIONPENDING);
  vd.flushes.shift().resolve();
  await s.settle();
  assert.deepEqual(s.callbacks(), [[0x77, PP.ERROR_ABORTED], [0x55, PP.OK]]);
});

test('Reset aborts a pending Decode and GetPicture, drops untaken pictures, then completes', async () => {
  const s = setup();
  const id = await initialized(s);
  const vd = FakeVideoDecoder.last;
  for (let i = 0; i < 8; i++) s.f['PPB_VideoDecoder;0.1:Decode'](id, i, s.put(i ? s.delta : s.idr), 0x1000, 0x110);
  s.callbacks();
  vd.take(2); // the Decode waiting is answered by the first
  s.callbacks();
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 9, s.put(s.delta), 0x1000, 0x110), PP.OK);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 10, s.put(s.delta), 0x1000, 0x100), PP.OK_COMPLETIONPENDING, '8 queued: waits');
  assert.equal(s.callbacks().length, 0);
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK, 'a picture was at hand');
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK, 'and another');
  // Now: a Decode pending (0x100's), a GetPicture pending (0x110's).
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK_COMPLETIONPENDING);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Reset'](id, 0x110), PP.OK_COMPLETIONPENDING);
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.ERROR_FAILED, 'no GetPicture during Reset');
  assert.equal(s.f['PPB_VideoDecoder;0.1:Reset'](id, 0x110), PP.ERROR_INPROGRESS);
  await s.settle();
  assert.deepEqual(s.callbacks(), [[0x55, PP.ERROR_ABORTED], [0x77, PP.ERROR_ABORTED], [0x77, PP.OK]]);
  assert.equal(vd.state, 'configured', 'configured again');
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 12, s.put(s.delta), 0x1000, 0x110), PP.OK);
  assert.equal(vd.chunks.length, 0, 'after a reset, frames wait for a key frame');
  assert.equal(s.f['PPB_VideoDecoder;1.0:GetPicture'](id, 0x200, 0x110), PP.OK_COMPLETIONPENDING, 'the pictures not taken are gone');
});

test('PPB_VideoDecoder 0.1: allow_software_fallback, and the 20-byte picture', async () => {
  const s = setup();
  const id = s.f['PPB_VideoDecoder;0.1:Create'](1);
  s.f['PPB_VideoDecoder;0.1:Initialize'](id, 7, 0, 0, 0x110);
  await s.settle();
  assert.equal(FakeVideoDecoder.last.config.hardwareAcceleration, 'prefer-hardware', 'no fallback: hardware only');
  assert.equal(FakeVideoDecoder.last.config.codec, 'avc1.420033');
  s.views.setI32('t', 0x200 + 20, -1);
  s.f['PPB_VideoDecoder;0.1:Decode'](id, 3, s.put(s.idr), 0x1000, 0x110);
  s.f['PPB_VideoDecoder;0.1:GetPicture'](id, 0x200, 0x110);
  FakeVideoDecoder.last.take(1);
  assert.deepEqual(s.picture().slice(0, 6), [3, s.picture()[1], GL_TEXTURE_2D, 32, 16, -1], 'nothing written past the 0.1 struct');
});

test('an unsupported configuration: PP_ERROR_NOTSUPPORTED and one log line; calls fail after', async () => {
  const s = setup();
  FakeVideoDecoder.supported = false;
  const id = s.f['PPB_VideoDecoder;0.1:Create'](1);
  assert.equal(s.f['PPB_VideoDecoder;0.2:Initialize'](id, 7, 12, 0, 0x100), PP.OK_COMPLETIONPENDING);
  await s.settle();
  assert.deepEqual(s.callbacks(), [[0x55, PP.ERROR_NOTSUPPORTED]]);
  assert.equal(s.logs.length, 1);
  assert.match(s.logs[0], /PP_VIDEOPROFILE_VP9_ANY with PP_HARDWAREACCELERATION_ONLY .*not supported.*PP_ERROR_NOTSUPPORTED/);
  assert.equal(s.f['PPB_VideoDecoder;0.1:Decode'](id, 1, s.put(s.idr), 0x1000, 0x110), PP.ERROR_NOTSUPPORTED);
  // Bad arguments, as Chrome checked them.
  const other = s.f['PPB_VideoDecoder;0.1:Create'](1);
  assert.equal(s.f['PPB_VideoDecoder;1.1:Initialize'](other, 7, 13, 0, 0, 0x110), PP.ERROR_BADARGUMENT);
  assert.equal(s.f['PPB_VideoDecoder;1.1:Initialize'](other, 7, 0, 0, 33, 0x110), PP.ERROR_BADARGUMENT);
  assert.equal(s.f['PPB_VideoDecoder;1.1:Initialize'](other, 0, 0, 0, 0, 0x110), PP.ERROR_BADRESOURCE);
  assert.equal(s.f['PPB_VideoDecoder;0.1:IsVideoDecoder'](other), 1);
  assert.equal(s.f['PPB_VideoDecoder;0.1:IsVideoDecoder'](7), 0);
});
