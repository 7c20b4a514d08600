// pexe's drop-in polyfill for legacy NaCl pages: one tag added to a page
// that was written for Chrome's PNaCl plugin, and its
// `<embed type="application/x-pnacl">` / `<object type="application/x-pnacl">`
// elements run again, in any browser, with the page's own code untouched.
//
//   <script src=".../pexe/polyfill.js"></script>                 classic: works everywhere
//   <script type="module" src=".../pexe/polyfill.js"></script>   module: pages that wait for `load`
//
// Which tag a page needs: a module script runs only after the page has
// been parsed, so it is too late for a page whose inline scripts touch the
// element while the page is still being parsed (niklasf's Stockfish page
// calls `stockfish.postMessage('uci')` right after its `<embed>`). Put the
// classic tag in the page's <head> for those; either works for pages that
// create their elements later or wait for DOMContentLoaded / `load`.
// Options: `window.PexeConfig = { … }` before the tag (js/README.md).
//
// This file is both a classic script and a module, so it has no
// import/export statements. What pages can observe at once is installed
// here, synchronously:
//   - navigator.mimeTypes['application/x-pnacl'] and the "Native Client"
//     entry of navigator.plugins, as Chrome answered them (pages probe
//     these before they create the element);
//   - the members Chrome's plugin gave NaCl elements: postMessage,
//     postMessageAndAwaitResponse, readyState, lastError, exitStatus (on
//     the element prototypes, answering only for elements of the PNaCl
//     type; messages posted before the rest has loaded are kept);
//   - a style rule hiding the browser's "plugin not supported" placeholder;
//   - stand-ins for the legacy HTML5 FileSystem API (webkitRequestFileSystem,
//     navigator.webkitPersistentStorage/webkitTemporaryStorage, …) that keep
//     the page's calls until internal/polyfill/file-system.js puts the real
//     one in place — over the same store the plugins' PPB_FileSystem uses
//     (PexeConfig.fileSystem: false leaves the browser's own alone);
//   - the page's `Worker` constructor, wrapped so its Workers get the
//     synchronous API (webkitRequestFileSystemSync) over that store too
//     (internal/polyfill/worker-prelude.js);
//   - with PexeConfig.serviceWorker, cross-origin isolation for hosts that
//     cannot send the headers (pexe-sw.js; one reload on the first visit).
// The rest (internal/polyfill/main.js and what it needs: the translator,
// the runtime) is loaded with a dynamic import(), which resolves against
// this script's own URL in both forms, and through bundlers.
//
// Where it falls short of Chrome: elements hidden with display:none still
// run (Chrome tore such a plugin down); `application/x-nacl` (native
// .nexe) is not claimed; graphics, audio and input interfaces are not
// there yet (such plugins get NULL for them and say so in the console).

