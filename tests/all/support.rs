//! What the test modules share: the corpus (read once per run), which of
//! its files are invalid, and running a check over every file on all cores.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The corpus README promises 41 pexes; fewer means a broken checkout.
pub const MIN_CORPUS_FILES: usize = 41;

/// Regressions that must be rejected, relative to the corpus root.
pub const INVALID: [&str; 5] = [
    "cli/binji_pnacl_c/test/regression/1.pexe",
    "cli/binji_pnacl_c/test/regression/2.pexe",
    "cli/binji_pnacl_c/test/regression/4.pexe",
    "cli/binji_pnacl_c/test/regression/5.pexe",
    "cli/binji_pnacl_c/test/regression/6.pexe",
];

/// The one mutated regression that is still a valid pexe.
pub const VALID_REGRESSION: &str = "cli/binji_pnacl_c/test/regression/3.pexe";

pub fn corpus_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"))
}

/// Every `*.pexe` under the corpus root, as (path relative to the root,
/// bytes), sorted by path so failures are reported in a stable order. Read
/// from disk once per test run.
pub fn corpus() -> &'static [(String, Vec<u8>)] {
    static FILES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FILES.get_or_init(read_corpus)
}

fn read_corpus() -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "pexe") {
                out.push(path);
            }
        }
    }
    let root = corpus_root();
    assert!(
        root.is_dir(),
        "corpus not found at {} (the shared folder must sit beside the repository)",
        root.display()
    );
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    let files: Vec<_> = paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"));
            (rel, bytes)
        })
        .collect();
    assert!(
        files.len() >= MIN_CORPUS_FILES,
        "found {} pexes under {}, expected at least {MIN_CORPUS_FILES}",
        files.len(),
        root.display()
    );
    files
}

/// The corpus files that are valid PNaCl.
pub fn valid_corpus() -> impl Iterator<Item = &'static (String, Vec<u8>)> {
    corpus().iter().filter(|(rel, _)| !is_invalid(rel))
}

pub fn is_invalid(rel: &str) -> bool {
    INVALID.contains(&rel)
}

/// Runs `check` on every file, split over the available cores, and returns
/// the failures in corpus order.
pub fn for_each_file<F>(files: &[(String, Vec<u8>)], check: F) -> Vec<String>
where
    F: Fn(&str, &[u8]) -> Result<(), String> + Sync,
{
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(files.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut failures = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((rel, bytes)) = files.get(i) else { break };
                        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(rel, bytes)));
                        match outcome {
                            Ok(Ok(())) => {}
                            Ok(Err(msg)) => failures.push((i, format!("{rel}: {msg}"))),
                            Err(p) => failures.push((i, format!("{rel}: panicked: {}", panic_text(&p)))),
                        }
                    }
                    failures
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker thread")).collect()
    });
    results.sort();
    results.into_iter().map(|(_, m)| m).collect()
}

pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic payload)".into())
}

pub fn report(what: &str, failures: &[String]) {
    if !failures.is_empty() {
        panic!("{what}: {} file(s) failed:\n  {}", failures.len(), failures.join("\n  "));
    }
}

/// A reproducible stream of chunk sizes seeded from `seed`: mostly small
/// (they split items), sometimes large.
pub fn random_chunks(seed: &str) -> impl FnMut() -> usize {
    let mut state = seed.bytes().fold(0x9E37_79B9_7F4A_7C15u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01B3)) | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        match state % 8 {
            0 => 1 + (state >> 8) as usize % 65_536,
            _ => 1 + (state >> 8) as usize % 64,
        }
    }
}
