#!/usr/bin/env bash
# Assembles the bundled samples, samples/*.records (pnacl-bcdis listings
# written by hand), into www/samples/*.pexe with the project's own `pexe as`,
# checks each with `pexe verify`, and writes www/samples/index.json, the
# list the page offers in its "Samples" menu (name, file, size, and the
# description from the listing's `# page: ...` comment line). hello comes
# first (the page opens it by default), then the others by name.
#
#   scripts/build-samples.sh [PEXE_BINARY]     (default: target/release/pexe)
#
# The output is build output (www/.gitignore lists it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pexe="${1:-$repo/target/release/pexe}"
out="$repo/www/samples"

if [ ! -x "$pexe" ]; then
    echo "build-samples: no pexe binary at $pexe (cargo build --release --bin pexe)" >&2
    exit 1
fi

mkdir -p "$out"
entries=()
sources=()
[ -f "$repo/samples/hello.records" ] && sources+=("$repo/samples/hello.records")
for src in "$repo"/samples/*.records; do
    [ "$(basename "$src")" = hello.records ] || sources+=("$src")
done
for src in "${sources[@]}"; do
    name="$(basename "$src" .records)"
    dst="$out/$name.pexe"
    "$pexe" as "$src" -o "$dst"
    "$pexe" verify "$dst"
    size="$(wc -c <"$dst" | tr -d ' ')"
    # "# page: text" → the description shown in the menu.
    desc="$(sed -n 's/^# page: *//p' "$src" | head -n1 | sed 's/\\/\\\\/g; s/"/\\"/g')"
    entries+=("  {\"name\": \"$name\", \"file\": \"$name.pexe\", \"size\": $size, \"description\": \"$desc\"}")
    echo "build-samples: $dst ($size bytes)"
done

{
    echo "["
    for i in "${!entries[@]}"; do
        if [ "$i" -lt $((${#entries[@]} - 1)) ]; then echo "${entries[$i]},"; else echo "${entries[$i]}"; fi
    done
    echo "]"
} >"$out/index.json"
echo "build-samples: $out/index.json (${#entries[@]} samples)"
