//! End to end: `pexe run` on the real command-line pexes of the corpus, and
//! on small pexes built with the assembler that fault in each way a guest
//! can (the host must survive with a clear message).
//!
//! The corpus cases come from the expectation files of an earlier pexe
//! interpreter (`../shared/corpus/cli/binji_pnacl_c/test/**/*.txt`): every
//! file with `# STDOUT:` (expected stdout to EOF) or `# STDOUT_FILE:` runs
//! `pexe run FILE -- ARGS` from that directory, so argv[0] is the path as
//! written there, and must print exactly that, nothing on stderr, and exit
//! 0. Needs Node.js 20+ (`node` on PATH or `$PEXE_NODE`).

use crate::expect::{discover, fault_module, parse_expectation, pnacl_c_tests, shell_split, CASES, CORPUS};
use std::path::Path;
use std::process::{Command, Output};

/// `pexe run <file> -- <args>` in `cwd`.
fn pexe_run(cwd: &Path, file: &str, args: &[String]) -> Output {
    pexe_run_with(cwd, &[], file, args)
}

/// `pexe run <options> <file> -- <args>` in `cwd`.
fn pexe_run_with(cwd: &Path, options: &[&str], file: &str, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pexe"))
        .current_dir(cwd)
        .arg("run")
        .args(options)
        .arg(file)
        .arg("--")
        .args(args)
        .output()
        .expect("cannot start the pexe binary")
}

#[test]
fn every_corpus_case_with_expected_stdout_is_run_here() {
    let base = pnacl_c_tests();
    let mut found = Vec::new();
    discover(&base, &base, &mut found);
    found.sort();
    assert_eq!(
        found, CASES,
        "the expectation files with # STDOUT changed: update CASES"
    );
}

/// Runs case `name` `times` times; each run must match byte for byte.
fn run_case(name: &str, times: usize) {
    run_case_with(&[], name, times);
}

fn run_case_with(options: &[&str], name: &str, times: usize) {
    let base = pnacl_c_tests();
    let text = std::fs::read(base.join(name)).unwrap();
    let exp = parse_expectation(&base, &text).unwrap();
    for round in 0..times {
        let out = pexe_run_with(&base, options, &exp.file, &exp.args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.stdout == exp.stdout,
            "{name} (run {round}): stdout differs\n--- expected\n{}\n--- got\n{}\n--- stderr\n{stderr}",
            String::from_utf8_lossy(&exp.stdout),
            String::from_utf8_lossy(&out.stdout),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name} (run {round}): exit status; stderr:\n{stderr}"
        );
        assert!(
            out.stderr.is_empty(),
            "{name} (run {round}): unexpected stderr:\n{stderr}"
        );
    }
}

#[test]
fn binarytrees() {
    run_case("benchmark/binarytrees.txt", 1);
}

#[test]
fn fannkuchredux() {
    run_case("benchmark/fannkuchredux.txt", 1);
}

#[test]
fn fasta() {
    run_case("benchmark/fasta.txt", 1);
}

#[test]
fn mandelbrot_binary_output() {
    run_case("benchmark/mandelbrot.txt", 1);
}

#[test]
fn meteor() {
    run_case("benchmark/meteor.txt", 1);
}

#[test]
fn nbody() {
    run_case("benchmark/nbody.txt", 1);
}

#[test]
fn spectralnorm() {
    run_case("benchmark/spectralnorm.txt", 1);
}

#[test]
fn printf_argv() {
    run_case("printf/printf-0.txt", 1);
    run_case("printf/printf-1.txt", 1);
    run_case("printf/printf-3.txt", 1);
}

#[test]
fn puts() {
    run_case("puts.txt", 1);
}

#[test]
fn setjmp_longjmp() {
    run_case("setjmp.txt", 1);
}

#[test]
fn pthreads_thread_20_times() {
    run_case("thread.txt", 20);
}

#[test]
fn pthreads_semaphores_20_times() {
    run_case("sem.txt", 20);
}

/// As a browser runs them: baseline code first, so the translation
/// outlines loop nests (`back/wasm/func/outline.rs`) — every pexe of the
/// corpus has some, in its own code or newlib's — and each must still
/// print exactly the same.
#[test]
fn every_case_with_browser_tiering_and_outlined_loops() {
    for name in CASES {
        let file = parse_expectation(&pnacl_c_tests(), &std::fs::read(pnacl_c_tests().join(name)).unwrap()).unwrap().file;
        let wasm = pexe::back::wasm::translate_bytes(&std::fs::read(pnacl_c_tests().join(&file)).unwrap(), &Default::default()).unwrap();
        let wat = pexe::back::wasm::to_wat(&wasm).unwrap();
        assert!(wat.contains("$loop (;"), "{name}: no loop was outlined");
        run_case_with(&["--browser-tiering"], name, 1);
    }
}

