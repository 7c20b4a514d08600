//! "nacl-irt-basic-0.1": exit, gettod, clock, nanosleep, sched_yield,
//! sysconf.

use super::clock::{now_ns, read_timespec, write_time};
use super::errno;
use crate::ctx::Ctx;
use crate::mem::Errno;
use crate::{process, threads};

/// sysconf names (NACL_ABI__SC_*).
const SC_NPROCESSORS_ONLN: i32 = 1;
const SC_PAGESIZE: i32 = 2;

pub fn exit(_ctx: &mut Ctx, status: i32) -> ! {
    threads::exit(status)
}

/// `struct timeval`: 64-bit seconds, 32-bit microseconds.
pub fn gettod(_ctx: &mut Ctx, tv: u32) -> i32 {
    errno(write_time(tv, now_ns(libc::CLOCK_REALTIME), 1000))
}

/// Process CPU time in microseconds (CLOCKS_PER_SEC is 1e6), 32 bits.
pub fn clock(_ctx: &mut Ctx, ticks: u32) -> i32 {
    let us = now_ns(libc::CLOCK_PROCESS_CPUTIME_ID) / 1000;
    errno(process().mem.write_i32(ticks, us as u32 as i32))
}

pub fn nanosleep(_ctx: &mut Ctx, req: u32, rem: u32) -> i32 {
    errno((|| -> Result<(), Errno> {
        let ns = read_timespec(req)?;
        if ns < 0 {
            return Err(libc::EINVAL);
        }
        if rem != 0 {
            process().mem.check_write(rem, 16)?;
        }
        crate::sys::sleep_ns(ns as u64);
        if rem != 0 {
            write_time(rem, 0, 1)?;
        }
        Ok(())
    })())
}

pub fn sched_yield(_ctx: &mut Ctx) -> i32 {
    // SAFETY: sched_yield.
    unsafe { libc::sched_yield() };
    0
}

pub fn sysconf(_ctx: &mut Ctx, name: i32, value: u32) -> i32 {
    let v = match name {
        SC_PAGESIZE => crate::rtabi::PAGE_SIZE as i32,
        SC_NPROCESSORS_ONLN => process().processors as i32,
        _ => return libc::EINVAL,
    };
    errno(process().mem.write_i32(value, v))
}
