//! The native back end: a verified pexe becomes an ELF relocatable object
//! for x86-64 or AArch64 Linux, through Cranelift, sandboxed by
//! construction. Linked with the native runtime (`runtime/`, the NaCl IRT
//! over Linux) it is an ordinary executable (`pexe build`).
//!
//! ```text
//! Module ─ verify ─▶ Verified ─ NativeTranslator::new ─┐   (declarations, table, data image)
//! Function, Function, … ─ define_function ─────────────┤   (func.rs: IR → CLIF → machine code;
//!                                                      │    FunctionCompiler does it on any thread)
//!                                                      └─ finish ─▶ ELF .o (+ trampolines, descriptor)
//! ```
//!
//! The contract with the runtime — memory layout, thread context, trap
//! codes, the descriptor the object exports — is [`rtabi`]. In short:
//!
//! - **Memory.** Guest pointers stay 32-bit offsets from a base the
//!   runtime reserves (4 GiB + 4 GiB of guard); every load and store is
//!   `base + zext(p) + C`, so the guest cannot name host memory. Pages the
//!   guest has not mapped fault; the fault is the guest's, reported as
//!   "memory access out of bounds in function F".
//! - **Calls through pointers.** A function address is a table index, as in
//!   the wasm back end (IRT function `k` at `1 + k`, pexe function `i` at
//!   the pexe table base plus `i`); an indirect call checks the index
//!   against the table's length and the entry's signature id against the
//!   call's before calling.
//! - **Stacks.** The alloca stack is guest memory (its pointer and limit in
//!   the thread context); the machine stack (return addresses, spills) is
//!   the host's, out of the guest's reach, with a guard page the runtime
//!   watches ("call stack exhausted").
//! - **Faults.** Every check is a trap instruction recorded with a code in
//!   the object's trap tables, so the runtime's signal handler can say what
//!   failed and in which function, in the wasm path's words.
//!
//! Functions are compiled independently ([`FunctionCompiler`] is `Sync`),
//! so [`translate_bytes`] compiles on every core, the decoding thread
//! included; functions are placed in declaration order, so the object is
//! the same byte for byte whatever the number of threads.
//!
//! ```no_run
//! use pexe::back::native::{translate_bytes, Options, Target};
//! let pexe = std::fs::read("app.pexe").unwrap();
//! let obj = translate_bytes(&pexe, &Options { target: Target::X86_64Linux, ..Options::default() }).unwrap();
//! std::fs::write("app.o", obj).unwrap();
//! ```

mod func;
mod object;
pub mod rtabi;

use crate::back::TranslateError;
use crate::back::wasm::imports::ImportLayout;
use crate::back::wasm::Layout;
use crate::ir::{Function, Module, ValType, ValueId};
use crate::verify::{FunctionVerifier, Intrinsic, Verified};
use cranelift_codegen::ir::{self as cl, types, AbiParam};
use cranelift_codegen::isa::{CallConv, OwnedTargetIsa, TargetFrontendConfig};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_module::{DataId, FuncId, Linkage, Module as _};
use cranelift_object::{ObjectBuilder, ObjectModule};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub use func::cl_type;

/// A machine the back end writes objects for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// x86-64 Linux (SysV ABI). Code uses SSE4.2 and POPCNT (x86-64-v2,
    /// every x86-64 processor since 2009).
    X86_64Linux,
    /// AArch64 Linux (AAPCS64), ARMv8.0.
    Aarch64Linux,
}

impl Target {
    pub const ALL: [Target; 2] = [Target::X86_64Linux, Target::Aarch64Linux];

