// The guest's file system and file descriptors.
//
// One `FileSystem` per guest process, living on the host thread (guest
// threads in Workers reach it through the IRT's host calls). It owns:
//
// - an in-memory tree the embedder fills (`files`: path → bytes or string;
//   parent directories are created as needed): `MemFile` (bytes),
//   `MemDir`, `MemSymlink`;
// - optional host directories (Node only, when the embedder asks with
//   `hostDirs`): each is mounted in the guest at its own absolute host path,
//   so guest paths are host paths, but nothing outside those directories is
//   reachable (`..` is resolved first, and symlinks are checked with
//   realpath);
// - the descriptor table: fd → open file description, shared by `dup`;
//   descriptions keep their own offsets;
// - stdin/stdout/stderr as hooks (bytes or a function for input, a
//   function receiving `Uint8Array` copies for output), or, in Node, the
//   host's own fds 0/1/2 passed through byte for byte (`'inherit'`).
//
// Every operation either returns its result or throws `FsError(errno)`;
// the IRT layer (irt/fdio.js, irt/filename.js) turns that into the errno.
// Paths are strings; the current directory starts at `cwd` (default `/`).

import { errno, O, S, SEEK } from './defs.js';

/** Most descriptors a guest may have open at once. */
export const MAX_FDS = 1024;
/** Longest path accepted (bytes, like PATH_MAX). */
export const MAX_PATH = 4096;
/** Largest in-memory file (bytes); writing beyond fails with EFBIG. */
export const MAX_MEM_FILE_SIZE = 1 << 30;
/** Symlinks followed while resolving one path before ELOOP. */
const MAX_SYMLINKS = 40;
/** st_blksize reported for in-memory files and streams. */
const BLKSIZE = 4096;

/** A failed file operation: `errno` is the positive NaCl errno. */
export class FsError extends Error {
  constructor(code, message) {
    super(message ?? `errno ${code}`);
    this.name = 'FsError';
    this.errno = code;
  }
}

const fail = (code) => {
  throw new FsError(code);
};

/** Converts a Node fs error (`err.code` like 'ENOENT') into an FsError. */
function fromHostError(err) {
  if (err instanceof FsError) return err;
  const code = typeof err?.code === 'string' ? errno[err.code] : undefined;
  return new FsError(code ?? errno.EIO, err?.message);
}

let nextIno = 1;
const now = () => Date.now();

class MemNode {
  constructor(mode) {
    this.ino = nextIno++;
    this.mode = mode;
    this.nlink = 1;
    this.atimeMs = this.mtimeMs = this.ctimeMs = now();
  }

  stat() {
    const size = this.size ?? 0;
    return {
      dev: 1,
      ino: this.ino,
      mode: this.mode,
      nlink: this.nlink,
      uid: 0,
      gid: 0,
      rdev: 0,
      size,
      blksize: BLKSIZE,
      blocks: Math.ceil(size / 512),
      atimeMs: this.atimeMs,
      mtimeMs: this.mtimeMs,
      ctimeMs: this.ctimeMs,
    };
  }
}

export class MemFile extends MemNode {
  constructor(bytes = new Uint8Array(0), mode = 0o644) {
    super(S.IFREG | (mode & 0o7777));
    this.data = bytes;
    this.size = bytes.length;
  }

  /** The file's contents (a copy). */
  contents() {
    return this.data.slice(0, this.size);
  }

  resize(size) {
    if (size > MAX_MEM_FILE_SIZE) fail(errno.EFBIG);
    if (size > this.data.length) {
      const grown = new Uint8Array(Math.min(MAX_MEM_FILE_SIZE, Math.max(size, this.data.length * 2, 256)));
      grown.set(this.data.subarray(0, this.size));
      this.data = grown;
    } else if (size < this.size) {
      this.data.fill(0, size, this.size);
    }
    this.size = size;
    this.mtimeMs = this.ctimeMs = now();
  }

