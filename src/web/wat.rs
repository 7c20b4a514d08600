//! `functionWat`: the WebAssembly text of the function translated from one
//! pexe function, for the page's inspector (beside its PNaClAsm).
//!
//! The whole module's text can be tens of megabytes, so it is never
//! printed: the module is translated (once per input: the last translation
//! is kept, as the page asks for one function after another), then copied
//! with every other body replaced by `unreachable` and without its data and
//! element segments ([`function_module`]), and only that small module is
//! printed (`super::printer`). The function's text is cut out of it; it is
//! what `pexe translate --wat` prints for that `(func ...)`, names included.
//!
//! The package's translator module (feature `pkg-translator`) stops at the
//! small module (`functionWasm`): the printer is a module of its own
//! (`src/web_wat.rs`), which the package loads the first time `functionWat`
//! is called.

use crate::back::wasm::imports::ImportLayout;
use crate::back::wasm::{Options, TranslateError};
use crate::bitstream::{Event, Parser};
use crate::decode::{DecodeError, Decoded, Decoder};
use std::cell::RefCell;
use wasm_encoder::{CodeSection, RawSection};
use wasmparser::Payload;

/// Why there is no text to show.
pub enum WatError {
    /// The pexe does not translate.
    Translate(TranslateError),
    /// `@fN` is not a function with a body.
    NoBody(u32),
    /// The printer failed (a bug).
    Print(String),
}

/// The last translation, by input.
struct Cached {
    pexe: Vec<u8>,
    names: bool,
    wasm: Vec<u8>,
    /// Value ids of the functions with bodies, in order (the k-th is wasm
    /// function `imported + k`).
    defined: Vec<u32>,
    /// Imported functions of the module (ImportLayout::num_imported_funcs).
    imported: u32,
}

thread_local! {
    static LAST: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

/// A module to print the function translated from `@f{function}` from:
/// the translation with every other body replaced by `unreachable`, and
/// the function's index in it.
pub fn function_module(pexe: &[u8], function: u32, names: bool) -> Result<(Vec<u8>, u32), WatError> {
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        let hit = last.as_ref().is_some_and(|c| c.names == names && c.pexe == pexe);
        if !hit {
            let wasm =
                crate::back::wasm::translate_bytes(pexe, &Options { names, ..Options::default() }).map_err(WatError::Translate)?;
            let (defined, imported) = defined_functions(pexe).map_err(|e| WatError::Translate(e.into()))?;
            *last = Some(Cached { pexe: pexe.to_vec(), names, wasm, defined, imported });
        }
        let c = last.as_ref().expect("cached above");
        let k = c.defined.iter().position(|&id| id == function).ok_or(WatError::NoBody(function))?;
        let small = keep_one_body(&c.wasm, k).map_err(WatError::Print)?;
        Ok((small, c.imported + k as u32))
    })
}

/// The text of the wasm function translated from `@f{function}`.
#[cfg(not(feature = "pkg-translator"))]
pub fn function_wat(pexe: &[u8], function: u32, names: bool) -> Result<String, WatError> {
    let (small, index) = function_module(pexe, function, names)?;
    super::printer::print_function(&small, index).map_err(WatError::Print)
}

/// Value ids of the functions with bodies, and how many functions the
/// module imports: the declarations and globals, read up to the first body
/// (they all come before it).
fn defined_functions(pexe: &[u8]) -> Result<(Vec<u32>, u32), DecodeError> {
    let mut parser = Parser::new(pexe);
    let mut decoder = Decoder::new();
    loop {
        let event = parser.next_event().map_err(DecodeError::from_bitstream)?;
        if let Event::End = event {
            break;
        }
        if let Decoded::FunctionBegin(_) = decoder.event(&event)? {
            break;
        }
    }
    let m = decoder.module();
    let defined = m.functions.iter().enumerate().filter(|(_, d)| !d.is_proto).map(|(i, _)| i as u32).collect();
    Ok((defined, ImportLayout::for_module(m).num_imported_funcs()))
}

/// A copy of `wasm` in which every body but the `keep`-th is `unreachable`,
/// without data and element segments. Enough to print one function.
fn keep_one_body(wasm: &[u8], keep: usize) -> Result<Vec<u8>, String> {
    // A body with no locals whose code is `unreachable`, `end`.
    const STUB: [u8; 3] = [0x00, 0x00, 0x0b];
    let mut out = wasm_encoder::Module::new();
    let mut code: Option<CodeSection> = None;
    let mut body_index = 0;
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        let payload = payload.map_err(|e| e.to_string())?;
        match payload {
            Payload::CodeSectionStart { .. } => code = Some(CodeSection::new()),
            Payload::CodeSectionEntry(body) => {
                let section = code.as_mut().ok_or("code entry outside the code section")?;
                if body_index == keep {
                    // The body bytes (locals and code) without the size.
                    section.raw(body.as_bytes());
                } else {
                    section.raw(&STUB);
                }
                body_index += 1;
            }
            Payload::DataSection(_) | Payload::DataCountSection { .. } | Payload::ElementSection(_) => {}
            Payload::Version { .. } | Payload::End(_) => {}
            other => {
                // Sections keep their order; the code section goes out
                // once complete, before whatever follows it.
                if let Some(section) = code.take() {
                    out.section(&section);
                }
                if let Some((id, range)) = other.as_section() {
                    let data = &wasm[range.start as usize..range.end as usize];
                    out.section(&RawSection { id, data });
                }
            }
        }
    }
    if let Some(section) = code.take() {
        out.section(&section);
    }
    Ok(out.finish())
}