    /// The name the command line uses: `x86_64-linux`, `aarch64-linux`.
    pub fn name(self) -> &'static str {
        match self {
            Target::X86_64Linux => "x86_64-linux",
            Target::Aarch64Linux => "aarch64-linux",
        }
    }

    /// The target triple (Cranelift's and Rust's).
    pub fn triple(self) -> &'static str {
        match self {
            Target::X86_64Linux => "x86_64-unknown-linux-gnu",
            Target::Aarch64Linux => "aarch64-unknown-linux-gnu",
        }
    }

    /// The target of a name or triple (`x86_64-linux`, `aarch64`,
    /// `x86_64-unknown-linux-gnu`, …).
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "x86_64-linux" | "x86_64" | "x86-64" | "x86_64-unknown-linux-gnu" => Some(Target::X86_64Linux),
            "aarch64-linux" | "aarch64" | "arm64" | "aarch64-unknown-linux-gnu" => Some(Target::Aarch64Linux),
            _ => None,
        }
    }

    /// The target this program runs on, if it is one of ours.
    pub fn host() -> Option<Target> {
        if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
            Some(Target::X86_64Linux)
        } else if cfg!(all(target_arch = "aarch64", target_os = "linux")) {
            Some(Target::Aarch64Linux)
        } else {
            None
        }
    }

    fn arch(self) -> u32 {
        match self {
            Target::X86_64Linux => rtabi::arch::X86_64,
            Target::Aarch64Linux => rtabi::arch::AARCH64,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Translation options.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    /// Threads that compile functions in [`NativeBackend`] (the pipeline's
    /// own included); 0 = one per core. The object does not depend on it.
    pub threads: usize,
    /// Run Cranelift's IR verifier on every function before compiling it
    /// (about 40% more compile time; on in debug builds and in the tests,
    /// which translate the whole corpus with it).
    pub verify: bool,
    /// Add the entry point the runtime's test driver calls functions
    /// through (`rtabi::ModuleDesc::test_invoke`); for tests only.
    pub test_entry: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: Target::host().unwrap_or(Target::X86_64Linux),
            threads: 0,
            verify: cfg!(debug_assertions),
            test_entry: false,
        }
    }
}

fn object_error(e: impl std::fmt::Display) -> TranslateError {
    TranslateError::Object(e.to_string())
}

/// How a call of a function id is made.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Callee {
    /// A function with a body: its symbol, its entry in the function-info
    /// table, its signature id.
    Defined { id: FuncId, info: u32, sig: u32 },
    Intrinsic(Intrinsic),
    /// Declared without a body and not an intrinsic: faults when called.
    Missing,
}

#[derive(Clone, Debug)]
pub(crate) struct FuncEntry {
    pub callee: Callee,
    pub params: Vec<ValType>,
    pub ret: Option<ValType>,
}

/// A runtime function generated code calls.
#[derive(Clone, Debug)]
pub(crate) struct Helper {
    pub id: FuncId,
    pub sig: cl::Signature,
}

#[derive(Clone, Debug)]
pub(crate) struct Helpers {
    pub memcpy: Helper,
    pub memmove: Helper,
    pub memset: Helper,
    pub fault: Helper,
    pub setjmp: Helper,
    pub setjmp_leave: Helper,
    pub longjmp: Helper,
    pub fmod: Helper,
    pub native_setjmp: Helper,
}

/// What function bodies need to know about the module (shared by the
/// compiling threads).
pub(crate) struct ModuleCx {
    pub target: Target,
    pub isa: OwnedTargetIsa,
    /// The same target without optimizations, for setjmp functions.
    pub isa_plain: OwnedTargetIsa,
    pub frontend: TargetFrontendConfig,
    pub call_conv: CallConv,
    pub funcs: Vec<FuncEntry>,
    pub global_addrs: Vec<u32>,
    pub pexe_table_base: u32,
    pub table_len: u32,
    pub table: DataId,
    /// Signature ids by [`sig_key`]; 0 is no signature (empty slots).
    pub sig_ids: HashMap<Vec<u8>, u32>,
    pub rt: Helpers,
    pub module: ModuleValues,
}

/// Which value ids are module-level (functions, then globals).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ModuleValues {
    pub num_funcs: u32,
    pub num_globals: u32,
}

impl ModuleValues {
    pub fn func_of(&self, v: ValueId) -> Option<crate::ir::FuncId> {
        (v.0 < self.num_funcs).then_some(crate::ir::FuncId(v.0))
    }
    pub fn global_of(&self, v: ValueId) -> Option<crate::ir::GlobalId> {
        let i = v.0.checked_sub(self.num_funcs)?;
        (i < self.num_globals).then_some(crate::ir::GlobalId(i))
    }
}

impl ModuleCx {
    pub fn callee(&self, v: ValueId) -> Option<Callee> {
        self.funcs.get(v.0 as usize).map(|e| e.callee)
    }

    /// The Cranelift signature of a pexe function type (context first).
    pub fn signature(&self, params: &[ValType], ret: Option<ValType>) -> cl::Signature {
        let mut sig = cl::Signature::new(self.call_conv);
        sig.params = func::abi_params(params);
        if let Some(r) = ret {
            sig.returns.push(AbiParam::new(cl_type(r)));
        }
        sig
    }
}

