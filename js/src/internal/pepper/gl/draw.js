// Vertex attributes and drawing, with ES 2.0's client-side arrays.
//
//   void VertexAttribPointer(GLuint indx, GLint size, GLenum type, GLboolean normalized, GLsizei stride, const void* ptr)
//   void EnableVertexAttribArray / DisableVertexAttribArray (GLuint index)
//   void VertexAttrib{1,2,3,4}f[v](GLuint indx, …)
//   void GetVertexAttribfv / GetVertexAttribiv (GLuint index, GLenum pname, …* params)
//   void GetVertexAttribPointerv(GLuint index, GLenum pname, void** pointer)
//   void DrawArrays(GLenum mode, GLint first, GLsizei count)
//   void DrawElements(GLenum mode, GLsizei count, GLenum type, const void* indices)
//   void Clear(GLbitfield mask)
//   PPB_OpenGLES2InstancedArrays;1.0: DrawArraysInstancedANGLE(mode, first, count, primcount),
//     DrawElementsInstancedANGLE(mode, count, type, indices, primcount), VertexAttribDivisorANGLE(index, divisor)
//
// With no ARRAY_BUFFER bound, VertexAttribPointer's `ptr` is an address in
// guest memory (Chromium supported this for Pepper: support_client_side_
// arrays), and with no ELEMENT_ARRAY_BUFFER bound, DrawElements' `indices`
// is. WebGL has neither, so at each draw the bytes the draw reads are
// copied into scratch buffers of the context (overlapping attribute ranges
// once; vertex count from `first + count`, from the largest index, or per
// instance divisor) and WebGL's pointers set to them; the ARRAY_BUFFER
// binding is put back afterwards. The scratch space is reused from one
// SwapBuffers to the next. Draws that use buffer objects only go straight
// to WebGL. The layer keeps each vertex array's attribute state
// (context.js), which is what the Get* calls answer. ES 2.0 has no
// integer attributes and no GL_FIXED in Chromium (without
// "pepper3d_support_fixed_attribs"): those types are INVALID_ENUM.

import { GL, typeSize } from './enums.js';

const ATTRIB_TYPES = new Set([GL.BYTE, GL.UNSIGNED_BYTE, GL.SHORT, GL.UNSIGNED_SHORT, GL.FLOAT]);
const INDEX_TYPES = new Set([GL.UNSIGNED_BYTE, GL.UNSIGNED_SHORT, GL.UNSIGNED_INT]);
const MIN_SCRATCH = 64 << 10;

/** Grows (and orphans) a scratch buffer so `bytes` more fit; binds it to `target`. */
function reserve(c, kind, target, bytes) {
  const gl = c.gl;
  let buf = kind === 'vertex' ? c.scratchVertex : c.scratchIndex;
  let size = kind === 'vertex' ? c.scratchVertexSize : c.scratchIndexSize;
  let used = kind === 'vertex' ? c.scratchVertexUsed : c.scratchIndexUsed;
  if (buf === null) {
    buf = gl.createBuffer();
    if (kind === 'vertex') c.scratchVertex = buf;
    else c.scratchIndex = buf;
  }
  gl.bindBuffer(target, buf);
  if (used + bytes > size) {
    // New storage; draws already made keep the old one.
    size = Math.max(MIN_SCRATCH, 2 * size, bytes + 64);
    gl.bufferData(target, size, gl.STREAM_DRAW);
    used = 0;
  }
  if (kind === 'vertex') {
    c.scratchVertexSize = size;
    c.scratchVertexUsed = used;
  } else {
    c.scratchIndexSize = size;
    c.scratchIndexUsed = used;
  }
  return used;
}

