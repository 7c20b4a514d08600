//! `pexe run`: translate a pexe to WebAssembly and run it under Node.js with
//! the JavaScript runtime (`js/src/internal/runtime/`, the NaCl IRT shim) — or,
//! with `--target native`, build a native executable in a temporary
//! directory (`pexe build`) and run that.
//!
//! The runtime's files are compiled into this binary and written once to a
//! cache directory named after their hash
//! (`$XDG_CACHE_HOME/pexe/runtime-<hash>/`, else `~/.cache/...`, else the
//! temp directory), so an installed `pexe` works outside the repository.
//! The translated module is kept beside it in the translation cache
//! (`translation_cache.rs`): running the same pexe again skips translating
//! it (`--no-cache` translates anyway, into a temporary file removed after
//! the run). Node (`node` on PATH, or `$PEXE_NODE`) then runs the Node
//! runner, `internal/node/run.mjs` bundled by build.rs
//! (`internal/node/run.bundle.mjs` and its chunks, which load faster than
//! the separate modules; the raw `run.mjs` when the build had no esbuild),
//! with the guest's stdin, stdout and stderr inherited, so the guest's
//! output passes through byte for byte, and its exit status becomes this
//! command's.

use crate::translation_cache::TranslationCache;
use crate::{display_name, fail, read_input, translate_or_report};
use clap::Args;
use pexe::back::wasm::{Options, Tiering};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const EXAMPLES: &str = "\
The program's argv[0] is FILE exactly as written; its environment is empty
unless --env adds to it; it sees no host files unless --dir exposes a
directory (at the same path as on the host). Its stdin, stdout and stderr
are this command's, byte for byte, and its exit status is this command's.
A guest fault (a trap: out-of-bounds access, unreachable, division by zero,
a bad function pointer, stack overflow) prints
`pexe: guest fault: <message> in function <name>` and exits with 134.

