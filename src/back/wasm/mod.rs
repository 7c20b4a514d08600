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
//! - globals `__stack_pointer`, `__stack_limit`, `__tp` (mutable, per
//!   instance = per thread), `__heap_base`, and the setjmp id counter;
//! - the global variables' image as passive data segments that
//!   `__pexe_init_data` copies once ([`layout`]);
//! - exports `_start`, `__pexe_thread_start`, `__pexe_init_data`,
//!   `__pexe_longjmp_tag` and the globals above;
//! - a name section naming every function (`f<N>` when the pexe has no
//!   name for it).
//!
//! Function bodies are translated as they arrive and dropped: a large pexe
//! never needs all of its IR in memory. [`translate_bytes`] decodes and
//! verifies on the calling thread while a second thread translates.
//!
//! ```no_run
//! let pexe = std::fs::read("app.pexe").unwrap();
//! let wasm = pexe::back::wasm::translate_bytes(&pexe, &Default::default()).unwrap();
//! std::fs::write("app.wasm", wasm).unwrap();
//! ```

mod control;
mod error;
mod func;
pub mod imports;
mod intrinsics;
pub mod layout;
mod locals;
mod setjmp;
pub mod structure;
mod types;

pub use error::TranslateError;
pub use layout::{Layout, GLOBAL_BASE};

use crate::ir::{Function, Module, ValType as IrType, ValueId};
use crate::verify::{FunctionVerifier, Intrinsic, Verified};
use func::FuncTranslator;
use imports::{export, ImportLayout, IRT_FUNC_BASE};
use types::Signatures;
use wasm_encoder::{
    CodeSection, ConstExpr, DataCountSection, DataSection, ElementSection, Elements, EntityType, ExportKind,
    ExportSection, FunctionSection, GlobalSection, GlobalType, ImportSection, Instruction, MemoryType, NameMap,
    NameSection, RawSection, RefType, SectionId, TableSection, TableType, TagKind, TagSection, TagType, ValType,
};

/// Translation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Print the text form instead of the binary (used by the CLI only).
    pub wat: bool,
    /// Write the name section (function names for fault messages).
    pub names: bool,
    /// [`translate_bytes`]: translate on a second thread while decoding.
    pub parallel: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { wat: false, names: true, parallel: true }
    }
}

/// Indices of the module's globals.
pub(crate) mod global {
    pub const STACK_POINTER: u32 = 0;
    pub const STACK_LIMIT: u32 = 1;
    pub const THREAD_POINTER: u32 = 2;
    pub const HEAP_BASE: u32 = 3;
    /// Source of setjmp ids (odd, so never 0); per instance.
    pub const SETJMP_ID: u32 = 4;
}

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
    pub params: Vec<IrType>,
    pub ret: Option<IrType>,
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
}

impl ModuleCx {
    pub fn callee(&self, v: ValueId) -> Option<Callee> {
        self.funcs.get(v.0 as usize).map(|e| e.callee)
    }
}

