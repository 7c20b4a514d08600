// Shader source: OpenGL ES 2.0 programs are written in GLSL ES 1.00, which
// WebGL2 compiles as it is — except for the ES 2.0 extensions WebGL2 only
// offers through GLSL ES 3.00: OES_standard_derivatives (dFdx, dFdy,
// fwidth), EXT_shader_texture_lod (texture2DLodEXT, …), EXT_frag_depth
// (gl_FragDepthEXT) and EXT_draw_buffers (gl_FragData[i] for i > 0).
// A shader that enables one of them is rewritten as GLSL ES 3.00, and so
// is every shader linked with such a shader (versions must match):
//
// - `#version 300 es` first; the `#extension` lines of those four go, and
//   their macros stay defined (as PEXE_GL_…: 3.00 reserves GL_ names), so
//   `#ifdef GL_OES_standard_derivatives` keeps its meaning;
// - identifiers that GLSL ES 3.00 reserves or uses for built-ins but 1.00
//   left free (`texture`, `sample`, `layout`, `round`, …) get a `pexe_`
//   prefix, before anything else is renamed;
// - `attribute` → `in`, `varying` → `out` (vertex) or `in` (fragment);
//   texture2D, texture2DProj, textureCube and their Lod/Grad/EXT forms →
//   texture, textureProj, textureLod, textureGrad, textureProjLod;
//   gl_FragDepthEXT → gl_FragDepth;
// - gl_FragColor and gl_FragData become declared outputs (`pexe_FragColor`,
//   `pexe_FragData[gl_MaxDrawBuffers]`).
//
// Every other shader is passed to WebGL untouched. glGetShaderSource
// answers the plugin's own source.

/** The ES 2.0 shader extensions that need GLSL ES 3.00 under WebGL2. */
export const UPGRADE_EXTENSIONS = Object.freeze([
  'GL_OES_standard_derivatives',
  'GL_EXT_shader_texture_lod',
  'GL_EXT_frag_depth',
  'GL_EXT_draw_buffers',
]);

const EXTENSION_LINE = new RegExp(`^[ \\t]*#[ \\t]*extension[ \\t]+(${UPGRADE_EXTENSIONS.join('|')})[ \\t]*:[^\\n]*$`, 'gm');
const VERSION_LINE = /^[ \t]*#[ \t]*version[^\n]*$/m;

/** Words GLSL ES 3.00 reserves or defines that 1.00 shaders may use as names. */
const RESERVED_300 = [
  'layout', 'centroid', 'smooth', 'case', 'uint', 'uvec2', 'uvec3', 'uvec4',
  'mat2x2', 'mat2x3', 'mat2x4', 'mat3x2', 'mat3x3', 'mat3x4', 'mat4x2', 'mat4x3', 'mat4x4',
  'samplerCubeShadow', 'sampler2DArray', 'sampler2DArrayShadow', 'isampler2D', 'isampler3D',
  'isamplerCube', 'isampler2DArray', 'usampler2D', 'usampler3D', 'usamplerCube', 'usampler2DArray',
  'coherent', 'restrict', 'readonly', 'writeonly', 'resource', 'atomic_uint', 'noperspective',
  'patch', 'sample', 'subroutine', 'common', 'partition', 'active', 'filter',
  'texture', 'textureProj', 'textureLod', 'textureOffset', 'textureProjOffset', 'textureLodOffset',
  'textureProjLod', 'textureProjLodOffset', 'textureGrad', 'textureGradOffset', 'textureProjGrad',
  'textureProjGradOffset', 'texelFetch', 'texelFetchOffset', 'textureSize',
  'round', 'roundEven', 'trunc', 'isnan', 'isinf', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh',
  'modf', 'floatBitsToInt', 'floatBitsToUint', 'intBitsToFloat', 'uintBitsToFloat',
  'packSnorm2x16', 'unpackSnorm2x16', 'packUnorm2x16', 'unpackUnorm2x16', 'packHalf2x16',
  'unpackHalf2x16', 'outerProduct', 'transpose', 'determinant', 'inverse',
];

const BUILTIN_RENAMES = [
  ['texture2DLodEXT', 'textureLod'],
  ['texture2DProjLodEXT', 'textureProjLod'],
  ['textureCubeLodEXT', 'textureLod'],
  ['texture2DGradEXT', 'textureGrad'],
  ['texture2DProjGradEXT', 'textureProjGrad'],
  ['textureCubeGradEXT', 'textureGrad'],
  ['texture2DLod', 'textureLod'],
  ['texture2DProjLod', 'textureProjLod'],
  ['textureCubeLod', 'textureLod'],
  ['texture2DProj', 'textureProj'],
  ['texture2D', 'texture'],
  ['textureCube', 'texture'],
  ['gl_FragDepthEXT', 'gl_FragDepth'],
];

const word = (w) => new RegExp(`\\b${w}\\b`, 'g');
const RESERVED_RE = new RegExp(`\\b(${RESERVED_300.join('|')})\\b`, 'g');

/** Whether `source` enables an extension that needs GLSL ES 3.00. */
export function needsUpgrade(source) {
  EXTENSION_LINE.lastIndex = 0;
  return EXTENSION_LINE.test(source);
}

/** `source` (GLSL ES 1.00) rewritten as GLSL ES 3.00 (see the module doc). */
export function upgradeShader(source, fragment) {
  const enabled = new Set();
  let s = source.replace(EXTENSION_LINE, (line, name) => {
    enabled.add(name);
    return '';
  });
  s = s.replace(VERSION_LINE, '');
  s = s.replace(RESERVED_RE, 'pexe_$1');
  for (const [from, to] of BUILTIN_RENAMES) s = s.replace(word(from), to);
  s = s.replace(word('attribute'), 'in');
  s = s.replace(word('varying'), fragment ? 'in' : 'out');
  const head = ['#version 300 es'];
  for (const name of enabled) {
    s = s.replace(word(name), `PEXE_${name}`);
    head.push(`#define PEXE_${name} 1`);
  }
  if (fragment) {
    if (/\bgl_FragData\b/.test(s)) {
      s = s.replace(word('gl_FragData'), 'pexe_FragData');
      head.push('out highp vec4 pexe_FragData[gl_MaxDrawBuffers];');
    } else if (/\bgl_FragColor\b/.test(s)) {
      s = s.replace(word('gl_FragColor'), 'pexe_FragColor');
      head.push('out highp vec4 pexe_FragColor;');
    }
  }
  return `${head.join('\n')}\n${s}`;
}
