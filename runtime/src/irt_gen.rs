// GENERATED from src/abi/irt.h by `BLESS=1 cargo test --test abi` (src/abi/native_rt.rs).
// Do not edit: change the declarations and re-bless (tests/abi.rs fails on drift).

use crate::ctx::Ctx;

/// The IRT functions in ABI order (table address 1 + index): name and
/// lowered kinds (`params>results`; i i32, l i64, f f32, d f64).
pub const IRT: [(&str, &str); 52] = [
    ("query", "iii>i"),
    ("exit", "i>"),
    ("gettod", "i>i"),
    ("clock", "i>i"),
    ("nanosleep", "ii>i"),
    ("sched_yield", ">i"),
    ("sysconf", "ii>i"),
    ("close", "i>i"),
    ("dup", "ii>i"),
    ("dup2", "ii>i"),
    ("read", "iiii>i"),
    ("write", "iiii>i"),
    ("seek", "ilii>i"),
    ("fstat", "ii>i"),
    ("getdents", "iiii>i"),
    ("fchdir", "i>i"),
    ("fchmod", "ii>i"),
    ("fsync", "i>i"),
    ("fdatasync", "i>i"),
    ("ftruncate", "il>i"),
    ("isatty", "ii>i"),
    ("open", "iiii>i"),
    ("stat", "ii>i"),
    ("mkdir", "ii>i"),
    ("rmdir", "i>i"),
    ("chdir", "i>i"),
    ("getcwd", "ii>i"),
    ("unlink", "i>i"),
    ("truncate", "il>i"),
    ("lstat", "ii>i"),
    ("link", "ii>i"),
    ("rename", "ii>i"),
    ("symlink", "ii>i"),
    ("chmod", "ii>i"),
    ("access", "ii>i"),
    ("readlink", "iiii>i"),
    ("utimes", "ii>i"),
    ("mmap", "iiiiil>i"),
    ("munmap", "ii>i"),
    ("mprotect", "iii>i"),
    ("tls_init", "i>i"),
    ("tls_get", ">i"),
    ("thread_create", "iii>i"),
    ("thread_exit", "i>"),
    ("thread_nice", "i>i"),
    ("futex_wait_abs", "iii>i"),
    ("futex_wake", "iii>i"),
    ("clock_getres", "ii>i"),
    ("clock_gettime", "ii>i"),
    ("get_random_bytes", "iii>i"),
    ("ppapi_start", "i>i"),
    ("ppapi_register_thread_creator", "i>"),
];

/// IRT interfaces and their functions (indices into [`IRT`]) in table order.
pub const INTERFACES: &[(&str, &[u16])] = &[
    ("nacl-irt-basic-0.1", &[1, 2, 3, 4, 5, 6]),
    ("nacl-irt-fdio-0.1", &[7, 8, 9, 10, 11, 12, 13, 14]),
    ("nacl-irt-dev-fdio-0.1", &[7, 8, 9, 10, 11, 12, 13, 14]),
    ("nacl-irt-dev-fdio-0.3", &[7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]),
    ("nacl-irt-dev-filename-0.3", &[21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36]),
    ("nacl-irt-memory-0.3", &[37, 38, 39]),
    ("nacl-irt-tls-0.1", &[40, 41]),
    ("nacl-irt-thread-0.1", &[42, 43, 44]),
    ("nacl-irt-futex-0.1", &[45, 46]),
    ("nacl-irt-clock_get-0.1", &[47, 48]),
    ("nacl-irt-random-0.1", &[49]),
    ("nacl-irt-ppapihook-0.1", &[50, 51]),
];

/// The interface only Pepper plugins are answered.
pub const PPAPI_HOOK: &str = "nacl-irt-ppapihook-0.1";

/// `size_t query(const char* interface_ident, void* table, size_t tablesize)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_query(ctx: *mut Ctx, interface_ident: i32, table: i32, tablesize: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::query(ctx, interface_ident as u32, table as u32, tablesize as u32) as i32
}

/// `void exit(int status)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_exit(ctx: *mut Ctx, status: i32) {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::exit(ctx, status);
}

/// `int gettod(struct nacl_abi_timeval* tv)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_gettod(ctx: *mut Ctx, tv: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::gettod(ctx, tv as u32)
}

/// `int clock(nacl_abi_clock_t* ticks)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_clock(ctx: *mut Ctx, ticks: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::clock(ctx, ticks as u32)
}

/// `int nanosleep(const struct nacl_abi_timespec* req, struct nacl_abi_timespec* rem)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_nanosleep(ctx: *mut Ctx, req: i32, rem: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::nanosleep(ctx, req as u32, rem as u32)
}

