// Pixel data in guest memory: how many bytes an image of a format and type
// takes under the pixel-store alignment (ES 2.0 §3.6.2: rows start at
// multiples of the alignment; the last row is not padded), the typed view
// WebGL wants for it, and how an ES 2.0 texture format (with the OES
// float, half-float, depth and packed depth-stencil extensions, and
// EXT_texture_rg) becomes WebGL2's: WebGL2 keeps ES 2.0's unsized formats
// for bytes and packed 16-bit types, and wants sized internal formats for
// the rest.

import { GL } from './enums.js';

/** Components per pixel of a format. */
export function components(format) {
  switch (format) {
    case GL.ALPHA:
    case GL.LUMINANCE:
    case GL.DEPTH_COMPONENT:
    case GL.RED:
    case GL.DEPTH_STENCIL:
      return 1;
    case GL.LUMINANCE_ALPHA:
    case GL.RG:
      return 2;
    case GL.RGB:
    case GL.SRGB_EXT:
      return 3;
    case GL.RGBA:
    case GL.BGRA_EXT:
    case GL.SRGB_ALPHA_EXT:
      return 4;
    default:
      return 0;
  }
}

/** Bytes per pixel of (format, type), 0 when the pair is not a pixel type. */
export function bytesPerPixel(format, type) {
  switch (type) {
    case GL.UNSIGNED_BYTE:
      return components(format);
    case GL.UNSIGNED_SHORT_5_6_5:
    case GL.UNSIGNED_SHORT_4_4_4_4:
    case GL.UNSIGNED_SHORT_5_5_5_1:
      return 2;
    case GL.UNSIGNED_SHORT:
      return 2 * components(format);
    case GL.UNSIGNED_INT:
    case GL.UNSIGNED_INT_24_8:
    case GL.UNSIGNED_INT_2_10_10_10_REV:
      return 4 * (type === GL.UNSIGNED_INT ? components(format) : 1);
    case GL.FLOAT:
      return 4 * components(format);
    case GL.HALF_FLOAT:
    case GL.HALF_FLOAT_OES:
      return 2 * components(format);
    default:
      return 0;
  }
}

/** Bytes of a width × height image in memory (0 for an empty one). */
export function imageBytes(width, height, format, type, alignment) {
  const bpp = bytesPerPixel(format, type);
  if (width <= 0 || height <= 0 || bpp === 0) return 0;
  const row = width * bpp;
  const stride = Math.ceil(row / alignment) * alignment;
  return stride * (height - 1) + row;
}

/** [bytes per element, typed array kind] WebGL requires for pixel `type`. */
export function pixelArrayKind(type) {
  switch (type) {
    case GL.UNSIGNED_BYTE:
      return [1, Uint8Array];
    case GL.UNSIGNED_SHORT:
    case GL.UNSIGNED_SHORT_5_6_5:
    case GL.UNSIGNED_SHORT_4_4_4_4:
    case GL.UNSIGNED_SHORT_5_5_5_1:
    case GL.HALF_FLOAT:
    case GL.HALF_FLOAT_OES:
      return [2, Uint16Array];
    case GL.FLOAT:
      return [4, Float32Array];
    case GL.UNSIGNED_INT:
    case GL.UNSIGNED_INT_24_8:
    case GL.UNSIGNED_INT_2_10_10_10_REV:
      return [4, Uint32Array];
    default:
      return [1, Uint8Array];
  }
}

const SIZED_FLOAT = new Map([
  [GL.RGBA, GL.RGBA32F],
  [GL.RGB, GL.RGB32F],
  [GL.RED, GL.R32F],
  [GL.RG, GL.RG32F],
]);
const SIZED_HALF = new Map([
  [GL.RGBA, GL.RGBA16F],
  [GL.RGB, GL.RGB16F],
  [GL.RED, GL.R16F],
  [GL.RG, GL.RG16F],
]);

/**
 * WebGL2's (internalformat, format, type) for an ES 2.0 TexImage2D. Pairs
 * WebGL2 has no equivalent for pass through unchanged, so WebGL reports the
 * error an ES 2.0 implementation without that extension would.
 */
export function texImageFormat(internalformat, format, type) {
  if (type === GL.HALF_FLOAT_OES) type = GL.HALF_FLOAT;
  if (internalformat !== format) return [internalformat, format, type];
  switch (type) {
    case GL.FLOAT:
      return [SIZED_FLOAT.get(format) ?? internalformat, format, type];
    case GL.HALF_FLOAT:
      return [SIZED_HALF.get(format) ?? internalformat, format, type];
    case GL.UNSIGNED_BYTE:
      if (format === GL.RED) return [GL.R8, format, type];
      if (format === GL.RG) return [GL.RG8, format, type];
      if (format === GL.SRGB_ALPHA_EXT) return [GL.SRGB8_ALPHA8, GL.RGBA, type];
      return [internalformat, format, type];
    case GL.UNSIGNED_SHORT:
      return format === GL.DEPTH_COMPONENT ? [GL.DEPTH_COMPONENT16, format, type] : [internalformat, format, type];
    case GL.UNSIGNED_INT:
      return format === GL.DEPTH_COMPONENT ? [GL.DEPTH_COMPONENT24, format, type] : [internalformat, format, type];
    case GL.UNSIGNED_INT_24_8:
      return format === GL.DEPTH_STENCIL ? [GL.DEPTH24_STENCIL8, format, type] : [internalformat, format, type];
    default:
      return [internalformat, format, type];
  }
}

/** The type WebGL2 knows for an ES 2.0 pixel type (HALF_FLOAT_OES differs). */
export function pixelType(type) {
  return type === GL.HALF_FLOAT_OES ? GL.HALF_FLOAT : type;
}

/** A renderbuffer format of ES 2.0 or its extensions in WebGL2's terms. */
export function renderbufferFormat(internalformat) {
  // OES_depth32 has no WebGL2 equivalent of the same kind; 24 bits is the
  // deepest fixed-point depth buffer there is.
  if (internalformat === GL.DEPTH_COMPONENT32_OES) return GL.DEPTH_COMPONENT24;
  return internalformat;
}
