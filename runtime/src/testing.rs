//! The test driver (`PEXE_TEST_CALLS=<file>`, objects translated with
//! `test_entry`): instead of running `_start`, call pexe functions one by
//! one and print each result — the native twin of the Node harness of
//! `tests/all/wasm_exec.rs`, so the same programs run on both paths and must
//! print the same lines.
//!
//! Each line of the file is `id arg…` (a pexe function id; integers, `123n`
//! for 64-bit, floats as JavaScript writes them). Each call prints one
//! line: the result as JavaScript's `String()` would (i64 without the `n`),
//! `void`, or `trap: <message>` when it faulted (the fault handler jumps
//! back here instead of ending the process).
//!
//! With `PEXE_TEST_THREADS=1` the calls run as if other guest threads
//! existed, so atomics take their atomic form rather than the plain one of
//! a single-threaded process (`rtabi::ctx::THREADS`); the tests run both.

use crate::ctx::Ctx;
use crate::process;
use crate::sys::write_stderr;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::{AtomicPtr, Ordering};

/// The context of the thread running the driver (faults come back to it).
static DRIVER: AtomicPtr<Ctx> = AtomicPtr::new(core::ptr::null_mut());
/// The message of the last fault (written by the fault handler).
static mut FAULT: crate::sys::Line = crate::sys::Line::new();

/// In test mode, records a fault's message and jumps back into the test
/// entry, which answers 2. Returns if not in test mode.
pub fn recover(what: &[u8], detail: Option<u32>) {
    let c = DRIVER.load(Ordering::Acquire);
    if c.is_null() {
        return;
    }
    // SAFETY: only the driver's thread runs guest code in test mode, and
    // it is stopped in the fault handler now.
    unsafe {
        let line = &mut *core::ptr::addr_of_mut!(FAULT);
        line.len = 0;
        line.push(what);
        if let Some(d) = detail {
            let _ = write!(line, "{d}, which has no body");
        }
        // The handled signal stays blocked after leaving the handler this
        // way: unblock the fault signals.
        let mut set: libc::sigset_t = core::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGTRAP] {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, core::ptr::null_mut());
        crate::helpers::long_jump((*c).exit_jmpbuf.as_mut_ptr())
    }
}

/// A number as JavaScript's `String(x)` writes it.
pub fn js_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    // Shortest round-trip digits and exponent, from `{:e}` ("d.ddde-7").
    let mut sci = String::new();
    let _ = write!(sci, "{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let e: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n = e + 1;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        for _ in 0..n - k {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..-n {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{}", if n - 1 < 0 { '-' } else { '+' }, (n - 1).abs());
    }
    out
}

/// JavaScript's `Number(s)`, then the conversion the wasm boundary applies
/// for a parameter of kind `k`; the 8 bytes to pass.
fn argument(s: &str, k: u8) -> Option<u64> {
    if let Some(big) = s.strip_suffix('n') {
        let v: i64 = big.parse().ok()?;
        return Some(v as u64);
    }
    let x: f64 = match s {
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ => s.parse().ok()?,
    };
    Some(match k {
        // ToInt32: truncate, then wrap modulo 2^32.
        b'i' => {
            // Truncation (every double of magnitude 2^53 or more is whole).
            let t = if !x.is_finite() {
                0.0
            } else if x.abs() < 9.0e15 {
                (x as i64) as f64
            } else {
                x
            };
            let m = t % 4294967296.0;
            let m = if m < 0.0 { m + 4294967296.0 } else { m };
            m as u64 as u32 as u64
        }
        b'f' => u64::from((x as f32).to_bits()),
        b'd' => x.to_bits(),
        _ => return None,
    })
}

fn format_result(k: u8, bits: u64) -> String {
    let mut s = String::new();
    match k {
        b'i' => {
            let _ = write!(s, "{}", bits as u32 as i32);
        }
        b'l' => {
            let _ = write!(s, "{}", bits as i64);
        }
        b'f' => s = js_number(f64::from(f32::from_bits(bits as u32))),
        b'd' => s = js_number(f64::from_bits(bits)),
        _ => s.push_str("void"),
    }
    s
}

