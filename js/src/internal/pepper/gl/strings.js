// What a context says about itself: glGetString, the extension list, and
// EnableFeatureCHROMIUM (PPB_OpenGLES2ChromiumEnableFeature;1.0); plus the
// set-up every new context gets and the reset a reused surface gets.
//
//   const GLubyte* GetString(PP_Resource context, GLenum name)
//   GLboolean EnableFeatureCHROMIUM(PP_Resource context, const char* feature)
//
// The strings are Chromium's for a Pepper (OpenGL ES 2.0) context
// (gpu/command_buffer/service/gles2_cmd_decoder.cc): GL_VERSION
// "OpenGL ES 2.0 Chromium", GL_SHADING_LANGUAGE_VERSION "OpenGL ES GLSL ES
// 1.0 Chromium", GL_VENDOR and GL_RENDERER "Chromium". GL_EXTENSIONS lists
// only what this layer really provides over the WebGL2 context at hand:
// WebGL2 features ES 2.0 had as extensions (instancing, vertex array
// objects, blits, multisampled renderbuffers, 32-bit indices, packed
// depth-stencil, depth, float and half-float textures, occlusion queries,
// min/max blending, R/RG textures, multiple draw buffers), the GLSL ES 1.00
// extensions WebGL2 offers only to GLSL ES 3.00 (derivatives, texture LOD,
// frag depth, draw buffers: shader-source.js rewrites such shaders),
// CHROMIUM_map_sub (emulated), and what
// WebGL extensions the browser offers (compressed formats, anisotropic
// filtering, float render targets). The strings live in guest memory from
// the browser's heap, one per context and name, freed with the context.
//
// EnableFeatureCHROMIUM answers GL_FALSE for every feature: Chromium knew
// "pepper3d_allow_buffers_on_multiple_targets" and
// "pepper3d_support_fixed_attribs", which WebGL does not have (a buffer
// bound to one target cannot move to the other; GL_FIXED attributes), and
// this layer does not emulate them yet.

import { GL } from './enums.js';

/** Chromium's strings for an OpenGL ES 2.0 context. */
export const STRINGS = Object.freeze({
  [GL.VENDOR]: 'Chromium',
  [GL.RENDERER]: 'Chromium',
  [GL.VERSION]: 'OpenGL ES 2.0 Chromium',
  [GL.SHADING_LANGUAGE_VERSION]: 'OpenGL ES GLSL ES 1.0 Chromium',
});

/** GLES2 extensions WebGL2 provides in its core (with this layer's translation). */
const CORE_EXTENSIONS = [
  'GL_ANGLE_instanced_arrays',
  'GL_OES_vertex_array_object',
  'GL_EXT_framebuffer_blit',
  'GL_CHROMIUM_framebuffer_multisample',
  'GL_EXT_framebuffer_multisample',
  'GL_OES_element_index_uint',
  'GL_OES_texture_npot',
  'GL_OES_rgb8_rgba8',
  'GL_OES_packed_depth_stencil',
  'GL_OES_depth24',
  'GL_OES_depth_texture',
  'GL_ANGLE_depth_texture',
  'GL_CHROMIUM_depth_texture',
  'GL_OES_texture_float',
  'GL_OES_texture_half_float',
  'GL_OES_texture_half_float_linear',
  'GL_EXT_occlusion_query_boolean',
  'GL_EXT_blend_minmax',
  'GL_EXT_texture_rg',
  'GL_CHROMIUM_map_sub',
  // GLSL ES 1.00 extensions, through the shaders' rewrite as 3.00 (shader-source.js).
  'GL_OES_standard_derivatives',
  'GL_EXT_shader_texture_lod',
  'GL_EXT_frag_depth',
  'GL_EXT_draw_buffers',
];

/** WebGL extension → the GLES2 extensions it provides. */
const OPTIONAL_EXTENSIONS = [
  ['OES_texture_float_linear', ['GL_OES_texture_float_linear']],
  ['EXT_color_buffer_float', ['GL_EXT_color_buffer_float']],
  ['EXT_color_buffer_half_float', ['GL_EXT_color_buffer_half_float']],
  ['EXT_texture_filter_anisotropic', ['GL_EXT_texture_filter_anisotropic']],
  [
    'WEBGL_compressed_texture_s3tc',
    ['GL_EXT_texture_compression_dxt1', 'GL_EXT_texture_compression_s3tc', 'GL_ANGLE_texture_compression_dxt3', 'GL_ANGLE_texture_compression_dxt5'],
  ],
  ['WEBGL_compressed_texture_etc1', ['GL_OES_compressed_ETC1_RGB8_texture']],
];

/** Enables the WebGL extensions a new context uses and fixes its GL_EXTENSIONS. */
export function setupContext(c) {
  const list = [...CORE_EXTENSIONS];
  for (const [webgl, gles] of OPTIONAL_EXTENSIONS) {
    const ext = c.gl.getExtension(webgl);
    if (ext) {
      c.ext[webgl] = ext;
      list.push(...gles);
    }
  }
  c.extensions = list.join(' ');
}

