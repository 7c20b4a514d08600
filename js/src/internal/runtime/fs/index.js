// The guest's file system and file descriptors.
//
// One `FileSystem` per guest process, living on the host thread (guest
// threads in Workers reach it through the IRT's host calls). It resolves
// paths over one tree and hands each operation to the backend that owns
// the location:
//
//   memory.js       the in-memory tree the embedder fills (`files`), and the backend
//                   for locations in it (MemFile, MemDir, MemSymlink)
//   host-node.js    host directories (Node only, `hostDirs`), mounted in the tree at
//                   their own absolute paths, confined with realpath
//   descriptors.js  open file descriptions (shared by `dup`, each with its own
//                   offset) and the descriptor table this class extends
//   stdio.js        stdin/stdout/stderr: hooks, or the host's fds 0/1/2 in Node
//   errors.js       FsError(errno), which every failing operation throws
//
// Every operation either returns its result or throws `FsError(errno)`;
// the IRT layer (irt/fdio.js, irt/filename.js) turns that into the errno.
// Paths are strings; the current directory starts at `cwd` (default `/`).

import { errno, O, S } from '../defs.js';
import { DescriptorTable } from './descriptors.js';
import { fail } from './errors.js';
import { HostBackend, HostMount } from './host-node.js';
import { MemDir, MemFile, MemSymlink, MemoryBackend, newIno, now } from './memory.js';
import { OutputDescription, StdinDescription } from './stdio.js';

export { MAX_FDS } from './descriptors.js';
export { FsError } from './errors.js';
export { MAX_MEM_FILE_SIZE, MemDir, MemFile, MemSymlink } from './memory.js';
export { hostReadSync, hostWriteSync } from './stdio.js';

/** Longest path accepted (bytes, like PATH_MAX). */
export const MAX_PATH = 4096;
/** Symlinks followed while resolving one path before ELOOP. */
const MAX_SYMLINKS = 40;

/** Splits an absolute path into components, resolving `.` and `..` lexically. */
export function normalizePath(path) {
  const parts = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts;
}

export class FileSystem extends DescriptorTable {
  /**
   * @param {object} options
   * @param {Record<string, Uint8Array|string>} [options.files] in-memory files by path
   * @param {string[]} [options.hostDirs] host directories to expose (needs `nodeFs`)
   * @param {object} [options.nodeFs] the `node:fs` module (Node only)
   * @param {object} [options.nodePath] the `node:path` module (Node only)
   * @param {object} [options.nodeTty] the `node:tty` module (Node only: isatty of inherited fds)
   * @param {string} [options.cwd] initial current directory
   * @param {*} [options.stdin] see StdinDescription (stdio.js)
   * @param {*} [options.stdout] see OutputDescription (stdio.js)
   * @param {*} [options.stderr] see OutputDescription (stdio.js)
   * @param {boolean|boolean[]} [options.tty] whether fds 0-2 (hooks) are terminals
   * @param {(fd: number) => void} [options.onStdioChange] called when fd 0, 1 or 2 changes
   */
  constructor(options = {}) {
    super();
    const { files = {}, hostDirs = [], nodeFs = null, nodePath = null } = options;
    this.nodeFs = nodeFs;
    this.nodePath = nodePath;
    this.memory = new MemoryBackend(this);
    this.hostBackend = new HostBackend({ nodeFs, nodePath });
    this.root = new MemDir();
    this.onStdioChange = options.onStdioChange ?? (() => {});
    for (const [path, content] of Object.entries(files)) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      this.addFile(path, bytes);
    }
    if (hostDirs.length > 0 && (!nodeFs || !nodePath)) {
      throw new Error('host directories need Node (node:fs)');
    }
    this.mounts = [];
    for (const dir of hostDirs) this.mountHost(dir);
    this.cwd = '/';
    if (options.cwd !== undefined) {
      try {
        this.chdir(options.cwd);
      } catch {
        this.cwd = '/';
      }
    }

