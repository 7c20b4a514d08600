// Texture objects and pixel uploads.
//
//   void GenTextures / DeleteTextures (GLsizei n, GLuint* textures); GLboolean IsTexture(GLuint)
//   void BindTexture(GLenum target, GLuint texture)
//   void TexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height,
//                   GLint border, GLenum format, GLenum type, const void* pixels)
//   void TexSubImage2D(GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width,
//                      GLsizei height, GLenum format, GLenum type, const void* pixels)
//   void CompressedTexImage2D / CompressedTexSubImage2D (…, GLsizei imageSize, const void* data)
//   void CopyTexImage2D / CopyTexSubImage2D
//   void TexParameterf / TexParameterfv / TexParameteri / TexParameteriv
//   void GetTexParameterfv / GetTexParameteriv
//   void GenerateMipmap(GLenum target)
//
// Pixels are read from guest memory in place, through a view of the type
// WebGL requires for `type` (pixels.js), sized by the unpack alignment.
// Formats WebGL2 only knows sized (float, half-float, depth, R/RG) are
// translated; HALF_FLOAT_OES becomes HALF_FLOAT. A null `pixels` leaves
// the image zeroed, as WebGL does (ES 2.0 leaves it undefined).

import { GL } from './enums.js';
import { readNames, writeNames } from './buffers.js';
import { imageBytes, pixelArrayKind, pixelType, texImageFormat } from './pixels.js';

/** The record for texture `name`, creating it when bound for the first time. */
export function textureRecord(c, name) {
  let r = c.textures.get(name);
  if (!r) {
    r = { name, obj: c.gl.createTexture() };
    c.names.set(r.obj, name);
    c.textures.set(name, r);
  }
  return r;
}

export default (env) => {
  const views = env.views;
  const GLES = 'PPB_OpenGLES2;1.0:';

  /** [view, offset] of an image's pixels in guest memory, or [null, 0] for none. */
  const pixelsAt = (c, fn, ptr, width, height, format, type) => {
    if (ptr === 0) return [null, 0];
    const bytes = imageBytes(width, height, format, type, c.unpackAlignment);
    const [size, Kind] = pixelArrayKind(type);
    return views.typedAt(fn, ptr, bytes, size, Kind);
  };

  return {
    [`${GLES}GenTextures`](context, n, textures) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      views.check('glGenTextures', textures, 4 * n);
      const names = [];
      for (let i = 0; i < n; i++) names.push(textureRecord(c, c.genName(c.textures)).name);
      writeNames(views, 'glGenTextures', textures, names);
    },
    [`${GLES}DeleteTextures`](context, n, textures) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      for (const name of readNames(views, 'glDeleteTextures', n, textures)) {
        const r = c.textures.get(name);
        if (!r) continue;
        c.gl.deleteTexture(r.obj);
        c.textures.delete(name);
      }
    },
    [`${GLES}IsTexture`](context, texture) {
      const c = env.ctx(context);
      const r = c?.textures.get(texture >>> 0);
      return r && c.gl.isTexture(r.obj) ? 1 : 0;
    },
    [`${GLES}BindTexture`](context, target, texture) {
      const c = env.ctx(context);
      if (!c) return;
      texture >>>= 0;
      c.gl.bindTexture(target, texture === 0 ? null : textureRecord(c, texture).obj);
    },
    [`${GLES}TexImage2D`](context, target, level, internalformat, width, height, border, format, type, pixels) {
      const c = env.ctx(context);
      if (!c) return;
      if (width < 0 || height < 0) return c.error(GL.INVALID_VALUE);
      const [view, offset] = pixelsAt(c, 'glTexImage2D', pixels >>> 0, width, height, format, type);
      const [ifmt, fmt, ty] = texImageFormat(internalformat, format, type);
      if (view === null) c.gl.texImage2D(target, level, ifmt, width, height, border, fmt, ty, null);
      else c.gl.texImage2D(target, level, ifmt, width, height, border, fmt, ty, view, offset);
    },
    [`${GLES}TexSubImage2D`](context, target, level, xoffset, yoffset, width, height, format, type, pixels) {
      const c = env.ctx(context);
      if (!c) return;
      if (width < 0 || height < 0) return c.error(GL.INVALID_VALUE);
      if (width === 0 || height === 0) return;
      if (pixels === 0) return c.error(GL.INVALID_VALUE);
      const [view, offset] = pixelsAt(c, 'glTexSubImage2D', pixels >>> 0, width, height, format, type);
      c.gl.texSubImage2D(target, level, xoffset, yoffset, width, height, format, pixelType(type), view, offset);
    },
    [`${GLES}CompressedTexImage2D`](context, target, level, internalformat, width, height, border, imageSize, data) {
      const c = env.ctx(context);
      if (!c) return;
      if (imageSize < 0) return c.error(GL.INVALID_VALUE);
      const bytes = views.bytes('glCompressedTexImage2D', data, imageSize);
      c.gl.compressedTexImage2D(target, level, internalformat, width, height, border, bytes);
    },
    [`${GLES}CompressedTexSubImage2D`](context, target, level, xoffset, yoffset, width, height, format, imageSize, data) {
      const c = env.ctx(context);
      if (!c) return;
      if (imageSize < 0) return c.error(GL.INVALID_VALUE);
      const bytes = views.bytes('glCompressedTexSubImage2D', data, imageSize);
      c.gl.compressedTexSubImage2D(target, level, xoffset, yoffset, width, height, format, bytes);
    },
    [`${GLES}CopyTexImage2D`](context, target, level, internalformat, x, y, width, height, border) {
      env.ctx(context)?.gl.copyTexImage2D(target, level, internalformat, x, y, width, height, border);
    },
    [`${GLES}CopyTexSubImage2D`](context, target, level, xoffset, yoffset, x, y, width, height) {
      env.ctx(context)?.gl.copyTexSubImage2D(target, level, xoffset, yoffset, x, y, width, height);
    },
    [`${GLES}TexParameterf`](context, target, pname, param) {
      env.ctx(context)?.gl.texParameterf(target, pname, param);
    },
    [`${GLES}TexParameterfv`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      c.gl.texParameterf(target, pname, views.words('glTexParameterfv', params, 1, true)[0]);
    },
    [`${GLES}TexParameteri`](context, target, pname, param) {
      env.ctx(context)?.gl.texParameteri(target, pname, param);
    },
    [`${GLES}TexParameteriv`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      c.gl.texParameteri(target, pname, views.getI32('glTexParameteriv', params));
    },
    [`${GLES}GetTexParameterfv`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const v = c.gl.getTexParameter(target, pname);
      if (v === null || v === undefined) return;
      views.setF32('glGetTexParameterfv', params, Number(v));
    },
    [`${GLES}GetTexParameteriv`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const v = c.gl.getTexParameter(target, pname);
      if (v === null || v === undefined) return;
      views.setI32('glGetTexParameteriv', params, Math.round(Number(v)));
    },
    [`${GLES}GenerateMipmap`](context, target) {
      env.ctx(context)?.gl.generateMipmap(target);
    },
  };
};
