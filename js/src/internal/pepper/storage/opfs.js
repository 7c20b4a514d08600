// A file system in the Origin Private File System (navigator.storage.
// getDirectory()): the page's temporary and persistent file systems, each a
// directory `<root>/<type>/` of the origin's OPFS, seen the same by the page
// (html5fs-page.js) and the plugin's host Worker, both opening it directly.
//
// Open files: where FileSystemSyncAccessHandle exists (dedicated Workers:
// the plugin's host) a file is opened once per store with one, shared by
// every handle on it — fast, synchronous reads and writes at offsets, but
// an exclusive lock: while the plugin has a file open, the page cannot
// write it (NoModificationAllowedError → ACCESS). Elsewhere (the page's
// main thread) reads go through getFile() and writes through a writable
// stream, one at a time per file.
//
// OPFS keeps no access times and no directory times, and cannot set a
// modification time: Touch is kept in a small overlay file next to the
// file system (`<root>/<type>.times.json`), valid until the file changes.
// The granted persistent quota is kept in `<root>/<type>.quota.json`.
// Usage is counted once when the store opens and kept up to date; other
// contexts of the origin hear about changes on a BroadcastChannel.

import { CODE, fail } from './errors.js';
import { components, join, within } from './paths.js';
import { Store, checkTransfer, guard } from './store.js';

/** Whether this context has the Origin Private File System. */
export async function opfsAvailable(getRoot = defaultRoot) {
  try {
    const root = await getRoot();
    return typeof root?.getDirectoryHandle === 'function';
  } catch {
    return false;
  }
}

function defaultRoot() {
  return globalThis.navigator.storage.getDirectory();
}

const isNotFound = (e) => e?.name === 'NotFoundError';
const isTypeMismatch = (e) => e?.name === 'TypeMismatchError';

export class OpfsStore extends Store {
  /**
   * @param {object} o  Store's options, and:
   * @param {string} [o.rootName]  the OPFS directory holding the file systems (default 'pexe')
   * @param {() => Promise<FileSystemDirectoryHandle>} [o.getRoot]
   * @param {boolean} [o.syncHandles]  use sync access handles where they exist (default true)
   */
  constructor({ rootName = 'pexe', getRoot = defaultRoot, syncHandles = true, ...options }) {
    super(options);
    this.kind = 'opfs';
    this.rootName = rootName;
    this.getRoot = getRoot;
    this.syncHandles = syncHandles;
    this.top = null;
    this.dir = null;
    /** path → open file record { fh, access, refs, path, orphan, data, size, queue, mtime } */
    this.files = new Map();
    /** path → Promise of the record being opened */
    this.pendingOpens = new Map();
    this.times = {};
    this.opening = null;
    this.openedAt = Date.now();
    this.channel = null;
  }

