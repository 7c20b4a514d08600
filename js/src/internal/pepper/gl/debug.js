// The GL layer's debug and profile modes (startPlugin options `glDebug`,
// `glProfile`), as wrappers around the thread-served implementations so
// that the normal path carries no checks.
//
// Debug: after every OpenGL ES call, WebGL's error flag is read. An error
// there means WebGL refused a call this layer made for the plugin: either
// the plugin's own GL error (Chrome would have flagged it too) or a
// translation this layer got wrong — exactly what the mode is for. Each is
// reported to the embedder's log (source 'pexe-gl', level 'error') with the
// call and its arguments, the first time that (call, error) pair occurs,
// and kept for the plugin's glGetError as GL would have. Errors the layer
// records itself by ES 2.0's rules are reported as warnings: they are the
// plugin's (a name never generated, a location never handed out, …).
//
// Profile: the time spent in the GL layer (the thread-served calls,
// WebGL's work inside them included), the part of it spent inside WebGL
// calls, and the number of calls, per frame (between SwapBuffers), logged
// about every 2 s as one JSON line (source 'pexe-gl-profile'), with the size
// of the guest's memory.

import { GL } from './enums.js';

const ERROR_NAMES = {
  [GL.INVALID_ENUM]: 'GL_INVALID_ENUM',
  [GL.INVALID_VALUE]: 'GL_INVALID_VALUE',
  [GL.INVALID_OPERATION]: 'GL_INVALID_OPERATION',
  [GL.OUT_OF_MEMORY]: 'GL_OUT_OF_MEMORY',
  [GL.INVALID_FRAMEBUFFER_OPERATION]: 'GL_INVALID_FRAMEBUFFER_OPERATION',
  [GL.CONTEXT_LOST]: 'GL_CONTEXT_LOST',
};

const MAX_REPORTS = 50;
/** Profile lines are logged about this often (ms). */
const PROFILE_EVERY_MS = 2000;

const fmtError = (e) => `${ERROR_NAMES[e] ?? 'error'} (0x${e.toString(16)})`;
const fmtCall = (key, args) => `gl${key.slice(key.indexOf(':') + 1)}(${args.map((a) => (typeof a === 'number' && Number.isInteger(a) && a > 255 ? `0x${(a >>> 0).toString(16)}` : String(a))).join(', ')})`;

function debugWrap(env, key, fn) {
  return (context, ...args) => {
    const c = env.ctx(context);
    const before = c ? c.recorded : 0;
    const r = fn(context, ...args);
    if (c && !c.destroyed && !c.lost) {
      const e = c.gl.getError();
      if (e !== GL.NO_ERROR && e !== GL.CONTEXT_LOST) {
        c.error(e);
        c.recorded--;
        env.debugReport('webgl', key, args, e);
      }
      if (c.recorded !== before) env.debugReport('gles2', key, args, c.errors[c.errors.length - 1]);
    }
    return r;
  };
}

/** Per-frame timing of the GL layer (glProfile). */
class Profile {
  constructor(env) {
    this.env = env;
    this.layerMs = 0;
    this.webglMs = 0;
    this.calls = 0;
    this.frames = 0;
    this.frameStartedAt = 0;
    this.cpuMs = 0;
    this.windowStart = performance.now();
    /** key → { ms, calls } of each wrapped function in the current window. */
    this.byKey = new Map();
  }

  frameStart() {
    this.frameStartedAt = performance.now();
  }

  frameEnd() {
    if (this.frameStartedAt) this.cpuMs += performance.now() - this.frameStartedAt;
    this.frames++;
    const now = performance.now();
    if (now - this.windowStart < PROFILE_EVERY_MS) return;
    const s = {
      frames: this.frames,
      fps: (1000 * this.frames) / (now - this.windowStart),
      layerMsPerFrame: this.layerMs / this.frames,
      webglMsPerFrame: this.webglMs / this.frames,
      ownMsPerFrame: (this.layerMs - this.webglMs) / this.frames,
      callsPerFrame: this.calls / this.frames,
      frameCpuMs: this.cpuMs / this.frames,
      guestMemoryBytes: this.env.thread.memory.buffer.byteLength,
      // The five calls that took longest: [name, ms per frame, calls per frame].
      top: [...this.byKey]
        .filter(([, v]) => v.calls > 0)
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, 5)
        .map(([k, v]) => [k.slice(k.indexOf(':') + 1), +(v.ms / this.frames).toFixed(4), +(v.calls / this.frames).toFixed(1)]),
    };
    for (const v of this.byKey.values()) {
      v.ms = 0;
      v.calls = 0;
    }
    this.env.report('log', `profile ${JSON.stringify(s)}`, 'pexe-gl-profile');
    this.frames = 0;
    this.layerMs = 0;
    this.webglMs = 0;
    this.calls = 0;
    this.cpuMs = 0;
    this.windowStart = now;
  }

  wrap(key, fn) {
    const entry = { ms: 0, calls: 0 };
    this.byKey.set(key, entry);
    return (...args) => {
      const t0 = performance.now();
      try {
        return fn(...args);
      } finally {
        const dt = performance.now() - t0;
        this.layerMs += dt;
        this.calls++;
        entry.ms += dt;
        entry.calls++;
      }
    };
  }

  /** Times every WebGL method of `gl` (own properties shadow the prototype's). */
  watchWebGL(gl) {
    const proto = Object.getPrototypeOf(gl);
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (typeof d.value !== 'function' || name === 'constructor') continue;
      const method = d.value;
      const self = this;
      Object.defineProperty(gl, name, {
        value(...args) {
          const t0 = performance.now();
          try {
            return method.apply(gl, args);
          } finally {
            self.webglMs += performance.now() - t0;
          }
        },
      });
    }
  }
}

/**
 * The implementations `impls` (key → fn) wrapped for the modes `env`'s
 * options ask for; unchanged when none does.
 */
export function instrument(env, impls) {
  const { debug, profile } = env.options;
  if (!debug && !profile) return impls;
  if (debug) {
    const seen = new Set();
    env.debugReport = (kind, key, args, e) => {
      const id = `${kind} ${key} ${e}`;
      if (seen.has(id)) return;
      seen.add(id);
      env.debugErrors.push({ kind, call: fmtCall(key, args), error: e });
      if (env.debugErrors.length > MAX_REPORTS) return;
      if (kind === 'webgl') env.report('error', `WebGL raised ${fmtError(e)} in ${fmtCall(key, args)}`);
      else env.report('warning', `${fmtError(e)} by OpenGL ES 2.0 rules in ${fmtCall(key, args)} (the plugin's error)`);
    };
  }
  if (profile) env.profile = new Profile(env);
  env.report('log', `GL layer modes: ${[debug && 'debug (WebGL errors checked after every call)', profile && 'profile'].filter(Boolean).join(', ')}`);
  const out = Object.create(null);
  for (const [key, fn] of Object.entries(impls)) {
    let f = fn;
    if (debug && key.startsWith('PPB_OpenGLES2')) f = debugWrap(env, key, f);
    if (profile) f = env.profile.wrap(key, f);
    out[key] = f;
  }
  return out;
}