/// `int sched_yield(void)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_sched_yield(ctx: *mut Ctx, ) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::sched_yield(ctx, )
}

/// `int sysconf(int name, int* value)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_sysconf(ctx: *mut Ctx, name: i32, value: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::sysconf(ctx, name, value as u32)
}

/// `int close(int fd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_close(ctx: *mut Ctx, fd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::close(ctx, fd)
}

/// `int dup(int fd, int* newfd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_dup(ctx: *mut Ctx, fd: i32, newfd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::dup(ctx, fd, newfd as u32)
}

/// `int dup2(int fd, int newfd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_dup2(ctx: *mut Ctx, fd: i32, newfd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::dup2(ctx, fd, newfd)
}

/// `int read(int fd, void* buf, size_t count, size_t* nread)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_read(ctx: *mut Ctx, fd: i32, buf: i32, count: i32, nread: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::read(ctx, fd, buf as u32, count as u32, nread as u32)
}

/// `int write(int fd, const void* buf, size_t count, size_t* nwrote)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_write(ctx: *mut Ctx, fd: i32, buf: i32, count: i32, nwrote: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::write(ctx, fd, buf as u32, count as u32, nwrote as u32)
}

/// `int seek(int fd, nacl_irt_off_t offset, int whence, nacl_irt_off_t* new_offset)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_seek(ctx: *mut Ctx, fd: i32, offset: i64, whence: i32, new_offset: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::seek(ctx, fd, offset, whence, new_offset as u32)
}

/// `int fstat(int fd, struct nacl_abi_stat* st)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_fstat(ctx: *mut Ctx, fd: i32, st: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::fstat(ctx, fd, st as u32)
}

/// `int getdents(int fd, struct dirent* dirent, size_t count, size_t* nread)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_getdents(ctx: *mut Ctx, fd: i32, dirent: i32, count: i32, nread: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::getdents(ctx, fd, dirent as u32, count as u32, nread as u32)
}

/// `int fchdir(int fd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_fchdir(ctx: *mut Ctx, fd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::fchdir(ctx, fd)
}

/// `int fchmod(int fd, mode_t mode)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_fchmod(ctx: *mut Ctx, fd: i32, mode: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::fchmod(ctx, fd, mode as u32)
}

/// `int fsync(int fd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_fsync(ctx: *mut Ctx, fd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::fsync(ctx, fd)
}

/// `int fdatasync(int fd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_fdatasync(ctx: *mut Ctx, fd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::fdatasync(ctx, fd)
}

/// `int ftruncate(int fd, nacl_irt_off_t length)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_ftruncate(ctx: *mut Ctx, fd: i32, length: i64) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::ftruncate(ctx, fd, length)
}

/// `int isatty(int fd, int* result)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_isatty(ctx: *mut Ctx, fd: i32, result: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::isatty(ctx, fd, result as u32)
}

/// `int open(const char* pathname, int oflag, mode_t cmode, int* newfd)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_open(ctx: *mut Ctx, pathname: i32, oflag: i32, cmode: i32, newfd: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::open(ctx, pathname as u32, oflag, cmode as u32, newfd as u32)
}

/// `int stat(const char* pathname, struct nacl_abi_stat* st)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_stat(ctx: *mut Ctx, pathname: i32, st: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::stat(ctx, pathname as u32, st as u32)
}

/// `int mkdir(const char* pathname, mode_t mode)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_mkdir(ctx: *mut Ctx, pathname: i32, mode: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::mkdir(ctx, pathname as u32, mode as u32)
}

/// `int rmdir(const char* pathname)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_rmdir(ctx: *mut Ctx, pathname: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::rmdir(ctx, pathname as u32)
}

/// `int chdir(const char* pathname)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_chdir(ctx: *mut Ctx, pathname: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::chdir(ctx, pathname as u32)
}

/// `int getcwd(char* pathname, size_t len)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_getcwd(ctx: *mut Ctx, pathname: i32, len: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::getcwd(ctx, pathname as u32, len as u32)
}

/// `int unlink(const char* pathname)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_unlink(ctx: *mut Ctx, pathname: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::unlink(ctx, pathname as u32)
}

/// `int truncate(const char* pathname, nacl_irt_off_t length)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_truncate(ctx: *mut Ctx, pathname: i32, length: i64) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::truncate(ctx, pathname as u32, length)
}

/// `int lstat(const char* pathname, struct nacl_abi_stat* st)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_lstat(ctx: *mut Ctx, pathname: i32, st: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::lstat(ctx, pathname as u32, st as u32)
}

/// `int link(const char* oldpath, const char* newpath)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_link(ctx: *mut Ctx, oldpath: i32, newpath: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::link(ctx, oldpath as u32, newpath as u32)
}

