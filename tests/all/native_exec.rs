//! Runs an assembled pexe's functions natively, through the runtime's test
//! driver (`pexe build --test-entry`, `PEXE_TEST_CALLS`), for x86-64 here
//! and AArch64 under QEMU — the native twin of `tests/all/wasm_exec.rs`'s Node
//! harness, whose output both must match line for line.

use std::path::Path;
use std::process::Command;

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn have(cmd: &str) -> bool {
    Command::new(cmd).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// What the wasm harness prints for a fault, in the native driver's words
/// (the native path reports every fault as a trap with its message).
fn native_wording(line: &str) -> String {
    match line {
        "fault 1 0" => "trap: stack overflow (alloca below the stack limit)".into(),
        "uncaught longjmp" => "trap: longjmp to a jmp_buf with no live setjmp".into(),
        "trap: Maximum call stack size exceeded" => {
            "trap: call stack exhausted (Maximum call stack size exceeded)".into()
        }
        other => other.into(),
    }
}

/// Builds `pexe` (bytes) with the test entry for each target whose tools
/// are here, runs `calls_text` and checks the output equals `wasm_lines`.
pub fn check(name: &str, pexe: &[u8], calls_text: &str, wasm_lines: &[String]) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("native-exec").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("m.pexe"), pexe).unwrap();
    std::fs::write(dir.join("calls.txt"), calls_text).unwrap();
    let want: Vec<String> = wasm_lines.iter().map(|l| native_wording(l)).collect();
    for (target, cc, runner) in [
        ("x86_64-linux", "cc", None),
        ("aarch64-linux", "aarch64-linux-gnu-gcc", Some("qemu-aarch64-static")),
    ] {
        let native_host = cfg!(target_arch = "x86_64") == (target == "x86_64-linux");
        let runner = if native_host { None } else { runner.or(Some("qemu-x86_64-static")) };
        let missing: Vec<&str> = [Some(cc), runner].into_iter().flatten().filter(|t| !have(t)).collect();
        if !missing.is_empty() {
            assert!(!under_ci(), "{name}: {target}: missing {missing:?} (scripts/setup.sh installs them)");
            eprintln!("skipped {name} on {target}: missing {missing:?}");
            continue;
        }
        let exe = dir.join(format!("m-{target}"));
        let built = Command::new(env!("CARGO_BIN_EXE_pexe"))
            .args(["build", "--test-entry", "--target", target])
            .arg(dir.join("m.pexe"))
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        assert!(built.status.success(), "{name}: pexe build --target {target}: {}", String::from_utf8_lossy(&built.stderr));
        let mut cmd = match runner {
            Some(r) => {
                let mut c = Command::new(r);
                c.arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        // Alone, atomics are plain accesses; with other threads (as the
        // driver pretends with PEXE_TEST_THREADS=1) they are atomic
        // instructions. Both must compute what the wasm path does.
        for threads in ["0", "1"] {
            let out = cmd
                .env_clear()
                .env("PEXE_TEST_CALLS", dir.join("calls.txt"))
                .env("PEXE_TEST_THREADS", threads)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let how = format!("{name} on {target} (PEXE_TEST_THREADS={threads})");
            assert!(out.status.success(), "{how}: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
            let got: Vec<&str> = stdout.lines().collect();
            assert_eq!(got, want, "{how}: native results differ from the wasm path's");
        }
    }
}
