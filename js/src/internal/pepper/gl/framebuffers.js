// Framebuffer and renderbuffer objects, reading pixels back, and the
// extension interfaces that are about framebuffers.
//
//   void GenFramebuffers / DeleteFramebuffers / GenRenderbuffers / DeleteRenderbuffers (GLsizei n, GLuint*)
//   void BindFramebuffer(GLenum target, GLuint framebuffer); GLboolean IsFramebuffer(GLuint)
//   void BindRenderbuffer(GLenum target, GLuint renderbuffer); GLboolean IsRenderbuffer(GLuint)
//   GLenum CheckFramebufferStatus(GLenum target)
//   void FramebufferRenderbuffer(GLenum target, GLenum attachment, GLenum renderbuffertarget, GLuint renderbuffer)
//   void FramebufferTexture2D(GLenum target, GLenum attachment, GLenum textarget, GLuint texture, GLint level)
//   void GetFramebufferAttachmentParameteriv(GLenum target, GLenum attachment, GLenum pname, GLint* params)
//   void RenderbufferStorage(GLenum target, GLenum internalformat, GLsizei width, GLsizei height)
//   void GetRenderbufferParameteriv(GLenum target, GLenum pname, GLint* params)
//   void ReadPixels(GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type, void* pixels)
//   PPB_OpenGLES2FramebufferBlit;1.0        BlitFramebufferEXT(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1, mask, filter)
//   PPB_OpenGLES2FramebufferMultisample;1.0 RenderbufferStorageMultisampleEXT(target, samples, internalformat, width, height)
//   PPB_OpenGLES2DrawBuffers(Dev);1.0       DrawBuffersEXT(GLsizei count, const GLenum* bufs)
//
// Each is WebGL2's call with names mapped to objects (binding an unknown
// name creates it). Framebuffer 0 is the Graphics3D's drawing buffer: the
// canvas. ReadPixels writes into guest memory in place (sized by the pack
// alignment). The EXT blit, multisample and draw-buffers entry points are
// WebGL2's core calls, with the same enum values.

import { GL } from './enums.js';
import { readNames, writeNames } from './buffers.js';
import { imageBytes, pixelArrayKind, pixelType, renderbufferFormat } from './pixels.js';

function record(c, table, name, create) {
  let r = table.get(name);
  if (!r) {
    r = { name, obj: create.call(c.gl) };
    c.names.set(r.obj, name);
    table.set(name, r);
  }
  return r;
}

