//! The errors every WebAssembly module of the npm package throws: JS
//! `Error`s named `PexeError` with `kind` and `diagnostics` (see
//! `src/web.rs`), shared by the translator (`src/web.rs`) and the native
//! translator (`src/web_native.rs`) so that a pexe that does not translate
//! fails alike whatever the target.

use crate::back::TranslateError;
use crate::decode::DecodeError;
use crate::verify::Diagnostic;
use js_sys::Reflect;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A verifier diagnostic or decode error (`Diagnostic` in index.d.ts).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticSummary {
    pub pos: String,
    pub byte: u64,
    pub bit: u32,
    pub message: String,
    pub function: Option<u32>,
    pub function_name: Option<String>,
    pub block: Option<u32>,
    pub inst: Option<u32>,
    /// The line `pexe verify` prints after `FILE:`.
    pub text: String,
}

impl From<&Diagnostic> for DiagnosticSummary {
    fn from(d: &Diagnostic) -> Self {
        DiagnosticSummary {
            pos: d.pos.to_string(),
            byte: d.pos.byte(),
            bit: d.pos.bit(),
            message: d.message.clone(),
            function: d.function.map(|f| f.0),
            function_name: d.function_name.clone(),
            block: d.block.map(|b| b.0),
            inst: d.inst.map(|i| i.0),
            text: d.to_string(),
        }
    }
}

impl From<&DecodeError> for DiagnosticSummary {
    fn from(e: &DecodeError) -> Self {
        // Same text as `pexe verify` (a module-level diagnostic), plus the
        // function the decoder was in, which the message already names.
        let mut d = DiagnosticSummary::from(&crate::back::pipeline_decode_diagnostic(e));
        d.function = e.function();
        d
    }
}

/// Error kinds, as `PexeError.kind` names them.
#[derive(Clone, Copy)]
pub enum Kind {
    Decode,
    Verify,
    Translate,
    Options,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Decode => "decode",
            Kind::Verify => "verify",
            Kind::Translate => "translate",
            Kind::Options => "options",
        }
    }
}

/// A JS `Error` named `PexeError` with `kind`, `diagnostics` and, for
/// `disassemble`, `listing`.
pub fn pexe_error(kind: Kind, message: &str, diagnostics: &[DiagnosticSummary], listing: Option<&str>) -> JsValue {
    let error = js_sys::Error::new(message);
    error.set_name("PexeError");
    let set = |key: &str, value: &JsValue| {
        // Setting a property of a fresh Error cannot fail.
        let _ = Reflect::set(&error, &JsValue::from_str(key), value);
    };
    set("kind", &JsValue::from_str(kind.as_str()));
    set("diagnostics", &to_js(diagnostics));
    if let Some(listing) = listing {
        set("listing", &JsValue::from_str(listing));
    }
    error.into()
}

pub fn options_error(message: &str) -> JsValue {
    pexe_error(Kind::Options, message, &[], None)
}

pub fn decode_error(e: &DecodeError) -> JsValue {
    let d = DiagnosticSummary::from(e);
    pexe_error(Kind::Decode, &d.text.clone(), &[d], None)
}

pub fn verify_error(diagnostics: &[Diagnostic]) -> JsValue {
    let message = TranslateError::Invalid(diagnostics.to_vec()).to_string();
    let list: Vec<DiagnosticSummary> = diagnostics.iter().map(DiagnosticSummary::from).collect();
    pexe_error(Kind::Verify, &message, &list, None)
}

pub fn translate_error(e: &TranslateError) -> JsValue {
    match e {
        TranslateError::Decode(d) => decode_error(d),
        TranslateError::Invalid(d) => verify_error(d),
        other => pexe_error(Kind::Translate, &other.to_string(), &[], None),
    }
}

/// Plain data → JS: objects with the serde names, `null` for `None`,
/// numbers for integers (all below 2^53 here).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&serializer).unwrap_or_else(|e| JsValue::from(js_sys::Error::new(&e.to_string())))
}

/// How an option value reads in a message.
pub fn describe(v: &JsValue) -> String {
    match v.as_string() {
        Some(s) => format!("'{s}'"),
        None => format!("{v:?}"),
    }
}