/// A signature as indirect calls compare them: the result, then the
/// parameters, each as the class of register it travels in (every 128-bit
/// vector is one class, as in wasm).
pub(crate) fn sig_key(params: &[ValType], ret: Option<ValType>) -> Vec<u8> {
    fn code(t: ValType) -> u8 {
        match t {
            ValType::Vector { .. } => 5,
            ValType::Scalar(s) => match s {
                crate::ir::Scalar::I64 => 2,
                crate::ir::Scalar::F32 => 3,
                crate::ir::Scalar::F64 => 4,
                _ => 1,
            },
        }
    }
    std::iter::once(ret.map_or(0, code)).chain(params.iter().map(|&t| code(t))).collect()
}

fn kind_type(k: crate::abi::ValKind) -> ValType {
    match k {
        crate::abi::ValKind::I32 => ValType::I32,
        crate::abi::ValKind::I64 => ValType::I64,
        crate::abi::ValKind::F32 => ValType::F32,
        crate::abi::ValKind::F64 => ValType::F64,
    }
}

/// The [`rtabi::abi_hash`] of this build's IRT list.
pub fn irt_abi_hash() -> u64 {
    let list: Vec<(String, String)> = crate::abi::abi()
        .irt_imports()
        .map(|f| {
            let l = f.lower();
            let mut kinds: String = l.params.iter().map(|k| k.letter()).collect();
            kinds.push('>');
            kinds.extend(l.results.iter().map(|k| k.letter()));
            (f.name.clone(), kinds)
        })
        .collect();
    rtabi::abi_hash(list.iter().map(|(a, b)| (a.as_str(), b.as_str())))
}

/// The Cranelift ISA for `target`.
fn make_isa(target: Target, optimize: bool, verify: bool) -> Result<OwnedTargetIsa, TranslateError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(|e| object_error(format!("{k}: {e}")));
    set(&mut flags, "opt_level", if optimize { "speed" } else { "none" })?;
    // Position-independent: the object links into static and PIE
    // executables alike.
    set(&mut flags, "is_pic", "true")?;
    // Frame pointers: the runtime walks them to name the guest function a
    // fault in a runtime helper belongs to.
    set(&mut flags, "preserve_frame_pointers", "true")?;
    // Big frames probe each page, so no frame can jump over the machine
    // stack's guard page.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    set(&mut flags, "unwind_info", "false")?;
    set(&mut flags, "enable_verifier", if verify { "true" } else { "false" })?;
    let mut isa = cranelift_codegen::isa::lookup_by_name(target.triple()).map_err(object_error)?;
    if target == Target::X86_64Linux {
        for f in ["has_sse3", "has_ssse3", "has_sse41", "has_sse42", "has_popcnt"] {
            isa.enable(f).map_err(|e| object_error(format!("{f}: {e}")))?;
        }
    }
    isa.finish(settings::Flags::new(flags)).map_err(object_error)
}

/// Machine code of one function, from [`FunctionCompiler::compile`], for
/// [`NativeTranslator::define_compiled`].
pub struct CompiledFunction {
    /// The pexe function id.
    pub id: u32,
    compiled: func::Compiled,
}

/// Reusable buffers of one compiling thread.
#[derive(Default)]
pub struct CompileScratch(func::FuncScratch);

/// Compiles function bodies of one module; cheap to clone and `Sync`, so
/// any number of threads can use it at once.
#[derive(Clone)]
pub struct FunctionCompiler {
    cx: Arc<ModuleCx>,
    /// Pexe ids of the defined functions, in order.
    defined: Arc<Vec<u32>>,
}

impl FunctionCompiler {
    /// Compiles one verified body of the module.
    pub fn compile(&self, f: &Function, scratch: &mut CompileScratch) -> Result<CompiledFunction, TranslateError> {
        let Some(Callee::Defined { id, info, .. }) = self.cx.callee(ValueId(f.id.0)) else {
            return Err(TranslateError::Unsupported { function: f.id.0, message: "not a defined function".into() });
        };
        let compiled = func::compile(&self.cx, f, id, info, &mut scratch.0)?;
        Ok(CompiledFunction { id: f.id.0, compiled })
    }
}

