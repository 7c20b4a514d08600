// IRT interface "nacl-irt-dev-filename-0.3": calls that take paths. Host
// side, over the process's `FileSystem` (fs/index.js).
//
//   open(path, oflag, mode, *newfd)  stat(path, *stat)  mkdir(path, mode)
//   rmdir(path)  chdir(path)  getcwd(buf, len)  unlink(path)
//   truncate(path, len64)  lstat(path, *stat)  link(old, new)
//   rename(old, new)  symlink(target, path)  chmod(path, mode)
//   access(path, amode)  readlink(path, buf, count, *nread)
//   utimes(path, const struct timeval times[2])

import { STAT, TIME, errno } from '../defs.js';
import { MAX_PATH } from '../fs/index.js';
import { fromUtf8 } from '../memory.js';
import { writeStat } from './fdio.js';
import { fail, guardAll } from './guard.js';

/**
 * The path at `ptr`: ENAMETOOLONG past MAX_PATH bytes, EFAULT when the
 * string runs off the memory.
 */
export function readPath(mem, ptr) {
  const u8 = mem.u8();
  const start = ptr >>> 0;
  const end = Math.min(u8.length, start + MAX_PATH + 1);
  for (let i = start; i < end; i++) {
    if (u8[i] === 0) return fromUtf8(u8.subarray(start, i));
  }
  fail(end - start > MAX_PATH ? errno.ENAMETOOLONG : errno.EFAULT);
}

/** Reads a `struct timeval` at `addr` as milliseconds. */
function readTimeval(mem, addr) {
  const sec = mem.getI64(addr);
  const usec = mem.getI32(addr + TIME.frac);
  if (usec < 0 || usec >= 1e6) fail(errno.EINVAL);
  return Number(sec) * 1000 + usec / 1000;
}

/** The filename functions over `proc` ({ mem, fs }). */
export function filename(proc) {
  const { mem } = proc;
  const fs = () => proc.fs;
  const path = (ptr) => readPath(mem, ptr);
  return guardAll({
    open(pathPtr, oflag, mode, newfdPtr) {
      const p = path(pathPtr);
      mem.check(newfdPtr, 4);
      mem.setI32(newfdPtr, fs().open(p, oflag, mode));
      return 0;
    },
    stat(pathPtr, statPtr) {
      const p = path(pathPtr);
      mem.check(statPtr, STAT.SIZE);
      writeStat(mem, statPtr, fs().stat(p));
      return 0;
    },
    lstat(pathPtr, statPtr) {
      const p = path(pathPtr);
      mem.check(statPtr, STAT.SIZE);
      writeStat(mem, statPtr, fs().stat(p, { follow: false }));
      return 0;
    },
    mkdir(pathPtr, mode) {
      fs().mkdir(path(pathPtr), mode);
      return 0;
    },
    rmdir(pathPtr) {
      fs().rmdir(path(pathPtr));
      return 0;
    },
    chdir(pathPtr) {
      fs().chdir(path(pathPtr));
      return 0;
    },
    getcwd(buf, len) {
      const bytes = new TextEncoder().encode(fs().getcwd());
      if ((len >>> 0) < bytes.length + 1) fail(errno.ERANGE);
      mem.writeCBytes(buf, bytes);
      return 0;
    },
    unlink(pathPtr) {
      fs().unlink(path(pathPtr));
      return 0;
    },
    truncate(pathPtr, length) {
      const p = path(pathPtr);
      const len = BigInt(length);
      if (len < 0n || len > BigInt(Number.MAX_SAFE_INTEGER)) fail(errno.EINVAL);
      fs().truncate(p, Number(len));
      return 0;
    },
    link(oldPtr, newPtr) {
      fs().link(path(oldPtr), path(newPtr));
      return 0;
    },
    rename(oldPtr, newPtr) {
      fs().rename(path(oldPtr), path(newPtr));
      return 0;
    },
    symlink(targetPtr, pathPtr) {
      fs().symlink(path(targetPtr), path(pathPtr));
      return 0;
    },
    chmod(pathPtr, mode) {
      fs().chmod(path(pathPtr), mode);
      return 0;
    },
    access(pathPtr, amode) {
      fs().access(path(pathPtr), amode);
      return 0;
    },
    readlink(pathPtr, buf, count, nreadPtr) {
      const target = fs().readlink(path(pathPtr));
      mem.check(nreadPtr, 4);
      const n = Math.min(target.length, count >>> 0);
      mem.write(buf, target.subarray(0, n));
      mem.setU32(nreadPtr, n);
      return 0;
    },
    utimes(pathPtr, timesPtr) {
      const p = path(pathPtr);
      if (timesPtr === 0) {
        fs().utimes(p, null, null);
      } else {
        const atime = readTimeval(mem, timesPtr);
        const mtime = readTimeval(mem, timesPtr + TIME.SIZE);
        fs().utimes(p, atime, mtime);
      }
      return 0;
    },
  });
}
