//! Deterministic mutation testing: the CI counterpart of `fuzz/`.
//!
//! Real corpus pexes are damaged in many small ways (bit flips, byte
//! overwrites, insertions, deletions, truncations, duplicated and swapped
//! chunks, and 32-bit words set to extreme values, which is how block length
//! words and counts go wrong) and every mutant is given to each reading entry
//! point: `verify::verify_bytes` (decode + verify), the bitstream
//! `Parser` run to its end, and `stats::Stats::compute`. For every call:
//!
//! - it must not panic (checked with `catch_unwind`; panics are collected,
//!   grouped by where they happened, and reported with a reproducer);
//! - it must not hang: each call is timed, and a watchdog fails the test if
//!   one runs longer than [`CALL_LIMIT`];
//! - its peak live heap must stay within `16 × input + 8 MiB`, measured by
//!   the counting global allocator of this test binary;
//! - a file the bitstream parser rejects must get at least one diagnostic
//!   from `verify_bytes`, and at least one of them must name a position.
//!
//! The random source is a fixed-seed xorshift, so a failure is reproduced by
//! running the test again; the failing inputs are also written to
//! `target/tmp/mutation-failures/` for `pexe verify` or a debugger.
//!
//! A second test gives the same entry points hand-made adversarial files
//! that random mutation would never produce (say, a BLOCKINFO block naming
//! 50,000 block ids), with the same time and memory limits.
//!
//! The allocator counts every thread, so the tests of this binary take a
//! lock ([`SERIAL`]) and never run beside each other's measured calls.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// ---- counting allocator ----

/// Wraps the system allocator and tracks live and peak heap bytes.
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

/// Runs `f` and returns its result with the peak heap growth while it ran.
fn measure_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

/// Held by each test for its whole run: heap measurements need the process
/// to themselves.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

// ---- limits ----

/// The longest one call may take. Generous for inputs of at most 80 KB
/// (the decoder's goal is 150 MB/s); debug builds get more room.
const CALL_LIMIT: Duration = if cfg!(debug_assertions) { Duration::from_secs(20) } else { Duration::from_secs(2) };

/// Peak heap one call may use for an input of `len` bytes.
fn heap_limit(len: usize) -> usize {
    16 * len + (8 << 20)
}

// ---- deterministic randomness ----

/// xorshift64*: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

// ---- mutations ----

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    BitFlip,
    ByteOverwrite,
    ByteInsert,
    ByteDelete,
    Truncate,
    DuplicateChunk,
    SwapChunks,
    ExtremeWord,
}

const KINDS: [Kind; 8] = [
    Kind::BitFlip,
    Kind::ByteOverwrite,
    Kind::ByteInsert,
    Kind::ByteDelete,
    Kind::Truncate,
    Kind::DuplicateChunk,
    Kind::SwapChunks,
    Kind::ExtremeWord,
];

/// Applies one mutation of `kind` to `data` and describes it.
fn mutate(data: &mut Vec<u8>, kind: Kind, rng: &mut Rng) -> String {
    if data.is_empty() {
        data.push(rng.next() as u8);
        return "empty input: pushed one byte".into();
    }
    let len = data.len();
    match kind {
        Kind::BitFlip => {
            let at = rng.below(len * 8);
            data[at / 8] ^= 1 << (at % 8);
            format!("flip bit {}:{}", at / 8, at % 8)
        }
        Kind::ByteOverwrite => {
            let at = rng.below(len);
            let n = (1 + rng.below(4)).min(len - at);
            for b in &mut data[at..at + n] {
                *b = rng.next() as u8;
            }
            format!("overwrite {n} byte(s) at {at}")
        }
        Kind::ByteInsert => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            data.splice(at..at, bytes);
            format!("insert {n} byte(s) at {at}")
        }
        Kind::ByteDelete => {
            let at = rng.below(len);
            let n = (1 + rng.below(8)).min(len - at);
            data.drain(at..at + n);
            format!("delete {n} byte(s) at {at}")
        }
        Kind::Truncate => {
            let at = rng.below(len);
            data.truncate(at);
            format!("truncate to {at} bytes")
        }
        Kind::DuplicateChunk => {
            let from = rng.below(len);
            let n = (1 + rng.below(64)).min(len - from);
            let to = rng.below(len + 1);
            let chunk = data[from..from + n].to_vec();
            data.splice(to..to, chunk);
            format!("copy {n} byte(s) from {from} to {to}")
        }
        Kind::SwapChunks => {
            let n = 1 + rng.below(32.min(len / 2).max(1));
            if len < 2 * n {
                data.reverse();
                return "reverse the whole input".into();
            }
            let a = rng.below(len - 2 * n + 1);
            let b = a + n + rng.below(len - a - 2 * n + 1);
            for i in 0..n {
                data.swap(a + i, b + i);
            }
            format!("swap {n} byte(s) at {a} and {b}")
        }
        Kind::ExtremeWord => {
            // 32-bit aligned, like block length words.
            let words = len / 4;
            if words == 0 {
                data[0] = 0xFF;
                return "set byte 0 to 0xff".into();
            }
            let at = 4 * rng.below(words);
            let value: u32 = match rng.below(6) {
                0 => 0,
                1 => u32::MAX,
                2 => 0x7FFF_FFFF,
                3 => 0x8000_0000,
                4 => 1 << rng.below(32),
                _ => rng.next() as u32,
            };
            data[at..at + 4].copy_from_slice(&value.to_le_bytes());
            format!("set word at {at} to {value:#x}")
        }
    }
}