  readAt(pos, len) {
    if (pos >= this.size) return new Uint8Array(0);
    this.atimeMs = now();
    return this.data.slice(pos, Math.min(this.size, pos + len));
  }

  writeAt(pos, bytes) {
    const end = pos + bytes.length;
    if (end > this.size) this.resize(end);
    this.data.set(bytes, pos);
    this.mtimeMs = this.ctimeMs = now();
    return bytes.length;
  }
}

export class MemDir extends MemNode {
  constructor(parent = null, mode = 0o755) {
    super(S.IFDIR | (mode & 0o7777));
    this.entries = new Map();
    this.parent = parent ?? this;
    this.nlink = 2;
  }
}

export class MemSymlink extends MemNode {
  constructor(target) {
    super(S.IFLNK | 0o777);
    this.target = target;
    this.size = target.length;
  }
}

/** A host directory mounted in the tree (Node only). */
class HostMount extends MemNode {
  constructor(hostRoot) {
    super(S.IFDIR | 0o755);
    this.hostRoot = hostRoot;
  }
}

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

// ---------------------------------------------------------------------------
// Open file descriptions

class Description {
  constructor(flags) {
    this.flags = flags;
    this.refs = 1;
  }

  get readable() {
    return (this.flags & O.ACCMODE) !== O.WRONLY;
  }

  get writable() {
    return (this.flags & O.ACCMODE) !== O.RDONLY;
  }

  read() {
    fail(errno.EBADF);
  }

  write() {
    fail(errno.EBADF);
  }

  seek() {
    fail(errno.ESPIPE);
  }

  stat() {
    fail(errno.EBADF);
  }

  getdents() {
    fail(errno.ENOTDIR);
  }

  truncate() {
    fail(errno.EINVAL);
  }

  chmod() {
    fail(errno.EINVAL);
  }

  isatty() {
    return false;
  }

  /** The directory a `fchdir` goes to, as a guest path. */
  dirPath() {
    fail(errno.ENOTDIR);
  }

  sync() {}

  close() {}
}

function seekTo(current, size, offset, whence) {
  let base;
  if (whence === SEEK.SET) base = 0n;
  else if (whence === SEEK.CUR) base = BigInt(current);
  else if (whence === SEEK.END) base = BigInt(size);
  else fail(errno.EINVAL);
  const pos = base + BigInt(offset);
  if (pos < 0n) fail(errno.EINVAL);
  if (pos > BigInt(Number.MAX_SAFE_INTEGER)) fail(errno.EFBIG);
  return Number(pos);
}

class MemFileDescription extends Description {
  constructor(file, flags) {
    super(flags);
    this.file = file;
    this.offset = 0;
  }

  read(len) {
    if (!this.readable) fail(errno.EBADF);
    const bytes = this.file.readAt(this.offset, len);
    this.offset += bytes.length;
    return bytes;
  }

  write(bytes) {
    if (!this.writable) fail(errno.EBADF);
    if (this.flags & O.APPEND) this.offset = this.file.size;
    this.offset += this.file.writeAt(this.offset, bytes);
    return bytes.length;
  }

  seek(offset, whence) {
    this.offset = seekTo(this.offset, this.file.size, offset, whence);
    return this.offset;
  }

  stat() {
    return this.file.stat();
  }

  truncate(len) {
    if (!this.writable) fail(errno.EINVAL);
    this.file.resize(len);
  }

  chmod(mode) {
    this.file.mode = (this.file.mode & S.IFMT) | (mode & 0o7777);
  }
}

/** One directory entry as getdents reports it. */
function dirent(ino, name, type) {
  return { ino, name, type };
}

class DirDescription extends Description {
  /** `entries()` lists the directory once, at the first getdents. */
  constructor(statFn, entriesFn, guestPath) {
    super(O.RDONLY);
    this.statFn = statFn;
    this.entriesFn = entriesFn;
    this.guestPath = guestPath;
    this.list = null;
    this.position = 0;
  }

  stat() {
    return this.statFn();
  }

