//! The WebAssembly back end (being written). See `docs/ARCHITECTURE.md`, "Runtime ABI".

pub mod structure;
