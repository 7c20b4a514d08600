//! The native path end to end: `pexe build` for x86-64 (run here) and
//! AArch64 (run under `qemu-aarch64-static`) on the corpus programs with an
//! expected output (the same cases as `tests/all/run.rs`), every corpus pexe to
//! objects `readelf` accepts, one test per guest fault kind, and crafted
//! pexes that try to reach host memory.
//!
//! Needs `cc`, `aarch64-linux-gnu-gcc`, `qemu-aarch64-static` and `readelf`
//! (scripts/setup.sh installs them). Without them a test says what is
//! missing and passes — except under CI (`CI=true`), where it fails.

use crate::expect::{self as common, fault_module, parse_expectation, pnacl_c_tests, rot, CORPUS};
use pexe::back::native::{translate_bytes, Options, Target};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PEXE: &str = env!("CARGO_BIN_EXE_pexe");

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Whether `cmd --version` runs.
fn have(cmd: &str) -> bool {
    Command::new(cmd).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Whether everything `target` needs is installed (a failure under CI).
fn ready(target: Target) -> bool {
    let mut missing = Vec::new();
    match target {
        Target::X86_64Linux => {
            if Target::host() != Some(Target::X86_64Linux) {
                missing.push("an x86-64 Linux machine");
            }
            if !have("cc") {
                missing.push("cc");
            }
        }
        Target::Aarch64Linux => {
            if !have("aarch64-linux-gnu-gcc") {
                missing.push("aarch64-linux-gnu-gcc (Debian gcc-aarch64-linux-gnu)");
            }
            if Target::host() != Some(Target::Aarch64Linux) && !have("qemu-aarch64-static") {
                missing.push("qemu-aarch64-static (Debian qemu-user-static)");
            }
        }
    }
    if missing.is_empty() {
        return true;
    }
    let message = format!("{target}: missing {}", missing.join(", "));
    assert!(!under_ci(), "{message} (scripts/setup.sh installs them)");
    eprintln!("skipped: {message}");
    false
}

/// A fresh directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("native").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `pexe build --target T pexe -o out` (must succeed).
fn build(target: Target, pexe: &Path, out: &Path) {
    let o = Command::new(PEXE)
        .args(["build", "--target", target.name()])
        .arg(pexe)
        .arg("-o")
        .arg(out)
        .output()
        .expect("cannot start pexe");
    assert!(
        o.status.success(),
        "pexe build --target {target} {} failed:\n{}",
        pexe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `exe` in `cwd` as `argv0 args…` (through QEMU for the other
/// architecture), with `env` as its whole environment.
fn run(target: Target, exe: &Path, cwd: &Path, argv0: &str, args: &[String], env: &[(&str, &str)]) -> Output {
    let mut cmd = if Target::host() == Some(target) {
        let mut c = Command::new(exe);
        std::os::unix::process::CommandExt::arg0(&mut c, argv0);
        c
    } else {
        let mut c = Command::new("qemu-aarch64-static");
        c.arg("-0").arg(argv0).arg(exe);
        c
    };
    cmd.current_dir(cwd).args(args).env_clear();
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("cannot start the executable")
}

/// Builds corpus case `name` for `target` and runs it `times` times; each
/// run must print exactly the expected stdout, nothing on stderr, exit 0.
fn corpus_case(target: Target, name: &str, times: usize) {
    if !ready(target) {
        return;
    }
    let base = pnacl_c_tests();
    let exp = parse_expectation(&base, &std::fs::read(base.join(name)).unwrap()).unwrap();
    let dir = scratch(&format!("{}-{}", target.name(), name.replace('/', "-")));
    let exe = dir.join("app");
    build(target, &base.join(&exp.file), &exe);
    for round in 0..times {
        let out = run(target, &exe, &base, &exp.file, &exp.args, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.stdout == exp.stdout,
            "{name} on {target} (run {round}): stdout differs\n--- expected\n{}\n--- got\n{}\n--- stderr\n{stderr}",
            String::from_utf8_lossy(&exp.stdout),
            String::from_utf8_lossy(&out.stdout),
        );
        assert_eq!(out.status.code(), Some(0), "{name} on {target} (run {round}): exit status; stderr:\n{stderr}");
        assert!(out.stderr.is_empty(), "{name} on {target} (run {round}): unexpected stderr:\n{stderr}");
    }
}

macro_rules! corpus_tests {
    ($($x86:ident, $arm:ident: $case:expr, $times:expr;)*) => {
        $(
            #[test]
            fn $x86() {
                corpus_case(Target::X86_64Linux, $case, $times);
            }
            #[test]
            fn $arm() {
                corpus_case(Target::Aarch64Linux, $case, $times);
            }
        )*
        /// The cases above are exactly the corpus's (tests/all/run.rs checks
        /// that list against the expectation files).
        #[test]
        fn every_case_with_expected_stdout_runs_natively() {
            let mut here = vec![$($case),*];
            here.sort_unstable();
            assert_eq!(here, common::CASES);
        }
    };
}

corpus_tests! {
    binarytrees_x86_64, binarytrees_aarch64: "benchmark/binarytrees.txt", 1;
    fannkuchredux_x86_64, fannkuchredux_aarch64: "benchmark/fannkuchredux.txt", 1;
    fasta_x86_64, fasta_aarch64: "benchmark/fasta.txt", 1;
    mandelbrot_binary_output_x86_64, mandelbrot_binary_output_aarch64: "benchmark/mandelbrot.txt", 1;
    meteor_x86_64, meteor_aarch64: "benchmark/meteor.txt", 1;
    nbody_x86_64, nbody_aarch64: "benchmark/nbody.txt", 1;
    spectralnorm_x86_64, spectralnorm_aarch64: "benchmark/spectralnorm.txt", 1;
    printf_0_x86_64, printf_0_aarch64: "printf/printf-0.txt", 1;
    printf_1_x86_64, printf_1_aarch64: "printf/printf-1.txt", 1;
    printf_3_x86_64, printf_3_aarch64: "printf/printf-3.txt", 1;
    puts_x86_64, puts_aarch64: "puts.txt", 1;
    pthreads_semaphores_20_times_x86_64, pthreads_semaphores_20_times_aarch64: "sem.txt", 20;
    setjmp_longjmp_x86_64, setjmp_longjmp_aarch64: "setjmp.txt", 1;
    pthreads_thread_20_times_x86_64, pthreads_thread_20_times_aarch64: "thread.txt", 20;
}

fn pexe_py(target: Target) {
    if !ready(target) {
        return;
    }
    let dir = Path::new(CORPUS).join("binji_pexe_py/tests");
    let out = scratch(&format!("pexe-py-{}", target.name()));
    for (file, stdout) in [("hello_world.pexe", &b"Hello, World!\n"[..]), ("simple.pexe", b"")] {
        let exe = out.join(file);
        build(target, &dir.join(file), &exe);
        let o = run(target, &exe, &dir, file, &[], &[]);
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{file} on {target}");
        assert_eq!(o.stdout, stdout, "{file} on {target}");
        assert_eq!(o.status.code(), Some(0), "{file} on {target}");
    }
}

#[test]
fn pexe_py_hello_world_and_simple_x86_64() {
    pexe_py(Target::X86_64Linux);
}

#[test]
fn pexe_py_hello_world_and_simple_aarch64() {
    pexe_py(Target::Aarch64Linux);
}

// ---------------------------------------------------------------------------
// Every corpus pexe becomes an object readelf accepts.

/// Every pexe under the corpus that the verifier accepts.
fn valid_corpus_pexes() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "pexe") {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    walk(&Path::new(CORPUS).join(".."), &mut all);
    all.into_iter().filter(|p| pexe::verify::verify_bytes(&std::fs::read(p).unwrap()).is_empty()).collect()
}

fn objects_readelf_accepts(target: Target) {
    if !have("readelf") {
        assert!(!under_ci(), "readelf is missing (Debian binutils)");
        eprintln!("skipped: readelf is missing");
        return;
    }
    let pexes = valid_corpus_pexes();
    assert!(pexes.len() >= 35, "only {} valid corpus pexes found", pexes.len());
    let dir = scratch(&format!("objects-{}", target.name()));
    let machine = match target {
        Target::X86_64Linux => "Advanced Micro Devices X86-64",
        Target::Aarch64Linux => "AArch64",
    };
    let mut pepper = 0;
    for (i, p) in pexes.iter().enumerate() {
        let obj = translate_bytes(&std::fs::read(p).unwrap(), &Options { target, threads: 0, verify: true, ..Options::default() })
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        pepper += usize::from(pexe::back::native::object_is_pepper_plugin(&obj));
        let file = dir.join(format!("{i}.o"));
        std::fs::write(&file, &obj).unwrap();
        let o = Command::new("readelf").args(["-h", "-S", "-s", "-W"]).arg(&file).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && stderr.is_empty(), "{}: readelf: {stderr}", p.display());
        assert!(stdout.contains("REL (Relocatable file)"), "{}: not a relocatable object", p.display());
        assert!(stdout.contains(machine), "{}: not for {target}", p.display());
        assert!(stdout.contains(" __pexe_module"), "{}: no descriptor symbol", p.display());
        assert!(stdout.contains(" _start"), "{}: no _start symbol", p.display());
    }
    // The 17 Pepper apps are in there, and were recognised as plugins.
    assert!(pepper >= 17, "{pepper} Pepper plugins among the corpus objects");
}

#[test]
fn every_corpus_pexe_translates_to_an_x86_64_object() {
    objects_readelf_accepts(Target::X86_64Linux);
}

#[test]
fn every_corpus_pexe_translates_to_an_aarch64_object() {
    objects_readelf_accepts(Target::Aarch64Linux);
}

#[test]
fn objects_are_the_same_for_any_number_of_threads() {
    let biggest = ["kichikuou_kichikuou_github_io/xsystem35.pexe", "binji_pnacl_c/test/benchmark/res/meteor.pexe"];
    for (rel, dir) in [(biggest[0], "../ppapi"), (biggest[1], ".")] {
        let bytes = std::fs::read(Path::new(CORPUS).join(dir).join(rel)).unwrap();
        for target in Target::ALL {
            let one = translate_bytes(&bytes, &Options { target, threads: 1, verify: false, ..Options::default() }).unwrap();
            let two = translate_bytes(&bytes, &Options { target, threads: 2, verify: false, ..Options::default() }).unwrap();
            let four = translate_bytes(&bytes, &Options { target, threads: 4, verify: false, ..Options::default() }).unwrap();
            assert!(one == two && two == four, "{rel} for {target}: output depends on the thread count");
        }
    }
}

#[test]
fn invalid_pexes_and_bad_targets_are_refused() {
    let regression = pnacl_c_tests().join("regression/1.pexe");
    let o = Command::new(PEXE).args(["translate", "--target", "x86_64-linux"]).arg(&regression).arg("-o").arg("/dev/null").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error:"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(PEXE).args(["build", "--target", "sparc-linux"]).arg(&regression).args(["-o", "/dev/null"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown target `sparc-linux`"));
    // A Pepper plugin translates, but does not link.
    let star = Path::new(CORPUS).join("../ppapi/Annonator_AStar-PNaCl/star.pexe");
    let dir = scratch("pepper");
    let o = Command::new(PEXE).args(["build", "--target", "x86_64-linux"]).arg(&star).arg("-o").arg(dir.join("star")).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a Pepper (PPAPI) plugin"));
}