export default (env) => {
  const views = env.views;
  const GLES = 'PPB_OpenGLES2;1.0:';

  const gen = (fn, table, create) => (context, n, ptr) => {
    const c = env.ctx(context);
    if (!c) return;
    if (n < 0) return c.error(GL.INVALID_VALUE);
    views.check(fn, ptr, 4 * n);
    const t = c[table];
    const names = [];
    for (let i = 0; i < n; i++) names.push(record(c, t, c.genName(t), c.gl[create]).name);
    writeNames(views, fn, ptr, names);
  };
  const del = (fn, table, remove) => (context, n, ptr) => {
    const c = env.ctx(context);
    if (!c) return;
    if (n < 0) return c.error(GL.INVALID_VALUE);
    const t = c[table];
    for (const name of readNames(views, fn, n, ptr)) {
      const r = t.get(name);
      if (!r) continue;
      c.gl[remove](r.obj);
      t.delete(name);
    }
  };

  return {
    [`${GLES}GenFramebuffers`]: gen('glGenFramebuffers', 'framebuffers', 'createFramebuffer'),
    [`${GLES}GenRenderbuffers`]: gen('glGenRenderbuffers', 'renderbuffers', 'createRenderbuffer'),
    [`${GLES}DeleteFramebuffers`]: del('glDeleteFramebuffers', 'framebuffers', 'deleteFramebuffer'),
    [`${GLES}DeleteRenderbuffers`]: del('glDeleteRenderbuffers', 'renderbuffers', 'deleteRenderbuffer'),
    [`${GLES}BindFramebuffer`](context, target, framebuffer) {
      const c = env.ctx(context);
      if (!c) return;
      framebuffer >>>= 0;
      c.gl.bindFramebuffer(target, framebuffer === 0 ? null : record(c, c.framebuffers, framebuffer, c.gl.createFramebuffer).obj);
    },
    [`${GLES}BindRenderbuffer`](context, target, renderbuffer) {
      const c = env.ctx(context);
      if (!c) return;
      renderbuffer >>>= 0;
      c.gl.bindRenderbuffer(target, renderbuffer === 0 ? null : record(c, c.renderbuffers, renderbuffer, c.gl.createRenderbuffer).obj);
    },
    [`${GLES}IsFramebuffer`](context, framebuffer) {
      const c = env.ctx(context);
      const r = c?.framebuffers.get(framebuffer >>> 0);
      return r && c.gl.isFramebuffer(r.obj) ? 1 : 0;
    },
    [`${GLES}IsRenderbuffer`](context, renderbuffer) {
      const c = env.ctx(context);
      const r = c?.renderbuffers.get(renderbuffer >>> 0);
      return r && c.gl.isRenderbuffer(r.obj) ? 1 : 0;
    },
    [`${GLES}CheckFramebufferStatus`](context, target) {
      const c = env.ctx(context);
      return c ? c.gl.checkFramebufferStatus(target) : 0;
    },
    [`${GLES}FramebufferRenderbuffer`](context, target, attachment, rbtarget, renderbuffer) {
      const c = env.ctx(context);
      if (!c) return;
      renderbuffer >>>= 0;
      const r = renderbuffer === 0 ? null : c.renderbuffers.get(renderbuffer);
      if (renderbuffer !== 0 && !r) return c.error(GL.INVALID_OPERATION);
      c.gl.framebufferRenderbuffer(target, attachment, rbtarget, r ? r.obj : null);
    },
    [`${GLES}FramebufferTexture2D`](context, target, attachment, textarget, texture, level) {
      const c = env.ctx(context);
      if (!c) return;
      texture >>>= 0;
      const r = texture === 0 ? null : c.textures.get(texture);
      if (texture !== 0 && !r) return c.error(GL.INVALID_OPERATION);
      c.gl.framebufferTexture2D(target, attachment, textarget, r ? r.obj : null, level);
    },
    [`${GLES}GetFramebufferAttachmentParameteriv`](context, target, attachment, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const v = c.gl.getFramebufferAttachmentParameter(target, attachment, pname);
      if (v === null || v === undefined) return;
      const n = typeof v === 'object' ? c.nameOf(v) : Number(v);
      views.setI32('glGetFramebufferAttachmentParameteriv', params, n);
    },
    [`${GLES}RenderbufferStorage`](context, target, internalformat, width, height) {
      env.ctx(context)?.gl.renderbufferStorage(target, renderbufferFormat(internalformat), width, height);
    },
    [`${GLES}GetRenderbufferParameteriv`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const v = c.gl.getRenderbufferParameter(target, pname);
      if (v === null || v === undefined) return;
      views.setI32('glGetRenderbufferParameteriv', params, Number(v));
    },
    [`${GLES}ReadPixels`](context, x, y, width, height, format, type, pixels) {
      const c = env.ctx(context);
      if (!c) return;
      if (width < 0 || height < 0) return c.error(GL.INVALID_VALUE);
      const bytes = imageBytes(width, height, format, type, c.packAlignment);
      if (bytes === 0) {
        c.gl.readPixels(x, y, width, height, format, pixelType(type), new Uint8Array(4));
        return;
      }
      const [size, Kind] = pixelArrayKind(type);
      views.check('glReadPixels', pixels, bytes);
      if ((pixels >>> 0) % size === 0) {
        const [view, offset] = views.typedAt('glReadPixels', pixels, bytes, size, Kind);
        c.gl.readPixels(x, y, width, height, format, pixelType(type), view, offset);
      } else {
        const tmp = new Kind(Math.ceil(bytes / size));
        c.gl.readPixels(x, y, width, height, format, pixelType(type), tmp);
        views.u8.set(new Uint8Array(tmp.buffer, 0, bytes), pixels >>> 0);
      }
    },
    'PPB_OpenGLES2FramebufferBlit;1.0:BlitFramebufferEXT'(context, sx0, sy0, sx1, sy1, dx0, dy0, dx1, dy1, mask, filter) {
      env.ctx(context)?.gl.blitFramebuffer(sx0, sy0, sx1, sy1, dx0, dy0, dx1, dy1, mask, filter);
    },
    'PPB_OpenGLES2FramebufferMultisample;1.0:RenderbufferStorageMultisampleEXT'(context, target, samples, internalformat, width, height) {
      env.ctx(context)?.gl.renderbufferStorageMultisample(target, samples, renderbufferFormat(internalformat), width, height);
    },
    'PPB_OpenGLES2DrawBuffers(Dev);1.0:DrawBuffersEXT'(context, count, bufs) {
      const c = env.ctx(context);
      if (!c) return;
      if (count < 0) return c.error(GL.INVALID_VALUE);
      c.gl.drawBuffers(readNames(views, 'glDrawBuffersEXT', count, bufs));
    },
  };
};