/// One object being built: created from the verified module, given every
/// body in order (compiled here with [`Self::define_function`], or
/// elsewhere and placed with [`Self::define_compiled`]), then finished.
pub struct NativeTranslator {
    target: Target,
    compiler: FunctionCompiler,
    obj: ObjectModule,
    next: usize,
    /// Per defined function: its symbol, name, code size and traps.
    infos: Vec<object::InfoRecord>,
    scratch: CompileScratch,
    layout: Layout,
    imports: ImportLayout,
    start: Option<u32>,
    test_entry: bool,
}

impl NativeTranslator {
    /// Declares everything the module defines and uses.
    pub fn new(verified: &Verified<'_>, opts: &Options) -> Result<Self, TranslateError> {
        Self::from_module(verified.module(), opts)
    }

    fn from_module(m: &Module, opts: &Options) -> Result<Self, TranslateError> {
        let target = opts.target;
        let isa = make_isa(target, true, opts.verify)?;
        let isa_plain = make_isa(target, false, opts.verify)?;
        let imports = ImportLayout::for_module(m);
        let pexe_table_base = imports.pexe_table_base();
        let layout = Layout::new(m, pexe_table_base)?;
        let call_conv = isa.default_call_conv();
        let builder = ObjectBuilder::new(isa.clone(), "pexe", cranelift_module::default_libcall_names())
            .map_err(object_error)?;
        let mut obj = ObjectModule::new(builder);
        let mut names = object::Names::default();

        let sig_of = |params: &[ValType], ret: Option<ValType>| {
            let mut s = cl::Signature::new(call_conv);
            s.params = func::abi_params(params);
            if let Some(r) = ret {
                s.returns.push(AbiParam::new(cl_type(r)));
            }
            s
        };

        // Runtime helpers (reserved `__pexe_` names, declared first).
        let helper = |obj: &mut ObjectModule, name: &str, params: &[cl::Type], ret: Option<cl::Type>| {
            let mut s = cl::Signature::new(call_conv);
            s.params = params.iter().map(|&t| AbiParam::new(t)).collect();
            s.returns = ret.into_iter().map(AbiParam::new).collect();
            let id = obj.declare_function(name, Linkage::Import, &s).map_err(object_error)?;
            Ok::<Helper, TranslateError>(Helper { id, sig: s })
        };
        use types::{F64, I32, I64};
        let rt = Helpers {
            memcpy: helper(&mut obj, rtabi::sym::MEMCPY, &[I64, I32, I32, I32], Some(I32))?,
            memmove: helper(&mut obj, rtabi::sym::MEMMOVE, &[I64, I32, I32, I32], Some(I32))?,
            memset: helper(&mut obj, rtabi::sym::MEMSET, &[I64, I32, I32, I32], Some(I32))?,
            fault: helper(&mut obj, rtabi::sym::FAULT, &[I64, I32, I32, I32], None)?,
            setjmp: helper(&mut obj, rtabi::sym::SETJMP, &[I64, I32, I64], Some(I32))?,
            setjmp_leave: helper(&mut obj, rtabi::sym::SETJMP_LEAVE, &[I64, I64, I64], None)?,
            longjmp: helper(&mut obj, rtabi::sym::LONGJMP, &[I64, I32, I32, I32], None)?,
            fmod: helper(&mut obj, rtabi::sym::FMOD, &[F64, F64], Some(F64))?,
            native_setjmp: helper(&mut obj, rtabi::sym::NATIVE_SETJMP, &[I64], Some(I32))?,
        };

        // Signature ids: the pexe's functions, then the IRT's and PPB's.
        let mut sig_ids: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut intern = |key: Vec<u8>| {
            let n = sig_ids.len() as u32 + 1;
            *sig_ids.entry(key).or_insert(n)
        };
        let mut funcs = Vec::with_capacity(m.functions.len());
        let mut defined = Vec::new();
        let mut start = None;
        for (i, d) in m.functions.iter().enumerate() {
            let callee = if !d.is_proto {
                let name = names.claim(d.name.as_deref(), i as u32);
                let sig = sig_of(&d.sig.params, d.sig.ret);
                let id = obj.declare_function(&name, Linkage::Local, &sig).map_err(object_error)?;
                let info = defined.len() as u32;
                defined.push(i as u32);
                if d.name.as_deref() == Some(b"_start") {
                    start = Some(i as u32);
                }
                Callee::Defined { id, info, sig: intern(sig_key(&d.sig.params, d.sig.ret)) }
            } else {
                match d.name.as_deref().and_then(Intrinsic::lookup) {
                    Some(intr) => Callee::Intrinsic(intr),
                    None => Callee::Missing,
                }
            };
            funcs.push(FuncEntry { callee, params: d.sig.params.clone(), ret: d.sig.ret });
        }
        for (kinds, result) in imports.signatures() {
            let params: Vec<ValType> = kinds.iter().map(|&k| kind_type(k)).collect();
            intern(sig_key(&params, result.map(kind_type)));
        }
        let table_len = u64::from(pexe_table_base) + m.functions.len() as u64;
        if table_len > u64::from(u32::MAX >> 4) {
            return Err(object_error(format!("{table_len} function addresses are too many")));
        }
        let table = obj.declare_data("__pexe_table", Linkage::Local, false, false).map_err(object_error)?;
        let cx = ModuleCx {
            target,
            isa_plain,
            frontend: isa.frontend_config(),
            isa,
            call_conv,
            funcs,
            global_addrs: layout.addrs.clone(),
            pexe_table_base,
            table_len: table_len as u32,
            table,
            sig_ids,
            rt,
            module: ModuleValues { num_funcs: m.functions.len() as u32, num_globals: m.globals.len() as u32 },
        };
        let infos = defined
            .iter()
            .map(|&i| {
                let name = match &m.functions[i as usize].name {
                    Some(n) if !n.is_empty() => String::from_utf8_lossy(n).into_owned(),
                    _ => format!("f{i}"),
                };
                object::InfoRecord { pexe_id: i, name, len: 0, traps: Vec::new() }
            })
            .collect();
        Ok(NativeTranslator {
            target,
            compiler: FunctionCompiler { cx: Arc::new(cx), defined: Arc::new(defined) },
            obj,
            next: 0,
            infos,
            scratch: CompileScratch::default(),
            layout,
            imports,
            start,
            test_entry: opts.test_entry,
        })
    }

