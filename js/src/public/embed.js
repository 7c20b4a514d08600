// embed(element, { src, … }): a Pepper plugin (a PNaCl pexe that talks to
// its page by messages) running in a box of the page, with the element
// API Chrome's NaCl plugin had. The drop-in polyfill (../polyfill.js) does
// the same for every NaCl element of a legacy page; this is the call for
// pages written now. Types and documentation: ../index.d.ts.
//
//   const plugin = embed(document.getElementById('box'), { src: 'app.nmf' });
//   plugin.addEventListener('message', (e) => console.log(e.data));
//   await plugin.ready;             // the `load` event (rejects with lastError)
//   plugin.postMessage('hello');
//   plugin.destroy();
//
// `element` is either a NaCl `<embed>`/`<object>` (it is run as it is) or
// any other element, into which an `<embed type="application/x-pnacl">`
// filling it is inserted. `src` is a manifest (.nmf) URL as in Chrome, or
// — an extension — the URL of a .pexe, or its bytes (a Blob or any
// BufferSource), run without a manifest. Events are dispatched on the
// plugin's element (`plugin.element`), as the polyfill does.

import { DEFAULTS, normalizeConfig } from '../internal/polyfill/config.js';
import { PNACL_TYPE, PluginController, isPnaclElement } from '../internal/polyfill/controller.js';
import { ensureStyle } from '../internal/polyfill/style.js';

/** Elements run by embed(): the polyfill leaves them alone (it checks this map). */
const EMBEDDED = Symbol.for('pexe.embedded');
const embedded = (globalThis[EMBEDDED] ??= new WeakMap());

const live = new Set();
let observer = null;

/** Ends instances whose element left the document (one observer for all). */
function watchRemovals() {
  if (observer || typeof MutationObserver !== 'function') return;
  observer = new MutationObserver(() => {
    for (const p of live) if (!p.element.isConnected) p.stopForRemoval();
  });
  observer.observe(document, { childList: true, subtree: true });
}

const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v) || (typeof Blob === 'function' && v instanceof Blob);

/** Whether a URL names a pexe rather than a manifest (by its path). */
function isPexeUrl(src) {
  try {
    return /\.pexe$/i.test(new URL(src, document.baseURI).pathname);
  } catch {
    return false;
  }
}

/** A running plugin: what `embed()` returns. */
export class PexePlugin {
  #controller;
  #created;
  #blobUrl;

  constructor(controller, { created, blobUrl }) {
    this.#controller = controller;
    this.#created = created;
    this.#blobUrl = blobUrl;
    /** The `<embed>`/`<object>` the plugin runs in; its events are dispatched there. */
    this.element = controller.element;
    this.ready = this.#whenLoaded();
    this.ready.catch(() => {});
  }

