//! The thread context: what generated code reads through its hidden first
//! argument (the fields of [`crate::rtabi::ctx`], first), then what the
//! runtime keeps per guest thread.

use crate::rtabi;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// One registered setjmp: the id written to the guest's `jmp_buf`, the
/// native buffer in the frame that called setjmp, and the guest stack
/// pointer at that call.
#[derive(Clone, Copy, Debug)]
pub struct SetjmpEntry {
    pub id: u32,
    pub native: u64,
    pub sp: u32,
}

/// A guest thread's context. Generated code uses the fields up to
/// `exit_jmpbuf` at the offsets of [`rtabi::ctx`] (checked below).
#[repr(C, align(16))]
pub struct Ctx {
    pub mem_base: u64,
    pub stack_pointer: u32,
    pub stack_limit: u32,
    pub tp: u32,
    pub longjmp_value: i32,
    /// [`rtabi::ctx::THREADS`].
    pub threads: u8,
    pub reserved: [u8; 39],
    /// Set by the entry trampolines; `thread_exit` jumps to it.
    pub exit_jmpbuf: [u8; rtabi::JMPBUF_SIZE as usize],
    // ---- runtime only ----
    pub tid: u32,
    /// `thread_exit` was called; its `stack_flag` argument.
    pub exited: bool,
    pub exit_flag: u32,
    /// Live setjmps of this thread, oldest first.
    pub setjmps: Vec<SetjmpEntry>,
    pub next_setjmp_id: u32,
    /// The machine stack this thread runs on: `[lo, hi)`, with the guard
    /// region `[guard_lo, lo)` below it.
    pub stack_lo: usize,
    pub stack_hi: usize,
    pub guard_lo: usize,
}

const _: () = {
    assert!(core::mem::offset_of!(Ctx, mem_base) == rtabi::ctx::MEM_BASE as usize);
    assert!(core::mem::offset_of!(Ctx, stack_pointer) == rtabi::ctx::STACK_POINTER as usize);
    assert!(core::mem::offset_of!(Ctx, stack_limit) == rtabi::ctx::STACK_LIMIT as usize);
    assert!(core::mem::offset_of!(Ctx, tp) == rtabi::ctx::THREAD_POINTER as usize);
    assert!(core::mem::offset_of!(Ctx, longjmp_value) == rtabi::ctx::LONGJMP_VALUE as usize);
    assert!(core::mem::offset_of!(Ctx, threads) == rtabi::ctx::THREADS as usize);
    assert!(core::mem::offset_of!(Ctx, exit_jmpbuf) == rtabi::ctx::EXIT_JMPBUF as usize);
};

impl Ctx {
    pub fn new(tid: u32, mem_base: u64, stack_pointer: u32, stack_limit: u32, tp: u32) -> Box<Ctx> {
        Box::new(Ctx {
            mem_base,
            stack_pointer,
            stack_limit,
            tp,
            longjmp_value: 0,
            threads: 0,
            reserved: [0; 39],
            exit_jmpbuf: [0; rtabi::JMPBUF_SIZE as usize],
            tid,
            exited: false,
            exit_flag: 0,
            setjmps: Vec::new(),
            next_setjmp_id: 1,
            stack_lo: 0,
            stack_hi: 0,
            guard_lo: 0,
        })
    }
}

/// Guest threads by machine stack: `[guard_lo, hi)` and the context. The
/// fault handler finds the faulting thread's context from its stack
/// pointer, with atomic loads only.
struct Slot {
    lo: AtomicUsize,
    hi: AtomicUsize,
    ctx: AtomicPtr<Ctx>,
}

/// Guest threads live at once that the fault handler can attribute
/// stack overflows to (more still run; their faults are still reported).
const SLOTS: usize = 4096;

static THREADS: [Slot; SLOTS] = [const {
    Slot { lo: AtomicUsize::new(0), hi: AtomicUsize::new(0), ctx: AtomicPtr::new(core::ptr::null_mut()) }
}; SLOTS];

/// Registers the context of the guest thread running on `[guard_lo, hi)`.
pub fn register(ctx: *mut Ctx, guard_lo: usize, hi: usize) -> Option<usize> {
    for (i, s) in THREADS.iter().enumerate() {
        if s.ctx.compare_exchange(core::ptr::null_mut(), ctx, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            s.lo.store(guard_lo, Ordering::Release);
            s.hi.store(hi, Ordering::Release);
            return Some(i);
        }
    }
    None
}

pub fn unregister(slot: usize) {
    if let Some(s) = THREADS.get(slot) {
        s.lo.store(0, Ordering::Release);
        s.hi.store(0, Ordering::Release);
        s.ctx.store(core::ptr::null_mut(), Ordering::Release);
    }
}

/// The context of the guest thread whose machine stack holds `sp` (null
/// if none; async-signal-safe).
pub fn at_stack(sp: usize) -> *mut Ctx {
    for s in &THREADS {
        let c = s.ctx.load(Ordering::Acquire);
        if !c.is_null() && sp >= s.lo.load(Ordering::Acquire) && sp < s.hi.load(Ordering::Acquire) {
            return c;
        }
    }
    core::ptr::null_mut()
}

/// The calling thread's context, if it runs a guest thread.
#[inline(never)]
pub fn current() -> *mut Ctx {
    let here = 0u8;
    at_stack(core::ptr::addr_of!(here) as usize)
}