    /// The compiler other threads can use (see [`Self::define_compiled`]).
    pub fn compiler(&self) -> FunctionCompiler {
        self.compiler.clone()
    }

    /// Compiles and places the next body (bodies come in declaration order,
    /// each already verified).
    pub fn define_function(&mut self, f: &Function) -> Result<(), TranslateError> {
        self.check_order(f.id.0)?;
        let mut scratch = std::mem::take(&mut self.scratch);
        let compiled = self.compiler.compile(f, &mut scratch);
        self.scratch = scratch;
        self.define_compiled(compiled?)
    }

    fn check_order(&self, id: u32) -> Result<(), TranslateError> {
        match self.compiler.defined.get(self.next) {
            Some(&expected) if expected == id => Ok(()),
            Some(&expected) => Err(TranslateError::BodyOrder { got: id, expected }),
            None => Err(TranslateError::BodyOrder { got: id, expected: u32::MAX }),
        }
    }

    /// Places the next function's machine code.
    pub fn define_compiled(&mut self, c: CompiledFunction) -> Result<(), TranslateError> {
        self.check_order(c.id)?;
        let Some(Callee::Defined { id, .. }) = self.compiler.cx.callee(ValueId(c.id)) else {
            return Err(TranslateError::Unsupported { function: c.id, message: "not a defined function".into() });
        };
        let code = &c.compiled;
        self.obj.define_function_bytes(id, code.alignment, &code.bytes, &code.relocs).map_err(object_error)?;
        let info = &mut self.infos[self.next];
        info.len = code.bytes.len() as u32;
        info.traps = c.compiled.traps;
        self.next += 1;
        Ok(())
    }

    /// The object file.
    pub fn finish(self) -> Result<Vec<u8>, TranslateError> {
        if self.next != self.compiler.defined.len() {
            return Err(TranslateError::MissingBodies { missing: self.compiler.defined.len() - self.next });
        }
        object::finish(self)
    }
}

/// Translates a verified module and its bodies (in file order; each is
/// verified before it is compiled).
pub fn translate(
    verified: &Verified<'_>,
    functions: impl IntoIterator<Item = Function>,
    opts: &Options,
) -> Result<Vec<u8>, TranslateError> {
    let m = verified.module();
    let mut t = NativeTranslator::new(verified, opts)?;
    let mut verifier = FunctionVerifier::new();
    let mut diagnostics = Vec::new();
    for f in functions {
        verifier.verify(m, &f, &mut diagnostics);
        if !diagnostics.is_empty() {
            return Err(TranslateError::Invalid(diagnostics));
        }
        t.define_function(&f)?;
    }
    t.finish()
}

