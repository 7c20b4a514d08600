// The in-memory backend: a tree the embedder fills (`files`: path → bytes
// or string) and the guest changes. `MemFile` (bytes), `MemDir`,
// `MemSymlink`; `MountPoint` is a directory of the tree that another
// backend serves (host-node.js's HostMount). The guest owns every node.
//
// `MemoryBackend` does the path operations on a location in the tree
// (`{kind: 'mem', node, parent, name, path}`, from FileSystem.lookup).

import { errno, O, S } from '../defs.js';
import { DirDescription, Description, dirent, seekTo } from './descriptors.js';
import { fail } from './errors.js';

/** Largest in-memory file (bytes); writing beyond fails with EFBIG. */
export const MAX_MEM_FILE_SIZE = 1 << 30;
/** st_blksize reported for in-memory files and streams. */
export const BLKSIZE = 4096;

let nextIno = 1;
/** A new inode number (nodes of the tree, and streams). */
export const newIno = () => nextIno++;
export const now = () => Date.now();

class MemNode {
  constructor(mode) {
    this.ino = newIno();
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

/** A directory of the tree served by another backend (it cannot be removed or renamed). */
export class MountPoint extends MemNode {
  constructor() {
    super(S.IFDIR | 0o755);
  }
}

/** An open in-memory file. */
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

/**
 * Path operations on the tree. Locations: `{kind: 'mem', node, parent,
 * name, path}`, `node` undefined when only the parent exists. `fsys` is
 * the FileSystem (its root and descriptor table).
 */
export class MemoryBackend {
  constructor(fsys) {
    this.fsys = fsys;
  }

  /** A description for `open` (the FileSystem installs it). */
  open(loc, flags, mode) {
    const acc = flags & O.ACCMODE;
    let node = loc.node;
    if (!node) {
      if (!(flags & O.CREAT)) fail(errno.ENOENT);
      if (!(loc.parent instanceof MemDir)) fail(errno.ENOENT);
      node = new MemFile(new Uint8Array(0), mode);
      loc.parent.entries.set(loc.name, node);
    } else if ((flags & O.CREAT) && (flags & O.EXCL)) {
      fail(errno.EEXIST);
    }
    if (node instanceof MemDir || node instanceof MountPoint) {
      if (acc !== O.RDONLY) fail(errno.EISDIR);
      return this.dirDescription(loc);
    }
    if (flags & O.DIRECTORY) fail(errno.ENOTDIR);
    if (flags & O.TRUNC && acc !== O.RDONLY) node.resize(0);
    return new MemFileDescription(node, flags);
  }

  dirDescription(loc) {
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

  stat(loc) {
    if (!loc.node) fail(errno.ENOENT);
    return loc.node.stat();
  }

  mkdir(loc, mode) {
    if (loc.node) fail(errno.EEXIST);
    if (!(loc.parent instanceof MemDir)) fail(errno.ENOENT);
    loc.parent.entries.set(loc.name, new MemDir(loc.parent, mode));
    loc.parent.nlink++;
  }

  rmdir(loc) {
    if (!loc.node) fail(errno.ENOENT);
    if (loc.node instanceof MountPoint) fail(errno.EBUSY);
    if (!(loc.node instanceof MemDir)) fail(errno.ENOTDIR);
    if (loc.node === this.fsys.root || loc.name === '') fail(errno.EBUSY);
    if (loc.node.entries.size > 0) fail(errno.ENOTEMPTY);
    loc.parent.entries.delete(loc.name);
    loc.parent.nlink--;
  }

  unlink(loc) {
    if (!loc.node) fail(errno.ENOENT);
    if (loc.node instanceof MemDir || loc.node instanceof MountPoint) fail(errno.EISDIR);
    loc.parent.entries.delete(loc.name);
    loc.node.nlink--;
  }

  truncate(loc, len) {
    if (!loc.node) fail(errno.ENOENT);
    if (!(loc.node instanceof MemFile)) fail(errno.EISDIR);
    loc.node.resize(len);
  }

  link(a, b) {
    if (!a.node) fail(errno.ENOENT);
    if (a.node instanceof MemDir) fail(errno.EPERM);
    if (b.node) fail(errno.EEXIST);
    if (!(b.parent instanceof MemDir)) fail(errno.ENOENT);
    b.parent.entries.set(b.name, a.node);
    a.node.nlink++;
  }

  rename(a, b) {
    if (!a.node) fail(errno.ENOENT);
    if (a.node instanceof MountPoint || b.node instanceof MountPoint) fail(errno.EBUSY);
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

  symlink(target, loc) {
    if (loc.node) fail(errno.EEXIST);
    if (!(loc.parent instanceof MemDir)) fail(errno.ENOENT);
    loc.parent.entries.set(loc.name, new MemSymlink(target));
  }

  readlink(loc) {
    if (!loc.node) fail(errno.ENOENT);
    if (!(loc.node instanceof MemSymlink)) fail(errno.EINVAL);
    return new TextEncoder().encode(loc.node.target);
  }

  chmod(loc, mode) {
    if (!loc.node) fail(errno.ENOENT);
    loc.node.mode = (loc.node.mode & S.IFMT) | (mode & 0o7777);
    loc.node.ctimeMs = now();
  }

  access(loc, mode) {
    if (!loc.node) fail(errno.ENOENT);
    // The guest is the owner of every in-memory file.
    const perms = (loc.node.mode >> 6) & 7;
    if ((perms & mode) !== mode) fail(errno.EACCES);
  }

  /** `atimeMs`/`mtimeMs` are already resolved (null = `t`). */
  utimes(loc, atimeMs, mtimeMs) {
    if (!loc.node) fail(errno.ENOENT);
    loc.node.atimeMs = atimeMs;
    loc.node.mtimeMs = mtimeMs;
  }
}
