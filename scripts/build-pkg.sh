#!/usr/bin/env bash
# Builds the npm package into pkg/ (gitignored). js/src/ is the package's
# source, copied as it is; the build adds the translator and the manifest:
#
#   pkg/index.js, node.js, index.d.ts    the entries (browsers/bundlers, Node) and types   (js/src/)
#   pkg/public/, pkg/internal/           the API, and what it is built on                  (js/src/)
#   pkg/bin/pexe.mjs                     `npx pexe run|translate|dis|verify|inspect`        (js/src/)
#   pkg/internal/translator/wasm/        the library for wasm32, through wasm-bindgen, as three modules:
#                                        pexe.js (glue), pexe_bg.wasm: everything but the WAT printer,
#                                        disassemble, stats and the native back end (src/web.rs,
#                                        feature pkg-translator), loaded at import;
#                                        pexe_wat.js, pexe_wat_bg.wasm: the WAT printer, disassemble and
#                                        stats (src/web_wat.rs, feature pkg-wat), loaded when one of
#                                        them is first called;
#                                        pexe_native.js, pexe_native_bg.wasm: the native back end,
#                                        Cranelift (src/web_native.rs, feature pkg-native), loaded when
#                                        translate is first asked for an x86-64 / AArch64 object
#                                        build.js (the translator's version + hash)
#   pkg/native/libpexe_runtime-x86_64-linux.a, …-aarch64-linux.a
#                                        the native runtime (runtime/) the objects link with, built
#                                        as build.rs builds it for `pexe build`, for each target whose
#                                        Rust standard library is installed (nativeRuntimeArchive)
#   pkg/package.json, README.md          from js/package.json (with the crate's version, without
#                                        the dev fields) and js/README.md
#
# Why cargo + wasm-bindgen and not wasm-pack: wasm-pack only runs these two
# steps, but costs a 2.5-minute install on a fresh machine, quietly
# cargo-installs its own wasm-bindgen when the versions differ, and
# downloads binaryen from GitHub (unreachable here). setup.sh installs the
# wasm-bindgen CLI of exactly the version in Cargo.lock.
#
# Why `--target web`: it is plain ESM with no bundler and no Node-only
# code. Browsers load it as is (the glue fetches pexe_bg.wasm next to it);
# in Node >= 20, the package's Node entry (internal/translator/node.js)
# reads the bytes itself (fetch() cannot read file: URLs) and passes them
# to the same init function. One build for both, and top-level await makes
# the API ready once the import resolves.
#
# The build profile is `wasm-release` (Cargo.toml): release with LTO and
# without debug info; the CLI's release build is untouched.
# `--no-default-features` leaves the CLI (clap) out. The library is built
# three times (features pkg-native, pkg-wat, then pkg-translator): each
# build keeps only what its exports reach. The native module is built with
# one thread in mind (wasm32-unknown-unknown has none; the object does not
# depend on the number). wasm-bindgen drops the name section (a third of the
# bytes; panics keep their message).
#
# The translator module's gzipped size has a budget, js/package.json's
# config.wasmGzipBudget (js/test-npm/size.test.mjs fails above it); the
# last line below shows where it stands.
#
# The translator module goes through wasm-opt -O3 (npm `binaryen`, pinned
# in js/package.json; Debian's binaryen 108 breaks wasm-bindgen's externref
# table): 2% less gzipped (303.7 -> 298.1 KB on 2026-11-29) for ~35 s of
# build; -Oz saves only 0.1 KB more. The printer and the native back end,
# which have no budget, are left as LLVM made them.
#
# `-ocimfs 500` (--one-caller-inline-max-function-size): by default
# wasm-opt inlines every function that has one caller, whatever its size,
# undoing LLVM's choices (FuncTranslator::translate took in the whole
# analysis, a third of the translate time in one function). V8's TurboFan
# compiles such giant functions worse (register pressure, spills): with
# the cap, a translate runs ~4% fewer instructions in V8 (X 611.4M ->
# 587.7M, G 438.6M -> 419.8M per translate, 2026-11-30) and the module
# is 1.1 KB smaller gzipped (269,296 -> 268,175 B). A cap of 3000 ran as
# fast (585.0M, 418.5M) but saved less; -O4 and --converge did not pay.
#
# `--low-memory-unused` lets -O3 fold a constant below 1024 added to an
# address into the load's or store's offset (optimize-added-constants):
# the add may wrap, the offset may not, so wasm-opt needs to know that
# no access reaches memory below 1024 through a wrapped address. Rust's
# wasm32 layout puts the 1 MiB stack first, growing down from 1 MiB, so
# those bytes are only the bottom of the stack, reached from a valid
# stack pointer, never through a wrapped sum. V8 runs the folded forms
# with fewer instructions: per translate X 562.2M -> 554.5M, G 405.0M ->
# 398.8M (-1.4%, -1.5%, means of two runs; 2026-11-30), and the module
# is 1.5 KB smaller gzipped (278,760 -> 277,248 B). Adding
# --ignore-implicit-traps (X 557.0M, G 398.3M) or --monomorphize (555.1M,
# 398.7M) did not pay, nor did -fimfs 40 or 80 (X 562.9M, 563.8M).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pkg="$repo/pkg"
profile=wasm-release
command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
cd "$repo"

log() { printf '[build-pkg] %s\n' "$*" >&2; }