// ---- the calls under test ----

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Call {
    VerifyBytes,
    Parser,
    Stats,
}

/// What one call did, when it returned.
struct Outcome {
    /// `verify_bytes`: the diagnostics' texts. `Parser`: whether it failed.
    diagnostics: Vec<String>,
    parser_error: Option<String>,
}

fn run_call(call: Call, bytes: &[u8]) -> Outcome {
    match call {
        Call::VerifyBytes => {
            let ds = pexe::verify::verify_bytes(bytes);
            Outcome { diagnostics: ds.iter().map(|d| d.to_string()).collect(), parser_error: None }
        }
        Call::Parser => {
            let mut p = pexe::bitstream::Parser::new(bytes);
            let error = loop {
                match p.next_event() {
                    Ok(pexe::bitstream::Event::End) => break None,
                    Ok(_) => {}
                    Err(e) => break Some(format!("{e:?}")),
                }
            };
            Outcome { diagnostics: Vec::new(), parser_error: error }
        }
        Call::Stats => {
            let _ = std::hint::black_box(pexe::stats::Stats::compute(bytes));
            Outcome { diagnostics: Vec::new(), parser_error: None }
        }
    }
}

/// Whether a diagnostic's text starts with `BYTE:BIT:`.
fn names_position(text: &str) -> bool {
    let mut parts = text.splitn(3, ':');
    let (Some(byte), Some(bit), Some(_)) = (parts.next(), parts.next(), parts.next()) else { return false };
    !byte.is_empty() && byte.bytes().all(|b| b.is_ascii_digit()) && matches!(bit.as_bytes(), [b'0'..=b'7'])
}

// ---- panic capture ----

thread_local! {
    /// Set on the mutation worker: its panics are recorded, not printed.
    static CAPTURE: RefCell<Option<String>> = const { RefCell::new(None) };
    static CAPTURING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn install_quiet_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if CAPTURING.with(|c| c.get()) {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            CAPTURE.with(|c| *c.borrow_mut() = Some(format!("{at}: {message}")));
        } else {
            default(info);
        }
    }));
}

// ---- the test ----

/// Corpus files to mutate and how many mutants of each (24,000 in all).
const PLAN: &[(&str, usize)] = &[
    ("cli/binji_pnacl_c/test/res/start.pexe", 5_000),
    ("cli/binji_pnacl_c/test/res/bitcast.pexe", 2_000),
    ("cli/binji_pnacl_c/test/res/main.pexe", 4_000),
    ("cli/binji_pexe_py/tests/simple.pexe", 4_000),
    ("cli/binji_pexe_py/tests/hello_world.pexe", 3_500),
    ("cli/binji_pnacl_c/test/benchmark/res/fasta.pexe", 3_000),
    ("ppapi/cptaffe_pnacl-test/hello_tutorial.pexe", 2_500),
];

const MIN_MUTATIONS: usize = 20_000;

/// One broken promise, with what is needed to reproduce it.
struct Failure {
    file: &'static str,
    mutant: usize,
    how: String,
    call: Call,
    what: String,
    input: Vec<u8>,
}

/// What the watchdog sees of the worker.
#[derive(Default)]
struct Progress {
    /// Milliseconds since the test began when the current call started;
    /// `u64::MAX` between calls.
    call_started_ms: AtomicU64,
    done: AtomicBool,
    current: Mutex<String>,
}

