// Fixed-function state: capabilities, blending, depth, stencil, masks,
// viewport and scissor, pixel store, hints, and the synchronisation calls.
// Each is the WebGL call of the same name (WebGL2 validates these as
// OpenGL ES does, and raises the same errors); the layer only widens its
// view of GLboolean arguments (the pexe passes them as i32) and keeps the
// pixel-store alignments, which size pixel data in guest memory.
//
//   void ActiveTexture(PP_Resource context, GLenum texture)
//   void BlendColor / BlendEquation / BlendEquationSeparate / BlendFunc / BlendFuncSeparate
//   void ClearColor / ClearDepthf / ClearStencil / ColorMask
//   void CullFace / DepthFunc / DepthMask / DepthRangef / FrontFace / LineWidth / PolygonOffset
//   void Enable / Disable (GLenum cap); GLboolean IsEnabled (GLenum cap)
//   void Hint(GLenum target, GLenum mode); void PixelStorei(GLenum pname, GLint param)
//   void SampleCoverage(GLclampf value, GLboolean invert)
//   void Scissor / Viewport (GLint x, GLint y, GLsizei width, GLsizei height)
//   void StencilFunc(Separate) / StencilMask(Separate) / StencilOp(Separate)
//   void Finish(); void Flush(); void ReleaseShaderCompiler()
//
// ReleaseShaderCompiler is a hint that resources of the compiler may be
// freed (ES 2.0 §2.10.3); WebGL has no such call, and it changes no state,
// so there is nothing to do beyond checking the context.

import { GL } from './enums.js';

export default (env) => {
  const GLES = 'PPB_OpenGLES2;1.0:';
  return {
    [`${GLES}ActiveTexture`](context, texture) {
      env.ctx(context)?.gl.activeTexture(texture);
    },
    [`${GLES}BlendColor`](context, r, g, b, a) {
      env.ctx(context)?.gl.blendColor(r, g, b, a);
    },
    [`${GLES}BlendEquation`](context, mode) {
      env.ctx(context)?.gl.blendEquation(mode);
    },
    [`${GLES}BlendEquationSeparate`](context, modeRGB, modeAlpha) {
      env.ctx(context)?.gl.blendEquationSeparate(modeRGB, modeAlpha);
    },
    [`${GLES}BlendFunc`](context, sfactor, dfactor) {
      env.ctx(context)?.gl.blendFunc(sfactor, dfactor);
    },
    [`${GLES}BlendFuncSeparate`](context, srcRGB, dstRGB, srcAlpha, dstAlpha) {
      env.ctx(context)?.gl.blendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha);
    },
    [`${GLES}ClearColor`](context, r, g, b, a) {
      env.ctx(context)?.gl.clearColor(r, g, b, a);
    },
    [`${GLES}ClearDepthf`](context, depth) {
      env.ctx(context)?.gl.clearDepth(depth);
    },
    [`${GLES}ClearStencil`](context, s) {
      env.ctx(context)?.gl.clearStencil(s);
    },
    [`${GLES}ColorMask`](context, r, g, b, a) {
      env.ctx(context)?.gl.colorMask(r !== 0, g !== 0, b !== 0, a !== 0);
    },
    [`${GLES}CullFace`](context, mode) {
      env.ctx(context)?.gl.cullFace(mode);
    },
    [`${GLES}DepthFunc`](context, func) {
      env.ctx(context)?.gl.depthFunc(func);
    },
    [`${GLES}DepthMask`](context, flag) {
      env.ctx(context)?.gl.depthMask(flag !== 0);
    },
    [`${GLES}DepthRangef`](context, zNear, zFar) {
      env.ctx(context)?.gl.depthRange(zNear, zFar);
    },
    [`${GLES}Disable`](context, cap) {
      env.ctx(context)?.gl.disable(cap);
    },
    [`${GLES}Enable`](context, cap) {
      env.ctx(context)?.gl.enable(cap);
    },
    [`${GLES}IsEnabled`](context, cap) {
      const c = env.ctx(context);
      return c && c.gl.isEnabled(cap) ? 1 : 0;
    },
    [`${GLES}FrontFace`](context, mode) {
      env.ctx(context)?.gl.frontFace(mode);
    },
    [`${GLES}Hint`](context, target, mode) {
      env.ctx(context)?.gl.hint(target, mode);
    },
    [`${GLES}LineWidth`](context, width) {
      env.ctx(context)?.gl.lineWidth(width);
    },
    [`${GLES}PixelStorei`](context, pname, param) {
      const c = env.ctx(context);
      if (!c) return;
      if (pname === GL.UNPACK_ALIGNMENT || pname === GL.PACK_ALIGNMENT) {
        if (param !== 1 && param !== 2 && param !== 4 && param !== 8) {
          c.error(GL.INVALID_VALUE);
          return;
        }
        if (pname === GL.UNPACK_ALIGNMENT) c.unpackAlignment = param;
        else c.packAlignment = param;
      }
      c.gl.pixelStorei(pname, param);
    },
    [`${GLES}PolygonOffset`](context, factor, units) {
      env.ctx(context)?.gl.polygonOffset(factor, units);
    },
    [`${GLES}SampleCoverage`](context, value, invert) {
      env.ctx(context)?.gl.sampleCoverage(value, invert !== 0);
    },
    [`${GLES}Scissor`](context, x, y, width, height) {
      env.ctx(context)?.gl.scissor(x, y, width, height);
    },
    [`${GLES}Viewport`](context, x, y, width, height) {
      env.ctx(context)?.gl.viewport(x, y, width, height);
    },
    [`${GLES}StencilFunc`](context, func, ref, mask) {
      env.ctx(context)?.gl.stencilFunc(func, ref, mask >>> 0);
    },
    [`${GLES}StencilFuncSeparate`](context, face, func, ref, mask) {
      env.ctx(context)?.gl.stencilFuncSeparate(face, func, ref, mask >>> 0);
    },
    [`${GLES}StencilMask`](context, mask) {
      env.ctx(context)?.gl.stencilMask(mask >>> 0);
    },
    [`${GLES}StencilMaskSeparate`](context, face, mask) {
      env.ctx(context)?.gl.stencilMaskSeparate(face, mask >>> 0);
    },
    [`${GLES}StencilOp`](context, fail, zfail, zpass) {
      env.ctx(context)?.gl.stencilOp(fail, zfail, zpass);
    },
    [`${GLES}StencilOpSeparate`](context, face, fail, zfail, zpass) {
      env.ctx(context)?.gl.stencilOpSeparate(face, fail, zfail, zpass);
    },
    [`${GLES}Finish`](context) {
      env.ctx(context)?.gl.finish();
    },
    [`${GLES}Flush`](context) {
      env.ctx(context)?.gl.flush();
    },
    [`${GLES}ReleaseShaderCompiler`](context) {
      env.ctx(context);
    },
  };
};