  read() {
    fail(errno.EISDIR);
  }

  seek(offset, whence) {
    if (whence !== SEEK.SET) fail(errno.EINVAL);
    this.position = seekTo(0, 0, offset, SEEK.SET);
    return this.position;
  }

  /**
   * Calls `fits(entry)` for the entries from the current position on
   * (each with `off`, the position after it) until it returns false, and
   * consumes the accepted ones. Returns whether entries are left.
   */
  getdents(fits) {
    this.list ??= this.entriesFn();
    while (this.position < this.list.length) {
      const entry = { ...this.list[this.position], off: this.position + 1 };
      if (!fits(entry)) break;
      this.position++;
    }
    return this.position < this.list.length;
  }

  dirPath() {
    return this.guestPath;
  }
}

class HostFileDescription extends Description {
  constructor(nodeFs, fd, flags) {
    super(flags);
    this.nodeFs = nodeFs;
    this.fd = fd;
    this.offset = 0;
  }

  read(len) {
    if (!this.readable) fail(errno.EBADF);
    const buf = new Uint8Array(len);
    let n;
    try {
      n = this.nodeFs.readSync(this.fd, buf, 0, len, this.offset);
    } catch (e) {
      throw fromHostError(e);
    }
    this.offset += n;
    return buf.subarray(0, n);
  }

  write(bytes) {
    if (!this.writable) fail(errno.EBADF);
    try {
      if (this.flags & O.APPEND) {
        const n = this.nodeFs.writeSync(this.fd, bytes, 0, bytes.length, null);
        this.offset = this.nodeFs.fstatSync(this.fd).size;
        return n;
      }
      const n = this.nodeFs.writeSync(this.fd, bytes, 0, bytes.length, this.offset);
      this.offset += n;
      return n;
    } catch (e) {
      throw fromHostError(e);
    }
  }

  seek(offset, whence) {
    const size = whence === SEEK.END ? this.stat().size : 0;
    this.offset = seekTo(this.offset, size, offset, whence);
    return this.offset;
  }

  stat() {
    try {
      return hostStat(this.nodeFs.fstatSync(this.fd));
    } catch (e) {
      throw fromHostError(e);
    }
  }

  truncate(len) {
    try {
      this.nodeFs.ftruncateSync(this.fd, len);
    } catch (e) {
      throw fromHostError(e);
    }
  }

  chmod(mode) {
    try {
      this.nodeFs.fchmodSync(this.fd, mode & 0o7777);
    } catch (e) {
      throw fromHostError(e);
    }
  }

  sync() {
    try {
      this.nodeFs.fsyncSync(this.fd);
    } catch (e) {
      throw fromHostError(e);
    }
  }

  close() {
    try {
      this.nodeFs.closeSync(this.fd);
    } catch {
      // Closing can only fail for a bad fd, which ours never is.
    }
  }
}

function hostStat(st) {
  return {
    dev: st.dev,
    ino: st.ino,
    mode: st.mode,
    nlink: st.nlink,
    uid: st.uid,
    gid: st.gid,
    rdev: st.rdev,
    size: st.size,
    blksize: st.blksize || BLKSIZE,
    blocks: st.blocks,
    atimeMs: st.atimeMs,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
  };
}

/** A stream's stat: a character device for a terminal, a FIFO otherwise. */
function streamStat(tty, ino) {
  const t = now();
  return {
    dev: 2,
    ino,
    mode: (tty ? S.IFCHR : S.IFIFO) | 0o600,
    nlink: 1,
    uid: 0,
    gid: 0,
    rdev: 0,
    size: 0,
    blksize: BLKSIZE,
    blocks: 0,
    atimeMs: t,
    mtimeMs: t,
    ctimeMs: t,
  };
}

/**
 * How long to back off when a non-blocking host fd says EAGAIN. Sleeping
 * needs Atomics.wait, which a page's main thread cannot do: it spins.
 */
function backoff(ms) {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  } catch {
    const end = performance.now() + ms;
    while (performance.now() < end);
  }
}