#[derive(Default)]
struct Tally {
    mutants: usize,
    calls: usize,
    by_kind: BTreeMap<Kind, usize>,
    rejected_by_verifier: usize,
    rejected_by_parser: usize,
    slowest: (Duration, String),
    /// Largest peak heap of any call.
    largest_heap: (usize, String),
    /// Largest peak heap / input size, over inputs of at least 4 KiB (for
    /// tiny inputs the ratio says nothing).
    largest_heap_ratio: (f64, String),
}

fn mutate_and_check(progress: &Progress, epoch: Instant) -> (Tally, Vec<Failure>) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");
    let mut rng = Rng(0x5EED_0F_9E5E_2024);
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for &(file, count) in PLAN {
        let original = std::fs::read(format!("{root}/{file}")).unwrap_or_else(|e| panic!("cannot read corpus file {file}: {e}"));
        for mutant in 0..count {
            let mut bytes = original.clone();
            // Mostly one mutation; sometimes a few stacked.
            let rounds = if rng.chance(70) { 1 } else { 2 + rng.below(3) };
            let mut how = Vec::new();
            for _ in 0..rounds {
                let kind = KINDS[rng.below(KINDS.len())];
                *tally.by_kind.entry(kind).or_default() += 1;
                how.push(mutate(&mut bytes, kind, &mut rng));
            }
            let how = how.join(", then ");
            tally.mutants += 1;

            let mut parser_error = None;
            let mut diagnostics = None;
            for call in [Call::Parser, Call::VerifyBytes, Call::Stats] {
                let label = format!("{file} mutant {mutant} ({how}), {call:?}");
                *progress.current.lock().unwrap() = label.clone();
                let mut fail = |what: String| {
                    failures.push(Failure { file, mutant, how: how.clone(), call, what, input: bytes.clone() })
                };
                progress.call_started_ms.store(epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
                let start = Instant::now();
                CAPTURING.with(|c| c.set(true));
                let (result, heap) = measure_heap(|| panic::catch_unwind(AssertUnwindSafe(|| run_call(call, &bytes))));
                CAPTURING.with(|c| c.set(false));
                let took = start.elapsed();
                progress.call_started_ms.store(u64::MAX, Ordering::SeqCst);
                tally.calls += 1;

                if took > tally.slowest.0 {
                    tally.slowest = (took, label.clone());
                }
                if took > CALL_LIMIT {
                    fail(format!("took {took:?}, limit {CALL_LIMIT:?}"));
                }
                if heap > tally.largest_heap.0 {
                    tally.largest_heap = (heap, format!("{} input bytes, {label}", bytes.len()));
                }
                let ratio = heap as f64 / bytes.len().max(1) as f64;
                if bytes.len() >= 4096 && ratio > tally.largest_heap_ratio.0 {
                    tally.largest_heap_ratio = (ratio, format!("{heap} bytes for {label}"));
                }
                match result {
                    Err(_) => {
                        let message = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
                        fail(format!("panicked at {message}"));
                    }
                    Ok(outcome) => {
                        if heap > heap_limit(bytes.len()) {
                            fail(format!("peak heap {heap} bytes, limit {} for {} input bytes", heap_limit(bytes.len()), bytes.len()));
                        }
                        match call {
                            Call::Parser => parser_error = outcome.parser_error,
                            Call::VerifyBytes => diagnostics = Some(outcome.diagnostics),
                            Call::Stats => {}
                        }
                    }
                }
            }

            if parser_error.is_some() {
                tally.rejected_by_parser += 1;
            }
            if let Some(ds) = &diagnostics {
                if !ds.is_empty() {
                    tally.rejected_by_verifier += 1;
                }
                if let Some(e) = &parser_error {
                    let problem = if ds.is_empty() {
                        Some("no diagnostic".to_string())
                    } else if !ds.iter().any(|d| names_position(d)) {
                        Some(format!("no diagnostic names a position: {:?}", ds.iter().take(3).collect::<Vec<_>>()))
                    } else {
                        None
                    };
                    if let Some(problem) = problem {
                        failures.push(Failure {
                            file,
                            mutant,
                            how: how.clone(),
                            call: Call::VerifyBytes,
                            what: format!("the bitstream parser rejects this input ({e}) but verify_bytes gave {problem}"),
                            input: bytes.clone(),
                        });
                    }
                }
            }
        }
    }
    progress.done.store(true, Ordering::SeqCst);
    (tally, failures)
}

