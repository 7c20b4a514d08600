//! The build script does three things, the first two for the `pexe`
//! command line:
//!
//! 1. **JavaScript runtime files.** It lists the files `pexe run` carries
//!    inside the binary (src/bin/pexe/run.rs): every file under the folders
//!    of `js/src/` named below, which hold the runtime and its Node runner.
//!    The list is `$OUT_DIR/runtime_files.rs`, included by run.rs:
//!
//!    ```text
//!    const RUNTIME_DIRS: &[&str] = &["internal/runtime", …];
//!    const RUNTIME_FILES: &[(&str, &str)] = &[("internal/runtime/abi.js", include_str!("…/js/src/internal/runtime/abi.js")), …];
//!    ```
//!
//!    A folder the runtime starts to import from must be added here;
//!    run.rs's tests fail until it is (every relative import of an embedded
//!    file must be embedded too).
//!
//!    It also bundles the Node runner (`internal/node/run.mjs` and what it
//!    imports) with esbuild, through `js/scripts/bundle-runtime.mjs`, into
//!    `$OUT_DIR/runtime-bundle/`, and embeds those files too:
//!
//!    ```text
//!    const RUNTIME_BUNDLE: &[(&str, &str)] = &[("internal/node/run.bundle.mjs", include_str!("…")), ("internal/node/bundle-chunk-….mjs", …), …];
//!    const BUNDLE_ENTRY: Result<&str, &str> = Ok("internal/node/run.bundle.mjs");
//!    ```
//!
//!    `pexe run` starts Node on the bundle's entry: three files to load
//!    instead of some 35 modules (the script says why esbuild, and why its
//!    files go to `internal/node/`). esbuild is a devDependency of js/
//!    (`npm ci`, which scripts/setup.sh runs); without it, or without
//!    Node, the build goes on with a warning, `BUNDLE_ENTRY` is the
//!    reason, and `pexe run` starts the raw `run.mjs`; with `CI=true` a
//!    test of run.rs fails instead.
//!
//!    With the runtime's files it hashes them (`RUNTIME_HASH`, the cache
//!    folder's name), and it hashes the crate's own sources into
//!    `$OUT_DIR/translator_id.rs` (`TRANSLATOR_ID`, part of the key of
//!    `pexe run`'s translation cache), so any change under `src/` reruns
//!    this script.
//!
//! 2. **Native runtime archives.** It builds the native runtime
//!    (`runtime/`, a `no_std` static archive) for each Linux target whose
//!    Rust standard library is installed, so `pexe build` and `pexe run
//!    --target native` can embed the archives and link executables with no
//!    other files. The runtime is its own workspace; it is built with the
//!    `cargo` running this script, `--locked`, into
//!    `$OUT_DIR/runtime-target`, and the archives are named by
//!    `$OUT_DIR/runtimes.rs` (`include_bytes!`). A target that is not
//!    installed (`rustup target add …`) or whose build fails gets an `Err`
//!    with the reason instead, which `pexe build` prints; this never fails
//!    the build of the library itself. Only builds with the `cli` and
//!    `native` features need the archives (the wasm32 package build has
//!    neither).
//!
//! 3. **The runtime ABI's table.** It parses the declarations of the
//!    runtime ABI (`src/abi/irt.h`, `src/abi/ppapi.h`) with the library's
//!    own parser, included below, and writes the list as
//!    `$OUT_DIR/abi_table.txt`, which `src/abi/mod.rs` includes and decodes
//!    (`src/abi/table.rs`): every translator would otherwise parse 51 KB of
//!    C at start. A declaration that does not parse fails the build.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    js_runtime_files();
    translator_identity();
    native_runtimes();
    abi_table();
    println!("cargo:rerun-if-changed=build.rs");
}

// ---------------------------------------------------------------------------
// 1. The JavaScript runtime's files.

/// Folders of `js/src/` that `pexe run` needs: the runtime, the browser
/// side of Pepper, and the Node runner with its host (worker_threads, the
/// host file system).
const RUNTIME_DIRS: &[&str] = &["internal/runtime", "internal/pepper", "internal/node"];