A Pepper plugin (a pexe made for a web page's <embed>) runs headless: each
message it posts to its page is printed as one line on stdout (strings as
they are, other values as JSON), each line of stdin is posted to it as a
string message, and its own stdout and stderr go to stderr. It ends when
the plugin exits, or once stdin has ended and the plugin has posted nothing
for --idle-timeout milliseconds, or on SIGINT/SIGTERM. With stdin left open
it is a server, e.g. a UCI chess engine a chess GUI can drive. Its file
systems (PPB_FileSystem) are in memory: the temporary one always, the
persistent one unless --storage keeps it in a host directory (nothing
outside that directory is reachable; symbolic links are refused). Its
sockets (PPB_TCPSocket, PPB_UDPSocket, PPB_HostResolver) reach nothing
(PP_ERROR_NOACCESS, as on a web page) unless --net names what they may
reach through Node's own sockets, or --socket-relay sends them through a
socket relay (`npx pexe relay`, docs/relay.md).

Needs Node.js 20 or newer: `node` on PATH, or the path in PEXE_NODE.

With `--target native` (or x86_64-linux, aarch64-linux) the pexe is
translated to machine code, linked with the native runtime in a temporary
directory and run there: same arguments, environment, --dir and exit
status, same fault messages. A target of another architecture runs through
qemu-user (`qemu-aarch64-static`, `qemu-x86_64-static`) when it is
installed.

Examples:

    # Run a command-line pexe with arguments
    pexe run fannkuchredux.pexe -- 7

    # Give it an environment variable and the files of the current directory
    pexe run --env HOME=/tmp --dir . app.pexe -- input.txt

    # Watch every IRT call it makes
    pexe run --trace hello.pexe

    # Talk to a Pepper plugin: a UCI chess engine
    printf 'uci\nisready\ngo depth 10\n' | pexe run stockfish.pexe

    # Give a plugin the attributes its <embed> had
    pexe run --attr width=640 --attr height=480 --attr ARG1=-v app.pexe

    # Keep a plugin's persistent file system (its saves) in a directory
    pexe run --storage saves/ xsystem35.pexe

    # Let a plugin's sockets reach one server, or go through a relay
    pexe run --net 127.0.0.1:7000 client.pexe
    pexe run --socket-relay ws://127.0.0.1:8787/ client.pexe


    # As machine code
    pexe run --target native fannkuchredux.pexe -- 9";

/// Translate a pexe to WebAssembly and run it with Node.js.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Run {
    /// The pexe to run (`-` reads standard input).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Arguments for the program (after `--`).
    #[arg(last = true, value_name = "ARGS")]
    args: Vec<OsString>,

    /// Set an environment variable of the program (repeatable).
    #[arg(long = "env", value_name = "K=V", value_parser = parse_env)]
    env: Vec<String>,

    /// Expose a host directory to the program, read-write, at its own path (repeatable).
    #[arg(long = "dir", value_name = "HOST_DIR")]
    dirs: Vec<PathBuf>,

    /// Log every IRT call and its result to standard error.
    #[arg(long)]
    trace: bool,

    /// Size of the main thread's stack in bytes (suffix k or m; default 8m).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    stack_size: Option<u64>,

    /// `wasm` (default, under Node), `native` (this machine), or
    /// `x86_64-linux` / `aarch64-linux`.
    #[arg(long, value_name = "TARGET", default_value = "wasm")]
    target: String,

    /// Run as browsers do: baseline code first, hot functions optimized later (the
    /// translation outlines loop nests so they can be); default: optimized up front but
    /// for the large functions (by the module's compilation hints).
    #[arg(long)]
    browser_tiering: bool,

    /// Pepper plugins: end this many milliseconds after stdin's end once the plugin is quiet.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    idle_timeout: u64,

    /// Pepper plugins: an attribute of its <embed>, passed to DidCreate (repeatable, in order).
    #[arg(long = "attr", value_name = "NAME=VALUE", value_parser = parse_env)]
    attrs: Vec<String>,

    /// Pepper plugins: the URL the plugin's URLs resolve against (default: FILE's directory).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,

    /// Pepper plugins: report the plugin's life cycle (loaded, load failures) on stderr.
    #[arg(long, short)]
    verbose: bool,

    /// Pepper plugins: keep the persistent file system (PPB_FileSystem LOCALPERSISTENT,
    /// nacl_io's html5fs) in this host directory, confined to it (default: in memory).
    #[arg(long, value_name = "DIR")]
    storage: Option<PathBuf>,

    /// Pepper plugins: let the plugin's sockets reach what PATTERN names, through Node's own
    /// (`*`, or HOST[:PORTS] with HOST an address, [v6], CIDR or name; repeatable).
    #[arg(long = "net", value_name = "PATTERN", conflicts_with = "socket_relay")]
    net: Vec<String>,

    /// Pepper plugins: send the plugin's sockets through the socket relay at this ws:// URL.
    #[arg(long, value_name = "URL")]
    socket_relay: Option<String>,

    /// Translate the pexe even if the translation cache holds its module (and leave the cache alone).
    #[arg(long)]
    no_cache: bool,
}

fn parse_env(s: &str) -> Result<String, String> {
    match s.split_once('=') {
        Some((k, _)) if !k.is_empty() => Ok(s.to_string()),
        _ => Err(format!("expected K=V, got `{s}`")),
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    let (digits, scale) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1024),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1024 * 1024),
        _ => (s, 1),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("expected a size like 65536, 512k or 8m, got `{s}`"))?;
    let bytes = n
        .checked_mul(scale)
        .filter(|&b| (1..=STACK_SIZE_MAX).contains(&b));
    bytes.ok_or_else(|| {
        format!(
            "stack size must be between 1 byte and {} MiB",
            STACK_SIZE_MAX >> 20
        )
    })
}

/// The largest main-thread stack accepted (it must fit the 4 GiB memory).
const STACK_SIZE_MAX: u64 = 1 << 31;

