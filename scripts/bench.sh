#!/usr/bin/env bash
# Speed and memory of the reading pipeline on the two largest corpus pexes:
# criterion throughput (MB/s) of the bitstream parser and of decode + verify,
# then the peak heap of decode + verify against the goal (4 × file + 16 MiB).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
corpus="$repo/../shared/corpus"

"$here/setup.sh"
command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
cd "$repo"

printf '\n==== throughput: cargo bench --bench decode ====\n'
cargo bench --bench decode

printf '\n==== peak memory: examples/peak_memory.rs ====\n'
cargo run --release --quiet --example peak_memory -- \
    "$corpus/ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe" \
    "$corpus/ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe"
