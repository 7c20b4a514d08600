//! The WebAssembly back end: a verified pexe becomes one wasm module that
//! follows the runtime ABI (`docs/ARCHITECTURE.md`, "Runtime ABI"; the
//! JavaScript side is `js/src/internal/runtime/`).
//!
//! ```text
//! Module ─ verify ─▶ Verified ──┐
//!                               ├─ ModuleTranslator ─▶ types, imports, table, globals, exports,
//! Function, Function, … ───────┘    (one body at a time:   elements, code, passive data, names
//!                                    func.rs + control.rs)
//! ```
//!
//! What the module holds (all fixed by the ABI):
//! - imports: `env.memory` (shared, up to 4 GiB), `env.fault`,
//!   `env.fmod_f64`, then the 52 IRT functions `irt.*` ([`imports`]);
//! - one funcref table, exported as `table`: 0 null, `1 + k` IRT function
//!   `k`, `53 + i` pexe function `i` (null for intrinsics) — so a function
//!   address is a table index and indirect calls are `call_indirect`;
//!   in a single-threaded module (no Pepper, no mention of the IRT thread
//!   interface: [`imports::may_start_threads`]) `thread_create`'s element
//!   is the module's `__pexe_no_threads`, which answers EAGAIN, and the
//!   atomics are plain memory accesses (`func/intrinsics.rs`);
//! - globals `__stack_pointer`, `__stack_limit`, `__tp` (mutable, per
//!   instance = per thread), `__heap_base`, and the setjmp id counter;
//! - the global variables' image as passive data segments that
//!   `__pexe_init_data` copies once ([`layout`]);
//! - exports `_start`, `__pexe_thread_start`, `__pexe_init_data`,
//!   `__pexe_longjmp_tag` and the globals above;
//! - a name section naming every function (`f<N>` when the pexe has no
//!   name for it).
//!
//! [`WasmBackend`] is this back end's [`Backend`]: the pipeline
//! (`super::Pipeline`) hands it each body as soon as it is decoded and
//! verified, and drops it: a large pexe never needs all of its IR in
//! memory. Bodies are independent of one another: a [`BodyTranslator`]
//! translates them against a shared [`BodyContext`] on any thread (or in
//! another Worker), each into a [`BodyCode`] that [`WasmBackend::define_body`]
//! stitches in order; [`translate_bytes`] does that on every core (see
//! `super::parallel`). One thread or many, the bytes are the same.
//!
//! ```no_run
//! let pexe = std::fs::read("app.pexe").unwrap();
//! let wasm = pexe::back::wasm::translate_bytes(&pexe, &Default::default()).unwrap();
//! std::fs::write("app.wasm", wasm).unwrap();
//! ```

mod func;
mod hints;
pub mod imports;
pub mod layout;
pub(crate) mod libm;
pub mod structure;
mod types;

pub use super::TranslateError;
pub use layout::{Layout, GLOBAL_BASE};

pub use func::{BodyFixups, CallSite, OutlinedBody, SigFixup};
use func::COUNTER_REFS;
pub use libm::SqrtClaim;

use super::Backend;
use crate::ir::{FuncId, Function, Initializer, Module, Type, ValType as IrType, ValueId};
use hints::BodyFacts;
use crate::verify::{FunctionAnalysis, FunctionVerifier, Intrinsic, Verified};
use func::FuncTranslator;
use std::sync::Arc;
use imports::{export, ImportLayout, IRT_FUNC_BASE};
use types::Signatures;
use wasm_encoder::{
    CodeSection, ConstExpr, DataCountSection, ElementSection, Elements, EntityType, ExportKind,
    ExportSection, FunctionSection, GlobalSection, GlobalType, ImportSection, Instruction, MemoryType,
    RefType, SectionId, TableSection, TableType, TagKind, TagSection, TagType, ValType,
};

/// Translation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Print the text form instead of the binary (used by the CLI only).
    pub wat: bool,
    /// Write the name section (function names for fault messages).
    pub names: bool,
    /// [`translate_bytes`]: translate bodies on several threads.
    pub parallel: bool,
    /// How many threads when `parallel` (0: one per core).
    pub threads: usize,
    /// Calls of the pexe's own `sqrt` become `f64.sqrt` where its body is
    /// proven to compute exactly that (`libm.rs`).
    pub fast_libm: bool,
    /// How the engine that runs the module compiles its functions.
    pub tiering: Tiering,
}

impl Default for Options {
    fn default() -> Self {
        Options { wat: false, names: true, parallel: true, threads: 0, fast_libm: true, tiering: Tiering::Dynamic }
    }
}

/// How the engine running the module compiles its functions: what decides
/// which loop nests get functions of their own (`func/outline.rs`) and
/// whether the module carries compilation hints. Pepper plugins never have
/// loops outlined (their callbacks are called again and again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiering {
    /// Baseline code first, optimized code for calls made once a function
    /// is hot (browsers): loop nests are outlined, so that a hot loop in a
    /// function called once still reaches optimized code.
    Dynamic,
    /// Every function optimized from its first call (V8 with
    /// `--no-liftoff`): nothing is outlined.
    Optimized,
    /// As the module's [`COMPILATION_HINTS_SECTION`] says (V8 with
    /// `--experimental-wasm-compilation-hints`, which `pexe run` gives
    /// Node): functions with a loop, under [`LARGE_INSTS`] instructions,
    /// that are entered a bounded number of times (or have unknown
    /// callers) are optimized from their first call; the rest start as
    /// baseline code and get optimized once hot (`hints.rs` says why and
    /// how); nothing is outlined. The large ones are mostly libc's,
    /// run briefly at start-up: optimizing newlib's `_vfprintf_r` alone
    /// took 22 ms, half the optimizing compiler's start-up time in nbody.
    /// The price: a large function called once runs its loops as baseline
    /// code. Outlining the large ones' loop nests, as `Dynamic` does, made
    /// meteor 10% slower (printf's pieces got hot and were optimized as
    /// well), so they are not.
    Hinted,
}

/// Functions of this many IR instructions or more are "large" for
/// [`Tiering::Hinted`] (about 4 KB of wasm). A benchmark's `main` with its
/// kernels inlined is 180–580 (nbody's, at 380, ran 1.4× slower as
/// baseline code with the bound at 300); newlib's `malloc` is ~2300,
/// `_vfprintf_r` ~3600. At 600 the benchmarks ran about as fast (within
/// 1–3%); the margin is for programs whose `main` is larger.
pub const LARGE_INSTS: usize = 1000;

/// The custom section of V8's compilation hints (its legacy, flag-guarded
/// form): the number of functions the module defines, then one byte per
/// function: bits 0–1 the strategy (1: lazy), 2–3 the first tier, 4–5 the
/// top tier (0: the engine's default, 1: baseline, 2: optimized). It must
/// come after the function section and before the code section.
pub const COMPILATION_HINTS_SECTION: &str = "compilationHints";

/// Lazy, baseline first, then the engine's own tiering up.
const HINT_BASELINE_FIRST: u8 = 0b00_01_01;
/// Lazy, optimized from the first call.
const HINT_OPTIMIZED: u8 = 0b10_10_01;

