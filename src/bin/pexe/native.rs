//! What the native commands share: translating to an object, the native
//! runtime archives compiled into this binary, and linking.

use crate::fail;
use pexe::back::native::{translate_bytes, NativeError, Options, Target};
use std::process::ExitCode;

/// `x86_64-linux`, `aarch64-linux` (and their triples).
pub fn parse_target(s: &str) -> Option<Target> {
    Target::parse(s)
}

pub fn bad_target(s: &str) -> ExitCode {
    eprintln!("error: unknown target `{s}` (expected wasm, x86_64-linux or aarch64-linux)");
    ExitCode::from(2)
}

/// Translates `bytes` (named `name` in messages) to an object; prints
/// what went wrong and answers the exit code otherwise.
pub fn translate(name: &str, bytes: &[u8], target: Target, threads: usize) -> Result<Vec<u8>, ExitCode> {
    match translate_bytes(bytes, &Options { target, threads }) {
        Ok(obj) => Ok(obj),
        Err(NativeError::Invalid(diagnostics)) => {
            for d in &diagnostics {
                eprintln!("{name}:{d}");
            }
            Err(ExitCode::FAILURE)
        }
        Err(NativeError::Decode(e)) => {
            eprintln!("{name}:{}: error: {e}", e.pos());
            Err(ExitCode::FAILURE)
        }
        Err(e) => Err(fail(format_args!("{name}: {e}"))),
    }
}
