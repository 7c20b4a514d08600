// A host directory as a store (Node, opt-in: `pexe run --storage DIR`
// makes it the persistent file system). Confined to the directory: paths
// are checked by paths.js (no "..", no absolute escape), and every
// operation looks at each component of its path with lstat first and
// refuses a symbolic link anywhere (ACCESS), so a link someone placed in
// the directory cannot lead outside it; files are opened with O_NOFOLLOW
// as well. Only regular files and directories are used; anything else is
// refused the same way.
//
// Node's `fs` and `path` modules are handed in (the host's `node`), so
// this file imports no `node:` module and browser bundles may include it.

import { CODE, fail } from './errors.js';
import { components, join } from './paths.js';
import { Store, checkTransfer, guard } from './store.js';

export class NodeDirStore extends Store {
  /**
   * @param {object} o  Store's options, and:
   * @param {string} o.dir   the host directory (it must exist)
   * @param {object} o.node  { fs, path } (Node's modules)
   */
  constructor({ dir, node, ...options }) {
    super(options);
    this.kind = 'node';
    this.fs = node.fs;
    this.fsp = node.fs.promises;
    this.pathMod = node.path;
    this.dir = dir;
    this.root = null;
  }

  /** Resolves the root and counts the bytes already there. */
  async open_() {
    if (this.root) return;
    const root = await this.fsp.realpath(this.dir);
    const st = await this.fsp.lstat(root);
    if (!st.isDirectory()) fail(CODE.NOT_A_DIRECTORY, `${this.dir} is not a directory`);
    this.root = root;
    this.usage = await this.sizeOf(root);
  }

  /** Bytes of regular files under host path `p` (links and others count nothing). */
  async sizeOf(p) {
    const st = await this.fsp.lstat(p);
    if (st.isFile()) return st.size;
    if (!st.isDirectory()) return 0;
    let n = 0;
    for (const name of await this.fsp.readdir(p)) n += await this.sizeOf(this.pathMod.join(p, name));
    return n;
  }

  /**
   * The host path of store path `path`, after checking each existing
   * component: a link or special file anywhere is ACCESS, a file before
   * the end NOT_A_DIRECTORY. Returns `{ host, parts, st }`, `st` being the
   * last component's lstat or null when it does not exist.
   */
  async resolve(path) {
    await this.open_();
    const parts = components(path);
    let host = this.root;
    let st = null;
    for (let i = 0; i < parts.length; i++) {
      if (st && !st.isDirectory()) fail(CODE.NOT_A_DIRECTORY);
      host = this.pathMod.join(host, parts[i]);
      try {
        st = await this.fsp.lstat(host);
      } catch (e) {
        if (e.code === 'ENOENT') {
          // Nothing further exists: the rest of the path is just names.
          for (const rest of parts.slice(i + 1)) host = this.pathMod.join(host, rest);
          return { host, parts, st: null, missingAt: i };
        }
        throw e;
      }
      if (st.isSymbolicLink()) fail(CODE.ACCESS, `${join(parts.slice(0, i + 1))} is a symbolic link on the host`);
      if (!st.isFile() && !st.isDirectory()) fail(CODE.ACCESS, `${join(parts.slice(0, i + 1))} is not a file or directory`);
    }
    if (parts.length === 0) st = await this.fsp.lstat(host);
    return { host, parts, st, missingAt: -1 };
  }

  async typeOf(path) {
    const { st } = await this.resolve(path);
    return st ? (st.isDirectory() ? 'directory' : 'file') : null;
  }

  static record(st) {
    return {
      type: st.isDirectory() ? 'directory' : 'file',
      size: st.isDirectory() ? 0 : st.size,
      atime: st.atimeMs,
      mtime: st.mtimeMs,
      ctime: st.birthtimeMs || st.ctimeMs,
    };
  }

  async existing(path) {
    const r = await this.resolve(path);
    if (!r.st) fail(CODE.NOT_FOUND, `${path} does not exist`);
    return r;
  }

  stat(path) {
    return guard(async () => NodeDirStore.record((await this.existing(path)).st));
  }