/// Groups failures by call and by the first line of what went wrong (a
/// panic's location, say), writes each group's first input to disk, and
/// returns the report.
fn report_failures(failures: &[Failure]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation-failures");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    let mut groups: BTreeMap<(Call, String), Vec<&Failure>> = BTreeMap::new();
    for f in failures {
        // Group panics by location, other failures by their first words.
        let key = if f.what.starts_with("panicked at ") {
            f.what.split(": ").next().unwrap_or(&f.what).to_string()
        } else {
            // "peak heap 67119924 bytes, …" and "peak heap 67306608 bytes, …"
            // are one problem: group on the text without its numbers.
            let mut key = String::new();
            for c in f.what.chars().take(60) {
                if !(c.is_ascii_digit() && key.ends_with('N')) {
                    key.push(if c.is_ascii_digit() { 'N' } else { c });
                }
            }
            key
        };
        groups.entry((f.call, key)).or_default().push(f);
    }
    let mut out = format!("{} failure(s) in {} group(s):\n", failures.len(), groups.len());
    for (i, ((call, _), fs)) in groups.iter().enumerate() {
        let first = fs[0];
        let saved = dir.join(format!("{i:02}-{:?}-{}-{}.pexe", call, first.file.rsplit('/').next().unwrap(), first.mutant));
        let _ = std::fs::write(&saved, &first.input);
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for f in fs {
            *kinds.entry(f.how.split(' ').next().unwrap_or("")).or_default() += 1;
        }
        out += &format!(
            "- {call:?}, {} time(s) (mutation kinds: {kinds:?})\n    first: {} mutant {} ({})\n    {}\n    input saved to {}\n",
            fs.len(),
            first.file,
            first.mutant,
            first.how,
            first.what,
            saved.display()
        );
    }
    out
}

#[test]
fn mutated_corpus_files_never_panic_hang_or_blow_up() {
    let _serial = serial();
    install_quiet_panic_hook();
    let progress = Arc::new(Progress::default());
    progress.call_started_ms.store(u64::MAX, Ordering::SeqCst);
    let epoch = Instant::now();
    let worker = {
        let progress = progress.clone();
        std::thread::Builder::new()
            .name("mutations".into())
            .stack_size(64 << 20)
            .spawn(move || mutate_and_check(&progress, epoch))
            .unwrap()
    };
    // Watchdog: a call that never returns would otherwise hang the test.
    while !progress.done.load(Ordering::SeqCst) && !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(50));
        let started = progress.call_started_ms.load(Ordering::SeqCst);
        if started != u64::MAX {
            let running = Duration::from_millis((epoch.elapsed().as_millis() as u64).saturating_sub(started));
            if running > CALL_LIMIT * 3 {
                let current = progress.current.lock().unwrap().clone();
                panic!("hang: {current} has run for {running:?} (limit {CALL_LIMIT:?})");
            }
        }
    }
    let (tally, failures) = worker.join().expect("the mutation worker itself failed");

    let summary = format!(
        "mutation test: {} mutants ({} mutations by kind: {:?}), {} calls; \
         bitstream parser rejected {}, verify_bytes rejected {}; \
         slowest call {:?} ({}); largest peak heap {} bytes ({}); \
         largest peak heap / input {:.2} ({})",
        tally.mutants,
        tally.by_kind.values().sum::<usize>(),
        tally.by_kind,
        tally.calls,
        tally.rejected_by_parser,
        tally.rejected_by_verifier,
        tally.slowest.0,
        tally.slowest.1,
        tally.largest_heap.0,
        tally.largest_heap.1,
        tally.largest_heap_ratio.0,
        tally.largest_heap_ratio.1,
    );
    eprintln!("{summary}");
    let _ = std::fs::write(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation-summary.txt"), format!("{summary}\n"));

    assert!(tally.mutants >= MIN_MUTATIONS, "only {} mutants, want at least {MIN_MUTATIONS}", tally.mutants);
    // Guards against a vacuous run (say, every mutant landing in padding).
    assert!(tally.rejected_by_parser * 10 >= tally.mutants, "too few mutants were invalid: {summary}");
    if !failures.is_empty() {
        panic!("{}\n{summary}", report_failures(&failures));
    }
}

// ---- crafted inputs ----

