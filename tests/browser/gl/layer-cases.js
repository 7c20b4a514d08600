// Cases for the GL layer (js/src/internal/pepper/local.js and gl/), run in
// Chromium by gl-layer.test.mjs. Each drives the thread-served functions
// directly, as a translated plugin would (raw integers and guest
// pointers), with a fake thread (shared memory, an OffscreenCanvas, a
// queue of main-loop items) and a fake browser side (the `$` functions of
// ppb/graphics-3d-registry.js). Each case gets `check(ok, message)`.

import { localImplementations } from '/js/internal/pepper/local.js';

const GL = {
  NO_ERROR: 0, INVALID_ENUM: 0x500, INVALID_VALUE: 0x501, INVALID_OPERATION: 0x502,
  ARRAY_BUFFER: 0x8892, ELEMENT_ARRAY_BUFFER: 0x8893, ARRAY_BUFFER_BINDING: 0x8894, ELEMENT_ARRAY_BUFFER_BINDING: 0x8895,
  STATIC_DRAW: 0x88e4, FLOAT: 0x1406, UNSIGNED_BYTE: 0x1401, UNSIGNED_SHORT: 0x1403, TRIANGLES: 4,
  VERTEX_SHADER: 0x8b31, FRAGMENT_SHADER: 0x8b30, COMPILE_STATUS: 0x8b81, LINK_STATUS: 0x8b82, INFO_LOG_LENGTH: 0x8b84,
  SHADER_SOURCE_LENGTH: 0x8b88, CURRENT_PROGRAM: 0x8b8d, COLOR_BUFFER_BIT: 0x4000, RGBA: 0x1908, LUMINANCE: 0x1909,
  VERSION: 0x1f02, VENDOR: 0x1f00, EXTENSIONS: 0x1f03, SHADING_LANGUAGE_VERSION: 0x8b8c, VIEWPORT: 0x0ba2,
  COLOR_CLEAR_VALUE: 0x0c22, COLOR_WRITEMASK: 0x0c23, SHADER_COMPILER: 0x8dfa, NUM_SHADER_BINARY_FORMATS: 0x8df9,
  TEXTURE_2D: 0x0de1, TEXTURE_MIN_FILTER: 0x2801, TEXTURE_MAG_FILTER: 0x2800, NEAREST: 0x2600, WRITE_ONLY: 0x88b9,
  READ_ONLY: 0x88b8, FRAMEBUFFER: 0x8d40, COLOR_ATTACHMENT0: 0x8ce0, FRAMEBUFFER_COMPLETE: 0x8cd5, UNPACK_ALIGNMENT: 0x0cf5,
  ANY_SAMPLES_PASSED: 0x8c2f, CURRENT_QUERY: 0x8865, QUERY_RESULT: 0x8866, QUERY_RESULT_AVAILABLE: 0x8867,
  COMMANDS_ISSUED_CHROMIUM: 0x84f2, VERTEX_ARRAY_BINDING: 0x85b5, VERTEX_ATTRIB_ARRAY_POINTER: 0x8645,
  VERTEX_ATTRIB_ARRAY_BUFFER_BINDING: 0x889f, BLEND: 0x0be2,
};
const PP = {
  OK: 0, OK_COMPLETIONPENDING: -1, ERROR_FAILED: -2, ERROR_ABORTED: -3, ERROR_BADARGUMENT: -4, ERROR_BADRESOURCE: -5,
  ERROR_INPROGRESS: -11, ERROR_BLOCKS_MAIN_THREAD: -13, ERROR_CONTEXT_LOST: -50,
};
const ATTR = { DEPTH: 0x3025, WIDTH: 0x3057, HEIGHT: 0x3056, NONE: 0x3038, SWAP_BEHAVIOR: 0x3093, PRESERVED: 0x3094 };
const ITEM_CALLBACK = 1;

const VS = 'attribute vec2 pos; void main() { gl_Position = vec4(pos, 0.0, 1.0); }';
const FS = 'precision mediump float; uniform vec4 color; void main() { gl_FragColor = color; }';

/** Two triangles covering the viewport. */
const QUAD = [-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1];

