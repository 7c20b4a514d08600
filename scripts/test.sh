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

printf '\n==== summary ====\n'
for name in all-targets doc; do
    # "Running tests/corpus.rs (…)" / "Doc-tests pexe", the failing tests,
    # then "test result: …".
    grep -aE '^\s*(Running|Doc-tests) |^test result:|^test .* FAILED$|^error(\[E[0-9]+\]|: (test failed|[0-9]+ targets? failed|could not compile))' "$logs/$name.log" \
        | sed -E 's/^\s*Running (unittests )?([^ ]+).*/\1\2/; s/^\s*Doc-tests /doc tests: /' || true
done
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
