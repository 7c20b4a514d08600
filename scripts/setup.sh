#!/usr/bin/env bash
# Installs what the build and the tests need, skipping whatever is already
# there. Safe to run any number of times; main.sh and test.sh run it first.
#
#   scripts/setup.sh            what the build and every test need
#   scripts/setup.sh --bench    that, and the C toolchain of the run-time
#                               benchmark (scripts/bench-runtime.sh)
#
# Each step is a function: a guard that checks for the tool, then the action.
# Later milestones add their steps here (and call them at the bottom); this
# milestone needs only a Rust toolchain.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

log() { printf '[setup] %s\n' "$*" >&2; }

# rustup puts cargo in ~/.cargo/bin; a non-login shell may not have it on PATH.
ensure_cargo_on_path() {
    if command -v cargo >/dev/null 2>&1; then
        return
    fi
    if [ -f "$HOME/.cargo/env" ]; then
        # shellcheck disable=SC1091
        . "$HOME/.cargo/env"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        log "cargo not found: install Rust with rustup (https://rustup.rs), then re-run"
        exit 1
    fi
}

# The package states its minimum Rust in Cargo.toml (rust-version).
check_rust_version() {
    local want have
    want="$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n1)"
    have="$(rustc --version | awk '{print $2}')"
    if [ -n "$want" ] && [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
        log "rustc $have is older than the required $want: run 'rustup update stable'"
        exit 1
    fi
    log "rustc $have (need >= ${want:-any})"
}

# Tests and the benchmark read real pexes from ../shared/corpus; they are
# third-party data and never copied into the repository.
check_corpus() {
    if [ ! -d "$repo/../shared/corpus" ]; then
        log "warning: $repo/../shared/corpus not found; corpus tests will fail"
    fi
}

# Fetch crates once, up front, so network trouble shows here and not in the
# middle of a build. The native runtime (runtime/) is a workspace of its own,
# built by build.rs with --locked.
fetch_crates() {
    (cd "$repo" && cargo fetch --quiet)
    (cd "$repo/runtime" && cargo fetch --quiet --locked)
}

# ---- browser tests: Chromium + playwright-core (js/test/, tests/browser/) ----
# The runtime's browser tests (js/test/browser.test.mjs), the page's
# end-to-end tests and the bundler test (tests/browser/) drive Debian's
# Chromium through playwright-core (pinned in js/package-lock.json and
# tests/browser/package-lock.json; never `npx playwright install`). Every
# test needs them: in CI (CI=true) a failed install stops here, since the
# tests would fail anyway; elsewhere it is a warning and those tests skip.

# Stops in CI, warns elsewhere.
need() {
    if [ "${CI:-}" = true ]; then
        log "error: $* (CI=true: every test must run)"
        exit 1
    fi
    log "warning: $*; the tests that need it will be skipped"
}

ensure_chromium() {
    if [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        need "no Chromium at ${CHROMIUM:-/usr/bin/chromium} and no apt-get to install it"
        return
    fi
    log "apt-get install chromium"
    (as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || need "could not install chromium"
}

# `npm ci` in a folder with a package-lock.json, unless its node_modules is
# already what the lock says. js/'s also brings esbuild, with which build.rs
# bundles `pexe run`'s Node runner (js/scripts/bundle-runtime.mjs): build
# the CLI after this step, or it starts Node on the separate modules.
npm_ci() {
    local dir="$1"
    if [ -f "$dir/node_modules/.package-lock.json" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        return
    fi
    log "npm ci in ${dir#"$repo/"}"
    (cd "$dir" && npm ci --no-audit --no-fund --silent) || need "npm ci in ${dir#"$repo/"} failed"
}

ensure_browser_test_deps() {
    ensure_chromium
    if ! command -v npm >/dev/null 2>&1; then
        need "npm is not installed (it comes with Node.js 20+)"
        return
    fi
    npm_ci "$repo/js"
    npm_ci "$repo/tests/browser"
}

# The app tests check what webpenc.pexe encodes with Debian's WebP decoder
# (js/test-npm/apps.test.mjs, package webp: dwebp).
ensure_webp() {
    if command -v dwebp >/dev/null 2>&1; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        need "no dwebp and no apt-get to install it (package webp)"
        return
    fi
    log "apt-get install webp"
    (as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq webp >/dev/null) \
        || need "could not install webp"
}

# The video test encodes its H.264 clip with Debian's ffmpeg (libx264)
# (tests/browser/video.test.mjs, package ffmpeg).
ensure_ffmpeg() {
    if command -v ffmpeg >/dev/null 2>&1; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        need "no ffmpeg and no apt-get to install it (package ffmpeg)"
        return
    fi
    log "apt-get install ffmpeg"
    (as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg >/dev/null) \
        || need "could not install ffmpeg"
}
# ---- end browser tests --------------------------------------------------------

# ---- npm package: wasm32 target, wasm-bindgen CLI, ChromeDriver ---------------
# scripts/build-pkg.sh runs cargo + wasm-bindgen directly (no wasm-pack: it
# would only run those two, after a 2.5-minute install, and it tries to
# download binaryen from GitHub and its own wasm-bindgen; wasm-opt comes from
# npm's binaryen, js/package.json). tests/web.rs runs in headless
# Chromium through ChromeDriver (wasm-bindgen-test-runner + webdriver.json).

# Runs a command as root: directly, or through sudo.
as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        log "need root for: $* (no sudo)"
        return 1
    fi
}

ensure_wasm_target() {
    if ! command -v rustup >/dev/null 2>&1; then
        log "warning: no rustup; the wasm32-unknown-unknown standard library must come with your Rust"
        return
    fi
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        log "rustup target add wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi
}

# The CLI must be exactly the wasm-bindgen version in Cargo.lock (the
# generated glue and the library agree on a private ABI). No --locked: the
# CLI's own lockfile pins a crate version the registry no longer serves.
ensure_wasm_bindgen_cli() {
    local want
    want="$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"/\1/p}' "$repo/Cargo.lock")"
    if [ -z "$want" ]; then
        log "warning: no wasm-bindgen in Cargo.lock"
        return
    fi
    if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $want"; then
        return
    fi
    log "cargo install wasm-bindgen-cli --version $want (about 3 minutes)"
    cargo install wasm-bindgen-cli --version "$want"
}

ensure_chromedriver() {
    if command -v chromedriver >/dev/null 2>&1 && [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        log "warning: no chromium/chromedriver and no apt-get; the wasm-bindgen browser tests will fail"
        return
    fi
    log "apt-get install chromium chromium-driver"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
}
# ---- end npm package ----------------------------------------------------------

# ---- native back end: the AArch64 Rust target, C linkers, QEMU, readelf ------
# build.rs builds the native runtime for every installed Linux target and
# embeds it in pexe; `pexe build` links with the system cc (x86-64) and
# Debian's aarch64-linux-gnu-gcc (its arm64 libc makes static executables);
# tests/all/native.rs runs the AArch64 ones under qemu-aarch64-static and reads
# objects with readelf.
ensure_native_rust_targets() {
    if ! command -v rustup >/dev/null 2>&1; then
        log "warning: no rustup; the native runtime builds only for the Rust targets your toolchain has"
        return
    fi
    local t
    for t in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu; do
        if ! rustup target list --installed | grep -qx "$t"; then
            log "rustup target add $t"
            rustup target add "$t"
        fi
    done
}

ensure_native_tools() {
    if command -v cc >/dev/null 2>&1 && command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 \
        && command -v qemu-aarch64-static >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        log "warning: need cc, aarch64-linux-gnu-gcc, qemu-aarch64-static and readelf; no apt-get to install them"
        return
    fi
    log "apt-get install gcc binutils gcc-aarch64-linux-gnu qemu-user-static"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        gcc binutils gcc-aarch64-linux-gnu qemu-user-static >/dev/null
}
# ---- end native back end ------------------------------------------------------

# ---- run-time benchmark: clang for wasm32-wasi, gcc, GNU time -----------------
# scripts/bench-runtime.sh and bench-browser.sh build the Benchmarks Game C
# sources with clang -O2 for wasm32-wasi (Debian: clang, lld, wasi-libc and
# the compiler-rt builtins for wasm32) and with gcc, and time them with GNU
# time. Only `--bench` asks for them: no test needs them.
bench_tools_work() {
    local probe
    command -v gcc >/dev/null 2>&1 && [ -x /usr/bin/time ] && command -v clang >/dev/null 2>&1 || return 1
    probe="$(mktemp -d)"
    printf '#include <stdio.h>\n#include <math.h>\nint main(void) { printf("%%f\\n", sqrt(2.0)); return 0; }\n' > "$probe/probe.c"
    clang --target=wasm32-wasi -O2 "$probe/probe.c" -o "$probe/probe.wasm" -lm >/dev/null 2>&1
    local ok=$?
    rm -rf "$probe"
    return $ok
}

ensure_bench_tools() {
    if bench_tools_work; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        log "error: the run-time benchmark needs clang, lld, wasi-libc, libclang-rt-14-dev-wasm32, gcc and time; no apt-get to install them"
        exit 1
    fi
    log "apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32 gcc time"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        clang lld wasi-libc libclang-rt-14-dev-wasm32 gcc time >/dev/null
    bench_tools_work || { log "error: clang still cannot build a wasm32-wasi program"; exit 1; }
}
# ---- end run-time benchmark ---------------------------------------------------

ensure_cargo_on_path
check_rust_version
check_corpus
fetch_crates
ensure_native_rust_targets  # native runtime archives (build.rs)
ensure_native_tools         # pexe build, tests/all/native.rs
ensure_wasm_target        # npm package (scripts/build-pkg.sh, tests/web.rs)
ensure_wasm_bindgen_cli   # npm package
ensure_chromedriver       # npm package (tests/web.rs)
ensure_browser_test_deps  # browser tests (tests/browser/); esbuild for build.rs; wasm-opt (npm binaryen) for build-pkg.sh
ensure_webp               # app tests (js/test-npm/apps.test.mjs)
ensure_ffmpeg             # video test (tests/browser/video.test.mjs)
if [ "${1:-}" = --bench ]; then
    ensure_bench_tools    # scripts/bench-runtime.sh, bench-browser.sh with C sources
fi
log "ready"
