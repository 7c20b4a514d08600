//! The runtime ABI's function list (src/abi/) and its generated copies: the
//! JavaScript runtime's tables, the native runtime's (runtime/src/irt_gen.rs)
//! and docs/abi.md. Each copy must equal what the list generates now;
//! `BLESS=1 cargo test --test all abi::` rewrites them.

use pexe::abi;
use std::path::Path;

/// Generated files, relative to the repository root, and their generators.
fn generated() -> [(&'static str, String); 3] {
    let list = abi::abi();
    [
        ("js/src/internal/runtime/abi.gen.js", abi::js::module(list)),
        ("docs/abi.md", abi::doc::markdown(list)),
        ("runtime/src/irt_gen.rs", abi::native_rt::module(list)),
    ]
}

#[test]
fn generated_copies_match_the_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("BLESS").is_some();
    let mut stale = Vec::new();
    for (path, want) in generated() {
        let file = root.join(path);
        let have = std::fs::read_to_string(&file).unwrap_or_default();
        if have != want {
            if bless {
                std::fs::write(&file, &want).unwrap_or_else(|e| panic!("writing {path}: {e}"));
            } else {
                stale.push(path);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} differ from what src/abi/ generates: run `BLESS=1 cargo test --test all abi::` and commit the result"
    );
}
