// IRT interfaces "nacl-irt-fdio-0.1" and "nacl-irt-dev-fdio-0.3": file
// descriptor calls. Host side: they work on the process's `FileSystem`
// (fs/index.js) and read/write guest memory through `GuestMemory`.
//
//   close(fd)                         dup(fd, *newfd)       dup2(fd, newfd)
//   read(fd, buf, count, *nread)      write(fd, buf, count, *nwrote)
//   seek(fd, off64, whence, *newoff64) fstat(fd, *stat)
//   getdents(fd, buf, count, *nread)  fchdir(fd)  fchmod(fd, mode)
//   fsync(fd)  fdatasync(fd)  ftruncate(fd, len64)  isatty(fd, *result)

import { DIRENT, STAT, errno } from '../defs.js';
import { fail, guardAll } from './guard.js';

/** The most bytes one read or write moves (a larger count is a short transfer). */
export const MAX_IO = 16 << 20;

/** Writes a `struct nacl_abi_stat` (104 bytes) at `addr`. */
export function writeStat(mem, addr, st) {
  mem.check(addr, STAT.SIZE);
  const v = mem.view();
  const a = addr >>> 0;
  const i64 = (off, x) => v.setBigInt64(a + off, BigInt(Math.trunc(Number(x) || 0)), true);
  const i32 = (off, x) => v.setInt32(a + off, Number(x) | 0, true);
  const time = (off, ms) => {
    const t = Number(ms) || 0;
    const sec = Math.floor(t / 1000);
    i64(off, sec);
    i64(off + 8, Math.round((t - sec * 1000) * 1e6));
  };
  i64(STAT.dev, st.dev);
  i64(STAT.ino, st.ino);
  i32(STAT.mode, st.mode);
  i32(STAT.nlink, st.nlink);
  i32(STAT.uid, st.uid);
  i32(STAT.gid, st.gid);
  i64(STAT.rdev, st.rdev);
  i64(STAT.size, st.size);
  i32(STAT.blksize, st.blksize);
  i32(STAT.blocks, st.blocks);
  time(STAT.atime, st.atimeMs);
  time(STAT.mtime, st.mtimeMs);
  time(STAT.ctime, st.ctimeMs);
}

/** The record length of a dirent with `nameBytes` name bytes (NUL and padding added). */
export function direntSize(nameBytes) {
  return (DIRENT.name + nameBytes + 1 + DIRENT.ALIGN - 1) & ~(DIRENT.ALIGN - 1);
}

/**
 * The fdio functions over `proc` ({ mem: GuestMemory, fs: FileSystem }).
 * Every function returns 0 or an errno.
 */
export function fdio(proc) {
  const { mem } = proc;
  const fs = () => proc.fs;
  const encoder = new TextEncoder();
  return guardAll({
    close(fd) {
      fs().close(fd);
      return 0;
    },
    dup(fd, newfdPtr) {
      mem.check(newfdPtr, 4);
      mem.setI32(newfdPtr, fs().dup(fd));
      return 0;
    },
    dup2(fd, newfd) {
      fs().dup2(fd, newfd);
      return 0;
    },
    read(fd, buf, count, nreadPtr) {
      const desc = fs().get(fd);
      const len = Math.min(count >>> 0, MAX_IO);
      mem.check(buf, len);
      mem.check(nreadPtr, 4);
      const bytes = desc.read(len);
      mem.write(buf, bytes);
      mem.setU32(nreadPtr, bytes.length);
      return 0;
    },
    write(fd, buf, count, nwrotePtr) {
      const desc = fs().get(fd);
      const len = Math.min(count >>> 0, MAX_IO);
      mem.check(nwrotePtr, 4);
      let bytes;
      if (desc.takesViews) {
        bytes = mem.bytes(buf, len);
      } else {
        bytes = mem.read(buf, len);
      }
      const n = desc.write(bytes);
      mem.setU32(nwrotePtr, n);
      return 0;
    },
    seek(fd, offset, whence, newOffsetPtr) {
      const desc = fs().get(fd);
      mem.check(newOffsetPtr, 8);
      const pos = desc.seek(BigInt(offset), whence);
      mem.setI64(newOffsetPtr, pos);
      return 0;
    },
    fstat(fd, statPtr) {
      const desc = fs().get(fd);
      mem.check(statPtr, STAT.SIZE);
      writeStat(mem, statPtr, desc.stat());
      return 0;
    },
    getdents(fd, buf, count, nreadPtr) {
      const desc = fs().get(fd);
      count >>>= 0;
      mem.check(buf, count);
      mem.check(nreadPtr, 4);
      let used = 0;
      const records = [];
      const more = desc.getdents((entry) => {
        const name = encoder.encode(entry.name);
        const size = direntSize(name.length);
        if (used + size > count) return false;
        records.push({ entry, name, at: used, size });
        used += size;
        return true;
      });
      // Entries left but none fit: the buffer is too small.
      if (records.length === 0 && more) fail(errno.EINVAL);
      const v = mem.view();
      for (const { entry, name, at, size } of records) {
        const a = (buf >>> 0) + at;
        mem.fill0(a, size);
        v.setBigInt64(a + DIRENT.ino, BigInt(entry.ino), true);
        v.setBigInt64(a + DIRENT.off, BigInt(entry.off), true);
        v.setUint16(a + DIRENT.reclen, size, true);
        mem.write(a + DIRENT.name, name);
      }
      mem.setU32(nreadPtr, used);
      return 0;
    },
    fchdir(fd) {
      fs().fchdir(fd);
      return 0;
    },
    fchmod(fd, mode) {
      fs().get(fd).chmod(mode);
      return 0;
    },
    fsync(fd) {
      fs().get(fd).sync();
      return 0;
    },
    fdatasync(fd) {
      fs().get(fd).sync();
      return 0;
    },
    ftruncate(fd, length) {
      const desc = fs().get(fd);
      const len = BigInt(length);
      if (len < 0n || len > BigInt(Number.MAX_SAFE_INTEGER)) fail(errno.EINVAL);
      desc.truncate(Number(len));
      return 0;
    },
    isatty(fd, resultPtr) {
      const desc = fs().get(fd);
      mem.check(resultPtr, 4);
      if (!desc.isatty()) fail(errno.ENOTTY);
      mem.setI32(resultPtr, 1);
      return 0;
    },
  });
}
