// Constants of the NaCl ABI that the IRT speaks, and of the pexe → wasm
// runtime ABI (docs: /work/notes/abi.md, "pexe → WebAssembly runtime ABI").
//
// Sources (values checked against the public headers; none copied):
// - errno: native_client src/trusted/service_runtime/include/sys/errno.h
//   (the Linux-numbered set newlib for NaCl is built with; also listed in
//   binji/pnacl.c src/pn_errno.h).
// - open flags: .../include/bits/fcntl.h (NACL_ABI_O_*).
// - stat / dirent / timeval / timespec layouts: .../include/bits/stat.h,
//   sys/dirent.h, sys/time.h; the 104-byte stat as pnacl.c writes it.
// - sysconf names: .../include/sys/unistd.h (NACL_ABI__SC_*).
// - clock ids: .../include/sys/time.h (NACL_ABI_CLOCK_*).
// - page size: 64 KiB under SFI NaCl ("page size is fixed at 64k for
//   compatibility with Windows"; the NaCl test of getpagesize accepts 0x10000).

/** Positive errno values returned by IRT functions (0 = success). */
export const errno = Object.freeze({
  EPERM: 1,
  ENOENT: 2,
  ESRCH: 3,
  EINTR: 4,
  EIO: 5,
  ENXIO: 6,
  E2BIG: 7,
  ENOEXEC: 8,
  EBADF: 9,
  ECHILD: 10,
  EAGAIN: 11,
  ENOMEM: 12,
  EACCES: 13,
  EFAULT: 14,
  EBUSY: 16,
  EEXIST: 17,
  EXDEV: 18,
  ENODEV: 19,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENFILE: 23,
  EMFILE: 24,
  ENOTTY: 25,
  EFBIG: 27,
  ENOSPC: 28,
  ESPIPE: 29,
  EROFS: 30,
  EMLINK: 31,
  EPIPE: 32,
  ERANGE: 34,
  ENAMETOOLONG: 36,
  ENOSYS: 38,
  ENOTEMPTY: 39,
  ELOOP: 40,
  ETIMEDOUT: 110,
});

/** errno number → name, for traces. */
export const errnoName = Object.freeze(
  Object.fromEntries(Object.entries(errno).map(([name, value]) => [value, name])),
);

/** open(2) flags (NACL_ABI_O_*, octal as in the header). */
export const O = Object.freeze({
  ACCMODE: 0o3,
  RDONLY: 0o0,
  WRONLY: 0o1,
  RDWR: 0o2,
  CREAT: 0o100,
  EXCL: 0o200,
  TRUNC: 0o1000,
  APPEND: 0o2000,
  NONBLOCK: 0o4000,
  SYNC: 0o10000,
  DIRECTORY: 0o200000,
});

/** File type and permission bits of st_mode. */
export const S = Object.freeze({
  IFMT: 0o170000,
  IFSOCK: 0o140000,
  IFLNK: 0o120000,
  IFREG: 0o100000,
  IFBLK: 0o060000,
  IFDIR: 0o040000,
  IFCHR: 0o020000,
  IFIFO: 0o010000,
});

/** access(2) modes. */
export const ACCESS = Object.freeze({ F_OK: 0, X_OK: 1, W_OK: 2, R_OK: 4 });

/** lseek whence. */
export const SEEK = Object.freeze({ SET: 0, CUR: 1, END: 2 });

/** mmap prot and flags. */
export const PROT = Object.freeze({ NONE: 0, READ: 1, WRITE: 2, EXEC: 4 });
export const MAP = Object.freeze({ SHARED: 0x1, PRIVATE: 0x2, FIXED: 0x10, ANONYMOUS: 0x20 });

/** sysconf names. */
export const SC = Object.freeze({ NPROCESSORS_ONLN: 1, PAGESIZE: 2 });

/** clock ids. */
export const CLOCK = Object.freeze({
  REALTIME: 0,
  MONOTONIC: 1,
  PROCESS_CPUTIME_ID: 2,
  THREAD_CPUTIME_ID: 3,
});

/** NaCl's page size: mmap granularity and what sysconf(_SC_PAGESIZE) reports. */
export const PAGE_SIZE = 0x10000;

/** The wasm page size (the same 64 KiB, so mmap maps whole wasm pages). */
export const WASM_PAGE_SIZE = 0x10000;

/** The largest memory a wasm32 module can have, in wasm pages (4 GiB). */
export const MAX_WASM_PAGES = 65536;

/**
 * `struct nacl_abi_stat` (104 bytes): byte offsets of its fields.
 * dev/ino/rdev/size and the times are 64-bit, the rest 32-bit.
 */
export const STAT = Object.freeze({
  SIZE: 104,
  dev: 0,
  ino: 8,
  mode: 16,
  nlink: 20,
  uid: 24,
  gid: 28,
  rdev: 32,
  size: 40,
  blksize: 48,
  blocks: 52,
  atime: 56,
  atimensec: 64,
  mtime: 72,
  mtimensec: 80,
  ctime: 88,
  ctimensec: 96,
});

/** `struct nacl_abi_dirent`: d_ino i64, d_off i64, d_reclen u16, d_name[]. */
export const DIRENT = Object.freeze({ ino: 0, off: 8, reclen: 16, name: 18, ALIGN: 8 });

/** `struct nacl_abi_timeval` / `timespec`: i64 seconds at 0, i32 µs or ns at 8. */
export const TIME = Object.freeze({ sec: 0, frac: 8, SIZE: 16 });

/** Auxiliary vector keys written in the startup info. */
export const AT = Object.freeze({ NULL: 0, SYSINFO: 32 });

/** Exit status of a run that ended in a guest fault (as SIGABRT would give). */
export const FAULT_EXIT_STATUS = 134;

/** Default size of the main thread's stack (ABI: 8 MiB). */
export const DEFAULT_STACK_SIZE = 8 << 20;

/** The lowest address the runtime ever maps (ABI: GLOBAL_BASE, above the guard page). */
export const GLOBAL_BASE = 0x10000;

/** Kinds of `env.fault(kind, detail)` (abi.md, "Imports"). */
export const FAULT_KIND = Object.freeze({
  STACK_OVERFLOW: 1,
  LONGJMP: 2,
  NO_BODY: 3,
  BAD_INTRINSIC: 5,
});