export default (env) => {
  const views = env.views;
  const GLES = 'PPB_OpenGLES2;1.0:';

  /** Copies the client memory the next draw reads and points WebGL at it. */
  const uploadClientArrays = (c, fn, vertexCount, instanceCount) => {
    const gl = c.gl;
    const vao = c.vao;
    const ranges = [];
    for (let i = 0; i < vao.attribs.length; i++) {
      const a = vao.attribs[i];
      if (!a.client) continue;
      const elem = a.size * typeSize(a.type);
      const stride = a.stride || elem;
      const n = a.divisor ? Math.ceil(instanceCount / a.divisor) : vertexCount;
      const bytes = n > 0 ? (n - 1) * stride + elem : elem;
      ranges.push({ index: i, a, start: a.pointer, end: a.pointer + bytes });
    }
    ranges.sort((x, y) => x.start - y.start);
    // Overlapping ranges (interleaved attributes) are copied once.
    const groups = [];
    for (const r of ranges) {
      const g = groups[groups.length - 1];
      if (g && r.start <= g.end) {
        g.end = Math.max(g.end, r.end);
        g.members.push(r);
      } else {
        groups.push({ start: r.start, end: r.end, members: [r] });
      }
    }
    let total = 0;
    for (const g of groups) total += g.end - g.start + 16;
    let at = reserve(c, 'vertex', gl.ARRAY_BUFFER, total);
    for (const g of groups) {
      const len = g.end - g.start;
      views.check(fn, g.start, len);
      // Keep each attribute's alignment: offset ≡ address (mod 4).
      const off = ((at + 15) & ~15) + (g.start & 3);
      gl.bufferSubData(gl.ARRAY_BUFFER, off, views.u8, g.start, len);
      for (const r of g.members) {
        const a = r.a;
        gl.vertexAttribPointer(r.index, a.size, a.type, a.normalized, a.stride, off + (a.pointer - g.start));
      }
      at = off + len;
    }
    c.scratchVertexUsed = at;
    gl.bindBuffer(gl.ARRAY_BUFFER, c.arrayBuffer ? c.arrayBuffer.obj : null);
  };

  /** The largest index of a draw (for client arrays with DrawElements). */
  const maxIndex = (c, fn, count, type, indices) => {
    const size = typeSize(type);
    let data;
    if (c.vao.elementBuffer === null) {
      views.check(fn, indices, count * size);
      const copy = views.u8.slice(indices >>> 0, (indices >>> 0) + count * size);
      data = size === 1 ? copy : size === 2 ? new Uint16Array(copy.buffer) : new Uint32Array(copy.buffer);
    } else {
      // Indices in a buffer object: read them back (a rare combination).
      const bytes = new Uint8Array(count * size);
      c.gl.getBufferSubData(c.gl.ELEMENT_ARRAY_BUFFER, indices, bytes);
      data = size === 1 ? bytes : size === 2 ? new Uint16Array(bytes.buffer) : new Uint32Array(bytes.buffer);
    }
    let max = -1;
    for (let i = 0; i < data.length; i++) if (data[i] > max) max = data[i];
    return max;
  };

  /** Draws elements, from client memory when no element buffer is bound. */
  const drawElements = (c, fn, mode, count, type, indices, instances) => {
    if (!INDEX_TYPES.has(type)) return c.error(GL.INVALID_ENUM);
    if (count < 0 || instances < 0) return c.error(GL.INVALID_VALUE);
    const gl = c.gl;
    const vao = c.vao;
    if (vao.clientCount > 0 && count > 0) {
      uploadClientArrays(c, fn, maxIndex(c, fn, count, type, indices >>> 0) + 1, instances);
    }
    if (vao.elementBuffer !== null) {
      if (instances === 1 && fn === 'glDrawElements') gl.drawElements(mode, count, type, indices);
      else gl.drawElementsInstanced(mode, count, type, indices, instances);
      return;
    }
    // Client-side indices.
    const size = typeSize(type);
    const bytes = count * size;
    views.check(fn, indices, bytes);
    if (bytes === 0) return;
    const at = reserve(c, 'index', gl.ELEMENT_ARRAY_BUFFER, bytes + 4);
    const off = (at + 3) & ~3;
    gl.bufferSubData(gl.ELEMENT_ARRAY_BUFFER, off, views.u8, indices >>> 0, bytes);
    c.scratchIndexUsed = off + bytes;
    if (instances === 1 && fn === 'glDrawElements') gl.drawElements(mode, count, type, off);
    else gl.drawElementsInstanced(mode, count, type, off, instances);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, null);
  };

  const drawArrays = (c, fn, mode, first, count, instances) => {
    if (first < 0 || count < 0 || instances < 0) return c.error(GL.INVALID_VALUE);
    if (c.vao.clientCount > 0 && count > 0) uploadClientArrays(c, fn, first + count, instances);
    if (instances === 1 && fn === 'glDrawArrays') c.gl.drawArrays(mode, first, count);
    else c.gl.drawArraysInstanced(mode, first, count, instances);
  };

  const attrib = (c, index) => {
    if (index >>> 0 >= c.maxAttribs) {
      c.error(GL.INVALID_VALUE);
      return null;
    }
    return c.vao.attribs[index];
  };

  const attribValues = (c, index, pname) => {
    const a = attrib(c, index);
    if (!a) return null;
    switch (pname) {
      case GL.CURRENT_VERTEX_ATTRIB:
        return Array.from(c.gl.getVertexAttrib(index, pname));
      case GL.VERTEX_ATTRIB_ARRAY_ENABLED:
        return [a.enabled ? 1 : 0];
      case GL.VERTEX_ATTRIB_ARRAY_SIZE:
        return [a.size];
      case GL.VERTEX_ATTRIB_ARRAY_STRIDE:
        return [a.stride];
      case GL.VERTEX_ATTRIB_ARRAY_TYPE:
        return [a.type];
      case GL.VERTEX_ATTRIB_ARRAY_NORMALIZED:
        return [a.normalized ? 1 : 0];
      case GL.VERTEX_ATTRIB_ARRAY_BUFFER_BINDING:
        return [a.buffer ? a.buffer.name : 0];
      case GL.VERTEX_ATTRIB_ARRAY_DIVISOR:
        return [a.divisor];
      default:
        c.error(GL.INVALID_ENUM);
        return null;
    }
  };

  const vertexAttribv = (fn, n) => (context, index, values) => {
    const c = env.ctx(context);
    if (!c || !attrib(c, index)) return;
    const v = views.words(fn, values, n, true);
    if (n === 1) c.gl.vertexAttrib1fv(index, v);
    else if (n === 2) c.gl.vertexAttrib2fv(index, v);
    else if (n === 3) c.gl.vertexAttrib3fv(index, v);
    else c.gl.vertexAttrib4fv(index, v);
  };

  return {
    [`${GLES}VertexAttribPointer`](context, index, size, type, normalized, stride, ptr) {
      const c = env.ctx(context);
      if (!c) return;
      const a = attrib(c, index);
      if (!a) return;
      if (size < 1 || size > 4 || stride < 0) return c.error(GL.INVALID_VALUE);
      if (!ATTRIB_TYPES.has(type)) return c.error(GL.INVALID_ENUM);
      a.size = size;
      a.type = type;
      a.normalized = normalized !== 0;
      a.stride = stride;
      a.pointer = ptr >>> 0;
      a.buffer = c.arrayBuffer;
      c.vao.update(index);
      if (a.buffer !== null) c.gl.vertexAttribPointer(index, size, type, a.normalized, stride, ptr >>> 0);
    },
    [`${GLES}EnableVertexAttribArray`](context, index) {
      const c = env.ctx(context);
      const a = c && attrib(c, index);
      if (!a) return;
      a.enabled = true;
      c.vao.update(index);
      c.gl.enableVertexAttribArray(index);
    },
    [`${GLES}DisableVertexAttribArray`](context, index) {
      const c = env.ctx(context);
      const a = c && attrib(c, index);
      if (!a) return;
      a.enabled = false;
      c.vao.update(index);
      c.gl.disableVertexAttribArray(index);
    },
    [`${GLES}VertexAttrib1f`](context, index, x) {
      const c = env.ctx(context);
      if (c && attrib(c, index)) c.gl.vertexAttrib1f(index, x);
    },
    [`${GLES}VertexAttrib2f`](context, index, x, y) {
      const c = env.ctx(context);
      if (c && attrib(c, index)) c.gl.vertexAttrib2f(index, x, y);
    },
    [`${GLES}VertexAttrib3f`](context, index, x, y, z) {
      const c = env.ctx(context);
      if (c && attrib(c, index)) c.gl.vertexAttrib3f(index, x, y, z);
    },
    [`${GLES}VertexAttrib4f`](context, index, x, y, z, w) {
      const c = env.ctx(context);
      if (c && attrib(c, index)) c.gl.vertexAttrib4f(index, x, y, z, w);
    },
    [`${GLES}VertexAttrib1fv`]: vertexAttribv('glVertexAttrib1fv', 1),
    [`${GLES}VertexAttrib2fv`]: vertexAttribv('glVertexAttrib2fv', 2),
    [`${GLES}VertexAttrib3fv`]: vertexAttribv('glVertexAttrib3fv', 3),
    [`${GLES}VertexAttrib4fv`]: vertexAttribv('glVertexAttrib4fv', 4),
    [`${GLES}GetVertexAttribfv`](context, index, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const values = attribValues(c, index, pname);
      values?.forEach((x, i) => views.setF32('glGetVertexAttribfv', params + 4 * i, x));
    },
    [`${GLES}GetVertexAttribiv`](context, index, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const values = attribValues(c, index, pname);
      values?.forEach((x, i) => views.setI32('glGetVertexAttribiv', params + 4 * i, Math.round(x)));
    },
    [`${GLES}GetVertexAttribPointerv`](context, index, pname, pointer) {
      const c = env.ctx(context);
      if (!c) return;
      const a = attrib(c, index);
      if (!a) return;
      if (pname !== GL.VERTEX_ATTRIB_ARRAY_POINTER) return c.error(GL.INVALID_ENUM);
      views.setI32('glGetVertexAttribPointerv', pointer, a.pointer);
    },
    [`${GLES}DrawArrays`](context, mode, first, count) {
      const c = env.ctx(context);
      if (c) drawArrays(c, 'glDrawArrays', mode, first, count, 1);
    },
    [`${GLES}DrawElements`](context, mode, count, type, indices) {
      const c = env.ctx(context);
      if (c) drawElements(c, 'glDrawElements', mode, count, type, indices, 1);
    },
    [`${GLES}Clear`](context, mask) {
      env.ctx(context)?.gl.clear(mask);
    },
    'PPB_OpenGLES2InstancedArrays;1.0:DrawArraysInstancedANGLE'(context, mode, first, count, primcount) {
      const c = env.ctx(context);
      if (c) drawArrays(c, 'glDrawArraysInstancedANGLE', mode, first, count, primcount);
    },
    'PPB_OpenGLES2InstancedArrays;1.0:DrawElementsInstancedANGLE'(context, mode, count, type, indices, primcount) {
      const c = env.ctx(context);
      if (c) drawElements(c, 'glDrawElementsInstancedANGLE', mode, count, type, indices, primcount);
    },
    'PPB_OpenGLES2InstancedArrays;1.0:VertexAttribDivisorANGLE'(context, index, divisor) {
      const c = env.ctx(context);
      const a = c && attrib(c, index);
      if (!a) return;
      a.divisor = divisor >>> 0;
      c.gl.vertexAttribDivisor(index, divisor >>> 0);
    },
  };
};
