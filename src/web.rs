//! The wasm-bindgen API: what the npm package (`pkg/`, built by
//! `scripts/build-pkg.sh`) calls in the browser and in Node.
//!
//! | JS | Rust | answer |
//! |---|---|---|
//! | `inspect(bytes)` | [`inspect`] | module summary object ([`summary::ModuleSummary`]); never throws for bad input |
//! | `disassemble(bytes, {mode, function})` | [`disassemble`] | the `pexe dis` listing |
//! | `translate(bytes, {target, names})` | [`translate`] | `Uint8Array`, the wasm module |
//! | `new Inspector(opts)` / `new Translator(opts)` | [`Inspector`], [`Translator`] | `feed(chunk)`, `finish()`, progress |
//! | `stats(bytes)` | [`stats`] | `pexe stats` as data; never throws for bad input |
//! | `functionWat(bytes, {function, names})` | [`function_wat`] | the WAT of one translated function |
//! | `takePanicMessage()` | [`take_panic_message`] | the message of the last Rust panic |
//!
//! Rust names are snake_case, JS names camelCase (`js_name`). The npm entry
//! (`js/src/public/`) wraps these: it accepts any `BufferSource`, turns the
//! errors thrown here into `PexeError`s, and adds `run`. Its declarations,
//! `js/src/index.d.ts`, are the contract; this module follows them.
//!
//! Errors are JS `Error`s named `PexeError` with two extra properties:
//! `kind` (`'decode'`, `'verify'`, `'translate'`, `'options'`) and
//! `diagnostics` (positioned problems as plain objects, `byte:bit` in
//! `pos`); `disassemble` adds the partial `listing`.
//!
//! Panics: a panic is a bug, never an answer to bad input. wasm32 builds
//! abort on panic, which traps (`WebAssembly.RuntimeError: unreachable`), so
//! JS sees an exception, never a hang. The hook installed by every entry
//! point logs the message and stack with `console_error_panic_hook` and also
//! keeps the message, which the npm entry fetches with `takePanicMessage()`
//! to throw a `PexeError` of kind `'panic'` carrying the Rust message.

mod stats;
mod stream;
mod summary;
mod wat;

use crate::back::wasm::{Options as WasmOptions, TranslateError};
use crate::decode::DecodeError;
use crate::dis::{self, Mode};
use crate::verify::{self, Diagnostic};
use js_sys::{Function, Reflect};
use serde::Serialize;
use std::cell::RefCell;
use stream::{Bodies, Phase, Stream};
use summary::DiagnosticSummary;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The message of the last panic, until `takePanicMessage` takes it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the panic hook (once). Every exported function calls this
/// first: a `#[wasm_bindgen(start)]` function would also run inside the
/// wasm-bindgen-test harness, which installs its own.
fn init() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            // Keep the message first: the console hook is only for people.
            let message = info.to_string();
            LAST_PANIC.with(|p| {
                if let Ok(mut p) = p.try_borrow_mut() {
                    *p = Some(message);
                }
            });
            console_error_panic_hook::hook(info);
        }));
    });
}

/// The message of the last Rust panic (`"panicked at src/…: message"`), once.
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
}

/// Panics with `message`: lets the tests check that a panic reaches JS as
/// an exception with its message. Not part of the package API.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests(message: &str) {
    init();
    panic!("{message}");
}

/// The crate version (the npm package has the same).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

// ------------------------------------------------------------------ errors

/// Error kinds, as `PexeError.kind` names them.
#[derive(Clone, Copy)]
enum Kind {
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
fn pexe_error(kind: Kind, message: &str, diagnostics: &[DiagnosticSummary], listing: Option<&str>) -> JsValue {
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

fn options_error(message: &str) -> JsValue {
    pexe_error(Kind::Options, message, &[], None)
}

fn decode_error(e: &DecodeError) -> JsValue {
    let d = DiagnosticSummary::from(e);
    pexe_error(Kind::Decode, &d.text.clone(), &[d], None)
}

fn verify_error(diagnostics: &[Diagnostic]) -> JsValue {
    let message = TranslateError::Invalid(diagnostics.to_vec()).to_string();
    let list: Vec<DiagnosticSummary> = diagnostics.iter().map(DiagnosticSummary::from).collect();
    pexe_error(Kind::Verify, &message, &list, None)
}

fn translate_error(e: &TranslateError) -> JsValue {
    match e {
        TranslateError::Decode(d) => decode_error(d),
        TranslateError::Invalid(d) => verify_error(d),
        other => pexe_error(Kind::Translate, &other.to_string(), &[], None),
    }
}

/// Plain data → JS: objects with the serde names, `null` for `None`,
/// numbers for integers (all below 2^53 here).
fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&serializer).unwrap_or_else(|e| JsValue::from(js_sys::Error::new(&e.to_string())))
}

