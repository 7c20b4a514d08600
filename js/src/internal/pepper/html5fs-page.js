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
  const storeOf = (fs) => storage.get(fs.type);

  /** A path the page gave, against directory `base`: a normal path, or EncodingError. */
  const resolvePath = (base, path) => {
    const resolved = resolveLexically(base, path ?? '');
    if (resolved === null) fail('EncodingError');
    return resolved;
  };

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
      settle(
        async () => {
          const st = await (await storeOf(this.filesystem)).stat(this.fullPath);
          return new Metadata(st);
        },
        success,
        error,
      );
    }

    getParent(success, error) {
      const path = parentOf(this.fullPath);
      settle(
        async () => {
          await (await storeOf(this.filesystem)).stat(path);
          return new DirectoryEntry(this.filesystem, path);
        },
        success,
        error,
      );
    }

    /** Blink's VerifyAndGetDestinationPathForCopyOrMove: the target path, or InvalidModificationError. */
    destination(parent, newName) {
      if (!(parent instanceof DirectoryEntry)) fail('InvalidModificationError');
      const name = newName === undefined || newName === null || newName === '' ? this.name : String(newName);
      if (!validName(name)) fail('InvalidModificationError');
      const same = parent.filesystem === this.filesystem;
      if (this.fullPath === '/') fail('InvalidModificationError');
      if (same && this instanceof DirectoryEntry && within(parent.fullPath, this.fullPath)) fail('InvalidModificationError');
      if (same && name === this.name && parent.fullPath === parentOf(this.fullPath)) fail('InvalidModificationError');
      return parent.fullPath === '/' ? `/${name}` : `${parent.fullPath}/${name}`;
    }

    moveTo(parent, newName, success, error) {
      settle(
        async () => {
          const to = this.destination(parent, newName);
          const from = await storeOf(this.filesystem);
          const into = await storeOf(parent.filesystem);
          if (from === into) await from.rename(this.fullPath, to);
          else {
            await copyAcross(from, this.fullPath, into, to);
            await from.remove(this.fullPath, { recursive: true });
          }
          return this.at(parent.filesystem, to);
        },
        success,
        error,
      );
    }

    copyTo(parent, newName, success, error) {
      settle(
        async () => {
          const to = this.destination(parent, newName);
          const from = await storeOf(this.filesystem);
          const into = await storeOf(parent.filesystem);
          if (from === into) await from.copy(this.fullPath, to);
          else await copyAcross(from, this.fullPath, into, to);
          return this.at(parent.filesystem, to);
        },
        success,
        error,
      );
    }

    remove(success, error) {
      settle(
        async () => {
          if (this.fullPath === '/') fail('InvalidModificationError');
          await (await storeOf(this.filesystem)).remove(this.fullPath, { recursive: false });
        },
        success,
        error,
      );
    }

    toURL() {
      return fileSystemUrl(origin, this.filesystem.type, this.fullPath);
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
      settle(() => this.lookup(path, options, 'file'), success, error);
    }

    getDirectory(path, options, success, error) {
      settle(() => this.lookup(path, options, 'directory'), success, error);
    }

    /** getFile/getDirectory (Blink's DOMFileSystemBase::GetFile/GetDirectory). */
    async lookup(path, options, kind) {
      const full = resolvePath(this.fullPath, path);
      const create = !!options?.create;
      const exclusive = !!options?.exclusive;
      const store = await storeOf(this.filesystem);
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
      return kind === 'directory' ? new DirectoryEntry(this.filesystem, full) : new FileEntry(this.filesystem, full);
    }

    removeRecursively(success, error) {
      settle(
        async () => {
          if (this.fullPath === '/') fail('InvalidModificationError');
          await (await storeOf(this.filesystem)).remove(this.fullPath, { recursive: true });
        },
        success,
        error,
      );
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
            const list = await (await storeOf(this.dir.filesystem)).readdir(this.dir.fullPath);
            this.done = true;
            const base = this.dir.fullPath === '/' ? '' : this.dir.fullPath;
            return list.map((e) => (e.type === 'directory' ? new DirectoryEntry(this.dir.filesystem, `${base}/${e.name}`) : new FileEntry(this.dir.filesystem, `${base}/${e.name}`)));
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
          const store = await storeOf(this.filesystem);
          const st = await store.stat(this.fullPath);
          if (st.type !== 'file') fail('TypeMismatchError');
          const bytes = await readWhole(store, this.fullPath);
          const ext = this.name.includes('.') ? this.name.slice(this.name.lastIndexOf('.') + 1).toLowerCase() : '';
          return new FileImpl([bytes], this.name, { type: MIME[ext] ?? '', lastModified: Math.round(st.mtime) });
        },
        success,
        error,
      );
    }

    createWriter(success, error) {
      settle(
        async () => {
          const st = await (await storeOf(this.filesystem)).stat(this.fullPath);
          if (st.type !== 'file') fail('TypeMismatchError');
          return new FileWriter(this, st.size);
        },
        success,
        error,
      );
    }
  }

  class Metadata {
    constructor(st) {
      this.modificationTime = new Date(st.mtime);
      this.size = st.size;
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
        const store = await storeOf(this.entry.filesystem);
        const h = await store.open(this.entry.fullPath, { write: true });
        try {
          let done = 0;
          while (done < total) {
            const bytes = new Uint8Array(await data.slice(done, Math.min(total, done + WRITE_CHUNK)).arrayBuffer());
            if (token !== this.token) return;
            await store.write(h, this.position, bytes);
            this.position += bytes.length;
            done += bytes.length;
            this.length = Math.max(this.length, this.position);
            if (done < total) this.fire('progress', done, total);
          }
          this.fire('progress', total, total);
        } finally {
          await store.close(h);
        }
      });
    }

    truncate(size) {
      const n = Number(size);
      if (this.readyState === WRITING) fail('InvalidStateError');
      if (!(n >= 0) || !Number.isFinite(n)) fail('InvalidStateError');
      const token = this.start();
      this.run(token, 0, async () => {
        const store = await storeOf(this.entry.filesystem);
        const h = await store.open(this.entry.fullPath, { write: true });
        try {
          await store.setLength(h, Math.floor(n));
        } finally {
          await store.close(h);
        }
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
    const name = TYPES[Number(type)];
    settle(
      async () => {
        if (!name || !Number.isInteger(Number(type))) fail('InvalidModificationError');
        await storage.get(name);
        return fileSystemOf(name);
      },
      success,
      error,
    );
  };

  const resolveLocalFileSystemURL = function webkitResolveLocalFileSystemURL(url, success, error) {
    settle(
      async () => {
        const parsed = parseFileSystemUrl(String(url));
        if (!parsed) fail('EncodingError');
        if (parsed.origin !== origin) fail('SecurityError');
        const path = resolveLexically('/', parsed.path);
        if (path === null) fail('EncodingError');
        const fs = fileSystemOf(parsed.type);
        const st = await (await storeOf(fs)).stat(path);
        return st.type === 'directory' ? new DirectoryEntry(fs, path) : new FileEntry(fs, path);
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

  return { requestFileSystem, resolveLocalFileSystemURL, temporaryStorage, persistentStorage, storageInfo, FileSystem, fileSystemOf };
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
