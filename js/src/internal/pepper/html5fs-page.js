// The page's legacy HTML5 FileSystem API (Chrome's `webkitRequestFileSystem`
// and its entries), over the same stores the plugin's PPB_FileSystem uses
// (storage/), so what a page writes the plugin reads and the other way
// round: Maelstrom's page fills the TEMPORARY file system before it
// creates its <embed>; kichikuou's play.html looks for a `save` directory
// in the PERSISTENT one, which its module mounts with nacl_io's html5fs.
//
//   import { installLegacyFileSystem } from './html5fs-page.js';
//   const fs = installLegacyFileSystem(window, storage);   // storage/index.js Storage
//   ...
//   fs.uninstall();   // puts back what the window had
//
// It defines, replacing what the browser has (Chromium still has a native
// `webkitRequestFileSystem`, but its store is not the plugin's):
// - window.TEMPORARY (0), window.PERSISTENT (1);
// - window.webkitRequestFileSystem(type, size, success, error) → a
//   FileSystem { name, root }; `size` reserves nothing (Chrome did not
//   either: quota is checked when files grow);
// - window.webkitResolveLocalFileSystemURL / resolveLocalFileSystemURL for
//   the `filesystem:` URLs entries' toURL() make;
// - navigator.webkitPersistentStorage / webkitTemporaryStorage
//   (queryUsageAndQuota, requestQuota) and the older
//   window.webkitStorageInfo. A persistent request is granted without
//   asking (Chrome showed an infobar; the data never leaves this origin's
//   storage) up to what the store can hold; the grant is kept with the
//   store, so it survives a reload.
// - the entries, as Blink had them: DirectoryEntry (getFile, getDirectory,
//   createReader → readEntries, removeRecursively), FileEntry (file,
//   createWriter → FileWriter: write, truncate, seek, abort, the
//   onwritestart/onprogress/onwrite/onerror/onabort/onwriteend events),
//   and on both getMetadata, getParent, moveTo, copyTo, remove, toURL.
//
// The entries are thin: what they do is in `ops` (on file system types
// and paths), which legacyFileSystem() also returns for the Workers'
// synchronous API (html5fs-sync.js), so both behave as one.
//
// Paths are resolved as Blink did: relative to the entry, "." and ".."
// evaluated, ".." at the root staying at the root, so no path leaves the
// file system. Errors are DOMExceptions with Blink's names:
// NotFoundError, TypeMismatchError, InvalidModificationError (exists, not
// empty, a bad move), QuotaExceededError, EncodingError (a bad name),
// InvalidStateError, NoModificationAllowedError, SecurityError.
//
// Where it falls short: the synchronous API of Workers
// (webkitRequestFileSystemSync) is not provided; `filesystem:` URLs are
// made and resolved here, but the browser cannot load them (an <audio
// src="filesystem:…"> does not play); times other than modificationTime
// are not kept by every backend.

import { CODE } from './storage/errors.js';
import { baseName, parentOf, resolveLexically, validName, within } from './storage/paths.js';

export const TEMPORARY = 0;
export const PERSISTENT = 1;

const TYPES = ['temporary', 'persistent'];

/** Store error codes → Blink's DOMException names (storage's FileErrorToWebFileError). */
const DOM_NAME = {
  [CODE.NOT_FOUND]: 'NotFoundError',
  [CODE.EXISTS]: 'InvalidModificationError',
  [CODE.NOT_A_DIRECTORY]: 'TypeMismatchError',
  [CODE.NOT_A_FILE]: 'TypeMismatchError',
  [CODE.NOT_EMPTY]: 'InvalidModificationError',
  [CODE.INVALID_OPERATION]: 'InvalidModificationError',
  [CODE.QUOTA]: 'QuotaExceededError',
  [CODE.NO_SPACE]: 'QuotaExceededError',
  [CODE.ACCESS]: 'NoModificationAllowedError',
  [CODE.INVALID_PATH]: 'EncodingError',
  [CODE.BAD_HANDLE]: 'InvalidStateError',
  [CODE.FAILED]: 'InvalidStateError',
};