/// Builds one module: created from the module, fed the bodies in order,
/// then finished.
struct ModuleTranslator {
    cx: ModuleCx,
    sigs: Signatures,
    layout: Layout,
    names: bool,
    funcs: FuncTranslator,
    /// Ids of the defined functions, in order; `next` is the one expected.
    defined: Vec<u32>,
    next: usize,
    /// Code-section entries so far.
    code: Vec<u8>,
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

impl ModuleTranslator {
    fn new(m: &Module, opts: &Options) -> Result<Self, TranslateError> {
        let imports = ImportLayout::for_module(m);
        let layout = Layout::new(m, imports.pexe_table_base())?;
        let mut sigs = Signatures::new();
        let fault_ty = sigs.intern(&[ValType::I32, ValType::I32], &[]);
        let fmod_ty = sigs.intern(&[ValType::F64, ValType::F64], &[ValType::F64]);
        let import_types = imports
            .functions()
            .map(|(_, _, l)| {
                let params: Vec<ValType> = l.params.iter().map(|&k| imports::val_type(k)).collect();
                let results: Vec<ValType> = l.results.iter().map(|&k| imports::val_type(k)).collect();
                sigs.intern(&params, &results)
            })
            .collect();
        let num_imported = imports.num_imported_funcs();
        let void_void = sigs.intern(&[], &[]);
        let i32_void = sigs.intern(&[ValType::I32], &[]);
        let longjmp_ty = fault_ty;
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
            funcs.push(FuncEntry { callee, params: d.sig.params.clone(), ret: d.sig.ret });
        }
        let total = u64::from(num_imported) + defined.len() as u64 + 2;
        if total > 1_000_000 {
            return Err(TranslateError::TooMany { what: "functions", count: total });
        }
        let mut code = Vec::with_capacity(m.functions.len() * 64);
        wasm_encoder::Encode::encode(&(defined.len() as u32 + 2), &mut code);
        Ok(ModuleTranslator {
            cx: ModuleCx {
                num_funcs: m.functions.len() as u32,
                funcs,
                global_addrs: layout.addrs.clone(),
                i32_to_void: i32_void,
                pexe_table_base: imports.pexe_table_base(),
            },
            sigs,
            layout,
            names: opts.names,
            funcs: FuncTranslator::new(),
            defined,
            next: 0,
            code,
            void_void,
            i32_void,
            longjmp_ty,
            imports,
            import_types,
            fault_ty,
            fmod_ty,
        })
    }

    /// Translates the next body (bodies come in declaration order).
    fn add_function(&mut self, f: &Function) -> Result<(), TranslateError> {
        match self.defined.get(self.next) {
            Some(&id) if id == f.id.0 => {}
            Some(&id) => return Err(TranslateError::BodyOrder { got: f.id.0, expected: id }),
            None => return Err(TranslateError::BodyOrder { got: f.id.0, expected: u32::MAX }),
        }
        self.next += 1;
        self.funcs.translate(&self.cx, &mut self.sigs, f, &mut self.code)
    }

