// Buffer objects.
//
//   void GenBuffers(PP_Resource context, GLsizei n, GLuint* buffers)
//   void DeleteBuffers(PP_Resource context, GLsizei n, const GLuint* buffers)
//   void BindBuffer(PP_Resource context, GLenum target, GLuint buffer)
//   void BufferData(PP_Resource context, GLenum target, GLsizeiptr size, const void* data, GLenum usage)
//   void BufferSubData(PP_Resource context, GLenum target, GLintptr offset, GLsizeiptr size, const void* data)
//   void GetBufferParameteriv(PP_Resource context, GLenum target, GLenum pname, GLint* params)
//   GLboolean IsBuffer(PP_Resource context, GLuint buffer)
//
// Names map to WebGL buffers (context.js); binding a name never generated
// creates it, as Chromium did. ES 2.0 has two targets; a buffer used with
// one cannot be bound to the other (INVALID_OPERATION), which is WebGL's
// rule and was Chromium's for Pepper unless the plugin enabled
// "pepper3d_allow_buffers_on_multiple_targets" (strings.js). The layer
// checks it itself so that its record of the bindings never disagrees
// with WebGL's. Data is read straight from guest memory (no copy).

import { GL } from './enums.js';

/** The target class a buffer is first bound to. */
function targetOk(target) {
  return target === GL.ARRAY_BUFFER || target === GL.ELEMENT_ARRAY_BUFFER;
}

/** Reads `n` names at `ptr` (GL's const GLuint*). */
export function readNames(views, fn, n, ptr) {
  views.check(fn, ptr, 4 * n);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = views.getI32(fn, ptr + 4 * i) >>> 0;
  return out;
}

/** Writes `names` at `ptr` (GL's GLuint* out). */
export function writeNames(views, fn, ptr, names) {
  views.check(fn, ptr, 4 * names.length);
  names.forEach((n, i) => views.setI32(fn, ptr + 4 * i, n));
}

/** The record for buffer `name`, creating it when bound for the first time. */
export function bufferRecord(c, name) {
  let r = c.buffers.get(name);
  if (!r) {
    r = { name, obj: c.gl.createBuffer(), target: 0 };
    c.names.set(r.obj, name);
    c.buffers.set(name, r);
  }
  return r;
}

export default (env) => {
  const views = env.views;
  const GLES = 'PPB_OpenGLES2;1.0:';
  return {
    [`${GLES}GenBuffers`](context, n, buffers) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      views.check('glGenBuffers', buffers, 4 * n);
      const names = [];
      for (let i = 0; i < n; i++) names.push(bufferRecord(c, c.genName(c.buffers)).name);
      writeNames(views, 'glGenBuffers', buffers, names);
    },
    [`${GLES}DeleteBuffers`](context, n, buffers) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      for (const name of readNames(views, 'glDeleteBuffers', n, buffers)) {
        const r = c.buffers.get(name);
        if (!r) continue;
        // A deleted buffer is unbound from the context and the current
        // vertex array (ES 2.0 §2.9).
        if (c.arrayBuffer === r) c.arrayBuffer = null;
        const vao = c.vao;
        if (vao.elementBuffer === r) vao.elementBuffer = null;
        vao.attribs.forEach((a, i) => {
          if (a.buffer === r) {
            a.buffer = null;
            vao.update(i);
          }
        });
        c.gl.deleteBuffer(r.obj);
        c.buffers.delete(name);
      }
    },
    [`${GLES}BindBuffer`](context, target, buffer) {
      const c = env.ctx(context);
      if (!c) return;
      if (!targetOk(target)) return c.error(GL.INVALID_ENUM);
      buffer >>>= 0;
      let r = null;
      if (buffer !== 0) {
        r = bufferRecord(c, buffer);
        if (r.target === 0) r.target = target;
        else if (r.target !== target) return c.error(GL.INVALID_OPERATION);
      }
      if (target === GL.ARRAY_BUFFER) {
        if (c.arrayBuffer === r) return;
        c.arrayBuffer = r;
      } else {
        c.vao.elementBuffer = r;
      }
      c.gl.bindBuffer(target, r ? r.obj : null);
    },
    [`${GLES}BufferData`](context, target, size, data, usage) {
      const c = env.ctx(context);
      if (!c) return;
      if (size < 0) return c.error(GL.INVALID_VALUE);
      if (data === 0) c.gl.bufferData(target, size, usage);
      else c.gl.bufferData(target, views.bytes('glBufferData', data, size), usage);
    },
    [`${GLES}BufferSubData`](context, target, offset, size, data) {
      const c = env.ctx(context);
      if (!c) return;
      if (size < 0 || offset < 0) return c.error(GL.INVALID_VALUE);
      if (size === 0) return;
      c.gl.bufferSubData(target, offset, views.bytes('glBufferSubData', data, size));
    },
    [`${GLES}GetBufferParameteriv`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const v = c.gl.getBufferParameter(target, pname);
      if (v === null || v === undefined) return;
      views.setI32('glGetBufferParameteriv', params, Number(v));
    },
    [`${GLES}IsBuffer`](context, buffer) {
      const c = env.ctx(context);
      const r = c?.buffers.get(buffer >>> 0);
      return r && c.gl.isBuffer(r.obj) ? 1 : 0;
    },
  };
};
