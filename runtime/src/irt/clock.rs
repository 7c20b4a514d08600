//! "nacl-irt-clock_get-0.1" and the time helpers the other interfaces use.
//! `struct nacl_abi_timespec`/`timeval`: 64-bit seconds at 0, 32-bit
//! nanoseconds/microseconds at 8 (16 bytes).

use super::errno;
use crate::ctx::Ctx;
use crate::mem::Errno;
use crate::process;

/// Now on a host clock, in nanoseconds.
pub fn now_ns(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// Writes `ns` as seconds and `unit_ns` units.
pub fn write_time(addr: u32, ns: i64, unit_ns: i64) -> Result<(), Errno> {
    let m = &process().mem;
    m.check_write(addr, 16)?;
    let sec = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000) / unit_ns;
    m.write_i64(addr, sec)?;
    m.write_i32(addr + 8, frac as i32)
}

/// A timespec as nanoseconds; EINVAL for a bad `tv_nsec`.
pub fn read_timespec(addr: u32) -> Result<i64, Errno> {
    let m = &process().mem;
    let sec = m.read_i64(addr)?;
    let nsec = m.read_u32(addr + 8)? as i32;
    if !(0..1_000_000_000).contains(&nsec) {
        return Err(libc::EINVAL);
    }
    Ok(sec.saturating_mul(1_000_000_000).saturating_add(i64::from(nsec)))
}

/// NaCl clock ids (the same numbers as Linux's first four).
fn host_clock(id: u32) -> Result<libc::clockid_t, Errno> {
    match id {
        0 => Ok(libc::CLOCK_REALTIME),
        1 => Ok(libc::CLOCK_MONOTONIC),
        2 => Ok(libc::CLOCK_PROCESS_CPUTIME_ID),
        3 => Ok(libc::CLOCK_THREAD_CPUTIME_ID),
        _ => Err(libc::EINVAL),
    }
}

pub fn clock_getres(_ctx: &mut Ctx, id: u32, res: u32) -> i32 {
    errno((|| {
        let c = host_clock(id)?;
        if res != 0 {
            let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            // SAFETY: writes the timespec.
            unsafe { libc::clock_getres(c, &mut ts) };
            write_time(res, ts.tv_sec * 1_000_000_000 + ts.tv_nsec, 1)?;
        }
        Ok(())
    })())
}

pub fn clock_gettime(_ctx: &mut Ctx, id: u32, tp: u32) -> i32 {
    errno((|| write_time(tp, now_ns(host_clock(id)?), 1))())
}
