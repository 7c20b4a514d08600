// The synchronous legacy FileSystem API of Workers (Chrome's
// `webkitRequestFileSystemSync` and its entries), as a Worker of the page
// sees it, over the same stores as the page's asynchronous API and the
// plugins (storage/): kichikuou's installer writes a game into the
// PERSISTENT file system from its Worker with these calls, and
// xsystem35's html5fs mount reads it from there.
//
// A synchronous call has to wait for asynchronous stores, so the two
// halves live in two threads: here, in the page's Worker, each call is
// posted over a MessagePort (the "bridge") and the Worker blocks with
// Atomics.wait on a SharedArrayBuffer until the other end —
// html5fs-sync.js, in a helper Worker of the page (or any thread that has
// the Storage) — has done it with html5fs-page.js's operations and written
// the answer into that buffer. Without cross-origin isolation there is no
// SharedArrayBuffer, and the calls throw NotSupportedError saying so.
//
//   self[Symbol.for('pexe.html5fsSync')].install(self, { openBridge: () => port })
//
// defines on the Worker's global scope (replacing the browser's own, whose
// store is not the plugins'): TEMPORARY, PERSISTENT,
// webkitRequestFileSystemSync(type, size) → DOMFileSystemSync { name, root },
// webkitResolveLocalFileSystemSyncURL(url), and the interfaces EntrySync,
// DirectoryEntrySync (getFile, getDirectory, createReader → readEntries,
// removeRecursively), FileEntrySync (file, createWriter → FileWriterSync:
// write, truncate, seek, position, length), with getMetadata, getParent,
// moveTo, copyTo, remove and toURL on both, as Blink had them
// (third_party/blink/renderer/modules/filesystem/*_sync.cc). Errors are
// DOMExceptions with Blink's names and messages, made by the same table
// as the asynchronous API's.
//
// `openBridge()` is asked for the port on the first call that needs the
// page (polyfill/worker-prelude.js: the Worker posts one end to the page,
// which hands it to its helper; the Node tests: a worker_threads port).
//
// The bridge (one port and one shared buffer per Worker):
//   Worker → server  { op: 'attach', sab }                       first, once
//                    { seq, op, args, blob? }                   one at a time
//                    { seq, op: 'more', of }                    the next piece of answer `of`
//   server → Worker  the shared buffer: a header of Int32 (HEADER below)
//                    and a data area of LIMITS.sharedBytes; JSON answers
//                    and errors longer than the area come in pieces.
//
// This file is both a classic script (importScripts) and a module, so it
// has no import/export statements; html5fs-sync.js reads LIMITS and
// HEADER from the same namespace.

