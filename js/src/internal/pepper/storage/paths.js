// Paths inside a file system: what every store takes, and the one place
// they are checked, so no backend ever sees a name that could leave the
// file system's root.
//
// A store path is absolute within its file system: "/" is the root,
// "/Maelstrom/Images/x.bmp" a file. `components(path)` splits it, drops
// empty and "." components ("//a/./b" is "/a/b") and refuses, with
// StoreError(INVALID_PATH): a relative path, a ".." component (the
// plugin's PPB_FileRef.Create refuses those before, and the page's API
// resolves them first, clamped at the root, as Blink did), a backslash or
// NUL (Blink's DOMFilePath::IsValidPath and OPFS refuse them too), a name
// longer than MAX_NAME_BYTES, and more than MAX_DEPTH components or
// MAX_PATH_BYTES in all.

import { CODE, fail } from './errors.js';

/** Longest name (one component), in UTF-8 bytes, as most host file systems allow. */
export const MAX_NAME_BYTES = 255;
/** Longest path, in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4096;
/** Most components in a path. */
export const MAX_DEPTH = 256;

const encoder = new TextEncoder();

/** Whether `name` may be one component of a path. */
export function validName(name) {
  return (
    typeof name === 'string' &&
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !name.includes('\0') &&
    encoder.encode(name).length <= MAX_NAME_BYTES
  );
}

/** The components of absolute path `path` (see the file's header). */
export function components(path) {
  if (typeof path !== 'string' || !path.startsWith('/')) fail(CODE.INVALID_PATH, `not an absolute path: ${JSON.stringify(path)}`);
  if (encoder.encode(path).length > MAX_PATH_BYTES) fail(CODE.INVALID_PATH, 'path too long');
  const out = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (!validName(part)) fail(CODE.INVALID_PATH, `invalid name ${JSON.stringify(part)} in ${JSON.stringify(path)}`);
    out.push(part);
  }
  if (out.length > MAX_DEPTH) fail(CODE.INVALID_PATH, 'path too deep');
  return out;
}

/** `path` in normal form: "/" or "/a/b" (throws as `components` does). */
export function normalize(path) {
  return join(components(path));
}

/** Components → normal path. */
export function join(parts) {
  return `/${parts.join('/')}`;
}

/** The parent of normal path `path` ("/" for "/" and "/a"). */
export function parentOf(path) {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

/** The last component of normal path `path` ("" for the root). */
export function baseName(path) {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Whether normal path `inner` is `outer` or inside it. */
export function within(inner, outer) {
  return inner === outer || outer === '/' || inner.startsWith(`${outer}/`);
}

/**
 * Resolves `path` against directory `base` the way the page's API did
 * (Blink's DOMFilePath): relative paths are appended to `base`, "." and
 * ".." are evaluated, and ".." at the root stays at the root. Returns a
 * normal path, or null for a name no file system accepts (NUL,
 * backslash).
 */
export function resolveLexically(base, path) {
  const text = String(path);
  if (text.includes('\0') || text.includes('\\')) return null;
  const full = text.startsWith('/') ? text : `${base === '/' ? '' : base}/${text}`;
  const out = [];
  for (const part of full.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return join(out);
}
