// The store interface: one file system's tree and data (Chrome's
// "temporary" or "persistent" sandboxed file system for an origin),
// shared by the plugin's PPB_FileSystem/FileRef/FileIO (ppb/file-*.js)
// and the page's legacy HTML5 FileSystem API (../html5fs-page.js).
//
// Every method is async and throws StoreError (errors.js). Paths are
// absolute within the file system and checked by paths.js; times are
// milliseconds since the epoch.
//
//   stat(path)                    → { type: 'file'|'directory', size, atime, mtime, ctime }
//   readdir(path)                 → [{ name, type }], sorted by name
//   mkdir(path, { recursive, exclusive })
//   remove(path, { recursive })
//   rename(from, to)              Chrome's Move: replaces a file or an empty
//                                 directory of the same kind; same path: no-op
//   copy(from, to)                Chrome's Copy, recursive, same rules
//   touch(path, atime, mtime)
//   open(path, { read, write, append, create, exclusive, truncate }) → handle
//   read(handle, offset, length)  → Uint8Array (shorter at the end)
//   write(handle, offset, bytes)  → bytes written (append handles write at the end)
//   setLength(handle, length)
//   fstat(handle)                 → stat()'s record
//   ftouch(handle, atime, mtime)
//   flush(handle), close(handle)
//   usageAndQuota()               → { usage, quota }
//   requestQuota(bytes)           → the quota granted (persistent stores)
//
// Quotas are Chrome's RequestQuota-era ones: `usage` is the bytes of file
// data in the file system; a change that would take it over `quota`
// throws QUOTA (the plugin sees PP_ERROR_NOQUOTA, the page
// QuotaExceededError) and changes nothing. A temporary file system has a
// fixed quota; a persistent one has what the page was granted with
// navigator.webkitPersistentStorage.requestQuota (Chrome's default for a
// page: nothing), kept with the store so it survives a reload.
//
// A file stays usable through its open handles when it is renamed, and
// (memory, host directory) when it is removed.

import { CODE, StoreError, fail, storeError } from './errors.js';
import { normalize, parentOf, within } from './paths.js';

/** Largest file any store accepts (bytes): Number's exact integers, less a margin. */
export const MAX_FILE_SIZE = 2 ** 52;

/** The open handles of a store: id → backend state. */
export class Handles {
  constructor() {
    this.items = new Map();
    this.nextId = 1;
  }

  add(state) {
    const id = this.nextId++;
    this.items.set(id, state);
    return id;
  }

  get(id) {
    const h = this.items.get(id);
    if (!h) fail(CODE.BAD_HANDLE, `no open file ${id}`);
    return h;
  }

  delete(id) {
    this.items.delete(id);
  }

  /** Every open handle's state. */
  values() {
    return this.items.values();
  }
}

/**
 * What all stores share: the quota book and argument checks.
 * @param {object} o
 * @param {'temporary'|'persistent'} o.type
 * @param {number} o.quota  bytes: the fixed quota (temporary) or the one
 *                          granted until the page asks for more (persistent)
 * @param {number} [o.maxQuota]  the most requestQuota grants (default: no limit)
 */
export class Store {
  constructor({ type, quota, maxQuota = Infinity }) {
    if (type !== 'temporary' && type !== 'persistent') throw new TypeError(`store type must be temporary or persistent, not ${type}`);
    this.type = type;
    this.quota = quota;
    this.maxQuota = maxQuota;
    /** Bytes of file data (set by the backend when it opens). */
    this.usage = 0;
    this.handles = new Handles();
  }

  /** Resolves once the store can be used (backends that open something override it). */
  async ready() {}

  /**
   * Reserves `delta` more bytes (a negative delta gives bytes back):
   * throws QUOTA, changing nothing, when usage would exceed the quota.
   */
  charge(delta) {
    if (delta > 0 && this.usage + delta > this.quota) {
      fail(CODE.QUOTA, `${delta} more bytes would exceed the ${this.type} file system's quota (${this.usage} of ${this.quota} used)`);
    }
    this.usage = Math.max(0, this.usage + delta);
    if (delta !== 0) this.usageChanged(delta);
  }

  /** Backends that share usage with other contexts override this. */
  usageChanged() {}

  async usageAndQuota() {
    return { usage: this.usage, quota: this.quota };
  }

  /**
   * Grants a persistent store `bytes` of quota (capped by maxQuota);
   * returns what was granted. A temporary store's quota is fixed.
   */
  async requestQuota(bytes) {
    const want = Math.max(0, Math.min(Number(bytes) || 0, this.maxQuota));
    if (this.type === 'persistent' && want !== this.quota) {
      this.quota = want;
      await this.saveQuota(want);
    }
    return this.quota;
  }

  /** Backends that keep the granted quota override this. */
  async saveQuota() {}

  /** Checks and normalizes `open()` flags. */
  static openMode(flags) {
    const m = {
      read: !!flags.read,
      write: !!flags.write || !!flags.append,
      append: !!flags.append,
      create: !!flags.create,
      exclusive: !!flags.exclusive,
      truncate: !!flags.truncate,
    };
    if (m.truncate && !m.write) fail(CODE.INVALID_OPERATION, 'truncate needs write access');
    return m;
  }

  /** Checks a read's or write's position and length. */
  static span(offset, length) {
    if (!Number.isInteger(offset) || offset < 0) fail(CODE.INVALID_OPERATION, `bad offset ${offset}`);
    if (!Number.isInteger(length) || length < 0) fail(CODE.INVALID_OPERATION, `bad length ${length}`);
    if (offset + length > MAX_FILE_SIZE) fail(CODE.NO_SPACE, 'beyond the largest file size');
  }
}

/**
 * Checks a move or copy from `from` to `to` by Chrome's rules (see
 * storage/browser/file_system's CopyOrMoveOperationDelegate): the source
 * exists and is not the root, the target's parent is a directory, a
 * directory does not go inside itself, a file and a directory do not
 * replace each other, a replaced directory is empty. `typeOf(path)`
 * answers 'file', 'directory' or null; `isEmpty(path)` whether a
 * directory has no entries. Returns `{ type, old, same }`.
 */
export async function checkTransfer(from, to, typeOf, isEmpty) {
  const src = normalize(from);
  const dst = normalize(to);
  if (src === '/' || dst === '/') fail(CODE.INVALID_OPERATION, 'the root cannot be moved or replaced');
  const type = await typeOf(src);
  if (!type) fail(CODE.NOT_FOUND, `${src} does not exist`);
  const same = src === dst;
  if (!same && within(dst, src)) fail(CODE.INVALID_OPERATION, 'a directory cannot go inside itself');
  const parentType = await typeOf(parentOf(dst));
  if (!parentType) fail(CODE.NOT_FOUND, `${parentOf(dst)} does not exist`);
  if (parentType !== 'directory') fail(CODE.NOT_A_DIRECTORY);
  const old = same ? null : await typeOf(dst);
  if (old) {
    if (old !== type) fail(CODE.INVALID_OPERATION, 'a file and a directory cannot replace each other');
    if (old === 'directory' && !(await isEmpty(dst))) fail(CODE.NOT_EMPTY);
  }
  return { src, dst, type, old, same };
}

/** Runs `fn`, turning any backend error into a StoreError. */
export async function guard(fn) {
  try {
    return await fn();
  } catch (e) {
    throw e instanceof StoreError ? e : storeError(e);
  }
}
