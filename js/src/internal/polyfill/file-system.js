// The page's file systems, shared by everything that runs plugins in this
// page (the polyfill's elements and embed()'s): one Storage
// (../pepper/storage/page.js: OPFS, else IndexedDB, else memory), so a
// file one plugin writes the next one reads, and — for legacy pages — the
// same store the page's own `webkitRequestFileSystem` sees.
//
// Legacy pages call that API early (Maelstrom's on `load`, kichikuou's
// and nsg's on DOMContentLoaded), possibly before this module has loaded:
// ../../polyfill.js installs stand-ins synchronously that keep the calls
// (`registry.fileSystem.queue`); `installPageFileSystem` puts the real API
// (../pepper/html5fs-page.js) in their place, replays what was kept, and
// from then on the stand-ins (which a page may have kept a reference to,
// e.g. `const ps = navigator.webkitPersistentStorage`) forward to it.
//
// The page's Workers (made through polyfill.js's Worker wrapper) call the
// synchronous API; `serveWorkerFileSystems` answers them in a helper
// Worker (../pepper/html5fs-sync-host.js) over the same Storage.

import { installLegacyFileSystem } from '../pepper/html5fs-page.js';
import { pageStorage } from '../pepper/storage/page.js';

const KEY = Symbol.for('pexe.pageStorage');

/** The page's Storage (made on first use; `backend` only counts then). */
export function sharedPageStorage(backend = 'auto') {
  globalThis[KEY] ??= pageStorage({ backend: backend === true ? 'auto' : backend });
  return globalThis[KEY];
}

/** The function behind each stand-in's name, in html5fs-page.js's API. */
function realFunctions(api) {
  const bound = (owner, fn) => (owner && typeof owner[fn] === 'function' ? owner[fn].bind(owner) : null);
  return {
    webkitRequestFileSystem: api.requestFileSystem,
    webkitResolveLocalFileSystemURL: api.resolveLocalFileSystemURL,
    resolveLocalFileSystemURL: api.resolveLocalFileSystemURL,
    'webkitPersistentStorage.requestQuota': bound(api.persistentStorage, 'requestQuota'),
    'webkitPersistentStorage.queryUsageAndQuota': bound(api.persistentStorage, 'queryUsageAndQuota'),
    'webkitTemporaryStorage.requestQuota': bound(api.temporaryStorage, 'requestQuota'),
    'webkitTemporaryStorage.queryUsageAndQuota': bound(api.temporaryStorage, 'queryUsageAndQuota'),
    'webkitStorageInfo.requestQuota': bound(api.storageInfo, 'requestQuota'),
    'webkitStorageInfo.queryUsageAndQuota': bound(api.storageInfo, 'queryUsageAndQuota'),
  };
}

/**
 * Installs the legacy API over `storage` and hands the stand-ins' calls
 * to it. `state` is polyfill.js's `registry.fileSystem`
 * (`{ queue: [[name, args]…], forward: null }`), or null when polyfill.js
 * installed none (embed() on a page without the polyfill).
 */
export function installPageFileSystem(storage, state) {
  const installed = installLegacyFileSystem(window, storage);
  const real = realFunctions(installed.api);
  if (state) {
    state.forward = (name, args) => {
      const f = real[name];
      if (!f) throw new TypeError(`${name} is not available`);
      return f(...args);
    };
    for (const [name, args] of state.queue.splice(0)) {
      try {
        state.forward(name, args);
      } catch (e) {
        console.error(`pexe: ${name}:`, e);
      }
    }
  }
  return installed;
}

/**
 * Serves the page's Workers' synchronous file system calls from
 * `storage`: each bridge port polyfill.js's Worker wrapper took (`bridges`
 * is its `registry.workerBridges`: `{ queue, serve }`) goes to one helper
 * Worker, started on the first.
 */
export function serveWorkerFileSystems(storage, bridges) {
  let helper = null;
  const serve = (port) => {
    if (!helper) {
      helper = new Worker(new URL('../pepper/html5fs-sync-host.js', import.meta.url), { type: 'module', name: 'pexe file systems' });
      helper.onerror = (e) => console.error(`pexe: the file system helper failed: ${e.message ?? e}`);
      const { port: storagePort, transfer } = storage.link();
      helper.postMessage({ storagePort }, transfer);
    }
    helper.postMessage({ bridge: port }, [port]);
  };
  bridges.serve = serve;
  for (const port of bridges.queue.splice(0)) serve(port);
}