want="$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"/\1/p}' Cargo.lock)"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" || true
if [ "$want" != "$have" ]; then
    log "wasm-bindgen $want is needed (found '${have:-none}'): run scripts/setup.sh"
    exit 1
fi

# build FEATURE OUT_NAME: the library with one feature, through wasm-bindgen
# into target/pkg-wasm/ (pkg/ is replaced only once both built).
staged="$repo/target/pkg-wasm"
rm -rf "$staged"
build() {
    log "cargo build --lib --target wasm32-unknown-unknown --profile $profile --no-default-features --features $1"
    cargo build --lib --target wasm32-unknown-unknown --profile "$profile" --no-default-features --features "$1"
    log "wasm-bindgen --target web --remove-name-section --out-name $2"
    wasm-bindgen --target web --remove-name-section --out-dir "$staged" --out-name "$2" \
        "$repo/target/wasm32-unknown-unknown/$profile/pexe.wasm"
}
build pkg-native pexe_native
build pkg-wat pexe_wat
build pkg-translator pexe
# The features are rustc's wasm32 defaults (Cargo.toml, profile.wasm-release).
wasm_opt="$repo/js/node_modules/.bin/wasm-opt"
if [ ! -x "$wasm_opt" ]; then
    log "wasm-opt is missing ($wasm_opt): run scripts/setup.sh"
    exit 1
fi
log "wasm-opt -O3 -ocimfs 500 --low-memory-unused pexe_bg.wasm"
"$wasm_opt" -O3 -ocimfs 500 --low-memory-unused --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$staged/pexe_bg.wasm" -o "$staged/pexe_bg.wasm"

# The native runtime archives, with the command build.rs runs (its
# `build`): runtime/ is its own workspace, built --locked with its own
# settings (runtime/.cargo/config.toml), none of the outer build's.
runtime_target="$repo/target/pkg-runtime"
rm -rf "$staged-native"
mkdir -p "$staged-native"
for target in x86_64-linux aarch64-linux; do
    triple="${target%%-linux}-unknown-linux-gnu"
    libdir="$(rustc --print target-libdir --target "$triple" 2>/dev/null)" || libdir=""
    if ! ls "$libdir"/libcore-* >/dev/null 2>&1; then
        log "no native runtime for $target: the Rust standard library for $triple is not installed (rustup target add $triple)"
        continue
    fi
    log "cargo build --release --locked (runtime/) --target $triple"
    (cd "$repo/runtime" && env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u CARGO_TARGET_DIR \
        -u CARGO_BUILD_TARGET -u CARGO_BUILD_TARGET_DIR -u CARGO_PROFILE_RELEASE_LTO -u CARGO_PROFILE_RELEASE_DEBUG \
        cargo build --release --locked --quiet --target "$triple" --target-dir "$runtime_target")
    cp "$runtime_target/$triple/release/libpexe_runtime.a" "$staged-native/libpexe_runtime-$target.a"
done

rm -rf "$pkg"
mkdir -p "$pkg"
# The package's JavaScript, as it is in the repository.
cp -R "$repo/js/src/." "$pkg/"
cp "$repo/js/README.md" "$pkg/README.md"
chmod +x "$pkg/bin/pexe.mjs"
wasm="$pkg/internal/translator/wasm"
mkdir -p "$wasm"
cp "$staged"/* "$wasm/"
if ls "$staged-native"/*.a >/dev/null 2>&1; then
    mkdir -p "$pkg/native"
    cp "$staged-native"/*.a "$pkg/native/"
fi

# The translator's identity for the polyfill's translation cache
# (internal/polyfill/cache.js): the version and the hash of the WebAssembly,
# so that a rebuilt translator never reuses another one's translations.
wasm_sha="$(sha256sum "$wasm/pexe_bg.wasm" | cut -c1-16)"
crate_version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
printf '// Written by scripts/build-pkg.sh: the translator build the cache keys use.\nexport const TRANSLATOR_BUILD = %s;\n' \
    "\"$crate_version+$wasm_sha\"" >"$wasm/build.js"

# wasm-bindgen writes no package.json with --target web (no wasm-pack);
# ours is js/package.json: the version is the crate's, and the fields that
# only serve the repository (private, scripts, devDependencies, config) go.
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
node - "$repo/js/package.json" "$pkg" "$version" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [template, pkg, version] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(template, 'utf8'));
manifest.version = version;
for (const field of ['private', 'scripts', 'devDependencies', 'config']) delete manifest[field];
// Everything the build put there (npm pack includes only these).
manifest.files = fs.readdirSync(pkg).filter((f) => f !== 'package.json').sort();
fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
JS

size() { printf '%s bytes (%s gzipped)' "$(wc -c <"$1")" "$(gzip -9 -c "$1" | wc -c)"; }
budget="$(node -p "require('$repo/js/package.json').config.wasmGzipBudget")"
total=$(du -sk "$pkg" | awk '{print $1}')
log "pkg/ ready: pexe $version; package ${total} KiB"
log "  pexe_bg.wasm $(size "$wasm/pexe_bg.wasm"), budget $budget gzipped"
log "  pexe_wat_bg.wasm $(size "$wasm/pexe_wat_bg.wasm"), loaded by functionWat, disassemble, stats"
log "  pexe_native_bg.wasm $(size "$wasm/pexe_native_bg.wasm"), loaded by translate for native targets"
for a in "$pkg"/native/*.a; do
    if [ -e "$a" ]; then log "  native/$(basename "$a") $(size "$a")"; fi
done