function fixture({ debug = false, width = 64, height = 64 } = {}) {
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 512, shared: true });
  const canvas = new OffscreenCanvas(width, height);
  const items = [];
  const reports = [];
  const lost = [];
  const freed = [];
  const resources = new Set();
  let nextResource = 100;
  let heapTop = 0x200000;
  let data = 0x10000;
  const link = {
    call(name, args) {
      switch (name) {
        case '$Graphics3D.create': {
          const id = nextResource++;
          resources.add(id);
          return id;
        }
        case '$Graphics3D.alive':
          return resources.has(args[0]) ? 1 : 0;
        case '$Graphics3D.lost':
          lost.push(args[0]);
          return 0;
        case '$Graphics3D.report':
          reports.push({ level: args[0], text: args[1], source: args[2] });
          return 0;
        case '$GuestHeap.alloc': {
          const p = heapTop;
          heapTop += Math.ceil(args[0] / 16) * 16 + 16;
          return p;
        }
        case '$GuestHeap.free':
          freed.push(args[0]);
          return 0;
        default:
          throw new Error(`unexpected browser call ${name}`);
      }
    },
  };
  const thread = { tid: 0, memory, canvas3d: canvas, queueItem: (item) => items.push(item) };
  const impl = localImplementations(thread, link, { debug });
  const u8 = () => new Uint8Array(memory.buffer);
  const dv = () => new DataView(memory.buffer);
  const f = {
    impl, items, reports, lost, freed, resources, thread, canvas, memory, ctx: 0,
    alloc(n) {
      const p = (data + 15) & ~15;
      data = p + n;
      return p;
    },
    put(typed) {
      const p = f.alloc(typed.byteLength);
      u8().set(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength), p);
      return p;
    },
    f32: (...v) => f.put(new Float32Array(v.flat())),
    i32: (...v) => f.put(new Int32Array(v.flat())),
    u16: (...v) => f.put(new Uint16Array(v.flat())),
    str(s) {
      const b = new TextEncoder().encode(`${s}\0`);
      return f.put(b);
    },
    i32At: (p, i = 0) => dv().getInt32(p + 4 * i, true),
    f32At: (p, i = 0) => dv().getFloat32(p + 4 * i, true),
    u8At: (p, n) => Array.from(u8().slice(p, p + n)),
    cstr(p) {
      const a = u8();
      let e = p;
      while (a[e]) e++;
      return new TextDecoder().decode(a.slice(p, e));
    },
    create(attribs = [ATTR.WIDTH, width, ATTR.HEIGHT, height, ATTR.NONE]) {
      const id = impl['PPB_Graphics3D;1.0:Create'](1, 0, attribs ? f.i32(attribs) : 0);
      if (!f.ctx) f.ctx = id;
      return id;
    },
    gl: (name, ...args) => impl[`PPB_OpenGLES2;1.0:${name}`](f.ctx, ...args),
    ext: (key, ...args) => impl[key](f.ctx, ...args),
    g3d: (name, ...args) => impl[`PPB_Graphics3D;1.0:${name}`](...args),
    context: () => thread.local.env.contexts.get(f.ctx),
    errors() {
      const out = [];
      for (let i = 0; i < 10; i++) {
        const e = f.gl('GetError');
        if (e === 0) break;
        out.push(e);
      }
      return out;
    },
    shader(type, source) {
      const s = f.gl('CreateShader', type);
      f.gl('ShaderSource', s, 1, f.i32([f.str(source)]), 0);
      f.gl('CompileShader', s);
      const out = f.alloc(4);
      f.gl('GetShaderiv', s, GL.COMPILE_STATUS, out);
      if (f.i32At(out) !== 1) {
        const log = f.alloc(4096);
        f.gl('GetShaderInfoLog', s, 4096, 0, log);
        throw new Error(`shader did not compile: ${f.cstr(log)}`);
      }
      return s;
    },
    program(vs = VS, fs = FS) {
      const p = f.gl('CreateProgram');
      f.gl('AttachShader', p, f.shader(GL.VERTEX_SHADER, vs));
      f.gl('AttachShader', p, f.shader(GL.FRAGMENT_SHADER, fs));
      f.gl('BindAttribLocation', p, 0, f.str('pos'));
      f.gl('LinkProgram', p);
      const out = f.alloc(4);
      f.gl('GetProgramiv', p, GL.LINK_STATUS, out);
      if (f.i32At(out) !== 1) throw new Error('program did not link');
      f.gl('UseProgram', p);
      return p;
    },
    /** RGBA of pixel (x, y) of the bound framebuffer, read through glReadPixels into guest memory. */
    pixel(x, y) {
      const p = f.alloc(4);
      f.gl('ReadPixels', x, y, 1, 1, GL.RGBA, GL.UNSIGNED_BYTE, p);
      return f.u8At(p, 4);
    },
    nextFrame: () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))),
  };
  return f;
}

const near = (a, b, tol = 2) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tol);

