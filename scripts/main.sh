#!/usr/bin/env bash
# The main job: set up, build the `pexe` CLI in release, assemble the bundled
# samples (samples/*.records, written for this project) into pexes, show what
# the CLI makes of one (verify, dis, stats), run the hello sample through
# `pexe run`, then build the npm package and serve the page
# (scripts/serve.sh; Ctrl-C stops it). `--no-serve` stops after the CLI part.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="$repo/target/samples"
pexe="$repo/target/release/pexe"

banner() { printf '\n==== %s ====\n' "$*"; }

setup() {
    "$here/setup.sh"
    # setup.sh may have found cargo through ~/.cargo/env; do the same here.
    command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
}

build_cli() {
    banner "build: cargo build --release --bin pexe"
    (cd "$repo" && cargo build --release --bin pexe)
}

# text → pexe, with `pexe as`.
assemble_sample() {
    banner "assemble: pexe as samples/fact.records"
    mkdir -p "$out"
    "$pexe" as "$repo/samples/fact.records" -o "$out/fact.pexe"
    echo "wrote $out/fact.pexe ($(wc -c <"$out/fact.pexe") bytes)"
}

inspect_sample() {
    local file="$out/fact.pexe"
    banner "verify: pexe verify fact.pexe"
    # Prints one `byte:bit: error: …` line per ABI problem; none for a valid pexe.
    "$pexe" verify "$file"
    echo "fact.pexe: no ABI problems"
    banner "disassemble: pexe dis fact.pexe"
    "$pexe" dis "$file"
    banner "statistics: pexe stats fact.pexe"
    "$pexe" stats "$file"
}

run_sample() {
    banner "run: pexe as samples/hello.records && pexe run hello.pexe"
    "$pexe" as "$repo/samples/hello.records" -o "$out/hello.pexe"
    "$pexe" run "$out/hello.pexe"
}

main() {
    setup
    build_cli
    assemble_sample
    inspect_sample
    run_sample
    if [ "${1:-}" = "--no-serve" ]; then
        banner "done"
        return
    fi
    exec "$here/serve.sh" --no-build-cli
}

main "$@"