    fn finish(mut self, m: &Module) -> Result<Vec<u8>, TranslateError> {
        if self.next != self.defined.len() {
            return Err(TranslateError::MissingBodies { missing: self.defined.len() - self.next });
        }
        let ndef = self.defined.len() as u32;
        let init_data_func = self.imports.num_imported_funcs() + ndef;
        let thread_start_func = init_data_func + 1;
        let mut module = wasm_encoder::Module::new();

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
        for ((module_name, field, _), &ty) in self.imports.functions().zip(&self.import_types) {
            imports.import(module_name, field, EntityType::Function(ty));
        }

        // Functions: the pexe's bodies, then the helpers.
        let mut functions = FunctionSection::new();
        for &id in &self.defined {
            match self.cx.funcs[id as usize].callee {
                Callee::Defined { ty, .. } => functions.function(ty),
                _ => unreachable!("defined functions are Callee::Defined"),
            };
        }
        functions.function(self.void_void);
        functions.function(self.i32_void);

        let table_size = u64::from(self.cx.pexe_table_base) + u64::from(self.cx.num_funcs);
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

        let mut exports = ExportSection::new();
        let start = m.functions.iter().position(|d| !d.is_proto && d.name.as_deref() == Some(b"_start"));
        if let Some(Callee::Defined { index, .. }) = start.map(|i| self.cx.funcs[i].callee) {
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
        let nimports = self.imports.irt.len() + self.imports.ppb.len();
        let imported: Vec<u32> = (0..nimports as u32).map(|k| IRT_FUNC_BASE + k).collect();
        elements.active(
            None,
            &ConstExpr::i32_const(imports::IRT_TABLE_BASE as i32),
            Elements::Functions(imported.into()),
        );
        let pexe_table_base = self.cx.pexe_table_base;
        let mut run: Vec<u32> = Vec::new();
        let mut run_start = 0u32;
        for (i, e) in self.cx.funcs.iter().enumerate() {
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
        // Our entries already start with the count (ndef + 2); append the
        // helper entries without the helper section's own count.
        let mut helper_bytes = Vec::new();
        wasm_encoder::Encode::encode(&helpers, &mut helper_bytes);
        append_section_entries(&mut self.code, &helper_bytes);

        let mut data = DataSection::new();
        for s in &self.layout.segments {
            data.passive(s.bytes.iter().copied());
        }

        module.section(self.sigs.section());
        module.section(&imports);
        module.section(&functions);
        module.section(&tables);
        module.section(&tags);
        module.section(&globals);
        module.section(&exports);
        module.section(&elements);
        module.section(&DataCountSection { count: nseg });
        module.section(&RawSection { id: SectionId::Code as u8, data: &self.code });
        module.section(&data);

        if self.names {
            let mut names = NameMap::new();
            names.append(imports::FAULT_FUNC, "env.fault");
            names.append(imports::FMOD_FUNC, "env.fmod_f64");
            for (k, (module_name, field, _)) in self.imports.functions().enumerate() {
                names.append(IRT_FUNC_BASE + k as u32, &format!("{module_name}.{field}"));
            }
            for &id in &self.defined {
                let d = &m.functions[id as usize];
                let name = match &d.name {
                    Some(n) if !n.is_empty() => String::from_utf8_lossy(n).into_owned(),
                    _ => format!("f{id}"),
                };
                if let Callee::Defined { index, .. } = self.cx.funcs[id as usize].callee {
                    names.append(index, &name);
                }
            }
            names.append(init_data_func, export::INIT_DATA);
            names.append(thread_start_func, export::THREAD_START);
            let mut section = NameSection::new();
            section.functions(&names);
            module.section(&section);
        }
        Ok(module.finish())
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
    let m = verified.module();
    let mut t = ModuleTranslator::new(m, opts)?;
    let mut verifier = FunctionVerifier::new();
    let mut diagnostics = Vec::new();
    for f in functions {
        verifier.verify(m, &f, &mut diagnostics);
        if !diagnostics.is_empty() {
            return Err(TranslateError::Invalid(diagnostics));
        }
        t.add_function(&f)?;
    }
    t.finish(m)
}

/// Decodes, verifies and translates a pexe, one body at a time. Verifier
/// diagnostics (all of them) become [`TranslateError::Invalid`].
///
/// With [`Options::parallel`] (the default) bodies are translated on a
/// second thread while the next ones are decoded and verified; where
/// threads are unavailable it all runs on the calling thread. The output is
/// the same either way.
pub fn translate_bytes(pexe: &[u8], opts: &Options) -> Result<Vec<u8>, TranslateError> {
    if opts.parallel && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
        if let Some(result) = translate_bytes_parallel(pexe, opts) {
            return result;
        }
    }
    let mut backend = LocalBackend { translator: None, failed: None };
    let (module, diagnostics) = decode_and_verify(pexe, opts, &mut backend)?;
    let translator = match backend.failed {
        Some(e) if diagnostics.is_empty() => return Err(e),
        _ => backend.translator,
    };
    finish(module, diagnostics, translator)
}

/// Where verified bodies go: translated here, or sent to a worker.
trait Backend {
    fn start(&mut self, t: ModuleTranslator);
    fn body(&mut self, f: Function);
}

struct LocalBackend {
    translator: Option<ModuleTranslator>,
    failed: Option<TranslateError>,
}

impl Backend for LocalBackend {
    fn start(&mut self, t: ModuleTranslator) {
        self.translator = Some(t);
    }
    fn body(&mut self, f: Function) {
        if let (Some(t), None) = (self.translator.as_mut(), &self.failed) {
            if let Err(e) = t.add_function(&f) {
                self.failed = Some(e);
            }
        }
    }
}

enum ToWorker {
    Start(Box<ModuleTranslator>),
    Body(Function),
}

struct WorkerBackend {
    tx: std::sync::mpsc::SyncSender<ToWorker>,
}

impl Backend for WorkerBackend {
    fn start(&mut self, t: ModuleTranslator) {
        // A closed channel means the worker is gone; its result says why.
        let _ = self.tx.send(ToWorker::Start(Box::new(t)));
    }
    fn body(&mut self, f: Function) {
        let _ = self.tx.send(ToWorker::Body(f));
    }
}

/// `translate_bytes` with the back end on a scoped thread; `None` when the
/// thread cannot be started.
fn translate_bytes_parallel(pexe: &[u8], opts: &Options) -> Option<Result<Vec<u8>, TranslateError>> {
    /// Bodies decoded ahead of the translator (bounds memory).
    const QUEUE: usize = 64;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<ToWorker>(QUEUE);
        let worker = std::thread::Builder::new()
            .name("pexe-wasm".into())
            .spawn_scoped(scope, move || {
                let mut translator: Option<ModuleTranslator> = None;
                let mut failed = None;
                for msg in rx {
                    match msg {
                        ToWorker::Start(t) => translator = Some(*t),
                        ToWorker::Body(f) => {
                            if let (Some(t), None) = (translator.as_mut(), &failed) {
                                if let Err(e) = t.add_function(&f) {
                                    failed = Some(e);
                                }
                            }
                        }
                    }
                }
                (translator, failed)
            })
            .ok()?;
        let mut backend = WorkerBackend { tx };
        let decoded = decode_and_verify(pexe, opts, &mut backend);
        drop(backend);
        let (translator, failed) = match worker.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        Some((|| {
            let (module, diagnostics) = decoded?;
            let translator = match failed {
                Some(e) if diagnostics.is_empty() => return Err(e),
                _ => translator,
            };
            finish(module, diagnostics, translator)
        })())
    })
}