/// V8's budget for tiering a function up (roughly bytes of code run; its
/// default is 1,800,000). Under the compilation hints only the large
/// functions and those without loops tier up, and the large ones are
/// costly to optimize (newlib's `_vfprintf_r`: 34 ms, in a meteor run that
/// spends far less than that in it). Ten times the default: meteor 0.89×,
/// binarytrees 0.97×, the other five unchanged (paired CPU time).
const TIERING_BUDGET: u32 = 20_000_000;

/// The environment variable naming the Node.js executable.
pub(crate) const NODE_ENV: &str = "PEXE_NODE";

impl Run {
    pub fn run(self) -> ExitCode {
        let name = display_name(&self.file);
        let native = match self.target.as_str() {
            "wasm" => None,
            "native" => match crate::native::target_or_host(None) {
                Ok(t) => Some(t),
                Err(code) => return code,
            },
            other => match crate::native::target_or_host(Some(other)) {
                Ok(t) => Some(t),
                Err(code) => return code,
            },
        };
        if native.is_some() && self.trace {
            return fail("--trace is only available with --target wasm");
        }
        let bytes = match read_input(&self.file) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        if let Some(target) = native {
            return self.run_native(&name, &bytes, target);
        }
        // Node compiles as the module's hints say (below): large functions
        // start as baseline code, the rest are optimized from the start.
        let tiering = if self.browser_tiering { Tiering::Dynamic } else { Tiering::Hinted };
        let options = Options { tiering, ..Options::default() };
        let roots = cache_roots();
        let cache = if self.no_cache { None } else { roots.iter().find_map(|root| TranslationCache::open(root)) };
        let key = cache.as_ref().map(|_| TranslationCache::key(&bytes, &cache_options(&options)));
        let cached = cache.as_ref().zip(key.as_deref()).and_then(|(cache, key)| cache.get(key));
        let (wasm, cached_path) = match cached {
            Some(entry) => (entry.wasm, Some(entry.path)),
            None => {
                let wasm = match translate_or_report(&name, &bytes, &options) {
                    Ok(wasm) => wasm,
                    Err(code) => return code,
                };
                let stored = cache.as_ref().zip(key.as_deref()).and_then(|(cache, key)| cache.put(key, &wasm));
                (wasm, stored)
            }
        };
        let runtime = match runtime_dir(&roots) {
            Ok(dir) => dir,
            Err(e) => return fail(format_args!("writing the JavaScript runtime: {e}")),
        };
        // Node reads the module from the cache, or else from a temporary file.
        let temp;
        let module_path = match cached_path {
            Some(path) => path,
            None => {
                temp = match TempFile::create("wasm", &wasm) {
                    Ok(f) => f,
                    Err(e) => return fail(format_args!("writing the translated module: {e}")),
                };
                temp.path.clone()
            }
        };

        let node = std::env::var_os(NODE_ENV).unwrap_or_else(|| "node".into());
        let mut cmd = Command::new(&node);
        // Compile the functions with V8's optimizing tier up front, but for
        // the large ones (Tiering::Hinted): wasm has no on-stack replacement,
        // so a hot loop inside a function called once (a pexe's `main` after
        // inlining) would otherwise stay in baseline code for the whole run
        // (2.3x slower on mandelbrot); the large ones, mostly libc's, would
        // cost more to optimize than they run at start-up, and their loop
        // nests are outlined. Workers inherit the flag.
        if !self.browser_tiering {
            cmd.arg("--experimental-wasm-compilation-hints");
            cmd.arg(format!("--wasm-tiering-budget={TIERING_BUDGET}"));
        }
        // A single-threaded module runs on Node's main thread (run.mjs
        // decides, from the module and this flag): give V8 as deep a stack
        // there as a guest thread's Worker has, within what the OS allows.
        if wasm_is_single_threaded(&wasm) {
            if let Some(kb) = main_thread_stack_kb() {
                cmd.arg(format!("--stack-size={kb}"));
            }
        }
        cmd.arg(runtime.join(runner()));
        cmd.arg("--argv0").arg(&self.file);
        for kv in &self.env {
            cmd.arg("--env").arg(kv);
        }
        for dir in &self.dirs {
            cmd.arg("--dir").arg(dir);
        }
        if self.trace {
            cmd.arg("--trace");
        }
        if let Some(size) = self.stack_size {
            cmd.arg("--stack-size").arg(size.to_string());
        }
        cmd.arg("--idle-timeout").arg(self.idle_timeout.to_string());
        for kv in &self.attrs {
            cmd.arg("--attr").arg(kv);
        }
        if let Some(url) = self.base_url.clone().or_else(|| directory_url(&self.file)) {
            cmd.arg("--base-url").arg(url);
        }
        if self.verbose {
            cmd.arg("--verbose");
        }
        if let Some(dir) = &self.storage {
            cmd.arg("--storage").arg(dir);
        }
        for pattern in &self.net {
            cmd.arg("--net").arg(pattern);
        }
        if let Some(url) = &self.socket_relay {
            cmd.arg("--socket-relay").arg(url);
        }
        cmd.arg(&module_path).arg("--").args(&self.args);

        let status = match cmd.status() {
            Ok(status) => status,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return fail(format_args!(
                    "cannot run `{}`: not found (pexe run needs Node.js 20 or newer on PATH, or its path in {NODE_ENV})",
                    Path::new(&node).display()
                ))
            }
            Err(e) => return fail(format_args!("cannot run `{}`: {e}", Path::new(&node).display())),
        };
        exit_code(status)
    }
}

