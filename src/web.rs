//! The wasm-bindgen API: what the npm package (`pkg/`, built by
//! `scripts/build-pkg.sh`) calls in the browser and in Node.
//!
//! | JS | Rust | answer |
//! |---|---|---|
//! | `inspect(bytes)` | [`inspect`] | module summary object ([`summary::ModuleSummary`]); never throws for bad input |
//! | `disassemble(bytes, {mode, function})` | `disassemble` | the `pexe dis` listing (in the package, from the printer module: `src/web/dis.rs`) |
//! | `translate(bytes, {target, names})` | [`translate`] | `Uint8Array`, the wasm module |
//! | `new Inspector(opts)` / `new Translator(opts)` | [`Inspector`], [`Translator`] | `feed(chunk)`, `finish()`, progress |
//! | `stats(bytes)` | `stats` | `pexe stats` as data; never throws for bad input (in the package, from the printer module: `src/web/dis.rs`) |
//! | `functionWat(bytes, {function, names})` | `function_wat` | the WAT of one translated function (not in the package's module: below) |
//! | `functionWasm(bytes, {function, names})` | [`function_wasm`] | `{module, index}`: what `functionWat` prints, for the WAT printer module |
//! | `takePanicMessage()` | [`take_panic_message`] | the message of the last Rust panic |
//! | `maxTranslateWorkers()` | [`max_translate_workers`] | the cap on a translation's Workers (`src/limits.rs`) |
//! | `new BodySplitter()` | [`BodySplitter`] | main thread of a Worker pool: `feed(chunk)` → body jobs' headers end to end, `prefix`, `finish()` |
//! | `new BodyTranslator(prefix, {names})` | [`BodyTranslator`] | in each Worker: `translateBatch(headers, bytes, base)` → translated bodies end to end and `ends` (`translate(job)`: one, header and bytes) |
//! | `new Stitcher(prefix, {names})` | [`Stitcher`] | main thread: `defineBodies(bodies, ends)` in order (`defineBody(body)`: one), `finish()` → the module |
//!
//! The last three are the parallel form of `Translator` (`back::parallel`):
//! the main thread streams the pexe into a `BodySplitter`, which answers
//! each function block as soon as its bytes are in, as a job header (the
//! headers of one `feed` end to end in one `Uint8Array`; a header says
//! where its body's bytes lie in the file, which the main thread holds);
//! once `prefix` is there (the bytes before the first body), each Worker
//! makes one `BodyTranslator` from it and translates the jobs it is sent,
//! a batch per call (their headers, and the piece of the file from the
//! first body's bytes to the last one's end); the main thread gives the
//! results to a `Stitcher` in job order (a job's index is its first u32,
//! little-endian; a result does not say which job it answers) and
//! finishes. Batches cross the wasm-bindgen boundary once each way, not
//! once per body (a module has thousands of small ones). The module is byte-identical to
//! `translate`'s. A splitter refuses files where anything but function
//! blocks follows the first one, and a module with no bodies has no
//! `prefix`: use `Translator` for those, and to get every diagnostic of an
//! invalid pexe (a Worker stops at its body's first problem).
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

#[cfg(not(feature = "pkg-translator"))]
mod dis;
mod error;
mod options;
mod panic;
#[cfg(not(feature = "pkg-translator"))]
mod printer;
#[cfg(not(feature = "pkg-translator"))]
mod stats;
mod summary;
mod wat;

#[cfg(not(feature = "pkg-translator"))]
pub use dis::{disassemble, stats};

use error::{decode_error, describe, options_error, pexe_error, to_js, translate_error, verify_error, Kind};
use options::{option, options_object};
pub use panic::take_panic_message;
use panic::init;

use crate::back::parallel::{self, BodyError, BodyWorker, ModuleContext, SplitBody};
use crate::back::wasm::{BodyCode, Options as WasmOptions, WasmBackend};
use crate::back::{Backend, NoBackend, Pipeline};
use js_sys::{Function, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Panics with `message`: lets the tests check that a panic reaches JS as
/// an exception with its message. Not part of the package API.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests(message: &str) {
    init();
    panic!("{message}");
}

/// The most Workers the package translates one pexe on
/// ([`crate::limits::MAX_TRANSLATE_WORKERS`]).
#[wasm_bindgen(js_name = maxTranslateWorkers)]
pub fn max_translate_workers() -> u32 {
    crate::limits::MAX_TRANSLATE_WORKERS as u32
}

