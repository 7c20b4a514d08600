// State queries: glGetError and glGet{Boolean,Float,Integer}v.
//
//   GLenum GetError(PP_Resource context)
//   void GetBooleanv(PP_Resource context, GLenum pname, GLboolean* params)
//   void GetFloatv(PP_Resource context, GLenum pname, GLfloat* params)
//   void GetIntegerv(PP_Resource context, GLenum pname, GLint* params)
//
// GetError answers the errors this layer recorded first (context.js), then
// WebGL's. The getters answer bindings from the layer's own state where it
// keeps one (buffers, the program, the vertex array: client-side arrays
// make WebGL's differ while drawing) and as GL names; ES 2.0 queries WebGL
// has no value for (SHADER_COMPILER, the shader binary formats) from the
// GLES2 answer; everything else from WebGL, converted as the ES 2.0 spec
// (§6.1.2) converts between types — colours and normalized values become
// integers over the full range. An unknown pname is WebGL's INVALID_ENUM,
// as Chromium's validation gave.

import { GL } from './enums.js';

/** Values that convert to integers as normalized (ES 2.0 §6.1.2). */
const NORMALIZED = new Set([GL.DEPTH_RANGE, GL.COLOR_CLEAR_VALUE, GL.DEPTH_CLEAR_VALUE, GL.BLEND_COLOR, GL.SAMPLE_COVERAGE_VALUE]);

/** Bindings WebGL answers with an object; reported as its GL name. */
const OBJECT_BINDINGS = new Set([
  GL.FRAMEBUFFER_BINDING,
  GL.READ_FRAMEBUFFER_BINDING,
  GL.RENDERBUFFER_BINDING,
  GL.TEXTURE_BINDING_2D,
  GL.TEXTURE_BINDING_CUBE_MAP,
]);

/**
 * The values of `pname` in context `c`, as an array of numbers or
 * booleans, or null (an error is recorded or raised by WebGL).
 */
export function stateValues(c, pname) {
  switch (pname) {
    case GL.ARRAY_BUFFER_BINDING:
      return [c.arrayBuffer?.name ?? 0];
    case GL.ELEMENT_ARRAY_BUFFER_BINDING:
      return [c.vao.elementBuffer?.name ?? 0];
    case GL.CURRENT_PROGRAM:
      return [c.program?.name ?? 0];
    case GL.VERTEX_ARRAY_BINDING:
      return [c.vao.name];
    case GL.SHADER_COMPILER:
      return [true];
    case GL.NUM_SHADER_BINARY_FORMATS:
      return [0];
    case GL.SHADER_BINARY_FORMATS:
      return [];
    case GL.UNPACK_ALIGNMENT:
      return [c.unpackAlignment];
    case GL.PACK_ALIGNMENT:
      return [c.packAlignment];
    case GL.NUM_COMPRESSED_TEXTURE_FORMATS:
      return [c.gl.getParameter(GL.COMPRESSED_TEXTURE_FORMATS)?.length ?? 0];
    default:
      break;
  }
  const v = c.gl.getParameter(pname);
  if (v === null || v === undefined) {
    // Bindings of nothing are null too.
    return OBJECT_BINDINGS.has(pname) ? [0] : null;
  }
  if (OBJECT_BINDINGS.has(pname)) return [c.nameOf(v)];
  if (typeof v === 'number' || typeof v === 'boolean') return [v];
  if (ArrayBuffer.isView(v) || Array.isArray(v)) return Array.from(v);
  // A string or an object this layer does not translate.
  c.error(GL.INVALID_ENUM);
  return null;
}

/** ES 2.0 §6.1.2: a floating-point value returned as an integer. */
function toInt(pname, x) {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (NORMALIZED.has(pname)) {
    const i = Math.round((4294967295 * x - 1) / 2);
    return Math.max(-2147483648, Math.min(2147483647, i));
  }
  return Math.max(-2147483648, Math.min(2147483647, Math.round(x)));
}

export default (env) => {
  const views = env.views;
  const GLES = 'PPB_OpenGLES2;1.0:';
  return {
    [`${GLES}GetError`](context) {
      const c = env.ctx(context);
      if (!c) return 0;
      if (c.errors.length) return c.errors.shift();
      return c.gl.getError();
    },
    [`${GLES}GetBooleanv`](context, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const values = stateValues(c, pname >>> 0);
      if (!values) return;
      views.check('glGetBooleanv', params, values.length);
      values.forEach((x, i) => (views.u8[(params >>> 0) + i] = x ? 1 : 0));
    },
    [`${GLES}GetFloatv`](context, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const values = stateValues(c, pname >>> 0);
      if (!values) return;
      views.check('glGetFloatv', params, 4 * values.length);
      values.forEach((x, i) => views.setF32('glGetFloatv', params + 4 * i, typeof x === 'boolean' ? +x : x));
    },
    [`${GLES}GetIntegerv`](context, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      pname >>>= 0;
      const values = stateValues(c, pname);
      if (!values) return;
      views.check('glGetIntegerv', params, 4 * values.length);
      values.forEach((x, i) => views.setI32('glGetIntegerv', params + 4 * i, toInt(pname, x)));
    },
  };
};
