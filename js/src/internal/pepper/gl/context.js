// One Graphics3D context on the thread that owns it: the WebGL2 context it
// draws with and everything OpenGL ES 2.0 keeps that WebGL does not.
//
// - Names. GLES2 names objects with integers the application may choose
//   (glBindBuffer with a name never generated creates the object, as
//   Chromium's command buffer did: bind_generates_resources); WebGL has
//   objects. Each kind has a table name → record ({ name, obj, … }), and
//   `nameOf` maps a WebGL object back (getters that answer a binding).
//   Programs and shaders share one namespace, as in GL.
// - Errors. glGetError reports the errors this layer detected itself (GLES2
//   rules WebGL does not check the same way, or checks for objects we never
//   pass it), first, then WebGL's.
// - Vertex array state (the default one and each OES vertex array object):
//   attribute pointers may be client memory (ES2's client-side arrays),
//   which WebGL has no notion of, so the layer keeps the full pointer state
//   and points WebGL at scratch buffers when it draws (draw.js).
// - Pixel store alignments (for the sizes of pixel data in guest memory),
//   strings handed out by glGetString, mapped CHROMIUM ranges.

import { GL } from './enums.js';

/** Attribute pointer state of one vertex attribute. */
export class AttribState {
  constructor() {
    this.enabled = false;
    this.size = 4;
    this.type = GL.FLOAT;
    this.normalized = false;
    this.stride = 0;
    /** The buffer record the pointer refers to, or null: `pointer` is then a guest address. */
    this.buffer = null;
    this.pointer = 0;
    this.divisor = 0;
    /** Enabled and reading client memory (kept by VertexArrayState.update). */
    this.client = false;
  }
}

/** A vertex array object's state (the default one has `obj` null). */
export class VertexArrayState {
  constructor(name, obj, count) {
    this.name = name;
    this.obj = obj;
    this.attribs = Array.from({ length: count }, () => new AttribState());
    /** Bound ELEMENT_ARRAY_BUFFER record, or null. */
    this.elementBuffer = null;
    /** How many attributes are enabled and read client memory. */
    this.clientCount = 0;
  }

  /** Call after attribute `index`'s `enabled` or `buffer` changed. */
  update(index) {
    const a = this.attribs[index];
    const client = a.enabled && a.buffer === null;
    if (client !== a.client) {
      a.client = client;
      this.clientCount += client ? 1 : -1;
    }
  }
}

export class GLContext {
  /**
   * @param {object} o
   * @param {number} o.id          the Graphics3D resource
   * @param {OffscreenCanvas} o.canvas
   * @param {WebGL2RenderingContext} o.gl
   * @param {object} o.attribs     parsed creation attributes
   * @param {boolean} o.surface    whether the canvas is the page's surface
   */
  constructor({ id, canvas, gl, attribs, surface }) {
    this.id = id;
    this.canvas = canvas;
    this.gl = gl;
    this.attribs = attribs;
    this.surface = surface;
    this.lost = false;
    this.destroyed = false;
    /** The SwapBuffers callback waiting for its frame: { func, userData } or null. */
    this.swapPending = null;
    /** GL errors this layer recorded, oldest first (one per code, as GL flags). */
    this.errors = [];
    /** How many errors `error` recorded (debug.js tells them apart from WebGL's). */
    this.recorded = 0;

    this.buffers = new Map();
    this.textures = new Map();
    this.framebuffers = new Map();
    this.renderbuffers = new Map();
    /** Programs and shaders: one namespace. */
    this.programs = new Map();
    this.queries = new Map();
    this.vertexArrays = new Map();
    this.nextName = 1;
    /** WebGL object → GL name. */
    this.names = new WeakMap();

    this.maxAttribs = gl.getParameter(GL.MAX_VERTEX_ATTRIBS);
    this.defaultVao = new VertexArrayState(0, null, this.maxAttribs);
    this.vao = this.defaultVao;
    /** Bound ARRAY_BUFFER record, or null. */
    this.arrayBuffer = null;
    /** The current program's record, or null. */
    this.program = null;
    this.unpackAlignment = 4;
    this.packAlignment = 4;
    /** Active query records by target. */
    this.activeQueries = new Map();

    /** glGetString answers: GLenum → guest address (freed with the context). */
    this.strings = new Map();
    /** CHROMIUM map-sub ranges: guest address → { kind, … }. */
    this.mapped = new Map();
    /** EnableFeatureCHROMIUM features turned on. */
    this.features = new Set();

    // Scratch buffers for client-side arrays and indices (draw.js).
    this.scratchVertex = null;
    this.scratchVertexSize = 0;
    this.scratchVertexUsed = 0;
    this.scratchIndex = null;
    this.scratchIndexSize = 0;
    this.scratchIndexUsed = 0;

    /** WebGL extensions enabled at creation (name → object). */
    this.ext = Object.create(null);
    /** GL_EXTENSIONS as reported (strings.js). */
    this.extensions = '';
  }

  /** Records GL error `code` (GL keeps one flag per code). */
  error(code) {
    this.recorded++;
    if (!this.errors.includes(code)) this.errors.push(code);
  }

  /** A fresh name not in use by any table (Gen* and Create*). */
  genName(table) {
    let n = this.nextName;
    while (table.has(n)) n++;
    this.nextName = n + 1;
    return n;
  }

  /** The object names the getters report for a WebGL object (0 for none). */
  nameOf(obj) {
    return obj ? (this.names.get(obj) ?? 0) : 0;
  }

  /** A program record by name, else INVALID_VALUE (shader names: INVALID_OPERATION). */
  programRecord(name) {
    const r = this.programs.get(name >>> 0);
    if (!r) {
      this.error(GL.INVALID_VALUE);
      return null;
    }
    if (r.kind !== 'program') {
      this.error(GL.INVALID_OPERATION);
      return null;
    }
    return r;
  }

  /** A shader record by name, else INVALID_VALUE (program names: INVALID_OPERATION). */
  shaderRecord(name) {
    const r = this.programs.get(name >>> 0);
    if (!r) {
      this.error(GL.INVALID_VALUE);
      return null;
    }
    if (r.kind !== 'shader') {
      this.error(GL.INVALID_OPERATION);
      return null;
    }
    return r;
  }

  /** Called at SwapBuffers: scratch space is reused from the next frame on. */
  endFrame() {
    this.scratchVertexUsed = 0;
    this.scratchIndexUsed = 0;
  }
}