/// `int rename(const char* oldpath, const char* newpath)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_rename(ctx: *mut Ctx, oldpath: i32, newpath: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::rename(ctx, oldpath as u32, newpath as u32)
}

/// `int symlink(const char* oldpath, const char* newpath)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_symlink(ctx: *mut Ctx, oldpath: i32, newpath: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::symlink(ctx, oldpath as u32, newpath as u32)
}

/// `int chmod(const char* path, mode_t mode)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_chmod(ctx: *mut Ctx, path: i32, mode: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::chmod(ctx, path as u32, mode as u32)
}

/// `int access(const char* path, int amode)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_access(ctx: *mut Ctx, path: i32, amode: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::access(ctx, path as u32, amode)
}

/// `int readlink(const char* path, char* buf, size_t count, size_t* nread)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_readlink(ctx: *mut Ctx, path: i32, buf: i32, count: i32, nread: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::readlink(ctx, path as u32, buf as u32, count as u32, nread as u32)
}

/// `int utimes(const char* filename, const struct nacl_abi_timeval* times)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_utimes(ctx: *mut Ctx, filename: i32, times: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::utimes(ctx, filename as u32, times as u32)
}

/// `int mmap(void** addr, size_t len, int prot, int flags, int fd, nacl_irt_off_t off)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_mmap(ctx: *mut Ctx, addr: i32, len: i32, prot: i32, flags: i32, fd: i32, off: i64) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::mmap(ctx, addr as u32, len as u32, prot, flags, fd, off)
}

/// `int munmap(void* addr, size_t len)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_munmap(ctx: *mut Ctx, addr: i32, len: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::munmap(ctx, addr as u32, len as u32)
}

/// `int mprotect(void* addr, size_t len, int prot)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_mprotect(ctx: *mut Ctx, addr: i32, len: i32, prot: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::mprotect(ctx, addr as u32, len as u32, prot)
}

/// `int tls_init(void* thread_ptr)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_tls_init(ctx: *mut Ctx, thread_ptr: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::tls_init(ctx, thread_ptr as u32)
}

/// `void* tls_get(void)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_tls_get(ctx: *mut Ctx, ) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::tls_get(ctx, ) as i32
}

/// `int thread_create(void* start_func, void* stack, void* thread_ptr)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_thread_create(ctx: *mut Ctx, start_func: i32, stack: i32, thread_ptr: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::thread_create(ctx, start_func as u32, stack as u32, thread_ptr as u32)
}

/// `void thread_exit(int32_t* stack_flag)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_thread_exit(ctx: *mut Ctx, stack_flag: i32) {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::thread_exit(ctx, stack_flag as u32);
}

/// `int thread_nice(const int nice)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_thread_nice(ctx: *mut Ctx, nice: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::thread_nice(ctx, nice)
}

/// `int futex_wait_abs(volatile int* addr, int value, const struct nacl_abi_timespec* abstime)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_futex_wait_abs(ctx: *mut Ctx, addr: i32, value: i32, abstime: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::futex_wait_abs(ctx, addr as u32, value, abstime as u32)
}

/// `int futex_wake(volatile int* addr, int nwake, int* count)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_futex_wake(ctx: *mut Ctx, addr: i32, nwake: i32, count: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::futex_wake(ctx, addr as u32, nwake, count as u32)
}

/// `int clock_getres(nacl_irt_clockid_t clk_id, struct nacl_abi_timespec* res)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_clock_getres(ctx: *mut Ctx, clk_id: i32, res: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::clock_getres(ctx, clk_id as u32, res as u32)
}

/// `int clock_gettime(nacl_irt_clockid_t clk_id, struct nacl_abi_timespec* tp)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_clock_gettime(ctx: *mut Ctx, clk_id: i32, tp: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::clock_gettime(ctx, clk_id as u32, tp as u32)
}

/// `int get_random_bytes(void* buf, size_t count, size_t* nread)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_get_random_bytes(ctx: *mut Ctx, buf: i32, count: i32, nread: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::get_random_bytes(ctx, buf as u32, count as u32, nread as u32)
}

/// `int ppapi_start(const struct PP_StartFunctions* funcs)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_ppapi_start(ctx: *mut Ctx, funcs: i32) -> i32 {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::ppapi_start(ctx, funcs as u32)
}

/// `void ppapi_register_thread_creator(const struct PP_ThreadFunctions* new_funcs)`
///
/// # Safety
/// Called by generated code with its thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_irt_ppapi_register_thread_creator(ctx: *mut Ctx, new_funcs: i32) {
    // SAFETY: generated code passes its thread's live context.
    let ctx = unsafe { &mut *ctx };
    crate::irt::ppapi_register_thread_creator(ctx, new_funcs as u32);
}

