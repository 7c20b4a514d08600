//! What the native commands share: translating to an object, the native
//! runtime archives compiled into this binary, and linking.

use pexe::back::native::{translate_bytes, Options, Target};
use std::process::ExitCode;

/// `x86_64-linux`, `aarch64-linux` (and their triples).
pub fn parse_target(s: &str) -> Option<Target> {
    Target::parse(s)
}

pub fn bad_target(s: &str) -> ExitCode {
    eprintln!("error: unknown target `{s}` (expected wasm, x86_64-linux or aarch64-linux)");
    ExitCode::from(2)
}

/// Translates `bytes` (named `name` in messages) to an object; prints
/// what went wrong and answers the exit code otherwise.
pub fn translate(name: &str, bytes: &[u8], target: Target, threads: usize) -> Result<Vec<u8>, ExitCode> {
    translate_with(name, bytes, target, threads, false)
}

/// [`translate`], optionally with the test driver's entry.
pub fn translate_with(
    name: &str,
    bytes: &[u8],
    target: Target,
    threads: usize,
    test_entry: bool,
) -> Result<Vec<u8>, ExitCode> {
    translate_bytes(bytes, &Options { target, threads, test_entry, ..Options::default() }).map_err(|e| crate::report(name, e))
}

/// The native runtime archives, built by build.rs and compiled in.
mod runtimes {
    include!(concat!(env!("OUT_DIR"), "/runtimes.rs"));
}

/// The runtime archive for `target`, or why this binary has none.
pub fn runtime_archive(target: Target) -> Result<&'static [u8], String> {
    let r = match target {
        Target::X86_64Linux => runtimes::X86_64,
        Target::Aarch64Linux => runtimes::AARCH64,
    };
    r.map_err(|why| format!("no native runtime for {target} in this build of pexe: {why}; then rebuild pexe"))
}

/// The C compiler driver that links for `target`: `$PEXE_CC_<ARCH>`, else
/// `cc` on a machine of that architecture, else Debian's cross compiler.
pub fn linker(target: Target) -> String {
    let (var, cross) = match target {
        Target::X86_64Linux => ("PEXE_CC_X86_64", "x86_64-linux-gnu-gcc"),
        Target::Aarch64Linux => ("PEXE_CC_AARCH64", "aarch64-linux-gnu-gcc"),
    };
    if let Some(cc) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return cc.to_string_lossy().into_owned();
    }
    if Target::host() == Some(target) {
        "cc".into()
    } else {
        cross.into()
    }
}

/// A directory in the temp directory, removed when dropped.
pub struct TempDir {
    pub path: std::path::PathBuf,
}

impl TempDir {
    pub fn new(prefix: &str) -> std::io::Result<TempDir> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!("{prefix}-{}-{nanos}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path)?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Links `object` with the runtime into the static executable `out`.
pub fn link(target: Target, object: &[u8], out: &std::path::Path) -> Result<(), String> {
    let archive = runtime_archive(target)?;
    let dir = TempDir::new("pexe-link").map_err(|e| format!("making a temporary directory: {e}"))?;
    let obj_path = dir.path.join("app.o");
    let lib_path = dir.path.join("libpexe_runtime.a");
    std::fs::write(&obj_path, object).map_err(|e| format!("writing {}: {e}", obj_path.display()))?;
    std::fs::write(&lib_path, archive).map_err(|e| format!("writing {}: {e}", lib_path.display()))?;
    let cc = linker(target);
    let output = std::process::Command::new(&cc)
        .args(["-static", "-Wl,--gc-sections", "-o"])
        .arg(out)
        .arg(&obj_path)
        .arg(&lib_path)
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "cannot link for {target}: `{cc}` not found (install it, e.g. Debian's {}, or name a compiler in PEXE_CC_{})",
                if target == Target::Aarch64Linux { "gcc-aarch64-linux-gnu" } else { "gcc" },
                if target == Target::Aarch64Linux { "AARCH64" } else { "X86_64" },
            ))
        }
        Err(e) => return Err(format!("cannot run `{cc}`: {e}")),
    };
    if !output.status.success() {
        return Err(format!("`{cc}` failed to link:\n{}", String::from_utf8_lossy(&output.stderr).trim_end()));
    }
    Ok(())
}

/// `--target` of the native commands, or this machine's.
pub fn target_or_host(name: Option<&str>) -> Result<Target, ExitCode> {
    match name {
        Some(n) => parse_target(n).ok_or_else(|| bad_target(n)),
        None => Target::host().ok_or_else(|| {
            eprintln!("error: this machine is neither x86-64 nor AArch64 Linux; name a --target");
            ExitCode::from(2)
        }),
    }
}
