//! The functions generated code calls besides the IRT
//! ([`crate::rtabi::sym`]): checked memory copies, faults, `fmod`, and
//! setjmp/longjmp.
//!
//! # setjmp and longjmp
//!
//! A function that calls `llvm.nacl.setjmp` keeps its values in stack
//! slots and calls the native `_setjmp` itself on a buffer in its own frame
//! (see the back end's `func.rs`). Before that, [`__pexe_rt_setjmp`]
//! registers the call: a fresh id goes into the guest's `jmp_buf` (with
//! the guest stack pointer, as the wasm runtime stores them), and the
//! thread's list of live setjmps gets `(id, native buffer, stack pointer)`.
//! Every return from such a function drops its entries
//! ([`__pexe_rt_setjmp_leave`]), and a longjmp drops those above its
//! target, so the list only ever names frames that are still live. A
//! longjmp reads the id from the guest's buffer — the guest controls those
//! bytes, so the id is all that is trusted from it — finds it in the list
//! (a fault if it is not there), restores the stack pointer and jumps with
//! the native `_longjmp`. A guest can only reach frames of its own thread
//! that are still on the stack.

use crate::ctx::{Ctx, SetjmpEntry};
use crate::fault;
use crate::process;
use crate::rtabi;

extern "C" {
    fn _longjmp(env: *mut libc::c_void, val: libc::c_int) -> !;
}

// `__pexe_rt_native_setjmp`: a tail jump to libc's `_setjmp`, so the
// frame that called it is the one `_setjmp` saves (it returns twice there).
#[cfg(target_arch = "x86_64")]
core::arch::global_asm!(
    ".globl __pexe_rt_native_setjmp",
    ".type __pexe_rt_native_setjmp, @function",
    "__pexe_rt_native_setjmp:",
    "jmp _setjmp",
    ".size __pexe_rt_native_setjmp, . - __pexe_rt_native_setjmp",
);
#[cfg(target_arch = "aarch64")]
core::arch::global_asm!(
    ".globl __pexe_rt_native_setjmp",
    ".type __pexe_rt_native_setjmp, %function",
    "__pexe_rt_native_setjmp:",
    "b _setjmp",
    ".size __pexe_rt_native_setjmp, . - __pexe_rt_native_setjmp",
);

/// Jumps to a native buffer set by `_setjmp` in a live frame (or by an
/// entry trampoline), making it return `1`.
///
/// # Safety
/// `buf` must have been set by `_setjmp` in a frame that is still live on
/// this thread; no frame between here and there may own a destructor.
pub unsafe fn long_jump(buf: *mut u8) -> ! {
    _longjmp(buf.cast(), 1)
}

fn check_copy(src: u32, dst: u32, len: u32) -> bool {
    let m = &process().mem;
    m.allows(src, u64::from(len), crate::mem::READ) && m.allows(dst, u64::from(len), crate::mem::READ | crate::mem::WRITE)
}

#[no_mangle]
pub extern "C" fn __pexe_rt_memcpy(_ctx: *mut Ctx, dst: i32, src: i32, len: i32) -> i32 {
    __pexe_rt_memmove(_ctx, dst, src, len)
}

#[no_mangle]
pub extern "C" fn __pexe_rt_memmove(_ctx: *mut Ctx, dst: i32, src: i32, len: i32) -> i32 {
    let (dst, src, len) = (dst as u32, src as u32, len as u32);
    if len == 0 {
        return 0;
    }
    if !check_copy(src, dst, len) {
        return 1;
    }
    let m = &process().mem;
    // SAFETY: both ranges are mapped guest memory (checked); they may
    // overlap, so this is a memmove.
    unsafe { core::ptr::copy(m.host(src), m.host(dst), len as usize) };
    0
}

