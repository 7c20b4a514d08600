//! Back ends: from a verified module to something that runs, and the one
//! loop that drives them.
//!
//! Back ends know nothing of bits: they read the IR only. Each implements
//! [`Backend`], the shape of Cranelift's `Module`: made from the verified
//! module once its declarations are complete ([`Backend::begin`]), handed
//! each verified function body in file order ([`Backend::define_function`]),
//! then finished ([`Backend::finish`]).
//!
//! [`Pipeline`] is the loop: bytes in (whole, or chunk by chunk as they
//! arrive), bitstream → decoder → verifier → back end, each body handed on
//! as soon as its block has closed and passed the verifier, and dropped
//! afterwards. Every consumer runs on it: `pexe verify` ([`NoBackend`]),
//! `pexe translate` ([`wasm::WasmBackend`]; `native::NativeBackend` with
//! `--target`), the npm package's `inspect`, `translate` and streaming
//! `Inspector`/`Translator`.
//!
//! Function bodies are independent once the module block is known, so
//! [`parallel`] translates them on several threads (the CLI) or hands them
//! to other translator instances (a pool of Workers in a page), stitching
//! the results in order: the output is the same bytes as the one-thread
//! pipeline's.
//!
//! ```
//! # let pexe = pexe::bitstream::tests_support::minimal_pexe();
//! use pexe::back::{NoBackend, Pipeline};
//! // `pexe verify`: decode and verify, nothing to build.
//! let outcome = Pipeline::<NoBackend>::whole(&pexe, ()).finish();
//! for d in &outcome.diagnostics {
//!     println!("{d}");
//! }
//! ```

mod error;
#[cfg(feature = "native")]
pub mod native;
pub mod parallel;
mod pipeline;
pub mod wasm;

pub use error::TranslateError;
pub use pipeline::{BodyStats, Outcome, Pipeline, Progress};
#[cfg(target_arch = "wasm32")]
pub(crate) use pipeline::decode_diagnostic as pipeline_decode_diagnostic;

use crate::ir::Function;
use crate::verify::{FunctionAnalysis, Verified};

/// A back end: one module in, one output out, bodies one at a time.
///
/// The pipeline calls [`Backend::begin`] once the module's declarations
/// are complete and have passed [`crate::verify::verify_module`] (at the
/// first function body, or at the end for a module without bodies), then
/// [`Backend::define_function`] for each body in file order that passed
/// [`crate::verify::FunctionVerifier`], then [`Backend::finish`]. After the
/// first problem anywhere (a diagnostic, a decode error, an error from the
/// back end) it calls nothing more and the output is not used.
pub trait Backend: Sized {
    /// What [`Backend::begin`] needs besides the module.
    type Options;
    /// What [`Backend::finish`] makes.
    type Output;
    /// Whether [`Backend::define_function`] reads its `analysis`; if not,
    /// the verifier leaves out what only back ends need.
    const READS_ANALYSIS: bool = true;

    /// A back end for `module`.
    fn begin(module: Verified<'_>, options: &Self::Options) -> Result<Self, TranslateError>;

    /// Translates the next body. `analysis` is what the verifier computed
    /// about it (control flow, dominators).
    fn define_function(
        &mut self,
        module: Verified<'_>,
        body: &Function,
        analysis: FunctionAnalysis<'_>,
    ) -> Result<(), TranslateError>;

    /// The output, once every body has been defined.
    fn finish(self, module: Verified<'_>) -> Result<Self::Output, TranslateError>;
}

/// The back end of `pexe verify`: decoding and verification only.
pub struct NoBackend;

impl Backend for NoBackend {
    type Options = ();
    type Output = ();
    const READS_ANALYSIS: bool = false;

    fn begin(_: Verified<'_>, _: &()) -> Result<Self, TranslateError> {
        Ok(NoBackend)
    }

    fn define_function(&mut self, _: Verified<'_>, _: &Function, _: FunctionAnalysis<'_>) -> Result<(), TranslateError> {
        Ok(())
    }

    fn finish(self, _: Verified<'_>) -> Result<(), TranslateError> {
        Ok(())
    }
}
