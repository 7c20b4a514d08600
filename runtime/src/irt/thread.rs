//! "nacl-irt-tls-0.1", "nacl-irt-thread-0.1", "nacl-irt-futex-0.1" and
//! "nacl-irt-random-0.1".
//!
//! Futexes are Linux futexes on the guest word. As in the JavaScript
//! runtime, an untimed wait sleeps in slices and counts itself as waiting:
//! when every live thread has waited a whole slice with no wake in
//! between, the guest can never continue, and the wait ends it with a
//! deadlock fault instead of hanging forever.

use super::clock::{now_ns, read_timespec};
use super::errno;
use crate::ctx::Ctx;
use crate::fs::last_errno;
use crate::mem::Errno;
use crate::{fault, process, threads};
use core::sync::atomic::{AtomicU32, Ordering};

/// Length of one untimed-wait slice between deadlock checks.
const DEADLOCK_SLICE_MS: i64 = 500;
const DEADLOCK_MESSAGE: &[u8] = b"deadlock: every thread is waiting on a futex";

pub fn tls_init(ctx: &mut Ctx, thread_ptr: u32) -> i32 {
    ctx.tp = thread_ptr;
    0
}

pub fn tls_get(ctx: &mut Ctx) -> u32 {
    ctx.tp
}

pub fn thread_create(ctx: &mut Ctx, start_func: u32, stack: u32, thread_ptr: u32) -> i32 {
    threads::thread_create(ctx, start_func, stack, thread_ptr)
}

pub fn thread_exit(ctx: &mut Ctx, stack_flag: u32) {
    threads::thread_exit(ctx, stack_flag)
}

/// Threads have no priorities here.
pub fn thread_nice(_ctx: &mut Ctx, _nice: i32) -> i32 {
    libc::ENOSYS
}

/// The host address of an aligned, mapped guest word.
fn word(addr: u32) -> Result<*mut u32, Errno> {
    if !addr.is_multiple_of(4) {
        return Err(libc::EINVAL);
    }
    let m = &process().mem;
    m.check_read(addr, 4)?;
    Ok(m.host(addr).cast())
}

fn futex(uaddr: *mut u32, op: i32, val: i32, ts: *const libc::timespec, bitset: u32) -> i64 {
    // SAFETY: a futex call on a mapped guest word.
    unsafe { libc::syscall(libc::SYS_futex, uaddr, op, val, ts, core::ptr::null::<u32>(), bitset) }
}

pub fn futex_wait_abs(_ctx: &mut Ctx, addr: u32, value: i32, abstime: u32) -> i32 {
    errno((|| {
        let w = word(addr)?;
        let deadline = if abstime == 0 { None } else { Some(read_timespec(abstime)?) };
        // SAFETY: an aligned, mapped guest word.
        let current = unsafe { (*(w as *const AtomicU32)).load(Ordering::SeqCst) } as i32;
        if current != value {
            return Err(libc::EAGAIN);
        }
        let Some(deadline) = deadline else { return wait_forever(w, value) };
        if deadline <= now_ns(libc::CLOCK_REALTIME) {
            return Err(libc::ETIMEDOUT);
        }
        let ts = libc::timespec {
            tv_sec: deadline.div_euclid(1_000_000_000) as libc::time_t,
            tv_nsec: deadline.rem_euclid(1_000_000_000) as libc::c_long,
        };
        let op = libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME;
        loop {
            if futex(w, op, value, &ts, u32::MAX) == 0 {
                return Ok(());
            }
            match last_errno() {
                libc::EINTR => continue,
                e => return Err(e),
            }
        }
    })())
}

fn wait_forever(w: *mut u32, value: i32) -> Result<(), Errno> {
    let p = process();
    p.waiting.fetch_add(1, Ordering::SeqCst);
    let _leave = Leave;
    let mut epoch = p.wake_epoch.load(Ordering::SeqCst);
    let mut stalled = false;
    let slice = libc::timespec { tv_sec: 0, tv_nsec: (DEADLOCK_SLICE_MS * 1_000_000) as libc::c_long };
    loop {
        let r = futex(w, libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, value, &slice, 0);
        if r == 0 {
            return Ok(());
        }
        match last_errno() {
            libc::ETIMEDOUT => {}
            libc::EINTR => continue,
            // The word changed before we slept: a wake-up (callers re-check).
            _ => return Ok(()),
        }
        let now = p.wake_epoch.load(Ordering::SeqCst);
        let all_waiting = p.waiting.load(Ordering::SeqCst) >= p.live.load(Ordering::SeqCst);
        if all_waiting && now == epoch && stalled {
            fault::report_here(DEADLOCK_MESSAGE);
        }
        stalled = all_waiting && now == epoch;
        epoch = now;
    }
}

/// Leaves the waiting count however the wait ends.
struct Leave;

impl Drop for Leave {
    fn drop(&mut self) {
        process().waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

pub fn futex_wake(_ctx: &mut Ctx, addr: u32, nwake: i32, count: u32) -> i32 {
    errno((|| {
        let w = word(addr)?;
        process().mem.check_write(count, 4)?;
        let n = if nwake > 0 { futex(w, libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, nwake, core::ptr::null(), 0) } else { 0 };
        process().wake_epoch.fetch_add(1, Ordering::SeqCst);
        process().mem.write_i32(count, n.max(0) as i32)
    })())
}

pub fn get_random_bytes(_ctx: &mut Ctx, buf: u32, count: u32, nread: u32) -> i32 {
    errno((|| {
        let m = &process().mem;
        m.check_write(buf, u64::from(count))?;
        m.check_write(nread, 4)?;
        let mut done = 0u32;
        while done < count {
            // SAFETY: getrandom into checked, writable guest memory.
            let n = unsafe { libc::getrandom(m.host(buf + done).cast(), (count - done) as usize, 0) };
            if n < 0 {
                if last_errno() == libc::EINTR {
                    continue;
                }
                return Err(last_errno());
            }
            done += n as u32;
        }
        m.write_u32(nread, count)
    })())
}
