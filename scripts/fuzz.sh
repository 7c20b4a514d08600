#!/usr/bin/env bash
# Coverage-guided fuzzing of fuzz/fuzz_targets/decode_verify.rs on stable Rust.
#
#   ./scripts/fuzz.sh [SECONDS]        (default 300)
#
# cargo-fuzz needs nightly only for AddressSanitizer, which safe Rust does not
# need: libFuzzer's coverage instrumentation (SanitizerCoverage) is reachable
# through stable `-C` flags, and libfuzzer-sys builds libFuzzer itself. So
# this builds the target with those flags for the host triple (so build
# scripts and proc macros stay uninstrumented), seeds it with the shared
# corpus, runs it, and lists each distinct panic. Overflow checks and
# debug assertions are on: arithmetic that would wrap silently in release is
# a bug too. Exit status 1 if anything crashed, hung or ran out of memory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
seconds="${1:-300}"

"$here/setup.sh"
command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"

host="$(rustc -vV | sed -n 's/^host: //p')"
target_dir="$repo/fuzz/target/stable"
seeds="$repo/fuzz/corpus/decode_verify"
artifacts="$repo/fuzz/artifacts/decode_verify"
bin="$target_dir/$host/release/decode_verify"

printf '==== build (SanitizerCoverage, stable) ====\n'
RUSTFLAGS="-Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 --cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
    cargo build --release --manifest-path "$repo/fuzz/Cargo.toml" --target "$host" --target-dir "$target_dir"

# libFuzzer reads every corpus directory given (recursively) and writes the
# inputs it finds interesting into the first: fuzz/corpus (gitignored) gets
# only those, and the shared corpus is read in place, never copied.
mkdir -p "$seeds" "$artifacts"

printf '\n==== fuzz for %ss ====\n' "$seconds"
# -fork keeps going after a crash, so one run finds more than one bug.
"$bin" "$seeds" "$repo/../shared/corpus" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -timeout=2 -rss_limit_mb=1024 -max_len=131072 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 \
    | grep -E '^#[0-9]+: |INFO: exiting|stat::' || true

printf '\n==== findings (in %s) ====\n' "$artifacts"
found=0
for f in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -e "$f" ] || continue
    found=1
    # The binary exits non-zero on its crash input: keep going.
    what="$({ "$bin" "$f" 2>&1 || true; } | grep -m1 -A1 'panicked at' | tr '\n' ' ' | sed -E 's/thread [^ ]+ \([0-9]+\) //' || true)"
    printf '%s\t%s\n' "${what:-$(basename "$f" | cut -d- -f1) (no panic message)}" "$f"
done | sort | awk -F'\t' '{ if ($1 != last) { print $1; print "    e.g. " $2; last = $1 } }'
for f in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -e "$f" ] && found=1
done
if [ "$found" -ne 0 ]; then
    echo "reproduce one: $bin FILE   or   target/release/pexe verify FILE"
    exit 1
fi
echo "none"
