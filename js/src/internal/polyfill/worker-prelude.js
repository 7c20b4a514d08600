// What runs in a page's Worker before the page's own script, when the
// polyfill made the Worker (../../polyfill.js wraps the page's `Worker`
// constructor): the synchronous legacy FileSystem API over the plugins'
// stores (../pepper/html5fs-sync-worker.js, loaded just before this file),
// and the page's script URL kept as the Worker's base.
//
// The Worker runs a small blob: script that loads the two preludes and
// then the page's script — `importScripts(url)` for a classic Worker,
// `import` for a module Worker — so the page's script is the same file
// from the same URL (its stack traces and, in a module, import.meta.url
// and relative imports are right). A blob: script has no base URL of its
// own, though, so `start()` puts the page's script URL back where a
// script reaches it:
//   - `self.location`: a frozen object with WorkerLocation's members
//     (href, origin, protocol, host, hostname, port, pathname, search,
//     hash, toString) for the script's URL — a plain object, not a
//     WorkerLocation instance;
//   - relative URLs given to importScripts, fetch, new Request,
//     XMLHttpRequest.open, new EventSource, new WebSocket (ws: from
//     http:) and new Worker are resolved against the script's URL.
// Other APIs still resolve against the blob: URL (and fail for a relative
// URL): `new URL(relative)` without a base, cache.match, FontFace sources.
//
// A Worker such a Worker starts gets the browser's own file system API
// (its store is not the plugins'); a SharedWorker is not wrapped either.
//
// The bridge: on the first synchronous call the Worker posts
// `{ 'pexe.fileSystemBridge': 1, port }` to the page; the polyfill's
// listener on the Worker object takes it (the page's own listeners never
// see it) and hands the port to the page's file system helper.
//
// This file is both a classic script and a module (no import/export).

(function () {
  'use strict';
  var KEY = Symbol.for('pexe.workerPrelude');
  if (globalThis[KEY]) return;
  var BRIDGE = 'pexe.fileSystemBridge';
  var LOCATION_KEYS = ['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];

  /** `url` against `base`; the original when it does not parse (the browser then throws its own error). */
  function resolver(base) {
    return function (url) {
      if (url instanceof URL) return url.href;
      if (typeof url !== 'string') url = String(url);
      try {
        return new URL(url, base).href;
      } catch (e) {
        return url;
      }
    };
  }

  /** A constructor of `scope` whose first argument (a URL) goes through `fix`. */
  function wrapConstructor(scope, name, fix) {
    var Native = scope[name];
    if (typeof Native !== 'function') return;
    var wrapped = new Proxy(Native, {
      construct: function (target, args, newTarget) {
        var a = Array.prototype.slice.call(args);
        if (a.length > 0 && (typeof a[0] === 'string' || a[0] instanceof URL)) a[0] = fix(a[0]);
        return Reflect.construct(target, a, newTarget === wrapped ? target : newTarget);
      },
    });
    Object.defineProperty(scope, name, { value: wrapped, configurable: true, writable: true, enumerable: false });
  }

  /**
   * Sets up the Worker for the page's script at `o.url` (`o.type`:
   * 'classic' | 'module').
   */
  function start(o) {
    var scope = self;
    var base = String(o.url);
    var resolve = resolver(base);
    var parsed = new URL(base);

    var location = {};
    LOCATION_KEYS.forEach(function (k) {
      Object.defineProperty(location, k, { value: parsed[k], enumerable: true });
    });
    Object.defineProperty(location, 'toString', {
      value: function () {
        return parsed.href;
      },
    });
    Object.defineProperty(scope, 'location', { value: Object.freeze(location), configurable: true, enumerable: true, writable: false });

    if (o.type !== 'module' && typeof scope.importScripts === 'function') {
      var nativeImport = scope.importScripts;
      Object.defineProperty(scope, 'importScripts', {
        value: function importScripts() {
          return nativeImport.apply(scope, Array.prototype.map.call(arguments, resolve));
        },
        configurable: true,
        writable: true,
      });
    }
    if (typeof scope.fetch === 'function') {
      var nativeFetch = scope.fetch;
      Object.defineProperty(scope, 'fetch', {
        value: function fetch(input, init) {
          var a = Array.prototype.slice.call(arguments);
          if (typeof input === 'string' || input instanceof URL) a[0] = resolve(input);
          return nativeFetch.apply(scope, a);
        },
        configurable: true,
        writable: true,
      });
    }
    wrapConstructor(scope, 'Request', resolve);
    wrapConstructor(scope, 'EventSource', resolve);
    wrapConstructor(scope, 'Worker', resolve);
    wrapConstructor(scope, 'WebSocket', function (url) {
      var r = resolve(url);
      return r.replace(/^http(s?):/, 'ws$1:');
    });
    if (scope.XMLHttpRequest) {
      var open = scope.XMLHttpRequest.prototype.open;
      scope.XMLHttpRequest.prototype.open = function (method, url) {
        var a = Array.prototype.slice.call(arguments);
        if (a.length > 1) a[1] = resolve(url);
        return open.apply(this, a);
      };
    }

    var sync = globalThis[Symbol.for('pexe.html5fsSync')];
    if (sync) {
      var post = scope.postMessage;
      var Channel = scope.MessageChannel;
      sync.install(scope, {
        openBridge: function () {
          var channel = new Channel();
          var message = {};
          message[BRIDGE] = 1;
          message.port = channel.port2;
          post.call(scope, message, [channel.port2]);
          return channel.port1;
        },
      });
    }
  }

  Object.defineProperty(globalThis, KEY, { value: Object.freeze({ start: start, BRIDGE: BRIDGE }) });
})();