    const ttyOf = (fd) => (Array.isArray(options.tty) ? !!options.tty[fd] : !!options.tty);
    const hostTty = (fd) => {
      try {
        return options.nodeTty ? options.nodeTty.isatty(fd) : nodeFs.fstatSync(fd).isCharacterDevice();
      } catch {
        return false;
      }
    };
    const streamOpts = (fd, sink) => ({
      nodeFs,
      tty: sink === 'inherit' ? hostTty(fd) : ttyOf(fd),
      ino: newIno(),
    });
    for (const [fd, value] of [[0, options.stdin], [1, options.stdout], [2, options.stderr]]) {
      if (value === 'inherit' && !nodeFs) throw new Error(`'inherit' for fd ${fd} needs Node`);
    }
    this.fds = [
      new StdinDescription(options.stdin, streamOpts(0, options.stdin)),
      new OutputDescription(options.stdout, 1, streamOpts(1, options.stdout)),
      new OutputDescription(options.stderr, 2, streamOpts(2, options.stderr)),
    ];
  }

  /** Adds (or replaces) an in-memory file, creating its parent directories. */
  addFile(path, bytes, mode = 0o644) {
    const parts = normalizePath(path);
    if (parts.length === 0) throw new Error(`bad file path ${JSON.stringify(path)}`);
    let dir = this.root;
    for (const part of parts.slice(0, -1)) {
      let next = dir.entries.get(part);
      if (!next) {
        next = new MemDir(dir);
        dir.entries.set(part, next);
        dir.nlink++;
      }
      if (!(next instanceof MemDir)) throw new Error(`${path}: ${part} is not a directory`);
      dir = next;
    }
    const file = new MemFile(bytes, mode);
    dir.entries.set(parts[parts.length - 1], file);
    return file;
  }

  /** The in-memory file at `path`, or undefined (for embedders and tests). */
  memFile(path) {
    const loc = this.lookup(path);
    return loc.kind === 'mem' && loc.node instanceof MemFile ? loc.node : undefined;
  }

  mountHost(hostDir) {
    const nodeFs = this.nodeFs;
    const abs = this.nodePath.resolve(hostDir);
    const real = nodeFs.realpathSync(abs);
    if (!nodeFs.statSync(real).isDirectory()) throw new Error(`${hostDir} is not a directory`);
    const parts = normalizePath(abs);
    if (parts.length === 0) {
      // The whole host file system: the root itself delegates.
      this.root = new HostMount(real);
    } else {
      let dir = this.root;
      if (dir instanceof HostMount) return;
      for (const part of parts.slice(0, -1)) {
        let next = dir.entries.get(part);
        if (!(next instanceof MemDir)) {
          if (next instanceof HostMount) return; // already inside a mounted directory
          next = new MemDir(dir);
          dir.entries.set(part, next);
        }
        dir = next;
      }
      dir.entries.set(parts[parts.length - 1], new HostMount(real));
    }
    this.mounts.push(real);
  }

  // -------------------------------------------------------------------------
  // Paths

  /** The absolute guest path of `path` (relative to the current directory). */
  absolute(path) {
    if (path.length === 0) fail(errno.ENOENT);
    if (path.length > MAX_PATH) fail(errno.ENAMETOOLONG);
    return path.startsWith('/') ? path : `${this.cwd}/${path}`;
  }

  /**
   * Where `path` leads: `{kind: 'mem', node, parent, name, path}` (node
   * undefined when only the parent exists) or `{kind: 'host', hostPath,
   * mount, path}`. `follow` follows a symlink in the last component.
   */
  lookup(path, { follow = true } = {}, depth = 0) {
    const parts = normalizePath(this.absolute(path));
    let dir = this.root;
    let walked = [];
    for (let i = 0; i < parts.length; i++) {
      if (dir instanceof HostMount) {
        return this.hostBackend.location(dir, parts.slice(i), walked);
      }
      if (!(dir instanceof MemDir)) fail(errno.ENOTDIR);
      const name = parts[i];
      const node = dir.entries.get(name);
      const last = i === parts.length - 1;
      if (node instanceof MemSymlink && (!last || follow)) {
        if (depth >= MAX_SYMLINKS) fail(errno.ELOOP);
        const base = node.target.startsWith('/') ? '' : `/${walked.join('/')}`;
        const rest = parts.slice(i + 1).join('/');
        return this.lookup(`${base}/${node.target}${rest ? `/${rest}` : ''}`, { follow }, depth + 1);
      }
      if (last) {
        if (node instanceof HostMount) return this.hostBackend.location(node, [], [...walked, name]);
        return { kind: 'mem', node, parent: dir, name, path: `/${parts.join('/')}` };
      }
      if (!node) fail(errno.ENOENT);
      dir = node;
      walked.push(name);
    }
    if (dir instanceof HostMount) return this.hostBackend.location(dir, [], walked);
    return { kind: 'mem', node: dir, parent: dir.parent, name: '', path: '/' };
  }

  /** The backend of a location from `lookup`. */
  backend(loc) {
    return loc.kind === 'host' ? this.hostBackend : this.memory;
  }

  /** Two locations in the same backend (and mount), or EXDEV. */
  pair(from, to, opts) {
    const a = this.lookup(from, opts);
    const b = this.lookup(to, { follow: false });
    if (a.kind !== b.kind || (a.kind === 'host' && a.mount !== b.mount)) fail(errno.EXDEV);
    return [a, b];
  }

  // -------------------------------------------------------------------------
  // Path operations

  /** Opens `path` with NaCl `flags` and `mode`; returns the new fd. */
  open(path, flags, mode = 0o666) {
    const acc = flags & O.ACCMODE;
    if (acc === 3) fail(errno.EINVAL);
    const loc = this.lookup(path);
    return this.install(this.backend(loc).open(loc, flags, mode));
  }

  stat(path, { follow = true } = {}) {
    const loc = this.lookup(path, { follow });
    return this.backend(loc).stat(loc, { follow });
  }

  mkdir(path, mode = 0o777) {
    const loc = this.lookup(path, { follow: false });
    return this.backend(loc).mkdir(loc, mode);
  }

  rmdir(path) {
    const loc = this.lookup(path, { follow: false });
    return this.backend(loc).rmdir(loc);
  }

  unlink(path) {
    const loc = this.lookup(path, { follow: false });
    return this.backend(loc).unlink(loc);
  }

  truncate(path, len) {
    const loc = this.lookup(path);
    return this.backend(loc).truncate(loc, len);
  }

  link(from, to) {
    const [a, b] = this.pair(from, to, { follow: false });
    return this.backend(a).link(a, b);
  }

  rename(from, to) {
    const [a, b] = this.pair(from, to, { follow: false });
    return this.backend(a).rename(a, b);
  }

  symlink(target, path) {
    const loc = this.lookup(path, { follow: false });
    return this.backend(loc).symlink(target, loc);
  }

  readlink(path) {
    const loc = this.lookup(path, { follow: false });
    return this.backend(loc).readlink(loc);
  }

  chmod(path, mode) {
    const loc = this.lookup(path);
    return this.backend(loc).chmod(loc, mode);
  }

  access(path, mode) {
    if (mode & ~7) fail(errno.EINVAL);
    const loc = this.lookup(path);
    return this.backend(loc).access(loc, mode);
  }

  /** Sets access and modification times (ms since the epoch; null = now). */
  utimes(path, atimeMs, mtimeMs) {
    const t = now();
    const loc = this.lookup(path);
    return this.backend(loc).utimes(loc, atimeMs ?? t, mtimeMs ?? t);
  }

  chdir(path) {
    const st = this.stat(path);
    if ((st.mode & S.IFMT) !== S.IFDIR) fail(errno.ENOTDIR);
    const parts = normalizePath(this.absolute(path));
    this.cwd = `/${parts.join('/')}`;
  }

  fchdir(fd) {
    this.cwd = this.get(fd).dirPath();
  }

  getcwd() {
    return this.cwd;
  }
}
