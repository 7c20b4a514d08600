#!/usr/bin/env bash
# The speed goals of issue 9, measured in one run, each row with its ratio to
# the goal (>= 1.00 meets it):
#
#   scripts/bench.sh [C_SOURCES_DIR]
#
# 1. CLI rows (examples/bench.rs, on the two largest corpus pexes): decode +
#    verify MB/s on one core, pexe -> wasm translation MB/s on one core, the
#    speed-up on 2 threads, translator peak heap against 4 x pexe + 16 MiB.
# 2. Run time (scripts/bench-runtime.sh): `pexe run` of the 7 Benchmarks Game
#    pexes against the same C built by clang -O2 for wasm32-wasi in the same
#    Node, geomean and worst; only when C_SOURCES_DIR (binarytrees.c ...
#    spectralnorm.c, public in binji/pnacl.c under test/benchmark/res) is given.
# 3. Browser rows (package in Chromium, streaming latency, package size;
#    with C_SOURCES_DIR also page stdout throughput and the run time in the
#    page against clang's wasm): scripts/bench-browser.sh.
#
# The criterion benchmark (cargo bench --bench decode) breaks decode + verify
# down by stage (bitstream, decode, verify); it is not needed for the table.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

"$here/setup.sh" ${1:+--bench}
command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
cd "$repo"

printf '\n==== CLI: decode + verify, translation, 2 threads, peak heap (examples/bench.rs) ====\n'
cargo run --release --quiet --example bench

if [ $# -ge 1 ]; then
    printf '\n==== run time: pexe run / clang -O2 wasm32-wasi in the same Node (scripts/bench-runtime.sh) ====\n'
    "$here/bench-runtime.sh" "$1" | tee "$repo/target/bench-runtime.txt"
    awk '/^geomean/ { g = $3; cold = $7 }
         NF == 8 && $1 != "benchmark" && $1 != "geomean" { if ($5 > worst) { worst = $5; name = $1 } if ($8 > cworst) { cworst = $8; cname = $1 } }
         END {
             printf "%-44s %14.2f×   goal %-22s ratio %5.2f %s\n", "run time, pexe run ÷ clang wasm, geomean of 7", g, "≤ 1.0×", 1.0 / g, (g <= 1.0 ? "met" : "MISSED");
             printf "%-44s %14.2f×   goal %-22s ratio %5.2f %s\n", "  worst (" name ")", worst, "≤ 1.2×", 1.2 / worst, (worst <= 1.2 ? "met" : "MISSED");
             printf "%-44s %14.2f×   (worst %s %.2f×)\n", "  translating every run (--no-cache)", cold, cname, cworst;
         }' "$repo/target/bench-runtime.txt"
else
    printf '\n(run time rows skipped: give the Benchmarks Game C sources directory as the first argument)\n'
fi

# ---- hook: browser rows (owned by the JavaScript side) ----
# Package translation MB/s in Chromium on 1 and 2 Workers, streaming latency
# (last byte -> module ready), page stdout throughput, package size (gzip).
if [ -x "$here/bench-browser.sh" ]; then
    printf '\n==== browser rows (scripts/bench-browser.sh) ====\n'
    if [ $# -ge 1 ]; then
        # Every browser row: the run time in the page needs the C sources.
        # Best (run time) or median (stdout) of 3: one run of each moved the
        # worst ratio by 0.2 on a loaded machine.
        PEXE_BENCH_ONLY="${PEXE_BENCH_ONLY:-size,translate,stream,stdout,runtime}" "$here/bench-browser.sh" "$1" "${PEXE_BENCH_REPEAT:-3}"
    else
        "$here/bench-browser.sh"
    fi
else
    printf '\n(browser rows: scripts/bench-browser.sh is not there yet)\n'
fi