  #whenLoaded() {
    return new Promise((resolve, reject) => {
      const el = this.element;
      const done = () => {
        el.removeEventListener('load', onLoad);
        el.removeEventListener('error', onError);
        el.removeEventListener('abort', onError);
      };
      const onLoad = () => {
        done();
        resolve(this);
      };
      const onError = () => {
        done();
        reject(new Error(this.lastError));
      };
      el.addEventListener('load', onLoad);
      el.addEventListener('error', onError);
      el.addEventListener('abort', onError);
    });
  }

  /** 1 (opened), 3 (loading), 4 (done), or undefined before the manifest request. */
  get readyState() {
    return this.#controller.readyState;
  }

  /** "" or "NaCl module load failed: …" / "NaCl module crashed". */
  get lastError() {
    return this.#controller.lastError;
  }

  /** -1, or the exit status once the module exited. */
  get exitStatus() {
    return this.#controller.exitStatus;
  }

  /** Posts `message` to the plugin (queued until it has loaded). */
  postMessage(message) {
    this.#controller.postMessage(message);
  }

  /** The plugin's synchronous answer (PPB_Messaging 1.2 handlers; cross-origin isolated pages). */
  postMessageAndAwaitResponse(message) {
    return this.#controller.postMessageAndAwaitResponse(message);
  }

  addEventListener(type, listener, options) {
    this.element.addEventListener(type, listener, options);
  }

  removeEventListener(type, listener, options) {
    this.element.removeEventListener(type, listener, options);
  }

  /** Ends the instance and starts a new one from the element's attributes. */
  restart() {
    live.add(this);
    this.#controller.start();
    this.ready = this.#whenLoaded();
    this.ready.catch(() => {});
  }

  /** Ends the instance; removes the element if embed() created it. */
  destroy() {
    this.stopForRemoval();
    if (this.#created) this.element.remove();
    embedded.delete(this.element);
  }

  /** @internal */
  stopForRemoval() {
    live.delete(this);
    this.#controller.stop();
    if (this.#blobUrl) URL.revokeObjectURL(this.#blobUrl);
    this.#blobUrl = null;
  }
}

/**
 * Runs the plugin `options.src` in `element` and returns its handle at
 * once (see index.d.ts for every option).
 */
export function embed(element, options = {}) {
  if (typeof document === 'undefined') {
    throw new TypeError('embed() needs a page (a DOM); in Node, run a plugin with run(pexe, { messages, onMessage })');
  }
  if (!element || element.nodeType !== 1) throw new TypeError('embed(element, options): element must be a DOM element');
  ensureStyle(element.ownerDocument);
  const { src, attributes, width, height, onLog, ...rest } = options;
  if (onLog !== undefined && typeof onLog !== 'function') throw new TypeError('embed(): onLog must be a function');
  const unknown = Object.keys(rest).filter((k) => !(k in DEFAULTS));
  if (unknown.length) throw new TypeError(`embed(): unknown option ${unknown.join(', ')}`);
  const config = normalizeConfig(rest, (w) => {
    throw new TypeError(`embed(): ${w.replace('PexeConfig.', 'option ')}`);
  });

  let blobUrl = null;
  let url = null;
  if (isBytes(src)) {
    const blob = src instanceof Blob ? src : new Blob([src], { type: 'application/x-pnacl' });
    url = blobUrl = URL.createObjectURL(blob);
  } else if (src !== undefined && src !== null) {
    url = String(src);
  }

  let target = element;
  let created = false;
  if (!isPnaclElement(element)) {
    if (url === null) throw new TypeError('embed(element, { src }): src is required unless element is a NaCl <embed>/<object>');
    target = document.createElement('embed');
    target.setAttribute('type', PNACL_TYPE);
    target.setAttribute('src', url);
    target.setAttribute('width', String(width ?? '100%'));
    target.setAttribute('height', String(height ?? '100%'));
    target.style.display = 'block';
    created = true;
  } else if (url !== null) {
    target.setAttribute('src', url);
  }
  const extra = Array.isArray(attributes) ? attributes : Object.entries(attributes ?? {});
  const direct = blobUrl || (url !== null && isPexeUrl(url)) ? { url } : null;
  const controller = new PluginController(target, {
    config,
    direct,
    extraAttributes: extra.map(([n, v]) => [String(n), String(v)]),
    onLog: onLog ?? null,
  });
  embedded.set(target, controller);
  // The element's own members, as the polyfill gives NaCl elements.
  Object.defineProperties(target, {
    postMessage: {
      configurable: true,
      value(message) {
        if (arguments.length === 1) controller.postMessage(message);
      },
    },
    postMessageAndAwaitResponse: {
      configurable: true,
      value(message) {
        if (arguments.length !== 1) throw new Error('postMessageAndAwaitResponse requires one argument');
        return controller.postMessageAndAwaitResponse(message);
      },
    },
    readyState: { configurable: true, get: () => controller.readyState },
    lastError: { configurable: true, get: () => controller.lastError },
    exitStatus: { configurable: true, get: () => controller.exitStatus },
  });
  if (created) element.appendChild(target);
  const plugin = new PexePlugin(controller, { created, blobUrl });
  live.add(plugin);
  watchRemovals();
  controller.start();
  return plugin;
}