impl Run {
    /// `--target native`: build in a temporary directory, run, clean up.
    fn run_native(&self, name: &str, bytes: &[u8], target: pexe::back::native::Target) -> ExitCode {
        let obj = match crate::native::translate(name, bytes, target, 0) {
            Ok(obj) => obj,
            Err(code) => return code,
        };
        if pexe::back::native::object_is_pepper_plugin(&obj) {
            return fail(format_args!("{name} is a Pepper (PPAPI) plugin; the native runtime has no Pepper"));
        }
        let dir = match crate::native::TempDir::new("pexe-run") {
            Ok(d) => d,
            Err(e) => return fail(format_args!("making a temporary directory: {e}")),
        };
        let exe = dir.path.join("app");
        if let Err(e) = crate::native::link(target, &obj, &exe) {
            return fail(e);
        }
        let mut cmd = if pexe::back::native::Target::host() == Some(target) {
            let mut c = Command::new(&exe);
            #[cfg(unix)]
            {
                use std::os::unix::process::CommandExt;
                c.arg0(&self.file);
            }
            c
        } else {
            let qemu = match target {
                pexe::back::native::Target::Aarch64Linux => "qemu-aarch64-static",
                pexe::back::native::Target::X86_64Linux => "qemu-x86_64-static",
            };
            let mut c = Command::new(qemu);
            c.arg("-0").arg(&self.file).arg(&exe);
            c
        };
        cmd.args(&self.args);
        // The guest's environment is --env, as with the wasm runtime.
        cmd.env_clear();
        for kv in &self.env {
            if let Some((k, v)) = kv.split_once('=') {
                cmd.env(k, v);
            }
        }
        if !self.dirs.is_empty() {
            let dirs: Vec<String> = self.dirs.iter().map(|d| d.to_string_lossy().into_owned()).collect();
            cmd.env("PEXE_DIRS", dirs.join(":"));
        }
        if let Some(size) = self.stack_size {
            cmd.env("PEXE_STACK_SIZE", size.to_string());
        }
        let status = match cmd.status() {
            Ok(s) => s,
            Err(e) => return fail(format_args!("cannot run the executable: {e}")),
        };
        drop(dir);
        exit_code(status)
    }
}

