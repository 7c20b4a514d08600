// Errors of the file-system stores: every store operation returns its
// result or throws `StoreError(code)`. The codes are the file errors that
// Chrome's storage layer (base::File::Error) gave, so each caller can map
// them the way Chrome did: the plugin side (ppb/file-*.js) to PP_Error as
// ppapi/shared_impl/file_type_conversion.cc did, the page side
// (../html5fs-page.js) to DOMException names as
// storage/common/file_system/file_system_util.cc and Blink's file_error.cc
// did.

/** The codes a store throws. */
export const CODE = Object.freeze({
  /** The path (or a directory on the way) does not exist. */
  NOT_FOUND: 'NOT_FOUND',
  /** Exclusive creation of something that exists. */
  EXISTS: 'EXISTS',
  /** A directory was needed (a file is in the way). */
  NOT_A_DIRECTORY: 'NOT_A_DIRECTORY',
  /** A file was needed (a directory is in the way). */
  NOT_A_FILE: 'NOT_A_FILE',
  /** Removing (or replacing) a directory that has entries. */
  NOT_EMPTY: 'NOT_EMPTY',
  /** Moving a directory into itself, over a file, the root, … */
  INVALID_OPERATION: 'INVALID_OPERATION',
  /** The change would exceed the file system's quota. */
  QUOTA: 'QUOTA',
  /** The backing storage is full (or refused to grow). */
  NO_SPACE: 'NO_SPACE',
  /** Not allowed: a file opened without the right mode, a symlink on the host, a locked file. */
  ACCESS: 'ACCESS',
  /** A path with `..`, an empty or over-long name, a backslash, a NUL. */
  INVALID_PATH: 'INVALID_PATH',
  /** An unknown (or closed) file handle. */
  BAD_HANDLE: 'BAD_HANDLE',
  /** Anything else the backend reported. */
  FAILED: 'FAILED',
});

/** A failed store operation. */
export class StoreError extends Error {
  constructor(code, message) {
    super(message ?? code);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** Throws StoreError(code). */
export function fail(code, message) {
  throw new StoreError(code, message);
}

/** Host (Node) error codes → store codes. */
const HOST = {
  ENOENT: CODE.NOT_FOUND,
  EEXIST: CODE.EXISTS,
  ENOTDIR: CODE.NOT_A_DIRECTORY,
  EISDIR: CODE.NOT_A_FILE,
  ENOTEMPTY: CODE.NOT_EMPTY,
  EACCES: CODE.ACCESS,
  EPERM: CODE.ACCESS,
  ELOOP: CODE.ACCESS,
  EROFS: CODE.ACCESS,
  ENOSPC: CODE.NO_SPACE,
  EDQUOT: CODE.NO_SPACE,
  EFBIG: CODE.NO_SPACE,
  ENAMETOOLONG: CODE.INVALID_PATH,
  EINVAL: CODE.INVALID_OPERATION,
};

/** DOMException names (OPFS, IndexedDB) → store codes. */
const DOM = {
  NotFoundError: CODE.NOT_FOUND,
  TypeMismatchError: CODE.NOT_A_DIRECTORY,
  InvalidModificationError: CODE.NOT_EMPTY,
  NoModificationAllowedError: CODE.ACCESS,
  NotAllowedError: CODE.ACCESS,
  SecurityError: CODE.ACCESS,
  QuotaExceededError: CODE.NO_SPACE,
  TypeError: CODE.INVALID_PATH,
};

/** Any error from a backend as a StoreError (already one: unchanged). */
export function storeError(err) {
  if (err instanceof StoreError) return err;
  const code = (typeof err?.code === 'string' && HOST[err.code]) || DOM[err?.name] || CODE.FAILED;
  return new StoreError(code, err?.message);
}