/// Decodes, verifies and translates a pexe on the push pipeline
/// ([`crate::back::Pipeline`] with [`NativeBackend`]), on
/// [`Options::threads`] threads. Verifier diagnostics (all of them, in file
/// order) become [`TranslateError::Invalid`]. The object is the same for
/// any number of threads.
pub fn translate_bytes(pexe: &[u8], opts: &Options) -> Result<Vec<u8>, TranslateError> {
    crate::back::Pipeline::<NativeBackend>::whole(pexe, opts.clone()).finish().into_output()
}

/// The native back end on the push pipeline: each body is compiled as it
/// arrives, on the pipeline's thread or, when [`Options::threads`] asks for
/// more than one, on a pool of compiling threads besides it; machine code
/// is placed in body order, so the object is the same byte for byte for
/// any number of threads.
///
/// ```no_run
/// use pexe::back::native::{NativeBackend, Options};
/// use pexe::back::Pipeline;
/// let pexe = std::fs::read("app.pexe").unwrap();
/// let object = Pipeline::<NativeBackend>::whole(&pexe, Options::default()).finish().into_output().unwrap();
/// ```
pub struct NativeBackend {
    translator: NativeTranslator,
    pool: Option<Pool>,
}

impl crate::back::Backend for NativeBackend {
    type Options = Options;
    type Output = Vec<u8>;

    fn begin(module: Verified<'_>, options: &Options) -> Result<Self, TranslateError> {
        let translator = NativeTranslator::new(&module, options)?;
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let pool = (threads > 1).then(|| Pool::new(translator.compiler(), threads - 1));
        Ok(NativeBackend { translator, pool })
    }

    fn define_function(
        &mut self,
        _: Verified<'_>,
        body: &Function,
        _: crate::verify::FunctionAnalysis<'_>,
    ) -> Result<(), TranslateError> {
        match &mut self.pool {
            None => self.translator.define_function(body),
            Some(pool) => {
                pool.submit(body);
                pool.place_ready(&mut self.translator, false)
            }
        }
    }

    fn finish(mut self, _: Verified<'_>) -> Result<Vec<u8>, TranslateError> {
        if let Some(pool) = &mut self.pool {
            pool.queue.close();
            pool.help();
            pool.place_ready(&mut self.translator, true)?;
        }
        // Joins the threads (all idle now) before the object is written.
        self.pool = None;
        self.translator.finish()
    }
}

type Compiled = Result<CompiledFunction, TranslateError>;

/// The compiling threads of a [`NativeBackend`] and the bodies in flight.
struct Pool {
    queue: Arc<WorkQueue>,
    done: std::sync::mpsc::Receiver<(usize, Compiled)>,
    threads: Vec<std::thread::JoinHandle<()>>,
    compiler: FunctionCompiler,
    scratch: CompileScratch,
    /// Bodies submitted so far (the next one's sequence number).
    sent: usize,
    /// Bodies placed in the object so far.
    placed: usize,
    /// Compiled bodies waiting for the ones before them.
    waiting: std::collections::BTreeMap<usize, Compiled>,
}

impl Pool {
    /// `extra` compiling threads (besides the pipeline's own).
    fn new(compiler: FunctionCompiler, extra: usize) -> Pool {
        let queue = Arc::new(WorkQueue::new());
        let (done_tx, done) = std::sync::mpsc::channel();
        let mut threads = Vec::with_capacity(extra);
        for n in 1..=extra {
            let (queue, done, compiler) = (queue.clone(), done_tx.clone(), compiler.clone());
            let spawned = std::thread::Builder::new().name(format!("pexe-native-{n}")).spawn(move || {
                let mut scratch = CompileScratch::default();
                while let Some((seq, f)) = queue.pop(true) {
                    if done.send((seq, compiler.compile(&f, &mut scratch))).is_err() {
                        break;
                    }
                }
            });
            // A thread that cannot start leaves its share to the others
            // (the pipeline's thread compiles whatever is left).
            if let Ok(t) = spawned {
                threads.push(t);
            }
        }
        Pool {
            queue,
            done,
            threads,
            compiler,
            scratch: CompileScratch::default(),
            sent: 0,
            placed: 0,
            waiting: Default::default(),
        }
    }

