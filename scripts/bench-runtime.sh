#!/usr/bin/env bash
# Run-time benchmark: the seven Benchmarks Game pexes translated by pexe and run
# under Node, against the same C programs compiled by clang to wasm32-wasi
# (run with node:wasi in the same Node) and by gcc -O2 natively.
#
#   scripts/bench-runtime.sh C_SOURCES_DIR [REPEAT]
#
# C_SOURCES_DIR holds binarytrees.c, fannkuchredux.c, fasta.c, mandelbrot.c,
# meteor.c, nbody.c, spectralnorm.c (public in binji/pnacl.c under
# test/benchmark/res/; not shipped here). `scripts/setup.sh --bench` installs
# what it needs (Debian clang lld wasi-libc libclang-rt-14-dev-wasm32 gcc
# time) when it is missing. Reports user+sys CPU seconds per run
# (the machine is shared and noisy: CPU time is steadier than wall time) and
# the ratios, with the geometric mean. The pexes come from ../shared/corpus.
# `pexe run` keeps translations in its cache, so its best run starts from
# the cache (as any second run of a program does); the `cold` columns time
# `pexe run --no-cache`, which translates every time.
set -euo pipefail
src="$(cd "${1:?usage: bench-runtime.sh C_SOURCES_DIR [REPEAT]}" && pwd)"
repeat="${2:-3}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="$repo/../shared/corpus/cli/binji_pnacl_c/test/benchmark/res"
work="$repo/target/bench-runtime"
mkdir -p "$work"
"$repo/scripts/setup.sh" --bench
cd "$repo"
cargo build --release --quiet
pexe="$repo/target/release/pexe"

cat > "$work/wasi-run.mjs" <<'JS'
import { WASI } from 'node:wasi';
import { readFileSync } from 'node:fs';
const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(file));
process.exitCode = wasi.start(await WebAssembly.instantiate(module, wasi.getImportObject()));
JS

# name and argument, as the issue sets them (each takes seconds).
benches="nbody:5000000 spectralnorm:2000 mandelbrot:4000 fannkuchredux:10 binarytrees:16 fasta:2500000 meteor:2098"

# Best-of-$repeat CPU seconds (user+sys) of a command, output discarded.
cpu() {
    local best=""
    for _ in $(seq "$repeat"); do
        local t
        /usr/bin/time -o "$work/time.txt" -f '%U %S' "$@" >/dev/null 2>&1
        t=$(tail -1 "$work/time.txt" | awk '{print $1 + $2}')
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best="$t"; fi
    done
    echo "$best"
}

printf '%-14s %10s %10s %10s %12s %12s %10s %12s\n' benchmark pexe clang-wasm gcc pexe/clang clang/gcc cold cold/clang
logs=""
for spec in $benches; do
    name="${spec%%:*}"; arg="${spec##*:}"
    clang --target=wasm32-wasi -O2 -Wl,-z,stack-size=8388608 "$src/$name.c" -o "$work/$name.wasm" -lm 2>/dev/null
    gcc -O2 "$src/$name.c" -o "$work/$name.native" -lm 2>/dev/null
    # Outputs must agree before timings mean anything.
    "$pexe" run "$corpus/$name.pexe" -- "$arg" > "$work/$name.pexe.out"
    node --no-warnings "$work/wasi-run.mjs" "$work/$name.wasm" "$arg" > "$work/$name.wasm.out"
    cmp -s "$work/$name.pexe.out" "$work/$name.wasm.out" || echo "warning: $name outputs differ" >&2
    p=$(cpu "$pexe" run "$corpus/$name.pexe" -- "$arg")
    c=$(cpu node --no-warnings "$work/wasi-run.mjs" "$work/$name.wasm" "$arg")
    g=$(cpu "$work/$name.native" "$arg")
    k=$(cpu "$pexe" run --no-cache "$corpus/$name.pexe" -- "$arg")
    printf '%-14s %10.2f %10.2f %10.2f %12.2f %12.2f %10.2f %12.2f\n' "$name" "$p" "$c" "$g" \
        "$(awk -v a="$p" -v b="$c" 'BEGIN{print a/b}')" "$(awk -v a="$c" -v b="$g" 'BEGIN{print a/b}')" \
        "$k" "$(awk -v a="$k" -v b="$c" 'BEGIN{print a/b}')"
    logs="$logs $p:$c:$g:$k"
done
echo "$logs" | tr ' ' '\n' | awk -F: 'NF==4 { lp += log($1/$2); lc += log($2/$3); lk += log($4/$2); n++ }
    END { printf "geomean        pexe/clang-wasm %.2f   clang-wasm/gcc %.2f   cold/clang-wasm %.2f   (n=%d)\n", exp(lp/n), exp(lc/n), exp(lk/n), n }'