/// The crate version (the npm package has the same).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

// ------------------------------------------------------------------ options

fn wasm_options(options: &JsValue) -> Result<WasmOptions, JsValue> {
    let o = options_object(options, "translate")?;
    if let Some(target) = option(&o, "target")? {
        match target.as_string().as_deref() {
            Some("wasm32") => {}
            _ => {
                return Err(options_error(&format!(
                    // The package's translate() sends x86_64-linux and
                    // aarch64-linux to the native module (src/web_native.rs).
                    "target {} is not 'wasm32' (native targets: translate())",
                    describe(&target)
                )))
            }
        }
    }
    let names = match option(&o, "names")? {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| options_error("option 'names' must be a boolean"))?,
    };
    // No threads here: a page runs one translator per Worker.
    Ok(WasmOptions { names, parallel: false, ..WasmOptions::default() })
}

fn progress_callback(options: &Option<JsValue>) -> Result<Option<Function>, JsValue> {
    match option(options, "onProgress")? {
        None => Ok(None),
        Some(v) if v.is_null() => Ok(None),
        Some(v) => v.dyn_into::<Function>().map(Some).map_err(|_| options_error("option 'onProgress' must be a function")),
    }
}

// ------------------------------------------------------------------ whole-buffer API

/// Summarizes a pexe: header, counts, functions with sizes, globals, the
/// intrinsics and IRT interfaces it uses, verifier diagnostics. Bad input
/// is described, not thrown.
#[wasm_bindgen]
pub fn inspect(bytes: &[u8]) -> JsValue {
    init();
    // Errors are kept by the pipeline and reported in the summary.
    summarize(Pipeline::<NoBackend>::whole(bytes, ()).keep_body_stats())
}

fn summarize(pipeline: Pipeline<'_, NoBackend>) -> JsValue {
    to_js(&summary::summarize(&pipeline.finish()))
}

/// Decodes, verifies and translates a pexe to a WebAssembly module (the
/// runtime ABI of `docs/abi.md`). `options`: `{ target: 'wasm32', names }`.
#[wasm_bindgen]
pub fn translate(bytes: &[u8], options: JsValue) -> Result<Vec<u8>, JsValue> {
    init();
    let opts = wasm_options(&options)?;
    crate::back::wasm::translate_bytes(bytes, &opts).map_err(|e| translate_error(&e))
}

/// `functionWat`'s options: the function id and whether to keep names.
fn wat_options(options: &JsValue) -> Result<(u32, bool), JsValue> {
    let o = options_object(options, "functionWat")?;
    let function = match option(&o, "function")?.and_then(|v| v.as_f64()) {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => n as u32,
        _ => return Err(options_error("option 'function' must be a function id (@fN)")),
    };
    let names = match option(&o, "names")? {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| options_error("option 'names' must be a boolean"))?,
    };
    Ok((function, names))
}

fn wat_error(e: wat::WatError) -> JsValue {
    match e {
        wat::WatError::Translate(e) => translate_error(&e),
        wat::WatError::NoBody(f) => options_error(&format!("@f{f} is not a function with a body")),
        wat::WatError::Print(m) => pexe_error(Kind::Translate, &format!("printing the text form: {m}"), &[], None),
    }
}

/// The text form of the wasm function translated from `@fN`:
/// `options = { function: N, names: true }`. Not in the package's
/// translator module (`pkg-translator`), which answers [`function_wasm`]
/// for the WAT printer module (`src/web_wat.rs`) to print.
#[cfg(not(feature = "pkg-translator"))]
#[wasm_bindgen(js_name = functionWat)]
pub fn function_wat(bytes: &[u8], options: JsValue) -> Result<String, JsValue> {
    init();
    let (function, names) = wat_options(&options)?;
    wat::function_wat(bytes, function, names).map_err(wat_error)
}

/// What `functionWat` prints, for the printer module: `{ module, index }`,
/// a module holding only the body translated from `@fN` (every other body
/// is `unreachable`) and that function's index in it. Options and errors
/// as `functionWat`.
#[wasm_bindgen(js_name = functionWasm)]
pub fn function_wasm(bytes: &[u8], options: JsValue) -> Result<JsValue, JsValue> {
    init();
    let (function, names) = wat_options(&options)?;
    let (module, index) = wat::function_module(bytes, function, names).map_err(wat_error)?;
    let out = js_sys::Object::new();
    Reflect::set(&out, &JsValue::from_str("module"), &js_sys::Uint8Array::from(&module[..]))?;
    Reflect::set(&out, &JsValue::from_str("index"), &JsValue::from(index))?;
    Ok(out.into())
}

