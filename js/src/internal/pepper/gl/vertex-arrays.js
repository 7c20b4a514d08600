// PPB_OpenGLES2VertexArrayObject;1.0 (OES_vertex_array_object) over
// WebGL2's vertex array objects.
//
//   void GenVertexArraysOES(PP_Resource context, GLsizei n, GLuint* arrays)
//   void DeleteVertexArraysOES(PP_Resource context, GLsizei n, const GLuint* arrays)
//   GLboolean IsVertexArrayOES(PP_Resource context, GLuint array)
//   void BindVertexArrayOES(PP_Resource context, GLuint array)
//
// Each object also carries the layer's copy of its attribute state and
// element-buffer binding (context.js), which client-side arrays need; ES
// 2.0's extension allows client-side arrays in any vertex array object.
// Binding a name GenVertexArraysOES did not make is INVALID_OPERATION (the
// extension does not create objects on bind); deleting the bound object
// binds the default one.

import { GL } from './enums.js';
import { VertexArrayState } from './context.js';
import { readNames, writeNames } from './buffers.js';

export default (env) => {
  const views = env.views;
  const VAO = 'PPB_OpenGLES2VertexArrayObject;1.0:';
  return {
    [`${VAO}GenVertexArraysOES`](context, n, arrays) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      views.check('glGenVertexArraysOES', arrays, 4 * n);
      const names = [];
      for (let i = 0; i < n; i++) {
        const name = c.genName(c.vertexArrays);
        const obj = c.gl.createVertexArray();
        c.vertexArrays.set(name, { name, obj, state: new VertexArrayState(name, obj, c.maxAttribs), bound: false });
        names.push(name);
      }
      writeNames(views, 'glGenVertexArraysOES', arrays, names);
    },
    [`${VAO}DeleteVertexArraysOES`](context, n, arrays) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      for (const name of readNames(views, 'glDeleteVertexArraysOES', n, arrays)) {
        const r = c.vertexArrays.get(name);
        if (!r) continue;
        if (c.vao === r.state) {
          c.vao = c.defaultVao;
          c.gl.bindVertexArray(null);
        }
        c.gl.deleteVertexArray(r.obj);
        c.vertexArrays.delete(name);
      }
    },
    [`${VAO}IsVertexArrayOES`](context, array) {
      const c = env.ctx(context);
      const r = c?.vertexArrays.get(array >>> 0);
      return r && r.bound ? 1 : 0;
    },
    [`${VAO}BindVertexArrayOES`](context, array) {
      const c = env.ctx(context);
      if (!c) return;
      array >>>= 0;
      if (array === 0) {
        if (c.vao === c.defaultVao) return;
        c.vao = c.defaultVao;
        c.gl.bindVertexArray(null);
        return;
      }
      const r = c.vertexArrays.get(array);
      if (!r) return c.error(GL.INVALID_OPERATION);
      r.bound = true;
      if (c.vao === r.state) return;
      c.vao = r.state;
      c.gl.bindVertexArray(r.obj);
    },
  };
};
