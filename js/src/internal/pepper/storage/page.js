// The file systems of a page and of its plugins' host Workers.
//
// The page decides where its files live (`pageStorage()`): the Origin
// Private File System where it works, else IndexedDB, else memory (a
// private window, an opaque origin) — or what `backend` forces (tests,
// users who want IndexedDB). Each plugin's host Worker gets a MessagePort
// to the page's Storage (`storage.link()`, passed through
// startPluginInPage) and asks it, once, which backend it uses
// (`connectStorage(port)`): OPFS and IndexedDB it then opens itself (the
// same origin storage the page sees); memory it uses through the port
// (RemoteStore), the page serving it. So the page's legacy FileSystem API
// (../html5fs-page.js) and every plugin of the page share one store per
// type, whatever the browser offers.
//
// The port protocol (structured clone):
//   worker → page  { id, op: 'backend' }
//                  { id, op: 'call', type, method, args }
//   page → worker  { id, value } | { id, error: { code, message } }
//   backend answer: { backend: 'opfs'|'idb'|'memory', name, quotas: { temporary, persistent, maxPersistent } }

import { CODE, StoreError } from './errors.js';
import { IdbStore, idbAvailable } from './idb.js';
import { MemoryStore } from './memory.js';
import { OpfsStore, opfsAvailable } from './opfs.js';
import { DEFAULT_QUOTA, Storage } from './index.js';
import { Store } from './store.js';

/** The methods a RemoteStore forwards. */
const METHODS = ['stat', 'readdir', 'mkdir', 'remove', 'rename', 'copy', 'touch', 'open', 'read', 'write', 'setLength', 'fstat', 'ftouch', 'flush', 'close', 'usageAndQuota', 'requestQuota'];

/** The quotas a page's file systems get: what the browser lets this origin store. */
async function browserQuota() {
  try {
    const { quota } = await globalThis.navigator.storage.estimate();
    if (Number.isFinite(quota) && quota > 0) return quota;
  } catch {
    // no StorageManager here
  }
  return DEFAULT_QUOTA.temporary;
}

/** Picks the backend for `backend` ('auto' | 'opfs' | 'idb' | 'memory'). */
async function chooseBackend(backend) {
  if (backend === 'opfs' || backend === 'idb' || backend === 'memory') return backend;
  if (await opfsAvailable()) return 'opfs';
  if (idbAvailable()) return 'idb';
  return 'memory';
}

/** The two stores of `backend` with these quotas. */
function makeStores(backend, name, quotas) {
  const temporary = { type: 'temporary', quota: quotas.temporary, maxQuota: quotas.temporary };
  const persistent = { type: 'persistent', quota: quotas.persistent, maxQuota: quotas.maxPersistent };
  switch (backend) {
    case 'opfs':
      return { temporary: new OpfsStore({ ...temporary, rootName: name }), persistent: new OpfsStore({ ...persistent, rootName: name }) };
    case 'idb':
      return { temporary: new IdbStore({ ...temporary, name }), persistent: new IdbStore({ ...persistent, name }) };
    default:
      return { temporary: new MemoryStore(temporary), persistent: new MemoryStore(persistent) };
  }
}

/**
 * A store that opens itself on first use: the backend is chosen (and the
 * browser's quota asked) asynchronously, but a page's Storage must exist
 * at once.
 */
class LazyStore extends Store {
  constructor(type, resolve) {
    super({ type, quota: 0 });
    this.kind = 'lazy';
    this.resolveStore = resolve;
    this.inner = null;
  }

  async ready() {
    this.inner ??= await this.resolveStore();
    await this.inner.ready();
    this.kind = this.inner.kind;
  }

  get usage() {
    return this.inner?.usage ?? 0;
  }

  set usage(v) {
    // set by Store's constructor only
  }

  get quota() {
    return this.inner?.quota ?? 0;
  }

  set quota(v) {
    if (this.inner) this.inner.quota = v;
  }
}
for (const m of METHODS) {
  LazyStore.prototype[m] = async function forward(...args) {
    await this.ready();
    return this.inner[m](...args);
  };
}

