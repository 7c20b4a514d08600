//! What the end-to-end tests share: the corpus programs' expectation files
//! (`../shared/corpus/cli/binji_pnacl_c/test/**/*.txt`), and small
//! assembled pexes that fault. `run` runs them through Node, `native` as
//! native executables.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/cli");

pub fn pnacl_c_tests() -> PathBuf {
    Path::new(CORPUS).join("binji_pnacl_c/test")
}

/// One `.txt` expectation: which pexe, which arguments, what stdout.
#[derive(Debug)]
pub struct Expectation {
    pub file: String,
    pub args: Vec<String>,
    pub stdout: Vec<u8>,
}

/// Splits `# ARGS:` like a shell would for these files (quotes, spaces).
pub fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Parses an expectation file; None when it expects no stdout (not a run test).
pub fn parse_expectation(dir: &Path, text: &[u8]) -> Option<Expectation> {
    let mut file = None;
    let mut args = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let end = text[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| pos + i + 1);
        let line = String::from_utf8_lossy(&text[pos..end]);
        let line = line.trim_end_matches(['\n', '\r']);
        pos = end;
        let Some(header) = line.strip_prefix('#') else {
            continue;
        };
        let Some((key, value)) = header.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim().to_ascii_uppercase().as_str() {
            "FILE" => file = Some(value.to_string()),
            "ARGS" => args = shell_split(value),
            "STDOUT" => {
                return Some(Expectation {
                    file: file?,
                    args,
                    stdout: text[pos..].to_vec(),
                });
            }
            "STDOUT_FILE" => {
                let stdout = std::fs::read(dir.join(value)).expect("the STDOUT_FILE exists");
                return Some(Expectation {
                    file: file?,
                    args,
                    stdout,
                });
            }
            _ => {}
        }
    }
    None
}

/// Every expectation file under the test directory that expects stdout.
pub fn discover(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            discover(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "txt") {
            let text = std::fs::read(&path).unwrap();
            if parse_expectation(base, &text).is_some() {
                out.push(
                    path.strip_prefix(base)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
}

/// The corpus cases this file runs, one test each below.
pub const CASES: &[&str] = &[
    "benchmark/binarytrees.txt",
    "benchmark/fannkuchredux.txt",
    "benchmark/fasta.txt",
    "benchmark/mandelbrot.txt",
    "benchmark/meteor.txt",
    "benchmark/nbody.txt",
    "benchmark/spectralnorm.txt",
    "printf/printf-0.txt",
    "printf/printf-1.txt",
    "printf/printf-3.txt",
    "puts.txt",
    "sem.txt",
    "setjmp.txt",
    "thread.txt",
];

/// Sign-rotated VBR value of a constant (PNaCl INTEGER records).
pub fn rot(v: i64) -> u64 {
    if v >= 0 {
        (v as u64) << 1
    } else {
        ((v.unsigned_abs()) << 1) | 1
    }
}

/// A module (textual record form) whose `_start(i32 %p0)` calls
/// `i32 @name(i32 %p0)`, given the constants (i32) and the records of its
/// body. Value ids in the body: %p0 = 2, constants from 3, then results.
pub fn fault_module(name: &str, consts: &[i64], body: &[&str]) -> String {
    let chars: Vec<String> = name.bytes().map(|b| b.to_string()).collect();
    let mut lines = vec![
        "65535,8,2;".to_string(),
        "1,1;".into(),
        // types: @t0 i32, @t1 void, @t2 void (i32), @t3 i32 (i32)
        "65535,17,2;".into(),
        "1,4;".into(),
        "7,32;".into(),
        "2;".into(),
        "21,0,1,0;".into(),
        "21,0,0,0;".into(),
        "65534;".into(),
        "8,2,0,0,0;".into(), // define external void @f0(i32): _start
        "8,3,0,0,3;".into(), // define internal i32 @f1(i32): the faulting one
        "65535,19,2;".into(),
        "5,0;".into(),
        "65534;".into(),
        "65535,14,2;".into(),
        "1,0,95,115,116,97,114,116;".into(),
        format!("1,1,{};", chars.join(",")),
        "65534;".into(),
        // _start: %v0 = call i32 @f1(i32 %p0); ret void
        "65535,12,2;".into(),
        "1,1;".into(),
        "34,0,2,1;".into(),
        "10;".into(),
        "65534;".into(),
        "65535,12,2;".into(),
        "1,1;".into(),
    ];
    if !consts.is_empty() {
        lines.push("65535,11,2;".into());
        lines.push("1,0;".into());
        lines.extend(consts.iter().map(|&c| format!("4,{};", rot(c))));
        lines.push("65534;".into());
    }
    lines.extend(body.iter().map(|s| s.to_string()));
    lines.push("65534;".into());
    lines.push("65534;".into());
    lines.join("\n")
}

