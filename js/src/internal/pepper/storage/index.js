// The file systems a plugin and its page share: one temporary and one
// persistent store (store.js) per origin — per run in Node.
//
//   Node      temporary: memory; persistent: memory, or a host directory
//             (`pexe run --storage DIR`, node-dir.js)
//   page      both in the Origin Private File System (opfs.js), else in
//             IndexedDB (idb.js), else in memory on the page, which serves
//             them to the plugin's host Worker over a MessagePort (remote.js)
//
// `Storage` hands out the two stores; the browser side of Pepper
// (ppb/file-system.js) and the page's legacy API (../html5fs-page.js)
// take one each. A page's Storage describes itself for the plugin's host
// Worker (`describe()`, structured-cloneable with its transfer list), and
// the Worker rebuilds the same view of the same data with
// `storageFromDescription()`.

import { MemoryStore } from './memory.js';
import { NodeDirStore } from './node-dir.js';

const GiB = 2 ** 30;

/** Quotas where nothing better is known (bytes). */
export const DEFAULT_QUOTA = Object.freeze({
  /** Node's temporary file system, and a page's in-memory fallback. */
  temporary: 1 * GiB,
  /** Node's persistent file system (memory or --storage): no page grants it. */
  nodePersistent: 10 * GiB,
  /** A page's persistent quota before it asks for one (Chrome gave pages nothing). */
  pagePersistent: 0,
});

/** The two file systems of a plugin (and its page). */
export class Storage {
  /**
   * @param {object} o
   * @param {import('./store.js').Store} o.temporary
   * @param {import('./store.js').Store} o.persistent
   * @param {() => {description: object, transfer: Transferable[]}} [o.describe]
   */
  constructor({ temporary, persistent, describe = null }) {
    this.stores = { temporary, persistent };
    this.describer = describe;
    this.ready = new Map();
  }

  /** The store of `type` ('temporary' | 'persistent'), once it is usable. */
  get(type) {
    const store = this.stores[type];
    if (!store) return Promise.reject(new TypeError(`no ${type} file system`));
    let p = this.ready.get(type);
    if (!p) {
      p = store.ready().then(() => store);
      // A failed opening may be retried (a host directory that appears later).
      p.catch(() => this.ready.delete(type));
      this.ready.set(type, p);
    }
    return p;
  }

  /** Which backend holds the data (for reports and tests). */
  get backend() {
    return this.stores.persistent.kind;
  }

  /**
   * What the plugin's host Worker needs to reach the same data:
   * `{ description, transfer }`; null when this storage cannot be shared.
   */
  describe() {
    return this.describer ? this.describer() : null;
  }
}

/** Both file systems in memory (Node without --storage, tests). */
export function memoryStorage({ temporaryQuota = DEFAULT_QUOTA.temporary, persistentQuota = DEFAULT_QUOTA.nodePersistent } = {}) {
  return new Storage({
    temporary: new MemoryStore({ type: 'temporary', quota: temporaryQuota }),
    persistent: new MemoryStore({ type: 'persistent', quota: persistentQuota, maxQuota: persistentQuota }),
  });
}

/**
 * Node: temporary in memory; persistent in host directory `dir` when
 * given (it must exist), else in memory.
 * @param {object} node  the host's Node modules ({ fs, path })
 */
export function nodeStorage(node, { dir = null, temporaryQuota = DEFAULT_QUOTA.temporary, persistentQuota = DEFAULT_QUOTA.nodePersistent } = {}) {
  const temporary = new MemoryStore({ type: 'temporary', quota: temporaryQuota });
  const persistent = dir
    ? new NodeDirStore({ type: 'persistent', quota: persistentQuota, maxQuota: persistentQuota, dir, node })
    : new MemoryStore({ type: 'persistent', quota: persistentQuota, maxQuota: persistentQuota });
  return new Storage({ temporary, persistent });
}
