// A file system in IndexedDB: where a browser has no Origin Private File
// System (or the page asks for this one). The page and the plugin's host
// Worker open the same database, so they see the same files.
//
// Database `<name>` (default 'pexe-storage'), three object stores:
//   entries  key [fs, path]: { fs, path, parent, name, type, id, size, atime, mtime, ctime }
//            (index `parent` on [fs, parent], index `id` on id)
//   chunks   key [id, n]: the file's bytes [n·CHUNK, (n+1)·CHUNK), a Uint8Array;
//            a missing chunk reads as zeros (sparse files stay small)
//   meta     key 'quota:<fs>': the granted persistent quota
// Every operation is one transaction, so another context never sees half
// of it. A file keeps its id when renamed; open handles hold the id.

import { CODE, fail } from './errors.js';
import { components, join, parentOf, within } from './paths.js';
import { Store, checkTransfer, guard } from './store.js';

/** Bytes per chunk record. */
export const CHUNK = 64 * 1024;

/** Whether this context has IndexedDB. */
export function idbAvailable() {
  return typeof globalThis.indexedDB?.open === 'function';
}

const req = (r) =>
  new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

/** Opens (creating) database `name`; one connection per name and context. */
const connections = new Map();
export function openDatabase(name) {
  let p = connections.get(name);
  if (!p) {
    p = new Promise((resolve, reject) => {
      const r = globalThis.indexedDB.open(name, 1);
      r.onupgradeneeded = () => {
        const db = r.result;
        const entries = db.createObjectStore('entries', { keyPath: ['fs', 'path'] });
        entries.createIndex('parent', ['fs', 'parent']);
        entries.createIndex('id', 'id');
        db.createObjectStore('chunks');
        db.createObjectStore('meta');
      };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
      r.onblocked = () => reject(new Error(`the IndexedDB database ${name} is blocked by another version`));
    });
    p.catch(() => connections.delete(name));
    connections.set(name, p);
  }
  return p;
}

const newId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;

export class IdbStore extends Store {
  /**
   * @param {object} o  Store's options, and:
   * @param {string} [o.name]  the database (default 'pexe-storage')
   */
  constructor({ name = 'pexe-storage', ...options }) {
    super(options);
    this.kind = 'idb';
    this.name = name;
    this.db = null;
    this.opening = null;
    this.channel = null;
  }

  ready() {
    this.opening ??= guard(async () => {
      this.db = await openDatabase(this.name);
      await this.tx(['entries', 'meta'], 'readwrite', async (s) => {
        const root = await req(s.entries.get([this.type, '/']));
        if (!root) {
          const now = Date.now();
          s.entries.put({ fs: this.type, path: '/', parent: '', name: '', type: 'directory', id: null, size: 0, atime: now, mtime: now, ctime: now });
        }
        const q = await req(s.meta.get(`quota:${this.type}`));
        if (this.type === 'persistent' && Number.isFinite(q)) this.quota = Math.min(q, this.maxQuota);
        let usage = 0;
        const all = await req(s.entries.getAll(IDBKeyRange.bound([this.type, ''], [this.type, '\uffff'])));
        for (const e of all) if (e.type === 'file') usage += e.size;
        this.usage = usage;
      });
      if (typeof BroadcastChannel === 'function') {
        this.channel = new BroadcastChannel(`pexe-storage:idb:${this.name}:${this.type}`);
        this.channel.onmessage = (e) => {
          if (Number.isFinite(e.data?.delta)) this.usage = Math.max(0, this.usage + e.data.delta);
          if (Number.isFinite(e.data?.quota)) this.quota = e.data.quota;
        };
      }
    });
    this.opening.catch(() => (this.opening = null));
    return this.opening;
  }

  usageChanged(delta) {
    this.channel?.postMessage({ delta });
  }

  async saveQuota(quota) {
    await this.tx(['meta'], 'readwrite', async (s) => {
      s.meta.put(quota, `quota:${this.type}`);
    });
    this.channel?.postMessage({ quota });
  }