fn js_runtime_files() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let src = manifest.join("js").join("src");
    let mut files = Vec::new();
    for dir in RUNTIME_DIRS {
        let path = src.join(dir);
        println!("cargo:rerun-if-changed={}", path.display());
        walk(&path, &is_runtime_file, &mut files);
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
    out.push_str("];\n\n");
    let (bundle_rs, bundle_files) = runtime_bundle(&manifest.join("js"));
    out.push_str(&bundle_rs);
    // The cache directory's name, hashed here rather than by every `pexe
    // run` (2 MB of text, 5M instructions a run); run.rs's tests recompute it.
    let mut hash = Fnv::new();
    hash.eat(env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION").as_bytes());
    let runtime = files.iter().map(|f| (f.strip_prefix(&src).expect("under js/src").to_string_lossy().replace('\\', "/"), f.clone()));
    for (rel, path) in runtime.chain(bundle_files) {
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        hash.eat(rel.as_bytes());
        hash.eat(&[0]);
        hash.eat(&text);
        hash.eat(&[0]);
    }
    let _ = writeln!(out, "\n/// FNV-1a of the version and every file above, path and text (build.rs).\nconst RUNTIME_HASH: u64 = {:#018x};", hash.0);
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("runtime_files.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}

/// The bundled Node runner, as Rust source: `RUNTIME_BUNDLE`, its files
/// (paths relative to the runtime's folder), and `BUNDLE_ENTRY`, the file
/// `pexe run` starts, or why there is no bundle. js/scripts/bundle-runtime.mjs
/// (esbuild) writes them to `$OUT_DIR/runtime-bundle/`, in builds with the
/// `cli` feature. Without Node or
/// esbuild (no `npm ci` in js/) there is none, and a warning says so: the
/// build goes on, and `pexe run` starts the raw files, slower. A bundle
/// that fails to build (a syntax error in the runtime) fails the build.
fn runtime_bundle(js: &Path) -> (String, Vec<(String, PathBuf)>) {
    let script = js.join("scripts").join("bundle-runtime.mjs");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-changed={}", js.join("package-lock.json").display());
    // Rerun once esbuild is installed or changes: npm ci rewrites the
    // installed lock; before there is one, js/ itself changes when
    // node_modules/ appears. (A path that does not exist would rerun this
    // script, and rebuild the crate, on every build.)
    let installed = js.join("node_modules").join(".package-lock.json");
    println!("cargo:rerun-if-changed={}", if installed.is_file() { installed.as_path() } else { js }.display());

    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR")).join("runtime-bundle");
    // Only the command line starts the runner (the wasm32 package builds have no `cli`).
    let cli = env::var_os("CARGO_FEATURE_CLI").is_some();
    let bundled = if cli { Some(Command::new("node").arg(&script).arg(&out).output()) } else { None };
    let files: Result<Vec<String>, String> = match bundled {
        None => Err("a build without the command line".to_string()),
        Some(Err(e)) => Err(format!("cannot run node ({e})")),
        Some(Ok(o)) if o.status.code() == Some(3) => Err("esbuild is not installed in js/node_modules".to_string()),
        Some(Ok(o)) if !o.status.success() => panic!(
            "bundling the Node runner failed ({}):\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ),
        Some(Ok(o)) => Ok(String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()),
    };
    let mut rs = String::from(
        "/// The Node runner bundled (build.rs, js/scripts/bundle-runtime.mjs): its files, relative\n\
         /// to the runtime's folder; none when esbuild was not installed.\n\
         const RUNTIME_BUNDLE: &[(&str, &str)] = &[\n",
    );
    let mut embedded = Vec::new();
    let entry = match files {
        Ok(files) => {
            for rel in &files {
                embedded.push((rel.clone(), out.join(rel)));
                let abs = out.join(rel);
                let _ = writeln!(rs, "    ({rel:?}, include_str!({:?})),", abs.to_string_lossy());
            }
            let entry = files.iter().find(|f| f.ends_with(".bundle.mjs")).expect("the bundle has an entry");
            format!("Ok({entry:?})")
        }
        Err(why) => {
            if cli {
                println!("cargo:warning=`pexe run` will start slower: the Node runner is not bundled ({why}); run scripts/setup.sh (it runs `npm ci` in js/), then build again");
            }
            format!("Err({why:?})")
        }
    };
    rs.push_str("];\n\n/// The bundle's entry, which `pexe run` starts, or why there is no bundle.\n");
    let _ = writeln!(rs, "const BUNDLE_ENTRY: Result<&str, &str> = {entry};");
    (rs, embedded)
}

/// 64-bit FNV-1a: names cache entries after what built them (no adversary
/// chooses these inputs, so a small non-cryptographic hash will do).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

// ---------------------------------------------------------------------------
// 1b. The translator's identity.

/// `$OUT_DIR/translator_id.rs`: `TRANSLATOR_ID`, a hash of the crate's
/// sources and locked dependencies, so `pexe run`'s translation cache
/// (src/bin/pexe/translation_cache.rs) never serves a module that another
/// build of the translator made. Any change under src/ reruns this script.
fn translator_identity() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let src = manifest.join("src");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut files = Vec::new();
    walk(&src, &|_| true, &mut files);
    files.sort();
    files.push(manifest.join("Cargo.lock"));
    files.push(manifest.join("Cargo.toml"));
    println!("cargo:rerun-if-changed=Cargo.lock");
    let mut hash = Fnv::new();
    hash.eat(env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION").as_bytes());
    for file in &files {
        // A missing Cargo.lock (a fresh clone before any resolution) only
        // weakens the identity to the sources.
        let Ok(text) = std::fs::read(file) else { continue };
        hash.eat(file.strip_prefix(&manifest).unwrap_or(file).to_string_lossy().as_bytes());
        hash.eat(&[0]);
        hash.eat(&text);
        hash.eat(&[0]);
    }
    let rs = format!(
        "/// Which translator this is: a hash of the crate's sources and its locked dependencies (build.rs).\nconst TRANSLATOR_ID: u64 = {:#018x};\n",
        hash.0
    );
    let dest = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR")).join("translator_id.rs");
    std::fs::write(&dest, rs).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}



/// Every file under `dir` that `keep` accepts.
fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, keep, out);
        } else if keep(&path) {
            out.push(path);
        }
    }
}

