#!/usr/bin/env bash
# Runs the page's end-to-end tests (tests/browser/*.test.mjs) in headless
# Chromium. What they need, built here when missing: the `pexe` CLI (for the
# samples), the npm package pkg/ (scripts/build-pkg.sh), the samples
# (scripts/build-samples.sh), and playwright-core (npm ci, pinned in
# package-lock.json). Chromium itself comes from Debian (`apt-get install
# chromium`, done by scripts/setup.sh) or $CHROMIUM.
#
# Skips (exit 0, saying why) when Node or Chromium is missing, except in CI
# (CI=true), where a missing tool fails (exit 1): a skipped test would be a
# test that does not exist. Exits 1 if a test fails. Screenshots: target/screenshots/. The speed numbers are the
# `# SPEED` lines of the output.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
chromium="${CHROMIUM:-/usr/bin/chromium}"

skip() {
    if [ "${CI:-}" = true ]; then
        echo "browser tests: FAILED: cannot run: $* (CI=true: a missing tool is a failure, not a skip)" >&2
        exit 1
    fi
    echo "browser tests: SKIPPED ($*)"
    exit 0
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ] || skip "node $(node --version) is older than 20"
[ -x "$chromium" ] || skip "no Chromium at $chromium (apt-get install chromium, or set CHROMIUM)"
[ -d "$repo/../shared/corpus" ] || skip "no corpus at $repo/../shared/corpus"

command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
if [ ! -x "$repo/target/release/pexe" ]; then
    (cd "$repo" && cargo build --release --bin pexe)
fi
if [ ! -f "$repo/pkg/index.js" ]; then
    if [ -x "$repo/scripts/build-pkg.sh" ]; then
        "$repo/scripts/build-pkg.sh"
    else
        echo "browser tests: FAILED: pkg/ is not built and scripts/build-pkg.sh is missing" >&2
        exit 1
    fi
fi
"$repo/scripts/build-samples.sh" "$repo/target/release/pexe"
if [ ! -d "$here/node_modules/playwright-core" ]; then
    (cd "$here" && npm ci --no-audit --no-fund)
fi

cd "$here"
if CHROMIUM="$chromium" node --test --test-concurrency=1 --test-reporter=spec ./*.test.mjs; then
    echo "browser tests: passed (screenshots in target/screenshots/)"
else
    echo "browser tests: FAILED (screenshots in target/screenshots/)"
    exit 1
fi
