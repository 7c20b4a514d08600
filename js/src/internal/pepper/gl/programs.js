// Shaders, programs and uniforms.
//
//   GLuint CreateShader(GLenum type); GLuint CreateProgram()
//   void DeleteShader / DeleteProgram (GLuint); GLboolean IsShader / IsProgram (GLuint)
//   void AttachShader / DetachShader (GLuint program, GLuint shader)
//   void ShaderSource(GLuint shader, GLsizei count, const char** str, const GLint* length)
//   void CompileShader(GLuint shader); void LinkProgram / UseProgram / ValidateProgram (GLuint program)
//   void GetShaderiv / GetProgramiv (GLuint, GLenum pname, GLint* params)
//   void GetShaderInfoLog / GetProgramInfoLog / GetShaderSource (GLuint, GLsizei bufsize, GLsizei* length, char* out)
//   void GetShaderPrecisionFormat(GLenum shadertype, GLenum precisiontype, GLint* range, GLint* precision)
//   void ShaderBinary(GLsizei n, const GLuint* shaders, GLenum binaryformat, const void* binary, GLsizei length)
//   void GetAttachedShaders(GLuint program, GLsizei maxcount, GLsizei* count, GLuint* shaders)
//   void GetActiveAttrib / GetActiveUniform (GLuint program, GLuint index, GLsizei bufsize,
//                                            GLsizei* length, GLint* size, GLenum* type, char* name)
//   GLint GetAttribLocation(GLuint program, const char* name)
//   void BindAttribLocation(GLuint program, GLuint index, const char* name)
//   GLint GetUniformLocation(GLuint program, const char* name)
//   void GetUniformfv / GetUniformiv (GLuint program, GLint location, …* params)
//   void Uniform{1,2,3,4}{f,i}[v], UniformMatrix{2,3,4}fv
//
// Programs and shaders share one namespace of GL names (context.js).
// Uniform locations are GLints: per program, the n-th distinct name asked
// for gets location n; a relink keeps each name's location and looks the
// uniform up again. -1 is ignored, as in GL; a location the program never
// handed out is INVALID_OPERATION. Sources go through shader-source.js
// (GLSL ES 1.00 as is, except the extensions that need 3.00); the source
// the plugin gave is what GetShaderSource and SHADER_SOURCE_LENGTH report.
// The ES 2.0 rules WebGL2 relaxes are kept: UniformMatrix with transpose
// is INVALID_VALUE; there are no shader binary formats (ShaderBinary is
// INVALID_ENUM, as on Chromium); lengths count the terminating NUL.

import { GL } from './enums.js';
import { needsUpgrade, upgradeShader } from './shader-source.js';

const MAX_SOURCE = 16 << 20;