/// The decode loop: checks the module once its declarations are complete,
/// then each body, handing the verified ones to `backend` (none after the
/// first diagnostic, but every body is still checked).
fn decode_and_verify(
    pexe: &[u8],
    opts: &Options,
    backend: &mut impl Backend,
) -> Result<(Module, Vec<crate::verify::Diagnostic>), TranslateError> {
    let mut verifier = FunctionVerifier::new();
    let mut diagnostics = Vec::new();
    let mut module_checked = false;
    let mut failed: Option<TranslateError> = None;
    let module = crate::decode::decode_with(pexe, |m, f| {
        if !module_checked {
            module_checked = true;
            let d = crate::verify::verify_module(m);
            if d.is_empty() {
                match ModuleTranslator::new(m, opts) {
                    Ok(t) => backend.start(t),
                    Err(e) => failed = Some(e),
                }
            } else {
                diagnostics.extend(d);
            }
        }
        verifier.verify(m, &f, &mut diagnostics);
        if diagnostics.is_empty() && failed.is_none() {
            backend.body(f);
        }
        Ok(())
    })?;
    if !module_checked {
        diagnostics.extend(crate::verify::verify_module(&module));
        if diagnostics.is_empty() {
            backend.start(ModuleTranslator::new(&module, opts)?);
        }
    }
    if let Some(e) = failed {
        if diagnostics.is_empty() {
            return Err(e);
        }
    }
    Ok((module, diagnostics))
}

fn finish(
    module: Module,
    mut diagnostics: Vec<crate::verify::Diagnostic>,
    translator: Option<ModuleTranslator>,
) -> Result<Vec<u8>, TranslateError> {
    if !diagnostics.is_empty() {
        diagnostics.sort_by_key(|d| d.pos);
        return Err(TranslateError::Invalid(diagnostics));
    }
    match translator {
        Some(t) => t.finish(&module),
        None => Err(TranslateError::MissingBodies { missing: 0 }),
    }
}

/// The text form of a translated module.
pub fn to_wat(wasm: &[u8]) -> Result<String, TranslateError> {
    wasmprinter::print_bytes(wasm).map_err(|e| TranslateError::Print(e.to_string()))
}
