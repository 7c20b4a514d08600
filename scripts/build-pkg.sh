#!/usr/bin/env bash
# Builds the npm package into pkg/ (gitignored):
#
#   pkg/pexe.js, pkg/pexe_bg.wasm   the library (src/web.rs) for wasm32, through wasm-bindgen
#   pkg/index.js, index.d.ts        the package entry and its types (npm/)
#   pkg/bin/pexe.mjs                `npx pexe run|translate|dis|verify|inspect`
#   pkg/runtime/, pkg/node/         the JavaScript IRT runtime (js/src/)
#   pkg/package.json, README.md     from npm/, with the crate's version
#
# Why cargo + wasm-bindgen and not wasm-pack: wasm-pack only runs these two
# steps, but costs a 2.5-minute install on a fresh machine, quietly
# cargo-installs its own wasm-bindgen when the versions differ, and
# downloads binaryen from GitHub (unreachable here). setup.sh installs the
# wasm-bindgen CLI of exactly the version in Cargo.lock.
#
# Why `--target web`: it is plain ESM with no bundler and no Node-only
# code. Browsers load it as is (the glue fetches pexe_bg.wasm next to it);
# in Node >= 20, npm/index.js reads the bytes itself (fetch() cannot read
# file: URLs) and passes them to the same init function. One build for
# both, and top-level await makes the API ready once the import resolves.
#
# The build profile is `wasm-release` (Cargo.toml): release with LTO and
# without debug info; the CLI's release build is untouched.
# `--no-default-features` leaves the CLI (clap) out.
#
# No wasm-opt: Debian's binaryen (108) breaks wasm-bindgen's externref
# table (the module fails at init), and newer ones come from GitHub. It
# would save 17% of the gzipped size (419 -> 348 KB).
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

log "cargo build --lib --target wasm32-unknown-unknown --profile $profile --no-default-features"
cargo build --lib --target wasm32-unknown-unknown --profile "$profile" --no-default-features

rm -rf "$pkg"
mkdir -p "$pkg"
log "wasm-bindgen --target web --out-dir pkg"
wasm-bindgen --target web --out-dir "$pkg" --out-name pexe \
    "$repo/target/wasm32-unknown-unknown/$profile/pexe.wasm"

# wasm-bindgen's own package.json/README are not written with --target web
# (no wasm-pack); ours come from npm/.
cp "$repo/npm/index.js" "$repo/npm/index.d.ts" "$repo/npm/README.md" "$pkg/"
mkdir -p "$pkg/bin"
cp "$repo/npm/bin/pexe.mjs" "$pkg/bin/"
chmod +x "$pkg/bin/pexe.mjs"
# The runtime keeps its layout (its Worker script is found relative to
# itself); js/src/index.js is replaced by the package entry.
cp -R "$repo/js/src/runtime" "$pkg/runtime"
cp -R "$repo/js/src/node" "$pkg/node"

version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
node - "$repo/npm/package.json" "$pkg" "$version" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [template, pkg, version] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(template, 'utf8'));
manifest.version = version;
// Everything the build put there (npm pack includes only these).
manifest.files = fs.readdirSync(pkg).filter((f) => f !== 'package.json').sort();
fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
JS

wasm_size=$(wc -c <"$pkg/pexe_bg.wasm")
gz_size=$(gzip -9 -c "$pkg/pexe_bg.wasm" | wc -c)
total=$(du -sk "$pkg" | awk '{print $1}')
log "pkg/ ready: pexe $version; pexe_bg.wasm $wasm_size bytes ($gz_size gzipped); package ${total} KiB"