  /**
   * Runs `fn(stores)` in one transaction over `names`; resolves with its
   * result once the transaction has committed. A throw aborts it: nothing
   * it did remains.
   */
  async tx(names, mode, fn) {
    if (!this.db) await this.ready();
    const t = this.db.transaction(names, mode);
    const stores = Object.fromEntries(names.map((n) => [n, t.objectStore(n)]));
    const committed = new Promise((resolve, reject) => {
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error ?? new Error('transaction aborted'));
    });
    let result;
    try {
      result = await fn(stores);
    } catch (e) {
      try {
        t.abort();
      } catch {
        // already finished
      }
      committed.catch(() => {});
      throw e;
    }
    await committed;
    return result;
  }

  key(path) {
    return [this.type, path];
  }

  async entry(s, path) {
    return (await req(s.entries.get(this.key(path)))) ?? null;
  }

  /** The entry at `path`; NOT_FOUND (a missing parent) or NOT_A_DIRECTORY (a file on the way). */
  async lookup(s, parts) {
    const e = await this.entry(s, join(parts));
    if (e) return e;
    // Why not: a file on the way, or nothing.
    for (let i = parts.length - 1; i > 0; i--) {
      const up = await this.entry(s, join(parts.slice(0, i)));
      if (up) {
        if (up.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
        break;
      }
    }
    return null;
  }

  async parentDir(s, parts) {
    const p = await this.lookup(s, parts.slice(0, -1));
    if (!p) fail(CODE.NOT_FOUND);
    if (p.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
    return p;
  }

  /** Every entry strictly under directory `path`. */
  async descendants(s, path) {
    const prefix = path === '/' ? '/' : `${path}/`;
    return req(s.entries.getAll(IDBKeyRange.bound(this.key(prefix), this.key(`${prefix}\uffff`))));
  }

  newEntry(path, type, extra = {}) {
    const now = Date.now();
    return { fs: this.type, path, parent: parentOf(path), name: path.slice(path.lastIndexOf('/') + 1), type, id: null, size: 0, atime: now, mtime: now, ctime: now, ...extra };
  }

  static record(e) {
    return { type: e.type, size: e.type === 'file' ? e.size : 0, atime: e.atime, mtime: e.mtime, ctime: e.ctime };
  }

  stat(path) {
    return guard(async () => {
      const parts = components(path);
      return this.tx(['entries'], 'readonly', async (s) => {
        const e = await this.lookup(s, parts);
        if (!e) fail(CODE.NOT_FOUND, `${path} does not exist`);
        return IdbStore.record(e);
      });
    });
  }

  typeOf(path) {
    return this.tx(['entries'], 'readonly', async (s) => (await this.lookup(s, components(path)))?.type ?? null);
  }

  readdir(path) {
    return guard(async () => {
      const parts = components(path);
      return this.tx(['entries'], 'readonly', async (s) => {
        const e = await this.lookup(s, parts);
        if (!e) fail(CODE.NOT_FOUND);
        if (e.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
        const children = await req(s.entries.index('parent').getAll([this.type, e.path]));
        return children
          .filter((c) => c.path !== '/')
          .map((c) => ({ name: c.name, type: c.type }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      });
    });
  }

  mkdir(path, { recursive = false, exclusive = false } = {}) {
    return guard(async () => {
      const parts = components(path);
      await this.tx(['entries'], 'readwrite', async (s) => {
        const found = await this.lookup(s, parts);
        if (found) {
          if (exclusive) fail(CODE.EXISTS);
          if (found.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
          return;
        }
        for (let i = 1; i <= parts.length; i++) {
          const p = join(parts.slice(0, i));
          const e = await this.entry(s, p);
          if (e) {
            if (e.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
            continue;
          }
          if (i < parts.length && !recursive) fail(CODE.NOT_FOUND);
          s.entries.put(this.newEntry(p, 'directory'));
        }
      });
    });
  }

  /** Open handles on files with these ids keep a copy of their bytes (the entries are going away). */
  async orphan(s, ids) {
    for (const h of this.handles.values()) {
      if (h.orphan || !ids.has(h.id)) continue;
      const e = await req(s.entries.index('id').get(h.id));
      const size = e?.size ?? 0;
      h.data = await this.readChunks(s, h.id, 0, size);
      h.size = size;
      h.orphan = true;
    }
  }

  async deleteChunks(s, id) {
    s.chunks.delete(IDBKeyRange.bound([id, 0], [id, Infinity]));
  }

  remove(path, { recursive = false } = {}) {
    return guard(async () => {
      const parts = components(path);
      if (parts.length === 0) fail(CODE.INVALID_OPERATION, 'the root cannot be removed');
      const freed = await this.tx(['entries', 'chunks'], 'readwrite', async (s) => {
        const e = await this.lookup(s, parts);
        if (!e) fail(CODE.NOT_FOUND);
        const under = e.type === 'directory' ? await this.descendants(s, e.path) : [];
        if (under.length > 0 && !recursive) fail(CODE.NOT_EMPTY);
        const gone = [e, ...under];
        const files = gone.filter((x) => x.type === 'file');
        await this.orphan(s, new Set(files.map((x) => x.id)));
        for (const x of gone) s.entries.delete(this.key(x.path));
        for (const f of files) await this.deleteChunks(s, f.id);
        return files.reduce((n, f) => n + f.size, 0);
      });
      this.charge(-freed);
    });
  }

  isEmpty(path) {
    return this.tx(['entries'], 'readonly', async (s) => (await this.descendants(s, normalizeDir(path))).length === 0);
  }

  rename(from, to) {
    return guard(async () => {
      const t = await checkTransfer(from, to, (p) => this.typeOf(p), (p) => this.isEmpty(p));
      if (t.same) return;
      const replaced = await this.tx(['entries', 'chunks'], 'readwrite', async (s) => {
        let freed = 0;
        if (t.old) {
          const old = await this.entry(s, t.dst);
          if (old.type === 'file') {
            await this.orphan(s, new Set([old.id]));
            await this.deleteChunks(s, old.id);
            freed = old.size;
          }
          s.entries.delete(this.key(t.dst));
        }
        const src = await this.entry(s, t.src);
        const moving = [src, ...(src.type === 'directory' ? await this.descendants(s, t.src) : [])];
        for (const e of moving) {
          s.entries.delete(this.key(e.path));
          const path = t.dst + e.path.slice(t.src.length);
          s.entries.put({ ...e, path, parent: parentOf(path), name: path.slice(path.lastIndexOf('/') + 1) });
        }
        return freed;
      });
      this.charge(-replaced);
    });
  }

  copy(from, to) {
    return guard(async () => {
      const t = await checkTransfer(from, to, (p) => this.typeOf(p), (p) => this.isEmpty(p));
      if (t.same) fail(CODE.INVALID_OPERATION, 'a copy onto itself');
      await this.tx(['entries', 'chunks'], 'readwrite', async (s) => {
        const src = await this.entry(s, t.src);
        const all = [src, ...(src.type === 'directory' ? await this.descendants(s, t.src) : [])];
        const size = all.reduce((n, e) => n + (e.type === 'file' ? e.size : 0), 0);
        let replaced = 0;
        if (t.old) {
          const old = await this.entry(s, t.dst);
          if (old.type === 'file') replaced = old.size;
        }
        this.charge(size - replaced);
        try {
          if (t.old) {
            const old = await this.entry(s, t.dst);
            if (old.type === 'file') {
              await this.orphan(s, new Set([old.id]));
              await this.deleteChunks(s, old.id);
            }
            s.entries.delete(this.key(t.dst));
          }
          for (const e of all) {
            const path = t.dst + e.path.slice(t.src.length);
            const copy = { ...e, path, parent: parentOf(path), name: path.slice(path.lastIndexOf('/') + 1) };
            if (e.type === 'file') {
              copy.id = newId();
              const range = IDBKeyRange.bound([e.id, 0], [e.id, Infinity]);
              const [keys, values] = await Promise.all([req(s.chunks.getAllKeys(range)), req(s.chunks.getAll(range))]);
              keys.forEach((k, i) => s.chunks.put(values[i], [copy.id, k[1]]));
            }
            s.entries.put(copy);
          }
        } catch (e) {
          this.charge(replaced - size);
          throw e;
        }
      });
    });
  }

  touch(path, atime, mtime) {
    return guard(async () => {
      const parts = components(path);
      await this.tx(['entries'], 'readwrite', async (s) => {
        const e = await this.lookup(s, parts);
        if (!e) fail(CODE.NOT_FOUND);
        s.entries.put({ ...e, atime, mtime });
      });
    });
  }

  open(path, flags) {
    return guard(async () => {
      const mode = Store.openMode(flags);
      const parts = components(path);
      if (parts.length === 0) fail(CODE.NOT_A_FILE);
      const { id, freed } = await this.tx(['entries', 'chunks'], 'readwrite', async (s) => {
        await this.parentDir(s, parts);
        let e = await this.entry(s, join(parts));
        if (e) {
          if (mode.create && mode.exclusive) fail(CODE.EXISTS);
          if (e.type !== 'file') fail(CODE.NOT_A_FILE);
          if (mode.truncate && e.size > 0) {
            await this.orphan(s, new Set([e.id]));
            await this.deleteChunks(s, e.id);
            const size = e.size;
            s.entries.put({ ...e, size: 0, mtime: Date.now() });
            return { id: e.id, freed: size };
          }
          return { id: e.id, freed: 0 };
        }
        if (!mode.create) fail(CODE.NOT_FOUND);
        e = this.newEntry(join(parts), 'file', { id: newId() });
        s.entries.put(e);
        return { id: e.id, freed: 0 };
      });
      this.charge(-freed);
      return this.handles.add({ id, mode, orphan: false });
    });
  }

  /** Bytes [offset, offset+length) of file `id` (zeros where no chunk is stored). */
  async readChunks(s, id, offset, length) {
    const out = new Uint8Array(length);
    if (length === 0) return out;
    const first = Math.floor(offset / CHUNK);
    const last = Math.floor((offset + length - 1) / CHUNK);
    const range = IDBKeyRange.bound([id, first], [id, last]);
    const [keys, values] = await Promise.all([req(s.chunks.getAllKeys(range)), req(s.chunks.getAll(range))]);
    keys.forEach((k, i) => {
      const start = k[1] * CHUNK;
      const chunk = values[i];
      const from = Math.max(offset, start);
      const to = Math.min(offset + length, start + chunk.length);
      if (to > from) out.set(chunk.subarray(from - start, to - start), from - offset);
    });
    return out;
  }

  read(h, offset, length) {
    return guard(async () => {
      const st = this.handles.get(h);
      if (!st.mode.read) fail(CODE.ACCESS, 'not open for reading');
      Store.span(offset, length);
      if (st.orphan) return st.data.slice(Math.min(offset, st.size), Math.min(st.size, offset + length));
      return this.tx(['entries', 'chunks'], 'readonly', async (s) => {
        const e = await req(s.entries.index('id').get(st.id));
        const size = e?.size ?? 0;
        if (offset >= size) return new Uint8Array(0);
        return this.readChunks(s, st.id, offset, Math.min(length, size - offset));
      });
    });
  }

  /** Stores `bytes` at `at` of file `id` (read-modify-write of partial chunks). */
  async writeChunks(s, id, at, bytes, size) {
    let done = 0;
    while (done < bytes.length) {
      const pos = at + done;
      const n = Math.floor(pos / CHUNK);
      const start = n * CHUNK;
      const take = Math.min(bytes.length - done, start + CHUNK - pos);
      const end = Math.max(Math.min(size, start + CHUNK), pos + take) - start;
      let chunk;
      if (pos === start && take === CHUNK) chunk = bytes.slice(done, done + take);
      else {
        const old = (await req(s.chunks.get([id, n]))) ?? new Uint8Array(0);
        chunk = new Uint8Array(end);
        chunk.set(old.subarray(0, Math.min(old.length, end)));
        chunk.set(bytes.subarray(done, done + take), pos - start);
      }
      s.chunks.put(chunk, [id, n]);
      done += take;
    }
  }

  write(h, offset, bytes) {
    return guard(async () => {
      const st = this.handles.get(h);
      if (!st.mode.write) fail(CODE.ACCESS, 'not open for writing');
      if (st.orphan) {
        const at = st.mode.append ? st.size : offset;
        Store.span(at, bytes.length);
        if (at + bytes.length > st.size) {
          const grown = new Uint8Array(at + bytes.length);
          grown.set(st.data.subarray(0, st.size));
          st.data = grown;
          st.size = at + bytes.length;
        }
        st.data.set(bytes, at);
        return bytes.length;
      }
      let grow = 0;
      try {
        await this.tx(['entries', 'chunks'], 'readwrite', async (s) => {
          const e = await req(s.entries.index('id').get(st.id));
          if (!e) fail(CODE.NOT_FOUND);
          const at = st.mode.append ? e.size : offset;
          Store.span(at, bytes.length);
          this.charge(Math.max(0, at + bytes.length - e.size));
          grow = Math.max(0, at + bytes.length - e.size);
          await this.writeChunks(s, st.id, at, bytes, e.size);
          s.entries.put({ ...e, size: e.size + grow, mtime: Date.now() });
        });
      } catch (e) {
        if (grow > 0) this.charge(-grow);
        throw e;
      }
      return bytes.length;
    });
  }

  setLength(h, length) {
    return guard(async () => {
      const st = this.handles.get(h);
      if (!st.mode.write) fail(CODE.ACCESS, 'not open for writing');
      Store.span(length, 0);
      if (st.orphan) {
        const data = new Uint8Array(length);
        data.set(st.data.subarray(0, Math.min(length, st.size)));
        Object.assign(st, { data, size: length });
        return;
      }
      let delta = 0;
      try {
        await this.tx(['entries', 'chunks'], 'readwrite', async (s) => {
          const e = await req(s.entries.index('id').get(st.id));
          if (!e) fail(CODE.NOT_FOUND);
          this.charge(length - e.size);
          delta = length - e.size;
          if (length < e.size) {
            const keep = Math.ceil(length / CHUNK);
            s.chunks.delete(IDBKeyRange.bound([st.id, keep], [st.id, Infinity]));
            if (length % CHUNK !== 0) {
              const n = keep - 1;
              const old = await req(s.chunks.get([st.id, n]));
              if (old && old.length > length - n * CHUNK) s.chunks.put(old.slice(0, length - n * CHUNK), [st.id, n]);
            }
          }
          s.entries.put({ ...e, size: length, mtime: Date.now() });
        });
      } catch (e) {
        if (delta !== 0) this.charge(-delta);
        throw e;
      }
    });
  }

  fstat(h) {
    return guard(async () => {
      const st = this.handles.get(h);
      if (st.orphan) return { type: 'file', size: st.size, atime: Date.now(), mtime: Date.now(), ctime: Date.now() };
      return this.tx(['entries'], 'readonly', async (s) => {
        const e = await req(s.entries.index('id').get(st.id));
        if (!e) fail(CODE.NOT_FOUND);
        return IdbStore.record(e);
      });
    });
  }

  ftouch(h, atime, mtime) {
    return guard(async () => {
      const st = this.handles.get(h);
      if (st.orphan) return;
      await this.tx(['entries'], 'readwrite', async (s) => {
        const e = await req(s.entries.index('id').get(st.id));
        if (e) s.entries.put({ ...e, atime, mtime });
      });
    });
  }

  flush(h) {
    return guard(async () => {
      this.handles.get(h);
    });
  }

  close(h) {
    return guard(async () => {
      this.handles.get(h);
      this.handles.delete(h);
    });
  }
}

/** A directory path in normal form (for prefix scans). */
function normalizeDir(path) {
  return join(components(path));
}


