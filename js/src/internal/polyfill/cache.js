// The translation cache: translated modules kept in IndexedDB, keyed by
// the SHA-256 of the pexe and the translator's build, so that a second
// visit (or another page with the same pexe) skips translation.
//
// IndexedDB rather than the Cache API because it also exists on pages that
// are not secure contexts (plain http), where legacy pages often live.
//
//   database "pexe-translations" (version 1)
//     modules   key "<build>/<sha256>" → { wasm: Uint8Array, size, lastUsed }
//     urls      key pexe URL → { sha, build, etag, lastModified, length }
//
// `urls` lets a load predict, from the response headers alone (ETag or
// Last-Modified, and Content-Length), that the pexe is one it has already
// translated: it then reads the bytes without starting the translator,
// and still checks their hash before using the cached module. At most
// MAX_MODULES modules are kept, the least recently used go first. Any
// IndexedDB failure (private modes, quota, a blocked upgrade) turns the
// cache off for that load; it never fails a load.

const DB_NAME = 'pexe-translations';
const DB_VERSION = 1;
export const MAX_MODULES = 12;

const promised = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

const done = (tx) =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });

function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('modules')) db.createObjectStore('modules').createIndex('lastUsed', 'lastUsed');
      if (!db.objectStoreNames.contains('urls')) db.createObjectStore('urls');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error('the translation cache is blocked by another tab'));
  });
}

let shared = null;

/** What identifies a response's content without reading it. */
export function validators(headers) {
  const etag = headers.get('ETag');
  const lastModified = headers.get('Last-Modified');
  const length = headers.get('Content-Length');
  if ((!etag && !lastModified) || length === null) return null;
  return { etag, lastModified, length };
}

export class TranslationCache {
  constructor(db, build) {
    this.db = db;
    this.build = build;
  }

  /** The cache for translator build `build`, or null where IndexedDB fails. */
  static async open(build) {
    if (typeof indexedDB === 'undefined') return null;
    try {
      shared ??= openDb();
      return new TranslationCache(await shared, build);
    } catch {
      shared = null;
      return null;
    }
  }

  key(sha) {
    return `${this.build}/${sha}`;
  }

  /** The SHA-256 this cache recorded for `url` if `headers` show the same content, else null. */
  async expected(url, headers) {
    const now = validators(headers);
    if (!now) return null;
    try {
      const tx = this.db.transaction('urls', 'readonly');
      const rec = await promised(tx.objectStore('urls').get(url));
      if (!rec || rec.build !== this.build) return null;
      const same = rec.etag === now.etag && rec.lastModified === now.lastModified && rec.length === now.length;
      return same ? rec.sha : null;
    } catch {
      return null;
    }
  }

  /** The translated module of the pexe with this hash, or null. */
  async get(sha) {
    try {
      const tx = this.db.transaction('modules', 'readwrite');
      const store = tx.objectStore('modules');
      const rec = await promised(store.get(this.key(sha)));
      if (!rec) return null;
      rec.lastUsed = Date.now();
      store.put(rec, this.key(sha));
      await done(tx);
      return rec.wasm instanceof Uint8Array ? rec.wasm : new Uint8Array(rec.wasm);
    } catch {
      return null;
    }
  }

  /** Records that `url` (served with `headers`) is the pexe `sha`. */
  async remember(url, headers, sha) {
    const v = validators(headers);
    if (!v) return;
    try {
      const tx = this.db.transaction('urls', 'readwrite');
      tx.objectStore('urls').put({ sha, build: this.build, ...v }, url);
      await done(tx);
    } catch {
      // a cache that cannot write is only slower
    }
  }

  /** Keeps `wasm` as the translation of `sha`, evicting the least recently used. */
  async put(sha, wasm) {
    try {
      const tx = this.db.transaction('modules', 'readwrite');
      const store = tx.objectStore('modules');
      store.put({ wasm, size: wasm.length, lastUsed: Date.now() }, this.key(sha));
      let extra = (await promised(store.count())) - MAX_MODULES;
      if (extra > 0) {
        // Oldest first, by key only (the modules themselves are not read).
        const cursor = store.index('lastUsed').openKeyCursor();
        await new Promise((resolve, reject) => {
          cursor.onsuccess = () => {
            const c = cursor.result;
            if (!c || extra <= 0) return resolve();
            store.delete(c.primaryKey);
            extra--;
            c.continue();
          };
          cursor.onerror = () => reject(cursor.error);
        });
      }
      await done(tx);
    } catch {
      // as above
    }
  }
}