export const CASES = {
  async 'create: attributes, resources, Chrome’s unimplemented queries'(check) {
    const f = fixture();
    check(f.create([ATTR.WIDTH, 32, 0x1234, 5, ATTR.NONE]) === 0, 'an unknown attribute fails Create');
    check(f.impl['PPB_Graphics3D;1.0:Create'](1, 55, 0) === 0, 'share_context is refused');
    check(f.impl['PPB_Graphics3D;1.0:Create'](2, 0, 0) === 0, 'a wrong instance fails');
    const id = f.create([ATTR.DEPTH, 24, ATTR.WIDTH, 40, ATTR.HEIGHT, 30, ATTR.NONE]);
    check(id > 0 && f.resources.has(id), 'Create registers a browser resource');
    check(f.canvas.width === 40 && f.canvas.height === 30, 'WIDTH × HEIGHT sizes the drawing buffer');
    check(f.g3d('IsGraphics3D', id) === 1 && f.g3d('IsGraphics3D', 7) === 0, 'IsGraphics3D asks the browser');
    check(f.g3d('GetAttribs', id, f.alloc(8)) === PP.ERROR_FAILED, 'GetAttribs: PP_ERROR_FAILED as in Chrome');
    check(f.g3d('GetError', id) === PP.ERROR_FAILED, 'GetError: PP_ERROR_FAILED as in Chrome');
    check(f.g3d('GetError', 9999) === PP.ERROR_BADRESOURCE, 'GetError on a bad resource');
    check(f.g3d('ResizeBuffers', id, -1, 5) === PP.ERROR_BADARGUMENT, 'ResizeBuffers rejects negative sizes');
    check(f.g3d('ResizeBuffers', id, 20, 10) === PP.OK && f.canvas.width === 20 && f.canvas.height === 10, 'ResizeBuffers resizes');
    const second = f.create();
    check(second > 0 && f.thread.local.env.contexts.get(second).canvas !== f.canvas, 'a second context gets a canvas of its own');
  },

  async 'names: Gen, bind-creates, Is*, Delete unbinds'(check) {
    const f = fixture();
    f.create();
    const p = f.alloc(8);
    f.gl('GenBuffers', 2, p);
    const [a, b] = [f.i32At(p, 0), f.i32At(p, 1)];
    check(a > 0 && b > 0 && a !== b, `GenBuffers gives two names (${a}, ${b})`);
    check(f.gl('IsBuffer', a) === 0, 'a generated name is not a buffer before it is bound');
    f.gl('BindBuffer', GL.ARRAY_BUFFER, a);
    check(f.gl('IsBuffer', a) === 1, 'bound: a buffer');
    f.gl('BindBuffer', GL.ARRAY_BUFFER, 77);
    check(f.gl('IsBuffer', 77) === 1, 'binding a name never generated creates it');
    const out = f.alloc(4);
    f.gl('GetIntegerv', GL.ARRAY_BUFFER_BINDING, out);
    check(f.i32At(out) === 77, 'ARRAY_BUFFER_BINDING answers the name');
    f.gl('DeleteBuffers', 1, f.i32([77]));
    f.gl('GetIntegerv', GL.ARRAY_BUFFER_BINDING, out);
    check(f.i32At(out) === 0 && f.gl('IsBuffer', 77) === 0, 'deleting the bound buffer unbinds it');
    f.gl('BindBuffer', GL.ELEMENT_ARRAY_BUFFER, a);
    check(near(f.errors(), [GL.INVALID_OPERATION]), 'an array buffer cannot become an element buffer');
    f.gl('BindBuffer', 0x8f36 /* COPY_READ_BUFFER: not ES 2.0 */, a);
    check(near(f.errors(), [GL.INVALID_ENUM]), 'ES 3.0 buffer targets are INVALID_ENUM');
    const t = f.alloc(4);
    f.gl('GenTextures', 1, t);
    f.gl('BindTexture', GL.TEXTURE_2D, f.i32At(t));
    check(f.gl('IsTexture', f.i32At(t)) === 1, 'textures');
    check(f.gl('IsProgram', 12345) === 0 && f.gl('IsShader', 12345) === 0, 'unknown program and shader names');
    f.gl('UseProgram', 12345);
    check(near(f.errors(), [GL.INVALID_VALUE]), 'UseProgram of an unknown name is INVALID_VALUE');
  },

  async 'errors: the layer’s own first, then WebGL’s, each once'(check) {
    const f = fixture();
    f.create();
    f.gl('Uniform1f', 3, 1.0); // no program: the layer's INVALID_OPERATION
    f.gl('Enable', 0x1234); // WebGL's INVALID_ENUM
    f.gl('Uniform1f', 4, 1.0); // the same flag again
    const e = f.errors();
    check(near(e, [GL.INVALID_OPERATION, GL.INVALID_ENUM]), `GetError order: ${e.map((x) => x.toString(16))}`);
    f.gl('Uniform1f', -1, 1.0);
    check(f.errors().length === 0, 'location -1 is silently ignored');
    check(f.impl['PPB_OpenGLES2;1.0:GetError'](4242) === 0, 'GetError on a bad context is 0');
  },

  async 'strings: Chromium’s, in browser-heap memory, one per name'(check) {
    const f = fixture();
    f.create();
    const v = f.gl('GetString', GL.VERSION);
    check(f.cstr(v) === 'OpenGL ES 2.0 Chromium', `GL_VERSION ${f.cstr(v)}`);
    check(f.gl('GetString', GL.VERSION) === v, 'the same pointer each time');
    check(v >= 0x200000, 'from the browser’s heap ($GuestHeap.alloc)');
    check(f.cstr(f.gl('GetString', GL.SHADING_LANGUAGE_VERSION)) === 'OpenGL ES GLSL ES 1.0 Chromium', 'GL_SHADING_LANGUAGE_VERSION');
    check(f.cstr(f.gl('GetString', GL.VENDOR)) === 'Chromium', 'GL_VENDOR');
    const ext = f.cstr(f.gl('GetString', GL.EXTENSIONS)).split(' ');
    for (const name of ['GL_OES_vertex_array_object', 'GL_ANGLE_instanced_arrays', 'GL_CHROMIUM_map_sub', 'GL_OES_standard_derivatives', 'GL_EXT_occlusion_query_boolean']) {
      check(ext.includes(name), `GL_EXTENSIONS lists ${name}`);
    }
    check(!ext.includes('GL_EXT_texture_format_BGRA8888'), 'nothing unbacked (BGRA)');
    check(f.gl('GetString', 0x1234) === 0 && near(f.errors(), [GL.INVALID_ENUM]), 'an unknown name: NULL and INVALID_ENUM');
    check(f.ext('PPB_OpenGLES2ChromiumEnableFeature;1.0:EnableFeatureCHROMIUM', f.str('pepper3d_allow_buffers_on_multiple_targets')) === 0, 'EnableFeatureCHROMIUM: not available');
  },

  async 'getters: state, bindings and ES 2.0 conversions'(check) {
    const f = fixture({ width: 48, height: 32 });
    f.create();
    const out = f.alloc(64);
    f.gl('Viewport', 1, 2, 30, 20);
    f.gl('GetIntegerv', GL.VIEWPORT, out);
    check([0, 1, 2, 3].map((i) => f.i32At(out, i)).join() === '1,2,30,20', 'VIEWPORT: four integers');
    f.gl('ClearColor', 1, 0.5, 0, 1);
    f.gl('GetFloatv', GL.COLOR_CLEAR_VALUE, out);
    check(near([0, 1, 2, 3].map((i) => f.f32At(out, i)), [1, 0.5, 0, 1], 0.001), 'COLOR_CLEAR_VALUE as floats');
    f.gl('GetIntegerv', GL.COLOR_CLEAR_VALUE, out);
    check(f.i32At(out, 0) === 2147483647 && f.i32At(out, 2) === 0, `colours as integers span the full range (${f.i32At(out, 0)})`);
    f.gl('ColorMask', 1, 0, 1, 0);
    f.gl('GetBooleanv', GL.COLOR_WRITEMASK, out);
    check(f.u8At(out, 4).join() === '1,0,1,0', 'COLOR_WRITEMASK as four GLbooleans');
    f.gl('GetIntegerv', GL.SHADER_COMPILER, out);
    check(f.i32At(out) === 1, 'SHADER_COMPILER');
    f.gl('GetIntegerv', GL.NUM_SHADER_BINARY_FORMATS, out);
    check(f.i32At(out) === 0, 'no shader binary formats');
    const prog = f.program();
    f.gl('GetIntegerv', GL.CURRENT_PROGRAM, out);
    check(f.i32At(out) === prog, 'CURRENT_PROGRAM answers the name');
    f.gl('Enable', GL.BLEND);
    check(f.gl('IsEnabled', GL.BLEND) === 1, 'IsEnabled');
    f.gl('GetIntegerv', 0x1234, out);
    check(near(f.errors(), [GL.INVALID_ENUM]), 'an unknown pname is INVALID_ENUM');
  },

  async 'shaders and programs: sources, logs, locations'(check) {
    const f = fixture();
    f.create();
    const prog = f.program(VS, 'precision mediump float; uniform vec4 color; uniform float k[3]; void main() { gl_FragColor = color * k[2]; }');
    const out = f.alloc(4096);
    const shaders = f.alloc(16);
    f.gl('GetAttachedShaders', prog, 4, out, shaders);
    check(f.i32At(out) === 2, 'two attached shaders');
    const fs = f.i32At(shaders, 1);
    f.gl('GetShaderiv', fs, GL.SHADER_SOURCE_LENGTH, out);
    const len = f.i32At(out);
    const src = f.alloc(len);
    f.gl('GetShaderSource', fs, len, out, src);
    check(f.cstr(src).startsWith('precision mediump float; uniform vec4 color;') && f.i32At(out) === len - 1, 'GetShaderSource: the plugin’s text, length without the NUL');
    const color = f.gl('GetUniformLocation', prog, f.str('color'));
    const k = f.gl('GetUniformLocation', prog, f.str('k'));
    check(color >= 0 && k >= 0 && color !== k, `locations are small integers (${color}, ${k})`);
    check(f.gl('GetUniformLocation', prog, f.str('color')) === color, 'the same name, the same location');
    check(f.gl('GetUniformLocation', prog, f.str('nothing')) === -1, 'an unknown uniform is -1');
    f.gl('Uniform4fv', color, 1, f.f32(0.25, 0.5, 0.75, 1));
    f.gl('Uniform1fv', k, 3, f.f32(1, 2, 3));
    f.gl('GetUniformfv', prog, color, out);
    check(near([0, 1, 2, 3].map((i) => f.f32At(out, i)), [0.25, 0.5, 0.75, 1], 1e-6), 'Uniform4fv from guest memory');
    f.gl('GetUniformfv', prog, k, out);
    check(f.f32At(out) === 1, 'an array uniform takes count elements');
    f.gl('LinkProgram', prog);
    check(f.gl('GetUniformLocation', prog, f.str('color')) === color, 'a relink keeps the location');
    f.gl('UniformMatrix4fv', color, 1, 1, f.f32(new Array(16).fill(0)));
    check(near(f.errors(), [GL.INVALID_VALUE]), 'UniformMatrix with transpose is INVALID_VALUE (ES 2.0)');
    f.gl('Uniform1f', 99, 1);
    check(near(f.errors(), [GL.INVALID_OPERATION]), 'a location never handed out is INVALID_OPERATION');
    const bad = f.gl('CreateShader', GL.FRAGMENT_SHADER);
    f.gl('ShaderSource', bad, 2, f.i32([f.str('void main() { gl_FragColor = '), f.str('nope; }')]), f.i32([-1, 5]));
    f.gl('CompileShader', bad);
    f.gl('GetShaderiv', bad, GL.COMPILE_STATUS, out);
    check(f.i32At(out) === 0, 'a bad shader does not compile');
    f.gl('GetShaderiv', bad, GL.INFO_LOG_LENGTH, out);
    const logLen = f.i32At(out);
    f.gl('GetShaderInfoLog', bad, 8, out, src);
    check(logLen > 8 && f.i32At(out) === 7 && f.cstr(src).length === 7, 'logs are truncated to the buffer, NUL included');
    f.gl('ShaderBinary', 1, f.i32([bad]), 0x1234, f.alloc(4), 4);
    check(near(f.errors(), [GL.INVALID_ENUM]), 'ShaderBinary: no formats');
  },

  async 'draw: client-side vertex arrays and indices'(check) {
    const f = fixture();
    f.create();
    f.program();
    const color = f.gl('GetUniformLocation', f.context().program.name, f.str('color'));
    f.gl('BindBuffer', GL.ARRAY_BUFFER, 0);
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, f.f32(QUAD));
    f.gl('Uniform4f', color, 1, 0, 0, 1);
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(32, 32), [255, 0, 0, 255]), `DrawArrays from client memory: ${f.pixel(32, 32)}`);
    // Client indices and interleaved client attributes (position + padding).
    const inter = f.f32(-1, -1, 9, 1, -1, 9, 1, 1, 9, -1, 1, 9);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 12, inter);
    f.gl('Uniform4f', color, 0, 1, 0, 1);
    f.gl('DrawElements', GL.TRIANGLES, 6, GL.UNSIGNED_SHORT, f.u16(0, 1, 2, 0, 2, 3));
    check(near(f.pixel(10, 50), [0, 255, 0, 255]), `DrawElements with client indices: ${f.pixel(10, 50)}`);
    const out = f.alloc(4);
    f.gl('GetIntegerv', GL.ELEMENT_ARRAY_BUFFER_BINDING, out);
    check(f.i32At(out) === 0, 'the element binding is still none');
    f.gl('GetVertexAttribPointerv', 0, GL.VERTEX_ATTRIB_ARRAY_POINTER, out);
    check(f.i32At(out) === inter, 'GetVertexAttribPointerv answers the client pointer');
    // Client attributes with indices in a buffer object.
    const ib = f.alloc(4);
    f.gl('GenBuffers', 1, ib);
    f.gl('BindBuffer', GL.ELEMENT_ARRAY_BUFFER, f.i32At(ib));
    f.gl('BufferData', GL.ELEMENT_ARRAY_BUFFER, 6, f.u16(0, 1, 2), GL.STATIC_DRAW);
    f.gl('Uniform4f', color, 0, 0, 1, 1);
    f.gl('DrawElements', GL.TRIANGLES, 3, GL.UNSIGNED_SHORT, 0);
    check(near(f.pixel(60, 4), [0, 0, 255, 255]), `client attributes, indices in a buffer: ${f.pixel(60, 4)}`);
    // A buffer-backed attribute keeps ARRAY_BUFFER where the plugin put it.
    const vb = f.alloc(4);
    f.gl('GenBuffers', 1, vb);
    f.gl('BindBuffer', GL.ARRAY_BUFFER, f.i32At(vb));
    f.gl('BufferData', GL.ARRAY_BUFFER, 48, f.f32(QUAD), GL.STATIC_DRAW);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, 0);
    f.gl('GetVertexAttribiv', 0, GL.VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, out);
    check(f.i32At(out) === f.i32At(vb), 'the attribute’s buffer binding');
    f.gl('Uniform4f', color, 1, 1, 0, 1);
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(32, 32), [255, 255, 0, 255]), 'a buffer-backed draw');
    check(f.errors().length === 0, 'no GL error');
  },

  async 'instancing and vertex array objects'(check) {
    const f = fixture();
    f.create();
    const vs = 'attribute vec2 pos; attribute vec2 offset; void main() { gl_Position = vec4(pos * 0.25 + offset, 0.0, 1.0); }';
    const p = f.program(vs);
    f.gl('BindAttribLocation', p, 1, f.str('offset'));
    f.gl('LinkProgram', p);
    f.gl('UseProgram', p);
    const color = f.gl('GetUniformLocation', p, f.str('color'));
    f.gl('Uniform4f', color, 1, 1, 1, 1);
    const vao = f.alloc(4);
    f.ext('PPB_OpenGLES2VertexArrayObject;1.0:GenVertexArraysOES', 1, vao);
    f.ext('PPB_OpenGLES2VertexArrayObject;1.0:BindVertexArrayOES', f.i32At(vao));
    check(f.ext('PPB_OpenGLES2VertexArrayObject;1.0:IsVertexArrayOES', f.i32At(vao)) === 1, 'IsVertexArrayOES');
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, f.f32(QUAD));
    f.gl('EnableVertexAttribArray', 1);
    f.gl('VertexAttribPointer', 1, 2, GL.FLOAT, 0, 0, f.f32(-0.5, -0.5, 0.5, 0.5));
    f.ext('PPB_OpenGLES2InstancedArrays;1.0:VertexAttribDivisorANGLE', 1, 1);
    f.ext('PPB_OpenGLES2InstancedArrays;1.0:DrawArraysInstancedANGLE', GL.TRIANGLES, 0, 6, 2);
    check(near(f.pixel(16, 16), [255, 255, 255, 255]) && near(f.pixel(48, 48), [255, 255, 255, 255]), 'two instances, offsets from client memory');
    check(near(f.pixel(16, 48), [0, 0, 0, 255]), `nothing between them (no ALPHA_SIZE: opaque): ${f.pixel(16, 48)}`);
    const out = f.alloc(4);
    f.gl('GetIntegerv', GL.VERTEX_ARRAY_BINDING, out);
    check(f.i32At(out) === f.i32At(vao), 'VERTEX_ARRAY_BINDING');
    f.ext('PPB_OpenGLES2VertexArrayObject;1.0:BindVertexArrayOES', 0);
    f.gl('GetVertexAttribiv', 0, 0x8622 /* ENABLED */, out);
    check(f.i32At(out) === 0, 'the default vertex array has its own state');
    f.ext('PPB_OpenGLES2VertexArrayObject;1.0:BindVertexArrayOES', 4321);
    check(near(f.errors(), [GL.INVALID_OPERATION]), 'binding a name never generated');
  },

  async 'textures: pixels from guest memory, unpack alignment, formats'(check) {
    const f = fixture();
    f.create();
    const fs = 'precision mediump float; uniform sampler2D tex; varying vec2 uv; void main() { gl_FragColor = texture2D(tex, uv); }';
    const vs = 'attribute vec2 pos; varying vec2 uv; void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos, 0.0, 1.0); }';
    f.program(vs, fs);
    const t = f.alloc(4);
    f.gl('GenTextures', 1, t);
    f.gl('BindTexture', GL.TEXTURE_2D, f.i32At(t));
    f.gl('TexParameteri', GL.TEXTURE_2D, GL.TEXTURE_MIN_FILTER, GL.NEAREST);
    f.gl('TexParameteri', GL.TEXTURE_2D, GL.TEXTURE_MAG_FILTER, GL.NEAREST);
    // 3×2 LUMINANCE, rows of 3 bytes packed (alignment 1).
    f.gl('PixelStorei', GL.UNPACK_ALIGNMENT, 1);
    f.gl('TexImage2D', GL.TEXTURE_2D, 0, GL.LUMINANCE, 3, 2, 0, GL.LUMINANCE, GL.UNSIGNED_BYTE, f.put(new Uint8Array([10, 20, 30, 200, 210, 220])));
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, f.f32(QUAD));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(2, 2), [10, 10, 10, 255]) && near(f.pixel(62, 62), [220, 220, 220, 255]), `LUMINANCE, alignment 1: ${f.pixel(2, 2)} ${f.pixel(62, 62)}`);
    // RGBA float texture (OES_texture_float → RGBA32F).
    f.gl('TexImage2D', GL.TEXTURE_2D, 0, GL.RGBA, 1, 1, 0, GL.RGBA, GL.FLOAT, f.f32(0.5, 0.25, 1, 1));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(30, 30), [128, 64, 255, 255]), `RGBA FLOAT: ${f.pixel(30, 30)}`);
    // Half floats (HALF_FLOAT_OES = 0x8D61): 1.0 = 0x3C00.
    f.gl('TexImage2D', GL.TEXTURE_2D, 0, GL.RGBA, 1, 1, 0, GL.RGBA, 0x8d61, f.u16(0x3c00, 0, 0x3c00, 0x3c00));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(30, 30), [255, 0, 255, 255]), `RGBA HALF_FLOAT_OES: ${f.pixel(30, 30)}`);
    // A null pointer gives an empty image; TexSubImage2D fills part of it.
    f.gl('PixelStorei', GL.UNPACK_ALIGNMENT, 4);
    f.gl('TexImage2D', GL.TEXTURE_2D, 0, GL.RGBA, 2, 2, 0, GL.RGBA, GL.UNSIGNED_BYTE, 0);
    f.gl('TexSubImage2D', GL.TEXTURE_2D, 0, 1, 1, 1, 1, GL.RGBA, GL.UNSIGNED_BYTE, f.put(new Uint8Array([0, 255, 0, 255])));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(60, 60), [0, 255, 0, 255]) && near(f.pixel(4, 4), [0, 0, 0, 255]), `TexImage2D(NULL) then TexSubImage2D: ${f.pixel(60, 60)} ${f.pixel(4, 4)}`);
    check(f.errors().length === 0, 'no GL error');
  },

  async 'framebuffers and CHROMIUM map-sub'(check) {
    const f = fixture();
    f.create();
    const ids = f.alloc(8);
    f.gl('GenTextures', 1, ids);
    f.gl('BindTexture', GL.TEXTURE_2D, f.i32At(ids));
    f.gl('TexImage2D', GL.TEXTURE_2D, 0, GL.RGBA, 4, 4, 0, GL.RGBA, GL.UNSIGNED_BYTE, 0);
    f.gl('GenFramebuffers', 1, ids + 4);
    f.gl('BindFramebuffer', GL.FRAMEBUFFER, f.i32At(ids, 1));
    f.gl('FramebufferTexture2D', GL.FRAMEBUFFER, GL.COLOR_ATTACHMENT0, GL.TEXTURE_2D, f.i32At(ids), 0);
    check(f.gl('CheckFramebufferStatus', GL.FRAMEBUFFER) === GL.FRAMEBUFFER_COMPLETE, 'a complete framebuffer');
    const out = f.alloc(4);
    f.gl('GetFramebufferAttachmentParameteriv', GL.FRAMEBUFFER, GL.COLOR_ATTACHMENT0, 0x8cd1, out);
    check(f.i32At(out) === f.i32At(ids), 'the attachment’s name');
    // Texture data through MapTexSubImage2DCHROMIUM.
    const MAP = 'PPB_OpenGLES2ChromiumMapSub;1.0:';
    const m = f.ext(`${MAP}MapTexSubImage2DCHROMIUM`, GL.TEXTURE_2D, 0, 0, 0, 4, 4, GL.RGBA, GL.UNSIGNED_BYTE, GL.WRITE_ONLY);
    check(m >= 0x200000, 'mapped memory comes from the browser’s heap');
    new Uint8Array(f.memory.buffer, m, 64).fill(0).forEach((_, i, a) => (a[i] = i % 4 === 0 ? 200 : i % 4 === 3 ? 255 : 0));
    f.ext(`${MAP}UnmapTexSubImage2DCHROMIUM`, m);
    check(near(f.pixel(2, 2), [200, 0, 0, 255]), `texture written through a mapping: ${f.pixel(2, 2)}`);
    // Buffer data through MapBufferSubDataCHROMIUM.
    f.gl('BindBuffer', GL.ARRAY_BUFFER, 5);
    f.gl('BufferData', GL.ARRAY_BUFFER, 8, 0, GL.STATIC_DRAW);
    const b = f.ext(`${MAP}MapBufferSubDataCHROMIUM`, GL.ARRAY_BUFFER, 4, 4, GL.WRITE_ONLY);
    new Uint8Array(f.memory.buffer, b, 4).set([1, 2, 3, 4]);
    f.ext(`${MAP}UnmapBufferSubDataCHROMIUM`, b);
    const back = new Uint8Array(8);
    f.context().gl.getBufferSubData(GL.ARRAY_BUFFER, 0, back);
    check(back.join() === '0,0,0,0,1,2,3,4', `buffer written through a mapping: ${back}`);
    check(f.ext(`${MAP}MapBufferSubDataCHROMIUM`, GL.ARRAY_BUFFER, 0, 4, GL.READ_ONLY) === 0 && near(f.errors(), [GL.INVALID_ENUM]), 'READ_ONLY is INVALID_ENUM');
    f.ext(`${MAP}UnmapBufferSubDataCHROMIUM`, 0x123456);
    check(near(f.errors(), [GL.INVALID_VALUE]), 'unmapping what is not mapped is INVALID_VALUE');
    const again = f.ext(`${MAP}MapBufferSubDataCHROMIUM`, GL.ARRAY_BUFFER, 0, 4, GL.WRITE_ONLY);
    check(again === b, 'unmapped blocks are reused');
    f.ext(`${MAP}UnmapBufferSubDataCHROMIUM`, again);
    check(f.errors().length === 0, 'no GL error');
  },

  async 'shaders that need GLSL ES 3.00 are rewritten and link with 1.00 ones'(check) {
    const f = fixture();
    f.create();
    const fs = [
      '#extension GL_OES_standard_derivatives : enable',
      'precision mediump float;',
      'uniform sampler2D texture;',
      'varying vec2 uv;',
      '#define _color gl_FragColor',
      'void main() {',
      '#ifdef GL_OES_standard_derivatives',
      '  _color = vec4(fwidth(uv.x) > 0.0 ? 1.0 : 0.0, texture2D(texture, uv).a, 0.0, 1.0);',
      '#else',
      '  _color = vec4(0.0);',
      '#endif',
      '}',
    ].join('\n');
    const vs = 'attribute vec2 pos; varying vec2 uv; void main() { uv = pos; gl_Position = vec4(pos, 0.0, 1.0); }';
    const prog = f.program(vs, fs);
    check(prog > 0, 'compiled and linked');
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, f.f32(QUAD));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    // An unbound sampler reads (0, 0, 0, 1).
    check(near(f.pixel(32, 32), [255, 255, 0, 255]), `derivatives work: ${f.pixel(32, 32)}`);
    const shaders = f.alloc(8);
    f.gl('GetAttachedShaders', prog, 2, 0, shaders);
    const len = f.alloc(4);
    const src = f.alloc(1024);
    f.gl('GetShaderSource', f.i32At(shaders, 1), 1024, len, src);
    check(f.cstr(src) === fs, 'GetShaderSource answers the original');
  },

  async 'draw buffers: an EXT_draw_buffers shader writes two attachments'(check) {
    const f = fixture();
    f.create();
    const fs = [
      '#extension GL_EXT_draw_buffers : require',
      'precision mediump float;',
      'void main() { gl_FragData[0] = vec4(1.0, 0.0, 0.0, 1.0); gl_FragData[1] = vec4(0.0, 0.0, 1.0, 1.0); }',
    ].join('\n');
    f.program(VS, fs);
    const ids = f.alloc(12);
    f.gl('GenTextures', 2, ids);
    f.gl('GenFramebuffers', 1, ids + 8);
    f.gl('BindFramebuffer', GL.FRAMEBUFFER, f.i32At(ids, 2));
    for (const i of [0, 1]) {
      f.gl('BindTexture', GL.TEXTURE_2D, f.i32At(ids, i));
      f.gl('TexImage2D', GL.TEXTURE_2D, 0, GL.RGBA, 4, 4, 0, GL.RGBA, GL.UNSIGNED_BYTE, 0);
      f.gl('FramebufferTexture2D', GL.FRAMEBUFFER, GL.COLOR_ATTACHMENT0 + i, GL.TEXTURE_2D, f.i32At(ids, i), 0);
    }
    f.ext('PPB_OpenGLES2DrawBuffers(Dev);1.0:DrawBuffersEXT', 2, f.i32([GL.COLOR_ATTACHMENT0, GL.COLOR_ATTACHMENT0 + 1]));
    f.gl('Viewport', 0, 0, 4, 4);
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, f.f32(QUAD));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    check(near(f.pixel(1, 1), [255, 0, 0, 255]), `attachment 0: ${f.pixel(1, 1)}`);
    f.gl('FramebufferTexture2D', GL.FRAMEBUFFER, GL.COLOR_ATTACHMENT0, GL.TEXTURE_2D, f.i32At(ids, 1), 0);
    f.gl('FramebufferTexture2D', GL.FRAMEBUFFER, GL.COLOR_ATTACHMENT0 + 1, GL.TEXTURE_2D, 0, 0);
    check(near(f.pixel(1, 1), [0, 0, 255, 255]), `attachment 1: ${f.pixel(1, 1)}`);
    check(f.errors().length === 0, 'no GL error');
  },

  async 'queries: occlusion and commands issued'(check) {
    const f = fixture();
    f.create();
    f.program();
    const Q = 'PPB_OpenGLES2Query;1.0:';
    const ids = f.alloc(8);
    f.ext(`${Q}GenQueriesEXT`, 2, ids);
    const [q, c] = [f.i32At(ids), f.i32At(ids, 1)];
    check(f.ext(`${Q}IsQueryEXT`, q) === 0, 'not a query before it begins');
    f.ext(`${Q}BeginQueryEXT`, GL.ANY_SAMPLES_PASSED, q);
    const out = f.alloc(4);
    f.ext(`${Q}GetQueryivEXT`, GL.ANY_SAMPLES_PASSED, GL.CURRENT_QUERY, out);
    check(f.i32At(out) === q, 'CURRENT_QUERY');
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, f.f32(QUAD));
    f.gl('DrawArrays', GL.TRIANGLES, 0, 6);
    f.ext(`${Q}EndQueryEXT`, GL.ANY_SAMPLES_PASSED);
    check(f.ext(`${Q}IsQueryEXT`, q) === 1, 'a query once begun');
    let available = 0;
    for (let i = 0; i < 20 && !available; i++) {
      await f.nextFrame();
      f.ext(`${Q}GetQueryObjectuivEXT`, q, GL.QUERY_RESULT_AVAILABLE, out);
      available = f.i32At(out);
    }
    f.ext(`${Q}GetQueryObjectuivEXT`, q, GL.QUERY_RESULT, out);
    check(available === 1 && f.i32At(out) === 1, 'samples passed');
    f.ext(`${Q}BeginQueryEXT`, GL.COMMANDS_ISSUED_CHROMIUM, c);
    f.ext(`${Q}EndQueryEXT`, GL.COMMANDS_ISSUED_CHROMIUM);
    f.ext(`${Q}GetQueryObjectuivEXT`, c, GL.QUERY_RESULT_AVAILABLE, out);
    check(f.i32At(out) === 1, 'COMMANDS_ISSUED_CHROMIUM is available at once');
    f.ext(`${Q}BeginQueryEXT`, 0x84f3 /* LATENCY_QUERY_CHROMIUM */, c);
    check(near(f.errors(), [GL.INVALID_ENUM]), 'other Chromium query targets are INVALID_ENUM');
    f.ext(`${Q}EndQueryEXT`, GL.ANY_SAMPLES_PASSED);
    check(near(f.errors(), [GL.INVALID_OPERATION]), 'ending a query that is not active');
  },

  async 'SwapBuffers: frames, INPROGRESS, blocking and optional callbacks'(check) {
    const f = fixture();
    const id = f.create();
    const cb = (func, user, flags = 0) => f.i32([func, user, flags]);
    check(f.g3d('SwapBuffers', id, cb(0, 0)) === PP.ERROR_BLOCKS_MAIN_THREAD, 'a blocking callback on the main thread');
    check(f.g3d('SwapBuffers', id, cb(11, 1)) === PP.OK_COMPLETIONPENDING, 'a swap is pending');
    check(f.g3d('SwapBuffers', id, cb(12, 2)) === PP.OK_COMPLETIONPENDING, 'a second swap with a required callback…');
    check(f.items.some((i) => i[0] === ITEM_CALLBACK && i[1] === 12 && i[3] === PP.ERROR_INPROGRESS), '…gets PP_ERROR_INPROGRESS in its callback');
    check(f.g3d('SwapBuffers', id, cb(13, 3, 1)) === PP.ERROR_INPROGRESS, 'an optional callback: the result directly');
    check(f.g3d('SwapBuffers', 4242, cb(14, 4, 1)) === PP.ERROR_BADRESOURCE, 'a bad context');
    await f.nextFrame();
    await f.nextFrame();
    check(f.items.some((i) => i[0] === ITEM_CALLBACK && i[1] === 11 && i[2] === 1 && i[3] === PP.OK), 'the first swap’s callback ran at a frame, with PP_OK');
    check(!f.items.some((i) => i[1] === 13), 'the optional callback is never called');
    check(f.g3d('SwapBuffers', id, cb(15, 5)) === PP.OK_COMPLETIONPENDING, 'after the frame, a new swap is accepted');
  },

  async 'a hidden page gets no frames: swaps wait, then complete'(check) {
    const f = fixture();
    const id = f.create();
    f.thread.local.handle({ local: 'Graphics3D.pageVisible', visible: false });
    f.g3d('SwapBuffers', id, f.i32([41, 0, 0]));
    for (let i = 0; i < 5; i++) await f.nextFrame();
    check(!f.items.some((i) => i[1] === 41), 'no frame while hidden');
    f.thread.local.handle({ local: 'Graphics3D.pageVisible', visible: true });
    await f.nextFrame();
    await f.nextFrame();
    check(f.items.some((i) => i[1] === 41 && i[3] === PP.OK), 'the swap completes once visible');
  },

  async 'destroy: state dropped, memory freed, the surface reused from GL’s initial state'(check) {
    const f = fixture();
    const id = f.create();
    const s = f.gl('GetString', GL.VERSION);
    f.gl('ClearColor', 1, 0, 0, 1);
    f.g3d('SwapBuffers', id, f.i32([21, 0, 0]));
    f.resources.delete(id);
    f.thread.local.handle({ local: 'Graphics3D.destroyed', id });
    check(f.freed.includes(s), 'glGetString’s memory goes back to the browser');
    check(f.items.some((i) => i[1] === 21 && i[3] === PP.ERROR_ABORTED), 'a pending swap is aborted');
    check(f.gl('GetError') === 0 && f.gl('IsEnabled', GL.BLEND) === 0, 'calls on the destroyed context do nothing');
    f.ctx = 0;
    const id2 = f.create();
    check(f.context().canvas === f.canvas, 'the new context draws on the surface');
    const out = f.alloc(16);
    f.gl('GetFloatv', GL.COLOR_CLEAR_VALUE, out);
    check(f.f32At(out) === 0, 'from GL’s initial state');
    check(id2 !== id, 'a new resource');
  },

  async 'context loss: unbound, swap completed, Graphics3DContextLost queued'(check) {
    const f = fixture();
    const id = f.create();
    f.g3d('SwapBuffers', id, f.i32([31, 7, 0]));
    f.context().gl.getExtension('WEBGL_lose_context').loseContext();
    for (let i = 0; i < 20 && !f.lost.length; i++) await new Promise((r) => setTimeout(r, 10));
    check(f.lost.includes(id), 'the browser is told (it unbinds the context)');
    check(f.items.some((i) => i[1] === 31 && i[3] === PP.ERROR_CONTEXT_LOST), 'the pending swap completes with PP_ERROR_CONTEXT_LOST');
    check(f.items.some((i) => i.ppp === 'call' && i.iface === 'PPP_Graphics_3D;1.0' && i.member === 'Graphics3DContextLost'), 'PPP_Graphics_3D.Graphics3DContextLost is queued');
    check(f.g3d('SwapBuffers', id, f.i32([32, 0, 1])) === PP.ERROR_CONTEXT_LOST, 'swapping a lost context (optional callback)');
    check(f.g3d('SwapBuffers', id, f.i32([33, 0, 0])) === PP.OK_COMPLETIONPENDING, 'a required callback…');
    check(!f.items.some((i) => i[1] === 33), '…waits for a frame (a plugin that swaps from it does not spin)');
    await f.nextFrame();
    check(f.items.some((i) => i[1] === 33 && i[3] === PP.ERROR_CONTEXT_LOST), '…then gets PP_ERROR_CONTEXT_LOST');
    f.gl('Clear', GL.COLOR_BUFFER_BIT);
    check(f.create() === 0, 'no new context while WebGL has not restored the canvas');
  },

  async 'bad pointers are guest faults naming the function'(check) {
    const f = fixture();
    f.create();
    const expectFault = (what, fn) => {
      try {
        fn();
        check(false, `${what}: no fault`);
      } catch (e) {
        check(e.name === 'GuestFault' && e.message.includes(what), `${what}: ${e.name}: ${e.message}`);
      }
    };
    expectFault('glGenBuffers', () => f.gl('GenBuffers', 1, 0xfffffff0));
    expectFault('glBufferData', () => f.gl('BufferData', GL.ARRAY_BUFFER, 64, 0x7ffffff0, GL.STATIC_DRAW));
    f.program();
    const loc = f.gl('GetUniformLocation', f.context().program.name, f.str('color'));
    expectFault('glUniform4fv', () => f.gl('Uniform4fv', loc, 1, 0xffffff00));
    f.gl('EnableVertexAttribArray', 0);
    f.gl('VertexAttribPointer', 0, 2, GL.FLOAT, 0, 0, 0xfffff000);
    expectFault('glDrawArrays', () => f.gl('DrawArrays', GL.TRIANGLES, 0, 3000));
    expectFault('glShaderSource', () => f.gl('ShaderSource', f.gl('CreateShader', GL.VERTEX_SHADER), 1, 0xfffffff8, 0));
  },

  async 'debug mode reports WebGL errors with the call, and keeps them for glGetError'(check) {
    const f = fixture({ debug: true });
    f.create();
    check(f.reports.some((r) => r.text.includes('debug')), 'the mode is announced');
    f.gl('Enable', 0x1234);
    const r = f.reports.find((x) => x.level === 'error');
    check(r && r.text.includes('GL_INVALID_ENUM') && r.text.includes('glEnable(0x1234)'), `reported: ${r?.text}`);
    f.gl('Uniform1f', 9, 0);
    check(f.reports.some((x) => x.level === 'warning' && x.text.includes('glUniform1f')), 'the layer’s own errors are warnings');
    check(near(f.errors(), [GL.INVALID_ENUM, GL.INVALID_OPERATION]), 'the plugin still gets them');
    f.gl('Enable', 0x1234);
    check(f.reports.filter((x) => x.level === 'error').length === 1, 'each (call, error) once');
  },
};