  readdir(path) {
    return guard(async () => {
      const { host, st } = await this.existing(path);
      if (!st.isDirectory()) fail(CODE.NOT_A_DIRECTORY);
      const out = [];
      for (const d of await this.fsp.readdir(host, { withFileTypes: true })) {
        if (d.isFile()) out.push({ name: d.name, type: 'file' });
        else if (d.isDirectory()) out.push({ name: d.name, type: 'directory' });
      }
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  mkdir(path, { recursive = false, exclusive = false } = {}) {
    return guard(async () => {
      const r = await this.resolve(path);
      if (r.st) {
        if (exclusive) fail(CODE.EXISTS);
        if (!r.st.isDirectory()) fail(CODE.NOT_A_DIRECTORY);
        return;
      }
      if (!recursive && r.missingAt < r.parts.length - 1) fail(CODE.NOT_FOUND);
      let host = this.root;
      for (let i = 0; i < r.parts.length; i++) {
        host = this.pathMod.join(host, r.parts[i]);
        if (i < r.missingAt) continue;
        try {
          await this.fsp.mkdir(host);
        } catch (e) {
          if (e.code !== 'EEXIST') throw e;
        }
      }
    });
  }

  remove(path, { recursive = false } = {}) {
    return guard(async () => {
      const { host, parts, st } = await this.existing(path);
      if (parts.length === 0) fail(CODE.INVALID_OPERATION, 'the root cannot be removed');
      const freed = await this.sizeOf(host);
      if (st.isDirectory()) {
        if (recursive) await this.removeTree(host);
        else await this.fsp.rmdir(host);
      } else {
        await this.fsp.unlink(host);
      }
      this.forget(host);
      this.charge(-freed);
    });
  }

  /** Removes host directory `host` and everything in it, never following a link. */
  async removeTree(host) {
    for (const d of await this.fsp.readdir(host, { withFileTypes: true })) {
      const p = this.pathMod.join(host, d.name);
      if (d.isDirectory()) await this.removeTree(p);
      else await this.fsp.unlink(p);
    }
    await this.fsp.rmdir(host);
  }

  /** Open handles under host path `host` no longer count toward the usage. */
  forget(host) {
    for (const h of this.handles.values()) {
      if (h.host === host || h.host.startsWith(`${host}${this.pathMod.sep}`)) h.linked = false;
    }
  }

  /** Moves open handles under `from` to `to`. */
  moved(from, to) {
    for (const h of this.handles.values()) {
      if (h.host === from) h.host = to;
      else if (h.host.startsWith(`${from}${this.pathMod.sep}`)) h.host = to + h.host.slice(from.length);
    }
  }

  async isEmpty(path) {
    const { host } = await this.resolve(path);
    return (await this.fsp.readdir(host)).length === 0;
  }

  rename(from, to) {
    return guard(async () => {
      const t = await checkTransfer(from, to, (p) => this.typeOf(p), (p) => this.isEmpty(p));
      if (t.same) return;
      const src = (await this.resolve(t.src)).host;
      const dst = (await this.resolve(t.dst)).host;
      const replaced = t.old ? await this.sizeOf(dst) : 0;
      if (t.old === 'directory') await this.fsp.rmdir(dst);
      await this.fsp.rename(src, dst);
      if (t.old) this.forget(dst);
      this.moved(src, dst);
      this.charge(-replaced);
    });
  }

  copy(from, to) {
    return guard(async () => {
      const t = await checkTransfer(from, to, (p) => this.typeOf(p), (p) => this.isEmpty(p));
      if (t.same) fail(CODE.INVALID_OPERATION, 'a copy onto itself');
      const src = (await this.resolve(t.src)).host;
      const dst = (await this.resolve(t.dst)).host;
      const size = await this.sizeOf(src);
      const replaced = t.old ? await this.sizeOf(dst) : 0;
      this.charge(size - replaced);
      try {
        if (t.old === 'directory') await this.fsp.rmdir(dst);
        await this.copyTree(src, dst);
      } catch (e) {
        this.charge(replaced - size);
        throw e;
      }
    });
  }

  async copyTree(src, dst) {
    const st = await this.fsp.lstat(src);
    if (st.isDirectory()) {
      await this.fsp.mkdir(dst);
      for (const name of await this.fsp.readdir(src)) await this.copyTree(this.pathMod.join(src, name), this.pathMod.join(dst, name));
    } else if (st.isFile()) {
      await this.fsp.copyFile(src, dst);
    }
  }

  touch(path, atime, mtime) {
    return guard(async () => {
      const { host } = await this.existing(path);
      await this.fsp.utimes(host, atime / 1000, mtime / 1000);
    });
  }

  open(path, flags) {
    return guard(async () => {
      const mode = Store.openMode(flags);
      const r = await this.resolve(path);
      if (r.parts.length === 0 || r.st?.isDirectory()) fail(CODE.NOT_A_FILE);
      if (!r.st) {
        if (!mode.create) fail(CODE.NOT_FOUND);
        if (r.missingAt < r.parts.length - 1) fail(CODE.NOT_FOUND);
      } else if (mode.create && mode.exclusive) {
        fail(CODE.EXISTS);
      }
      const c = this.fs.constants;
      let oflags = (mode.read && mode.write ? c.O_RDWR : mode.write ? c.O_WRONLY : c.O_RDONLY) | (c.O_NOFOLLOW ?? 0);
      if (mode.create) oflags |= c.O_CREAT | (mode.exclusive ? c.O_EXCL : 0);
      const before = r.st ? r.st.size : 0;
      const fh = await this.fsp.open(r.host, oflags, 0o666);
      try {
        if (mode.truncate && before > 0) {
          await fh.truncate(0);
          this.charge(-before);
        }
      } catch (e) {
        await fh.close();
        throw e;
      }
      return this.handles.add({ fh, mode, host: r.host, linked: true });
    });
  }

  read(h, offset, length) {
    return guard(async () => {
      const { fh, mode } = this.handles.get(h);
      if (!mode.read) fail(CODE.ACCESS, 'not open for reading');
      Store.span(offset, length);
      const buf = new Uint8Array(length);
      let n = 0;
      while (n < length) {
        const { bytesRead } = await fh.read(buf, n, length - n, offset + n);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
      return buf.subarray(0, n);
    });
  }

  write(h, offset, bytes) {
    return guard(async () => {
      const s = this.handles.get(h);
      if (!s.mode.write) fail(CODE.ACCESS, 'not open for writing');
      const size = (await s.fh.stat()).size;
      const at = s.mode.append ? size : offset;
      Store.span(at, bytes.length);
      const grow = Math.max(0, at + bytes.length - size);
      if (s.linked) this.charge(grow);
      let n = 0;
      try {
        while (n < bytes.length) {
          const { bytesWritten } = await s.fh.write(bytes, n, bytes.length - n, at + n);
          n += bytesWritten;
        }
      } catch (e) {
        if (s.linked) this.charge(-grow);
        throw e;
      }
      return n;
    });
  }

  setLength(h, length) {
    return guard(async () => {
      const s = this.handles.get(h);
      if (!s.mode.write) fail(CODE.ACCESS, 'not open for writing');
      Store.span(length, 0);
      const size = (await s.fh.stat()).size;
      if (s.linked) this.charge(length - size);
      try {
        await s.fh.truncate(length);
      } catch (e) {
        if (s.linked) this.charge(size - length);
        throw e;
      }
    });
  }

  fstat(h) {
    return guard(async () => NodeDirStore.record(await this.handles.get(h).fh.stat()));
  }

  ftouch(h, atime, mtime) {
    return guard(async () => {
      await this.handles.get(h).fh.utimes(atime / 1000, mtime / 1000);
    });
  }

  flush(h) {
    return guard(async () => {
      await this.handles.get(h).fh.sync();
    });
  }

  close(h) {
    return guard(async () => {
      const s = this.handles.get(h);
      this.handles.delete(h);
      await s.fh.close();
    });
  }

  /** Resolves once the root is known (a missing directory throws here). */
  ready() {
    return guard(() => this.open_());
  }
}

