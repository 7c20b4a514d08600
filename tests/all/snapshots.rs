//! Codegen snapshots: the WebAssembly text of small programs, checked in so
//! every change to the code the back end emits shows as a diff.
//!
//! Each `tests/snapshots/in/NAME.records` (a `pexe as` listing; most were
//! written by `wasm_exec.rs`'s builders, `PEXE_SAVE_RECORDS=DIR`) is
//! assembled and translated, and the text of its own functions (the module's
//! imports, table and helpers left out) must equal
//! `tests/snapshots/out/NAME.wat`. `BLESS=1 cargo test --test all snapshots`
//! rewrites the expectations; review the diff and commit it.

use pexe::back::wasm::{to_wat, translate_bytes, Options};
use std::path::{Path, PathBuf};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(sub)
}

/// The `(func …)` items of the pexe's functions, as printed in the module text.
fn own_functions(wat: &str) -> String {
    let mut out = String::new();
    let mut keep = false;
    for line in wat.lines() {
        if line.starts_with("  (") {
            keep = line.starts_with("  (func ") && !line.contains("$__pexe_init_data") && !line.contains("$__pexe_thread_start");
        }
        if line == ")" {
            keep = false;
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A few lines around the first difference.
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let at = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
    let from = at.saturating_sub(3);
    let mut text = format!("first difference at line {}:\n", at + 1);
    for line in w.iter().skip(from).take(8) {
        text.push_str(&format!("  - {line}\n"));
    }
    for line in g.iter().skip(from).take(8) {
        text.push_str(&format!("  + {line}\n"));
    }
    text
}

#[test]
fn codegen_matches_the_snapshots() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir("in"))
        .expect("tests/snapshots/in")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "records"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "only {} snapshot inputs", inputs.len());
    let mut failures = Vec::new();
    for input in &inputs {
        let name = input.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(input).unwrap();
        let pexe = pexe::asm::assemble(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let wasm = translate_bytes(&pexe, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = format!(";; {name}.records, translated (pexe's functions only)\n{}", own_functions(&to_wat(&wasm).unwrap()));
        let out = dir("out").join(format!("{name}.wat"));
        let want = std::fs::read_to_string(&out).unwrap_or_default();
        if got != want {
            if bless {
                std::fs::write(&out, &got).unwrap();
            } else {
                failures.push(format!("{name}: {}", diff(&want, &got)));
            }
        }
    }
    // No expectation without its input.
    for e in std::fs::read_dir(dir("out")).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if !inputs.iter().any(|i| i.file_stem().is_some_and(|s| s.to_string_lossy() == stem)) {
            failures.push(format!("{}: no input for this snapshot", p.display()));
        }
    }
    assert!(failures.is_empty(), "codegen differs from the snapshots (BLESS=1 to accept):\n{}", failures.join("\n"));
}
