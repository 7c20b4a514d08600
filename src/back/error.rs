//! Why a pexe could not be translated (every back end shares this error).

use crate::decode::DecodeError;
use crate::verify::Diagnostic;

/// The back end's error. A verified module translates; the other variants
/// name inputs the verifier let through but the back end cannot place.
#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("{0}")]
    Decode(#[from] DecodeError),
    /// The ABI verifier's diagnostics (module or function bodies).
    #[error("the pexe is not valid PNaCl ({} problems; the first: {})", .0.len(), first(.0))]
    Invalid(Vec<Diagnostic>),
    /// Function bodies must come in declaration order, one per defined
    /// function.
    #[error("function body @f{got} out of order (expected the body of @f{expected})")]
    BodyOrder { got: u32, expected: u32 },
    #[error("missing function bodies: {missing} of the declared functions have no body")]
    MissingBodies { missing: usize },
    /// The globals do not fit below 4 GiB.
    #[error("global variables need {bytes} bytes, more than the 32-bit address space holds")]
    GlobalsTooLarge { bytes: u64 },
    /// The module uses more of something than WebAssembly allows.
    #[error("too many {what} for WebAssembly ({count})")]
    TooMany { what: &'static str, count: u64 },
    /// The text form could not be printed.
    #[error("printing the text form: {0}")]
    Print(String),
    /// Something valid the back end does not translate (a bug to fix).
    #[error("cannot translate @f{function}: {message}")]
    Unsupported { function: u32, message: String },
    /// A native executable needs an entry point (`_start`).
    #[error("the module has no _start function")]
    NoEntry,
    /// The code generator refused a function (a bug to fix).
    #[error("code generation failed for @f{function}: {message}")]
    Codegen { function: u32, message: String },
    /// The object file could not be written.
    #[error("writing the object: {0}")]
    Object(String),
}

fn first(d: &[Diagnostic]) -> String {
    d.first().map(|d| d.to_string()).unwrap_or_default()
}