// ------------------------------------------------------------------ options

/// An options argument: `undefined`/`null` (defaults) or an object.
fn options_object(options: &JsValue, what: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        Ok(None)
    } else if options.is_object() {
        Ok(Some(options.clone()))
    } else {
        Err(options_error(&format!("{what} options must be an object")))
    }
}

/// `options[key]`, `None` when absent or undefined.
fn option(options: &Option<JsValue>, key: &str) -> Result<Option<JsValue>, JsValue> {
    let Some(o) = options else { return Ok(None) };
    let v = Reflect::get(o, &JsValue::from_str(key))?;
    Ok((!v.is_undefined()).then_some(v))
}

fn wasm_options(options: &JsValue) -> Result<WasmOptions, JsValue> {
    let o = options_object(options, "translate")?;
    if let Some(target) = option(&o, "target")? {
        match target.as_string().as_deref() {
            Some("wasm32") => {}
            _ => {
                return Err(options_error(&format!(
                    "unknown target {} (this package translates to 'wasm32' only)",
                    describe(&target)
                )))
            }
        }
    }
    let names = match option(&o, "names")? {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| options_error("option 'names' must be a boolean"))?,
    };
    Ok(WasmOptions { names, ..WasmOptions::default() })
}

fn progress_callback(options: &Option<JsValue>) -> Result<Option<Function>, JsValue> {
    match option(options, "onProgress")? {
        None => Ok(None),
        Some(v) if v.is_null() => Ok(None),
        Some(v) => v.dyn_into::<Function>().map(Some).map_err(|_| options_error("option 'onProgress' must be a function")),
    }
}

/// How an option value reads in a message.
fn describe(v: &JsValue) -> String {
    match v.as_string() {
        Some(s) => format!("'{s}'"),
        None => format!("{v:?}"),
    }
}

// ------------------------------------------------------------------ whole-buffer API

/// Summarizes a pexe: header, counts, functions with sizes, globals, the
/// intrinsics and IRT interfaces it uses, verifier diagnostics. Bad input
/// is described, not thrown.
#[wasm_bindgen]
pub fn inspect(bytes: &[u8]) -> JsValue {
    init();
    // Errors are kept by the stream and reported in the summary.
    summarize(Stream::whole(bytes))
}

fn summarize(stream: Stream<'_>) -> JsValue {
    let size = stream.bytes_read;
    let header = stream.header().cloned();
    let bodies = stream.bodies.clone();
    let (finished, _) = stream.into_finished();
    to_js(&summary::summarize(size, header.as_ref(), &bodies, &finished))
}

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

/// Decodes, verifies and translates a pexe to a WebAssembly module (the
/// runtime ABI of `notes/abi.md`). `options`: `{ target: 'wasm32', names }`.
#[wasm_bindgen]
pub fn translate(bytes: &[u8], options: JsValue) -> Result<Vec<u8>, JsValue> {
    init();
    let opts = wasm_options(&options)?;
    crate::back::wasm::translate_bytes(bytes, &opts).map_err(|e| translate_error(&e))
}

/// Where the bits go (`pexe stats` as data), up to the first bitstream
/// error, which is reported in `error`.
#[wasm_bindgen]
pub fn stats(bytes: &[u8]) -> JsValue {
    init();
    to_js(&stats::stats(bytes))
}

