#!/usr/bin/env bash
# Native benchmark: the seven Benchmarks Game pexes built by `pexe build` for
# this machine, against the same C programs compiled by gcc -O2; and how fast
# the Cranelift back end translates, on one thread and on two.
#
#   scripts/bench-native.sh C_SOURCES_DIR [REPEAT] [--large]
#
# C_SOURCES_DIR holds binarytrees.c, fannkuchredux.c, fasta.c, mandelbrot.c,
# meteor.c, nbody.c, spectralnorm.c (public in binji/pnacl.c under
# test/benchmark/res/; not shipped here). The arguments are the largest of
# each program's `.bench` files in the corpus; those runs take milliseconds,
# so each timing is a loop of LOOP runs (start-up included, as it is for the
# gcc binary). --large uses the arguments of scripts/bench-runtime.sh
# instead (a second or so each, one run per timing). Run times are CPU
# seconds (user + system), translation times wall seconds; each is the
# median of REPEAT (default 5) measurements, the two sides of a comparison
# taken in turn. Outputs must agree before timings count. The translation
# speed-up needs two otherwise idle cores: the script prints the load
# average first. Needs gcc and a release build of pexe (made here).
set -euo pipefail
src="$(cd "${1:?usage: bench-native.sh C_SOURCES_DIR [REPEAT] [--large]}" && pwd)"
repeat="${2:-5}"
large="${3:-}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="$repo/../shared/corpus"
res="$corpus/cli/binji_pnacl_c/test/benchmark/res"
work="$repo/target/bench-native"
mkdir -p "$work"
cd "$repo"
cargo build --release --quiet
pexe="$repo/target/release/pexe"

if [ "$large" = "--large" ]; then
    benches="nbody:5000000 spectralnorm:2000 mandelbrot:4000 fannkuchredux:10 binarytrees:16 fasta:2500000 meteor:2098"
    loop=1
else
    benches="nbody:1000 spectralnorm:100 mandelbrot:200 fannkuchredux:9 binarytrees:12 fasta:10000 meteor:2098"
    loop=20
fi

# Seconds $loop runs of a command take: CPU (user+sys, bash's own
# getrusage-based `time`, ms resolution) or wall.
cpu_once() {
    local TIMEFORMAT='%3U %3S' t
    t=$( { time (for _ in $(seq "$loop"); do "$@" >/dev/null 2>&1; done) ; } 2>&1 )
    awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.4f", a[1] + a[2] }'
}
wall_once() {
    local t0 t1
    t0=$(date +%s%N)
    for _ in $(seq "$loop"); do "$@" >/dev/null 2>&1; done
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Paired timing (the machine may be shared and drift): A and B run in
# turn $repeat times with measure M; prints "medianA medianB median(A/B)".
paired() {
    local m="$1" a="$2" b="$3" ta tb as="" bs="" rs=""
    for _ in $(seq "$repeat"); do
        # shellcheck disable=SC2086
        ta=$("$m" $a)
        # shellcheck disable=SC2086
        tb=$("$m" $b)
        as="$as $ta"; bs="$bs $tb"
        rs="$rs $(awk -v x="$ta" -v y="$tb" 'BEGIN { printf "%.4f", (y > 0 ? x / y : 0) }')"
    done
    echo "$(echo $as | tr ' ' '\n' | median) $(echo $bs | tr ' ' '\n' | median) $(echo $rs | tr ' ' '\n' | median)"
}

echo "run time: native executable (pexe build) / gcc -O2: CPU seconds of $loop run(s), paired, median of $repeat"
printf '%-20s %12s %12s %12s\n' benchmark pexe-native gcc-O2 ratio
ratios=""
for spec in $benches; do
    name="${spec%%:*}"; arg="${spec##*:}"
    gcc -O2 "$src/$name.c" -o "$work/$name.gcc" -lm 2>/dev/null
    "$pexe" build "$res/$name.pexe" -o "$work/$name.native"
    "$work/$name.native" "$arg" > "$work/$name.native.out"
    "$work/$name.gcc" "$arg" > "$work/$name.gcc.out"
    cmp -s "$work/$name.native.out" "$work/$name.gcc.out" || echo "warning: $name outputs differ" >&2
    read -r p g r < <(paired cpu_once "$work/$name.native $arg" "$work/$name.gcc $arg")
    printf '%-20s %12.4f %12.4f %12s\n' "$name $arg" "$p" "$g" "$r"
    ratios="$ratios $r"
done
echo "$ratios" | tr ' ' '\n' | awk 'NF { l += log($1); n++ } END { printf "geomean ratio %.3f (n=%d)\n", exp(l / n), n }'

echo
echo "translation: pexe translate --target x86_64-linux, wall seconds, 1 and 2 threads paired, median of $repeat"
echo "($(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg): other work on the machine shrinks the speed-up)"
loop=1
bytes=0
t1=0
t2=0
for f in ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe \
    ppapi/woodjazz_nsg-library/nsg.pexe cli/binji_pnacl_c/test/benchmark/res/meteor.pexe; do
    size=$(stat -c %s "$corpus/$f")
    read -r a b r < <(paired wall_once "$pexe translate --target x86_64-linux --threads 1 $corpus/$f -o /dev/null" \
        "$pexe translate --target x86_64-linux --threads 2 $corpus/$f -o /dev/null")
    printf '%-55s %8d bytes  1 thread %.3f s  2 threads %.3f s  (%.2fx)\n' "$f" "$size" "$a" "$b" "$r"
    bytes=$((bytes + size))
    t1=$(awk -v x="$t1" -v y="$a" 'BEGIN { print x + y }')
    t2=$(awk -v x="$t2" -v y="$b" 'BEGIN { print x + y }')
done
awk -v n="$bytes" -v a="$t1" -v b="$t2" 'BEGIN {
    printf "total %.2f MB: 1 thread %.2f MB/s, 2 threads %.2f MB/s, speed-up %.2fx\n", n / 1e6, n / 1e6 / a, n / 1e6 / b, a / b }'
