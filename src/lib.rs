//! pexe: read PNaCl programs (`.pexe`) and bring them back to life.
//!
//! The crate is a pipeline, one module per stage:
//!
//! ```text
//! bytes ─ bitstream ─▶ events ─ decode ─▶ ir::Module + ir::Function ─ verify ─▶ diagnostics
//!                         │                       │                     │
//!                         └─ stats                └─ dis (listing)      └─ back (Backend: wasm) ─▶ module
//! text ─ asm ─▶ bytes (the inverse of the records column of a listing)
//! ```
//!
//! [`back::Pipeline`] is the one loop from bytes to a back end, whole or
//! streamed; [`back::parallel`] runs it per function body on every core.
//! [`mod@cfg`] is the control-flow graph and dominator code the verifier and the
//! back ends share.

pub mod abi;
pub mod asm;
pub mod back;
pub mod bitstream;
pub mod cfg;
pub mod decode;
pub mod dis;
pub mod ir;
pub mod limits;
pub mod pos;
pub mod stats;
pub mod verify;

/// The unit tests' pseudo-random numbers: a xorshift64 generator from
/// `seed` (not 0) whose call `next(m)` answers a number below `m`.
#[cfg(test)]
pub(crate) fn test_rng(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    }
}
#[cfg(all(target_arch = "wasm32", not(feature = "pkg-wat"), not(feature = "pkg-native")))]
pub mod web;
#[cfg(all(target_arch = "wasm32", feature = "pkg-native"))]
pub mod web_native;
#[cfg(all(target_arch = "wasm32", feature = "pkg-wat"))]
pub mod web_wat;

pub use pos::BitPos;