/// Indices of the module's globals.
pub(crate) mod global {
    pub const STACK_POINTER: u32 = 0;
    pub const STACK_LIMIT: u32 = 1;
    pub const THREAD_POINTER: u32 = 2;
    pub const HEAP_BASE: u32 = 3;
    /// Source of setjmp ids (odd, so never 0); per instance.
    pub const SETJMP_ID: u32 = 4;
    /// The first of the activation counters of functions with outlined
    /// loops (`func/outline.rs`), one per function; per instance.
    pub const OUTLINE_COUNTERS: u32 = 5;
}

/// NaCl's EAGAIN: what `thread_create` answers in a single-threaded module.
const EAGAIN: i32 = 11;
/// Name of the function that stands for `thread_create` there.
const NO_THREADS: &str = "__pexe_no_threads";
/// Name of the empty custom section, first in a single-threaded module, that
/// tells the runtime before it compiles anything that no guest thread can
/// start (`pexe run` then runs the guest on Node's main thread, not in a
/// Worker). The JavaScript side reads it in `runtime/module-info.js`.
pub const SINGLE_THREADED_SECTION: &str = "pexe.single-threaded";

/// Index of the `__pexe_longjmp` tag.
pub(crate) const LONGJMP_TAG: u32 = 0;

/// How a call of a function id is made.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Callee {
    /// A function with a body: its wasm function index and type index.
    Defined {
        index: u32,
        ty: u32,
    },
    Intrinsic(Intrinsic),
    /// Declared without a body and not an intrinsic: faults when called.
    Missing,
}

#[derive(Clone, Debug)]
pub(crate) struct FuncEntry {
    pub callee: Callee,
    pub params: Params,
    pub ret: Option<IrType>,
}

/// Parameters a function's [`Params`] holds without an allocation.
const INLINE_PARAMS: usize = 5;

/// A function's parameter types (a slice, by `Deref`), inline when there
/// are few, as for most functions: an allocation each (and its free) cost
/// about as much as the rest of the context.
#[derive(Clone, Debug)]
pub(crate) enum Params {
    Inline(u8, [IrType; INLINE_PARAMS]),
    Heap(Box<[IrType]>),
}

impl Params {
    fn new(params: &[IrType]) -> Self {
        match params.len() {
            n if n <= INLINE_PARAMS => {
                let mut inline = [IrType::I32; INLINE_PARAMS];
                inline[..n].copy_from_slice(params);
                Params::Inline(n as u8, inline)
            }
            _ => Params::Heap(params.into()),
        }
    }
}

impl std::ops::Deref for Params {
    type Target = [IrType];
    fn deref(&self) -> &[IrType] {
        match self {
            Params::Inline(n, inline) => &inline[..usize::from(*n)],
            Params::Heap(params) => params,
        }
    }
}

/// What function bodies need to know about the module.
pub(crate) struct ModuleCx {
    pub num_funcs: u32,
    pub funcs: Vec<FuncEntry>,
    pub global_addrs: Vec<u32>,
    /// Type index of `(i32) -> ()` (block type of switch wrappers).
    pub i32_to_void: u32,
    /// Table index of pexe function 0 (a function's address is this + id).
    pub pexe_table_base: u32,
    /// The function whose calls take the `sqrt` form (`libm.rs`), or
    /// `u32::MAX`.
    pub fast_sqrt: u32,
    /// The module runs on one thread ([`imports::may_start_threads`] is
    /// false): atomics are plain accesses, `thread_create` answers EAGAIN.
    pub single_threaded: bool,
    /// Outermost loop nests become functions of their own
    /// (`func/outline.rs`): under [`Tiering::Dynamic`], but never for
    /// Pepper plugins.
    pub outline_loops: bool,
    /// [`Tiering::Hinted`]: bodies give their [`BodyFacts`].
    pub hinted: bool,
}

impl ModuleCx {
    pub fn callee(&self, v: ValueId) -> Option<Callee> {
        self.funcs.get(v.0 as usize).map(|e| e.callee)
    }
}

/// What every body of one module is translated against: the module's
/// functions and globals as wasm sees them, and its function types (frozen:
/// a body needing another signature leaves a [`SigFixup`]). Read-only, so
/// one context serves every thread.
pub struct BodyContext {
    cx: ModuleCx,
    sigs: Signatures,
}

impl BodyContext {
    /// The context of a verified module (what [`WasmBackend::context`]
    /// gives, without the rest of the back end).
    pub fn new(module: Verified<'_>) -> Result<Self, TranslateError> {
        Ok(Parts::new(module.module(), Options::default().tiering)?.0)
    }
}

/// A translated body: its code-section entry (size, locals, code) and the
/// type indices left to patch in. Made by a [`BodyTranslator`], stitched by
/// [`WasmBackend::define_body`]; [`BodyCode::to_bytes`] carries it between
/// Workers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyCode {
    /// The function it translates.
    pub id: FuncId,
    entry: Vec<u8>,
    fixups: BodyFixups,
    /// Facts for the `sqrt` form (`libm.rs`).
    pure_leaf: bool,
    sqrt: Option<SqrtClaim>,
    /// Under [`Tiering::Hinted`], what the body tells of the call graph
    /// (`hints.rs`).
    hint_facts: Option<BodyFacts>,
}

impl BodyCode {
    /// The code-section entry (type indices of any fixups not patched yet).
    pub fn entry(&self) -> &[u8] {
        &self.entry
    }

