//! The `pexe` binary, run as a user runs it.
//!
//! Two kinds of tests:
//!
//! - **Directive files**, wasm-tools style: each `tests/cli/NAME.run` holds a
//!   `# RUN: <arguments>` line (and `# EXIT: <code>` when it is not 0). The
//!   binary runs in the shared corpus directory, so arguments name corpus
//!   files by relative path and outputs do not depend on where the checkout
//!   is. Its standard output must equal `NAME.stdout` and its standard error
//!   `NAME.stderr` (a missing file means "empty"). Only outputs that are
//!   stable are kept this way. `BLESS=1 cargo test --test all cli::` rewrites the
//!   expectations; review the diff.
//! - **Contract tests** below, for outputs that other stages still change
//!   (verifier messages, listings): exit codes, the `FILE:BYTE:BIT: error:`
//!   shape of diagnostics, totals that must add up, round trips.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_pexe");

const HELLO: &str = "cli/binji_pexe_py/tests/hello_world.pexe";
const SIMPLE: &str = "cli/binji_pexe_py/tests/simple.pexe";
const START: &str = "cli/binji_pnacl_c/test/res/start.pexe";
/// A fuzzed copy of start.pexe the verifier must reject.
const INVALID: &str = "cli/binji_pnacl_c/test/regression/2.pexe";

fn corpus_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"))
}

/// Runs `pexe args...` in the corpus directory.
fn pexe(args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(corpus_dir()).stdin(Stdio::null()).output().expect("run pexe")
}

/// Runs `pexe args...` with `input` on standard input.
fn pexe_with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(corpus_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pexe");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn describe(out: &Output) -> String {
    format!("exit {:?}\n--- stdout\n{}\n--- stderr\n{}", out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// A scratch path for files a test writes.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

// ---------------------------------------------------------------------------
// Directive files

struct Case {
    name: String,
    args: Vec<String>,
    exit: i32,
}

fn parse_case(path: &Path) -> Case {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let body = std::fs::read_to_string(path).unwrap();
    let mut args = None;
    let mut exit = 0;
    for line in body.lines() {
        if let Some(rest) = line.strip_prefix("# RUN:") {
            args = Some(rest.split_whitespace().map(str::to_string).collect());
        } else if let Some(rest) = line.strip_prefix("# EXIT:") {
            exit = rest.trim().parse().unwrap_or_else(|_| panic!("{name}: bad EXIT line"));
        }
    }
    Case { name: name.clone(), args: args.unwrap_or_else(|| panic!("{name}: no `# RUN:` line")), exit }
}

/// Compares `actual` with the file `path` (missing = empty); rewrites it
/// under BLESS. Returns a description of the difference.
fn check_expectation(path: &Path, actual: &str, bless: bool) -> Option<String> {
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    if bless {
        if actual.is_empty() {
            let _ = std::fs::remove_file(path);
        } else {
            std::fs::write(path, actual).unwrap();
        }
        return None;
    }
    let mut diff = format!("{} differs (BLESS=1 to accept):\n", path.display());
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    for i in 0..e.len().max(a.len()) {
        match (e.get(i), a.get(i)) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                if let Some(x) = x {
                    diff += &format!("  {:>4} - {x}\n", i + 1);
                }
                if let Some(y) = y {
                    diff += &format!("  {:>4} + {y}\n", i + 1);
                }
            }
        }
    }
    Some(diff)
}

