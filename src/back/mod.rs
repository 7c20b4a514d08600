//! Back ends: from a verified module to something that runs.
//!
//! Back ends know nothing of bits: they read the IR only.

pub mod wasm;
#[cfg(feature = "native")]
pub mod native;
