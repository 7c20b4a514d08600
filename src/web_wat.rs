//! The npm package's second WebAssembly module, `pexe_wat_bg.wasm`: the
//! WAT printer (wasmprinter) behind `functionWat`, and `disassemble` and
//! `stats` (`src/web/dis.rs`), built with the feature `pkg-wat`
//! (scripts/build-pkg.sh). The printer is as large as the rest of the
//! translator, and only the page's views need the three, so the translator
//! module (feature `pkg-translator`) leaves them out and the package loads
//! this one the first time one of them is called (`js/src/internal/translator/wat.js`).
//!
//! | JS | Rust | answer |
//! |---|---|---|
//! | `printFunction(module, index)` | [`print_function`] | the `(func ...)` of function `index` of a module `functionWasm` made |
//! | `disassemble(bytes, {mode, function})` | [`disassemble`] | the `pexe dis` listing, as the translator module answered it before |
//! | `stats(bytes)` | [`stats`] | `pexe stats` as data |
//! | `takePanicMessage()` | [`take_panic_message`] | the message of the last Rust panic |

#[path = "web/dis.rs"]
mod dis;
// The translator's errors; this module throws only some of them.
#[allow(dead_code)]
#[path = "web/error.rs"]
mod error;
#[path = "web/options.rs"]
mod options;
#[path = "web/panic.rs"]
mod panic;
#[path = "web/printer.rs"]
mod printer;
#[path = "web/stats.rs"]
mod stats;

pub use dis::{disassemble, stats};
pub use panic::take_panic_message;
use wasm_bindgen::prelude::*;

/// The text of function `index` of `module` (the translator module's
/// `functionWasm` answer), as `pexe translate --wat` prints that function.
#[wasm_bindgen(js_name = printFunction)]
pub fn print_function(module: &[u8], index: u32) -> Result<String, JsValue> {
    panic::init();
    printer::print_function(module, index).map_err(|m| {
        let error = js_sys::Error::new(&format!("printing the text form: {m}"));
        error.set_name("PexeError");
        let _ = js_sys::Reflect::set(&error, &"kind".into(), &"translate".into());
        let _ = js_sys::Reflect::set(&error, &"diagnostics".into(), &js_sys::Array::new());
        error.into()
    })
}