/// `file:` URL of the directory holding `file` (None for stdin or an
/// unrepresentable path).
/// V8's stack for a guest thread in KiB: a Worker's `stackSizeMb`
/// (`WORKER_STACK_MB` in js/src/internal/node/host.js; a test keeps them equal).
const GUEST_STACK_KB: u64 = 8 * 1024;
/// What the OS stack must keep beyond V8's limit: Node's own frames below
/// the guest's, and V8's slack past its check.
const STACK_MARGIN_KB: u64 = 512;

/// Whether the module starts with the translator's single-threaded mark
/// (`back::wasm::SINGLE_THREADED_SECTION`, an empty custom section).
fn wasm_is_single_threaded(wasm: &[u8]) -> bool {
    let name = pexe::back::wasm::SINGLE_THREADED_SECTION.as_bytes();
    // Header, section id 0, size (one LEB byte: 1 + name), name length, name.
    wasm.len() >= 11 + name.len()
        && wasm[8] == 0
        && usize::from(wasm[9]) == 1 + name.len()
        && usize::from(wasm[10]) == name.len()
        && &wasm[11..11 + name.len()] == name
}

/// `--stack-size` for Node's main thread: the guest's stack when the OS
/// stack limit (`ulimit -s`, read from /proc) leaves room for it with a
/// margin, else as much as fits; None when the limit is unknown or too small
/// (run.mjs then keeps the guest in a Worker).
fn main_thread_stack_kb() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max stack size"))?;
    let soft = line["Max stack size".len()..].split_whitespace().next()?;
    let limit_kb = if soft == "unlimited" { u64::MAX } else { soft.parse::<u64>().ok()? / 1024 };
    let kb = GUEST_STACK_KB.min(limit_kb.saturating_sub(STACK_MARGIN_KB));
    (kb >= GUEST_STACK_KB - 1024).then_some(kb)
}

fn directory_url(file: &Path) -> Option<String> {
    if file.as_os_str() == "-" {
        return None;
    }
    let abs = std::path::absolute(file).ok()?;
    let dir = abs.parent()?.to_str()?;
    let mut url = String::from("file://");
    for b in dir.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => url.push(b as char),
            _ => url.push_str(&format!("%{b:02X}")),
        }
    }
    if !url.ends_with('/') {
        url.push('/');
    }
    Some(url)
}

/// The command's exit code for Node's exit status (128 + N for signal N).
pub(crate) fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(code as u8);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitCode::from((128 + signal) as u8);
        }
    }
    ExitCode::FAILURE
}

/// A file in the temp directory, removed when dropped.
struct TempFile {
    path: PathBuf,
}

impl TempFile {
    fn create(ext: &str, bytes: &[u8]) -> io::Result<TempFile> {
        let path = unique_path(&std::env::temp_dir(), "pexe-run", ext);
        std::fs::write(&path, bytes)?;
        Ok(TempFile { path })
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `dir/prefix-<pid>-<nanos>-<n>.ext`, a name no other run uses.
fn unique_path(dir: &Path, prefix: &str, ext: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = format!("{prefix}-{}-{nanos}-{n}", std::process::id());
    dir.join(if ext.is_empty() {
        name
    } else {
        format!("{name}.{ext}")
    })
}

// RUNTIME_DIRS and RUNTIME_FILES: every file of the runtime's folders of
// `js/src/`, as (path relative to js/src, contents); RUNTIME_BUNDLE and
// BUNDLE_ENTRY: the Node runner bundled, or why not. Generated by build.rs.
include!(concat!(env!("OUT_DIR"), "/runtime_files.rs"));

/// The Node runner as written, relative to the runtime's folder.
const RUNNER: &str = "internal/node/run.mjs";

/// What Node starts: the bundled runner when the build made one.
fn runner() -> &'static str {
    BUNDLE_ENTRY.unwrap_or(RUNNER)
}

/// Makes the `.js` files ES modules (as `js/package.json` does in the repo).
const PACKAGE_JSON: &str = "{ \"type\": \"module\", \"private\": true }\n";

/// Written last: a directory without it is incomplete.
const COMPLETE_MARKER: &str = ".complete";

/// FNV-1a over every file's path and contents, the bundle's included: the
/// cache directory's name. build.rs computes it as `RUNTIME_HASH`; this
/// recomputation checks that both agree.
#[cfg(test)]
fn runtime_hash() -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(env!("CARGO_PKG_VERSION").as_bytes());
    for (path, text) in RUNTIME_FILES.iter().chain(RUNTIME_BUNDLE) {
        eat(path.as_bytes());
        eat(&[0]);
        eat(text.as_bytes());
        eat(&[0]);
    }
    h
}