(function () {
  'use strict';
  if (typeof window === 'undefined' || typeof document === 'undefined') return;
  var KEY = Symbol.for('pexe.polyfill');
  if (window[KEY]) return; // loaded twice: the first one stays in charge
  var TYPE = 'application/x-pnacl';
  var raw = window.PexeConfig && typeof window.PexeConfig === 'object' ? window.PexeConfig : {};

  /** Shared with main.js: the options, messages posted early, and the adopter. */
  var registry = {
    rawConfig: raw,
    pending: new WeakMap(),
    controllerFor: null,
    started: null,
    scriptUrl: ownUrl(),
    fileSystem: null,
    workerBridges: null,
  };
  window[KEY] = registry;

  function ownUrl() {
    var s = document.currentScript;
    if (s && s.src) return s.src;
    // A module script has no currentScript: take it from a stack trace.
    try {
      throw new Error();
    } catch (e) {
      var m = /((?:https?|file|blob):\/\/[^\s)]*?polyfill[^\s):]*\.js)/.exec(String(e.stack));
      if (m) return m[1];
    }
    return null;
  }

  function isNaCl(el) {
    var name = el && el.localName;
    if (name !== 'embed' && name !== 'object') return false;
    return String(el.getAttribute('type') || '').trim().toLowerCase() === TYPE;
  }

  // ------------------------------------------------------------ probes

  function installProbes() {
    var nav = window.navigator;
    var realMimes = nav.mimeTypes;
    if (realMimes && realMimes[TYPE]) return; // a real NaCl plugin: leave it alone
    var plugin = {};
    var mime = {};
    Object.defineProperties(mime, {
      type: { value: TYPE, enumerable: true },
      suffixes: { value: '', enumerable: true },
      description: { value: 'Portable Native Client Executable', enumerable: true },
      enabledPlugin: { value: plugin, enumerable: true },
    });
    if (window.MimeType) Object.setPrototypeOf(mime, window.MimeType.prototype);
    Object.defineProperties(plugin, {
      name: { value: 'Native Client', enumerable: true },
      description: { value: '', enumerable: true },
      filename: { value: 'internal-nacl-plugin', enumerable: true },
      length: { value: 1, enumerable: true },
      0: { value: mime, enumerable: true },
      item: { value: function (i) { return Number(i) === 0 ? mime : null; } },
      namedItem: { value: function (n) { return n === TYPE ? mime : null; } },
    });
    plugin[TYPE] = mime;
    plugin[Symbol.iterator] = function () { return [mime][Symbol.iterator](); };
    if (window.Plugin) Object.setPrototypeOf(plugin, window.Plugin.prototype);
    defineList(nav, 'plugins', nav.plugins, plugin, 'name');
    defineList(nav, 'mimeTypes', realMimes, mime, 'type');
  }

  /** navigator[prop]: the browser's list with `extra` appended, indexed and named. */
  function defineList(nav, prop, real, extra, nameKey) {
    var items = [];
    for (var i = 0; real && i < real.length; i++) items.push(real[i]);
    items.push(extra);
    var list = {};
    items.forEach(function (item, index) {
      Object.defineProperty(list, index, { value: item, enumerable: true });
      if (!(item[nameKey] in list)) Object.defineProperty(list, item[nameKey], { value: item });
    });
    Object.defineProperties(list, {
      length: { value: items.length },
      item: { value: function (i) { return items[Number(i)] || null; } },
      namedItem: { value: function (n) { return list[n] && items.indexOf(list[n]) >= 0 ? list[n] : null; } },
      refresh: { value: function () {} },
    });
    list[Symbol.iterator] = function () { return items[Symbol.iterator](); };
    if (real) Object.setPrototypeOf(list, Object.getPrototypeOf(real));
    Object.defineProperty(nav, prop, { configurable: true, enumerable: true, get: function () { return list; } });
  }

  // ------------------------------------------------------------ element members

  function controllerOf(el) {
    return registry.controllerFor ? registry.controllerFor(el) : null;
  }

  function postMessage(message) {
    // Chrome: "We don't [throw] now for backward compatibility."
    if (arguments.length !== 1) return;
    var c = controllerOf(this);
    if (c) {
      c.postMessage(message);
      return;
    }
    var queue = registry.pending.get(this);
    if (!queue) registry.pending.set(this, (queue = []));
    queue.push(message);
  }

  function postMessageAndAwaitResponse(message) {
    if (arguments.length !== 1) throw new Error('postMessageAndAwaitResponse requires one argument');
    var c = controllerOf(this);
    if (!c) throw new Error('Attempted to call a synchronous method on a plugin that was not yet loaded.');
    return c.postMessageAndAwaitResponse(message);
  }

  function installMembers(proto) {
    if (!proto) return;
    var methods = { postMessage: postMessage, postMessageAndAwaitResponse: postMessageAndAwaitResponse };
    Object.keys(methods).forEach(function (name) {
      var fn = methods[name];
      Object.defineProperty(proto, name, {
        configurable: true,
        get: function () { return isNaCl(this) ? fn : undefined; },
        set: function (v) {
          if (isNaCl(this)) throw new Error('Cannot set properties with the name postMessageor postMessageAndAwaitResponse');
          Object.defineProperty(this, name, { value: v, writable: true, configurable: true, enumerable: true });
        },
      });
    });
    var fields = {
      readyState: function (c) { return c ? c.readyState : undefined; },
      lastError: function (c) { return c ? c.lastError : ''; },
      exitStatus: function (c) { return c ? c.exitStatus : -1; },
    };
    Object.keys(fields).forEach(function (name) {
      var read = fields[name];
      Object.defineProperty(proto, name, {
        configurable: true,
        get: function () { return isNaCl(this) ? read(controllerOf(this)) : undefined; },
        set: function (v) {
          // Chrome kept these read-only; other elements may use the names freely.
          if (!isNaCl(this)) Object.defineProperty(this, name, { value: v, writable: true, configurable: true, enumerable: true });
        },
      });
    });
  }

  // ------------------------------------------------------------ isolation

  /**
   * Resolves when plugins may start: at once, unless PexeConfig.serviceWorker
   * asks for cross-origin isolation that this page lacks; then the service
   * worker is registered and the page reloaded once it controls it (once
   * per tab session: if the reload did not isolate the page, it goes on
   * without, and says so).
   */
  function isolation() {
    var sw = raw.serviceWorker;
    if (!sw) return Promise.resolve();
    var guard = 'pexe-sw-reload:' + location.pathname;
    var session = null;
    try {
      session = window.sessionStorage;
    } catch (e) {
      session = null;
    }
    if (window.crossOriginIsolated) {
      if (session) session.removeItem(guard);
      return Promise.resolve();
    }
    if (!window.isSecureContext || !navigator.serviceWorker) {
      console.warn('pexe: PexeConfig.serviceWorker needs a secure context (https or localhost) with service workers; threads will run cooperatively');
      return Promise.resolve();
    }
    var spec = typeof sw === 'object' ? sw : { url: sw };
    var url;
    try {
      url = new URL(typeof spec.url === 'string' ? spec.url : 'pexe-sw.js', typeof spec.url === 'string' ? document.baseURI : registry.scriptUrl || document.baseURI);
    } catch (e) {
      console.warn('pexe: PexeConfig.serviceWorker: bad URL ' + spec.url);
      return Promise.resolve();
    }
    if (spec.coep === 'require-corp') url.searchParams.set('coep', 'require-corp');
    var reload = function () {
      if (session && session.getItem(guard)) {
        console.warn('pexe: the service worker ' + url.pathname + ' did not make this page cross-origin isolated; threads will run cooperatively');
        return false;
      }
      if (session) session.setItem(guard, '1');
      location.reload();
      return true;
    };
    return new Promise(function (resolve) {
      navigator.serviceWorker.register(url.href, spec.scope ? { scope: spec.scope } : undefined).then(
        function () {
          if (navigator.serviceWorker.controller) {
            if (!reload()) resolve();
            return;
          }
          navigator.serviceWorker.addEventListener('controllerchange', function () {
            if (!reload()) resolve();
          });
          // A worker that never takes control (its scope does not cover
          // this page): go on without isolation.
          setTimeout(function () {
            if (!navigator.serviceWorker.controller) {
              console.warn('pexe: the service worker ' + url.pathname + ' does not control this page (is its scope above the page?); threads will run cooperatively');
              resolve();
            }
          }, 5000);
        },
        function (e) {
          console.warn('pexe: could not register the service worker ' + url.pathname + ': ' + (e && e.message));
          resolve();
        },
      );
    });
  }

  // ------------------------------------------------------------ file systems

  /**
   * Stand-ins for the legacy file system API, installed now so a page that
   * calls it before main.js has loaded is not lost (or, in Chromium, sent
   * to the browser's own store, which the plugins cannot see): each call is
   * kept in `registry.fileSystem.queue` and replayed, and once the real API
   * is in place the stand-ins forward to it (a page may keep a reference).
   */
  function installFileSystemStandIns() {
    if (raw.fileSystem === false) return;
    var state = { queue: [], forward: null };
    registry.fileSystem = state;
    var standIn = function (name) {
      return function () {
        var args = Array.prototype.slice.call(arguments);
        if (state.forward) return state.forward(name, args);
        state.queue.push([name, args]);
      };
    };
    var define = function (target, name, value) {
      if (target) Object.defineProperty(target, name, { value: value, configurable: true, writable: true, enumerable: false });
    };
    var quota = function (prefix) {
      return {
        requestQuota: standIn(prefix + '.requestQuota'),
        queryUsageAndQuota: standIn(prefix + '.queryUsageAndQuota'),
      };
    };
    define(window, 'TEMPORARY', 0);
    define(window, 'PERSISTENT', 1);
    define(window, 'webkitRequestFileSystem', standIn('webkitRequestFileSystem'));
    define(window, 'webkitResolveLocalFileSystemURL', standIn('webkitResolveLocalFileSystemURL'));
    define(window, 'resolveLocalFileSystemURL', standIn('resolveLocalFileSystemURL'));
    var info = quota('webkitStorageInfo');
    info.TEMPORARY = 0;
    info.PERSISTENT = 1;
    define(window, 'webkitStorageInfo', info);
    define(window.navigator, 'webkitPersistentStorage', quota('webkitPersistentStorage'));
    define(window.navigator, 'webkitTemporaryStorage', quota('webkitTemporaryStorage'));
  }

  /**
   * The page's Workers get the synchronous legacy file system API over the
   * same store (internal/polyfill/worker-prelude.js says how): `Worker`
   * becomes a Proxy of the browser's constructor that starts a same-origin
   * http(s) or blob: script through a small blob: script loading the
   * preludes first. The polyfill's own Workers (under its folder),
   * cross-origin and data: URLs go to the browser's constructor untouched.
   * A bridge port a Worker posts (`{ 'pexe.fileSystemBridge': 1, port }`)
   * is taken by a listener on the Worker object that runs before the
   * page's own, and kept in `registry.workerBridges.queue` until main.js
   * serves it.
   */
  function installWorkerWrapper() {
    if (raw.fileSystem === false) return;
    var Native = window.Worker;
    if (typeof Native !== 'function' || typeof Proxy !== 'function' || !registry.scriptUrl) return;
    var own = new URL('.', registry.scriptUrl).href;
    var preludes = [new URL('internal/pepper/html5fs-sync-worker.js', own).href, new URL('internal/polyfill/worker-prelude.js', own).href];
    var BRIDGE = 'pexe.fileSystemBridge';
    var bridges = { queue: [], serve: null };
    registry.workerBridges = bridges;
    var take = function (e) {
      var d = e.data;
      if (!d || typeof d !== 'object' || d[BRIDGE] !== 1 || !(d.port instanceof MessagePort)) return;
      e.stopImmediatePropagation();
      if (bridges.serve) bridges.serve(d.port);
      else bridges.queue.push(d.port);
    };
    var q = JSON.stringify;
    var script = function (href, module) {
      var start = 'self[Symbol.for("pexe.workerPrelude")].start(' + q({ url: href, type: module ? 'module' : 'classic' }) + ');';
      if (module) {
        return 'import ' + q(preludes[0]) + ';\nimport ' + q(preludes[1]) + ';\nimport ' + q('data:text/javascript,' + encodeURIComponent(start)) + ';\nimport ' + q(href) + ';\n';
      }
      return 'importScripts(' + q(preludes[0]) + ', ' + q(preludes[1]) + ');\n' + start + '\nimportScripts(' + q(href) + ');\n';
    };
    var proxy = new Proxy(Native, {
      construct: function (target, args, newTarget) {
        var nt = newTarget === proxy ? target : newTarget;
        var href = null;
        try {
          if (args.length > 0) href = new URL(String(args[0]), document.baseURI).href;
        } catch (e) {
          href = null; // the browser throws its own SyntaxError
        }
        var u = href ? new URL(href) : null;
        var wrap = u && (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'blob:') && u.origin === location.origin && href.indexOf(own) !== 0;
        if (!wrap) return Reflect.construct(target, args, nt);
        var options = args[1];
        var module = !!(options && typeof options === 'object' && options.type === 'module');
        var blob = URL.createObjectURL(new Blob([script(href, module)], { type: 'text/javascript' }));
        var worker;
        try {
          worker = Reflect.construct(target, [blob].concat(Array.prototype.slice.call(args, 1)), nt);
        } finally {
          // The Worker has taken the blob's contents: the URL may go.
          URL.revokeObjectURL(blob);
        }
        worker.addEventListener('message', take, true);
        return worker;
      },
    });
    Object.defineProperty(Native.prototype, 'constructor', { value: proxy, configurable: true, writable: true, enumerable: false });
    Object.defineProperty(window, 'Worker', { value: proxy, configurable: true, writable: true, enumerable: false });
  }

  // NaCl elements draw nothing of their own (internal/polyfill/style.js, which says why).
  function installStyle() {
    if (document.getElementById('pexe-nacl-style')) return;
    var style = document.createElement('style');
    style.id = 'pexe-nacl-style';
    style.textContent = ':where(embed[type="application/x-pnacl" i], object[type="application/x-pnacl" i]) { opacity: 0; }';
    (document.head || document.documentElement).appendChild(style);
  }

  installProbes();
  installStyle();
  installFileSystemStandIns();
  installWorkerWrapper();
  installMembers(window.HTMLEmbedElement && window.HTMLEmbedElement.prototype);
  installMembers(window.HTMLObjectElement && window.HTMLObjectElement.prototype);
  registry.started = isolation()
    .then(function () {
      return import('./internal/polyfill/main.js');
    })
    .then(function (main) {
      return main.start(registry);
    })
    .catch(function (e) {
      console.error('pexe: the polyfill could not start: ' + (e && e.stack ? e.stack : e));
      throw e;
    });
  registry.started.catch(function () {});
})();
