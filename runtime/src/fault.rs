//! Guest faults: every way a guest can fail ends the process with
//! `pexe: guest fault: <what> in function <name>` on standard error and
//! exit status 134, as the wasm path does.
//!
//! Checks in generated code are trap instructions (SIGILL; SIGFPE for an
//! x86 division), recorded with a code in the object's trap tables; a
//! guest access to a page it has not mapped is a SIGSEGV/SIGBUS at an
//! address inside the reservation; running out of machine stack is a
//! SIGSEGV in the thread's guard region. The handler (on an alternate
//! stack) finds the function from the program counter — or, when the fault
//! is in a runtime function the guest called, from the first guest return
//! address on the frame-pointer chain — and reports. Any other signal is a
//! runtime bug: the default action runs.

use crate::rtabi::{self, trap};
use crate::sys::{write_stderr, Line};
use crate::{ctx, process};
use core::sync::atomic::{AtomicBool, Ordering};

/// Set by the first thread to report; others wait for the exit.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Ends the process: the guest faulted with `what` in function `func`
/// (an index into the function-info table), or in no known function.
/// Async-signal-safe.
pub fn report(what: &[u8], detail: Option<u32>, func: Option<usize>) -> ! {
    // Under the test driver, the fault goes back to it instead.
    crate::testing::recover(what, detail);
    if REPORTING.swap(true, Ordering::SeqCst) {
        // Another thread is reporting; it ends the process.
        loop {
            // SAFETY: pause only waits.
            unsafe { libc::pause() };
        }
    }
    let mut line = Line::new();
    line.push(b"pexe: guest fault: ");
    line.push(what);
    if let Some(d) = detail {
        let _ = core::fmt::write(&mut line, format_args!("{d}, which has no body"));
    }
    if let Some(name) = func.and_then(|f| process().func_name(f)) {
        line.push(b" in function ");
        line.push(name);
    }
    line.push(b"\n");
    write_stderr(line.bytes());
    self_test_report();
    // SAFETY: _exit(2) is async-signal-safe.
    unsafe { libc::_exit(FAULT_STATUS) }
}

/// In sandbox self-test mode (`PEXE_SANDBOX_SELFTEST=1`): whether the host
/// memory around the guest's reservation is untouched, on standard error.
pub fn self_test_report() {
    match process().mem.sentinels_intact() {
        Some(true) => write_stderr(b"pexe: sandbox self-test: host memory around the guest's reservation is intact\n"),
        Some(false) => {
            write_stderr(b"pexe: sandbox self-test: HOST MEMORY AROUND THE GUEST'S RESERVATION WAS MODIFIED\n")
        }
        None => {}
    }
}

/// Exit status of a run that ended in a guest fault (as SIGABRT gives).
pub const FAULT_STATUS: i32 = 134;

/// Reports a fault raised by the runtime on behalf of the guest code that
/// called it: the function is found by walking the frame pointers from
/// here.
pub fn report_here(what: &[u8]) -> ! {
    let fp = frame_pointer();
    report(what, None, guest_on_chain(fp, ctx::current()))
}

#[inline(always)]
fn frame_pointer() -> usize {
    let fp: usize;
    // SAFETY: reads a register.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        core::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags));
        #[cfg(target_arch = "aarch64")]
        core::arch::asm!("mov {}, x29", out(reg) fp, options(nomem, nostack, preserves_flags));
    }
    fp
}

/// The first guest function whose return address is on the frame-pointer
/// chain starting at `fp` (frames are `[saved fp, return address]` on both
/// targets), staying inside this thread's machine stack.
fn guest_on_chain(mut fp: usize, c: *mut ctx::Ctx) -> Option<usize> {
    let (lo, hi) = if c.is_null() {
        return None;
    } else {
        // SAFETY: the current thread's own context.
        unsafe { ((*c).stack_lo, (*c).stack_hi) }
    };
    for _ in 0..256 {
        if fp < lo || fp + 16 > hi || !fp.is_multiple_of(8) {
            return None;
        }
        // SAFETY: inside this thread's stack (checked above).
        let (next, ret) = unsafe { (*(fp as *const usize), *((fp + 8) as *const usize)) };
        if let Some(f) = process().func_at(ret.wrapping_sub(1)) {
            return Some(f);
        }
        if next <= fp {
            return None;
        }
        fp = next;
    }
    None
}