/// The text form of the wasm function translated from `@fN`:
/// `options = { function: N, names: true }`.
#[wasm_bindgen(js_name = functionWat)]
pub fn function_wat(bytes: &[u8], options: JsValue) -> Result<String, JsValue> {
    init();
    let o = options_object(&options, "functionWat")?;
    let function = match option(&o, "function")?.and_then(|v| v.as_f64()) {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => n as u32,
        _ => return Err(options_error("option 'function' must be a function id (@fN)")),
    };
    let names = match option(&o, "names")? {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| options_error("option 'names' must be a boolean"))?,
    };
    wat::function_wat(bytes, function, names).map_err(|e| match e {
        wat::WatError::Translate(e) => translate_error(&e),
        wat::WatError::NoBody(f) => options_error(&format!("@f{f} is not a function with a body")),
        wat::WatError::Print(m) => pexe_error(Kind::Translate, &format!("printing the text form: {m}"), &[], None),
    })
}

// ------------------------------------------------------------------ streaming API

/// The `Progress` object.
#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
struct Progress {
    bytes_read: u64,
    functions_total: Option<u32>,
    functions_decoded: u32,
    functions_translated: u32,
    diagnostics: usize,
    phase: &'static str,
}

/// What `Inspector` and `Translator` share: the stream, the counters that
/// outlive it, and the callback.
struct Feeder {
    stream: Option<Stream<'static>>,
    on_progress: Option<Function>,
    /// Counters frozen when the stream is finished.
    last: Progress,
    what: &'static str,
}

impl Feeder {
    fn new(keep_input: bool, on_progress: Option<Function>, what: &'static str) -> Self {
        Feeder {
            stream: Some(Stream::new(keep_input)),
            on_progress,
            last: Progress {
                bytes_read: 0,
                functions_total: None,
                functions_decoded: 0,
                functions_translated: 0,
                diagnostics: 0,
                phase: Phase::Decode.as_str(),
            },
            what,
        }
    }

    fn progress(&self) -> Progress {
        match &self.stream {
            Some(s) => Progress {
                bytes_read: s.bytes_read,
                functions_total: s.functions_total,
                functions_decoded: s.functions_decoded,
                functions_translated: 0,
                diagnostics: s.diagnostic_count(),
                phase: Phase::Decode.as_str(),
            },
            None => self.last,
        }
    }

    fn report(&self, progress: &Progress) -> Result<(), JsValue> {
        if let Some(f) = &self.on_progress {
            f.call1(&JsValue::NULL, &to_js(progress))?;
        }
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<JsValue, JsValue> {
        let Some(stream) = self.stream.as_mut() else {
            return Err(options_error(&format!("this {} is finished: make a new one", self.what)));
        };
        stream.feed(chunk).map_err(|e| decode_error(&e))?;
        let progress = self.progress();
        self.report(&progress)?;
        Ok(to_js(&progress))
    }

    /// Takes the stream out for `finish`.
    fn take(&mut self) -> Result<Stream<'static>, JsValue> {
        let stream =
            self.stream.take().ok_or_else(|| options_error(&format!("this {} is finished: make a new one", self.what)))?;
        self.last = Progress {
            bytes_read: stream.bytes_read,
            functions_total: stream.functions_total.or(Some(stream.functions_decoded)),
            functions_decoded: stream.functions_decoded,
            functions_translated: 0,
            diagnostics: stream.diagnostic_count(),
            phase: Phase::Done.as_str(),
        };
        Ok(stream)
    }
}

macro_rules! progress_getters {
    ($t:ty) => {
        #[wasm_bindgen]
        impl $t {
            /// The `Progress` object (see index.d.ts).
            #[wasm_bindgen(getter)]
            pub fn progress(&self) -> JsValue {
                to_js(&self.feeder.progress())
            }
            #[wasm_bindgen(getter, js_name = bytesRead)]
            pub fn bytes_read(&self) -> f64 {
                self.feeder.progress().bytes_read as f64
            }
            #[wasm_bindgen(getter, js_name = functionsDecoded)]
            pub fn functions_decoded(&self) -> u32 {
                self.feeder.progress().functions_decoded
            }
            #[wasm_bindgen(getter, js_name = functionsTranslated)]
            pub fn functions_translated(&self) -> u32 {
                self.feeder.progress().functions_translated
            }
            #[wasm_bindgen(getter, js_name = functionsTotal)]
            pub fn functions_total(&self) -> Option<u32> {
                self.feeder.progress().functions_total
            }
        }
    };
}

