// PPB_OpenGLES2ChromiumMapSub;1.0 (CHROMIUM_map_sub): the plugin writes
// buffer or texture data straight into memory the browser hands it, and
// the data is uploaded when it unmaps.
//
//   void* MapBufferSubDataCHROMIUM(PP_Resource context, GLuint target, GLintptr offset, GLsizeiptr size, GLenum access)
//   void UnmapBufferSubDataCHROMIUM(PP_Resource context, const void* mem)
//   void* MapTexSubImage2DCHROMIUM(PP_Resource context, GLenum target, GLint level, GLint xoffset, GLint yoffset,
//                                  GLsizei width, GLsizei height, GLenum format, GLenum type, GLenum access)
//   void UnmapTexSubImage2DCHROMIUM(PP_Resource context, const void* mem)
//
// Chromium mapped part of its transfer buffer; here the memory is a block
// of guest memory from the browser side's heap (never the plugin's own
// malloc), kept in a pool across frames, and Unmap is BufferSubData or
// TexSubImage2D from it. As in Chromium: access must be WRITE_ONLY
// (INVALID_ENUM), negative sizes are INVALID_VALUE, the image size follows
// the unpack alignment at Map time, and unmapping an address that is not
// mapped is INVALID_VALUE.

import { GL } from './enums.js';
import { imageBytes, pixelArrayKind, pixelType } from './pixels.js';

export default (env) => {
  const views = env.views;
  const MAP = 'PPB_OpenGLES2ChromiumMapSub;1.0:';

  const map = (c, bytes, info) => {
    const { ptr, size } = env.poolAlloc(Math.max(1, bytes));
    if (ptr === 0) {
      c.error(GL.OUT_OF_MEMORY);
      return 0;
    }
    c.mapped.set(ptr, { ...info, bytes, size });
    return ptr;
  };

  const unmap = (c, mem, kind) => {
    const m = c.mapped.get(mem >>> 0);
    if (!m || m.kind !== kind) {
      c.error(GL.INVALID_VALUE);
      return null;
    }
    c.mapped.delete(mem >>> 0);
    env.poolFree(mem >>> 0, m.size);
    return m;
  };

  return {
    [`${MAP}MapBufferSubDataCHROMIUM`](context, target, offset, size, access) {
      const c = env.ctx(context);
      if (!c) return 0;
      if (access !== GL.WRITE_ONLY || (target !== GL.ARRAY_BUFFER && target !== GL.ELEMENT_ARRAY_BUFFER)) {
        c.error(GL.INVALID_ENUM);
        return 0;
      }
      if (offset < 0 || size < 0) {
        c.error(GL.INVALID_VALUE);
        return 0;
      }
      return map(c, size, { kind: 'buffer', target, offset });
    },
    [`${MAP}UnmapBufferSubDataCHROMIUM`](context, mem) {
      const c = env.ctx(context);
      if (!c) return;
      const m = unmap(c, mem, 'buffer');
      if (!m || m.bytes === 0) return;
      c.gl.bufferSubData(m.target, m.offset, views.bytes('glUnmapBufferSubDataCHROMIUM', mem, m.bytes));
    },
    [`${MAP}MapTexSubImage2DCHROMIUM`](context, target, level, xoffset, yoffset, width, height, format, type, access) {
      const c = env.ctx(context);
      if (!c) return 0;
      if (access !== GL.WRITE_ONLY) {
        c.error(GL.INVALID_ENUM);
        return 0;
      }
      if (level < 0 || xoffset < 0 || yoffset < 0 || width < 0 || height < 0) {
        c.error(GL.INVALID_VALUE);
        return 0;
      }
      const bytes = imageBytes(width, height, format, type, c.unpackAlignment);
      return map(c, bytes, { kind: 'texture', target, level, xoffset, yoffset, width, height, format, type });
    },
    [`${MAP}UnmapTexSubImage2DCHROMIUM`](context, mem) {
      const c = env.ctx(context);
      if (!c) return;
      const m = unmap(c, mem, 'texture');
      if (!m || m.bytes === 0) return;
      const [size, Kind] = pixelArrayKind(m.type);
      const [view, offset] = views.typedAt('glUnmapTexSubImage2DCHROMIUM', mem, m.bytes, size, Kind);
      c.gl.texSubImage2D(m.target, m.level, m.xoffset, m.yoffset, m.width, m.height, m.format, pixelType(m.type), view, offset);
    },
  };
};