// ------------------------------------------------------------------ streaming API

/// How far a stream has got (`Progress.phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Being fed: bodies are decoded, verified and (by a Translator)
    /// translated as their bytes arrive.
    Decode,
    /// Inside a Translator's `finish()`: the module is put together.
    Translate,
    Done,
}

impl Phase {
    fn as_str(self) -> &'static str {
        match self {
            Phase::Decode => "decode",
            Phase::Translate => "translate",
            Phase::Done => "done",
        }
    }
}

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

/// What `Inspector` and `Translator` share: the pipeline, the counters
/// that outlive it, and the callback.
struct Feeder<B: Backend> {
    pipeline: Option<Pipeline<'static, B>>,
    on_progress: Option<Function>,
    /// Counters frozen when the stream is finished.
    last: Progress,
    what: &'static str,
}

impl<B: Backend> Feeder<B> {
    fn new(pipeline: Pipeline<'static, B>, on_progress: Option<Function>, what: &'static str) -> Self {
        Feeder {
            pipeline: Some(pipeline),
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
        match &self.pipeline {
            Some(p) => {
                let p = p.progress();
                Progress {
                    bytes_read: p.bytes_read,
                    functions_total: p.functions_total,
                    functions_decoded: p.functions_decoded,
                    // An Inspector's back end translates nothing.
                    functions_translated: if self.what == "Translator" { p.functions_defined } else { 0 },
                    diagnostics: p.diagnostics,
                    phase: Phase::Decode.as_str(),
                }
            }
            None => self.last,
        }
    }

    fn report(&self, progress: &Progress) -> Result<(), JsValue> {
        if let Some(f) = &self.on_progress {
            f.call1(&JsValue::NULL, &to_js(progress))?;
        }
        Ok(())
    }

    fn finished_error(&self) -> JsValue {
        options_error(&format!("this {} is finished: make a new one", self.what))
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<JsValue, JsValue> {
        let Some(pipeline) = self.pipeline.as_mut() else {
            return Err(self.finished_error());
        };
        pipeline.feed(chunk).map_err(|e| decode_error(&e))?;
        let progress = self.progress();
        self.report(&progress)?;
        Ok(to_js(&progress))
    }

    /// Takes the pipeline out for `finish`, freezing the counters.
    fn take(&mut self) -> Result<Pipeline<'static, B>, JsValue> {
        match self.pipeline.as_mut() {
            Some(p) => {
                let _ = p.end_input();
            }
            None => return Err(self.finished_error()),
        }
        let progress = self.progress();
        let pipeline = self.pipeline.take().ok_or_else(|| self.finished_error())?;
        self.last = Progress {
            functions_total: progress.functions_total.or(Some(progress.functions_decoded)),
            phase: Phase::Done.as_str(),
            ..progress
        };
        Ok(pipeline)
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
    feeder: Feeder<NoBackend>,
}

#[wasm_bindgen]
impl Inspector {
    /// `options`: `{ onProgress(progress) }`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Inspector, JsValue> {
        init();
        let o = options_object(&options, "Inspector")?;
        let pipeline = Pipeline::streaming(()).keep_body_stats();
        Ok(Inspector { feeder: Feeder::new(pipeline, progress_callback(&o)?, "Inspector") })
    }

    /// Decodes what this chunk completes; answers the progress. Bad input
    /// does not throw: `finish` describes it.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<JsValue, JsValue> {
        init();
        // An inspector describes bad input instead of refusing it: keep
        // accepting chunks (they are ignored after an error).
        match self.feeder.pipeline.as_mut() {
            Some(p) => {
                let _ = p.feed(chunk);
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
        let pipeline = self.feeder.take()?;
        let summary = summarize(pipeline);
        self.feeder.report(&self.feeder.last)?;
        Ok(summary)
    }
}

progress_getters!(Inspector);

/// Push form of [`translate`]: `feed` decodes, verifies and translates the
/// bodies this chunk completes (a decode error throws at once); `finish`
/// ends the input and assembles the module.
#[wasm_bindgen]
pub struct Translator {
    feeder: Feeder<WasmBackend>,
}

#[wasm_bindgen]
impl Translator {
    /// `options`: `{ target: 'wasm32', names, onProgress(progress) }`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Translator, JsValue> {
        init();
        let wasm = wasm_options(&options)?;
        let o = options_object(&options, "Translator")?;
        Ok(Translator { feeder: Feeder::new(Pipeline::streaming(wasm), progress_callback(&o)?, "Translator") })
    }

    /// Decodes, verifies and translates what this chunk completes; answers
    /// the progress.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<JsValue, JsValue> {
        init();
        self.feeder.feed(chunk)
    }