/**
 * The page's Storage. Options: `backend` ('auto' | 'opfs' | 'idb' |
 * 'memory'), `name` (the OPFS directory / IndexedDB database; default
 * 'pexe' / 'pexe-storage'), `persistentQuota` (granted before the page
 * asks; default Chrome's: 0).
 */
export function pageStorage({ backend = 'auto', name = null, persistentQuota = DEFAULT_QUOTA.pagePersistent } = {}) {
  let chosen = null;
  const choose = () => {
    chosen ??= (async () => {
      const which = await chooseBackend(backend);
      const max = await browserQuota();
      const quotas = { temporary: max, persistent: Math.min(persistentQuota, max), maxPersistent: max };
      const storeName = name ?? (which === 'idb' ? 'pexe-storage' : 'pexe');
      return { backend: which, name: storeName, quotas, stores: makeStores(which, storeName, quotas) };
    })();
    return chosen;
  };
  const storage = new Storage({
    temporary: new LazyStore('temporary', async () => (await choose()).stores.temporary),
    persistent: new LazyStore('persistent', async () => (await choose()).stores.persistent),
  });
  /** Which backend this page uses (once chosen). */
  storage.backendInfo = async () => {
    const c = await choose();
    return { backend: c.backend, name: c.name, quotas: c.quotas };
  };
  /** A port for a plugin's host Worker (connectStorage on the other end): `{ port, transfer }`. */
  storage.link = () => {
    const channel = new MessageChannel();
    serveStorage(storage, channel.port1);
    return { port: channel.port2, transfer: [channel.port2] };
  };
  return storage;
}

/** Answers `port`'s requests (the protocol above) from `storage`. */
export function serveStorage(storage, port) {
  port.onmessage = async (e) => {
    const { id, op, type, method, args } = e.data ?? {};
    try {
      let value;
      if (op === 'backend') {
        value = await storage.backendInfo();
        // The Worker opens OPFS and IndexedDB itself; memory stays here.
        if (value.backend === 'opfs' || value.backend === 'idb') {
          const q = await Promise.all(['temporary', 'persistent'].map(async (t) => (await storage.get(t)).usageAndQuota()));
          value.quotas = { ...value.quotas, persistent: q[1].quota };
        }
      } else if (op === 'call' && METHODS.includes(method) && (type === 'temporary' || type === 'persistent')) {
        const store = await storage.get(type);
        value = await store[method](...(args ?? []));
      } else {
        throw new StoreError(CODE.FAILED, `unknown storage request ${op}`);
      }
      port.postMessage({ id, value });
    } catch (err) {
      port.postMessage({ id, error: { code: err?.code ?? CODE.FAILED, message: String(err?.message ?? err) } });
    }
  };
  port.start?.();
}

/** A store served by the page over a MessagePort (the page's memory stores). */
export class RemoteStore extends Store {
  constructor(type, call) {
    super({ type, quota: 0 });
    this.kind = 'remote';
    this.call = call;
  }

  async ready() {
    const { usage, quota } = await this.call('usageAndQuota', []);
    this.usage = usage;
    this.quota = quota;
  }
}
for (const m of METHODS) {
  RemoteStore.prototype[m] = function forward(...args) {
    return this.call(m, args);
  };
}

/**
 * In a plugin's host Worker: the page's Storage, reached through `port`
 * (from `storage.link()`). Resolves once the page has said which backend
 * it uses.
 */
export async function connectStorage(port) {
  let next = 1;
  const waiting = new Map();
  port.onmessage = (e) => {
    const { id, value, error } = e.data ?? {};
    const w = waiting.get(id);
    if (!w) return;
    waiting.delete(id);
    if (error) w.reject(new StoreError(error.code, error.message));
    else w.resolve(value);
  };
  port.start?.();
  const request = (msg) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      port.postMessage({ id, ...msg });
    });
  const info = await request({ op: 'backend' });
  if (info.backend === 'memory') {
    const remote = (type) => new RemoteStore(type, (method, args) => request({ op: 'call', type, method, args }));
    return new Storage({ temporary: remote('temporary'), persistent: remote('persistent') });
  }
  const stores = makeStores(info.backend, info.name, info.quotas);
  return new Storage(stores);
}
