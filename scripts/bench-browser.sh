#!/usr/bin/env bash
# The browser rows of the speed goals (issue 9), measured in headless
# Chromium in one run (tests/browser/bench.mjs says how each is measured):
#
#   scripts/bench-browser.sh [C_SOURCES_DIR] [REPEAT]
#
# (an empty C_SOURCES_DIR, "", skips the run time row but still sets REPEAT:
# the number of measured runs, at least 5 for translation, 3 for streaming)
#
#   package download    pexe_bg.wasm gzipped, against js/package.json's budget
#   translation         translateStreaming MB/s on 1 and 2 Workers (glb_nacl, xsystem35),
#                       in a page that is not cross-origin isolated
#   streaming           last byte of a throttled xsystem35.pexe -> module ready to instantiate
#   stdout              fasta's many small writes: the page's runner; run() in a Worker to a
#                       function, into an OutputRing the page drains, discarded (the guest alone)
#   run time            the 7 Benchmarks Game pexes via run() vs clang -O2 wasm32-wasi of the
#                       same C, both in Workers of the page; only with C_SOURCES_DIR
#                       (binarytrees.c ... spectralnorm.c, public in binji/pnacl.c under
#                       test/benchmark/res; not shipped here)
#
# By default the rows size, translate and stream; PEXE_BENCH_ONLY=stdout,runtime
# (any of size translate stream stdout runtime) measures those rows instead
# (runtime also needs C_SOURCES_DIR). scripts/bench.sh calls it.
#
# Installs what it needs when it is missing (scripts/setup.sh: Chromium,
# playwright-core; with C_SOURCES_DIR, `--bench`: Debian's clang lld
# wasi-libc libclang-rt-14-dev-wasm32). pkg/ is rebuilt first (scripts/build-pkg.sh), so
# the rows measure the tree as it is. The machine may be shared: the rows
# carry the load average.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
browser="$repo/tests/browser"
command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"

if [ -n "${1:-}" ]; then "$here/setup.sh" --bench; else "$here/setup.sh"; fi
"$here/build-pkg.sh" >/dev/null
if [ ! -x "$repo/target/release/pexe" ]; then
    (cd "$repo" && cargo build --release --bin pexe)
fi
"$here/build-samples.sh" "$repo/target/release/pexe" >/dev/null
if [ ! -d "$browser/node_modules/playwright-core" ] || [ ! -d "$browser/node_modules/@bjorn3/browser_wasi_shim" ]; then
    (cd "$browser" && npm ci --no-audit --no-fund)
fi

args=(--repeat "${2:-1}")
[ -n "${PEXE_BENCH_ONLY:-}" ] && args+=(--only "$PEXE_BENCH_ONLY")
if [ -n "${1:-}" ]; then
    src="$(cd "$1" && pwd)"
    out="$repo/target/bench-browser"
    mkdir -p "$out"
    for name in binarytrees fannkuchredux fasta mandelbrot meteor nbody spectralnorm; do
        clang --target=wasm32-wasi -O2 -Wl,-z,stack-size=8388608 "$src/$name.c" -o "$out/$name.wasm" -lm
    done
    args+=(--wasi "$out")
fi
cd "$browser"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}" node bench.mjs "${args[@]}"