    /// A byte form (all integers u32 LE): `id`; the fixups (below); a
    /// flags byte (1: pure leaf, 2: a `sqrt` claim follows, 4: with a NaN
    /// path, 8: baseline first), the claim's helper count and helpers, then the NaN
    /// path's; with flag 8, the hint facts: `small_loop` (u8), the call
    /// count, per call its callee and in-loop flag (u8), the count of
    /// functions whose address it takes and their ids;
    /// then the entry. Fixups: the signature fixup count, per fixup its
    /// offset, key length (u8) and key; the call-site count, per site its
    /// offset, length (u8), callee and a flags byte (1: unguarded); the
    /// outlined-loop count, per loop the offset of its call's index and its counter's two, its
    /// key (length, bytes), its entry (length, bytes) and its own signature
    /// fixups and call sites as above.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.entry.len());
        self.write_to(&mut out);
        out
    }

    /// [`BodyCode::to_bytes`] at the end of `out` (a Worker's results go
    /// end to end, without a copy each).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        put_u32(out, self.id.0);
        put_fixups(out, &self.fixups.sigs, &self.fixups.calls);
        put_u32(out, self.fixups.outlined.len() as u32);
        for g in &self.fixups.outlined {
            put_u32(out, g.call_at);
            for &at in &g.counter_at {
                put_u32(out, at);
            }
            put_u32(out, g.key.len() as u32);
            out.extend_from_slice(&g.key);
            put_u32(out, g.entry.len() as u32);
            out.extend_from_slice(&g.entry);
            put_fixups(out, &g.sigs, &g.calls);
        }
        let nan = self.sqrt.as_ref().and_then(|c| c.nan_helpers.as_ref());
        out.push(
            u8::from(self.pure_leaf)
                | if self.sqrt.is_some() { 2 } else { 0 }
                | if nan.is_some() { 4 } else { 0 }
                | if self.hint_facts.is_some() { 8 } else { 0 },
        );
        if let Some(claim) = &self.sqrt {
            for list in std::iter::once(&claim.helpers).chain(nan) {
                put_u32(out, list.len() as u32);
                for &h in list {
                    put_u32(out, h);
                }
            }
        }
        if let Some(facts) = &self.hint_facts {
            out.push(u8::from(facts.small_loop));
            put_u32(out, facts.calls.len() as u32);
            for &(callee, in_loop) in &facts.calls {
                put_u32(out, callee);
                out.push(u8::from(in_loop));
            }
            put_u32(out, facts.takes.len() as u32);
            for &id in &facts.takes {
                put_u32(out, id);
            }
        }
        out.extend_from_slice(&self.entry);
    }

    /// Reads [`BodyCode::to_bytes`]' form back; `None` if `bytes` is not one
    /// (fixups must lie inside the entry, keys be signatures).
    pub fn from_bytes(bytes: &[u8]) -> Option<BodyCode> {
        let (mut body, entry) = Self::parse(bytes)?;
        body.entry = entry.to_vec();
        Some(body)
    }

    /// [`BodyCode::from_bytes`] without copying the entry: the body with
    /// an empty entry, and its entry within `bytes` (for
    /// [`WasmBackend::define_parsed_body`]).
    pub fn parse(bytes: &[u8]) -> Option<(BodyCode, &[u8])> {
        let mut r = ByteReader { bytes, at: 0 };
        let id = FuncId(r.u32()?);
        let mut fixups = BodyFixups::default();
        r.fixups(&mut fixups.sigs, &mut fixups.calls)?;
        let n = r.u32()? as usize;
        // Each outlined loop takes at least this many bytes: call_at, the
        // counter references, the key and entry lengths, two fixup counts.
        const MIN_OUTLINED: usize = 4 + 4 * COUNTER_REFS + 16;
        if n > bytes.len() / MIN_OUTLINED {
            return None;
        }
        for _ in 0..n {
            let call_at = r.u32()?;
            let mut counter_at = [0; COUNTER_REFS];
            for at in &mut counter_at {
                *at = r.u32()?;
            }
            let len = r.u32()? as usize;
            let key = r.take(len)?.into();
            let len = r.u32()? as usize;
            let entry = r.take(len)?.to_vec();
            let mut g = OutlinedBody { call_at, counter_at, key, entry, ..OutlinedBody::default() };
            r.fixups(&mut g.sigs, &mut g.calls)?;
            fixups.outlined.push(g);
        }
        let flags = r.u8()?;
        let list = |r: &mut ByteReader<'_>| -> Option<Vec<u32>> {
            let n = r.u32()? as usize;
            if n > bytes.len() / 4 {
                return None;
            }
            let mut helpers = Vec::with_capacity(n);
            for _ in 0..n {
                helpers.push(r.u32()?);
            }
            Some(helpers)
        };
        let sqrt = if flags & 2 != 0 {
            let helpers = list(&mut r)?;
            let nan_helpers = if flags & 4 != 0 { Some(list(&mut r)?) } else { None };
            Some(SqrtClaim { helpers, nan_helpers })
        } else {
            None
        };
        let hint_facts = if flags & 8 != 0 {
            let small_loop = r.u8()? != 0;
            let n = r.u32()? as usize;
            if n > bytes.len() / 5 {
                return None;
            }
            let mut calls = Vec::with_capacity(n);
            for _ in 0..n {
                calls.push((r.u32()?, r.u8()? != 0));
            }
            let takes = list(&mut r)?;
            Some(BodyFacts { small_loop, calls, takes })
        } else {
            None
        };
        let entry = bytes.get(r.at..)?;
        let body = BodyCode { id, entry: Vec::new(), fixups, pure_leaf: flags & 1 != 0, sqrt, hint_facts };
        body.fixups_fit(entry.len()).then_some((body, entry))
    }

    /// Whether every fixup lies inside an entry of `len` bytes.
    fn fixups_fit(&self, len: usize) -> bool {
        let fit = |len: usize, sigs: &[SigFixup], calls: &[CallSite]| {
            sigs.iter().all(|f| (f.at as usize).checked_add(5).is_some_and(|end| end <= len))
                && calls.iter().all(|c| c.len >= 1 && (c.at as usize).checked_add(c.len as usize).is_some_and(|end| end <= len))
        };
        fit(len, &self.fixups.sigs, &self.fixups.calls)
            && self.fixups.outlined.iter().all(|g| {
                std::iter::once(g.call_at).chain(g.counter_at).all(|at| (at as usize).checked_add(5).is_some_and(|end| end <= len))
                    && fit(g.entry.len(), &g.sigs, &g.calls)
            })
    }
}

fn put_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

/// Signature fixups and call sites in [`BodyCode::to_bytes`]' form.
fn put_fixups(out: &mut Vec<u8>, sigs: &[SigFixup], calls: &[CallSite]) {
    put_u32(out, sigs.len() as u32);
    for f in sigs {
        put_u32(out, f.at);
        out.push(f.key.len() as u8);
        out.extend_from_slice(&f.key);
    }
    put_u32(out, calls.len() as u32);
    for c in calls {
        put_u32(out, c.at);
        out.push(c.len);
        put_u32(out, c.callee);
        out.push(u8::from(c.unguarded));
    }
}

/// Reads [`BodyCode::to_bytes`]' form.
struct ByteReader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> ByteReader<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn fixups(&mut self, sigs: &mut Vec<SigFixup>, calls: &mut Vec<CallSite>) -> Option<()> {
        let n = self.u32()? as usize;
        // Each fixup or call site takes at least 5 bytes.
        if n > self.bytes.len() / 5 {
            return None;
        }
        for _ in 0..n {
            let at = self.u32()?;
            let len = self.u8()? as usize;
            sigs.push(SigFixup { at, key: self.take(len)?.into() });
        }
        let n = self.u32()? as usize;
        if n > self.bytes.len() / 10 {
            return None;
        }
        for _ in 0..n {
            let at = self.u32()?;
            let len = self.u8()?;
            let callee = self.u32()?;
            let unguarded = match self.u8()? {
                0 => false,
                1 => true,
                _ => return None,
            };
            calls.push(CallSite { at, len, callee, unguarded });
        }
        Some(())
    }
}

/// Translates bodies against a [`BodyContext`], one after another, reusing
/// its buffers. One per thread.
pub struct BodyTranslator {
    ctx: Arc<BodyContext>,
    funcs: FuncTranslator,
}

impl BodyTranslator {
    pub fn new(ctx: Arc<BodyContext>) -> Self {
        BodyTranslator { ctx, funcs: FuncTranslator::new() }
    }

    /// Translates one verified body of the context's module; `analysis` is
    /// what the verifier found about it, if at hand (the output is the same
    /// without it, only slower).
    pub fn translate(&mut self, f: &Function, analysis: Option<FunctionAnalysis<'_>>) -> Result<BodyCode, TranslateError> {
        let mut entry = Vec::new();
        let mut fixups = BodyFixups::default();
        self.funcs.translate(&self.ctx.cx, &self.ctx.sigs, f, analysis, &mut entry, &mut fixups)?;
        let (pure_leaf, sqrt) = body_facts(&self.ctx.cx, f);
        let hint_facts = self.ctx.cx.hinted.then(|| BodyFacts::of(f, self.ctx.cx.num_funcs));
        Ok(BodyCode { id: f.id, entry, fixups, pure_leaf, sqrt, hint_facts })
    }
}