/** Reads from a host fd (stdin passthrough), retrying on EAGAIN. */
export function hostReadSync(nodeFs, fd, len) {
  const buf = new Uint8Array(len);
  for (;;) {
    try {
      const n = nodeFs.readSync(fd, buf, 0, len, null);
      return buf.subarray(0, n);
    } catch (e) {
      if (e?.code === 'EAGAIN') backoff(1);
      else if (e?.code === 'EOF') return buf.subarray(0, 0);
      else throw fromHostError(e);
    }
  }
}

/** Writes all of `bytes` to a host fd (stdout passthrough), retrying on EAGAIN. */
export function hostWriteSync(nodeFs, fd, bytes) {
  let done = 0;
  while (done < bytes.length) {
    try {
      done += nodeFs.writeSync(fd, bytes, done, bytes.length - done);
    } catch (e) {
      if (e?.code === 'EAGAIN') backoff(1);
      else throw fromHostError(e);
    }
  }
  return bytes.length;
}

/**
 * Standard input: `source` is a Uint8Array (read to its end, then EOF), a
 * function returning the next chunk (a Uint8Array; null or empty = EOF),
 * `'inherit'` (the host's fd 0, Node only), or undefined (empty).
 */
class StdinDescription extends Description {
  constructor(source, { nodeFs, tty, ino }) {
    super(O.RDONLY);
    this.source = typeof source === 'string' ? new TextEncoder().encode(source) : source;
    this.position = 0;
    this.pending = null;
    this.nodeFs = nodeFs;
    this.tty = tty;
    this.ino = ino;
  }

  get hostFd() {
    return this.source === 'inherit' ? 0 : -1;
  }

  read(len) {
    const src = this.source;
    if (src === 'inherit') return hostReadSync(this.nodeFs, 0, len);
    if (src instanceof Uint8Array) {
      const bytes = src.slice(this.position, this.position + len);
      this.position += bytes.length;
      return bytes;
    }
    if (typeof src === 'function') {
      if (!this.pending || this.pending.length === 0) this.pending = src() ?? null;
      if (!this.pending) return new Uint8Array(0);
      const bytes = this.pending.slice(0, len);
      this.pending = this.pending.subarray(bytes.length);
      return bytes;
    }
    return new Uint8Array(0);
  }

  stat() {
    if (this.source === 'inherit') {
      try {
        return hostStat(this.nodeFs.fstatSync(0));
      } catch (e) {
        throw fromHostError(e);
      }
    }
    return streamStat(this.tty, this.ino);
  }

  isatty() {
    return this.tty;
  }
}

/**
 * stdout/stderr: `sink` is a function receiving Uint8Array copies,
 * `'inherit'` (the host fd `hostFd`, Node only), or undefined (discarded).
 */
class OutputDescription extends Description {
  constructor(sink, hostFd, { nodeFs, tty, ino }) {
    super(O.WRONLY);
    this.sink = sink;
    this.inheritFd = hostFd;
    this.nodeFs = nodeFs;
    this.tty = tty;
    this.ino = ino;
  }

  get hostFd() {
    return this.sink === 'inherit' ? this.inheritFd : -1;
  }

  write(bytes) {
    if (this.sink === 'inherit') return hostWriteSync(this.nodeFs, this.inheritFd, bytes);
    if (typeof this.sink === 'function') this.sink(bytes.slice());
    return bytes.length;
  }

  stat() {
    if (this.sink === 'inherit') {
      try {
        return hostStat(this.nodeFs.fstatSync(this.inheritFd));
      } catch (e) {
        throw fromHostError(e);
      }
    }
    return streamStat(this.tty, this.ino);
  }

  isatty() {
    return this.tty;
  }
}

// ---------------------------------------------------------------------------
// The file system