/// Where `pexe run` keeps its files (the runtime, the translation cache),
/// in order of preference: `$XDG_CACHE_HOME/pexe`, else `~/.cache/pexe`,
/// then the temp directory.
pub(crate) fn cache_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        roots.push(PathBuf::from(dir).join("pexe"));
    } else if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        roots.push(PathBuf::from(home).join(".cache").join("pexe"));
    }
    roots.push(std::env::temp_dir().join("pexe-cache"));
    roots
}

/// What, besides the pexe and the translator, decides the module's bytes:
/// part of its translation cache key.
fn cache_options(o: &Options) -> String {
    let Options { wat, names, parallel: _, threads: _, fast_libm, tiering } = o;
    format!("wat={wat} names={names} fast_libm={fast_libm} tiering={tiering:?}")
}

/// Where the runtime lives: the first of `roots` that works.
pub(crate) fn runtime_dir(roots: &[PathBuf]) -> io::Result<PathBuf> {
    let name = format!("runtime-{RUNTIME_HASH:016x}");
    let mut last_err = io::Error::other("no cache directory");
    for root in roots {
        match install_runtime(root, &name) {
            Ok(dir) => return Ok(dir),
            Err(e) => last_err = e,
        }
    }
    Err(last_err)
}

/// Writes the runtime to `root/name` unless it is already there; a
/// concurrent run writing the same files is harmless (write aside, rename).
fn install_runtime(root: &Path, name: &str) -> io::Result<PathBuf> {
    let dir = root.join(name);
    if dir.join(COMPLETE_MARKER).is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(root)?;
    let staging = unique_path(root, &format!("{name}.tmp"), "");
    let written = write_runtime(&staging);
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if std::fs::rename(&staging, &dir).is_err() {
        // Another run got there first, or a stale incomplete copy is in the way.
        let _ = std::fs::remove_dir_all(&staging);
        if !dir.join(COMPLETE_MARKER).is_file() {
            let _ = std::fs::remove_dir_all(&dir);
            write_runtime(&dir)?;
        }
    }
    Ok(dir)
}