/// Push form of [`inspect`]: `feed` chunks as they arrive, `finish` for
/// the summary (the same as `inspect` of the whole file).
#[wasm_bindgen]
pub struct Inspector {
    feeder: Feeder,
}

#[wasm_bindgen]
impl Inspector {
    /// `options`: `{ onProgress(progress) }`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Inspector, JsValue> {
        init();
        let o = options_object(&options, "Inspector")?;
        Ok(Inspector { feeder: Feeder::new(false, progress_callback(&o)?, "Inspector") })
    }

    /// Decodes what this chunk completes; answers the progress. Bad input
    /// does not throw: `finish` describes it.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<JsValue, JsValue> {
        init();
        // An inspector describes bad input instead of refusing it: keep
        // accepting chunks (they are ignored after an error).
        match self.feeder.stream.as_mut() {
            Some(s) => {
                let _ = s.feed(chunk);
            }
            None => return self.feeder.feed(chunk),
        }
        let progress = self.feeder.progress();
        self.feeder.report(&progress)?;
        Ok(to_js(&progress))
    }

    /// Ends the input; the module summary.
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        init();
        let stream = self.feeder.take()?;
        let summary = summarize(stream);
        self.feeder.report(&self.feeder.last)?;
        Ok(summary)
    }
}

progress_getters!(Inspector);

/// Push form of [`translate`]: `feed` decodes and verifies bodies as their
/// bytes arrive (a decode error throws at once); `finish` translates.
#[wasm_bindgen]
pub struct Translator {
    feeder: Feeder,
    options: WasmOptions,
}

#[wasm_bindgen]
impl Translator {
    /// `options`: `{ target: 'wasm32', names, onProgress(progress) }`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Translator, JsValue> {
        init();
        let wasm = wasm_options(&options)?;
        let o = options_object(&options, "Translator")?;
        Ok(Translator { feeder: Feeder::new(true, progress_callback(&o)?, "Translator"), options: wasm })
    }

    /// Decodes and verifies what this chunk completes; answers the progress.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<JsValue, JsValue> {
        init();
        self.feeder.feed(chunk)
    }

    /// Ends the input and translates; the module's bytes. Throws like
    /// `translate`.
    pub fn finish(&mut self) -> Result<Vec<u8>, JsValue> {
        init();
        let stream = self.feeder.take()?;
        let (finished, kept) = stream.into_finished();
        if let Some(e) = &finished.error {
            return Err(decode_error(e));
        }
        if !finished.diagnostics.is_empty() {
            return Err(verify_error(&finished.diagnostics));
        }
        let module = finished.module;
        let verified = verify::verify(&module).map_err(|d| verify_error(&d))?;
        let bytes = kept.unwrap_or_default();
        let mut bodies = Bodies::new(&bytes);

        // Report about a hundred times, whatever the size.
        let total = self.feeder.last.functions_decoded;
        let step = (total / 100).max(1);
        let mut callback_error = None;
        let mut translated = 0u32;
        let feeder = &self.feeder;
        let mut progress = Progress { phase: Phase::Translate.as_str(), ..feeder.last };
        feeder.report(&progress)?;
        let counted = std::iter::from_fn(|| {
            if callback_error.is_some() {
                return None;
            }
            // The body handed out before this call has been translated.
            if translated > 0 && translated % step == 0 {
                progress.functions_translated = translated;
                if let Err(e) = feeder.report(&progress) {
                    callback_error = Some(e);
                    return None;
                }
            }
            let f = bodies.next()?;
            translated += 1;
            Some(f)
        });
        let result = crate::back::wasm::translate(&verified, counted, &self.options);
        if let Some(e) = callback_error {
            return Err(e);
        }
        if let Some(e) = bodies.error.take() {
            return Err(decode_error(&e));
        }
        let wasm = result.map_err(|e| translate_error(&e))?;
        self.feeder.last.functions_translated = translated;
        self.feeder.report(&self.feeder.last)?;
        Ok(wasm)
    }
}

progress_getters!(Translator);
