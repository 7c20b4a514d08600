#!/usr/bin/env bash
# Set up, then run every test: unit, integration (corpus, mutation, CLI…),
# examples and benchmarks built as tests, and the doc tests. Release mode, so
# the mutation and corpus tests are fast. Prints the cargo test summary lines
# and exits non-zero if anything failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

"$here/setup.sh"
command -v cargo >/dev/null 2>&1 || . "$HOME/.cargo/env"
cd "$repo"

logs="$repo/target/test-logs"
mkdir -p "$logs"
status=0
mutation_summary="$repo/target/tmp/mutation-summary.txt"
rm -f "$mutation_summary"

# Runs one cargo command, showing its output and keeping a copy.
run() {
    local name="$1"
    shift
    printf '\n==== %s: %s ====\n' "$name" "$*"
    if "$@" 2>&1 | tee "$logs/$name.log"; then
        return 0
    fi
    echo "==== $name FAILED ====" >&2
    status=1
}

# --no-fail-fast: one failing test binary must not hide the others' results.
run all-targets cargo test --release --all-targets --no-fail-fast
# --all-targets leaves out doc tests; --release reuses the library just built.
run doc cargo test --release --doc
# The native runtime (runtime/) is a workspace of its own: its unit tests.
run runtime-unit cargo test --release --manifest-path runtime/Cargo.toml

# ---- npm package and runtime: browser (wasm-bindgen) and Node tests ---------
# The runtime's own tests; the wasm-bindgen API in headless Chromium
# (tests/web.rs; the runner reads webdriver.json); then pkg/ is rebuilt from
# this tree (the page's tests below use it too) and its API is tested in Node
# against the corpus (js/test-npm/).
run runtime node --test --test-reporter=spec js/test/
run wasm-browser env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    CHROMEDRIVER="$(command -v chromedriver || echo /usr/bin/chromedriver)" \
    cargo test --target wasm32-unknown-unknown --no-default-features --test web
run npm-build "$repo/scripts/build-pkg.sh"
run npm node --test --test-reporter=spec js/test-npm/
# ---- end npm package --------------------------------------------------------

# ---- browser tests: the page (www/) in headless Chromium -------------------
# tests/browser/run.sh builds what it needs (pkg/, samples, playwright-core)
# and skips, saying why, without Node 20 or Chromium (in CI, CI=true, it
# fails instead). Screenshots go to target/screenshots/; the speed numbers
# are its "# SPEED" lines. bundlers.test.mjs there installs the package's
# tarball into apps built with Vite 5 and webpack 5 ("# RESULT" lines).
run browser "$repo/tests/browser/run.sh"
# ---- end browser tests ------------------------------------------------------

# In CI (CI=true) a skipped test is a failure: every test must run. The
# tests fail themselves when a tool is missing in CI; this catches any skip
# that slips through (node:test "skipped N", cargo "N ignored").
if [ "${CI:-}" = true ]; then
    for name in all-targets doc runtime-unit runtime wasm-browser npm browser; do
        log="$logs/$name.log"
        [ -f "$log" ] || continue
        if grep -aqE '^ℹ skipped [1-9]|^# skipped [1-9]|; [1-9][0-9]* ignored;|^browser tests: SKIPPED' "$log"; then
            echo "==== $name: tests were skipped (CI=true: a skipped test is a failure) ====" >&2
            status=1
        fi
    done
fi

printf '\n==== summary ====\n'
for name in all-targets doc runtime-unit; do
    # "Running tests/corpus.rs (…)" / "Doc-tests pexe", the failing tests,
    # then "test result: …".
    grep -aE '^\s*(Running|Doc-tests) |^test result:|^test .* FAILED$|^error(\[E[0-9]+\]|: (test failed|[0-9]+ targets? failed|could not compile))' "$logs/$name.log" \
        | sed -E 's/^\s*Running (unittests )?([^ ]+).*/\1\2/; s/^\s*Doc-tests /doc tests: /' || true
done
# ---- npm package summary ----------------------------------------------------
for name in runtime npm; do
    if [ -f "$logs/$name.log" ]; then
        grep -aE '^ℹ (tests|pass|fail|skipped) |^✖ ' "$logs/$name.log" | sed "s/^/$name (node --test): /" || true
    fi
done
if [ -f "$logs/wasm-browser.log" ]; then
    grep -aE '^test result:|^test .* FAIL|^error' "$logs/wasm-browser.log" | sed 's/^/wasm-bindgen tests (Chromium): /' || true
fi
if [ -f "$logs/npm-build.log" ]; then
    grep -aE '^\[build-pkg\] pkg/ ready' "$logs/npm-build.log" || true
fi
# ---- end npm package summary ------------------------------------------------
# ---- browser tests summary --------------------------------------------------
if [ -f "$logs/browser.log" ]; then
    grep -aE '^browser tests: |^# (SPEED|listing|RESULT)|^ℹ (tests|pass|fail|skipped) |^✖ ' "$logs/browser.log" | sed 's/^/browser: /' || true
fi
# ---- end browser tests summary ----------------------------------------------
# tests/mutation.rs leaves its counts here (test output is captured).
if [ -f "$mutation_summary" ]; then
    cat "$mutation_summary"
fi
if [ "$status" -ne 0 ]; then
    echo "FAILED (logs in $logs)" >&2
else
    echo "all tests passed"
fi
exit "$status"