/** OpenGL ES 2.0's initial state, for a WebGL context a new Graphics3D reuses. */
export function resetContext(c) {
  const gl = c.gl;
  gl.bindVertexArray(null);
  for (let i = 0; i < c.maxAttribs; i++) {
    gl.disableVertexAttribArray(i);
    gl.vertexAttribDivisor(i, 0);
    gl.vertexAttrib4f(i, 0, 0, 0, 1);
  }
  gl.useProgram(null);
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, null);
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.bindRenderbuffer(gl.RENDERBUFFER, null);
  const units = gl.getParameter(gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS);
  for (let i = 0; i < units; i++) {
    gl.activeTexture(gl.TEXTURE0 + i);
    gl.bindTexture(gl.TEXTURE_2D, null);
    gl.bindTexture(gl.TEXTURE_CUBE_MAP, null);
  }
  gl.activeTexture(gl.TEXTURE0);
  for (const cap of [gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.POLYGON_OFFSET_FILL, gl.SAMPLE_ALPHA_TO_COVERAGE, gl.SAMPLE_COVERAGE, gl.SCISSOR_TEST, gl.STENCIL_TEST]) {
    gl.disable(cap);
  }
  gl.enable(gl.DITHER);
  gl.blendColor(0, 0, 0, 0);
  gl.blendEquation(gl.FUNC_ADD);
  gl.blendFunc(gl.ONE, gl.ZERO);
  gl.clearColor(0, 0, 0, 0);
  gl.clearDepth(1);
  gl.clearStencil(0);
  gl.colorMask(true, true, true, true);
  gl.cullFace(gl.BACK);
  gl.depthFunc(gl.LESS);
  gl.depthMask(true);
  gl.depthRange(0, 1);
  gl.frontFace(gl.CCW);
  gl.hint(gl.GENERATE_MIPMAP_HINT, gl.DONT_CARE);
  gl.lineWidth(1);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
  gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
  gl.polygonOffset(0, 0);
  gl.sampleCoverage(1, false);
  gl.stencilFunc(gl.ALWAYS, 0, 0xffffffff);
  gl.stencilMask(0xffffffff);
  gl.stencilOp(gl.KEEP, gl.KEEP, gl.KEEP);
  gl.scissor(0, 0, c.canvas.width, c.canvas.height);
  gl.viewport(0, 0, c.canvas.width, c.canvas.height);
  while (gl.getError() !== gl.NO_ERROR);
}

/** Deletes every WebGL object context `c` made (its resource is gone). */
export function releaseObjects(c) {
  const gl = c.gl;
  for (const r of c.buffers.values()) gl.deleteBuffer(r.obj);
  for (const r of c.textures.values()) gl.deleteTexture(r.obj);
  for (const r of c.framebuffers.values()) gl.deleteFramebuffer(r.obj);
  for (const r of c.renderbuffers.values()) gl.deleteRenderbuffer(r.obj);
  for (const r of c.programs.values()) {
    if (r.kind === 'program') gl.deleteProgram(r.obj);
    else gl.deleteShader(r.obj);
  }
  for (const r of c.queries.values()) if (r.obj) gl.deleteQuery(r.obj);
  for (const r of c.vertexArrays.values()) gl.deleteVertexArray(r.obj);
  if (c.scratchVertex) gl.deleteBuffer(c.scratchVertex);
  if (c.scratchIndex) gl.deleteBuffer(c.scratchIndex);
  c.buffers.clear();
  c.textures.clear();
  c.framebuffers.clear();
  c.renderbuffers.clear();
  c.programs.clear();
  c.queries.clear();
  c.vertexArrays.clear();
  c.scratchVertex = null;
  c.scratchIndex = null;
}

export default (env) => {
  const views = env.views;
  return {
    'PPB_OpenGLES2;1.0:GetString'(context, name) {
      const c = env.ctx(context);
      if (!c) return 0;
      name >>>= 0;
      const have = c.strings.get(name);
      if (have !== undefined) return have;
      const text = name === GL.EXTENSIONS ? c.extensions : STRINGS[name];
      if (text === undefined) {
        c.error(GL.INVALID_ENUM);
        return 0;
      }
      const bytes = new TextEncoder().encode(text);
      const ptr = env.alloc(bytes.length + 1);
      if (ptr === 0) {
        c.error(GL.OUT_OF_MEMORY);
        return 0;
      }
      views.check('glGetString', ptr, bytes.length + 1);
      views.u8.set(bytes, ptr);
      views.u8[ptr + bytes.length] = 0;
      c.strings.set(name, ptr);
      return ptr;
    },
    'PPB_OpenGLES2ChromiumEnableFeature;1.0:EnableFeatureCHROMIUM'(context, feature) {
      const c = env.ctx(context);
      if (!c) return 0;
      const name = views.cString('glEnableFeatureCHROMIUM', feature >>> 0, 256);
      env.report('warning', `glEnableFeatureCHROMIUM("${name}"): not available over WebGL (answered GL_FALSE)`);
      return 0;
    },
  };
};