/** Blink's messages for the names that had one. */
const MESSAGE = {
  NotFoundError: 'A requested file or directory could not be found at the time an operation was processed.',
  QuotaExceededError: 'The operation failed because it would cause the application to exceed its storage quota.',
  EncodingError: 'A URI supplied to the API was malformed, or the resulting Data URL has exceeded the URL length limitations for Data URLs.',
  InvalidStateError: 'An operation that depends on state cached in an interface object was made but the state had changed since it was read from disk.',
  NoModificationAllowedError: 'An attempt was made to write to a file or directory which could not be modified due to the state of the underlying filesystem.',
  SecurityError: 'It was determined that certain files are unsafe for access within a Web application, or that too many calls are being made on file resources.',
  AbortError: 'An ongoing operation was aborted, typically with a call to abort().',
  TypeMismatchError: 'The path supplied exists, but was not an entry of requested type.',
  InvalidModificationError: 'The modification requested was illegal.',
};

/** MIME types by extension for File objects (Chrome's well-known list, the common part). */
const MIME = {
  txt: 'text/plain',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  xml: 'text/xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** Bytes a FileWriter reads from its Blob at a time. */
const WRITE_CHUNK = 8 << 20;

/**
 * Installs the API on `win` (a Window, or a WorkerGlobalScope for the
 * asynchronous half) over `storage`; returns `{ uninstall() }`.
 */
export function installLegacyFileSystem(win, storage) {
  const api = legacyFileSystem(win, storage);
  const saved = [];
  const define = (target, name, value) => {
    if (!target) return;
    saved.push([target, name, Object.getOwnPropertyDescriptor(target, name)]);
    Object.defineProperty(target, name, { value, configurable: true, writable: true, enumerable: false });
  };
  define(win, 'TEMPORARY', TEMPORARY);
  define(win, 'PERSISTENT', PERSISTENT);
  define(win, 'webkitRequestFileSystem', api.requestFileSystem);
  define(win, 'webkitResolveLocalFileSystemURL', api.resolveLocalFileSystemURL);
  define(win, 'resolveLocalFileSystemURL', api.resolveLocalFileSystemURL);
  define(win, 'webkitStorageInfo', api.storageInfo);
  define(win.navigator, 'webkitPersistentStorage', api.persistentStorage);
  define(win.navigator, 'webkitTemporaryStorage', api.temporaryStorage);
  return {
    api,
    uninstall() {
      for (const [target, name, desc] of saved.reverse()) {
        if (desc) Object.defineProperty(target, name, desc);
        else delete target[name];
      }
      saved.length = 0;
    },
  };
}

/** The API's functions for `win` over `storage`, without installing them. */
export function legacyFileSystem(win, storage) {
  const origin = originOf(win);
  const DOMExceptionImpl = win.DOMException ?? globalThis.DOMException;
  const BlobImpl = win.Blob ?? globalThis.Blob;
  const FileImpl = win.File ?? globalThis.File;
  const EventTargetImpl = win.EventTarget ?? globalThis.EventTarget;
  const EventImpl = win.Event ?? globalThis.Event;
  const ProgressEventImpl = win.ProgressEvent ?? null;

  const domError = (name) => new DOMExceptionImpl(MESSAGE[name] ?? '', name);
  const errorOf = (e) => {
    if (e instanceof DOMExceptionImpl) return e;
    if (e?.name === 'StoreError') return domError(DOM_NAME[e.code] ?? 'InvalidStateError');
    // Not a file error: a bug here. Say so, and give the page an error it can handle.
    win.console?.error?.('pexe: html5fs-page:', e);
    return domError('InvalidStateError');
  };
  /** Runs a page callback later, as Chrome did (its own exceptions stay uncaught). */
  const later = (fn, ...args) => {
    if (typeof fn === 'function') queueMicrotask(() => fn(...args));
    else if (fn && typeof fn.handleEvent === 'function') queueMicrotask(() => fn.handleEvent(...args));
  };
  /** Runs `op` and calls `success(result)` or `error(DOMException)`. */
  const settle = (op, success, error) => {
    Promise.resolve()
      .then(op)
      .then(
        (v) => later(success, v),
        (e) => later(error, errorOf(e)),
      );
  };
  const fail = (name) => {
    throw domError(name);
  };

  const fileSystems = new Map();
  const fileSystemOf = (type) => {
    let fs = fileSystems.get(type);
    if (!fs) {
      fs = new FileSystem(type);
      fileSystems.set(type, fs);
    }
    return fs;
  };
  const storeOf = (type) => storage.get(type);

  /** A path the page gave, against directory `base`: a normal path, or EncodingError. */
  const resolvePath = (base, path) => {
    const resolved = resolveLexically(base, path ?? '');
    if (resolved === null) fail('EncodingError');
    return resolved;
  };

  /** The MIME type Chrome gave a File named `name`. */
  const mimeOf = (name) => {
    const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
    return MIME[ext] ?? '';
  };

  // ---------------------------------------------------------- operations
  //
  // What the entries do, on file system types and paths rather than on
  // entry objects, so that the asynchronous entries below and the Workers'
  // synchronous ones (html5fs-sync.js answers them from here) behave as
  // one. Each resolves with plain data or throws a StoreError or a
  // DOMException (errorOf() turns either into the DOMException Blink threw).

  const ops = {
    /** The file system of number `type` (TEMPORARY 0, PERSISTENT 1), once its store is usable. */
    async fileSystem(type) {
      const name = TYPES[Number(type)];
      if (!name || !Number.isInteger(Number(type))) fail('InvalidModificationError');
      await storage.get(name);
      return fileSystemOf(name);
    },

    /** getFile / getDirectory (Blink's DOMFileSystemBase::GetFile/GetDirectory): the entry's path. */
    async lookup(type, base, path, options, kind) {
      const full = resolvePath(base, path);
      const create = !!options?.create;
      const exclusive = !!options?.exclusive;
      const store = await storeOf(type);
      let st = null;
      try {
        st = await store.stat(full);
      } catch (e) {
        if (e?.code !== CODE.NOT_FOUND) throw e;
      }
      if (st) {
        if (create && exclusive) fail('InvalidModificationError');
        if (st.type !== kind) fail('TypeMismatchError');
      } else {
        if (!create) fail('NotFoundError');
        // Pages make the same entry from many callbacks at once (Maelstrom's
        // 31 downloads each getDirectory(…, {create: true}) their folder):
        // what another call made between the stat and here is success,
        // unless this call is exclusive or it made the other kind.
        try {
          if (kind === 'directory') await store.mkdir(full, { exclusive: true });
          else await store.close(await store.open(full, { write: true, create: true, exclusive: true }));
        } catch (e) {
          if (e?.code !== CODE.EXISTS || exclusive) throw e;
          if ((await store.stat(full)).type !== kind) fail('TypeMismatchError');
        }
      }
      return full;
    },

    /** getMetadata: `{ modificationTime (ms), size }`. */
    async metadata(type, path) {
      const st = await (await storeOf(type)).stat(path);
      return { modificationTime: st.mtime, size: st.size };
    },

    /** The parent directory's path, once it is known to exist (the asynchronous getParent). */
    async parent(type, path) {
      const up = parentOf(path);
      await (await storeOf(type)).stat(up);
      return up;
    },

    /** remove (an empty directory or a file), or removeRecursively. */
    async remove(type, path, recursive) {
      if (path === '/') fail('InvalidModificationError');
      await (await storeOf(type)).remove(path, { recursive });
    },

    /**
     * moveTo / copyTo of the entry at `path` (a directory when `isDirectory`)
     * into directory `parentPath` of file system `parentType`, named
     * `newName` (its own name when empty): the new path.
     */
    async transfer(move, type, path, isDirectory, parentType, parentPath, newName) {
      const to = destination(type, path, isDirectory, parentType, parentPath, newName);
      const from = await storeOf(type);
      const into = await storeOf(parentType);
      if (from === into) {
        if (move) await from.rename(path, to);
        else await from.copy(path, to);
      } else {
        await copyAcross(from, path, into, to);
        if (move) await from.remove(path, { recursive: true });
      }
      return to;
    },

    /** readEntries: every entry of directory `path`, as `{ kind, path }`. */
    async list(type, path) {
      const list = await (await storeOf(type)).readdir(path);
      const base = path === '/' ? '' : path;
      return list.map((e) => ({ kind: e.type === 'directory' ? 'directory' : 'file', path: `${base}/${e.name}` }));
    },

    /** What file() needs before the data: `{ size, modificationTime, type (MIME) }`. */
    async fileInfo(type, path) {
      const st = await (await storeOf(type)).stat(path);
      if (st.type !== 'file') fail('TypeMismatchError');
      return { size: st.size, modificationTime: st.mtime, type: mimeOf(baseName(path)) };
    },

    /** All of a file's bytes (the asynchronous file()). */
    async readAll(type, path) {
      return readWhole(await storeOf(type), path);
    },

    /** Up to `length` bytes of a file from `offset`. */
    async read(type, path, offset, length) {
      const store = await storeOf(type);
      const h = await store.open(path, { read: true });
      try {
        return await store.read(h, offset, length);
      } finally {
        await store.close(h);
      }
    },

    /** createWriter: the file's length (TypeMismatchError for a directory). */
    async writerLength(type, path) {
      const st = await (await storeOf(type)).stat(path);
      if (st.type !== 'file') fail('TypeMismatchError');
      return st.size;
    },

    /**
     * A FileWriter's write: `blob` at `position`, read and written
     * `chunk` bytes at a time. `alive()` is asked before each chunk is
     * written (false: stop, as abort() does); `progress(done)` hears after
     * each one. Resolves with the bytes written.
     */
    async write(type, path, position, blob, { chunk = WRITE_CHUNK, alive = () => true, progress = () => {} } = {}) {
      const store = await storeOf(type);
      const total = blob.size;
      const h = await store.open(path, { write: true });
      let done = 0;
      try {
        while (done < total) {
          const bytes = new Uint8Array(await blob.slice(done, Math.min(total, done + chunk)).arrayBuffer());
          if (!alive()) break;
          await store.write(h, position + done, bytes);
          done += bytes.length;
          progress(done);
        }
      } finally {
        await store.close(h);
      }
      return done;
    },

    /** A FileWriter's truncate. */
    async truncate(type, path, length) {
      const store = await storeOf(type);
      const h = await store.open(path, { write: true });
      try {
        await store.setLength(h, length);
      } finally {
        await store.close(h);
      }
    },

    /** resolveLocalFileSystemURL: `{ type, path, kind }` for a filesystem: URL of this origin. */
    async resolveURL(url) {
      const parsed = parseFileSystemUrl(String(url));
      if (!parsed) fail('EncodingError');
      if (parsed.origin !== origin) fail('SecurityError');
      const path = resolveLexically('/', parsed.path);
      if (path === null) fail('EncodingError');
      const st = await (await storeOf(parsed.type)).stat(path);
      return { type: parsed.type, path, kind: st.type === 'directory' ? 'directory' : 'file' };
    },

    /** toURL. */
    url(type, path) {
      return fileSystemUrl(origin, type, path);
    },
  };

  /** Blink's VerifyAndGetDestinationPathForCopyOrMove: the target path, or InvalidModificationError. */
  function destination(type, path, isDirectory, parentType, parentPath, newName) {
    const name = newName === undefined || newName === null || newName === '' ? baseName(path) : String(newName);
    if (!validName(name)) fail('InvalidModificationError');
    const same = parentType === type;
    if (path === '/') fail('InvalidModificationError');
    if (same && isDirectory && within(parentPath, path)) fail('InvalidModificationError');
    if (same && name === baseName(path) && parentPath === parentOf(path)) fail('InvalidModificationError');
    return parentPath === '/' ? `/${name}` : `${parentPath}/${name}`;
  }

  // ---------------------------------------------------------- the entries

  class FileSystem {
    constructor(type) {
      this.type = type;
      this.name = `${origin.replace(/[:/.]+/g, '_').replace(/^_+|_+$/g, '')}:${type === 'temporary' ? 'Temporary' : 'Persistent'}`;
      this.root = new DirectoryEntry(this, '/');
    }
  }

  class Entry {
    constructor(filesystem, fullPath) {
      this.filesystem = filesystem;
      this.fullPath = fullPath;
      this.name = baseName(fullPath);
    }

    get isFile() {
      return this instanceof FileEntry;
    }

    get isDirectory() {
      return this instanceof DirectoryEntry;
    }

    getMetadata(success, error) {
      settle(async () => new Metadata(await ops.metadata(this.filesystem.type, this.fullPath)), success, error);
    }

    getParent(success, error) {
      settle(async () => new DirectoryEntry(this.filesystem, await ops.parent(this.filesystem.type, this.fullPath)), success, error);
    }

    moveTo(parent, newName, success, error) {
      this.transfer(true, parent, newName, success, error);
    }

    copyTo(parent, newName, success, error) {
      this.transfer(false, parent, newName, success, error);
    }

    transfer(move, parent, newName, success, error) {
      settle(
        async () => {
          if (!(parent instanceof DirectoryEntry)) fail('InvalidModificationError');
          const to = await ops.transfer(move, this.filesystem.type, this.fullPath, this.isDirectory, parent.filesystem.type, parent.fullPath, newName);
          return this.at(parent.filesystem, to);
        },
        success,
        error,
      );
    }

    remove(success, error) {
      settle(() => ops.remove(this.filesystem.type, this.fullPath, false), success, error);
    }

    toURL() {
      return ops.url(this.filesystem.type, this.fullPath);
    }

    /** An entry of this kind at `path` of `filesystem`. */
    at(filesystem, path) {
      return this instanceof DirectoryEntry ? new DirectoryEntry(filesystem, path) : new FileEntry(filesystem, path);
    }
  }

  class DirectoryEntry extends Entry {
    createReader() {
      return new DirectoryReader(this);
    }

    getFile(path, options, success, error) {
      settle(async () => new FileEntry(this.filesystem, await ops.lookup(this.filesystem.type, this.fullPath, path, options, 'file')), success, error);
    }

    getDirectory(path, options, success, error) {
      settle(async () => new DirectoryEntry(this.filesystem, await ops.lookup(this.filesystem.type, this.fullPath, path, options, 'directory')), success, error);
    }

    removeRecursively(success, error) {
      settle(() => ops.remove(this.filesystem.type, this.fullPath, true), success, error);
    }
  }

  class DirectoryReader {
    constructor(dir) {
      this.dir = dir;
      this.done = false;
      this.busy = false;
    }

    /** Every entry in the first batch, then an empty one (the end), as the spec's loop expects. */
    readEntries(success, error) {
      if (this.busy) {
        later(error, domError('InvalidStateError'));
        return;
      }
      if (this.done) {
        later(success, []);
        return;
      }
      this.busy = true;
      settle(
        async () => {
          try {
            const list = await ops.list(this.dir.filesystem.type, this.dir.fullPath);
            this.done = true;
            return list.map((e) => (e.kind === 'directory' ? new DirectoryEntry(this.dir.filesystem, e.path) : new FileEntry(this.dir.filesystem, e.path)));
          } finally {
            this.busy = false;
          }
        },
        success,
        error,
      );
    }
  }

  class FileEntry extends Entry {
    file(success, error) {
      settle(
        async () => {
          const info = await ops.fileInfo(this.filesystem.type, this.fullPath);
          const bytes = await ops.readAll(this.filesystem.type, this.fullPath);
          return new FileImpl([bytes], this.name, { type: info.type, lastModified: Math.round(info.modificationTime) });
        },
        success,
        error,
      );
    }

    createWriter(success, error) {
      settle(async () => new FileWriter(this, await ops.writerLength(this.filesystem.type, this.fullPath)), success, error);
    }
  }

  class Metadata {
    constructor({ modificationTime, size }) {
      this.modificationTime = new Date(modificationTime);
      this.size = size;
    }
  }

  const INIT = 0;
  const WRITING = 1;
  const DONE = 2;

  class FileWriter extends EventTargetImpl {
    constructor(entry, length) {
      super();
      this.entry = entry;
      this.position = 0;
      this.length = length;
      this.readyState = INIT;
      this.error = null;
      this.onwritestart = null;
      this.onprogress = null;
      this.onwrite = null;
      this.onabort = null;
      this.onerror = null;
      this.onwriteend = null;
      /** Bumped by abort(): a running operation whose token is stale reports nothing. */
      this.token = 0;
    }

    /** Fires `type` (a ProgressEvent where there is one) to listeners and the on<type> handler. */
    fire(type, loaded = 0, total = 0) {
      let event;
      if (ProgressEventImpl) event = new ProgressEventImpl(type, { lengthComputable: true, loaded, total });
      else {
        event = new EventImpl(type);
        Object.assign(event, { lengthComputable: true, loaded, total });
      }
      this.dispatchEvent(event);
      const handler = this[`on${type}`];
      if (typeof handler === 'function') handler.call(this, event);
    }

    start() {
      if (this.readyState === WRITING) fail('InvalidStateError');
      this.readyState = WRITING;
      this.error = null;
      return ++this.token;
    }

    /** Runs `work(token)` after writestart; then write + writeend, or error + writeend. */
    run(token, total, work) {
      queueMicrotask(async () => {
        if (token !== this.token) return;
        this.fire('writestart', 0, total);
        try {
          await work(token);
          if (token !== this.token) return;
          this.readyState = DONE;
          this.fire('write', total, total);
          this.fire('writeend', total, total);
        } catch (e) {
          if (token !== this.token) return;
          this.readyState = DONE;
          this.error = errorOf(e);
          this.fire('error', 0, total);
          this.fire('writeend', 0, total);
        }
      });
    }

    write(data) {
      if (!(data instanceof BlobImpl)) throw new TypeError("Failed to execute 'write' on 'FileWriter': parameter 1 is not of type 'Blob'.");
      const token = this.start();
      const total = data.size;
      this.run(token, total, async () => {
        const start = this.position;
        await ops.write(this.entry.filesystem.type, this.entry.fullPath, start, data, {
          alive: () => token === this.token,
          progress: (done) => {
            this.position = start + done;
            this.length = Math.max(this.length, this.position);
            if (done < total) this.fire('progress', done, total);
          },
        });
        if (token !== this.token) return;
        this.fire('progress', total, total);
      });
    }

    truncate(size) {
      const n = Number(size);
      if (this.readyState === WRITING) fail('InvalidStateError');
      if (!(n >= 0) || !Number.isFinite(n)) fail('InvalidStateError');
      const token = this.start();
      this.run(token, 0, async () => {
        await ops.truncate(this.entry.filesystem.type, this.entry.fullPath, Math.floor(n));
        this.length = Math.floor(n);
        this.position = Math.min(this.position, this.length);
      });
    }

    seek(offset) {
      if (this.readyState === WRITING) fail('InvalidStateError');
      let at = Math.trunc(Number(offset) || 0);
      if (at < 0) at = Math.max(0, this.length + at);
      this.position = Math.min(at, this.length);
    }

    abort() {
      if (this.readyState !== WRITING) return;
      this.token++;
      this.readyState = DONE;
      this.error = domError('AbortError');
      this.fire('abort');
      this.fire('writeend');
    }
  }
  Object.assign(FileWriter, { INIT, WRITING, DONE });
  Object.assign(FileWriter.prototype, { INIT, WRITING, DONE });

  /** Copies `path` of store `from` to `to` of store `into` (a cross-file-system copyTo/moveTo). */
  async function copyAcross(from, path, into, to) {
    const st = await from.stat(path);
    let exists = null;
    try {
      exists = await into.stat(to);
    } catch (e) {
      if (e?.code !== CODE.NOT_FOUND) throw e;
    }
    if (exists && exists.type !== st.type) fail('InvalidModificationError');
    if (st.type === 'directory') {
      if (exists && (await into.readdir(to)).length > 0) fail('InvalidModificationError');
      if (!exists) await into.mkdir(to);
      for (const e of await from.readdir(path)) await copyAcross(from, `${path}/${e.name}`, into, `${to}/${e.name}`);
      return;
    }
    const h = await into.open(to, { write: true, create: true, truncate: true });
    try {
      await into.write(h, 0, await readWhole(from, path));
    } finally {
      await into.close(h);
    }
  }

  const requestFileSystem = function webkitRequestFileSystem(type, size, success, error) {
    if (arguments.length < 2) throw new TypeError(`Failed to execute 'webkitRequestFileSystem': 2 arguments required, but only ${arguments.length} present.`);
    settle(() => ops.fileSystem(type), success, error);
  };

  const resolveLocalFileSystemURL = function webkitResolveLocalFileSystemURL(url, success, error) {
    settle(
      async () => {
        const { type, path, kind } = await ops.resolveURL(url);
        const fs = fileSystemOf(type);
        return kind === 'directory' ? new DirectoryEntry(fs, path) : new FileEntry(fs, path);
      },
      success,
      error,
    );
  };

  /** navigator.webkit{Temporary,Persistent}Storage for `type`. */
  const quotaApi = (type) => ({
    queryUsageAndQuota(success, error) {
      settle(
        async () => (await storage.get(type)).usageAndQuota(),
        (r) => later(success, r.usage, r.quota),
        error,
      );
    },
    requestQuota(size, success, error) {
      settle(
        async () => {
          const store = await storage.get(type);
          if (type === 'persistent') return store.requestQuota(Number(size) || 0);
          const { quota } = await store.usageAndQuota();
          return Math.min(Math.max(0, Number(size) || 0), quota);
        },
        success,
        error,
      );
    },
  });
  const temporaryStorage = quotaApi('temporary');
  const persistentStorage = quotaApi('persistent');
  const storageInfo = {
    TEMPORARY,
    PERSISTENT,
    queryUsageAndQuota(type, success, error) {
      (Number(type) === PERSISTENT ? persistentStorage : temporaryStorage).queryUsageAndQuota(success, error);
    },
    requestQuota(type, size, success, error) {
      (Number(type) === PERSISTENT ? persistentStorage : temporaryStorage).requestQuota(size, success, error);
    },
  };

  return { requestFileSystem, resolveLocalFileSystemURL, temporaryStorage, persistentStorage, storageInfo, FileSystem, fileSystemOf, ops, errorOf };
}

/** All of a file's bytes. */
async function readWhole(store, path) {
  const h = await store.open(path, { read: true });
  try {
    const { size } = await store.fstat(h);
    return await store.read(h, 0, size);
  } finally {
    await store.close(h);
  }
}

/** The document's origin as Chrome wrote it in filesystem: URLs. */
function originOf(win) {
  try {
    const o = win.location?.origin;
    if (o && o !== 'null') return o;
  } catch {
    // an opaque origin
  }
  return 'null';
}

/** `filesystem:<origin>/<type><path>`, the path's components escaped. */
export function fileSystemUrl(origin, type, path) {
  const escaped = path
    .split('/')
    .map((c) => encodeURIComponent(c))
    .join('/');
  return `filesystem:${origin}/${type}${escaped}`;
}

/** A filesystem: URL's `{ origin, type, path }`, or null. */
export function parseFileSystemUrl(url) {
  const m = /^filesystem:([a-z][a-z0-9+.-]*:\/\/[^/]+)\/(temporary|persistent)(\/[^?#]*)?/i.exec(url);
  if (!m) return null;
  let path;
  try {
    path = decodeURIComponent(m[3] ?? '/');
  } catch {
    return null;
  }
  return { origin: m[1], type: m[2].toLowerCase(), path };
}
