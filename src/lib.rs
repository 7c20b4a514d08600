//! pexe: read PNaCl programs (`.pexe`) and bring them back to life.
//!
//! The crate is a pipeline, one module per stage:
//!
//! ```text
//! bytes ─ bitstream ─▶ events ─ decode ─▶ ir::Module ─ verify ─▶ Verified ─▶ back ends
//! ```

pub mod bitstream;
pub mod decode;
pub mod ir;
pub mod limits;
pub mod pos;

pub use pos::BitPos;