#[test]
fn pexe_py_hello_world_and_simple() {
    let dir = Path::new(CORPUS).join("binji_pexe_py/tests");
    let hello = pexe_run(&dir, "hello_world.pexe", &[]);
    assert_eq!(String::from_utf8_lossy(&hello.stderr), "");
    assert_eq!(hello.stdout, b"Hello, World!\n");
    assert_eq!(hello.status.code(), Some(0));
    let simple = pexe_run(&dir, "simple.pexe", &[]);
    assert_eq!(String::from_utf8_lossy(&simple.stderr), "");
    assert_eq!(simple.stdout, b"");
    assert_eq!(simple.status.code(), Some(0));
}

#[test]
fn guest_exit_status_and_errors_of_the_command() {
    let base = pnacl_c_tests();
    // Not a pexe: the translator's error, exit 1, node never runs.
    let bad = pexe_run(&base, "puts.txt", &[]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).starts_with("puts.txt"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    let missing = pexe_run(&base, "no-such.pexe", &[]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no-such.pexe"));
    // --trace shows the IRT calls on stderr, stdout untouched.
    let traced = Command::new(env!("CARGO_BIN_EXE_pexe"))
        .current_dir(&base)
        .args(["run", "--trace", "res/puts.pexe"])
        .output()
        .unwrap();
    assert_eq!(traced.stdout, b"Hello, World!\n\n");
    let trace = String::from_utf8_lossy(&traced.stderr);
    assert!(
        trace.contains("[pexe 0] query(\"nacl-irt-basic-0.1\", "),
        "{trace}"
    );
    assert!(trace.contains("[pexe 0] exit(0) -> exit"), "{trace}");
}

/// The translator marks a module that can never start a thread, and `pexe
/// run` runs it on Node's main thread (no Worker to start); a module that
/// may start threads runs in Workers. Both print the same.
#[test]
fn single_threaded_programs_run_on_the_main_thread() {
    let base = pnacl_c_tests();
    let run = |pexe: &str| {
        Command::new(env!("CARGO_BIN_EXE_pexe"))
            .current_dir(&base)
            .args(["run", "--verbose", pexe])
            .output()
            .unwrap()
    };
    const NOTE: &str = "pexe: single-threaded module: running on the main thread\n";
    let puts = run("res/puts.pexe");
    assert_eq!(String::from_utf8_lossy(&puts.stderr), NOTE);
    assert_eq!(puts.stdout, b"Hello, World!\n\n");
    let thread = run("res/thread.pexe");
    assert!(!String::from_utf8_lossy(&thread.stderr).contains(NOTE));
    assert_eq!(thread.status.code(), Some(0));
}

/// `pexe run` starts Node on the runner build.rs bundled
/// (js/scripts/bundle-runtime.mjs) wherever the build had esbuild, and
/// always in CI; and runs through it work, from a fresh runtime folder: a
/// single-threaded program (on Node's main thread), one with threads
/// (Workers run the raw worker.js beside the bundle) and a Pepper plugin
/// headless (Pepper's code in chunks of its own). A Node that records its
/// arguments ($PEXE_NODE) tells which file it was given.
#[test]
fn pexe_run_starts_the_bundled_runner() {
    let dir = std::env::temp_dir().join(format!("pexe-run-bundle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("node-args");
    let node = dir.join("node.sh");
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexec node \"$@\"\n", log.display());
    std::fs::write(&node, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let cache = dir.join("cache");
    let esbuild = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/node_modules/esbuild/package.json");
    let runner = if esbuild.is_file() || std::env::var("CI").as_deref() == Ok("true") {
        "internal/node/run.bundle.mjs"
    } else {
        "internal/node/run.mjs"
    };
    // `pexe run ARGS` in `cwd` with `stdin`: its output, and the script Node was given.
    let run = |cwd: &Path, args: &[&str], stdin: &str| -> (Output, String) {
        let _ = std::fs::remove_file(&log);
        let mut child = Command::new(env!("CARGO_BIN_EXE_pexe"))
            .current_dir(cwd)
            .env("PEXE_NODE", &node)
            .env("XDG_CACHE_HOME", &cache)
            .arg("run")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("cannot start the pexe binary");
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let node_args = std::fs::read_to_string(&log).unwrap_or_default();
        let script = node_args.lines().find(|a| !a.starts_with("--")).unwrap_or_default().to_string();
        (out, script)
    };
    let started_the_runner = |script: &str, what: &str| {
        let path = Path::new(script);
        assert!(path.starts_with(cache.join("pexe")) && script.ends_with(runner), "{what}: Node was started on {script:?}, not the runtime folder's {runner}");
        assert!(path.is_file(), "{what}: {script} is not there");
    };

    let base = pnacl_c_tests();
    let (puts, script) = run(&base, &["--verbose", "res/puts.pexe"], "");
    started_the_runner(&script, "puts");
    assert_eq!(String::from_utf8_lossy(&puts.stderr), "pexe: single-threaded module: running on the main thread\n");
    assert_eq!(puts.stdout, b"Hello, World!\n\n");

    let thread = parse_expectation(&base, &std::fs::read(base.join("thread.txt")).unwrap()).unwrap();
    let (out, script) = run(&base, &[&thread.file], "");
    started_the_runner(&script, "thread");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&thread.stdout));
    assert_eq!(out.status.code(), Some(0));

    // part2's page posts "hello"; the module answers "hello from NaCl".
    let ppapi = Path::new(CORPUS).join("../ppapi/lpdevs_PNaCl-examples");
    let (out, script) = run(&ppapi, &["--idle-timeout", "500", "part2.pexe"], "hello\n");
    started_the_runner(&script, "part2");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello from NaCl\n", "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pexe run` keeps each module in its translation cache and runs it from
/// there next time: swapping another program's module into the entry
/// shows the cache is what ran. `--no-cache` translates anyway, and an
/// entry that is not a module is translated again and replaced.
#[test]
fn pexe_run_keeps_translations_in_its_cache() {
    let dir = std::env::temp_dir().join(format!("pexe-run-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = dir.join("cache");
    let entries = cache.join("pexe/translations");
    let base = pnacl_c_tests();
    let run = |args: &[&str]| -> Output {
        let out = Command::new(env!("CARGO_BIN_EXE_pexe"))
            .current_dir(&base)
            .env("XDG_CACHE_HOME", &cache)
            .arg("run")
            .args(args)
            .output()
            .expect("cannot start the pexe binary");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "pexe run {args:?}");
        assert_eq!(out.status.code(), Some(0), "pexe run {args:?}");
        out
    };
    let modules = || -> Vec<std::path::PathBuf> {
        let mut m: Vec<_> = std::fs::read_dir(&entries).unwrap().map(|e| e.unwrap().path()).collect();
        m.sort();
        m
    };

    assert_eq!(run(&["res/puts.pexe"]).stdout, b"Hello, World!\n\n");
    let [entry] = &modules()[..] else { panic!("one module expected in {}: {:?}", entries.display(), modules()) };
    let puts_module = std::fs::read(entry).unwrap();
    assert!(puts_module.starts_with(b"\0asm"));

    // fannkuchredux's module under puts' key: puts now runs fannkuchredux.
    let fannkuch = run(&["benchmark/res/fannkuchredux.pexe", "--", "7"]).stdout;
    assert_eq!(modules().len(), 2);
    let fannkuch_module = modules().into_iter().find(|m| m != entry).unwrap();
    std::fs::copy(&fannkuch_module, entry).unwrap();
    assert_eq!(run(&["res/puts.pexe", "--", "7"]).stdout, fannkuch);
    // Without the cache: puts itself, and the entry is left as it was.
    assert_eq!(run(&["--no-cache", "res/puts.pexe", "--", "7"]).stdout, b"Hello, World!\n\n");
    assert_eq!(std::fs::read(entry).unwrap(), std::fs::read(&fannkuch_module).unwrap());

    // Not a module: translated again, and the entry is puts' module again.
    std::fs::write(entry, b"not a module").unwrap();
    assert_eq!(run(&["res/puts.pexe"]).stdout, b"Hello, World!\n\n");
    assert_eq!(std::fs::read(entry).unwrap(), puts_module);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The page's stdout benchmark (tests/browser/bench.mjs) times
/// tests/browser/output/lines.records: it must assemble, verify and print
/// its 163840 lines of 61 bytes.
#[test]
fn the_stdout_benchmark_program_prints_its_lines() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/output/lines.records");
    let text = std::fs::read_to_string(path).expect("tests/browser/output/lines.records");
    let bytes = pexe::asm::assemble(&text).unwrap_or_else(|e| panic!("lines.records: {e}"));
    assert!(pexe::verify::verify_bytes(&bytes).is_empty());
    let dir = std::env::temp_dir().join(format!("pexe-run-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lines.pexe"), &bytes).unwrap();
    let out = pexe_run(&dir, "lines.pexe", &[]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let line = format!("{}\n", "ACGT".repeat(15));
    assert_eq!(out.stdout.len(), 163_840 * line.len());
    assert!(out.stdout.chunks(line.len()).all(|l| l == line.as_bytes()));
}

// ---------------------------------------------------------------------------
// Guest faults, with pexes built by the assembler.

/// Assembles, runs, and checks the fault message and status 134.
fn expect_fault(name: &str, consts: &[i64], body: &[&str], message: &str) {
    let text = fault_module(name, consts, body);
    let bytes = pexe::asm::assemble(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    let diagnostics = pexe::verify::verify_bytes(&bytes);
    assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
    let dir = std::env::temp_dir().join(format!("pexe-run-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("{name}.pexe");
    std::fs::write(dir.join(&file), &bytes).unwrap();
    let out = pexe_run(&dir, &file, &[]);
    let _ = std::fs::remove_file(dir.join(&file));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(134), "{name}: stderr:\n{stderr}");
    assert_eq!(
        stderr,
        format!("pexe: guest fault: {message} in function {name}\n")
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn fault_out_of_bounds_load() {
    // %v0 = load i32, i32* -16, align 1; ret %v0
    expect_fault(
        "load_oob",
        &[-16],
        &["20,1,1,0;", "10,1;"],
        "memory access out of bounds",
    );
}

#[test]
fn fault_bad_indirect_call() {
    // %v0 = call i32 %p0(i32 %p0): %p0 is the startinfo address, far past the table.
    expect_fault(
        "call_bad",
        &[],
        &["44,0,1,0,1;", "10,1;"],
        "table index is out of bounds",
    );
}

#[test]
fn fault_unreachable() {
    expect_fault("hit_unreachable", &[], &["15;"], "unreachable");
}

#[test]
fn fault_integer_divide_by_zero() {
    // %v0 = sub %p0, %p0; %v1 = sdiv 1, %v0; ret %v1
    expect_fault(
        "divide",
        &[1],
        &["2,2,2,1;", "2,2,1,4;", "10,1;"],
        "divide by zero",
    );
}

#[test]
fn fault_alloca_stack_overflow() {
    // %v0 = alloca i8, i32 (8 MiB + 1): more than the whole main stack.
    expect_fault(
        "alloca_big",
        &[0x80_0001],
        &["19,1,1;", "10,1;"],
        "stack overflow (alloca below the stack limit)",
    );
}

#[test]
fn fault_deep_recursion() {
    // %v0 = call i32 @f1(i32 %p0); ret %v0 — forever.
    expect_fault(
        "recurse",
        &[],
        &["34,0,2,1;", "10,1;"],
        "call stack exhausted (Maximum call stack size exceeded)",
    );
}

#[test]
fn fault_longjmp_without_setjmp() {
    // _start(i32 %p0) calls llvm.nacl.longjmp(%p0, 1): no frame has a live
    // setjmp, so the exception reaches the runtime. Wasm exceptions carry
    // no stack: the message names no function.
    let text = "
        65535,8,2; 1,1;
        65535,17,2; 1,4; 7,32; 2; 21,0,1,0; 21,0,1,0,0; 65534;
        8,2,0,0,0;
        8,3,0,1,0;
        65535,19,2; 5,0; 65534;
        65535,14,2;
          1,0,95,115,116,97,114,116;
          1,1,108,108,118,109,46,110,97,99,108,46,108,111,110,103,106,109,112;
        65534;
        65535,12,2; 1,1;
          65535,11,2; 1,0; 4,2; 65534;
          34,0,3,2,1;
          10;
        65534;
        65534;";
    let bytes = pexe::asm::assemble(text).unwrap();
    assert!(pexe::verify::verify_bytes(&bytes).is_empty());
    let dir = std::env::temp_dir().join(format!("pexe-run-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("longjmp.pexe"), &bytes).unwrap();
    let out = pexe_run(&dir, "longjmp.pexe", &[]);
    let _ = std::fs::remove_file(dir.join("longjmp.pexe"));
    assert_eq!(out.status.code(), Some(134));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pexe: guest fault: longjmp to a jmp_buf with no live setjmp\n"
    );
}

#[test]
fn shell_split_handles_quotes() {
    assert_eq!(shell_split("one two  three"), ["one", "two", "three"]);
    assert_eq!(
        shell_split(r#"-S -c "print 'x'""#),
        ["-S", "-c", "print 'x'"]
    );
    assert_eq!(shell_split(r#"a "" b"#), ["a", "", "b"]);
    assert!(shell_split("").is_empty());
}
