// The host-directory backend (Node only, when the embedder asks with
// `hostDirs`): each directory is mounted in the guest's tree at its own
// absolute host path (a HostMount), so guest paths are host paths, but
// nothing outside those directories is reachable: `..` is resolved first,
// and symlinks are checked with realpath (`confine`).
//
// Node's `fs` and `path` modules are handed in (`nodeFs`, `nodePath`): this
// file imports no `node:` module, so browser bundles can include it.
//
// `HostBackend` does the path operations on a host location
// (`{kind: 'host', hostPath, mount, path}`, from FileSystem.lookup).

import { errno, O, S, SEEK } from '../defs.js';
import { DirDescription, Description, dirent, seekTo } from './descriptors.js';
import { fail, fromHostError } from './errors.js';
import { BLKSIZE, MountPoint } from './memory.js';

/** A host directory mounted in the tree. */
export class HostMount extends MountPoint {
  constructor(hostRoot) {
    super();
    this.hostRoot = hostRoot;
  }
}

/** A Node `fs.Stats` as the file system's stat record. */
export function hostStat(st) {
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

/** An open host file. */
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

/** Path operations on host locations, through `nodeFs`/`nodePath`. */
export class HostBackend {
  constructor({ nodeFs, nodePath }) {
    this.nodeFs = nodeFs;
    this.nodePath = nodePath;
  }

  /** The location of `rest` (path components) under `mount`, reached through guest components `walked`. */
  location(mount, rest, walked) {
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

  /** Runs `fn(nodeFs)`, turning Node's errors into FsErrors. */
  host(fn) {
    try {
      return fn(this.nodeFs);
    } catch (e) {
      throw fromHostError(e);
    }
  }

  /** A description for `open` (the FileSystem installs it). */
  open(loc, flags, mode) {
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
    const hostPath = loc.hostPath;
    return new DirDescription(
      () => this.host((fs) => hostStat(fs.statSync(hostPath))),
      () => this.entries(hostPath),
      loc.path,
    );
  }

  entries(hostPath) {
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

  stat(loc, { follow = true } = {}) {
    const p = this.confine(loc, { follow });
    return this.host((fs) => hostStat(follow ? fs.statSync(p) : fs.lstatSync(p)));
  }

  mkdir(loc, mode) {
    const p = this.confine(loc, { follow: false });
    return this.host((fs) => fs.mkdirSync(p, mode & 0o7777));
  }

  rmdir(loc) {
    const p = this.confine(loc, { follow: false, removing: true });
    return this.host((fs) => fs.rmdirSync(p));
  }

  unlink(loc) {
    const p = this.confine(loc, { follow: false, removing: true });
    return this.host((fs) => fs.unlinkSync(p));
  }

  truncate(loc, len) {
    const p = this.confine(loc);
    return this.host((fs) => fs.truncateSync(p, len));
  }

  link(a, b) {
    const pa = this.confine(a, { follow: false });
    const pb = this.confine(b, { follow: false });
    return this.host((fs) => fs.linkSync(pa, pb));
  }

  rename(a, b) {
    const pa = this.confine(a, { follow: false, removing: true });
    const pb = this.confine(b, { follow: false, removing: true });
    return this.host((fs) => fs.renameSync(pa, pb));
  }

  symlink(target, loc) {
    const p = this.confine(loc, { follow: false });
    return this.host((fs) => fs.symlinkSync(target, p));
  }

  readlink(loc) {
    const p = this.confine(loc, { follow: false });
    return this.host((fs) => fs.readlinkSync(p, { encoding: 'buffer' }));
  }

  chmod(loc, mode) {
    const p = this.confine(loc);
    return this.host((fs) => fs.chmodSync(p, mode & 0o7777));
  }

  access(loc, mode) {
    const p = this.confine(loc);
    return this.host((fs) => fs.accessSync(p, mode));
  }

  /** `atimeMs`/`mtimeMs` are already resolved (ms since the epoch). */
  utimes(loc, atimeMs, mtimeMs) {
    const p = this.confine(loc);
    return this.host((fs) => fs.utimesSync(p, atimeMs / 1000, mtimeMs / 1000));
  }
}