// ---------------------------------------------------------------------------
// Guest faults: the message of the wasm path (tests/all/run.rs), status 134.

/// Assembles `text`, builds it for both targets, runs it, and checks the
/// exit status and the exact standard error.
fn expect(name: &str, text: &str, status: i32, stderr: &str, env: &[(&str, &str)]) {
    let bytes = pexe::asm::assemble(text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    let diagnostics = pexe::verify::verify_bytes(&bytes);
    assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
    for target in Target::ALL {
        if !ready(target) {
            continue;
        }
        let dir = scratch(&format!("{name}-{}", target.name()));
        let file = dir.join(format!("{name}.pexe"));
        std::fs::write(&file, &bytes).unwrap();
        let exe = dir.join(name);
        build(target, &file, &exe);
        let out = run(target, &exe, &dir, &format!("{name}.pexe"), &[], env);
        let got = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{name} on {target}: stderr:\n{got}");
        assert_eq!(got, stderr, "{name} on {target}");
        assert!(out.stdout.is_empty(), "{name} on {target}: stdout {:?}", String::from_utf8_lossy(&out.stdout));
    }
}

fn expect_fault(name: &str, consts: &[i64], body: &[&str], message: &str) {
    let text = fault_module(name, consts, body);
    expect(name, &text, 134, &format!("pexe: guest fault: {message} in function {name}\n"), &[]);
}

#[test]
fn fault_out_of_bounds_load() {
    // %v0 = load i32, i32* -16; ret %v0
    expect_fault("load_oob", &[-16], &["20,1,1,0;", "10,1;"], "memory access out of bounds");
}

#[test]
fn fault_null_pointer_store() {
    // store i32 7, i32* 0: the first 64 KiB are never mapped.
    expect_fault("store_null", &[0, 7], &["24,2,1,1;", "10,1;"], "memory access out of bounds");
}

#[test]
fn fault_bad_indirect_call_index() {
    // %v0 = call i32 %p0(i32 %p0): %p0 is the startinfo address, far past the table.
    expect_fault("call_bad", &[], &["44,0,1,0,1;", "10,1;"], "table index is out of bounds");
}

#[test]
fn fault_indirect_call_signature_mismatch() {
    // %v0 = call float @f1(i32 %p0) through its address: @f1 is i32 (i32).
    // CALL_INDIRECT [cc, callee, return type, args]: type 4 is float below.
    let text = fault_module("sig_bad", &[], &["44,0,2,4,1;", "3,1,0,11;", "10,1;"]).replace(
        "21,0,0,0;\n65534;",
        "21,0,0,0;\n3;\n65534;",
    );
    let text = text.replace("1,4;\n7,32;", "1,5;\n7,32;");
    expect("sig_bad", &text, 134, "pexe: guest fault: null function or function signature mismatch in function sig_bad\n", &[]);
}

#[test]
fn fault_unreachable() {
    expect_fault("hit_unreachable", &[], &["15;"], "unreachable");
}

#[test]
fn fault_integer_divide_by_zero() {
    // %v0 = sub %p0, %p0; %v1 = sdiv 1, %v0; ret %v1
    expect_fault("divide", &[1], &["2,2,2,1;", "2,2,1,4;", "10,1;"], "divide by zero");
}

#[test]
fn fault_integer_divide_overflow() {
    // %v0 = sdiv INT_MIN, -1
    expect_fault("divide_overflow", &[i64::from(i32::MIN), -1], &["2,2,1,4;", "10,1;"], "divide result unrepresentable");
}

#[test]
fn fault_alloca_stack_overflow() {
    // %v0 = alloca i8, i32 (8 MiB + 1): more than the whole main stack.
    expect_fault("alloca_big", &[0x80_0001], &["19,1,1;", "10,1;"], "stack overflow (alloca below the stack limit)");
}

#[test]
fn fault_deep_recursion() {
    // %v0 = call i32 @f1(i32 %p0); ret %v0 — forever.
    expect_fault("recurse", &[], &["34,0,2,1;", "10,1;"], "call stack exhausted (Maximum call stack size exceeded)");
}

#[test]
fn fault_unaligned_atomic() {
    // A module calling llvm.nacl.atomic.load.i32(1, seq_cst).
    let text = "
        65535,8,2; 1,1;
        65535,17,2; 1,4; 7,32; 2; 21,0,1,0; 21,0,0,0,0; 65534;
        8,2,0,0,0;
        8,3,0,1,0;
        65535,19,2; 5,0; 65534;
        65535,14,2;
          1,0,95,115,116,97,114,116;
          1,1,108,108,118,109,46,110,97,99,108,46,97,116,111,109,105,99,46,108,111,97,100,46,105,51,50;
        65534;
        65535,12,2; 1,1;
          65535,11,2; 1,0; 4,2; 4,12; 65534;
          34,0,4,2,1;
          10;
        65534;
        65534;";
    expect(
        "atomic_unaligned",
        text,
        134,
        "pexe: guest fault: operation does not support unaligned accesses in function _start\n",
        &[],
    );
}

#[test]
fn fault_longjmp_without_setjmp() {
    // _start(i32 %p0) calls llvm.nacl.longjmp(%p0, 1): no frame has a live
    // setjmp. (The native path names the function; wasm exceptions carry
    // no stack, so the wasm path cannot.)
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
    expect(
        "longjmp",
        text,
        134,
        "pexe: guest fault: longjmp to a jmp_buf with no live setjmp in function _start\n",
        &[],
    );
}

// ---------------------------------------------------------------------------
// The sandbox: pexes that try to reach host memory. In self-test mode the
// runtime fills the 64 KiB of host memory just below and just above the
// guest's reservation with a pattern and checks it when the guest ends:
// a store that escaped the reservation would corrupt one of them first.

const INTACT: &str = "pexe: sandbox self-test: host memory around the guest's reservation is intact\n";
const SELFTEST: &[(&str, &str)] = &[("PEXE_SANDBOX_SELFTEST", "1")];

fn expect_contained(name: &str, text: &str, message: &str) {
    expect(name, text, 134, &format!("pexe: guest fault: {message} in function {name}\n{INTACT}"), SELFTEST);
}

#[test]
fn sandbox_store_to_pointer_minus_8_stays_inside() {
    // store i32 7, i32* -8: were pointers sign-extended, this would be the
    // 8 bytes just below the reservation (the lower sentinel).
    expect_contained("store_minus8", &fault_module("store_minus8", &[-8, 7], &["24,2,1,1;", "10,1;"]), "memory access out of bounds");
}

#[test]
fn sandbox_farthest_store_stays_inside() {
    // %v0 = add i32 -1, 0x7fffffff; store i32 7, %v0: the largest address
    // plus the largest offset folded into an access, 6 GiB past the base —
    // in the guard region, short of the upper sentinel at 8 GiB.
    expect_contained(
        "store_far",
        &fault_module("store_far", &[-1, 0x7fff_ffff, 7], &["2,3,2,0;", "24,1,2,1;", "10,2;"]),
        "memory access out of bounds",
    );
}

#[test]
fn sandbox_memcpy_past_the_window_is_refused() {
    // memcpy(0xf0000000, 0x10000, 0x7fffffff): the runtime's copy checks
    // both ranges against the guest's mappings before touching memory.
    let text = format!(
        "65535,8,2; 1,1;
        65535,17,2; 1,5; 7,32; 2; 7,1; 21,0,1,0; 21,0,1,0,0,0,0,2; 65534;
        8,3,0,0,0;
        8,4,0,1,0;
        65535,19,2; 5,0; 65534;
        65535,14,2;
          1,0,95,115,116,97,114,116;
          1,1,108,108,118,109,46,109,101,109,99,112,121,46,112,48,105,56,46,112,48,105,56,46,105,51,50;
        65534;
        65535,12,2; 1,1;
          65535,11,2; 1,0; 4,{}; 4,{}; 4,{}; 4,2; 1,2; 4,0; 65534;
          34,0,7,5,4,3,2,1;
          10;
        65534;
        65534;",
        rot(0xf000_0000u32 as i32 as i64),
        rot(0x10000),
        rot(0x7fff_ffff)
    );
    expect("memcpy_far", &text, 134, &format!("pexe: guest fault: memory access out of bounds in function _start\n{INTACT}"), SELFTEST);
}

#[test]
fn sandbox_irt_write_from_past_the_window_is_efault() {
    // i32 _start(i32 %p0) returns write(1, 0xffffff00, 4096, %p0) through
    // the IRT's table address (12): the runtime refuses the buffer that
    // runs off the guest's window with EFAULT (14), which becomes the exit
    // status; nothing is written.
    let text = format!(
        "65535,8,2; 1,1;
        65535,17,2; 1,3; 7,32; 2; 21,0,0,0; 65534;
        8,2,0,0,0;
        65535,19,2; 5,0; 65534;
        65535,14,2; 1,0,95,115,116,97,114,116; 65534;
        65535,12,2; 1,1;
          65535,11,2; 1,0; 4,2; 4,24; 4,{}; 4,{}; 65534;
          44,0,3,0,4,2,1,5;
          10,1;
        65534;
        65534;",
        rot(-256),
        rot(4096)
    );
    expect("write_far", &text, 14, INTACT, SELFTEST);
}

// ---------------------------------------------------------------------------
// Files: guest paths are host paths inside PEXE_DIRS, nothing else.

/// `i32 _start(i32)`: open("data.txt", O_RDONLY) through the IRT's table
/// address 22, and if that worked read up to 56 bytes (address 11) and
/// write them to stdout (address 12); answers open's errno, else read's.
const CAT_DATA_TXT: &str = "
    65535,8,2; 1,1;
    65535,17,2; 1,3; 7,32; 2; 21,0,0,0; 65534;
    8,2,0,0,0;
    65535,19,2; 5,2;
      0,0,1; 3,100,97,116,97,46,116,120,116,0;
      0,3,0; 2,64;
    65534;
    65535,14,2; 1,0,95,115,116,97,114,116; 65534;
    65535,12,2; 1,3;
      65535,11,2; 1,0; 4,0; 4,44; 4,22; 4,24; 4,2; 4,8; 4,16; 4,112; 65534;
      2,10,3,0;
      2,11,3,0;
      44,0,9,0,13,10,10,12;
      28,1,11,33;
      11,1,2,1;
      10,2;
      20,14,1,0;
      44,0,11,0,1,4,6,5;
      20,6,1,0;
      44,0,12,0,11,6,1,7;
      10,3;
    65534;
    65534;";

#[test]
fn files_are_host_files_inside_pexe_dirs_only() {
    let bytes = pexe::asm::assemble(CAT_DATA_TXT).unwrap();
    assert!(pexe::verify::verify_bytes(&bytes).is_empty(), "{:?}", pexe::verify::verify_bytes(&bytes));
    for target in Target::ALL {
        if !ready(target) {
            continue;
        }
        let dir = scratch(&format!("files-{}", target.name()));
        let exe = dir.join("cat");
        std::fs::write(dir.join("cat.pexe"), &bytes).unwrap();
        build(target, &dir.join("cat.pexe"), &exe);
        let inside = dir.join("inside");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(inside.join("data.txt"), "hello from the host\n").unwrap();
        let dirs = inside.to_str().unwrap();

        // Exposed: the guest reads the file (relative to its working
        // directory, the host's).
        let o = run(target, &exe, &inside, "cat", &[], &[("PEXE_DIRS", dirs)]);
        assert_eq!(String::from_utf8_lossy(&o.stdout), "hello from the host\n", "{target}");
        assert_eq!(o.status.code(), Some(0), "{target}: {}", String::from_utf8_lossy(&o.stderr));
        // Not exposed: ENOENT (2).
        let o = run(target, &exe, &inside, "cat", &[], &[]);
        assert_eq!((o.status.code(), o.stdout.len()), (Some(2), 0), "{target}");
        // A symlink out of the exposed directory: EACCES (13).
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, "secret\n").unwrap();
        let escape = dir.join("escape");
        std::fs::create_dir_all(&escape).unwrap();
        std::os::unix::fs::symlink(&outside, escape.join("data.txt")).unwrap();
        let o = run(target, &exe, &escape, "cat", &[], &[("PEXE_DIRS", escape.to_str().unwrap())]);
        assert_eq!((o.status.code(), o.stdout.len()), (Some(13), 0), "{target}");
    }
}

#[test]
fn fault_deadlock_on_a_futex() {
    // i32 _start(i32) waits on a zero word of its globals for it to stay 0
    // (futex_wait_abs, table address 46) with no timeout and no other
    // thread: the runtime sees every thread waiting and ends the guest.
    let text = "
        65535,8,2; 1,1;
        65535,17,2; 1,3; 7,32; 2; 21,0,0,0; 65534;
        8,2,0,0,0;
        65535,19,2; 5,1; 0,3,0; 2,4; 65534;
        65535,14,2; 1,0,95,115,116,97,114,116; 65534;
        65535,12,2; 1,1;
          65535,11,2; 1,0; 4,92; 4,0; 65534;
          44,0,2,0,4,1,1;
          10,1;
        65534;
        65534;";
    expect(
        "deadlock",
        text,
        134,
        "pexe: guest fault: deadlock: every thread is waiting on a futex in function _start\n",
        &[],
    );
}
