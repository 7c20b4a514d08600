// The drop-in polyfill's second half, loaded by ../../polyfill.js with a
// dynamic import once the page may start plugins: it adopts every NaCl
// element of the document, present now or added later, and keeps each
// one's instance in step with the DOM (nacl-embed-facts.md §7):
//
//   inserted / type becomes application/x-pnacl   a new instance starts
//   removed / type changes away                   the instance ends, silently
//   src (or <object data>) or type changed        a new instance replaces it
//   moved (removed and inserted)                  a new instance, as in Chrome
//   under display: none (no layout box)           no instance until shown;
//                                                 hiding it ends the instance
//
// An `<embed>` inside an `<object>` that is itself a NaCl element is that
// object's fallback content and never runs. Elements are found once at
// start and then through one MutationObserver on the document; a script
// that reads a member of an element before the observer has seen it
// adopts the element on the spot (polyfill.js's members call
// `registry.controllerFor`), as reading a property instantiated Chrome's
// plugin synchronously.

import { normalizeConfig } from './config.js';
import { PluginController, isPnaclElement } from './controller.js';
import { installFileSystemUrls } from './file-urls.js';
import { installPageFileSystem, serveWorkerFileSystems, sharedPageStorage } from './file-system.js';
import { ensureStyle } from './style.js';

const SELECTOR = 'embed, object';
/** Attributes whose change may show or hide an element (`display: none`). */
const RESTYLE = new Set(['style', 'class', 'hidden']);

/** Elements that embed() runs (public/embed.js): not the polyfill's. */
const embedded = (globalThis[Symbol.for('pexe.embedded')] ??= new WeakMap());

/** Whether `el` is fallback content of an `<object>` the polyfill runs. */
function insideNaClObject(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (p.localName === 'object' && isPnaclElement(p)) return true;
  }
  return false;
}

/**
 * Starts adopting elements. `registry` is polyfill.js's shared state:
 * `rawConfig` (window.PexeConfig), `pending` (element → messages posted
 * before this module loaded), and `controllerFor`, set here.
 */
export function start(registry) {
  const config = normalizeConfig(registry.rawConfig, (w) => console.warn(`pexe: ${w}`));
  const controllers = new Map();
  ensureStyle();
  // The page's legacy file system API over the plugins' store, before any
  // element starts (its stand-ins have kept what the page called so far).
  if (config.fileSystem !== false) {
    const installed = installPageFileSystem(sharedPageStorage(config.fileSystem), registry.fileSystem);
    // The filesystem: URLs its entries make, playable by <audio> and <video>.
    installFileSystemUrls(window, installed.api.ops);
    if (registry.workerBridges) serveWorkerFileSystems(sharedPageStorage(config.fileSystem), registry.workerBridges);
  }

  // Chrome made a plugin only for an element with a layout box: one under
  // `display: none` has no instance until it is shown, and hiding it ends
  // the instance (nacl-embed-facts.md §2; the SDK's pages hide with a zero
  // height instead). A ResizeObserver sees an element gain or lose its box.
  const rendered = (el) => typeof el.getClientRects !== 'function' || el.getClientRects().length > 0;
  const wanted = (el) =>
    el.isConnected && isPnaclElement(el) && !embedded.has(el) && !insideNaClObject(el) && rendered(el);
  const boxes = typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => {
    for (const e of entries) if (!embedded.has(e.target)) sync(e.target);
  }) : null;
  const watch = (el) => {
    if (el.isConnected && isPnaclElement(el) && !embedded.has(el)) boxes?.observe(el);
    else boxes?.unobserve(el);
  };

  const adopt = (el) => {
    const c = new PluginController(el, { config });
    controllers.set(el, c);
    c.start();
    const pending = registry.pending.get(el);
    registry.pending.delete(el);
    for (const message of pending ?? []) c.postMessage(message);
    return c;
  };

  /** Brings `el`'s instance in line with its state; `restart` forces a new one. */
  const sync = (el, restart = false) => {
    watch(el);
    const c = controllers.get(el);
    if (!wanted(el)) {
      if (c) {
        c.stop();
        controllers.delete(el);
      }
      return;
    }
    if (!c) adopt(el);
    else if (restart) c.start();
  };

  registry.controllerFor = (el) => embedded.get(el) ?? controllers.get(el) ?? (wanted(el) ? adopt(el) : null);

  const collect = (node, into) => {
    if (node.nodeType !== 1) return;
    if (node.localName === 'embed' || node.localName === 'object') into.add(node);
    for (const el of node.querySelectorAll(SELECTOR)) into.add(el);
  };

  const observer = new MutationObserver((records) => {
    const removed = new Set();
    const added = new Set();
    const changed = new Set();
    const touched = new Set();
    let restyled = false;
    for (const r of records) {
      if (r.type === 'childList') {
        for (const n of r.removedNodes) collect(n, removed);
        for (const n of r.addedNodes) collect(n, added);
      } else if (r.type === 'attributes') {
        const el = r.target;
        if (RESTYLE.has(r.attributeName)) {
          // The polyfill's own boxes are restyled every frame: not the page's doing.
          if (!el.closest?.('[data-pexe-surface], [data-pexe-overlay]')) restyled = true;
          continue;
        }
        if (el.localName !== 'embed' && el.localName !== 'object') continue;
        touched.add(el);
        if (el.getAttribute(r.attributeName) !== r.oldValue) changed.add(el);
      }
    }
    // Removals first (an <object> leaving frees its fallback <embed>s).
    for (const el of removed) if (!added.has(el)) sync(el);
    for (const el of added) sync(el, removed.has(el) && controllers.has(el));
    for (const el of touched) if (!added.has(el)) sync(el, changed.has(el));
    // A style, class or hidden change may have given an element its layout
    // box or taken it (a size change is the ResizeObserver's).
    if (restyled) {
      for (const el of document.querySelectorAll(SELECTOR)) {
        if (isPnaclElement(el) && !embedded.has(el) && wanted(el) !== controllers.has(el)) sync(el);
      }
    }
    // An object that became or stopped being NaCl changes its fallback content's fate.
    for (const el of [...added, ...touched]) {
      if (el.localName === 'object') for (const inner of el.querySelectorAll(SELECTOR)) sync(inner);
    }
  });
  observer.observe(document, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['src', 'type', 'data', ...RESTYLE],
    attributeOldValue: true,
  });
  for (const el of document.querySelectorAll(SELECTOR)) sync(el);

  return { config, controllers, observer };
}
