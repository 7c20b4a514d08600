//! The npm package's third WebAssembly module, `pexe_native_bg.wasm`: the
//! native back end (`back::native`, Cranelift) behind `translate(bytes,
//! { target: 'x86_64-linux' | 'aarch64-linux' })`, built with the feature
//! `pkg-native` (scripts/build-pkg.sh). Cranelift is many times the size
//! of the rest of the translator and only native objects need it, so the
//! translator module leaves it out and the package loads this one the
//! first time it is asked for an object (`js/src/internal/translator/native.js`).
//!
//! | JS | Rust | answer |
//! |---|---|---|
//! | `translateNative(bytes, target)` | [`translate_native`] | `Uint8Array`, the ELF relocatable object `pexe translate --target T` writes |
//! | `objectIsPepperPlugin(object)` | [`object_is_pepper_plugin`] | whether the object is a Pepper plugin (it does not link: the native runtime has no Pepper) |
//! | `takePanicMessage()` | [`take_panic_message`] | the message of the last Rust panic |
//!
//! Errors are the translator module's (`src/web/error.rs`): a pexe that
//! does not decode or verify throws the same `PexeError` (kind, message,
//! diagnostics) for every target. One thread (wasm32 has none to spawn);
//! the object does not depend on the number of threads, so it is the
//! CLI's byte for byte.

#[path = "web/error.rs"]
mod error;
#[path = "web/panic.rs"]
mod panic;

use crate::back::native::{self, Options, Target};
use error::{describe, options_error, translate_error};
pub use panic::take_panic_message;
use wasm_bindgen::prelude::*;

/// Decodes, verifies and translates a pexe to an ELF relocatable object
/// for `target` (`'x86_64-linux'` or `'aarch64-linux'`), as
/// `pexe translate --target T` does.
#[wasm_bindgen(js_name = translateNative)]
pub fn translate_native(bytes: &[u8], target: JsValue) -> Result<Vec<u8>, JsValue> {
    panic::init();
    let target = match target.as_string().as_deref() {
        Some("x86_64-linux") => Target::X86_64Linux,
        Some("aarch64-linux") => Target::Aarch64Linux,
        _ => {
            return Err(options_error(&format!(
                "unknown native target {} (one of 'x86_64-linux', 'aarch64-linux')",
                describe(&target)
            )))
        }
    };
    let options = Options { target, threads: 1, ..Options::default() };
    native::translate_bytes(bytes, &options).map_err(|e| translate_error(&e))
}

/// Whether `object` (a `translateNative` answer) is a Pepper plugin, which
/// translates but cannot be linked with the native runtime (`pexe build`
/// refuses it with the same reason).
#[wasm_bindgen(js_name = objectIsPepperPlugin)]
pub fn object_is_pepper_plugin(object: &[u8]) -> bool {
    panic::init();
    native::object_is_pepper_plugin(object)
}