/// Runs the calls of `file`'s text on this (the main guest) thread and
/// ends the process.
///
/// # Safety
/// `ctx` is this thread's live context.
pub unsafe fn drive(ctx: *mut Ctx, calls: &[u8]) -> ! {
    let p = process();
    let desc = p.desc;
    if desc.test_invoke == 0 {
        write_stderr(b"pexe: PEXE_TEST_CALLS needs an object translated with the test entry\n");
        crate::threads::exit(1);
    }
    // SAFETY: the descriptor's signature list.
    let sigs = unsafe { core::slice::from_raw_parts(desc.test_sigs as *const u8, desc.test_sigs_len as usize) };
    let sig_of = |id: &str| -> Option<(u8, &[u8])> {
        sigs.split(|&b| b == b'\n').find_map(|line| {
            let mut parts = line.split(|&b| b == b':');
            let (i, r, params) = (parts.next()?, parts.next()?, parts.next()?);
            (i == id.as_bytes()).then(|| (r.first().copied().unwrap_or(b'v'), params))
        })
    };
    // SAFETY: the test entry's ABI.
    let invoke: extern "C" fn(*mut Ctx, i32, *const u64, *mut u64) -> i32 =
        unsafe { core::mem::transmute(desc.test_invoke as usize) };
    DRIVER.store(ctx, Ordering::Release);
    if p.test_threads {
        // SAFETY: this thread's context.
        unsafe { (*ctx).threads = 1 };
    }
    // SAFETY: this thread's context.
    let (sp, limit) = unsafe { ((*ctx).stack_pointer, (*ctx).stack_limit) };
    let mut out = String::new();
    for line in calls.split(|&b| b == b'\n') {
        let line = core::str::from_utf8(line).unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let id = words.next().unwrap_or("");
        let Some((ret, kinds)) = sig_of(id) else {
            let _ = writeln!(out, "error: no test entry for function {id}");
            continue;
        };
        let words: Vec<&str> = words.collect();
        let args: Option<Vec<u64>> = words.iter().zip(kinds).map(|(w, &k)| argument(w, k)).collect();
        let args = match args {
            Some(a) if a.len() == kinds.len() && words.len() == kinds.len() => a,
            _ => {
                let _ = writeln!(out, "error: bad arguments for function {id}");
                continue;
            }
        };
        let mut result = 0u64;
        // SAFETY: this thread's context; each call starts on a fresh stack.
        unsafe {
            (*ctx).stack_pointer = sp;
            (*ctx).stack_limit = limit;
            (*ctx).setjmps.clear();
        }
        match invoke(ctx, id.parse().unwrap_or(-1), args.as_ptr(), &mut result) {
            0 => {
                let _ = writeln!(out, "{}", format_result(ret, result));
            }
            2 => {
                // SAFETY: written by `recover` before jumping here.
                let msg = unsafe { &*core::ptr::addr_of!(FAULT) };
                let _ = writeln!(out, "trap: {}", String::from_utf8_lossy(msg.bytes()));
            }
            _ => {
                let _ = writeln!(out, "error: function {id} cannot be called by the test entry");
            }
        }
    }
    let bytes = out.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // SAFETY: write(2) from our buffer.
        let n = unsafe { libc::write(1, bytes[at..].as_ptr().cast(), bytes.len() - at) };
        if n <= 0 {
            break;
        }
        at += n as usize;
    }
    crate::threads::exit(0)
}

#[cfg(test)]
mod tests {
    use super::js_number;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (x, s) in [
            (0.1f64, "0.1"),
            (-7.5, "-7.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-6, "0.0000015"),
            (123.456, "123.456"),
            (-0.0, "0"),
            (f64::from(0.1f32), "0.10000000149011612"),
            (2.5e-300, "2.5e-300"),
        ] {
            assert_eq!(js_number(x), s);
        }
    }
}
