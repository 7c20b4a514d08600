#!/usr/bin/env bash
# The page's main job: build the `pexe` CLI, the npm package (pkg/) and the
# bundled samples, then serve www/ on 127.0.0.1 with the headers that make
# it cross-origin isolated (guest threads) and print the URL.
#
#   scripts/serve.sh [--port N] [--no-isolation] [--corpus] [--no-build]
#
#   --port N        listen on N (default 8000)
#   --no-isolation  serve without COOP/COEP (guests run with one thread)
#   --corpus        also serve ../shared/corpus under /corpus/, read-only
#                   (then open e.g. http://127.0.0.1:8000/?url=/corpus/cli/binji_pnacl_c/test/res/printf.pexe)
#   --no-build      skip the builds (serve what is there)
#   --no-build-cli  skip setup.sh (scripts/main.sh ran it already)
#
# Needs Node.js 20+ (the server has no dependencies). Ctrl-C stops it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

port=8000
server_args=()
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --port) port="$2"; shift 2 ;;
        --no-isolation) server_args+=(--no-isolation); shift ;;
        --corpus) server_args+=(--corpus "$repo/../shared/corpus"); shift ;;
        --no-build) build=0; shift ;;
        --no-build-cli) build=2; shift ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "serve.sh: unknown argument: $1 (--help)" >&2; exit 2 ;;
    esac
done

banner() { printf '\n==== %s ====\n' "$*"; }

if [ "$build" != 0 ]; then
    if [ "$build" = 1 ]; then
        "$here/setup.sh"
    fi
    command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
    banner "build: cargo build --release --bin pexe"
    (cd "$repo" && cargo build --release --bin pexe)
    banner "build: the npm package (scripts/build-pkg.sh → pkg/)"
    if [ -x "$here/build-pkg.sh" ]; then
        "$here/build-pkg.sh"
    else
        echo "serve.sh: scripts/build-pkg.sh not found; the page needs pkg/ to work" >&2
    fi
    banner "build: samples (scripts/build-samples.sh → www/samples/)"
    "$here/build-samples.sh" "$repo/target/release/pexe"
fi

command -v node >/dev/null 2>&1 || { echo "serve.sh: node (20+) is needed to serve the page" >&2; exit 1; }
banner "serve: node www/server.mjs --port $port ${server_args[*]:-}"
exec node "$repo/www/server.mjs" --port "$port" "${server_args[@]}"
