//! The CLI rows of the speed goals (issue 9), measured in one run on the
//! pexes given (by default the two largest of the corpus):
//!
//! | row | goal |
//! |---|---|
//! | decode + verify, one core | ≥ 150 MB/s |
//! | pexe → wasm translation, one core | ≥ 60 MB/s |
//! | the same on 2 threads, speed-up over one | ≥ 1.8× |
//! | translator peak heap (one thread and 2) | ≤ 4 × pexe + 16 MiB |
//!
//! ```text
//! cargo run --release --example bench -- [--runs N] [--no-outline] [FILE.pexe...]
//! ```
//!
//! `--no-outline` translates without loop outlining (for an A/B of its
//! cost). Times are medians of `--runs` runs (default 15) after one warm-up, in
//! this process (no process start-up, no file reading). One-core rows count
//! the calling thread's processor time (`CLOCK_THREAD_CPUTIME_ID`, wall
//! clock elsewhere), so other processes on a shared machine do not inflate
//! them; the 2-thread speed-up is wall clock over wall clock, and needs two
//! idle cores to mean anything (the load average is printed). Sizes
//! are MB of pexe (10^6 bytes). Peak heap counts this program's own
//! allocations (a counting global allocator), the input buffer excluded.
//! Each row ends with the ratio to its goal (≥ 1.00 meets it). Exits 1 if
//! a translation fails.

use pexe::back::wasm::{translate_bytes, Options, Tiering};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Instant;

struct CountingAlloc;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// Counting is on only for the warm-up run that measures the peak: two
/// threads updating the same counters on every allocation slowed the timed
/// 2-thread runs down (the cache line bounces between the cores).
static COUNTING: AtomicBool = AtomicBool::new(false);

fn grew(by: usize) {
    let by = by as isize;
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(by: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE.fetch_sub(by as isize, Ordering::Relaxed);
    }
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
        shrank(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const DEFAULT_FILES: [&str; 2] = [
    "ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe",
    "ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe",
];

/// Nanoseconds this thread has spent on a processor, so one-thread rows do
/// not count time other processes took the core. The thread CPU clock, not
/// `/proc/thread-self/schedstat`: that one only moves at scheduler ticks
/// (4 ms steps here), which rounded every one-core row to a multiple of
/// 4 ms (20 ms or 24 ms for an 18.5 ms decode).
#[cfg(unix)]
fn thread_cpu_ns() -> Option<u64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the whole call, which
    // is all clock_gettime touches.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

#[cfg(not(unix))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

/// How a run is timed.
#[derive(Clone, Copy, PartialEq)]
enum Clock {
    /// This thread's processor time (work done on the calling thread only).
    ThreadCpu,
    Wall,
}

/// Median seconds of `runs` calls of `f` (after one warm-up), and the peak
/// heap above the starting level during the warm-up.
fn measure<T>(runs: usize, clock: Clock, mut f: impl FnMut() -> T) -> (f64, usize) {
    // Counted from zero: a block allocated before the warm-up and freed
    // during it takes the level below zero, never above the true peak.
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    drop(f());
    COUNTING.store(false, Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed).max(0) as usize;
    let cpu = clock == Clock::ThreadCpu && thread_cpu_ns().is_some();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let cpu_start = if cpu { thread_cpu_ns() } else { None };
            let r = f();
            let t = match (cpu_start, thread_cpu_ns()) {
                (Some(a), Some(b)) if cpu => (b - a) as f64 / 1e9,
                _ => start.elapsed().as_secs_f64(),
            };
            drop(r);
            t
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], peak)
}

fn row(measure: &str, value: String, goal: &str, ratio: f64) {
    println!("{measure:<44} {value:>14}   goal {goal:<22} ratio {ratio:>5.2} {}", if ratio >= 1.0 { "met" } else { "MISSED" });
}

fn info(measure: &str, value: String) {
    println!("{measure:<44} {value:>14}");
}

fn main() {
    let mut runs = 15;
    let mut tiering = Tiering::Dynamic;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or_else(|| usage()),
            "--no-outline" => tiering = Tiering::Optimized,
            "-h" | "--help" => usage(),
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");
        files = DEFAULT_FILES.iter().map(|f| format!("{corpus}/{f}")).collect();
    }
    let mut failed = false;
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2)
        });
        let mb = bytes.len() as f64 / 1e6;
        let name = path.rsplit('/').next().unwrap_or(path);
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let load = load.split_whitespace().next().unwrap_or("?");
        println!("\n{name}: {} bytes, median of {runs} runs (load average {load} on {} cores)", bytes.len(), cores());

        let (t, _) = measure(runs, Clock::ThreadCpu, || pexe::verify::verify_bytes(&bytes));
        row("decode + verify, one core", format!("{:.1} MB/s", mb / t), "≥ 150 MB/s", mb / t / 150.0);

        let one = Options { parallel: false, tiering, ..Options::default() };
        let two = Options { parallel: true, threads: 2, tiering, ..Options::default() };
        let serial = translate_bytes(&bytes, &one);
        let wasm = match serial {
            Ok(w) => w,
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
                continue;
            }
        };
        if translate_bytes(&bytes, &two).ok().as_ref() != Some(&wasm) {
            eprintln!("{name}: the 2-thread translation differs from the one-thread one");
            failed = true;
        }
        let (t1, peak1) = measure(runs, Clock::ThreadCpu, || translate_bytes(&bytes, &one));
        let (w1, _) = measure(runs, Clock::Wall, || translate_bytes(&bytes, &one));
        row("pexe → wasm translation, one core", format!("{:.1} MB/s", mb / t1), "≥ 60 MB/s", mb / t1 / 60.0);
        let (t2, peak2) = measure(runs, Clock::Wall, || translate_bytes(&bytes, &two));
        info("pexe → wasm translation, 2 threads", format!("{:.1} MB/s", mb / t2));
        row("  speed-up of 2 threads over one (wall)", format!("{:.2}×", w1 / t2), "≥ 1.8×", w1 / t2 / 1.8);
        let goal = 4 * bytes.len() + (16 << 20);
        let mib = |b: usize| b as f64 / (1 << 20) as f64;
        for (label, peak) in [("translator peak heap, one thread", peak1), ("translator peak heap, 2 threads", peak2)] {
            row(
                label,
                format!("{:.1} MiB", mib(peak)),
                &format!("≤ {:.1} MiB", mib(goal)),
                goal as f64 / peak.max(1) as f64,
            );
        }
        info("  (wasm output)", format!("{:.1} MiB", mib(wasm.len())));
    }
    if failed {
        std::process::exit(1);
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn usage() -> ! {
    eprintln!("usage: bench [--runs N] [--no-outline] [FILE.pexe...]");
    std::process::exit(2)
}
