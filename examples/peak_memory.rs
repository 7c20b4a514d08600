//! Peak heap of `verify::verify_bytes` (decode + verify) on each file given.
//!
//! ```text
//! cargo run --release --example peak_memory -- FILE.pexe...
//! ```
//!
//! Prints, per file, the peak live heap bytes while the call ran (the input
//! buffer itself excluded), the ratio to the file size, and whether it meets
//! the goal of at most 4 × file + 16 MiB. Exits 1 if any file misses it.
//! A counting global allocator wraps the system one, so the numbers are the
//! program's own allocations, not the process's resident size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

struct CountingAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The memory goal: 4 × the file plus 16 MiB.
fn goal(file_len: usize) -> usize {
    4 * file_len + (16 << 20)
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: peak_memory FILE.pexe...");
        std::process::exit(2);
    }
    let mut all_ok = true;
    for path in &paths {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let start = Instant::now();
        let diagnostics = pexe::verify::verify_bytes(&bytes);
        let took = start.elapsed();
        let peak = PEAK.load(Ordering::Relaxed) - base;
        let ok = peak <= goal(bytes.len());
        all_ok &= ok;
        println!(
            "{path}: {} bytes, peak heap {peak} bytes ({:.2} × file), goal ≤ {} bytes: {}; {} diagnostic(s), {:.1} MB/s",
            bytes.len(),
            peak as f64 / bytes.len().max(1) as f64,
            goal(bytes.len()),
            if ok { "met" } else { "MISSED" },
            diagnostics.len(),
            bytes.len() as f64 / took.as_secs_f64() / 1e6,
        );
    }
    if !all_ok {
        std::process::exit(1);
    }
}