export default (env) => {
  const views = env.views;
  const GLES = 'PPB_OpenGLES2;1.0:';

  const compile = (c, s) => {
    const upgrade = s.forceUpgrade || needsUpgrade(s.source);
    c.gl.shaderSource(s.obj, upgrade ? upgradeShader(s.source, s.type === GL.FRAGMENT_SHADER) : s.source);
    c.gl.compileShader(s.obj);
    s.compiled = true;
    s.upgraded = upgrade;
  };

  /** The location object for `loc` in the current program, or null (nothing to do). */
  const uniform = (c, loc) => {
    const p = c.program;
    if (p === null) {
      if (loc !== -1) c.error(GL.INVALID_OPERATION);
      return null;
    }
    if (loc === -1) return null;
    const l = p.locs[loc];
    if (l === undefined) {
      c.error(GL.INVALID_OPERATION);
      return null;
    }
    return l;
  };

  /** uniform{N}{f,i}: the values as the guest passed them. */
  const uniformN = (method) => (context, location, ...values) => {
    const c = env.ctx(context);
    const l = c && uniform(c, location);
    if (l) c.gl[method](l, ...values);
  };

  /** uniform{N}{f,i}v: `n` components per element, `count` elements. */
  const uniformv = (fn, method, n, float) => (context, location, count, v) => {
    const c = env.ctx(context);
    if (!c) return;
    if (count < 0) return c.error(GL.INVALID_VALUE);
    const l = uniform(c, location);
    if (l === null || count === 0) return;
    const words = n * count;
    views.check(fn, v, 4 * words);
    if ((v & 3) === 0) c.gl[method](l, float ? views.f32 : views.i32, v >>> 2, words);
    else c.gl[method](l, views.words(fn, v, words, float));
  };

  const matrixv = (fn, method, n) => (context, location, count, transpose, v) => {
    const c = env.ctx(context);
    if (!c) return;
    if (count < 0 || transpose !== 0) return c.error(GL.INVALID_VALUE);
    const l = uniform(c, location);
    if (l === null || count === 0) return;
    const words = n * count;
    views.check(fn, v, 4 * words);
    if ((v & 3) === 0) c.gl[method](l, false, views.f32, v >>> 2, words);
    else c.gl[method](l, false, views.words(fn, v, words, true));
  };

  /** Writes a log or source the GL way: truncated to bufsize, NUL, length without it. */
  const putText = (fn, text, bufsize, length, out) => {
    const n = views.putString(fn, out >>> 0, bufsize, text);
    if (length !== 0) views.setI32(fn, length, n);
  };

  const active = (fn, method) => (context, program, index, bufsize, length, size, type, name) => {
    const c = env.ctx(context);
    if (!c) return;
    const p = c.programRecord(program);
    if (!p) return;
    if (bufsize < 0) return c.error(GL.INVALID_VALUE);
    const info = c.gl[method](p.obj, index >>> 0);
    if (!info) return;
    putText(fn, info.name, bufsize, length, name);
    if (size !== 0) views.setI32(fn, size, info.size);
    if (type !== 0) views.setI32(fn, type, info.type);
  };

  /** GL's max-length queries: the longest name + 1, or 0. */
  const maxNameLength = (c, p, count, method) => {
    let max = 0;
    const n = c.gl.getProgramParameter(p.obj, count) ?? 0;
    for (let i = 0; i < n; i++) {
      const info = c.gl[method](p.obj, i);
      if (info) max = Math.max(max, new TextEncoder().encode(info.name).length + 1);
    }
    return max;
  };

  const logLength = (log) => (log ? new TextEncoder().encode(log).length + 1 : 0);

  return {
    [`${GLES}CreateShader`](context, type) {
      const c = env.ctx(context);
      if (!c) return 0;
      if (type !== GL.VERTEX_SHADER && type !== GL.FRAGMENT_SHADER) {
        c.error(GL.INVALID_ENUM);
        return 0;
      }
      const obj = c.gl.createShader(type);
      if (!obj) return 0;
      const name = c.genName(c.programs);
      c.programs.set(name, { kind: 'shader', name, obj, type, source: '', hasSource: false, compiled: false, upgraded: false, forceUpgrade: false });
      c.names.set(obj, name);
      return name;
    },
    [`${GLES}CreateProgram`](context) {
      const c = env.ctx(context);
      if (!c) return 0;
      const obj = c.gl.createProgram();
      if (!obj) return 0;
      const name = c.genName(c.programs);
      c.programs.set(name, { kind: 'program', name, obj, shaders: new Set(), locs: [], locNames: [], locByName: new Map(), linked: false });
      c.names.set(obj, name);
      return name;
    },
    [`${GLES}DeleteShader`](context, shader) {
      const c = env.ctx(context);
      if (!c || shader === 0) return;
      const s = c.shaderRecord(shader);
      if (!s) return;
      c.gl.deleteShader(s.obj);
      c.programs.delete(s.name);
    },
    [`${GLES}DeleteProgram`](context, program) {
      const c = env.ctx(context);
      if (!c || program === 0) return;
      const p = c.programRecord(program);
      if (!p) return;
      // A current program stays in use until another replaces it (ES 2.0 §2.10.3).
      c.gl.deleteProgram(p.obj);
      c.programs.delete(p.name);
    },
    [`${GLES}IsShader`](context, shader) {
      const c = env.ctx(context);
      const s = c?.programs.get(shader >>> 0);
      return s && s.kind === 'shader' && c.gl.isShader(s.obj) ? 1 : 0;
    },
    [`${GLES}IsProgram`](context, program) {
      const c = env.ctx(context);
      const p = c?.programs.get(program >>> 0);
      return p && p.kind === 'program' && c.gl.isProgram(p.obj) ? 1 : 0;
    },
    [`${GLES}AttachShader`](context, program, shader) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      const s = p && c.shaderRecord(shader);
      if (!s) return;
      if (p.shaders.has(s)) return c.error(GL.INVALID_OPERATION);
      c.gl.attachShader(p.obj, s.obj);
      p.shaders.add(s);
    },
    [`${GLES}DetachShader`](context, program, shader) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      const s = p && c.shaderRecord(shader);
      if (!s) return;
      if (!p.shaders.has(s)) return c.error(GL.INVALID_OPERATION);
      c.gl.detachShader(p.obj, s.obj);
      p.shaders.delete(s);
    },
    [`${GLES}ShaderSource`](context, shader, count, str, length) {
      const c = env.ctx(context);
      if (!c) return;
      const s = c.shaderRecord(shader);
      if (!s) return;
      if (count < 0) return c.error(GL.INVALID_VALUE);
      const parts = [];
      for (let i = 0; i < count; i++) {
        const ptr = views.getI32('glShaderSource', str + 4 * i) >>> 0;
        const len = length === 0 ? -1 : views.getI32('glShaderSource', length + 4 * i);
        parts.push(len < 0 ? views.cString('glShaderSource', ptr, MAX_SOURCE) : views.string('glShaderSource', ptr, len));
      }
      s.source = parts.join('');
      s.hasSource = true;
    },
    [`${GLES}CompileShader`](context, shader) {
      const c = env.ctx(context);
      if (!c) return;
      const s = c.shaderRecord(shader);
      if (s) compile(c, s);
    },
    [`${GLES}LinkProgram`](context, program) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      // GLSL ES 3.00 and 1.00 shaders do not link together: bring the
      // others up to 3.00 when one had to be (shader-source.js).
      const shaders = [...p.shaders];
      if (shaders.some((s) => s.upgraded)) {
        for (const s of shaders) {
          if (!s.upgraded && s.compiled) {
            s.forceUpgrade = true;
            compile(c, s);
          }
        }
      }
      c.gl.linkProgram(p.obj);
      p.linked = c.gl.getProgramParameter(p.obj, GL.LINK_STATUS) === true;
      // Names keep their locations across relinks.
      p.locs = p.locNames.map((n) => (p.linked ? c.gl.getUniformLocation(p.obj, n) : null));
    },
    [`${GLES}UseProgram`](context, program) {
      const c = env.ctx(context);
      if (!c) return;
      if (program === 0) {
        c.program = null;
        c.gl.useProgram(null);
        return;
      }
      const p = c.programRecord(program);
      if (!p) return;
      if (!p.linked) return c.error(GL.INVALID_OPERATION);
      if (c.program === p) return;
      c.program = p;
      c.gl.useProgram(p.obj);
    },
    [`${GLES}ValidateProgram`](context, program) {
      const c = env.ctx(context);
      const p = c?.programRecord(program);
      if (p) c.gl.validateProgram(p.obj);
    },
    [`${GLES}GetShaderiv`](context, shader, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const s = c.shaderRecord(shader);
      if (!s) return;
      let v;
      if (pname === GL.INFO_LOG_LENGTH) v = logLength(c.gl.getShaderInfoLog(s.obj));
      else if (pname === GL.SHADER_SOURCE_LENGTH) v = s.hasSource && s.source.length ? new TextEncoder().encode(s.source).length + 1 : 0;
      else v = c.gl.getShaderParameter(s.obj, pname);
      if (v === null || v === undefined) return;
      views.setI32('glGetShaderiv', params, Number(v));
    },
    [`${GLES}GetProgramiv`](context, program, pname, params) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      let v;
      if (pname === GL.INFO_LOG_LENGTH) v = logLength(c.gl.getProgramInfoLog(p.obj));
      else if (pname === GL.ACTIVE_UNIFORM_MAX_LENGTH) v = maxNameLength(c, p, GL.ACTIVE_UNIFORMS, 'getActiveUniform');
      else if (pname === GL.ACTIVE_ATTRIBUTE_MAX_LENGTH) v = maxNameLength(c, p, GL.ACTIVE_ATTRIBUTES, 'getActiveAttrib');
      else v = c.gl.getProgramParameter(p.obj, pname);
      if (v === null || v === undefined) return;
      views.setI32('glGetProgramiv', params, Number(v));
    },
    [`${GLES}GetShaderInfoLog`](context, shader, bufsize, length, infolog) {
      const c = env.ctx(context);
      if (!c) return;
      const s = c.shaderRecord(shader);
      if (!s) return;
      if (bufsize < 0) return c.error(GL.INVALID_VALUE);
      putText('glGetShaderInfoLog', c.gl.getShaderInfoLog(s.obj) ?? '', bufsize, length, infolog);
    },
    [`${GLES}GetProgramInfoLog`](context, program, bufsize, length, infolog) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      if (bufsize < 0) return c.error(GL.INVALID_VALUE);
      putText('glGetProgramInfoLog', c.gl.getProgramInfoLog(p.obj) ?? '', bufsize, length, infolog);
    },
    [`${GLES}GetShaderSource`](context, shader, bufsize, length, source) {
      const c = env.ctx(context);
      if (!c) return;
      const s = c.shaderRecord(shader);
      if (!s) return;
      if (bufsize < 0) return c.error(GL.INVALID_VALUE);
      putText('glGetShaderSource', s.source, bufsize, length, source);
    },
    [`${GLES}GetShaderPrecisionFormat`](context, shadertype, precisiontype, range, precision) {
      const c = env.ctx(context);
      if (!c) return;
      const f = c.gl.getShaderPrecisionFormat(shadertype, precisiontype);
      if (!f) return;
      views.setI32('glGetShaderPrecisionFormat', range, f.rangeMin);
      views.setI32('glGetShaderPrecisionFormat', range + 4, f.rangeMax);
      views.setI32('glGetShaderPrecisionFormat', precision, f.precision);
    },
    [`${GLES}ShaderBinary`](context) {
      // No binary formats (NUM_SHADER_BINARY_FORMATS is 0): every format is unknown.
      env.ctx(context)?.error(GL.INVALID_ENUM);
    },
    [`${GLES}GetAttachedShaders`](context, program, maxcount, count, shaders) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      if (maxcount < 0) return c.error(GL.INVALID_VALUE);
      const names = [...p.shaders].slice(0, maxcount).map((s) => s.name);
      names.forEach((n, i) => views.setI32('glGetAttachedShaders', shaders + 4 * i, n));
      if (count !== 0) views.setI32('glGetAttachedShaders', count, names.length);
    },
    [`${GLES}GetActiveAttrib`]: active('glGetActiveAttrib', 'getActiveAttrib'),
    [`${GLES}GetActiveUniform`]: active('glGetActiveUniform', 'getActiveUniform'),
    [`${GLES}GetAttribLocation`](context, program, name) {
      const c = env.ctx(context);
      if (!c) return -1;
      const p = c.programRecord(program);
      if (!p) return -1;
      return c.gl.getAttribLocation(p.obj, views.cString('glGetAttribLocation', name >>> 0, 1024));
    },
    [`${GLES}BindAttribLocation`](context, program, index, name) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      c.gl.bindAttribLocation(p.obj, index >>> 0, views.cString('glBindAttribLocation', name >>> 0, 1024));
    },
    [`${GLES}GetUniformLocation`](context, program, name) {
      const c = env.ctx(context);
      if (!c) return -1;
      const p = c.programRecord(program);
      if (!p) return -1;
      if (!p.linked) {
        c.error(GL.INVALID_OPERATION);
        return -1;
      }
      const s = views.cString('glGetUniformLocation', name >>> 0, 1024);
      const have = p.locByName.get(s);
      if (have !== undefined) return p.locs[have] ? have : -1;
      const l = c.gl.getUniformLocation(p.obj, s);
      if (!l) return -1;
      const loc = p.locs.length;
      p.locs.push(l);
      p.locNames.push(s);
      p.locByName.set(s, loc);
      return loc;
    },
    [`${GLES}GetUniformfv`](context, program, location, params) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      const l = p.locs[location];
      if (!l) return c.error(GL.INVALID_OPERATION);
      const v = c.gl.getUniform(p.obj, l);
      const values = typeof v === 'number' || typeof v === 'boolean' ? [v] : Array.from(v ?? []);
      values.forEach((x, i) => views.setF32('glGetUniformfv', params + 4 * i, Number(x)));
    },
    [`${GLES}GetUniformiv`](context, program, location, params) {
      const c = env.ctx(context);
      if (!c) return;
      const p = c.programRecord(program);
      if (!p) return;
      const l = p.locs[location];
      if (!l) return c.error(GL.INVALID_OPERATION);
      const v = c.gl.getUniform(p.obj, l);
      const values = typeof v === 'number' || typeof v === 'boolean' ? [v] : Array.from(v ?? []);
      values.forEach((x, i) => views.setI32('glGetUniformiv', params + 4 * i, Math.round(Number(x))));
    },
    [`${GLES}Uniform1f`]: uniformN('uniform1f'),
    [`${GLES}Uniform2f`]: uniformN('uniform2f'),
    [`${GLES}Uniform3f`]: uniformN('uniform3f'),
    [`${GLES}Uniform4f`]: uniformN('uniform4f'),
    [`${GLES}Uniform1i`]: uniformN('uniform1i'),
    [`${GLES}Uniform2i`]: uniformN('uniform2i'),
    [`${GLES}Uniform3i`]: uniformN('uniform3i'),
    [`${GLES}Uniform4i`]: uniformN('uniform4i'),
    [`${GLES}Uniform1fv`]: uniformv('glUniform1fv', 'uniform1fv', 1, true),
    [`${GLES}Uniform2fv`]: uniformv('glUniform2fv', 'uniform2fv', 2, true),
    [`${GLES}Uniform3fv`]: uniformv('glUniform3fv', 'uniform3fv', 3, true),
    [`${GLES}Uniform4fv`]: uniformv('glUniform4fv', 'uniform4fv', 4, true),
    [`${GLES}Uniform1iv`]: uniformv('glUniform1iv', 'uniform1iv', 1, false),
    [`${GLES}Uniform2iv`]: uniformv('glUniform2iv', 'uniform2iv', 2, false),
    [`${GLES}Uniform3iv`]: uniformv('glUniform3iv', 'uniform3iv', 3, false),
    [`${GLES}Uniform4iv`]: uniformv('glUniform4iv', 'uniform4iv', 4, false),
    [`${GLES}UniformMatrix2fv`]: matrixv('glUniformMatrix2fv', 'uniformMatrix2fv', 4),
    [`${GLES}UniformMatrix3fv`]: matrixv('glUniformMatrix3fv', 'uniformMatrix3fv', 9),
    [`${GLES}UniformMatrix4fv`]: matrixv('glUniformMatrix4fv', 'uniformMatrix4fv', 16),
  };
};