/// The module's own functions after the pexe's: `__pexe_init_data`,
/// `__pexe_thread_start`, and in a single-threaded module the stand-in for
/// `thread_create`.
fn helper_count(single_threaded: bool) -> u32 {
    2 + u32::from(single_threaded)
}

/// What the `sqrt` form needs to know of a body (`libm.rs`).
fn body_facts(cx: &ModuleCx, f: &Function) -> (bool, Option<SqrtClaim>) {
    let sqrt = if f.id.0 == cx.fast_sqrt { libm::sqrt_fast_path(f, cx) } else { None };
    (libm::is_pure_leaf(f), sqrt)
}

/// The module-level parts of a [`WasmBackend`] made with its
/// [`BodyContext`] (as [`BodyContext::new`] makes that alone): all but the
/// globals' data image. Bodies need the globals' addresses, not their
/// image.
struct Parts {
    imports: ImportLayout,
    defined: Vec<u32>,
    void_void: u32,
    i32_void: u32,
    import_types: Vec<u32>,
    fault_ty: u32,
    fmod_ty: u32,
    heap_base: u32,
}

/// A [`WasmBackend`] begun ([`WasmBackend::start`]): its bodies' context
/// made, the globals' data image not yet. Lets a caller start translating
/// bodies on other threads before it builds the image.
pub struct BackendStart {
    ctx: Arc<BodyContext>,
    parts: Parts,
}

impl BackendStart {
    /// What [`BodyTranslator`]s of this module need.
    pub fn context(&self) -> Arc<BodyContext> {
        self.ctx.clone()
    }
}

impl Parts {
    fn new(m: &Module, tiering: Tiering) -> Result<(BodyContext, Parts), TranslateError> {
        let imports = ImportLayout::for_module(m);
        let (global_addrs, heap_base) = Layout::place(m)?;
        let mut sigs = Signatures::new();
        let fault_ty = sigs.intern(&[ValType::I32, ValType::I32], &[]);
        let fmod_ty = sigs.intern(&[ValType::F64, ValType::F64], &[ValType::F64]);
        let mut params = Vec::new();
        let import_types = imports
            .signatures()
            .map(|(kinds, result)| {
                params.clear();
                params.extend(kinds.iter().map(|&k| imports::val_type(k)));
                let result = result.map(imports::val_type);
                sigs.intern(&params, result.as_slice())
            })
            .collect();
        let num_imported = imports.num_imported_funcs();
        let void_void = sigs.intern(&[], &[]);
        let i32_void = sigs.intern(&[ValType::I32], &[]);
        let mut funcs = Vec::with_capacity(m.functions.len());
        let mut defined = Vec::new();
        for (i, d) in m.functions.iter().enumerate() {
            let callee = if !d.is_proto {
                let index = num_imported + defined.len() as u32;
                defined.push(i as u32);
                Callee::Defined { index, ty: sigs.intern_pnacl(d.sig.params.iter().copied(), d.sig.ret) }
            } else {
                match d.name.as_deref().and_then(Intrinsic::lookup) {
                    Some(intr) => Callee::Intrinsic(intr),
                    None => Callee::Missing,
                }
            };
            funcs.push(FuncEntry { callee, params: Params::new(&d.sig.params), ret: d.sig.ret });
        }
        // Every function type of the types block, so the signatures of
        // indirect calls are known before any body (bodies only read them).
        for t in &m.types {
            if let Type::Function(ft) = t {
                sigs.intern_pnacl(ft.params.iter().copied(), ft.ret);
            }
        }
        let total = u64::from(num_imported) + defined.len() as u64 + 2;
        if total > 1_000_000 {
            return Err(TranslateError::TooMany { what: "functions", count: total });
        }
        let cx = ModuleCx {
            num_funcs: m.functions.len() as u32,
            funcs,
            global_addrs,
            i32_to_void: i32_void,
            pexe_table_base: imports.pexe_table_base(),
            fast_sqrt: libm::sqrt_candidate(m).unwrap_or(u32::MAX),
            // `imports` is `ImportLayout::for_module(m)`: its Pepper answer is m's.
            single_threaded: !imports::may_start_threads_given(m, imports.pepper()),
            // A Pepper plugin is driven by callbacks, called again and again:
            // its functions get optimized without outlining, and with it
            // KC85-3's emulator booted visibly slower in its page.
            outline_loops: tiering == Tiering::Dynamic && !imports.pepper(),
            hinted: tiering == Tiering::Hinted,
        };
        let parts = Parts {
            imports,
            defined,
            void_void,
            i32_void,
            import_types,
            fault_ty,
            fmod_ty,
            heap_base,
        };
        Ok((BodyContext { cx, sigs }, parts))
    }
}

/// The WebAssembly back end: made from the module, fed the bodies in order
/// (IR, or [`BodyCode`] translated elsewhere), then finished.
pub struct WasmBackend {
    ctx: Arc<BodyContext>,
    /// The module's function types: the context's, then those bodies added.
    sigs: Signatures,
    layout: Layout,
    names: bool,
    funcs: FuncTranslator,
    /// Ids of the defined functions, in order; `next` is the one expected.
    defined: Vec<u32>,
    next: usize,
    /// Code-section entries so far: full chunks, then the one being
    /// filled (a body never spans two). Chunks, not one buffer doubling
    /// as it grows: growing copied the code about once more before
    /// `finish_module` copies it into the module.
    code_chunks: Vec<Vec<u8>>,
    code: Vec<u8>,
    fixups: BodyFixups,
    /// The `sqrt` form (`libm.rs`): whether to use it, the call sites
    /// (absolute offsets into `code`, lengths), which functions are pure
    /// leaves, and what `sqrt`'s body claimed.
    fast_libm: bool,
    sqrt_sites: Vec<SqrtSite>,
    pure_leaf: Vec<bool>,
    sqrt_claim: Option<SqrtClaim>,
    /// Under [`Tiering::Hinted`] (`ctx.cx.hinted`): each function's
    /// [`BodyFacts`] (by id), from which the [`COMPILATION_HINTS_SECTION`]
    /// is decided.
    hint_facts: Vec<Option<BodyFacts>>,
    /// Loops made functions (`func/outline.rs`): their code-section
    /// entries, after the helpers'; their type indices; per outlined
    /// function, the pexe function it came from; the index of the first.
    outlined_code: Vec<u8>,
    outlined_types: Vec<u32>,
    outlined_from: Vec<u32>,
    outlined_base: u32,
    /// Activation counters of the functions with outlined loops.
    outline_counters: u32,
    /// Type indices used by the module's own parts.
    void_void: u32,
    i32_void: u32,
    longjmp_ty: u32,
    /// What the module imports, and the type index of each import.
    imports: ImportLayout,
    import_types: Vec<u32>,
    fault_ty: u32,
    fmod_ty: u32,
}

impl Backend for WasmBackend {
    type Options = Options;
    type Output = Vec<u8>;

    fn begin(module: Verified<'_>, options: &Options) -> Result<Self, TranslateError> {
        WasmBackend::new(module, options)
    }

