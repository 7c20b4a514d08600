//! Guest threads on pthreads. Each runs on a machine stack the runtime
//! maps itself, with an inaccessible guard region below it (the fault
//! handler tells a stack overflow by it) and an alternate signal stack.
//! The guest's own stack (allocas) is guest memory, handed in by
//! `thread_create` or mapped for the main thread.
//!
//! The process ends with the status of `exit`, of a return from `_start`,
//! or — when the last live guest thread calls `thread_exit` — with 0.

use crate::ctx::{self, Ctx};
use crate::sys::Mutex;
use crate::{fault, process};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

/// Machine stack of a guest thread (guards excluded).
pub const STACK_SIZE: usize = 8 << 20;
/// Inaccessible bytes below each machine stack.
pub const GUARD_SIZE: usize = 64 << 10;

/// A machine stack: one mapping, guard first.
struct MachineStack {
    base: usize,
    len: usize,
}

// SAFETY: plain addresses.
unsafe impl Send for MachineStack {}

impl MachineStack {
    fn new() -> Option<MachineStack> {
        let len = STACK_SIZE + GUARD_SIZE;
        // SAFETY: a fresh anonymous mapping; the guard is made inaccessible.
        unsafe {
            let p = libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return None;
            }
            libc::mprotect(p, GUARD_SIZE, libc::PROT_NONE);
            Some(MachineStack { base: p as usize, len })
        }
    }

    fn free(self) {
        // SAFETY: our own mapping, no longer used by any thread.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

/// Threads that have finished running guest code, waiting to be joined
/// so their stacks can be unmapped.
static FINISHED: Mutex<Vec<(libc::pthread_t, MachineStack, usize)>> = Mutex::new(Vec::new());

/// What a new thread runs.
enum Entry {
    /// `_start(startinfo)`.
    Main { startinfo: u32 },
    /// `thread_create`'s function address.
    Thread { func: u32 },
}

struct Start {
    ctx: Box<Ctx>,
    entry: Entry,
    stack: MachineStack,
}

/// Joins finished threads and frees their stacks.
fn reap() {
    let done: Vec<_> = core::mem::take(&mut *FINISHED.lock());
    for (t, stack, alt) in done {
        // SAFETY: the thread is finished or about to return.
        unsafe { libc::pthread_join(t, core::ptr::null_mut()) };
        stack.free();
        if alt != 0 {
            // SAFETY: its alternate signal stack, no longer in use.
            unsafe { libc::munmap(alt as *mut libc::c_void, 64 << 10) };
        }
    }
}

/// Starts a guest thread; an errno (EAGAIN when it cannot).
fn spawn(ctx: Box<Ctx>, entry: Entry) -> i32 {
    reap();
    let Some(stack) = MachineStack::new() else { return libc::EAGAIN };
    let (base, len) = (stack.base, stack.len);
    let start = Box::into_raw(Box::new(Start { ctx, entry, stack }));
    // SAFETY: pthread_create with a stack we mapped; on failure the start
    // record is taken back.
    unsafe {
        let mut attr: libc::pthread_attr_t = core::mem::zeroed();
        libc::pthread_attr_init(&mut attr);
        libc::pthread_attr_setstack(&mut attr, (base + GUARD_SIZE) as *mut libc::c_void, len - GUARD_SIZE);
        let mut t: libc::pthread_t = core::mem::zeroed();
        let r = libc::pthread_create(&mut t, &attr, thread_main, start.cast());
        libc::pthread_attr_destroy(&mut attr);
        if r != 0 {
            let s = Box::from_raw(start);
            s.stack.free();
            return libc::EAGAIN;
        }
    }
    0
}

extern "C" fn thread_main(arg: *mut libc::c_void) -> *mut libc::c_void {
    // SAFETY: `spawn` passed a leaked Start.
    let Start { mut ctx, entry, stack } = *unsafe { Box::from_raw(arg.cast::<Start>()) };
    ctx.guard_lo = stack.base;
    ctx.stack_lo = stack.base + GUARD_SIZE;
    ctx.stack_hi = stack.base + stack.len;
    let alt = fault::alt_stack().map_or(0, |(p, _)| p as usize);
    let p = process();
    let raw: *mut Ctx = &mut *ctx;
    let slot = ctx::register(raw, ctx.guard_lo, ctx.stack_hi);
    let desc = p.desc;
    match entry {
        Entry::Main { startinfo } => {
            if let Some(calls) = &p.test_calls {
                // SAFETY: this thread's context.
                unsafe { crate::testing::drive(raw, calls) };
            }
            // SAFETY: the descriptor's entry trampoline, called with its ABI.
            let start: extern "C" fn(*mut Ctx, i32) -> i32 = unsafe { core::mem::transmute(desc.start as usize) };
            let status = start(raw, startinfo as i32);
            if !ctx.exited {
                exit(status);
            }
        }
        Entry::Thread { func } => {
            // SAFETY: as above.
            let run: extern "C" fn(*mut Ctx, i32) = unsafe { core::mem::transmute(desc.thread_start as usize) };
            run(raw, func as i32);
        }
    }
    // thread_exit, or the thread's function returned.
    if ctx.exit_flag != 0 && !p.exiting.load(Ordering::SeqCst) {
        clear_stack_flag(ctx.exit_flag);
    }
    if let Some(s) = slot {
        ctx::unregister(s);
    }
    // SAFETY: pthread_self of this thread.
    let me = unsafe { libc::pthread_self() };
    FINISHED.lock().push((me, stack, alt));
    if p.live.fetch_sub(1, Ordering::SeqCst) <= 1 {
        exit(0);
    }
    drop(ctx);
    core::ptr::null_mut()
}

/// `thread_exit`'s promise: `*flag = 0`, then wake whoever waits on it.
fn clear_stack_flag(flag: u32) {
    let m = &process().mem;
    if !flag.is_multiple_of(4) || m.check_write(flag, 4).is_err() {
        return;
    }
    // SAFETY: an aligned, writable guest word.
    unsafe {
        let word = &*(m.host(flag) as *const core::sync::atomic::AtomicU32);
        word.store(0, Ordering::SeqCst);
        libc::syscall(libc::SYS_futex, m.host(flag), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX, 0, 0, 0);
    }
    process().wake_epoch.fetch_add(1, Ordering::SeqCst);
}

/// Ends the process with `status` (every thread).
pub fn exit(status: i32) -> ! {
    process().exiting.store(true, Ordering::SeqCst);
    fault::self_test_report();
    // SAFETY: _exit ends the process at once; guest output went straight
    // to file descriptors, nothing is buffered here.
    unsafe { libc::_exit(status) }
}

/// Runs `_start(startinfo)` on a new thread with the given guest stack.
pub fn start_main(startinfo: u32, stack_top: u32, stack_limit: u32) -> Result<(), alloc::string::String> {
    let p = process();
    let ctx = Ctx::new(0, p.mem.base(), stack_top, stack_limit, 0);
    p.live.store(1, Ordering::SeqCst);
    match spawn(ctx, Entry::Main { startinfo }) {
        0 => Ok(()),
        e => Err(alloc::format!("cannot start the main guest thread (errno {e})")),
    }
}

/// IRT `thread_create(func, stack, tp)`, called on `creator`'s thread.
pub fn thread_create(creator: &mut Ctx, func: u32, stack: u32, tp: u32) -> i32 {
    let p = process();
    let limit = {
        let pages = p.pages.lock();
        pages.region_below(u64::from(stack)).map_or(rtabi_global_base(), |(s, _)| s as u32)
    };
    let tid = p.next_tid.fetch_add(1, Ordering::SeqCst);
    let mut ctx = Ctx::new(tid, p.mem.base(), stack, limit, tp);
    // From now on both threads do atomics as atomics (rtabi::ctx::THREADS).
    // Only the creator can be single-threaded here (every other thread was
    // made by a thread_create, which set its flag), and the new thread
    // starts after this store (pthread_create orders the two).
    creator.threads = 1;
    ctx.threads = 1;
    p.live.fetch_add(1, Ordering::SeqCst);
    let r = spawn(ctx, Entry::Thread { func });
    if r != 0 {
        p.live.fetch_sub(1, Ordering::SeqCst);
    }
    r
}

fn rtabi_global_base() -> u32 {
    crate::rtabi::GLOBAL_BASE as u32
}

/// IRT `thread_exit(stack_flag)`: leaves every guest frame of this thread
/// through the entry trampoline's jump buffer.
pub fn thread_exit(ctx: &mut Ctx, flag: u32) -> ! {
    ctx.exited = true;
    ctx.exit_flag = flag;
    ctx.setjmps.clear();
    let buf = ctx.exit_jmpbuf.as_mut_ptr();
    // SAFETY: the trampoline that started this thread set the buffer and
    // is still live below every guest frame; the frames in between are
    // generated code and the IRT wrapper, without destructors.
    unsafe { crate::helpers::long_jump(buf) }
}
