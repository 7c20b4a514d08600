// PPB_OpenGLES2Query;1.0 (EXT_occlusion_query_boolean, and Chromium's
// commands-issued query).
//
//   void GenQueriesEXT(PP_Resource context, GLsizei n, GLuint* queries)
//   void DeleteQueriesEXT(PP_Resource context, GLsizei n, const GLuint* queries)
//   GLboolean IsQueryEXT(PP_Resource context, GLuint id)
//   void BeginQueryEXT(PP_Resource context, GLenum target, GLuint id)
//   void EndQueryEXT(PP_Resource context, GLenum target)
//   void GetQueryivEXT(PP_Resource context, GLenum target, GLenum pname, GLint* params)
//   void GetQueryObjectuivEXT(PP_Resource context, GLuint id, GLenum pname, GLuint* params)
//
// ANY_SAMPLES_PASSED(_CONSERVATIVE)_EXT are WebGL2 queries. Chromium's
// COMMANDS_ISSUED_CHROMIUM measured, in microseconds, the time between
// Begin and End and was available at once: the same, on this thread's
// clock. Chromium's other query targets (latency, async pixel transfers,
// GetError queries, EXT_disjoint_timer_query) are INVALID_ENUM here.
// As WebGL requires, an occlusion result becomes available only after the
// thread has returned to its event loop (a frame later); asking for
// QUERY_RESULT before QUERY_RESULT_AVAILABLE says so answers 0 instead of
// waiting, since this thread cannot wait for the GPU.

import { GL } from './enums.js';
import { readNames, writeNames } from './buffers.js';

const WEBGL_TARGETS = new Set([GL.ANY_SAMPLES_PASSED, GL.ANY_SAMPLES_PASSED_CONSERVATIVE]);

export default (env) => {
  const views = env.views;
  const Q = 'PPB_OpenGLES2Query;1.0:';
  return {
    [`${Q}GenQueriesEXT`](context, n, queries) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      views.check('glGenQueriesEXT', queries, 4 * n);
      const names = [];
      for (let i = 0; i < n; i++) {
        const name = c.genName(c.queries);
        c.queries.set(name, { name, obj: null, target: 0, begin: 0, result: 0 });
        names.push(name);
      }
      writeNames(views, 'glGenQueriesEXT', queries, names);
    },
    [`${Q}DeleteQueriesEXT`](context, n, queries) {
      const c = env.ctx(context);
      if (!c) return;
      if (n < 0) return c.error(GL.INVALID_VALUE);
      for (const name of readNames(views, 'glDeleteQueriesEXT', n, queries)) {
        const r = c.queries.get(name);
        if (!r) continue;
        if (c.activeQueries.get(r.target) === r) {
          c.activeQueries.delete(r.target);
          if (r.obj) c.gl.endQuery(r.target);
        }
        if (r.obj) c.gl.deleteQuery(r.obj);
        c.queries.delete(name);
      }
    },
    [`${Q}IsQueryEXT`](context, id) {
      const c = env.ctx(context);
      const r = c?.queries.get(id >>> 0);
      return r && r.target !== 0 ? 1 : 0;
    },
    [`${Q}BeginQueryEXT`](context, target, id) {
      const c = env.ctx(context);
      if (!c) return;
      if (!WEBGL_TARGETS.has(target) && target !== GL.COMMANDS_ISSUED_CHROMIUM) return c.error(GL.INVALID_ENUM);
      const r = c.queries.get(id >>> 0);
      if (!r || c.activeQueries.has(target) || (r.target !== 0 && r.target !== target)) return c.error(GL.INVALID_OPERATION);
      for (const q of c.activeQueries.values()) if (q === r) return c.error(GL.INVALID_OPERATION);
      r.target = target;
      c.activeQueries.set(target, r);
      if (target === GL.COMMANDS_ISSUED_CHROMIUM) {
        r.begin = performance.now();
        r.result = 0;
        return;
      }
      if (!r.obj) {
        r.obj = c.gl.createQuery();
        c.names.set(r.obj, r.name);
      }
      c.gl.beginQuery(target, r.obj);
    },
    [`${Q}EndQueryEXT`](context, target) {
      const c = env.ctx(context);
      if (!c) return;
      if (!WEBGL_TARGETS.has(target) && target !== GL.COMMANDS_ISSUED_CHROMIUM) return c.error(GL.INVALID_ENUM);
      const r = c.activeQueries.get(target);
      if (!r) return c.error(GL.INVALID_OPERATION);
      c.activeQueries.delete(target);
      if (target === GL.COMMANDS_ISSUED_CHROMIUM) r.result = Math.round((performance.now() - r.begin) * 1000);
      else c.gl.endQuery(target);
    },
    [`${Q}GetQueryivEXT`](context, target, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      if (!WEBGL_TARGETS.has(target) && target !== GL.COMMANDS_ISSUED_CHROMIUM) return c.error(GL.INVALID_ENUM);
      if (pname !== GL.CURRENT_QUERY) return c.error(GL.INVALID_ENUM);
      views.setI32('glGetQueryivEXT', params, c.activeQueries.get(target)?.name ?? 0);
    },
    [`${Q}GetQueryObjectuivEXT`](context, id, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const r = c.queries.get(id >>> 0);
      if (!r || r.target === 0 || c.activeQueries.get(r.target) === r) return c.error(GL.INVALID_OPERATION);
      if (pname !== GL.QUERY_RESULT && pname !== GL.QUERY_RESULT_AVAILABLE) return c.error(GL.INVALID_ENUM);
      let v;
      if (r.target === GL.COMMANDS_ISSUED_CHROMIUM) v = pname === GL.QUERY_RESULT ? r.result : 1;
      else v = Number(c.gl.getQueryParameter(r.obj, pname) ?? 0);
      views.setI32('glGetQueryObjectuivEXT', params, v);
    },
  };
};
