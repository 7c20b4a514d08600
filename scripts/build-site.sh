#!/usr/bin/env bash
# Builds the page as a static site: a folder any static host can serve
# (GitHub Pages, S3, Netlify, `python3 -m http.server`), at its root or in a
# sub-folder, with guest threads included.
#
#   scripts/build-site.sh [--out DIR] [--no-build]
#
#   --out DIR     write the site there (default: target/site; emptied first)
#   --no-build    use pkg/ and www/samples/ as they are (default: build the
#                 CLI, the npm package and the samples first, as serve.sh does)
#
# The folder:
#   index.html, *.js, style.css   the page (www/, without the dev server and README)
#   isolation.js                  loaded first by index.html: registers isolation-sw.js
#   isolation-sw.js               the service worker that adds COOP/COEP to the
#                                 site's responses (a static host cannot send
#                                 them; threads need them), at the site's root
#                                 so that it controls every page of the site
#   samples/                      the bundled samples (scripts/build-samples.sh)
#   pkg/                          the npm package the page imports (without bin/)
#   .nojekyll                     GitHub Pages: serve the files as they are
#
# Try it: scripts/build-site.sh && python3 -m http.server -d target/site 8000
# (then http://127.0.0.1:8000/; the first visit reloads once, isolated).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="$repo/target/site"
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-site.sh: unknown argument: $1 (--help)" >&2; exit 2 ;;
    esac
done

log() { printf '[build-site] %s\n' "$*" >&2; }

if [ "$build" = 1 ]; then
    command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
    log "cargo build --release --bin pexe"
    (cd "$repo" && cargo build --release --bin pexe)
    "$here/build-pkg.sh"
    "$here/build-samples.sh" "$repo/target/release/pexe"
fi
[ -f "$repo/pkg/index.js" ] || { log "pkg/ is not built (scripts/build-pkg.sh)"; exit 1; }
[ -f "$repo/www/samples/index.json" ] || { log "the samples are not built (scripts/build-samples.sh)"; exit 1; }

case "$out" in
    /*) ;;
    *) out="$PWD/$out" ;;
esac
[ "$out" != / ] && [ "$out" != "$repo" ] || { log "refusing to empty $out"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# The page: everything in www/ but the dev server and the README.
for f in "$repo"/www/*; do
    case "$(basename "$f")" in
        server.mjs|README.md) ;;
        *) cp -R "$f" "$out/" ;;
    esac
done
# The package, as the page imports it (./pkg/index.js); the CLI stays out.
mkdir -p "$out/pkg"
for f in "$repo"/pkg/*; do
    [ "$(basename "$f")" = bin ] || cp -R "$f" "$out/pkg/"
done
touch "$out/.nojekyll"

# index.html loads isolation.js first (a classic script, before app.js).
marker='<!-- static-site: isolation'
grep -q "$marker" "$out/index.html" || { log "www/index.html lacks the line '$marker …'"; exit 1; }
node - "$out/index.html" "$marker" <<'JS'
const fs = require('node:fs');
const [file, marker] = process.argv.slice(2);
const html = fs.readFileSync(file, 'utf8').split('\n');
const i = html.findIndex((l) => l.includes(marker));
html[i] = '<script src="isolation.js"></script>';
fs.writeFileSync(file, html.join('\n'));
JS

files=$(find "$out" -type f | wc -l)
size=$(du -sk "$out" | awk '{print $1}')
log "wrote ${out#"$repo/"}: $files files, ${size} KiB (serve it with any static server)"