/// What the runtime can load (not its READMEs).
fn is_runtime_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) != Some("md")
}

// ---------------------------------------------------------------------------
// 2. The native runtime archives.

/// (Rust target triple, constant name in runtimes.rs).
const TARGETS: [(&str, &str); 2] = [("x86_64-unknown-linux-gnu", "X86_64"), ("aarch64-unknown-linux-gnu", "AARCH64")];

fn native_runtimes() {
    for path in [
        "runtime/src",
        "runtime/Cargo.toml",
        "runtime/Cargo.lock",
        "runtime/.cargo/config.toml",
        "src/back/native/rtabi.rs",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let wanted = env::var_os("CARGO_FEATURE_CLI").is_some()
        && env::var_os("CARGO_FEATURE_NATIVE").is_some()
        && env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32");
    let mut rs = String::from("// Generated by build.rs: the native runtime archives.\n");
    for (triple, name) in TARGETS {
        let archive = if wanted { build(triple, &out) } else { Err("this build of pexe has no native runtimes".into()) };
        match archive {
            Ok(path) => {
                let _ = writeln!(rs, "pub const {name}: Result<&[u8], &str> = Ok(include_bytes!({:?}));", path);
            }
            Err(why) => {
                if wanted {
                    println!("cargo:warning=native runtime for {triple} not built: {why}");
                }
                let _ = writeln!(rs, "pub const {name}: Result<&[u8], &str> = Err({why:?});");
            }
        }
    }
    std::fs::write(out.join("runtimes.rs"), rs).expect("writing runtimes.rs");
}

/// Builds the archive for `triple`; its path, or why not.
fn build(triple: &str, out: &Path) -> Result<PathBuf, String> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let libdir = Command::new(&rustc)
        .args(["--print", "target-libdir", "--target", triple])
        .output()
        .map_err(|e| format!("running {rustc}: {e}"))?;
    let libdir = String::from_utf8_lossy(&libdir.stdout).trim().to_string();
    let installed = std::fs::read_dir(&libdir)
        .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with("libcore-")))
        .unwrap_or(false);
    if !installed {
        return Err(format!("the Rust standard library for {triple} is not installed (rustup target add {triple})"));
    }
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = out.join("runtime-target");
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(manifest.join("runtime"))
        .args(["build", "--release", "--locked", "--quiet", "--target", triple, "--target-dir"])
        .arg(&target_dir);
    // The runtime's own settings (runtime/.cargo/config.toml, its
    // profile) apply, not the outer build's.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_PROFILE_RELEASE_LTO",
        "CARGO_PROFILE_RELEASE_DEBUG",
        // `cargo clippy` sets this; the runtime is built, not linted, here.
        "RUSTC_WORKSPACE_WRAPPER",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd.output().map_err(|e| format!("running {cargo}: {e}"))?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = err.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!("cargo build of runtime/ failed: {}", tail.join(" | ")));
    }
    let built = target_dir.join(triple).join("release").join("libpexe_runtime.a");
    let dest = out.join(format!("libpexe_runtime-{triple}.a"));
    std::fs::copy(&built, &dest).map_err(|e| format!("copying {}: {e}", built.display()))?;
    Ok(dest)
}

// ---------------------------------------------------------------------------
// 3. The runtime ABI's table.

/// The library's `src/abi/` files that use nothing else of the crate (the
/// module path `src::abi` finds them; `mod.rs` is not included).
#[allow(dead_code)]
mod src {
    pub mod abi {
        mod ctype;
        mod list;
        mod parse;
        pub mod table;
        pub use list::{Abi, Availability, Family, Function, Interface, Param};
    }
}

fn abi_table() {
    println!("cargo:rerun-if-changed=src/abi");
    let abi = src::abi::Abi::parse(include_str!("src/abi/irt.h"), include_str!("src/abi/ppapi.h"))
        .unwrap_or_else(|e| panic!("src/abi/{e}"));
    let dest = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("abi_table.txt");
    std::fs::write(&dest, src::abi::table::encode(&abi)).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}
