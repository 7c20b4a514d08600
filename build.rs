//! Generates the list of JavaScript files `pexe run` carries inside the
//! binary (src/bin/pexe/run.rs): every file under the folders of `js/src/`
//! named below, which hold the runtime and its Node runner. The list is
//! `$OUT_DIR/runtime_files.rs`, included by run.rs:
//!
//! ```text
//! const RUNTIME_DIRS: &[&str] = &["internal/runtime", …];
//! const RUNTIME_FILES: &[(&str, &str)] = &[("internal/runtime/abi.js", include_str!("…/js/src/internal/runtime/abi.js")), …];
//! ```
//!
//! A folder the runtime starts to import from must be added here; run.rs's
//! tests fail until it is (every relative import of an embedded file must
//! be embedded too).

use std::path::{Path, PathBuf};

/// Folders of `js/src/` that `pexe run` needs: the runtime, the browser
/// side of Pepper, and the Node runner with its host (worker_threads, the
/// host file system).
const RUNTIME_DIRS: &[&str] = &["internal/runtime", "internal/pepper", "internal/node"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let src = manifest.join("js").join("src");
    let mut files = Vec::new();
    for dir in RUNTIME_DIRS {
        let path = src.join(dir);
        println!("cargo:rerun-if-changed={}", path.display());
        walk(&path, &mut files);
    }
    files.sort();

    let mut out = String::new();
    out.push_str("/// Folders of `js/src/` compiled in (build.rs).\n#[cfg_attr(not(test), allow(dead_code))]\n");
    out.push_str(&format!("const RUNTIME_DIRS: &[&str] = &{RUNTIME_DIRS:?};\n\n"));
    out.push_str("/// The runtime's files (paths relative to `js/src/`), compiled in (build.rs).\n");
    out.push_str("const RUNTIME_FILES: &[(&str, &str)] = &[\n");
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under js/src").to_string_lossy().replace('\\', "/");
        let abs = file.to_string_lossy();
        out.push_str(&format!("    ({rel:?}, include_str!({abs:?})),\n"));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("runtime_files.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
    println!("cargo:rerun-if-changed=build.rs");
}

/// Every file under `dir` that the runtime can load (not its READMEs).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if is_runtime_file(&path) {
            out.push(path);
        }
    }
}

fn is_runtime_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) != Some("md")
}