    /// Ends the input; the module's bytes. Throws like `translate`.
    pub fn finish(&mut self) -> Result<Vec<u8>, JsValue> {
        init();
        let pipeline = self.feeder.take()?;
        self.feeder.report(&Progress { phase: Phase::Translate.as_str(), ..self.feeder.last })?;
        let wasm = pipeline.finish().into_output().map_err(|e| translate_error(&e))?;
        self.feeder.report(&self.feeder.last)?;
        Ok(wasm)
    }
}

progress_getters!(Translator);

// ------------------------------------------------------------------ Worker pool API

fn body_error(e: &BodyError) -> JsValue {
    match e {
        BodyError::Decode(d) => decode_error(d),
        BodyError::Invalid(d) => verify_error(d),
        BodyError::Translate(t) => translate_error(t),
        BodyError::NoSuchBody { .. } => options_error(&e.to_string()),
    }
}

/// The main thread of a Worker pool: reads the pexe as it arrives and hands
/// out each function block as a job as soon as its bytes are in.
#[wasm_bindgen]
pub struct BodySplitter {
    inner: parallel::Splitter,
}

#[wasm_bindgen]
impl BodySplitter {
    #[wasm_bindgen(constructor)]
    pub fn new() -> BodySplitter {
        init();
        BodySplitter { inner: parallel::Splitter::new() }
    }

    /// Reads a chunk; the jobs (one per function block) it completes, in
    /// order, as their headers end to end (`SplitBody::HEADER` bytes
    /// each: a job without its bytes, which the caller holds: the file's
    /// bytes from the body's bit position to its end's, in bits at
    /// offsets 16 and 24, u64 LE). Throws a `PexeError` for bad input.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<u8>, JsValue> {
        init();
        let mut out = Vec::new();
        self.inner.feed_headers(chunk, &mut out).map_err(|e| decode_error(&e))?;
        Ok(out)
    }

    /// The bytes before the first body (what `BodyTranslator` and
    /// `Stitcher` are made from), once the first function block has begun.
    /// Copied once, straight into a new JS array (a `Vec` would be copied
    /// twice: into it, then out of wasm memory).
    #[wasm_bindgen(getter)]
    pub fn prefix(&self) -> Option<js_sys::Uint8Array> {
        self.inner.prefix().map(js_sys::Uint8Array::from)
    }

    /// Jobs handed out so far.
    #[wasm_bindgen(getter)]
    pub fn bodies(&self) -> u32 {
        self.inner.bodies()
    }

    /// Ends the input; throws unless the module ended properly.
    pub fn finish(&mut self) -> Result<(), JsValue> {
        init();
        self.inner.finish().map_err(|e| decode_error(&e))
    }
}

impl Default for BodySplitter {
    fn default() -> Self {
        Self::new()
    }
}

/// In a Worker: decodes, verifies and translates jobs of one module.
#[wasm_bindgen]
pub struct BodyTranslator {
    worker: BodyWorker,
    ends: Vec<u32>,
}

#[wasm_bindgen]
impl BodyTranslator {
    /// `prefix`: `BodySplitter.prefix`. `options`: `{ target, names }`
    /// (ignored here but checked, as `Stitcher` uses them).
    #[wasm_bindgen(constructor)]
    pub fn new(prefix: &[u8], options: JsValue) -> Result<BodyTranslator, JsValue> {
        init();
        wasm_options(&options)?;
        let context = ModuleContext::from_prefix(prefix).map_err(|e| body_error(&e))?;
        Ok(BodyTranslator { worker: BodyWorker::new(&std::sync::Arc::new(context)), ends: Vec::new() })
    }

    /// Translates one job; the result to give to `Stitcher.defineBody`.
    pub fn translate(&mut self, job: &[u8]) -> Result<Vec<u8>, JsValue> {
        init();
        let mut out = Vec::new();
        self.translate_into(job, &mut out)?;
        Ok(out)
    }

