//! The integration tests, one binary (one link step) with a module per
//! subject. `support` holds what they share: the corpus, read once.
//!
//! `tests/mutation.rs` stays a binary of its own: it measures peak heap
//! with a counting global allocator, which other tests running beside it
//! would disturb. `tests/web.rs` runs in a browser (wasm32 only).
//!
//! Run one subject with a filter: `cargo test --release --test all pipeline::`.

mod abi;
mod asm;
mod cli;
mod corpus;
mod decode;
mod dis;
mod expect;
mod pipeline;
mod libm;
mod native;
mod native_exec;
mod pepper;
mod run;
mod snapshots;
mod support;
mod verify;
mod wasm;
mod wasm_exec;