fn write_runtime(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("package.json"), PACKAGE_JSON)?;
    for (path, text) in RUNTIME_FILES.iter().chain(RUNTIME_BUNDLE) {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, text)?;
    }
    std::fs::write(dir.join(COMPLETE_MARKER), "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_hashes_the_runtime_as_run_does() {
        assert_eq!(RUNTIME_HASH, runtime_hash());
    }

    /// Every file of the runtime's folders is compiled in (READMEs aside).
    #[test]
    fn every_runtime_file_is_embedded() {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, base, out);
                } else if path.extension().and_then(|e| e.to_str()) != Some("md") {
                    out.push(path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"));
                }
            }
        }
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/src");
        let mut on_disk = Vec::new();
        for dir in RUNTIME_DIRS {
            walk(&base.join(dir), &base, &mut on_disk);
        }
        on_disk.sort();
        let mut embedded: Vec<String> = RUNTIME_FILES.iter().map(|(p, _)| p.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        assert!(embedded.iter().any(|p| p == RUNNER));
    }

    #[test]
    fn guest_stack_matches_the_workers() {
        let host = RUNTIME_FILES.iter().find(|(p, _)| *p == "internal/node/host.js").expect("host.js is embedded").1;
        let mb = GUEST_STACK_KB / 1024;
        assert!(host.contains(&format!("export const WORKER_STACK_MB = {mb};")), "host.js WORKER_STACK_MB is not {mb}");
        let run = RUNTIME_FILES.iter().find(|(p, _)| *p == RUNNER).unwrap().1;
        assert!(run.contains("WORKER_STACK_MB * 1024 - 1024"), "run.mjs's threshold drifted from main_thread_stack_kb");
    }

    #[test]
    fn single_threaded_mark() {
        let name = pexe::back::wasm::SINGLE_THREADED_SECTION.as_bytes();
        let mut wasm = b"\0asm\x01\0\0\0\0".to_vec();
        wasm.push(1 + name.len() as u8);
        wasm.push(name.len() as u8);
        wasm.extend_from_slice(name);
        assert!(wasm_is_single_threaded(&wasm));
        assert!(!wasm_is_single_threaded(&wasm[..wasm.len() - 1]));
        wasm[12] ^= 1;
        assert!(!wasm_is_single_threaded(&wasm));
    }

    /// The relative module specifiers in `text`: `from '…'`, `import('…')`
    /// and `new URL('…', import.meta.url)` (Worker scripts), outside `//`
    /// and `*` comment lines.
    fn relative_imports(text: &str) -> Vec<String> {
        let mut all = MODULE_OPENERS.to_vec();
        all.extend(URL_OPENERS);
        relative_specifiers(text, &all)
    }

    /// What opens a module specifier: a static or dynamic import.
    const MODULE_OPENERS: [&str; 4] = ["from '", "from \"", "import('", "import(\""];
    /// What opens a URL relative to the module: a Worker's script.
    const URL_OPENERS: [&str; 2] = ["new URL('", "new URL(\""];

    /// The relative specifiers in `text` that follow one of `openers`,
    /// outside `//` and `*` comment lines.
    fn relative_specifiers(text: &str, openers: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
                continue;
            }
            for opener in openers {
                let mut rest = code;
                while let Some(at) = rest.find(opener) {
                    let after = &rest[at + opener.len()..];
                    let quote = opener.chars().last().unwrap();
                    let Some(end) = after.find(quote) else { break };
                    let spec = &after[..end];
                    if spec.starts_with("./") || spec.starts_with("../") {
                        out.push(spec.to_string());
                    }
                    rest = &after[end..];
                }
            }
        }
        out
    }

    /// The embedded runtime is whole: every module or Worker script an
    /// embedded file refers to is embedded too. (A folder the runtime
    /// starts to use must be added to build.rs's RUNTIME_DIRS.)
    #[test]
    fn the_embedded_runtime_imports_only_embedded_files() {
        let embedded: std::collections::HashSet<&str> = RUNTIME_FILES.iter().map(|(p, _)| *p).collect();
        let mut checked = 0;
        for (path, text) in RUNTIME_FILES {
            for spec in relative_imports(text) {
                let target = resolve(path, &spec);
                assert!(
                    embedded.contains(target.as_str()),
                    "{path} refers to {spec} ({target}), which `pexe run` does not embed: add its folder to RUNTIME_DIRS in build.rs"
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "only {checked} imports found: is the scanner broken?");
        assert_eq!(
            relative_imports("import { a } from './a.js';\n// from './comment.js'\nnew URL('../w.js', import.meta.url); import('node:fs');"),
            ["./a.js", "../w.js"]
        );
    }

    /// `spec` relative to the file at `path` (both within the runtime's folder).
    fn resolve(path: &str, spec: &str) -> String {
        let mut parts: Vec<&str> = path.split('/').collect();
        parts.pop();
        for part in spec.split('/') {
            match part {
                "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        parts.join("/")
    }

    /// With `CI=true` the build must have bundled the runner: a build
    /// without esbuild (no `npm ci` in js/) is a failure there, not a
    /// slower `pexe run` nobody notices.
    #[test]
    fn the_runner_is_bundled_in_ci() {
        if std::env::var("CI").as_deref() == Ok("true") {
            if let Err(why) = BUNDLE_ENTRY {
                panic!("CI=true, but the Node runner was not bundled: {why} (scripts/setup.sh runs `npm ci` in js/)");
            }
        }
        match BUNDLE_ENTRY {
            Ok(entry) => {
                assert_eq!(runner(), entry);
                assert!(RUNTIME_BUNDLE.iter().any(|(p, _)| *p == entry));
            }
            Err(_) => {
                assert_eq!(runner(), RUNNER);
                assert!(RUNTIME_BUNDLE.is_empty());
            }
        }
    }

    /// The bundle is whole and keeps one copy of each module: its files
    /// import only each other (a raw file imported too would be a second
    /// instance of a module in the same thread), and the URLs they make
    /// from `import.meta.url` (host.js's Worker script) name raw files,
    /// which holds only because every bundle file sits where host.js does,
    /// in internal/node/.
    #[test]
    fn the_bundle_imports_only_itself_and_starts_raw_workers() {
        let Ok(entry) = BUNDLE_ENTRY else { return };
        let raw: std::collections::HashSet<&str> = RUNTIME_FILES.iter().map(|(p, _)| *p).collect();
        let bundle: std::collections::HashSet<&str> = RUNTIME_BUNDLE.iter().map(|(p, _)| *p).collect();
        assert!(entry.starts_with("internal/node/"), "{entry}");
        let mut imports = 0;
        let mut urls = Vec::new();
        for (path, text) in RUNTIME_BUNDLE {
            assert_eq!(path.rsplit_once('/').map(|(dir, _)| dir), Some("internal/node"), "{path} is not beside host.js");
            assert!(!raw.contains(path), "{path} would overwrite a raw file");
            for spec in relative_specifiers(text, &MODULE_OPENERS) {
                let target = resolve(path, &spec);
                assert!(bundle.contains(target.as_str()), "{path} imports {spec}, which is not a file of the bundle");
                imports += 1;
            }
            for spec in relative_specifiers(text, &URL_OPENERS) {
                let target = resolve(path, &spec);
                assert!(raw.contains(target.as_str()), "{path} makes a URL of {spec} ({target}), which is no embedded file");
                urls.push(target);
            }
        }
        assert!(imports >= RUNTIME_BUNDLE.len() - 1, "only {imports} imports between {} files", RUNTIME_BUNDLE.len());
        assert!(urls.iter().any(|u| u == "internal/node/worker.js"), "{urls:?}");
    }

    #[test]
    fn the_runtime_installs_once_and_is_found_again() {
        let root = unique_path(&std::env::temp_dir(), "pexe-run-test", "");
        let name = format!("runtime-{RUNTIME_HASH:016x}");
        let dir = install_runtime(&root, &name).unwrap();
        assert!(dir.join(RUNNER).is_file());
        assert!(dir.join(runner()).is_file());
        for (path, text) in RUNTIME_BUNDLE {
            assert_eq!(&std::fs::read_to_string(dir.join(path)).unwrap(), text);
        }
        assert!(dir.join("internal/node/worker.js").is_file());
        assert!(dir.join("internal/runtime/threads/worker.js").is_file());
        assert_eq!(
            std::fs::read_to_string(dir.join("package.json")).unwrap(),
            PACKAGE_JSON
        );
        assert_eq!(install_runtime(&root, &name).unwrap(), dir);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn sizes_and_env_values_are_checked() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("512k"), Ok(512 * 1024));
        assert_eq!(parse_size("8M"), Ok(8 << 20));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999m").is_err());
        assert_eq!(parse_env("A=b=c"), Ok("A=b=c".to_string()));
        assert!(parse_env("=x").is_err());
        assert!(parse_env("novalue").is_err());
    }
}