#[test]
fn directive_files() {
    let bless = std::env::var_os("BLESS").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "run"))
        .collect();
    runs.sort();
    assert!(runs.len() >= 5, "tests/cli holds too few .run files: {runs:?}");
    let mut failures = Vec::new();
    for run in &runs {
        let case = parse_case(run);
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let out = pexe(&args);
        if out.status.code() != Some(case.exit) {
            failures.push(format!("{}: expected exit {}, got {}", case.name, case.exit, describe(&out)));
            continue;
        }
        for (ext, actual) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let path = dir.join(format!("{}.{ext}", case.name));
            if let Some(d) = check_expectation(&path, &text(actual), bless) {
                failures.push(format!("{}: {d}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// verify

/// `FILE:BYTE:BIT: error: message`, BIT in 0..8.
fn diagnostic_line(file: &str) -> Regex {
    Regex::new(&format!(r"^{}:\d+:[0-7]: error: \S.*$", regex::escape(file))).unwrap()
}

#[test]
fn verify_accepts_valid_files_silently() {
    let out = pexe(&["verify", HELLO, SIMPLE, START]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(out.stdout.is_empty(), "{}", describe(&out));
}

#[test]
fn verify_rejects_a_fuzzed_file_with_positioned_diagnostics() {
    let out = pexe(&["verify", INVALID]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let line = diagnostic_line(INVALID);
    assert!(!stdout.is_empty());
    for l in stdout.lines() {
        assert!(line.is_match(l), "not a FILE:BYTE:BIT: error: line: {l:?}");
        // The position lies inside the file.
        let byte: u64 = l[INVALID.len() + 1..].split(':').next().unwrap().parse().unwrap();
        assert!(byte <= std::fs::metadata(corpus_dir().join(INVALID)).unwrap().len());
    }
}

#[test]
fn verify_reports_only_the_invalid_file_of_several() {
    let out = pexe(&["verify", HELLO, INVALID, START]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.lines().all(|l| l.starts_with(&format!("{INVALID}:"))), "{stdout}");
}

#[test]
fn verify_quiet_prints_nothing() {
    let bad = pexe(&["verify", "-q", HELLO, INVALID]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty() && bad.stderr.is_empty(), "{}", describe(&bad));
    let good = pexe(&["verify", "--quiet", HELLO]);
    assert_eq!(good.status.code(), Some(0));
    assert!(good.stdout.is_empty());
}

#[test]
fn verify_names_an_unreadable_file() {
    let out = pexe(&["verify", "no/such/file.pexe", HELLO]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("no/such/file.pexe: error: "), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

#[test]
fn verify_reads_standard_input() {
    let bytes = std::fs::read(corpus_dir().join(INVALID)).unwrap();
    let out = pexe_with_stdin(&["verify", "-"], &bytes);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.lines().all(|l| diagnostic_line("<stdin>").is_match(l)), "{stdout}");
    let good = pexe_with_stdin(&["verify", "-"], &std::fs::read(corpus_dir().join(HELLO)).unwrap());
    assert_eq!(good.status.code(), Some(0), "{}", describe(&good));
}

// ---------------------------------------------------------------------------
// stats

/// The rows of the "Blocks" table: (id, name, count, bits, own bits, records).
fn block_rows(report: &str) -> Vec<(u32, String, u64, u64, u64, u64)> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("Blocks"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 10, "{l}");
            (f[0].parse().unwrap(), f[1].to_string(), f[2].parse().unwrap(), f[3].parse().unwrap(), f[5].parse().unwrap(), f[7].parse().unwrap())
        })
        .collect()
}

/// Counts what the statistics must agree with, straight from the parser.
fn count_events(path: &str) -> (u64, u64) {
    use pexe::bitstream::{Event, Parser, FUNCTION_BLOCK_ID};
    let bytes = std::fs::read(corpus_dir().join(path)).unwrap();
    let mut p = Parser::new(&bytes);
    let (mut function_blocks, mut records) = (0, 0);
    loop {
        match p.next_event().unwrap() {
            Event::EnterBlock { block_id: FUNCTION_BLOCK_ID, .. } => function_blocks += 1,
            Event::Record { .. } => records += 1,
            Event::End => return (function_blocks, records),
            _ => {}
        }
    }
}

#[test]
fn stats_totals_add_up() {
    let first = Regex::new(r"^file: (\d+) bytes, (\d+) bits \(header (\d+) bits, bitstream (\d+) bits\), (\d+) function blocks$").unwrap();
    for path in [HELLO, SIMPLE, START] {
        let out = pexe(&["stats", "--functions", "100000", path]);
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let report = text(&out.stdout);
        let caps = first.captures(report.lines().next().unwrap()).expect("summary line");
        let n = |i: usize| caps[i].parse::<u64>().unwrap();
        let (file_bits, header_bits, bitstream_bits, functions) = (n(2), n(3), n(4), n(5));
        assert_eq!(n(1), std::fs::metadata(corpus_dir().join(path)).unwrap().len());
        assert_eq!(file_bits, header_bits + bitstream_bits);

        let rows = block_rows(&report);
        let module = rows.iter().find(|r| r.1 == "module").expect("module row");
        assert_eq!(module.3, bitstream_bits, "{path}: the module block is the whole bitstream");
        let own: u64 = rows.iter().map(|r| r.4).sum();
        assert!(own <= file_bits, "{path}: own bits {own} > file bits {file_bits}");
        assert_eq!(own, bitstream_bits, "{path}: own bits partition the bitstream");

        let (function_blocks, records) = count_events(path);
        assert_eq!(functions, function_blocks, "{path}: function blocks");
        assert_eq!(rows.iter().map(|r| r.5).sum::<u64>(), records, "{path}: records");
        let function_row = rows.iter().find(|r| r.1 == "function").map_or(0, |r| r.2);
        assert_eq!(function_row, function_blocks);

        // One row per function block (all shown with a large --functions).
        let table: Vec<&str> = report.lines().skip_while(|l| !l.starts_with("Largest functions")).collect();
        assert_eq!(table[0], format!("Largest functions ({functions} of {functions}):"));
        assert_eq!(table.len() as u64 - 2, function_blocks, "{path}");
        let bits: Vec<u64> = table[2..].iter().map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap()).collect();
        assert!(bits.windows(2).all(|w| w[0] >= w[1]), "largest first");
        assert_eq!(bits.iter().sum::<u64>(), rows.iter().find(|r| r.1 == "function").map_or(0, |r| r.3));
    }
}

#[test]
fn stats_reports_a_bitstream_error_after_the_partial_tables() {
    let path = "cli/binji_pnacl_c/test/regression/4.pexe";
    let out = pexe(&["stats", path]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(text(&out.stdout).contains("Largest functions (1 of 1):"));
    let stderr = text(&out.stderr);
    assert!(diagnostic_line(path).is_match(stderr.trim_end()), "{stderr}");
}

// ---------------------------------------------------------------------------
// dis and as

#[test]
fn dis_prints_a_listing_and_writes_it_with_o() {
    let out = pexe(&["dis", START]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!out.stdout.is_empty());
    let file = scratch("start.dis");
    let _ = std::fs::remove_file(&file);
    let to_file = pexe(&["dis", START, "-o", file.to_str().unwrap()]);
    assert_eq!(to_file.status.code(), Some(0), "{}", describe(&to_file));
    assert!(to_file.stdout.is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), out.stdout);
}

#[test]
fn dis_of_an_invalid_file_prints_the_partial_listing_then_the_error() {
    let out = pexe(&["dis", INVALID]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(!out.stdout.is_empty(), "the listing up to the error");
    let stderr = text(&out.stderr);
    assert!(stderr.lines().any(|l| diagnostic_line(INVALID).is_match(l)), "{stderr}");
}

#[test]
fn as_and_dis_round_trip_through_files() {
    for path in [START, HELLO] {
        let stem = Path::new(path).file_stem().unwrap().to_str().unwrap().to_string();
        let listing = scratch(&format!("{stem}.rec"));
        let rebuilt = scratch(&format!("{stem}.pexe"));
        let _ = std::fs::remove_file(&rebuilt);
        let dis = pexe(&["dis", "--records", path, "-o", listing.to_str().unwrap()]);
        assert_eq!(dis.status.code(), Some(0), "{}", describe(&dis));
        let asm = pexe(&["as", listing.to_str().unwrap(), "-o", rebuilt.to_str().unwrap()]);
        assert_eq!(asm.status.code(), Some(0), "{}", describe(&asm));
        let original = std::fs::read(corpus_dir().join(path)).unwrap();
        assert!(std::fs::read(&rebuilt).unwrap() == original, "{path}: as(dis --records) differs from the original");

        // The full listing (records and PNaClAsm) reads back too, from stdin.
        let full = pexe(&["dis", path]);
        let again = scratch(&format!("{stem}-full.pexe"));
        let asm = pexe_with_stdin(&["as", "-", "-o", again.to_str().unwrap()], &full.stdout);
        assert_eq!(asm.status.code(), Some(0), "{}", describe(&asm));
        assert!(std::fs::read(&again).unwrap() == original, "{path}: as(dis) differs from the original");
    }
}

#[test]
fn as_names_the_line_at_fault_and_writes_nothing() {
    let input = scratch("bad.rec");
    std::fs::write(&input, "<65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0>\nthis is not a record\n").unwrap();
    let output = scratch("bad.pexe");
    let _ = std::fs::remove_file(&output);
    let out = pexe(&["as", input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stderr = text(&out.stderr);
    let line = Regex::new(&format!(r"^{}:\d+: error: \S", regex::escape(input.to_str().unwrap()))).unwrap();
    assert!(line.is_match(&stderr), "{stderr}");
    assert!(!output.exists());
}

// ---------------------------------------------------------------------------
// help and version

#[test]
fn help_gives_examples_for_every_command() {
    let top = pexe(&["--help"]);
    assert_eq!(top.status.code(), Some(0));
    let top = text(&top.stdout);
    for command in ["verify", "dis", "as", "stats"] {
        assert!(top.contains(&format!("\n  {command} ")), "top-level help lists {command}:\n{top}");
        let out = pexe(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let help = text(&out.stdout);
        assert!(help.contains("Examples:"), "{command} --help has no examples:\n{help}");
        assert!(help.contains(&format!("pexe {command} ")), "{command} --help shows no command line:\n{help}");
    }
    assert!(top.contains("Examples:"));
}

#[test]
fn version_and_usage_errors() {
    let out = pexe(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim(), format!("pexe {}", env!("CARGO_PKG_VERSION")));
    // clap's usage errors exit with 2, apart from rejected input (1).
    assert_eq!(pexe(&[]).status.code(), Some(2));
    assert_eq!(pexe(&["verify"]).status.code(), Some(2));
    assert_eq!(pexe(&["dis", "--records", "--asm", START]).status.code(), Some(2));
}