    fn define_function(&mut self, _: Verified<'_>, f: &Function, analysis: FunctionAnalysis<'_>) -> Result<(), TranslateError> {
        self.expect(f.id)?;
        self.next_chunk();
        let start = self.code.len();
        self.funcs.translate(&self.ctx.cx, &self.ctx.sigs, f, Some(analysis), &mut self.code, &mut self.fixups)?;
        let fixups = std::mem::take(&mut self.fixups);
        let (pure_leaf, sqrt) = body_facts(&self.ctx.cx, f);
        let facts = self.ctx.cx.hinted.then(|| BodyFacts::of(f, self.ctx.cx.num_funcs));
        let r = self.patch(start, &fixups, f.id, pure_leaf, sqrt, facts);
        self.fixups = fixups;
        self.fixups.sigs.clear();
        self.fixups.calls.clear();
        self.fixups.outlined.clear();
        r
    }

    fn finish(self, module: Verified<'_>) -> Result<Vec<u8>, TranslateError> {
        self.finish_module(module.module())
    }
}

impl WasmBackend {
    pub fn new(module: Verified<'_>, opts: &Options) -> Result<Self, TranslateError> {
        Ok(Self::from_start(module, opts, Self::start(module, opts)?))
    }

    /// The first part of [`WasmBackend::new`]: the bodies' context
    /// ([`BackendStart::context`]), without the globals' data image.
    pub fn start(module: Verified<'_>, opts: &Options) -> Result<BackendStart, TranslateError> {
        let (ctx, parts) = Parts::new(module.module(), opts.tiering)?;
        Ok(BackendStart { ctx: Arc::new(ctx), parts })
    }

    /// The rest of [`WasmBackend::new`], for the `module` and `opts` that
    /// `start` was given.
    pub fn from_start(module: Verified<'_>, opts: &Options, start: BackendStart) -> Self {
        let m = module.module();
        let BackendStart { ctx, parts } = start;
        // The addresses went to the bodies' context; the back end keeps the image.
        let segments = Layout::image(m, &ctx.cx.global_addrs, parts.imports.pexe_table_base());
        let layout = Layout { addrs: Vec::new(), heap_base: parts.heap_base, segments };
        let mut code = Vec::with_capacity((m.functions.len() * 64).min(CODE_CHUNK_CAPACITY));
        let helpers = helper_count(ctx.cx.single_threaded);
        wasm_encoder::Encode::encode(&(parts.defined.len() as u32 + helpers), &mut code);
        let outlined_base = parts.imports.num_imported_funcs() + parts.defined.len() as u32 + helpers;
        WasmBackend {
            sigs: ctx.sigs.clone(),
            ctx,
            layout,
            names: opts.names,
            funcs: FuncTranslator::new(),
            defined: parts.defined,
            next: 0,
            code_chunks: Vec::new(),
            code,
            fixups: BodyFixups::default(),
            fast_libm: opts.fast_libm,
            sqrt_sites: Vec::new(),
            outlined_code: Vec::new(),
            outlined_types: Vec::new(),
            outlined_from: Vec::new(),
            outlined_base,
            outline_counters: 0,
            pure_leaf: vec![false; m.functions.len()],
            sqrt_claim: None,
            hint_facts: vec![None; if opts.tiering == Tiering::Hinted { m.functions.len() } else { 0 }],
            void_void: parts.void_void,
            i32_void: parts.i32_void,
            longjmp_ty: parts.fault_ty,
            imports: parts.imports,
            import_types: parts.import_types,
            fault_ty: parts.fault_ty,
            fmod_ty: parts.fmod_ty,
        }
    }

    /// What [`BodyTranslator`]s of this module need.
    pub fn context(&self) -> Arc<BodyContext> {
        self.ctx.clone()
    }