/// A BLOCKINFO block that gives one abbreviation to each of `n` distinct
/// block ids, then a block with the last of those ids holding `n` records
/// written with that abbreviation. Lookups of a block's BLOCKINFO
/// abbreviations must not cost time proportional to the number of ids, or
/// this file (344 KB for n = 50,000) takes seconds instead of milliseconds.
fn many_blockinfo_targets(n: u64) -> Vec<u8> {
    use pexe::bitstream::{Abbrev, AbbrevOp, Writer, BLOCKINFO_BLOCK_ID, MODULE_BLOCK_ID, STANDARD_HEADER};
    let mut w = Writer::new(&STANDARD_HEADER);
    w.enter_block(MODULE_BLOCK_ID, 3).unwrap();
    w.enter_block(BLOCKINFO_BLOCK_ID, 2).unwrap();
    for i in 0..n {
        w.record(3, &[1, 100 + i]).unwrap(); // SETBID
        w.define_abbrev(Abbrev::new(vec![AbbrevOp::Literal(1)]).unwrap()).unwrap();
    }
    w.exit_block().unwrap();
    w.enter_block((100 + n - 1) as u32, 3).unwrap();
    for _ in 0..n {
        w.record(4, &[1]).unwrap();
    }
    w.exit_block().unwrap();
    w.exit_block().unwrap();
    w.finish().unwrap()
}

/// `n` empty blocks in a row: every enter looks up BLOCKINFO and every exit
/// pops a frame. BLOCKINFO and value symbol table blocks, which a module
/// may hold any number of, so the decoder reads them all too.
fn many_small_blocks(n: u64) -> Vec<u8> {
    use pexe::bitstream::{Writer, BLOCKINFO_BLOCK_ID, MODULE_BLOCK_ID, STANDARD_HEADER, VALUE_SYMTAB_BLOCK_ID};
    let mut w = Writer::new(&STANDARD_HEADER);
    w.enter_block(MODULE_BLOCK_ID, 2).unwrap();
    for i in 0..n {
        w.enter_block(if i % 2 == 0 { BLOCKINFO_BLOCK_ID } else { VALUE_SYMTAB_BLOCK_ID }, 2).unwrap();
        w.exit_block().unwrap();
    }
    w.exit_block().unwrap();
    w.finish().unwrap()
}

/// Records whose array of literal (zero-width) elements is as long as the
/// cap allows: the cheapest way to make the reader produce many operands
/// (about 400 per input byte). The size keeps this well inside the time
/// limit today (about 0.5 s); raising `MAX_ZERO_WIDTH_ARRAY` or slowing the
/// array path shows up here.
fn long_zero_width_arrays(n: u64) -> Vec<u8> {
    use pexe::bitstream::{Abbrev, AbbrevOp, Writer, MODULE_BLOCK_ID, STANDARD_HEADER};
    let mut w = Writer::new(&STANDARD_HEADER);
    w.enter_block(MODULE_BLOCK_ID, 3).unwrap();
    w.enter_block(30, 3).unwrap();
    w.define_abbrev(Abbrev::new(vec![AbbrevOp::Literal(7), AbbrevOp::Array, AbbrevOp::Literal(0)]).unwrap()).unwrap();
    let max = pexe::limits::MAX_ZERO_WIDTH_ARRAY as usize;
    let mut values = vec![0u64; max + 1];
    values[0] = 7;
    for _ in 0..n {
        w.record(4, &values).unwrap();
    }
    w.exit_block().unwrap();
    w.exit_block().unwrap();
    w.finish().unwrap()
}

#[test]
fn crafted_inputs_stay_within_time_and_memory() {
    let _serial = serial();
    let inputs: [(&str, Vec<u8>); 3] = [
        ("50,000 BLOCKINFO targets", many_blockinfo_targets(50_000)),
        ("200,000 empty blocks", many_small_blocks(200_000)),
        ("50,000 records of 1,024 zero-width operands", long_zero_width_arrays(50_000)),
    ];
    let mut failures = Vec::new();
    for (name, bytes) in &inputs {
        for call in [Call::Parser, Call::VerifyBytes, Call::Stats] {
            let start = Instant::now();
            let (result, heap) = measure_heap(|| panic::catch_unwind(AssertUnwindSafe(|| run_call(call, bytes))));
            let took = start.elapsed();
            eprintln!("{name} ({} bytes), {call:?}: {took:?}, peak heap {heap} bytes", bytes.len());
            if result.is_err() {
                failures.push(format!("{name}, {call:?}: panicked"));
            }
            if took > CALL_LIMIT {
                failures.push(format!("{name} ({} bytes), {call:?}: took {took:?}, limit {CALL_LIMIT:?}", bytes.len()));
            }
            if heap > heap_limit(bytes.len()) {
                failures.push(format!("{name}, {call:?}: peak heap {heap} bytes, limit {}", heap_limit(bytes.len())));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