  ready() {
    this.opening ??= guard(async () => {
      const origin = await this.getRoot();
      this.top = await origin.getDirectoryHandle(this.rootName, { create: true });
      this.dir = await this.top.getDirectoryHandle(this.type, { create: true });
      const q = await this.readJson(`${this.type}.quota.json`);
      if (this.type === 'persistent' && Number.isFinite(q?.quota)) this.quota = Math.min(q.quota, this.maxQuota);
      this.times = (await this.readJson(`${this.type}.times.json`)) ?? {};
      this.usage = await this.treeSize(this.dir);
      if (typeof BroadcastChannel === 'function') {
        this.channel = new BroadcastChannel(`pexe-storage:opfs:${this.rootName}:${this.type}`);
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
    await this.writeJson(`${this.type}.quota.json`, { quota });
    this.channel?.postMessage({ quota });
  }

  async readJson(name) {
    try {
      const fh = await this.top.getFileHandle(name);
      return JSON.parse(await (await fh.getFile()).text());
    } catch {
      return null;
    }
  }

  async writeJson(name, value) {
    const fh = await this.top.getFileHandle(name, { create: true });
    const w = await fh.createWritable();
    await w.write(JSON.stringify(value));
    await w.close();
  }

  /** Bytes of the files under directory handle `dir`. */
  async treeSize(dir) {
    let n = 0;
    for await (const [, h] of dir.entries()) {
      if (h.kind === 'directory') n += await this.treeSize(h);
      else {
        try {
          n += (await h.getFile()).size;
        } catch {
          // locked by another context: counted by it
        }
      }
    }
    return n;
  }

  /** The directory handle at `parts` (creating it with `create`). */
  async dirAt(parts, create = false) {
    let d = this.dir;
    for (const name of parts) {
      try {
        d = await d.getDirectoryHandle(name, { create });
      } catch (e) {
        if (isTypeMismatch(e)) fail(CODE.NOT_A_DIRECTORY);
        throw e;
      }
    }
    return d;
  }

  /** `{ kind, handle, parent, name }` of the entry at `parts`, or null; NOT_FOUND if a parent is missing. */
  async entryAt(parts) {
    if (parts.length === 0) return { kind: 'directory', handle: this.dir, parent: null, name: '' };
    const parent = await this.dirAt(parts.slice(0, -1));
    const name = parts.at(-1);
    try {
      return { kind: 'file', handle: await parent.getFileHandle(name), parent, name };
    } catch (e) {
      if (isNotFound(e)) return null;
      if (!isTypeMismatch(e)) throw e;
    }
    return { kind: 'directory', handle: await parent.getDirectoryHandle(name), parent, name };
  }

  async typeOf(path) {
    const parts = components(path);
    try {
      return (await this.entryAt(parts))?.kind ?? null;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async existing(path) {
    const parts = components(path);
    let e = null;
    try {
      e = await this.entryAt(parts);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!e) fail(CODE.NOT_FOUND, `${path} does not exist`);
    return { ...e, parts, path: join(parts) };
  }

  /** The record of a file: an open one's, else from getFile(). */
  async fileRecord(path, fh) {
    const open = this.files.get(path);
    if (open) return { size: await this.currentSize(open), mtime: open.mtime };
    const file = await fh.getFile();
    return { size: file.size, mtime: file.lastModified };
  }

  withTimes(path, st) {
    const t = this.times[path];
    if (t && (st.type === 'directory' || t[2] === st.mtime)) return { ...st, atime: t[0], mtime: t[1] };
    return st;
  }

  stat(path) {
    return guard(async () => {
      await this.ready();
      const e = await this.existing(path);
      if (e.kind === 'directory') {
        return this.withTimes(e.path, { type: 'directory', size: 0, atime: this.openedAt, mtime: this.openedAt, ctime: this.openedAt });
      }
      const r = await this.fileRecord(e.path, e.handle);
      return this.withTimes(e.path, { type: 'file', size: r.size, atime: r.mtime, mtime: r.mtime, ctime: r.mtime });
    });
  }

  readdir(path) {
    return guard(async () => {
      await this.ready();
      const e = await this.existing(path);
      if (e.kind !== 'directory') fail(CODE.NOT_A_DIRECTORY);
      const out = [];
      for await (const [name, h] of e.handle.entries()) out.push({ name, type: h.kind === 'directory' ? 'directory' : 'file' });
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  mkdir(path, { recursive = false, exclusive = false } = {}) {
    return guard(async () => {
      await this.ready();
      const parts = components(path);
      const found = await this.typeOfParts(parts);
      if (found) {
        if (exclusive) fail(CODE.EXISTS);
        if (found !== 'directory') fail(CODE.NOT_A_DIRECTORY);
        return;
      }
      if (!recursive) {
        const parentType = await this.typeOfParts(parts.slice(0, -1));
        if (!parentType) fail(CODE.NOT_FOUND);
        if (parentType !== 'directory') fail(CODE.NOT_A_DIRECTORY);
      }
      await this.dirAt(parts, true);
    });
  }

  async typeOfParts(parts) {
    try {
      return (await this.entryAt(parts))?.kind ?? null;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  /** Open files at or under `path` keep their bytes in memory: the entry is going away. */
  async orphan(path) {
    for (const [p, rec] of this.files) {
      if (!within(p, path) || rec.orphan) continue;
      const size = this.sizeOf(rec);
      const data = new Uint8Array(size);
      if (rec.access) {
        rec.access.read(data, { at: 0 });
        rec.access.close();
      } else {
        data.set(new Uint8Array(await (await rec.fh.getFile()).arrayBuffer()).subarray(0, size));
      }
      Object.assign(rec, { orphan: true, access: null, data, size });
      this.files.delete(p);
    }
  }

  remove(path, { recursive = false } = {}) {
    return guard(async () => {
      await this.ready();
      const e = await this.existing(path);
      if (e.parts.length === 0) fail(CODE.INVALID_OPERATION, 'the root cannot be removed');
      const freed = e.kind === 'directory' ? await this.treeSize(e.handle) : (await this.fileRecord(e.path, e.handle)).size;
      if (e.kind === 'directory' && !recursive) {
        for await (const entry of e.handle.keys()) {
          void entry;
          fail(CODE.NOT_EMPTY);
        }
      }
      await this.orphan(e.path);
      await e.parent.removeEntry(e.name, { recursive });
      this.forgetTimes(e.path);
      this.charge(-freed);
    });
  }

  forgetTimes(path) {
    let changed = false;
    for (const p of Object.keys(this.times)) {
      if (within(p, path)) {
        delete this.times[p];
        changed = true;
      }
    }
    if (changed) this.writeJson(`${this.type}.times.json`, this.times).catch(() => {});
  }

  async isEmpty(path) {
    const e = await this.existing(path);
    for await (const k of e.handle.keys()) {
      void k;
      return false;
    }
    return true;
  }

  /** Closes the sync handles of open files under `path` (to move them); returns what to reopen. */
  suspend(path) {
    const out = [];
    for (const [p, rec] of this.files) {
      if (!within(p, path)) continue;
      if (rec.access) {
        rec.access.flush();
        rec.access.close();
        rec.access = null;
        rec.suspended = true;
      }
      out.push([p, rec]);
    }
    return out;
  }

  /** Points suspended files at their new place (`from` → `to`) and reopens them. */
  async resume(list, from, to) {
    for (const [p, rec] of list) {
      const now = to + p.slice(from.length);
      this.files.delete(p);
      rec.path = now;
      this.files.set(now, rec);
      const parts = components(now);
      rec.fh = await (await this.dirAt(parts.slice(0, -1))).getFileHandle(parts.at(-1));
      if (rec.suspended) {
        rec.suspended = false;
        rec.access = await rec.fh.createSyncAccessHandle();
      }
    }
  }

  rename(from, to) {
    return guard(async () => {
      await this.ready();
      const t = await checkTransfer(from, to, (p) => this.typeOf(p), (p) => this.isEmpty(p));
      if (t.same) return;
      const src = await this.existing(t.src);
      const dstParts = components(t.dst);
      const dstParent = await this.dirAt(dstParts.slice(0, -1));
      const name = dstParts.at(-1);
      let replaced = 0;
      if (t.old) {
        const old = await this.existing(t.dst);
        replaced = old.kind === 'file' ? (await this.fileRecord(old.path, old.handle)).size : 0;
        await this.orphan(t.dst);
        await dstParent.removeEntry(name, { recursive: false });
        this.forgetTimes(t.dst);
      }
      const moving = this.suspend(t.src);
      let moved = false;
      try {
        if (typeof src.handle.move === 'function') {
          try {
            await src.handle.move(dstParent, name);
            moved = true;
          } catch (e) {
            if (e?.name !== 'NotSupportedError' && e?.name !== 'TypeError') throw e;
          }
        }
        if (!moved) {
          await this.copyHandle(src.handle, dstParent, name);
          await src.parent.removeEntry(src.name, { recursive: true });
          moved = true;
        }
      } finally {
        // Reopen what was open, where it now is (where it was, if the move failed).
        await this.resume(moving, t.src, moved ? t.dst : t.src);
      }
      this.moveTimes(t.src, t.dst);
      this.charge(-replaced);
    });
  }

  moveTimes(from, to) {
    let changed = false;
    for (const p of Object.keys(this.times)) {
      if (!within(p, from)) continue;
      this.times[to + p.slice(from.length)] = this.times[p];
      delete this.times[p];
      changed = true;
    }
    if (changed) this.writeJson(`${this.type}.times.json`, this.times).catch(() => {});
  }

  /** Copies the entry `handle` into directory `dstParent` as `name` (nothing is charged). */
  async copyHandle(handle, dstParent, name) {
    if (handle.kind === 'directory') {
      const d = await dstParent.getDirectoryHandle(name, { create: true });
      for await (const [child, h] of handle.entries()) await this.copyHandle(h, d, child);
      return;
    }
    const bytes = await this.readAllOf(handle);
    const fh = await dstParent.getFileHandle(name, { create: true });
    await this.writeAllTo(fh, bytes);
  }

  /** A file's bytes (through its open record when this store has one). */
  async readAllOf(fh) {
    for (const rec of this.files.values()) {
      if (rec.access && (await rec.fh.isSameEntry(fh))) {
        const size = rec.access.getSize();
        const data = new Uint8Array(size);
        rec.access.read(data, { at: 0 });
        return data;
      }
    }
    return new Uint8Array(await (await fh.getFile()).arrayBuffer());
  }

  async writeAllTo(fh, bytes) {
    const w = await fh.createWritable();
    await w.write(bytes);
    await w.close();
  }

  copy(from, to) {
    return guard(async () => {
      await this.ready();
      const t = await checkTransfer(from, to, (p) => this.typeOf(p), (p) => this.isEmpty(p));
      if (t.same) fail(CODE.INVALID_OPERATION, 'a copy onto itself');
      const src = await this.existing(t.src);
      const size = src.kind === 'directory' ? await this.treeSize(src.handle) : (await this.fileRecord(src.path, src.handle)).size;
      const dstParts = components(t.dst);
      const dstParent = await this.dirAt(dstParts.slice(0, -1));
      let replaced = 0;
      if (t.old) {
        const old = await this.existing(t.dst);
        replaced = old.kind === 'file' ? (await this.fileRecord(old.path, old.handle)).size : 0;
      }
      this.charge(size - replaced);
      try {
        if (t.old) {
          await this.orphan(t.dst);
          await dstParent.removeEntry(dstParts.at(-1), { recursive: false });
        }
        await this.copyHandle(src.handle, dstParent, dstParts.at(-1));
      } catch (e) {
        this.charge(replaced - size);
        throw e;
      }
    });
  }

  touch(path, atime, mtime) {
    return guard(async () => {
      await this.ready();
      const e = await this.existing(path);
      const real = e.kind === 'file' ? (await this.fileRecord(e.path, e.handle)).mtime : 0;
      this.times[e.path] = [atime, mtime, real];
      await this.writeJson(`${this.type}.times.json`, this.times);
    });
  }

  open(path, flags) {
    return guard(async () => {
      await this.ready();
      const mode = Store.openMode(flags);
      const parts = components(path);
      if (parts.length === 0) fail(CODE.NOT_A_FILE);
      const key = join(parts);
      const parent = await this.dirAt(parts.slice(0, -1));
      const name = parts.at(-1);
      let fh = null;
      try {
        fh = await parent.getFileHandle(name);
      } catch (e) {
        if (isTypeMismatch(e)) fail(CODE.NOT_A_FILE);
        if (!isNotFound(e)) throw e;
      }
      if (fh && mode.create && mode.exclusive) fail(CODE.EXISTS);
      if (!fh) {
        if (!mode.create) fail(CODE.NOT_FOUND);
        fh = await parent.getFileHandle(name, { create: true });
      }
      // One record per file, even when two opens race (a sync handle is exclusive).
      let rec = this.files.get(key);
      if (!rec) {
        let pending = this.pendingOpens.get(key);
        if (!pending) {
          pending = this.openRecord(key, fh).finally(() => this.pendingOpens.delete(key));
          this.pendingOpens.set(key, pending);
        }
        rec = await pending;
        if (!this.files.has(key)) this.files.set(key, rec);
        rec = this.files.get(key);
      }
      rec.refs++;
      const id = this.handles.add({ rec, mode });
      if (mode.truncate) {
        try {
          await this.resize(rec, 0);
        } catch (e) {
          await this.close(id);
          throw e;
        }
      }
      return id;
    });
  }

  /** A new open-file record for `fh` (with a sync access handle where possible). */
  async openRecord(key, fh) {
    const file = await fh.getFile();
    const rec = { fh, path: key, access: null, refs: 0, orphan: false, queue: Promise.resolve(), mtime: file.lastModified, knownSize: file.size };
    if (this.syncHandles && typeof fh.createSyncAccessHandle === 'function') {
      try {
        rec.access = await fh.createSyncAccessHandle();
      } catch (e) {
        // Another context holds the file: fall back to streams (which may fail the same way).
        if (e?.name !== 'NoModificationAllowedError' && e?.name !== 'InvalidStateError') throw e;
      }
    }
    return rec;
  }

  sizeOf(rec) {
    if (rec.orphan) return rec.size;
    if (rec.access) return rec.access.getSize();
    return rec.knownSize ?? 0;
  }

  /** Runs `fn` after the file's previous stream operation (stream mode writes one at a time). */
  serial(rec, fn) {
    const run = rec.queue.then(fn, fn);
    rec.queue = run.catch(() => {});
    return run;
  }

  async currentSize(rec) {
    if (rec.orphan || rec.access) return this.sizeOf(rec);
    const f = await rec.fh.getFile();
    rec.knownSize = f.size;
    return f.size;
  }

  /** Sets the file's length (zeros when it grows), charging the quota. */
  async resize(rec, size) {
    if (rec.orphan) {
      const data = new Uint8Array(size);
      data.set(rec.data.subarray(0, Math.min(size, rec.size)));
      rec.data = data;
      rec.size = size;
      return;
    }
    await this.serial(rec, async () => {
      const before = await this.currentSize(rec);
      this.charge(size - before);
      try {
        if (rec.access) rec.access.truncate(size);
        else {
          const w = await rec.fh.createWritable({ keepExistingData: true });
          await w.truncate(size);
          await w.close();
          rec.knownSize = size;
        }
      } catch (e) {
        this.charge(before - size);
        throw e;
      }
      rec.mtime = Date.now();
    });
  }

  read(h, offset, length) {
    return guard(async () => {
      const { rec, mode } = this.handles.get(h);
      if (!mode.read) fail(CODE.ACCESS, 'not open for reading');
      Store.span(offset, length);
      if (rec.orphan) return rec.data.slice(Math.min(offset, rec.size), Math.min(rec.size, offset + length));
      if (rec.access) {
        const size = rec.access.getSize();
        if (offset >= size) return new Uint8Array(0);
        const buf = new Uint8Array(Math.min(length, size - offset));
        const n = rec.access.read(buf, { at: offset });
        return buf.subarray(0, n);
      }
      const file = await rec.fh.getFile();
      return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
    });
  }

  write(h, offset, bytes) {
    return guard(async () => {
      const { rec, mode } = this.handles.get(h);
      if (!mode.write) fail(CODE.ACCESS, 'not open for writing');
      if (rec.orphan) {
        const at = mode.append ? rec.size : offset;
        Store.span(at, bytes.length);
        if (at + bytes.length > rec.size) await this.resize(rec, at + bytes.length);
        rec.data.set(bytes, at);
        return bytes.length;
      }
      return this.serial(rec, async () => {
        const size = await this.currentSize(rec);
        const at = mode.append ? size : offset;
        Store.span(at, bytes.length);
        const grow = Math.max(0, at + bytes.length - size);
        this.charge(grow);
        try {
          if (rec.access) {
            let n = 0;
            while (n < bytes.length) n += rec.access.write(bytes.subarray(n), { at: at + n });
          } else {
            const w = await rec.fh.createWritable({ keepExistingData: true });
            await w.write({ type: 'write', position: at, data: bytes });
            await w.close();
            rec.knownSize = size + grow;
          }
        } catch (e) {
          this.charge(-grow);
          throw e;
        }
        rec.mtime = Date.now();
        return bytes.length;
      });
    });
  }

  setLength(h, length) {
    return guard(async () => {
      const { rec, mode } = this.handles.get(h);
      if (!mode.write) fail(CODE.ACCESS, 'not open for writing');
      Store.span(length, 0);
      await this.resize(rec, length);
    });
  }

  fstat(h) {
    return guard(async () => {
      const { rec } = this.handles.get(h);
      const size = await this.currentSize(rec);
      return this.withTimes(rec.path, { type: 'file', size, atime: rec.mtime, mtime: rec.mtime, ctime: rec.mtime });
    });
  }

  ftouch(h, atime, mtime) {
    return guard(async () => {
      const { rec } = this.handles.get(h);
      if (rec.orphan) return;
      this.times[rec.path] = [atime, mtime, rec.mtime];
      await this.writeJson(`${this.type}.times.json`, this.times);
    });
  }

  flush(h) {
    return guard(async () => {
      const { rec } = this.handles.get(h);
      rec.access?.flush();
    });
  }

  close(h) {
    return guard(async () => {
      const { rec } = this.handles.get(h);
      this.handles.delete(h);
      if (--rec.refs > 0) return;
      if (!rec.orphan) {
        await rec.queue;
        this.files.delete(rec.path);
        if (rec.access) {
          rec.access.flush();
          rec.access.close();
        }
      }
    });
  }
}

