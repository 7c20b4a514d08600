#!/usr/bin/env bash
# Installs what the build and the tests need, skipping whatever is already
# there. Safe to run any number of times; main.sh and test.sh run it first.
#
# Each step is a function: a guard that checks for the tool, then the action.
# Later milestones add their steps here (and call them at the bottom); this
# milestone needs only a Rust toolchain.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

log() { printf '[setup] %s\n' "$*" >&2; }

# rustup puts cargo in ~/.cargo/bin; a non-login shell may not have it on PATH.
ensure_cargo_on_path() {
    if command -v cargo >/dev/null 2>&1; then
        return
    fi
    if [ -f "$HOME/.cargo/env" ]; then
        # shellcheck disable=SC1091
        . "$HOME/.cargo/env"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        log "cargo not found: install Rust with rustup (https://rustup.rs), then re-run"
        exit 1
    fi
}

# The package states its minimum Rust in Cargo.toml (rust-version).
check_rust_version() {
    local want have
    want="$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n1)"
    have="$(rustc --version | awk '{print $2}')"
    if [ -n "$want" ] && [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
        log "rustc $have is older than the required $want: run 'rustup update stable'"
        exit 1
    fi
    log "rustc $have (need >= ${want:-any})"
}

# Tests and the benchmark read real pexes from ../shared/corpus; they are
# third-party data and never copied into the repository.
check_corpus() {
    if [ ! -d "$repo/../shared/corpus" ]; then
        log "warning: $repo/../shared/corpus not found; corpus tests will fail"
    fi
}

# Fetch crates once, up front, so network trouble shows here and not in the
# middle of a build.
fetch_crates() {
    (cd "$repo" && cargo fetch --quiet)
}

ensure_cargo_on_path
check_rust_version
check_corpus
fetch_crates
log "ready"
