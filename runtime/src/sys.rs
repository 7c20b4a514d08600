//! The little of an operating-system layer the runtime needs, over libc:
//! an allocator, a mutex, a set-once cell, the panic handler, errno,
//! writing to standard error. The runtime is `no_std` so its archive stays
//! small (it is compiled into the `pexe` binary, one per target) and no
//! language runtime starts behind the guest's back.

use core::cell::UnsafeCell;
use core::fmt;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicPtr, Ordering};

/// The C allocator.
pub struct Malloc;

unsafe impl core::alloc::GlobalAlloc for Malloc {
    unsafe fn alloc(&self, layout: core::alloc::Layout) -> *mut u8 {
        if layout.align() <= 16 {
            libc::malloc(layout.size()).cast()
        } else {
            let mut p = core::ptr::null_mut();
            if libc::posix_memalign(&mut p, layout.align(), layout.size()) != 0 {
                return core::ptr::null_mut();
            }
            p.cast()
        }
    }
    unsafe fn dealloc(&self, p: *mut u8, _layout: core::alloc::Layout) {
        libc::free(p.cast());
    }
    unsafe fn realloc(&self, p: *mut u8, layout: core::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= 16 {
            libc::realloc(p.cast(), new_size).cast()
        } else {
            let q = self.alloc(core::alloc::Layout::from_size_align_unchecked(new_size, layout.align()));
            if !q.is_null() {
                core::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                self.dealloc(p, layout);
            }
            q
        }
    }
}

#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: Malloc = Malloc;

/// A fixed buffer to format into without allocating.
pub struct Line {
    pub buf: [u8; 768],
    pub len: usize,
}

impl Default for Line {
    fn default() -> Self {
        Self::new()
    }
}

impl Line {
    pub const fn new() -> Self {
        Line { buf: [0; 768], len: 0 }
    }
    pub fn push(&mut self, s: &[u8]) {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

/// Writes all of `bytes` to standard error (async-signal-safe).
pub fn write_stderr(bytes: &[u8]) {
    let mut at = 0;
    while at < bytes.len() {
        // SAFETY: write(2) from our buffer.
        let n = unsafe { libc::write(2, bytes[at..].as_ptr().cast(), bytes.len() - at) };
        if n <= 0 {
            break;
        }
        at += n as usize;
    }
}

/// `pexe: <message>` on standard error.
pub fn complain(args: fmt::Arguments) {
    let mut line = Line::new();
    line.push(b"pexe: ");
    let _ = fmt::write(&mut line, args);
    line.push(b"\n");
    write_stderr(line.bytes());
}

#[cfg(not(test))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    complain(format_args!("runtime bug: {info}"));
    // SAFETY: abort ends the process.
    unsafe { libc::abort() }
}

/// Never called (the runtime is built with `panic = "abort"`), but the
/// precompiled `core` and `alloc` name it.
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// The calling thread's errno.
pub fn errno() -> i32 {
    // SAFETY: glibc's per-thread errno location.
    unsafe { *libc::__errno_location() }
}

/// A mutex over a pthread mutex.
pub struct Mutex<T> {
    lock: UnsafeCell<libc::pthread_mutex_t>,
    value: UnsafeCell<T>,
}

// SAFETY: the pthread mutex serializes access to the value.
unsafe impl<T: Send> Sync for Mutex<T> {}
unsafe impl<T: Send> Send for Mutex<T> {}

impl<T> Mutex<T> {
    pub const fn new(value: T) -> Self {
        Mutex { lock: UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER), value: UnsafeCell::new(value) }
    }
    pub fn lock(&self) -> MutexGuard<'_, T> {
        // SAFETY: a statically initialized mutex.
        unsafe { libc::pthread_mutex_lock(self.lock.get()) };
        MutexGuard { m: self }
    }
}

pub struct MutexGuard<'a, T> {
    m: &'a Mutex<T>,
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the lock is held.
        unsafe { &*self.m.value.get() }
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the lock is held.
        unsafe { &mut *self.m.value.get() }
    }
}

impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: this guard holds the lock.
        unsafe { libc::pthread_mutex_unlock(self.m.lock.get()) };
    }
}

/// A value set once, before it is read (start-up, one thread).
pub struct Once<T> {
    p: AtomicPtr<T>,
}

impl<T> Default for Once<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Once<T> {
    pub const fn new() -> Self {
        Once { p: AtomicPtr::new(core::ptr::null_mut()) }
    }
    /// Sets the value; false if it was set already.
    pub fn set(&self, v: T) -> bool {
        let b = alloc::boxed::Box::into_raw(alloc::boxed::Box::new(v));
        if self.p.compare_exchange(core::ptr::null_mut(), b, Ordering::AcqRel, Ordering::Acquire).is_err() {
            // SAFETY: ours, never published.
            drop(unsafe { alloc::boxed::Box::from_raw(b) });
            return false;
        }
        true
    }
    pub fn get(&self) -> Option<&'static T> {
        let p = self.p.load(Ordering::Acquire);
        // SAFETY: set once, never freed.
        (!p.is_null()).then(|| unsafe { &*p })
    }
}

/// Sleeps for `ns` nanoseconds (restarting after signals).
pub fn sleep_ns(ns: u64) {
    let mut req = libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long };
    loop {
        let mut rem = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: nanosleep with our timespecs.
        if unsafe { libc::nanosleep(&req, &mut rem) } == 0 || errno() != libc::EINTR {
            return;
        }
        req = rem;
    }
}

/// The real path of `path`, if it exists.
pub fn realpath(path: &str) -> Option<alloc::string::String> {
    let c = alloc::ffi::CString::new(path).ok()?;
    // SAFETY: realpath allocates its result, which we copy and free.
    unsafe {
        let r = libc::realpath(c.as_ptr(), core::ptr::null_mut());
        if r.is_null() {
            return None;
        }
        let s = core::ffi::CStr::from_ptr(r).to_str().ok().map(alloc::string::String::from);
        libc::free(r.cast());
        s
    }
}

/// A whole file's bytes.
pub fn read_file(path: &str) -> Option<alloc::vec::Vec<u8>> {
    let c = alloc::ffi::CString::new(path).ok()?;
    // SAFETY: open/read/close on our own descriptor and buffer.
    unsafe {
        let fd = libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let mut out = alloc::vec::Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if n < 0 && errno() == libc::EINTR {
                continue;
            }
            if n <= 0 {
                libc::close(fd);
                return (n == 0).then_some(out);
            }
            out.extend_from_slice(&buf[..n as usize]);
        }
    }
}

/// The host's current directory.
pub fn current_dir() -> Option<alloc::string::String> {
    let mut buf = alloc::vec![0u8; 4096];
    // SAFETY: getcwd into our buffer.
    let r = unsafe { libc::getcwd(buf.as_mut_ptr().cast(), buf.len()) };
    if r.is_null() {
        return None;
    }
    let n = buf.iter().position(|&b| b == 0)?;
    buf.truncate(n);
    alloc::string::String::from_utf8(buf).ok()
}

/// Processors online.
pub fn processors() -> u32 {
    // SAFETY: sysconf.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as u32
    } else {
        1
    }
}