    /// Queues a body, or compiles it here when the queue is full (which
    /// bounds the bodies held in memory and keeps this thread busy too).
    fn submit(&mut self, body: &Function) {
        let seq = self.sent;
        self.sent += 1;
        if self.queue.is_full() {
            let c = self.compiler.compile(body, &mut self.scratch);
            self.waiting.insert(seq, c);
        } else {
            self.queue.push((seq, body.clone()));
        }
    }

    /// Compiles what is left in the queue on this thread.
    fn help(&mut self) {
        while let Some((seq, f)) = self.queue.pop(false) {
            let c = self.compiler.compile(&f, &mut self.scratch);
            self.waiting.insert(seq, c);
        }
    }

    /// Places compiled bodies in order as far as they go; with `all`, waits
    /// for every submitted body.
    fn place_ready(&mut self, translator: &mut NativeTranslator, all: bool) -> Result<(), TranslateError> {
        loop {
            while let Ok((seq, c)) = self.done.try_recv() {
                self.waiting.insert(seq, c);
            }
            while let Some(c) = self.waiting.remove(&self.placed) {
                translator.define_compiled(c?)?;
                self.placed += 1;
            }
            if !all || self.placed == self.sent {
                return Ok(());
            }
            // The missing bodies are being compiled by the pool.
            match self.done.recv() {
                Ok((seq, c)) => {
                    self.waiting.insert(seq, c);
                }
                Err(_) => return Err(object_error("a compiling thread stopped early")),
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // After an error nothing more is wanted: drop the queued bodies and
        // let the threads end.
        self.queue.clear();
        self.queue.close();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Bodies waiting for a compiling thread.
struct WorkQueue {
    items: std::sync::Mutex<(std::collections::VecDeque<(usize, Function)>, bool)>,
    ready: std::sync::Condvar,
}

impl WorkQueue {
    /// Queued bodies beyond which the pipeline's thread compiles one itself.
    const MAX: usize = 64;

    fn new() -> Self {
        WorkQueue { items: std::sync::Mutex::new((Default::default(), false)), ready: std::sync::Condvar::new() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (std::collections::VecDeque<(usize, Function)>, bool)> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_full(&self) -> bool {
        self.lock().0.len() >= Self::MAX
    }

    fn push(&self, item: (usize, Function)) {
        self.lock().0.push_back(item);
        self.ready.notify_one();
    }

    fn clear(&self) {
        self.lock().0.clear();
    }

    /// No more bodies will come.
    fn close(&self) {
        self.lock().1 = true;
        self.ready.notify_all();
    }

    /// The next body; waits unless `wait` is false; None once closed and
    /// empty (or empty, without waiting).
    fn pop(&self, wait: bool) -> Option<(usize, Function)> {
        let mut q = self.lock();
        loop {
            if let Some(item) = q.0.pop_front() {
                return Some(item);
            }
            if q.1 || !wait {
                return None;
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Names of symbols: the pexe's own where it has one, made unique.
pub(crate) fn symbol_name_for(name: Option<&[u8]>, id: u32, taken: &mut HashSet<String>) -> String {
    let base = match name {
        Some(n) if !n.is_empty() => String::from_utf8_lossy(n).replace('\0', "?"),
        _ => format!("f{id}"),
    };
    // `__pexe…` names belong to the runtime and the object's own parts.
    let mut name = base.clone();
    if name.starts_with("__pexe") {
        name = format!("guest.{base}");
    }
    let mut n = 0;
    while taken.contains(&name) {
        n += 1;
        name = format!("{base}.{n}");
    }
    taken.insert(name.clone());
    name
}

/// Whether an object from this back end is a Pepper plugin's: its function
/// table names Pepper browser functions, which the native runtime does not
/// provide, so it cannot be linked into an executable.
pub fn object_is_pepper_plugin(object: &[u8]) -> bool {
    use cranelift_object::object::{Object as _, ObjectSymbol as _};
    let Ok(file) = cranelift_object::object::File::parse(object) else { return false };
    file.symbols().any(|s| s.is_undefined() && s.name().is_ok_and(|n| n.starts_with(rtabi::sym::PPB_PREFIX)))
}
