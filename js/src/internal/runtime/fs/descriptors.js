// Open file descriptions and the descriptor table.
//
// A description is what an fd refers to: its flags, and per kind its
// offset or directory position. `dup` shares one description between fds
// (refs counts them); each backend has its own kind (memory.js,
// host-node.js, stdio.js, and DirDescription here for directories of any
// backend). Unsupported operations fail with the errno POSIX gives.
//
// `DescriptorTable` is fd → description: lowest free fd first, at most
// MAX_FDS, and a callback when fd 0, 1 or 2 changes (stdio passthrough).

import { STDIO_DISCARD } from '../control.js';
import { errno, O, SEEK } from '../defs.js';
import { fail } from './errors.js';

/** Most descriptors a guest may have open at once. */
export const MAX_FDS = 1024;

export class Description {
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

/** The new offset of an lseek from `current` in a file of `size` bytes. */
export function seekTo(current, size, offset, whence) {
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

/** One directory entry as getdents reports it. */
export function dirent(ino, name, type) {
  return { ino, name, type };
}

/** An open directory, of any backend: `statFn` and `entriesFn` come from it. */
export class DirDescription extends Description {
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

/** fd → description (the FileSystem is one). */
export class DescriptorTable {
  constructor() {
    /** Descriptions by fd; undefined = free. */
    this.fds = [];
    /** Called with the fd when fd 0, 1 or 2 changes. */
    this.onStdioChange = () => {};
  }

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

  /**
   * Where guest fd `fd` (0-2) writes without a host call: the host fd it
   * passes through to (≥ 0), -2 - k for stream k of the output ring,
   * STDIO_DISCARD for an output nobody receives, or -1.
   */
  passthroughFd(fd) {
    const desc = this.fds[fd];
    if (desc && desc.ringStream >= 0) return -2 - desc.ringStream;
    if (desc?.discards) return STDIO_DISCARD;
    if (desc && typeof desc.hostFd === 'number' && desc.hostFd >= 0) return desc.hostFd;
    return -1;
  }
}