(function () {
  'use strict';
  var KEY = Symbol.for('pexe.html5fsSync');
  if (globalThis[KEY]) return;

  /**
   * Every cap of the synchronous API, in one place. The Worker sizes its
   * shared buffer from `sharedBytes`; the server refuses a buffer outside
   * [minSharedBytes, sharedBytes] and sizes nothing by what a Worker asks.
   */
  var LIMITS = Object.freeze({
    /** Bytes of answer the shared buffer carries at once: a file() read, one piece of a long JSON answer. */
    sharedBytes: 2 << 20,
    /** The smallest data area a server accepts (tests use small ones to exercise the pieces). */
    minSharedBytes: 1 << 10,
    /** The longest JSON answer (a directory listing) a Worker collects, in all its pieces. */
    answerBytes: 64 << 20,
    /** The largest file file() copies into the Worker. */
    fileBytes: 1 << 30,
    /** Bytes of a written Blob the server reads and writes at a time. */
    writeSliceBytes: 8 << 20,
    /** How long a Worker waits with no sign of the server working on its call (ms). */
    silenceMs: 60000,
  });

  /** The shared buffer's header: Int32 slots. */
  var HEADER = Object.freeze({
    /** 0 while the server works, 1 once the answer is in the data area. */
    STATE: 0,
    /** The `seq` of the request the answer is for. */
    SEQ: 1,
    /** ANSWER.JSON, ANSWER.BYTES or ANSWER.ERROR. */
    KIND: 2,
    /** Bytes of answer in the data area. */
    LENGTH: 3,
    /** 1: more of this answer follows (ask for it with op 'more'). */
    MORE: 4,
    /** Bumped by the server as it makes progress, so a long write is not taken for silence. */
    BEAT: 5,
    /** Int32 slots in all. */
    SLOTS: 8,
    /** Where the data area starts. */
    BYTES: 64,
  });

  var ANSWER = Object.freeze({ JSON: 0, BYTES: 1, ERROR: 2 });

  /** The message given when the page cannot share memory with its Workers. */
  var NOT_ISOLATED =
    'webkitRequestFileSystemSync: the page\u2019s file systems (which the NaCl plugins share) are reached from a Worker ' +
    'through a SharedArrayBuffer, and this page has none because it is not cross-origin isolated. Serve it with ' +
    '"Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: require-corp" (or credentialless), ' +
    'or, on a static host, set window.PexeConfig = { serviceWorker: true } before the polyfill (pexe-sw.js).';

  /** Why `scope` cannot block on a shared buffer, or null. */
  function unsupported(scope) {
    if (typeof scope.SharedArrayBuffer !== 'function' || scope.crossOriginIsolated === false) return NOT_ISOLATED;
    if (typeof Atomics === 'undefined' || typeof Atomics.wait !== 'function') return 'webkitRequestFileSystemSync: Atomics.wait is not available in this Worker.';
    return null;
  }

  /** One Worker's end of the bridge. */
  function Bridge(scope, port, limits) {
    this.scope = scope;
    this.port = port;
    this.limits = limits;
    this.sab = new scope.SharedArrayBuffer(HEADER.BYTES + limits.sharedBytes);
    this.header = new Int32Array(this.sab, 0, HEADER.SLOTS);
    this.data = new Uint8Array(this.sab, HEADER.BYTES);
    this.seq = 0;
    this.decoder = new TextDecoder();
    port.postMessage({ op: 'attach', sab: this.sab });
  }

  /** Posts `message` and blocks until its answer: `{ kind, bytes }` (bytes copied out of the shared buffer). */
  Bridge.prototype.exchange = function (message, transfer) {
    var h = this.header;
    var seq = ++this.seq;
    message.seq = seq;
    Atomics.store(h, HEADER.STATE, 0);
    this.port.postMessage(message, transfer || []);
    var silence = this.limits.silenceMs;
    var beat = Atomics.load(h, HEADER.BEAT);
    var deadline = Date.now() + silence;
    for (;;) {
      if (Atomics.load(h, HEADER.STATE) === 1) {
        if (Atomics.load(h, HEADER.SEQ) === seq) break;
        // The late answer of a call that gave up waiting: not this one.
        Atomics.store(h, HEADER.STATE, 0);
        continue;
      }
      var left = deadline - Date.now();
      if (left <= 0) {
        var now = Atomics.load(h, HEADER.BEAT);
        if (now !== beat) {
          beat = now;
          deadline = Date.now() + silence;
          continue;
        }
        throw new this.scope.DOMException(
          'pexe: the page did not answer this Worker\u2019s file system call (' + message.op + ') for ' + silence / 1000 + ' s; is the polyfill loaded in the page?',
          'InvalidStateError',
        );
      }
      Atomics.wait(h, HEADER.STATE, 0, left);
    }
    var length = Atomics.load(h, HEADER.LENGTH);
    if (!(length >= 0 && length <= this.data.length)) throw new this.scope.DOMException('pexe: a malformed answer from the page', 'InvalidStateError');
    return { kind: Atomics.load(h, HEADER.KIND), more: Atomics.load(h, HEADER.MORE) === 1, bytes: this.data.slice(0, length), seq: seq };
  };

  /** Runs `op` on the server: its JSON value, or its bytes (`read`); throws the DOMException it answered. */
  Bridge.prototype.call = function (op, args, blob) {
    var message = { op: op, args: args };
    if (blob) message.blob = blob;
    var a = this.exchange(message);
    if (a.kind === ANSWER.BYTES && !a.more) return a.bytes;
    var parts = [a.bytes];
    var total = a.bytes.length;
    while (a.more) {
      a = this.exchange({ op: 'more', of: a.seq });
      total += a.bytes.length;
      if (total > this.limits.answerBytes) throw new this.scope.DOMException('pexe: an answer longer than ' + this.limits.answerBytes + ' bytes', 'InvalidStateError');
      parts.push(a.bytes);
    }
    var bytes = parts.length === 1 ? parts[0] : concat(parts, total);
    var value = JSON.parse(this.decoder.decode(bytes));
    if (a.kind === ANSWER.ERROR) throw new this.scope.DOMException(String(value.message), String(value.name));
    return value;
  };

  function concat(parts, total) {
    var out = new Uint8Array(total);
    var at = 0;
    for (var i = 0; i < parts.length; i++) {
      out.set(parts[i], at);
      at += parts[i].length;
    }
    return out;
  }

  /** The last component of normal path `path` ("" for the root). */
  function baseName(path) {
    return path.slice(path.lastIndexOf('/') + 1);
  }

  /** The parent of normal path `path`. */
  function parentOf(path) {
    var at = path.lastIndexOf('/');
    return at <= 0 ? '/' : path.slice(0, at);
  }

  /**
   * Installs the API on `scope` (a Worker's global scope). Options:
   * `openBridge()` → the port to the server; `limits` overrides some of
   * LIMITS (tests). Returns `{ uninstall() }`.
   */
  function install(scope, options) {
    var limits = Object.freeze(Object.assign({}, LIMITS, (options && options.limits) || {}));
    var openBridge = options.openBridge;
    var DOMExceptionImpl = scope.DOMException;
    var BlobImpl = scope.Blob;
    var FileImpl = scope.File;
    var bridge = null;
    var warned = false;
    /** Only the API itself makes its objects, as with the browser's (`new FileEntrySync()` is an illegal constructor). */
    var TOKEN = {};

    function connection() {
      if (bridge) return bridge;
      var why = unsupported(scope);
      if (why) {
        if (!warned && scope.console) scope.console.error('pexe: ' + why);
        warned = true;
        throw new DOMExceptionImpl(why, 'NotSupportedError');
      }
      bridge = new Bridge(scope, openBridge(), limits);
      return bridge;
    }
    function call(op, args, blob) {
      return connection().call(op, args, blob);
    }
    function check(token) {
      if (token !== TOKEN) throw new TypeError('Illegal constructor');
    }
    function needs(n, got, method, iface) {
      if (got < n) throw new TypeError("Failed to execute '" + method + "' on '" + iface + "': " + n + ' argument' + (n > 1 ? 's' : '') + ' required, but only ' + got + ' present.');
    }

    var fileSystems = {};
    function fileSystemOf(info) {
      if (!fileSystems[info.type]) fileSystems[info.type] = new DOMFileSystemSync(TOKEN, info);
      return fileSystems[info.type];
    }
    function entryAt(filesystem, kind, path) {
      return kind === 'directory' ? new DirectoryEntrySync(TOKEN, filesystem, path) : new FileEntrySync(TOKEN, filesystem, path);
    }

    function DOMFileSystemSync(token, info) {
      check(token);
      this.name = info.name;
      this.root = new DirectoryEntrySync(TOKEN, this, '/');
      Object.defineProperty(this, 'type', { value: info.type });
      Object.defineProperty(this, 'rootURL', { value: info.root });
    }

    function EntrySync(token, filesystem, fullPath) {
      check(token);
      this.filesystem = filesystem;
      this.fullPath = fullPath;
      this.name = baseName(fullPath);
    }
    Object.defineProperties(EntrySync.prototype, {
      isFile: {
        get: function () {
          return this instanceof FileEntrySync;
        },
        configurable: true,
      },
      isDirectory: {
        get: function () {
          return this instanceof DirectoryEntrySync;
        },
        configurable: true,
      },
    });
    EntrySync.prototype.getMetadata = function () {
      return new Metadata(call('metadata', [this.filesystem.type, this.fullPath]));
    };
    EntrySync.prototype.moveTo = function (parent, name) {
      needs(1, arguments.length, 'moveTo', 'EntrySync');
      return this.transfer(true, parent, name);
    };
    EntrySync.prototype.copyTo = function (parent, name) {
      needs(1, arguments.length, 'copyTo', 'EntrySync');
      return this.transfer(false, parent, name);
    };
    Object.defineProperty(EntrySync.prototype, 'transfer', {
      value: function (move, parent, name) {
        if (!(parent instanceof DirectoryEntrySync)) {
          throw new TypeError("Failed to execute '" + (move ? 'moveTo' : 'copyTo') + "' on 'EntrySync': parameter 1 is not of type 'DirectoryEntrySync'.");
        }
        var path = call('transfer', [move, this.filesystem.type, this.fullPath, this.isDirectory, parent.filesystem.type, parent.fullPath, name === undefined || name === null ? '' : String(name)]);
        return entryAt(parent.filesystem, this.isDirectory ? 'directory' : 'file', path);
      },
    });
    EntrySync.prototype.remove = function () {
      call('remove', [this.filesystem.type, this.fullPath, false]);
    };
    /** Blink's sync getParent asks nothing and throws nothing. */
    EntrySync.prototype.getParent = function () {
      return new DirectoryEntrySync(TOKEN, this.filesystem, parentOf(this.fullPath));
    };
    EntrySync.prototype.toURL = function () {
      // The escaping of html5fs-page.js's fileSystemUrl, whose root URL this is.
      return (
        this.filesystem.rootURL.replace(/\/$/, '') +
        this.fullPath
          .split('/')
          .map(function (c) {
            return encodeURIComponent(c);
          })
          .join('/')
      );
    };

    function DirectoryEntrySync(token, filesystem, fullPath) {
      EntrySync.call(this, token, filesystem, fullPath);
    }
    DirectoryEntrySync.prototype = Object.create(EntrySync.prototype, { constructor: { value: DirectoryEntrySync, writable: true, configurable: true } });
    DirectoryEntrySync.prototype.createReader = function () {
      return new DirectoryReaderSync(TOKEN, this);
    };
    DirectoryEntrySync.prototype.getFile = function (path, flags) {
      needs(1, arguments.length, 'getFile', 'DirectoryEntrySync');
      return new FileEntrySync(TOKEN, this.filesystem, call('lookup', [this.filesystem.type, this.fullPath, String(path), flagsOf(flags), 'file']));
    };
    DirectoryEntrySync.prototype.getDirectory = function (path, flags) {
      needs(1, arguments.length, 'getDirectory', 'DirectoryEntrySync');
      return new DirectoryEntrySync(TOKEN, this.filesystem, call('lookup', [this.filesystem.type, this.fullPath, String(path), flagsOf(flags), 'directory']));
    };
    DirectoryEntrySync.prototype.removeRecursively = function () {
      call('remove', [this.filesystem.type, this.fullPath, true]);
    };

    function flagsOf(flags) {
      if (flags === undefined || flags === null) return { create: false, exclusive: false };
      if (typeof flags !== 'object' && typeof flags !== 'function') throw new TypeError("Failed to convert value to 'FileSystemFlags'.");
      return { create: !!flags.create, exclusive: !!flags.exclusive };
    }

    function DirectoryReaderSync(token, dir) {
      check(token);
      Object.defineProperty(this, 'dir', { value: dir });
      Object.defineProperty(this, 'done', { value: false, writable: true });
    }
    /** Every entry the first time, then none (the end), as Blink's reader did. */
    DirectoryReaderSync.prototype.readEntries = function () {
      if (this.done) return [];
      var fs = this.dir.filesystem;
      var list = call('list', [fs.type, this.dir.fullPath]);
      this.done = true;
      var out = [];
      for (var i = 0; i < list.length; i++) out.push(entryAt(fs, list[i].kind, list[i].path));
      return out;
    };

    function FileEntrySync(token, filesystem, fullPath) {
      EntrySync.call(this, token, filesystem, fullPath);
    }
    FileEntrySync.prototype = Object.create(EntrySync.prototype, { constructor: { value: FileEntrySync, writable: true, configurable: true } });
    FileEntrySync.prototype.createWriter = function () {
      return new FileWriterSync(TOKEN, this, call('writerLength', [this.filesystem.type, this.fullPath]));
    };
    /** The file's bytes now, copied into the Worker (Blink gave a snapshot of the file). */
    FileEntrySync.prototype.file = function () {
      var type = this.filesystem.type;
      var path = this.fullPath;
      try {
        var info = call('fileInfo', [type, path]);
        if (info.size > limits.fileBytes) {
          throw new DOMExceptionImpl('pexe: ' + this.name + ' has ' + info.size + ' bytes; file() copies at most ' + limits.fileBytes + ' into a Worker', 'NotReadableError');
        }
        var parts = [];
        for (var at = 0; at < info.size;) {
          var bytes = call('read', [type, path, at, Math.min(limits.sharedBytes, info.size - at), info.size, info.modificationTime]);
          if (bytes.length === 0) throw new DOMExceptionImpl('', 'InvalidStateError');
          parts.push(bytes);
          at += bytes.length;
        }
        return new FileImpl(parts, this.name, { type: info.type, lastModified: Math.round(info.modificationTime) });
      } catch (e) {
        // Blink: "Could not create '<name>'." with the file error's name.
        if (e instanceof DOMExceptionImpl && e.message.indexOf('pexe:') !== 0) throw new DOMExceptionImpl("Could not create '" + this.name + "'.", e.name);
        throw e;
      }
    };

    function Metadata(m) {
      this.modificationTime = new Date(m.modificationTime);
      this.size = m.size;
    }

    function FileWriterSync(token, entry, length) {
      check(token);
      Object.defineProperty(this, 'entry', { value: entry });
      Object.defineProperty(this, 'at', { value: 0, writable: true });
      Object.defineProperty(this, 'size', { value: length, writable: true });
    }
    Object.defineProperties(FileWriterSync.prototype, {
      position: {
        get: function () {
          return this.at;
        },
        configurable: true,
      },
      length: {
        get: function () {
          return this.size;
        },
        configurable: true,
      },
    });
    /** Blink's FileWriterSync::write: the Blob at the position; position and length follow. */
    FileWriterSync.prototype.write = function (data) {
      needs(1, arguments.length, 'write', 'FileWriterSync');
      if (!(data instanceof BlobImpl)) throw new TypeError("Failed to execute 'write' on 'FileWriterSync': parameter 1 is not of type 'Blob'.");
      var e = this.entry;
      call('write', [e.filesystem.type, e.fullPath, this.at], data);
      this.at += data.size;
      if (this.at > this.size) this.size = this.at;
    };
    FileWriterSync.prototype.truncate = function (size) {
      needs(1, arguments.length, 'truncate', 'FileWriterSync');
      var n = Math.trunc(Number(size)) || 0;
      if (n < 0) throw new DOMExceptionImpl('An operation that depends on state cached in an interface object was made but the state had changed since it was read from disk.', 'InvalidStateError');
      var e = this.entry;
      call('truncate', [e.filesystem.type, e.fullPath, n]);
      if (n < this.at) this.at = n;
      this.size = n;
    };
    /** Blink's SeekInternal: past the end clamps to the end; negative counts from the end. */
    FileWriterSync.prototype.seek = function (position) {
      needs(1, arguments.length, 'seek', 'FileWriterSync');
      var p = Math.trunc(Number(position)) || 0;
      if (p > this.size) p = this.size;
      else if (p < 0) p = this.size + p;
      if (p < 0) p = 0;
      this.at = p;
    };

    var requestFileSystemSync = function webkitRequestFileSystemSync(type, size) {
      needs(2, arguments.length, 'webkitRequestFileSystemSync', 'DedicatedWorkerGlobalScope');
      var t = Number(type) & 0xffff;
      if (t !== 0 && t !== 1) throw new DOMExceptionImpl('the type must be kTemporary or kPersistent.', 'InvalidModificationError');
      return fileSystemOf(call('fileSystem', [t]));
    };
    var resolveSyncURL = function webkitResolveLocalFileSystemSyncURL(url) {
      needs(1, arguments.length, 'webkitResolveLocalFileSystemSyncURL', 'DedicatedWorkerGlobalScope');
      var r = call('resolveURL', [String(url)]);
      var fs = fileSystemOf(call('fileSystem', [r.type === 'persistent' ? 1 : 0]));
      return entryAt(fs, r.kind, r.path);
    };

    var saved = [];
    function define(name, value) {
      saved.push([name, Object.getOwnPropertyDescriptor(scope, name)]);
      Object.defineProperty(scope, name, { value: value, configurable: true, writable: true, enumerable: false });
    }
    define('TEMPORARY', 0);
    define('PERSISTENT', 1);
    define('webkitRequestFileSystemSync', requestFileSystemSync);
    define('webkitResolveLocalFileSystemSyncURL', resolveSyncURL);
    define('DOMFileSystemSync', DOMFileSystemSync);
    define('EntrySync', EntrySync);
    define('DirectoryEntrySync', DirectoryEntrySync);
    define('FileEntrySync', FileEntrySync);
    define('DirectoryReaderSync', DirectoryReaderSync);
    define('FileWriterSync', FileWriterSync);
    return {
      uninstall: function () {
        for (var i = saved.length - 1; i >= 0; i--) {
          if (saved[i][1]) Object.defineProperty(scope, saved[i][0], saved[i][1]);
          else delete scope[saved[i][0]];
        }
        saved.length = 0;
      },
    };
  }

  Object.defineProperty(globalThis, KEY, { value: Object.freeze({ LIMITS: LIMITS, HEADER: HEADER, ANSWER: ANSWER, install: install }) });
})();