    /// Ids of the functions with bodies, in the order they are expected.
    pub fn defined(&self) -> impl ExactSizeIterator<Item = FuncId> + '_ {
        self.defined.iter().map(|&i| FuncId(i))
    }

    /// Adds the next body, translated by a [`BodyTranslator`] of this
    /// module's context.
    pub fn define_body(&mut self, body: &BodyCode) -> Result<(), TranslateError> {
        self.define_entry(body, &body.entry, body.sqrt.clone(), body.hint_facts.clone())
    }

    /// [`WasmBackend::define_body`] for a body [`BodyCode::parse`]d, with
    /// its `entry`: copied once, into the code.
    pub fn define_parsed_body(&mut self, mut body: BodyCode, entry: &[u8]) -> Result<(), TranslateError> {
        let (sqrt, facts) = (body.sqrt.take(), body.hint_facts.take());
        self.define_entry(&body, entry, sqrt, facts)
    }

    fn define_entry(
        &mut self,
        body: &BodyCode,
        entry: &[u8],
        sqrt: Option<SqrtClaim>,
        hint_facts: Option<BodyFacts>,
    ) -> Result<(), TranslateError> {
        self.expect(body.id)?;
        if !body.fixups_fit(entry.len()) {
            return Err(TranslateError::Unsupported { function: body.id.0, message: "a malformed translated body".into() });
        }
        self.next_chunk();
        let start = self.code.len();
        self.code.extend_from_slice(entry);
        self.patch(start, &body.fixups, body.id, body.pure_leaf, sqrt, hint_facts)
    }

    /// Starts a new chunk of code if the one being filled is full enough.
    fn next_chunk(&mut self) {
        if self.code.len() >= CODE_CHUNK {
            let full = std::mem::replace(&mut self.code, Vec::with_capacity(CODE_CHUNK_CAPACITY));
            self.code_chunks.push(full);
        }
    }

    /// Checks that `id` is the body expected next, and counts it.
    fn expect(&mut self, id: FuncId) -> Result<(), TranslateError> {
        match self.defined.get(self.next) {
            Some(&want) if want == id.0 => {
                self.next += 1;
                Ok(())
            }
            Some(&want) => Err(TranslateError::BodyOrder { got: id.0, expected: want }),
            None => Err(TranslateError::BodyOrder { got: id.0, expected: u32::MAX }),
        }
    }

    /// Interns the signatures of `fixups` (in order) and writes their type
    /// indices into the entry of `id` that starts at `start`; keeps its call
    /// sites and facts for the `sqrt` form.
    fn patch(
        &mut self,
        start: usize,
        fixups: &BodyFixups,
        id: FuncId,
        pure_leaf: bool,
        sqrt: Option<SqrtClaim>,
        hint_facts: Option<BodyFacts>,
    ) -> Result<(), TranslateError> {
        if let Some(p) = self.pure_leaf.get_mut(id.0 as usize) {
            *p = pure_leaf;
        }
        if let Some(h) = self.hint_facts.get_mut(id.0 as usize) {
            *h = hint_facts;
        }
        if sqrt.is_some() && id.0 == self.ctx.cx.fast_sqrt {
            self.sqrt_claim = sqrt;
        }
        self.patch_entry(false, start, &fixups.sigs, &fixups.calls)?;
        for g in &fixups.outlined {
            let index = self.outlined_base + self.outlined_types.len() as u32;
            let Some(ty) = self.sigs.intern_key(&g.key) else {
                return Err(TranslateError::Unsupported { function: id.0, message: "a malformed signature key".into() });
            };
            let at = start + g.call_at as usize;
            let Some(slot) = self.code.get_mut(at..at + 5) else {
                return Err(TranslateError::Unsupported { function: id.0, message: "a fixup outside its body".into() });
            };
            write_leb5(slot, index);
            // The function's activation counter, after the module's own
            // globals.
            let counter = global::OUTLINE_COUNTERS + self.outline_counters;
            for &at in &g.counter_at {
                let at = start + at as usize;
                let Some(slot) = self.code.get_mut(at..at + 5) else {
                    return Err(TranslateError::Unsupported { function: id.0, message: "a fixup outside its body".into() });
                };
                write_leb5(slot, counter);
            }
            self.outlined_types.push(ty);
            self.outlined_from.push(id.0);
            let g_start = self.outlined_code.len();
            self.outlined_code.extend_from_slice(&g.entry);
            self.patch_entry(true, g_start, &g.sigs, &g.calls)?;
        }
        if !fixups.outlined.is_empty() {
            self.outline_counters += 1;
        }
        Ok(())
    }

    /// Writes the type indices of `sigs` into the entry at `start` (of the
    /// outlined bodies when `outlined`), keeps its `sqrt` call sites.
    fn patch_entry(&mut self, outlined: bool, start: usize, sigs: &[SigFixup], calls: &[CallSite]) -> Result<(), TranslateError> {
        for c in calls {
            if c.callee == self.ctx.cx.fast_sqrt {
                let chunk = if outlined { usize::MAX } else { self.code_chunks.len() };
                self.sqrt_sites.push(SqrtSite { chunk, at: start + c.at as usize, len: c.len, unguarded: c.unguarded });
            }
        }
        for f in sigs {
            let Some(index) = self.sigs.intern_key(&f.key) else {
                return Err(TranslateError::Unsupported { function: u32::MAX, message: "a malformed signature key".into() });
            };
            let at = start + f.at as usize;
            let code = if outlined { &mut self.outlined_code } else { &mut self.code };
            let Some(slot) = code.get_mut(at..at + 5) else {
                return Err(TranslateError::Unsupported { function: u32::MAX, message: "a fixup outside its body".into() });
            };
            write_leb5(slot, index);
        }
        Ok(())
    }

    fn finish_module(mut self, m: &Module) -> Result<Vec<u8>, TranslateError> {
        if self.next != self.defined.len() {
            return Err(TranslateError::MissingBodies { missing: self.defined.len() - self.next });
        }
        // The `sqrt` form: proven by its body and its helpers' bodies; an
        // unguarded site needs the NaN path as well.
        let leaves = |hs: &[u32]| hs.iter().all(|&h| self.pure_leaf.get(h as usize).copied().unwrap_or(false));
        let proven = self.sqrt_claim.as_ref().is_some_and(|c| leaves(&c.helpers));
        let nan_proven =
            proven && self.sqrt_claim.as_ref().and_then(|c| c.nan_helpers.as_deref()).is_some_and(|hs| leaves(hs));
        if self.fast_libm && proven {
            for &SqrtSite { chunk, at, len, unguarded } in &self.sqrt_sites {
                if unguarded && !nan_proven {
                    continue;
                }
                let code = match self.code_chunks.get_mut(chunk) {
                    Some(full) => full,
                    None if chunk == usize::MAX => &mut self.outlined_code,
                    None => &mut self.code,
                };
                if let Some(site) = code.get_mut(at..at + len as usize) {
                    // f64.sqrt, then nops: the call's size.
                    site[0] = 0x9F;
                    site[1..].fill(0x01);
                }
            }
        }
        let ndef = self.defined.len() as u32;
        let init_data_func = self.imports.num_imported_funcs() + ndef;
        let thread_start_func = init_data_func + 1;
        // A single-threaded module's table holds this in `thread_create`'s
        // place: it answers EAGAIN, as a page without shared memory does.
        let single_threaded = self.ctx.cx.single_threaded;
        let helpers_count = helper_count(single_threaded);
        let thread_create = imports::irt_index(&self.imports, "thread_create");
        let no_threads_func = thread_start_func + 1;
        let mut module = wasm_encoder::Module::new();
        if single_threaded {
            module.section(&wasm_encoder::CustomSection { name: SINGLE_THREADED_SECTION.into(), data: (&[][..]).into() });
        }

        // Imports.
        let mut imports = ImportSection::new();
        imports.import(
            imports::ENV,
            imports::MEMORY,
            MemoryType {
                minimum: self.layout.initial_pages(),
                maximum: Some(65536),
                memory64: false,
                shared: true,
                page_size_log2: None,
            },
        );
        imports.import(imports::ENV, imports::FAULT, EntityType::Function(self.fault_ty));
        imports.import(imports::ENV, imports::FMOD_F64, EntityType::Function(self.fmod_ty));
        for ((module_name, field), &ty) in self.imports.names().zip(&self.import_types) {
            imports.import(module_name, field, EntityType::Function(ty));
        }

        // Functions: the pexe's bodies, then the helpers.
        let mut functions = FunctionSection::new();
        for &id in &self.defined {
            match self.ctx.cx.funcs[id as usize].callee {
                Callee::Defined { ty, .. } => functions.function(ty),
                _ => unreachable!("defined functions are Callee::Defined"),
            };
        }
        functions.function(self.void_void);
        functions.function(self.i32_void);
        if single_threaded {
            let Some(k) = thread_create else {
                return Err(TranslateError::Unsupported { function: u32::MAX, message: "no thread_create import".into() });
            };
            functions.function(self.import_types[k as usize]);
        }
        for &ty in &self.outlined_types {
            functions.function(ty);
        }

        let table_size = u64::from(self.ctx.cx.pexe_table_base) + u64::from(self.ctx.cx.num_funcs);
        let mut tables = TableSection::new();
        tables.table(TableType {
            element_type: RefType::FUNCREF,
            table64: false,
            minimum: table_size,
            maximum: Some(table_size),
            shared: false,
        });

        let mut tags = TagSection::new();
        tags.tag(TagType { kind: TagKind::Exception, func_type_idx: self.longjmp_ty });

        let mut globals = GlobalSection::new();
        let mutable = |g: &mut GlobalSection, init: i32| {
            g.global(GlobalType { val_type: ValType::I32, mutable: true, shared: false }, &ConstExpr::i32_const(init));
        };
        mutable(&mut globals, 0); // __stack_pointer
        mutable(&mut globals, 0); // __stack_limit
        mutable(&mut globals, 0); // __tp
        globals.global(
            GlobalType { val_type: ValType::I32, mutable: false, shared: false },
            &ConstExpr::i32_const(self.layout.heap_base as i32),
        );
        mutable(&mut globals, 1); // setjmp ids
        for _ in 0..self.outline_counters {
            mutable(&mut globals, 0); // activations that reached an outlined loop
        }

        let mut exports = ExportSection::new();
        let start = m.functions.iter().position(|d| !d.is_proto && d.name.as_deref() == Some(b"_start"));
        if let Some(Callee::Defined { index, .. }) = start.map(|i| self.ctx.cx.funcs[i].callee) {
            exports.export(export::START, ExportKind::Func, index);
        }
        exports.export(export::THREAD_START, ExportKind::Func, thread_start_func);
        exports.export(export::INIT_DATA, ExportKind::Func, init_data_func);
        exports.export(export::TABLE, ExportKind::Table, 0);
        exports.export(export::HEAP_BASE, ExportKind::Global, global::HEAP_BASE);
        exports.export(export::STACK_POINTER, ExportKind::Global, global::STACK_POINTER);
        exports.export(export::STACK_LIMIT, ExportKind::Global, global::STACK_LIMIT);
        exports.export(export::THREAD_POINTER, ExportKind::Global, global::THREAD_POINTER);
        exports.export(export::LONGJMP_TAG, ExportKind::Tag, LONGJMP_TAG);

        // Table elements: the imports (IRT, PPB), then runs of defined pexe
        // functions.
        let mut elements = ElementSection::new();
        let nimports = (self.imports.num_imported_funcs() - IRT_FUNC_BASE) as usize;
        let imported: Vec<u32> = (0..nimports as u32)
            .map(|k| if single_threaded && Some(k) == thread_create { no_threads_func } else { IRT_FUNC_BASE + k })
            .collect();
        elements.active(
            None,
            &ConstExpr::i32_const(imports::IRT_TABLE_BASE as i32),
            Elements::Functions(imported.into()),
        );
        let pexe_table_base = self.ctx.cx.pexe_table_base;
        let mut run: Vec<u32> = Vec::new();
        let mut run_start = 0u32;
        for (i, e) in self.ctx.cx.funcs.iter().enumerate() {
            match e.callee {
                Callee::Defined { index, .. } => {
                    if run.is_empty() {
                        run_start = i as u32;
                    }
                    run.push(index);
                }
                _ => {
                    if !run.is_empty() {
                        let offset = ConstExpr::i32_const((pexe_table_base + run_start) as i32);
                        elements.active(None, &offset, Elements::Functions(std::mem::take(&mut run).into()));
                    }
                }
            }
        }
        if !run.is_empty() {
            let offset = ConstExpr::i32_const((pexe_table_base + run_start) as i32);
            elements.active(None, &offset, Elements::Functions(run.into()));
        }

        // The helpers' bodies.
        let nseg = self.layout.segments.len() as u32;
        let mut init = wasm_encoder::Function::new([]);
        for (i, s) in self.layout.segments.iter().enumerate() {
            init.instruction(&Instruction::I32Const(s.addr as i32))
                .instruction(&Instruction::I32Const(0))
                .instruction(&Instruction::I32Const(s.bytes.len() as i32))
                .instruction(&Instruction::MemoryInit { mem: 0, data_index: i as u32 })
                .instruction(&Instruction::DataDrop(i as u32));
        }
        init.instruction(&Instruction::End);
        let mut thread_start = wasm_encoder::Function::new([]);
        thread_start
            .instruction(&Instruction::LocalGet(0))
            .instruction(&Instruction::CallIndirect { type_index: self.void_void, table_index: 0 })
            .instruction(&Instruction::End);
        let mut helpers = CodeSection::new();
        helpers.function(&init).function(&thread_start);
        if single_threaded {
            let mut no_threads = wasm_encoder::Function::new([]);
            no_threads.instruction(&Instruction::I32Const(EAGAIN)).instruction(&Instruction::End);
            helpers.function(&no_threads);
        }
        // Our entries already start with the count (ndef + helpers); append the
        // helper entries without the helper section's own count.
        let mut helper_bytes = Vec::new();
        wasm_encoder::Encode::encode(&helpers, &mut helper_bytes);
        append_section_entries(&mut self.code, &helper_bytes);
        // The code section's contents: the entry count, the chunks after
        // the count written first, the outlined loops' entries.
        self.code_chunks.push(std::mem::take(&mut self.code));
        let first = &self.code_chunks[0];
        let mut count_len = 0;
        while first.get(count_len).is_some_and(|b| b & 0x80 != 0) {
            count_len += 1;
        }
        let count_len = (count_len + 1).min(first.len());
        let mut count = first[..count_len].to_vec();
        if !self.outlined_types.is_empty() {
            // The count written first did not know of them.
            let total = self.outlined_base - self.imports.num_imported_funcs() + self.outlined_types.len() as u32;
            count.clear();
            wasm_encoder::Encode::encode(&total, &mut count);
        }
        let code_len = count.len() - count_len
            + self.code_chunks.iter().map(Vec::len).sum::<usize>()
            + self.outlined_code.len();


        module.section(self.sigs.section());
        module.section(&imports);
        module.section(&functions);
        module.section(&tables);
        module.section(&tags);
        module.section(&globals);
        module.section(&exports);
        module.section(&elements);
        module.section(&DataCountSection { count: nseg });
        if self.ctx.cx.hinted {
            // The pexe's functions, the helpers, then any outlined loops
            // (none under `Hinted` today; they would be tiered as a browser
            // does).
            let total = ndef + helpers_count + self.outlined_types.len() as u32;
            let mut data = Vec::with_capacity(total as usize + 5);
            wasm_encoder::Encode::encode(&total, &mut data);
            let num_funcs = self.ctx.cx.num_funcs;
            let in_globals = m.globals.iter().flat_map(|g| &g.init).filter_map(|i| match *i {
                Initializer::Reloc { target, .. } if target.0 < num_funcs => Some(target.0),
                _ => None,
            });
            let optimized = hints::optimized_first(&self.hint_facts, start.map(|i| i as u32), in_globals);
            data.extend(self.defined.iter().map(|&id| {
                if optimized.get(id as usize).copied().unwrap_or(false) {
                    HINT_OPTIMIZED
                } else {
                    HINT_BASELINE_FIRST
                }
            }));
            data.resize(data.len() + helpers_count as usize, HINT_OPTIMIZED);
            data.resize(data.len() + self.outlined_types.len(), HINT_BASELINE_FIRST);
            module.section(&wasm_encoder::CustomSection { name: COMPILATION_HINTS_SECTION.into(), data: data.into() });
        }
        let names = if self.names { Some(self.name_section(m, init_data_func, thread_start_func, no_threads_func)) } else { None };

        // The rest is large (the code, the data): written once, into the
        // module's bytes grown once to their final size.
        let data_len = leb_len(nseg)
            + self.layout.segments.iter().map(|s| 1 + leb_len(s.bytes.len() as u32) + s.bytes.len()).sum::<usize>();
        let mut out = module.finish();
        out.reserve_exact(
            1 + leb_len(code_len as u32) + code_len + 1 + leb_len(data_len as u32) + data_len + names.as_ref().map_or(0, Vec::len),
        );
        out.push(SectionId::Code as u8);
        wasm_encoder::Encode::encode(&(code_len as u32), &mut out);
        out.extend_from_slice(&count);
        out.extend_from_slice(&self.code_chunks[0][count_len..]);
        for chunk in &self.code_chunks[1..] {
            out.extend_from_slice(chunk);
        }
        out.extend_from_slice(&self.outlined_code);
        // Passive segments, as `DataSection::passive` writes them.
        out.push(SectionId::Data as u8);
        wasm_encoder::Encode::encode(&(data_len as u32), &mut out);
        wasm_encoder::Encode::encode(&nseg, &mut out);
        for s in &self.layout.segments {
            out.push(0x01);
            wasm_encoder::Encode::encode(&(s.bytes.len() as u32), &mut out);
            out.extend_from_slice(&s.bytes);
        }
        if let Some(names) = names {
            out.extend_from_slice(&names);
        }
        Ok(out)
    }

    /// The name section (its id and contents), written here rather than
    /// with `NameMap`, whose every entry cost a call of `memcpy` per LEB.
    fn name_section(&self, m: &Module, init_data_func: u32, thread_start_func: u32, no_threads_func: u32) -> Vec<u8> {
        let single_threaded = self.ctx.cx.single_threaded;
        let mut names = NameBytes::default();
        names.append(imports::FAULT_FUNC, b"env.fault");
        names.append(imports::FMOD_FUNC, b"env.fmod_f64");
        // One buffer for the names made up; symbol names that are UTF-8
        // already are borrowed. (A string per function cost a third of
        // finishing, on the one thread that finishes.)
        let mut made = Vec::new();
        for (k, (module_name, field)) in self.imports.names().enumerate() {
            made.clear();
            made.extend_from_slice(module_name.as_bytes());
            made.push(b'.');
            made.extend_from_slice(field.as_bytes());
            names.append(IRT_FUNC_BASE + k as u32, &made);
        }
        for &id in &self.defined {
            let Callee::Defined { index, .. } = self.ctx.cx.funcs[id as usize].callee else { continue };
            match &m.functions[id as usize].name {
                Some(n) if !n.is_empty() => names.append(index, String::from_utf8_lossy(n).as_bytes()),
                _ => {
                    made.clear();
                    made.push(b'f');
                    put_decimal(&mut made, id);
                    names.append(index, &made);
                }
            }
        }
        names.append(init_data_func, export::INIT_DATA.as_bytes());
        names.append(thread_start_func, export::THREAD_START.as_bytes());
        if single_threaded {
            names.append(no_threads_func, NO_THREADS.as_bytes());
        }
        // An outlined loop: its function's name, `$loop`, and which
        // of that function's outlined loops it is when there are more.
        let mut prev = (u32::MAX, 0u32);
        for (k, &from) in self.outlined_from.iter().enumerate() {
            let nth = if prev.0 == from { prev.1 + 1 } else { 0 };
            prev = (from, nth);
            made.clear();
            match m.functions.get(from as usize).and_then(|d| d.name.as_deref()).filter(|n| !n.is_empty()) {
                Some(n) => made.extend_from_slice(String::from_utf8_lossy(n).as_bytes()),
                None => {
                    made.push(b'f');
                    put_decimal(&mut made, from);
                }
            }
            made.extend_from_slice(b"$loop");
            if nth > 0 {
                put_decimal(&mut made, nth);
            }
            names.append(self.outlined_base + k as u32, &made);
        }
        // A custom section "name" holding one subsection (1: function
        // names), as `NameSection::functions` encodes it.
        let sub_len = leb_len(names.count) + names.bytes.len();
        let mut out = Vec::with_capacity(16 + sub_len);
        out.push(SectionId::Custom as u8);
        put_leb(&mut out, (1 + 4 + 1 + leb_len(sub_len as u32) + sub_len) as u32);
        put_leb(&mut out, 4);
        out.extend_from_slice(b"name");
        out.push(1);
        put_leb(&mut out, sub_len as u32);
        put_leb(&mut out, names.count);
        out.extend_from_slice(&names.bytes);
        out
    }
}