/// Installs the handlers (once, at start-up).
pub fn install() {
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGTRAP] {
        // SAFETY: a plain sigaction with our handler.
        unsafe {
            let mut sa: libc::sigaction = core::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, core::ptr::null_mut());
        }
    }
}

/// Gives the calling thread an alternate signal stack (the handler must
/// run when the machine stack is exhausted). Returns it, to free later.
pub fn alt_stack() -> Option<(*mut libc::c_void, usize)> {
    const SIZE: usize = 64 << 10;
    // SAFETY: a fresh anonymous mapping, then sigaltstack on it.
    unsafe {
        let p = libc::mmap(
            core::ptr::null_mut(),
            SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return None;
        }
        let ss = libc::stack_t { ss_sp: p, ss_flags: 0, ss_size: SIZE };
        libc::sigaltstack(&ss, core::ptr::null_mut());
        Some((p, SIZE))
    }
}

/// Program counter, frame pointer and stack pointer of an interrupted
/// context.
unsafe fn registers(uctx: *mut libc::c_void) -> (usize, usize, usize) {
    let uc = uctx as *mut libc::ucontext_t;
    #[cfg(target_arch = "x86_64")]
    {
        let g = &(*uc).uc_mcontext.gregs;
        (g[libc::REG_RIP as usize] as usize, g[libc::REG_RBP as usize] as usize, g[libc::REG_RSP as usize] as usize)
    }
    #[cfg(target_arch = "aarch64")]
    {
        let m = &(*uc).uc_mcontext;
        (m.pc as usize, m.regs[29] as usize, m.sp as usize)
    }
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    // SAFETY: the kernel hands us valid info and context pointers.
    let (pc, fp, sp) = unsafe { registers(uctx) };
    let addr = unsafe { (*info).si_addr() } as usize;
    let p = process();
    let c = ctx::at_stack(sp);
    let memory_signal = sig == libc::SIGSEGV || sig == libc::SIGBUS;
    let in_guest = p.func_at(pc);
    let func = in_guest.or_else(|| guest_on_chain(fp, c));

    // A machine-stack overflow: the fault is in this thread's guard region.
    if memory_signal && !c.is_null() {
        // SAFETY: this thread's own context.
        let (guard_lo, lo) = unsafe { ((*c).guard_lo, (*c).stack_lo) };
        if addr >= guard_lo && addr < lo {
            report(rtabi::trap_message(trap::STACK_OVERFLOW).as_bytes(), None, func);
        }
    }
    if let Some(f) = in_guest {
        if let Some(code) = p.trap_at(f, pc) {
            let code = if memory_signal && p.mem.contains(addr) { trap::MEMORY_OUT_OF_BOUNDS } else { code };
            report(rtabi::trap_message(code).as_bytes(), None, Some(f));
        }
    }
    if memory_signal && p.mem.contains(addr) && func.is_some() {
        report(rtabi::trap_message(trap::MEMORY_OUT_OF_BOUNDS).as_bytes(), None, func);
    }
    // Not the guest's: a runtime bug. Say so, then let the default action
    // (a core dump) happen when the instruction runs again.
    let mut line = Line::new();
    let _ = core::fmt::write(&mut line, format_args!("pexe: runtime error: signal {sig} outside guest code\n"));
    write_stderr(line.bytes());
    // SAFETY: async-signal-safe.
    unsafe { libc::signal(sig, libc::SIG_DFL) };
}
