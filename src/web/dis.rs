//! `disassemble` and `stats`: in the package's printer module
//! (`src/web_wat.rs`), loaded the first time one of them or `functionWat`
//! is called (`js/src/internal/translator/wat.js`), and in the test build
//! of `web`. The translator module leaves them out: the listing's and the
//! statistics' code (with core's float formatting) was 38 KB of its
//! gzipped size (114 KB raw), for what only the inspector's views ask.

use super::error::{describe, options_error, pexe_error, to_js, DiagnosticSummary, Kind};
use super::options::{option, options_object};
use super::panic::init;
use crate::dis::{self, Mode};
use wasm_bindgen::prelude::*;

/// The pnacl-bcdis listing of a pexe, as `pexe dis` prints it.
/// `options`: `{ mode: 'full' | 'records' | 'asm', function: N }`.
#[wasm_bindgen]
pub fn disassemble(bytes: &[u8], options: JsValue) -> Result<String, JsValue> {
    init();
    let o = options_object(&options, "disassemble")?;
    let mode = match option(&o, "mode")? {
        None => Mode::Full,
        Some(m) => match m.as_string().as_deref() {
            Some("full") => Mode::Full,
            Some("records") => Mode::Records,
            Some("asm") => Mode::Asm,
            _ => {
                return Err(options_error(&format!(
                    "unknown disassembly mode {} (one of 'full', 'records', 'asm')",
                    describe(&m)
                )))
            }
        },
    };
    let function = match option(&o, "function")? {
        None => None,
        Some(v) => match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Some(n as u32),
            _ => return Err(options_error(&format!("option 'function' must be a function id (@fN), got {}", describe(&v)))),
        },
    };
    let mut listing = String::new();
    match dis::disassemble(bytes, &dis::Options { mode, function }, &mut listing) {
        Ok(()) => Ok(listing),
        Err(e) => {
            let d = DiagnosticSummary::from(&e);
            Err(pexe_error(Kind::Decode, &d.text.clone(), &[d], Some(&listing)))
        }
    }
}

/// Where the bits go (`pexe stats` as data), up to the first bitstream
/// error, which is reported in `error`.
#[wasm_bindgen]
pub fn stats(bytes: &[u8]) -> JsValue {
    init();
    to_js(&super::stats::stats(bytes))
}