/// A name map's entries (index, name), encoded as `NameMap` does.
#[derive(Default)]
struct NameBytes {
    bytes: Vec<u8>,
    count: u32,
}

impl NameBytes {
    fn append(&mut self, index: u32, name: &[u8]) {
        put_leb(&mut self.bytes, index);
        put_leb(&mut self.bytes, name.len() as u32);
        self.bytes.extend_from_slice(name);
        self.count += 1;
    }
}

/// Appends `n` as an unsigned LEB128 (wasm-encoder's encoding).
fn put_leb(out: &mut Vec<u8>, n: u32) {
    wasm_encoder::Encode::encode(&n, out);
}

/// Appends `n` in decimal.
fn put_decimal(out: &mut Vec<u8>, n: u32) {
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    let mut n = n;
    loop {
        k -= 1;
        digits[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[k..]);
}

/// Where a call of `sqrt` may become `f64.sqrt`: in code chunk `chunk`
/// (`usize::MAX`: the outlined bodies), at byte `at`, `len` bytes long.
#[derive(Clone, Copy, Debug)]
struct SqrtSite {
    chunk: usize,
    at: usize,
    len: u8,
    unguarded: bool,
}

/// A body starts a new code chunk once the one being filled holds this
/// much ([`WasmBackend::next_chunk`]); chunks are made with room for half
/// as much again, so only a body larger than that grows one.
const CODE_CHUNK: usize = 256 << 10;
const CODE_CHUNK_CAPACITY: usize = CODE_CHUNK + CODE_CHUNK / 2;

/// Bytes of `n` as an unsigned LEB128.
fn leb_len(n: u32) -> usize {
    (32 - (n | 1).leading_zeros()).div_ceil(7) as usize
}

/// Writes `index` as a 5-byte LEB128 (the size of the placeholder).
fn write_leb5(slot: &mut [u8], index: u32) {
    for (k, byte) in slot.iter_mut().enumerate() {
        let bits = ((index >> (7 * k)) & 0x7f) as u8;
        *byte = if k < 4 { bits | 0x80 } else { bits };
    }
}

/// Appends the entries of an encoded code section (size, count, entries)
/// to `code` (which has its own count).
fn append_section_entries(code: &mut Vec<u8>, section: &[u8]) {
    // Skip the section's byte size and entry count (two LEBs).
    let mut at = 0;
    for _ in 0..2 {
        while section[at] & 0x80 != 0 {
            at += 1;
        }
        at += 1;
    }
    code.extend_from_slice(&section[at..]);
}

/// Translates a verified module and its function bodies (in file order,
/// each checked by the verifier before it is translated).
pub fn translate(
    verified: &Verified<'_>,
    functions: impl IntoIterator<Item = Function>,
    opts: &Options,
) -> Result<Vec<u8>, TranslateError> {
    let mut t = WasmBackend::new(*verified, opts)?;
    let mut verifier = FunctionVerifier::new();
    let mut diagnostics = Vec::new();
    for f in functions {
        verifier.verify(verified.module(), &f, &mut diagnostics);
        if !diagnostics.is_empty() {
            return Err(TranslateError::Invalid(diagnostics));
        }
        t.define_function(*verified, &f, verifier.analysis())?;
    }
    Backend::finish(t, *verified)
}

/// Decodes, verifies and translates a pexe. Verifier diagnostics (all of
/// them) become [`TranslateError::Invalid`].
///
/// With [`Options::parallel`] (the default) bodies are decoded, verified
/// and translated on [`Options::threads`] threads (`super::parallel`);
/// where threads are unavailable, or the input is not valid, it all runs on
/// the calling thread (`super::Pipeline`). The output is the same either way.
pub fn translate_bytes(pexe: &[u8], opts: &Options) -> Result<Vec<u8>, TranslateError> {
    if opts.parallel {
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        if threads > 1 {
            if let Some(wasm) = super::parallel::translate(pexe, opts, threads) {
                return Ok(wasm);
            }
        }
    }
    super::Pipeline::<WasmBackend>::whole(pexe, opts.clone()).finish().into_output()
}

/// The text form of a translated module.
pub fn to_wat(wasm: &[u8]) -> Result<String, TranslateError> {
    wasmprinter::print_bytes(wasm).map_err(|e| TranslateError::Print(e.to_string()))
}