    /// Translates jobs given as their headers end to end (`headers`, as
    /// `BodySplitter.feed` answers them) and the file's bytes from byte
    /// `base` on through the last job's end (`bytes`: a batch of
    /// consecutive bodies is one piece of the file, what lies between
    /// them included); the results end to end, in the same order (`ends`
    /// then says where each ends), for `Stitcher.defineBodies`. Throws at
    /// the first job that does not translate.
    #[wasm_bindgen(js_name = translateBatch)]
    pub fn translate_batch(&mut self, headers: &[u8], bytes: &[u8], base: f64) -> Result<Vec<u8>, JsValue> {
        init();
        // A body's result takes 0.9 to 1.2 times its bytes in the corpus:
        // room made once, not grown from empty (a copy of it all or more).
        let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 4);
        self.ends.clear();
        let not_a_job = || options_error("not a job header made by BodySplitter, or its bytes not given");
        if headers.len() % SplitBody::HEADER != 0 || !(base >= 0.0 && base.fract() == 0.0) {
            return Err(not_a_job());
        }
        let base = base as u64;
        let held_end = base.saturating_add(bytes.len() as u64);
        for header in headers.chunks_exact(SplitBody::HEADER) {
            let job = SplitBody::parse_header(header).ok_or_else(not_a_job)?;
            if job.range.body.0 / 8 < base || job.range.end.0 / 8 > held_end {
                return Err(not_a_job());
            }
            let body = self.worker.translate(&job, bytes, base).map_err(|e| body_error(&e))?;
            body.write_to(&mut out);
            self.ends.push(out.len() as u32);
        }
        Ok(out)
    }

    /// Where each result of the last `translateBatch` ends in its answer.
    #[wasm_bindgen(getter)]
    pub fn ends(&self) -> Vec<u32> {
        self.ends.clone()
    }

    fn translate_into(&mut self, job: &[u8], out: &mut Vec<u8>) -> Result<(), JsValue> {
        let (job, bytes) = SplitBody::parse(job).ok_or_else(|| options_error("not a job made by BodySplitter"))?;
        let base = job.byte_range().start as u64;
        let body = self.worker.translate(&job, bytes, base).map_err(|e| body_error(&e))?;
        body.write_to(out);
        Ok(())
    }
}

/// The main thread of a Worker pool: puts the translated bodies together.
#[wasm_bindgen]
pub struct Stitcher {
    context: std::sync::Arc<ModuleContext>,
    inner: Option<parallel::Stitcher>,
}

#[wasm_bindgen]
impl Stitcher {
    /// `prefix`: `BodySplitter.prefix`. `options`: `{ target, names }`.
    #[wasm_bindgen(constructor)]
    pub fn new(prefix: &[u8], options: JsValue) -> Result<Stitcher, JsValue> {
        init();
        let opts = wasm_options(&options)?;
        let (context, inner) = parallel::Stitcher::from_prefix(prefix, &opts).map_err(|e| body_error(&e))?;
        Ok(Stitcher { context, inner: Some(inner) })
    }

    /// Adds the next body (results must come in job order).
    #[wasm_bindgen(js_name = defineBody)]
    pub fn define_body(&mut self, body: &[u8]) -> Result<(), JsValue> {
        init();
        let inner = self.inner.as_mut().ok_or_else(|| options_error("this Stitcher is finished: make a new one"))?;
        let (body, entry) = BodyCode::parse(body).ok_or_else(|| options_error("not a body made by BodyTranslator"))?;
        inner.define_parsed_body(body, entry).map_err(|e| translate_error(&e))
    }

    /// Adds the next bodies, given end to end (`ends`: where each ends, as
    /// `BodyTranslator.ends`).
    #[wasm_bindgen(js_name = defineBodies)]
    pub fn define_bodies(&mut self, bodies: &[u8], ends: &[u32]) -> Result<(), JsValue> {
        let mut at = 0;
        for &end in ends {
            let body = bodies.get(at..end as usize).ok_or_else(|| options_error("body ends out of order or past the bytes"))?;
            self.define_body(body)?;
            at = end as usize;
        }
        Ok(())
    }

    /// How many bodies the module has (every job of its splitter).
    #[wasm_bindgen(getter, js_name = functionsTotal)]
    pub fn functions_total(&self) -> u32 {
        self.context.num_bodies() as u32
    }

    /// The module, once every body is in.
    pub fn finish(&mut self) -> Result<Vec<u8>, JsValue> {
        init();
        let inner = self.inner.take().ok_or_else(|| options_error("this Stitcher is finished: make a new one"))?;
        inner.finish(&self.context).map_err(|e| translate_error(&e))
    }
}