#[no_mangle]
pub extern "C" fn __pexe_rt_memset(_ctx: *mut Ctx, dst: i32, byte: i32, len: i32) -> i32 {
    let (dst, len) = (dst as u32, len as u32);
    if len == 0 {
        return 0;
    }
    let m = &process().mem;
    if !m.allows(dst, u64::from(len), crate::mem::READ | crate::mem::WRITE) {
        return 1;
    }
    // SAFETY: checked writable.
    unsafe { core::ptr::write_bytes(m.host(dst), byte as u8, len as usize) };
    0
}

#[no_mangle]
pub extern "C" fn __pexe_rt_fmod(a: f64, b: f64) -> f64 {
    a % b
}

#[no_mangle]
pub extern "C" fn __pexe_rt_fault(_ctx: *mut Ctx, kind: i32, detail: i32, func: i32) {
    match kind {
        rtabi::fault::MISSING_FUNCTION => {
            fault::report(b"call of function ", Some(detail as u32), Some(func as usize))
        }
        _ => fault::report(b"bad use of an intrinsic", None, Some(func as usize)),
    }
}

/// Registers a setjmp (see the module docs); 1 if the guest's buffer is
/// not writable.
///
/// # Safety
/// `ctx` is the calling thread's live context (generated code passes it).
#[no_mangle]
pub unsafe extern "C" fn __pexe_rt_setjmp(ctx: *mut Ctx, gbuf: i32, native: i64) -> i32 {
    // SAFETY: generated code passes its thread's context.
    let ctx = unsafe { &mut *ctx };
    let m = &process().mem;
    let gbuf = gbuf as u32;
    if m.check_write(gbuf, 8).is_err() {
        return 1;
    }
    let id = ctx.next_setjmp_id;
    ctx.next_setjmp_id = ctx.next_setjmp_id.wrapping_add(1).max(1);
    let sp = ctx.stack_pointer;
    let _ = m.write_u32(gbuf, id);
    let _ = m.write_u32(gbuf + 4, sp);
    let native = native as u64;
    // The same call site again (a loop): its entry takes the new id.
    match ctx.setjmps.iter_mut().rev().find(|e| e.native == native) {
        Some(e) => {
            e.id = id;
            e.sp = sp;
        }
        None => ctx.setjmps.push(SetjmpEntry { id, native, sp }),
    }
    0
}

/// A frame whose native buffers lie in `[lo, hi)` returns.
///
/// # Safety
/// `ctx` is the calling thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_rt_setjmp_leave(ctx: *mut Ctx, lo: i64, hi: i64) {
    // SAFETY: generated code passes its thread's context.
    let ctx = unsafe { &mut *ctx };
    let (lo, hi) = (lo as u64, hi as u64);
    while ctx.setjmps.last().is_some_and(|e| e.native >= lo && e.native < hi) {
        ctx.setjmps.pop();
    }
}

/// `llvm.nacl.longjmp(buf, value)`, called from function `func`.
///
/// # Safety
/// `ctx` is the calling thread's live context.
#[no_mangle]
pub unsafe extern "C" fn __pexe_rt_longjmp(ctx: *mut Ctx, gbuf: i32, value: i32, func: i32) {
    // SAFETY: generated code passes its thread's context.
    let ctx = unsafe { &mut *ctx };
    let id = match process().mem.read_u32(gbuf as u32) {
        Ok(id) => id,
        Err(_) => fault::report(
            rtabi::trap_message(rtabi::trap::MEMORY_OUT_OF_BOUNDS).as_bytes(),
            None,
            Some(func as usize),
        ),
    };
    let Some(at) = ctx.setjmps.iter().rposition(|e| e.id == id && id != 0) else {
        fault::report(b"longjmp to a jmp_buf with no live setjmp", None, Some(func as usize));
    };
    let entry = ctx.setjmps[at];
    ctx.setjmps.truncate(at + 1);
    ctx.stack_pointer = entry.sp;
    ctx.longjmp_value = if value == 0 { 1 } else { value };
    // SAFETY: the entry belongs to a frame of this thread that is still
    // live (entries of returned frames are removed); the frames in between
    // are generated code and this function, none with destructors pending.
    unsafe { long_jump(entry.native as *mut u8) }
}