export class FileSystem {
  /**
   * @param {object} options
   * @param {Record<string, Uint8Array|string>} [options.files] in-memory files by path
   * @param {string[]} [options.hostDirs] host directories to expose (needs `nodeFs`)
   * @param {object} [options.nodeFs] the `node:fs` module (Node only)
   * @param {object} [options.nodePath] the `node:path` module (Node only)
   * @param {object} [options.nodeTty] the `node:tty` module (Node only: isatty of inherited fds)
   * @param {string} [options.cwd] initial current directory
   * @param {*} [options.stdin] see StdinDescription
   * @param {*} [options.stdout] see OutputDescription
   * @param {*} [options.stderr] see OutputDescription
   * @param {boolean|boolean[]} [options.tty] whether fds 0-2 (hooks) are terminals
   * @param {(fd: number) => void} [options.onStdioChange] called when fd 0, 1 or 2 changes
   */
  constructor(options = {}) {
    const { files = {}, hostDirs = [], nodeFs = null, nodePath = null } = options;
    this.nodeFs = nodeFs;
    this.nodePath = nodePath;
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
      ino: nextIno++,
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
        return this.hostLocation(dir, parts.slice(i), walked);
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
        if (node instanceof HostMount) return this.hostLocation(node, [], [...walked, name]);
        return { kind: 'mem', node, parent: dir, name, path: `/${parts.join('/')}` };
      }
      if (!node) fail(errno.ENOENT);
      dir = node;
      walked.push(name);
    }
    if (dir instanceof HostMount) return this.hostLocation(dir, [], walked);
    return { kind: 'mem', node: dir, parent: dir.parent, name: '', path: '/' };
  }

  hostLocation(mount, rest, walked) {
    const hostPath = rest.length ? this.nodePath.join(mount.hostRoot, ...rest) : mount.hostRoot;
    const path = `/${[...walked, ...rest].join('/')}`;
    return { kind: 'host', hostPath, mount: mount.hostRoot, path };
  }

  /**
   * Checks that a host path (or, when it does not exist, its parent) stays
   * inside its mount once symlinks are resolved. `removing` refuses the
   * mounted directory itself (it cannot be removed or renamed).
   */
  confine(loc, { follow = true, removing = false } = {}) {
    if (loc.hostPath === loc.mount) {
      if (removing) fail(errno.EBUSY);
      return loc.hostPath;
    }
    const { nodeFs, nodePath } = this;
    let probe = loc.hostPath;
    if (!follow) probe = nodePath.dirname(probe);
    let real;
    try {
      real = nodeFs.realpathSync(probe);
    } catch (e) {
      if (e?.code !== 'ENOENT') throw fromHostError(e);
      try {
        real = nodeFs.realpathSync(nodePath.dirname(probe));
      } catch (e2) {
        throw fromHostError(e2);
      }
    }
    if (real !== loc.mount && !real.startsWith(loc.mount.endsWith('/') ? loc.mount : `${loc.mount}/`)) {
      fail(errno.EACCES);
    }
    return loc.hostPath;
  }

  host(fn) {
    try {
      return fn(this.nodeFs);
    } catch (e) {
      throw fromHostError(e);
    }
  }

  // -------------------------------------------------------------------------
  // Descriptors

  /** The description behind `fd`, or throws EBADF. */
  get(fd) {
    const desc = Number.isInteger(fd) && fd >= 0 ? this.fds[fd] : undefined;
    if (!desc) fail(errno.EBADF);
    return desc;
  }

  /** Installs `desc` at the lowest free fd; returns the fd. */
  install(desc) {
    let fd = this.fds.findIndex((d) => d === undefined);
    if (fd < 0) fd = this.fds.length;
    if (fd >= MAX_FDS) {
      desc.close();
      fail(errno.EMFILE);
    }
    this.fds[fd] = desc;
    if (fd <= 2) this.onStdioChange(fd);
    return fd;
  }

  close(fd) {
    this.release(fd);
    if (fd <= 2) this.onStdioChange(fd);
  }

  /** Frees `fd`, closing its description when no other fd refers to it. */
  release(fd) {
    const desc = this.get(fd);
    this.fds[fd] = undefined;
    if (--desc.refs === 0) desc.close();
  }

  dup(fd) {
    const desc = this.get(fd);
    desc.refs++;
    try {
      return this.install(desc);
    } catch (e) {
      desc.refs--;
      throw e;
    }
  }

  dup2(fd, newfd) {
    const desc = this.get(fd);
    if (!Number.isInteger(newfd) || newfd < 0 || newfd >= MAX_FDS) fail(errno.EBADF);
    if (newfd === fd) return newfd;
    if (this.fds[newfd]) this.release(newfd);
    desc.refs++;
    while (this.fds.length < newfd) this.fds.push(undefined);
    this.fds[newfd] = desc;
    if (newfd <= 2) this.onStdioChange(newfd);
    return newfd;
  }

  /** The host fd that guest fd `fd` (0-2) passes through to, or -1. */
  passthroughFd(fd) {
    const desc = this.fds[fd];
    return desc && typeof desc.hostFd === 'number' ? desc.hostFd : -1;
  }

  /** Opens `path` with NaCl `flags` and `mode`; returns the new fd. */
  open(path, flags, mode = 0o666) {
    const acc = flags & O.ACCMODE;
    if (acc === 3) fail(errno.EINVAL);
    const loc = this.lookup(path);
    if (loc.kind === 'host') return this.install(this.openHost(loc, flags, mode));
    let node = loc.node;
    if (!node) {
      if (!(flags & O.CREAT)) fail(errno.ENOENT);
      if (!(loc.parent instanceof MemDir)) fail(errno.ENOENT);
      node = new MemFile(new Uint8Array(0), mode);
      loc.parent.entries.set(loc.name, node);
    } else if ((flags & O.CREAT) && (flags & O.EXCL)) {
      fail(errno.EEXIST);
    }
    if (node instanceof MemDir || node instanceof HostMount) {
      if (acc !== O.RDONLY) fail(errno.EISDIR);
      return this.install(this.dirDescription(loc));
    }
    if (flags & O.DIRECTORY) fail(errno.ENOTDIR);
    if (flags & O.TRUNC && acc !== O.RDONLY) node.resize(0);
    return this.install(new MemFileDescription(node, flags));
  }

  openHost(loc, flags, mode) {
    const hostPath = this.confine(loc);
    const st = this.host((fs) => {
      try {
        return fs.statSync(hostPath);
      } catch (e) {
        if (e?.code === 'ENOENT') return null;
        throw e;
      }
    });
    if (st?.isDirectory()) {
      if ((flags & O.ACCMODE) !== O.RDONLY) fail(errno.EISDIR);
      return this.dirDescription(loc);
    }
    if (flags & O.DIRECTORY) fail(st ? errno.ENOTDIR : errno.ENOENT);
    const c = this.nodeFs.constants;
    let hostFlags = [c.O_RDONLY, c.O_WRONLY, c.O_RDWR][flags & O.ACCMODE];
    if (flags & O.CREAT) hostFlags |= c.O_CREAT;
    if (flags & O.EXCL) hostFlags |= c.O_EXCL;
    if (flags & O.TRUNC) hostFlags |= c.O_TRUNC;
    if (flags & O.APPEND) hostFlags |= c.O_APPEND;
    const fd = this.host((fs) => fs.openSync(hostPath, hostFlags, mode & 0o7777));
    return new HostFileDescription(this.nodeFs, fd, flags);
  }

  dirDescription(loc) {
    if (loc.kind === 'host') {
      const hostPath = loc.hostPath;
      return new DirDescription(
        () => this.host((fs) => hostStat(fs.statSync(hostPath))),
        () => this.hostEntries(hostPath),
        loc.path,
      );
    }
    const dir = loc.node;
    return new DirDescription(
      () => dir.stat(),
      () => {
        const list = [dirent(dir.ino, '.', S.IFDIR), dirent(dir.parent.ino, '..', S.IFDIR)];
        for (const [name, node] of dir.entries) list.push(dirent(node.ino, name, node.mode & S.IFMT));
        return list;
      },
      loc.path,
    );
  }

  hostEntries(hostPath) {
    return this.host((fs) => {
      const list = [
        dirent(fs.statSync(hostPath).ino, '.', S.IFDIR),
        dirent(fs.statSync(this.nodePath.dirname(hostPath)).ino, '..', S.IFDIR),
      ];
      for (const name of fs.readdirSync(hostPath)) {
        let st;
        try {
          st = fs.lstatSync(this.nodePath.join(hostPath, name));
        } catch {
          continue; // vanished meanwhile
        }
        list.push(dirent(st.ino, name, st.mode & S.IFMT));
      }
      return list;
    });
  }

  // -------------------------------------------------------------------------
  // Path operations

  stat(path, { follow = true } = {}) {
    const loc = this.lookup(path, { follow });
    if (loc.kind === 'host') {
      const p = this.confine(loc, { follow });
      return this.host((fs) => hostStat(follow ? fs.statSync(p) : fs.lstatSync(p)));
    }
    if (!loc.node) fail(errno.ENOENT);
    return loc.node.stat();
  }

  mkdir(path, mode = 0o777) {
    const loc = this.lookup(path, { follow: false });
    if (loc.kind === 'host') {
      const p = this.confine(loc, { follow: false });
      return this.host((fs) => fs.mkdirSync(p, mode & 0o7777));
    }
    if (loc.node) fail(errno.EEXIST);
    if (!(loc.parent instanceof MemDir)) fail(errno.ENOENT);
    loc.parent.entries.set(loc.name, new MemDir(loc.parent, mode));
    loc.parent.nlink++;
  }

  rmdir(path) {
    const loc = this.lookup(path, { follow: false });
    if (loc.kind === 'host') {
      const p = this.confine(loc, { follow: false, removing: true });
      return this.host((fs) => fs.rmdirSync(p));
    }
    if (!loc.node) fail(errno.ENOENT);
    if (loc.node instanceof HostMount) fail(errno.EBUSY);
    if (!(loc.node instanceof MemDir)) fail(errno.ENOTDIR);
    if (loc.node === this.root || loc.name === '') fail(errno.EBUSY);
    if (loc.node.entries.size > 0) fail(errno.ENOTEMPTY);
    loc.parent.entries.delete(loc.name);
    loc.parent.nlink--;
  }

  unlink(path) {
    const loc = this.lookup(path, { follow: false });
    if (loc.kind === 'host') {
      const p = this.confine(loc, { follow: false, removing: true });
      return this.host((fs) => fs.unlinkSync(p));
    }
    if (!loc.node) fail(errno.ENOENT);
    if (loc.node instanceof MemDir || loc.node instanceof HostMount) fail(errno.EISDIR);
    loc.parent.entries.delete(loc.name);
    loc.node.nlink--;
  }

  truncate(path, len) {
    const loc = this.lookup(path);
    if (loc.kind === 'host') {
      const p = this.confine(loc);
      return this.host((fs) => fs.truncateSync(p, len));
    }
    if (!loc.node) fail(errno.ENOENT);
    if (!(loc.node instanceof MemFile)) fail(errno.EISDIR);
    loc.node.resize(len);
  }

  /** Two locations in the same backend (and mount), or EXDEV. */
  pair(from, to, opts) {
    const a = this.lookup(from, opts);
    const b = this.lookup(to, { follow: false });
    if (a.kind !== b.kind || (a.kind === 'host' && a.mount !== b.mount)) fail(errno.EXDEV);
    return [a, b];
  }

  link(from, to) {
    const [a, b] = this.pair(from, to, { follow: false });
    if (a.kind === 'host') {
      const pa = this.confine(a, { follow: false });
      const pb = this.confine(b, { follow: false });
      return this.host((fs) => fs.linkSync(pa, pb));
    }
    if (!a.node) fail(errno.ENOENT);
    if (a.node instanceof MemDir) fail(errno.EPERM);
    if (b.node) fail(errno.EEXIST);
    if (!(b.parent instanceof MemDir)) fail(errno.ENOENT);
    b.parent.entries.set(b.name, a.node);
    a.node.nlink++;
  }

  rename(from, to) {
    const [a, b] = this.pair(from, to, { follow: false });
    if (a.kind === 'host') {
      const pa = this.confine(a, { follow: false, removing: true });
      const pb = this.confine(b, { follow: false, removing: true });
      return this.host((fs) => fs.renameSync(pa, pb));
    }
    if (!a.node) fail(errno.ENOENT);
    if (a.node instanceof HostMount || b.node instanceof HostMount) fail(errno.EBUSY);
    if (!(b.parent instanceof MemDir)) fail(errno.ENOENT);
    if (a.node === b.node) return;
    if (a.node instanceof MemDir) {
      for (let d = b.parent; ; d = d.parent) {
        if (d === a.node) fail(errno.EINVAL); // into its own subtree
        if (d === d.parent) break;
      }
      if (b.node && !(b.node instanceof MemDir)) fail(errno.ENOTDIR);
      if (b.node && b.node.entries.size > 0) fail(errno.ENOTEMPTY);
    } else if (b.node instanceof MemDir) {
      fail(errno.EISDIR);
    }
    a.parent.entries.delete(a.name);
    b.parent.entries.set(b.name, a.node);
    if (a.node instanceof MemDir) a.node.parent = b.parent;
  }

  symlink(target, path) {
    const loc = this.lookup(path, { follow: false });
    if (loc.kind === 'host') {
      const p = this.confine(loc, { follow: false });
      return this.host((fs) => fs.symlinkSync(target, p));
    }
    if (loc.node) fail(errno.EEXIST);
    if (!(loc.parent instanceof MemDir)) fail(errno.ENOENT);
    loc.parent.entries.set(loc.name, new MemSymlink(target));
  }

  readlink(path) {
    const loc = this.lookup(path, { follow: false });
    if (loc.kind === 'host') {
      const p = this.confine(loc, { follow: false });
      return this.host((fs) => fs.readlinkSync(p, { encoding: 'buffer' }));
    }
    if (!loc.node) fail(errno.ENOENT);
    if (!(loc.node instanceof MemSymlink)) fail(errno.EINVAL);
    return new TextEncoder().encode(loc.node.target);
  }

  chmod(path, mode) {
    const loc = this.lookup(path);
    if (loc.kind === 'host') {
      const p = this.confine(loc);
      return this.host((fs) => fs.chmodSync(p, mode & 0o7777));
    }
    if (!loc.node) fail(errno.ENOENT);
    loc.node.mode = (loc.node.mode & S.IFMT) | (mode & 0o7777);
    loc.node.ctimeMs = now();
  }

  access(path, mode) {
    if (mode & ~7) fail(errno.EINVAL);
    const loc = this.lookup(path);
    if (loc.kind === 'host') {
      const p = this.confine(loc);
      return this.host((fs) => fs.accessSync(p, mode));
    }
    if (!loc.node) fail(errno.ENOENT);
    // The guest is the owner of every in-memory file.
    const perms = (loc.node.mode >> 6) & 7;
    if ((perms & mode) !== mode) fail(errno.EACCES);
  }

  /** Sets access and modification times (ms since the epoch; null = now). */
  utimes(path, atimeMs, mtimeMs) {
    const t = now();
    const loc = this.lookup(path);
    if (loc.kind === 'host') {
      const p = this.confine(loc);
      return this.host((fs) => fs.utimesSync(p, (atimeMs ?? t) / 1000, (mtimeMs ?? t) / 1000));
    }
    if (!loc.node) fail(errno.ENOENT);
    loc.node.atimeMs = atimeMs ?? t;
    loc.node.mtimeMs = mtimeMs ?? t;
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
