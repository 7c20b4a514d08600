//! One function body: verified PNaCl IR to a Cranelift function, then to
//! machine code.
//!
//! # Values
//!
//! The IR is already in SSA form with explicit phis, so each PNaCl value
//! becomes one Cranelift value and each phi a block parameter; blocks are
//! visited in reverse postorder, so a definition is always translated
//! before its uses. Blocks unreachable from the entry are left out (the
//! verifier lets their uses skip dominance, Cranelift would not).
//!
//! Types map one to one (`i8`, `i16`, `i32`, `i64`, `float`, `double` and
//! the four 128-bit vectors); `i1` is an `i8` holding 0 or 1, and an i1
//! vector is a mask of the same lane width (all ones or all zeros). Where
//! Cranelift's narrow-integer semantics differ from the wasm path's (shift
//! counts, signed division of `i8`/`i16`), the operation is done in 32
//! bits as the wasm path does, so both targets compute the same results.
//!
//! # Memory
//!
//! A load or store of guest address `p` accesses `base + zext(p)` (see
//! [`super::rtabi`]); `add p, C` with `0 <= C < 2^31` is folded into the
//! access's offset, which the guard region behind the guest window makes
//! safe. The base is read from the thread context once per function.
//!
//! # Functions that call setjmp
//!
//! `llvm.nacl.setjmp` returns twice, which Cranelift does not model. Such a
//! function is translated in "memory form": every value lives in its own
//! stack slot, stored when defined and loaded at each use, phis are
//! copies into their slots, and constants are rebuilt at each use. Nothing
//! the register allocator owns is then live across any call, so when the
//! native `_setjmp` the function calls returns a second time (the
//! runtime's longjmp), every value the code needs is in its slot. The
//! function's native jump buffers are one more slot, and the runtime only
//! jumps to buffers of frames that are still live (see `runtime/`).

use super::rtabi::{self, ctx as cx_off, trap};
use super::{Callee, ModuleCx, TranslateError};
use crate::ir::{
    BinOp, BlockId, CastOp, CmpPred, ConstValue, Function, Inst, InstKind, Scalar, ValType, ValueId, ValueRef,
};
use crate::verify::{Intrinsic, MemoryOrder, RmwOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::{
    self as cl, types, AbiParam, AtomicRmwOp, Block, BlockArg, ExtFuncData, ExternalName, FuncRef, GlobalValue,
    GlobalValueData, InstBuilder, MemFlagsData, SigRef, StackSlot, StackSlotData, StackSlotKind, TrapCode, Type,
    UserExternalName, UserFuncName, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch};
use std::collections::HashMap;

/// A Cranelift user trap code for one of [`rtabi::trap`].
pub(super) fn user_trap(code: u32) -> TrapCode {
    TrapCode::unwrap_user(code as u8)
}

/// The runtime ABI's trap code for a trap Cranelift recorded.
pub(super) fn trap_code(code: TrapCode) -> u32 {
    match code {
        TrapCode::HEAP_OUT_OF_BOUNDS => trap::MEMORY_OUT_OF_BOUNDS,
        TrapCode::INTEGER_DIVISION_BY_ZERO => trap::DIVIDE_BY_ZERO,
        TrapCode::INTEGER_OVERFLOW => trap::DIVIDE_OVERFLOW,
        TrapCode::STACK_OVERFLOW => trap::STACK_OVERFLOW,
        TrapCode::BAD_CONVERSION_TO_INTEGER => trap::BAD_CONVERSION,
        other => u32::from(other.as_raw().get()),
    }
}

/// The Cranelift type of a PNaCl value type.
pub fn cl_type(t: ValType) -> Type {
    match t {
        ValType::Scalar(s) => scalar_type(s),
        ValType::Vector { elem, lanes } => match (elem, lanes) {
            (Scalar::F32, _) => types::F32X4,
            (_, 4) => types::I32X4,
            (_, 8) => types::I16X8,
            _ => types::I8X16,
        },
    }
}

fn scalar_type(s: Scalar) -> Type {
    match s {
        Scalar::I1 | Scalar::I8 => types::I8,
        Scalar::I16 => types::I16,
        Scalar::I32 => types::I32,
        Scalar::I64 => types::I64,
        Scalar::F32 => types::F32,
        Scalar::F64 => types::F64,
    }
}

/// Flags of a guest memory access: may trap (out of bounds), unaligned.
fn guest_mem() -> MemFlagsData {
    MemFlagsData::new()
}

/// Flags of a context or table access: never traps.
fn host_mem() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// How a function's values are kept (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Ssa,
    Memory,
}

/// Where a static alloca of the entry block lives.
#[derive(Clone, Copy, Debug)]
struct FrameSlot {
    offset: u32,
}

/// Buffers reused from one function to the next (one per worker thread).
pub(super) struct FuncScratch {
    pub fctx: FunctionBuilderContext,
    pub ctx: cranelift_codegen::Context,
    vals: Vec<Option<Value>>,
    blocks: Vec<Option<Block>>,
    order: Vec<u32>,
    reachable: Vec<bool>,
    frame: Vec<Option<FrameSlot>>,
    phi_entries: Vec<Vec<(u32, ValueId)>>,
    phi_of: Vec<u32>,
    homes: Vec<Option<StackSlot>>,
}

impl Default for FuncScratch {
    fn default() -> Self {
        FuncScratch {
            fctx: FunctionBuilderContext::new(),
            ctx: cranelift_codegen::Context::new(),
            vals: Vec::new(),
            blocks: Vec::new(),
            order: Vec::new(),
            reachable: Vec::new(),
            frame: Vec::new(),
            phi_entries: Vec::new(),
            phi_of: Vec::new(),
            homes: Vec::new(),
        }
    }
}

/// Machine code of one function, ready to be placed in the object.
pub(super) struct Compiled {
    pub bytes: Vec<u8>,
    pub alignment: u64,
    pub relocs: Vec<cranelift_module::ModuleReloc>,
    /// (offset, [`rtabi::trap`] code), by offset.
    pub traps: Vec<(u32, u32)>,
}

/// Compiles `f` (whose object symbol is `func_id`, whose entry in the
/// function-info table is `info`).
pub(super) fn compile(
    cx: &ModuleCx,
    f: &Function,
    func_id: cranelift_module::FuncId,
    info: u32,
    s: &mut FuncScratch,
) -> Result<Compiled, TranslateError> {
    s.ctx.clear();
    let decl = cx.funcs.get(f.id.0 as usize).ok_or_else(|| unsupported(f, "a body of an undeclared function"))?;
    s.ctx.func.signature = cx.signature(&decl.params, decl.ret);
    s.ctx.func.name = UserFuncName::user(0, func_id.as_u32());
    let has_setjmp = f.insts.iter().any(|i| is_intrinsic_call(cx, i, Intrinsic::Setjmp));
    {
        let FuncScratch { fctx, ctx, .. } = s;
        let builder = FunctionBuilder::new(&mut ctx.func, fctx);
        let mut t = Translator {
            cx,
            f,
            b: builder,
            info,
            mode: if has_setjmp { Mode::Memory } else { Mode::Ssa },
            vals: std::mem::take(&mut s.vals),
            blocks: std::mem::take(&mut s.blocks),
            order: std::mem::take(&mut s.order),
            reachable: std::mem::take(&mut s.reachable),
            frame: std::mem::take(&mut s.frame),
            phi_entries: std::mem::take(&mut s.phi_entries),
            phi_of: std::mem::take(&mut s.phi_of),
            homes: std::mem::take(&mut s.homes),
            ctx_val: None,
            base_val: None,
            ctx_home: None,
            sp_home: None,
            frame_home: None,
            saved_sp: None,
            frame_base: None,
            frame_size: 0,
            frame_align: 1,
            store_sp: false,
            jmpbufs: None,
            setjmp_sites: Vec::new(),
            func_refs: HashMap::new(),
            sig_refs: HashMap::new(),
            table_gv: None,
        };
        let r = t.translate();
        s.vals = std::mem::take(&mut t.vals);
        s.blocks = std::mem::take(&mut t.blocks);
        s.order = std::mem::take(&mut t.order);
        s.reachable = std::mem::take(&mut t.reachable);
        s.frame = std::mem::take(&mut t.frame);
        s.phi_entries = std::mem::take(&mut t.phi_entries);
        s.phi_of = std::mem::take(&mut t.phi_of);
        s.homes = std::mem::take(&mut t.homes);
        r?;
        t.b.seal_all_blocks();
        t.b.finalize(cx.frontend);
    }
    let isa = if has_setjmp { &*cx.isa_plain } else { &*cx.isa };
    emit(f, func_id, isa, &mut s.ctx)
}

/// Runs Cranelift on the function in `ctx` and collects what the object
/// needs. A panic inside Cranelift becomes an error naming the function.
pub(super) fn emit(
    f: &Function,
    func_id: cranelift_module::FuncId,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    ctx: &mut cranelift_codegen::Context,
) -> Result<Compiled, TranslateError> {
    let mut plane = cranelift_codegen::control::ControlPlane::default();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ctx.compile(isa, &mut plane).map(|_| ()).map_err(|e| format!("{:?}", e.inner))
    }));
    match result {
        Ok(Ok(())) => {}
        Ok(Err(message)) => return Err(TranslateError::Codegen { function: f.id.0, message }),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic in the code generator".into());
            return Err(TranslateError::Codegen { function: f.id.0, message });
        }
    }
    let code = ctx.compiled_code().expect("compiled above");
    let buffer = &code.buffer;
    let relocs = buffer
        .relocs()
        .iter()
        .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &ctx.func, func_id))
        .collect();
    let mut traps: Vec<(u32, u32)> = buffer.traps().iter().map(|t| (t.offset, trap_code(t.code))).collect();
    traps.sort_unstable();
    Ok(Compiled { bytes: buffer.data().to_vec(), alignment: u64::from(buffer.alignment), relocs, traps })
}

fn unsupported(f: &Function, message: &str) -> TranslateError {
    TranslateError::Unsupported { function: f.id.0, message: message.to_string() }
}

/// Whether `inst` is a direct call of intrinsic `which`.
fn is_intrinsic_call(cx: &ModuleCx, inst: &Inst, which: Intrinsic) -> bool {
    matches!(&inst.kind, InstKind::Call { callee, .. }
        if matches!(cx.callee(*callee), Some(Callee::Intrinsic(i)) if i == which))
}

/// A phi's incoming value on the edge from a block: one edge per
/// predecessor (the verifier merged duplicates).
fn find_incoming(entries: &[(u32, ValueId)], pred: u32) -> Option<ValueId> {
    let at = entries.partition_point(|&(b, _)| b < pred);
    entries.get(at).filter(|&&(b, _)| b == pred).map(|&(_, v)| v)
}

struct Translator<'a, 'b> {
    cx: &'a ModuleCx,
    f: &'a Function,
    b: FunctionBuilder<'b>,
    /// This function's entry in the function-info table (fault messages).
    info: u32,
    mode: Mode,
    /// SSA form: the Cranelift value of each local value (params, consts,
    /// results) by `id - first_local`.
    vals: Vec<Option<Value>>,
    /// The Cranelift block of each reachable IR block.
    blocks: Vec<Option<Block>>,
    /// Reachable blocks in reverse postorder.
    order: Vec<u32>,
    reachable: Vec<bool>,
    /// Static allocas: offset in the frame, by local index.
    frame: Vec<Option<FrameSlot>>,
    /// Per phi (index into `phi_of`-numbered list): its entries by block.
    phi_entries: Vec<Vec<(u32, ValueId)>>,
    /// For each instruction, its phi number (`u32::MAX` if not a phi).
    phi_of: Vec<u32>,
    /// Memory form: each local value's slot.
    homes: Vec<Option<StackSlot>>,
    ctx_val: Option<Value>,
    base_val: Option<Value>,
    ctx_home: Option<StackSlot>,
    /// Memory form: slots of the saved stack pointer and the frame base.
    sp_home: Option<StackSlot>,
    frame_home: Option<StackSlot>,
    /// SSA form: the stack pointer at entry (restored at returns).
    saved_sp: Option<Value>,
    frame_base: Option<Value>,
    frame_size: u32,
    frame_align: u32,
    /// Whether the function moves the context's stack pointer (so callees
    /// and dynamic allocas allocate below its frame) and restores it.
    store_sp: bool,
    /// Memory form: the native jump buffers, one per setjmp call.
    jmpbufs: Option<StackSlot>,
    setjmp_sites: Vec<u32>,
    func_refs: HashMap<u32, FuncRef>,
    sig_refs: HashMap<Vec<u8>, SigRef>,
    table_gv: Option<GlobalValue>,
}

impl<'a, 'b> Translator<'a, 'b> {
    fn unsupported(&self, message: impl Into<String>) -> TranslateError {
        TranslateError::Unsupported { function: self.f.id.0, message: message.into() }
    }

    fn local_index(&self, v: ValueId) -> Option<usize> {
        let i = v.0.checked_sub(self.f.first_local)? as usize;
        (i < (self.f.end_value() - self.f.first_local) as usize).then_some(i)
    }

    fn ty(&self, v: ValueId) -> ValType {
        match self.f.value(v) {
            Some(ValueRef::Param(i)) => self.f.params[i as usize],
            Some(ValueRef::Const(i)) => self.f.consts[i as usize].ty,
            Some(ValueRef::Inst(i)) => self.f.insts[i.0 as usize].result.map_or(ValType::I32, |(_, t)| t),
            // Functions and globals are i32 addresses.
            _ => ValType::I32,
        }
    }

    fn const_int(&self, v: ValueId) -> Option<i64> {
        match self.f.value(v)? {
            ValueRef::Const(i) => match self.f.consts.get(i as usize)?.value {
                ConstValue::Int(x) => Some(x),
                _ => None,
            },
            _ => None,
        }
    }

    // ------------------------------------------------------------------
    // Setup

    fn translate(&mut self) -> Result<(), TranslateError> {
        let f = self.f;
        let nvals = (f.end_value() - f.first_local) as usize;
        self.vals.clear();
        self.vals.resize(nvals, None);
        self.homes.clear();
        self.homes.resize(nvals, None);
        self.frame.clear();
        self.frame.resize(nvals, None);

        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params: Vec<Value> = self.b.block_params(entry).to_vec();
        let ctx = params[0];
        if f.blocks.is_empty() {
            // An empty body (the verifier accepts it): calling it traps.
            self.b.ins().trap(user_trap(trap::UNREACHABLE));
            return Ok(());
        }
        for blk in &f.blocks {
            if blk.start >= blk.end || blk.end as usize > f.insts.len() {
                return Err(self.unsupported("a basic block without instructions"));
            }
        }
        self.compute_order()?;
        self.collect_phis();

        // The context and the memory base.
        match self.mode {
            Mode::Ssa => {
                self.ctx_val = Some(ctx);
                let base = self.b.ins().load(types::I64, host_mem().with_readonly(), ctx, cx_off::MEM_BASE);
                self.base_val = Some(base);
            }
            Mode::Memory => {
                let slot = self.slot(8, 3);
                self.b.ins().stack_store(types::I64, ctx, slot, 0);
                self.ctx_home = Some(slot);
            }
        }
        // Parameters.
        for (i, &p) in params[1..].iter().enumerate() {
            if i < f.params.len() {
                self.def(ValueId(f.first_local + i as u32), p);
            }
        }
        self.plan_frame();
        self.emit_prologue();

        // Blocks: create them (with phi parameters), then fill them.
        self.blocks.clear();
        self.blocks.resize(f.blocks.len(), None);
        for k in 0..self.order.len() {
            let bi = self.order[k];
            let blk = self.b.create_block();
            self.blocks[bi as usize] = Some(blk);
            if self.mode == Mode::Ssa {
                for inst in self.f.block_insts(BlockId(bi)) {
                    let InstKind::Phi { ty, .. } = inst.kind else { break };
                    self.b.append_block_param(blk, cl_type(ty));
                }
            }
        }
        let first = self.blocks[0].expect("the entry is reachable");
        self.b.ins().jump(first, &[]);

        for k in 0..self.order.len() {
            let bi = self.order[k];
            self.translate_block(bi)?;
        }
        Ok(())
    }

    /// Reachable blocks in reverse postorder (iterative DFS).
    fn compute_order(&mut self) -> Result<(), TranslateError> {
        let f = self.f;
        let n = f.blocks.len();
        self.reachable.clear();
        self.reachable.resize(n, false);
        self.order.clear();
        let mut post: Vec<u32> = Vec::with_capacity(n);
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        self.reachable[0] = true;
        let mut succs: Vec<BlockId> = Vec::new();
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            succs.clear();
            if let Some(term) = f.terminator(BlockId(b)) {
                succs.extend(term.kind.successors(f));
            }
            if *next < succs.len() {
                let s = succs[*next].0;
                *next += 1;
                if s as usize >= n {
                    return Err(self.unsupported("a branch to a block that does not exist"));
                }
                if !self.reachable[s as usize] {
                    self.reachable[s as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        self.order = post;
        Ok(())
    }

    /// Sorts each phi's entries by block for lookup on each edge.
    fn collect_phis(&mut self) {
        let f = self.f;
        self.phi_of.clear();
        self.phi_of.resize(f.insts.len(), u32::MAX);
        let mut n = 0usize;
        for (k, inst) in f.insts.iter().enumerate() {
            let InstKind::Phi { incoming, .. } = &inst.kind else { continue };
            if self.phi_entries.len() <= n {
                self.phi_entries.push(Vec::new());
            }
            let e = &mut self.phi_entries[n];
            e.clear();
            e.extend(f.incoming(*incoming).iter().map(|&(v, b)| (b.0, v)));
            e.sort_unstable_by_key(|&(b, _)| b);
            self.phi_of[k] = n as u32;
            n += 1;
        }
    }

    /// Static allocas (constant size, entry block) get frame offsets;
    /// decides whether the context's stack pointer is moved.
    fn plan_frame(&mut self) {
        let f = self.f;
        let entry = f.blocks[0];
        let mut offset: u64 = 0;
        let mut max_align: u32 = 1;
        let mut dynamic = false;
        let mut calls = false;
        for (k, inst) in f.insts.iter().enumerate() {
            match &inst.kind {
                InstKind::Alloca { size, align } => {
                    let in_entry = (entry.start..entry.end).contains(&(k as u32));
                    let fixed = self.const_int(*size).map(|s| s as u32 as u64);
                    let align = (*align).max(1);
                    match (in_entry, fixed, inst.result) {
                        (true, Some(sz), Some((v, _))) if align.is_power_of_two() && align <= 1 << 16 => {
                            let at = offset.div_ceil(u64::from(align)) * u64::from(align);
                            if at + sz <= 1 << 30 {
                                if let Some(i) = self.local_index(v) {
                                    self.frame[i] = Some(FrameSlot { offset: at as u32 });
                                    offset = at + sz;
                                    max_align = max_align.max(align);
                                    continue;
                                }
                            }
                            dynamic = true;
                        }
                        _ => dynamic = true,
                    }
                }
                InstKind::Call { callee, .. } => match self.cx.callee(*callee) {
                    Some(Callee::Intrinsic(Intrinsic::Stacksave | Intrinsic::Stackrestore | Intrinsic::Setjmp)) => {
                        calls = true
                    }
                    Some(Callee::Intrinsic(_)) => {}
                    _ => calls = true,
                },
                InstKind::CallIndirect { .. } => calls = true,
                _ => {}
            }
        }
        let has_frame = self.frame.iter().any(Option::is_some);
        if has_frame {
            self.frame_size = (offset.div_ceil(u64::from(max_align)) * u64::from(max_align)) as u32;
            self.frame_align = max_align;
        }
        // The context's stack pointer moves below this frame when anything
        // else may allocate while it is live (a callee, a dynamic alloca;
        // stacksave/stackrestore/setjmp count as calls), and whenever the
        // function moves it (a dynamic alloca, stackrestore); it is put
        // back at every return. Otherwise the frame is carved below it
        // without telling anyone.
        let restores = f.insts.iter().any(|i| is_intrinsic_call(self.cx, i, Intrinsic::Stackrestore));
        self.store_sp = dynamic || (has_frame && calls) || restores;
        self.frame_base = None;
    }

    /// Reads the stack pointer, allocates the static frame, checks it
    /// against the limit.
    fn emit_prologue(&mut self) {
        let has_frame = self.frame_size > 0 || self.frame.iter().any(Option::is_some);
        if !has_frame && !self.store_sp {
            return;
        }
        let ctx = self.ctx();
        let sp = self.b.ins().load(types::I32, host_mem(), ctx, cx_off::STACK_POINTER);
        let mut frame = sp;
        if has_frame {
            frame = self.b.ins().iadd_imm_s(sp, -i64::from(self.frame_size));
            if self.frame_align > 1 {
                frame = self.b.ins().band_imm_s(frame, -i64::from(self.frame_align));
            }
            let limit = self.b.ins().load(types::I32, host_mem(), ctx, cx_off::STACK_LIMIT);
            let below = self.b.ins().icmp(IntCC::UnsignedLessThan, frame, limit);
            let wrapped = self.b.ins().icmp(IntCC::UnsignedGreaterThan, frame, sp);
            let bad = self.b.ins().bor(below, wrapped);
            self.b.ins().trapnz(bad, user_trap(trap::ALLOCA_OVERFLOW));
            if self.store_sp {
                self.b.ins().store(host_mem(), frame, ctx, cx_off::STACK_POINTER);
            }
        }
        match self.mode {
            Mode::Ssa => {
                self.saved_sp = Some(sp);
                self.frame_base = Some(frame);
            }
            Mode::Memory => {
                let s = self.slot(4, 2);
                self.b.ins().stack_store(types::I64, sp, s, 0);
                self.sp_home = Some(s);
                let fs = self.slot(4, 2);
                self.b.ins().stack_store(types::I64, frame, fs, 0);
                self.frame_home = Some(fs);
            }
        }
    }

    fn slot(&mut self, size: u32, align_log2: u8) -> StackSlot {
        self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, align_log2))
    }

    // ------------------------------------------------------------------
    // Values

    /// The thread context.
    fn ctx(&mut self) -> Value {
        match self.mode {
            Mode::Ssa => self.ctx_val.expect("set at entry"),
            Mode::Memory => {
                let slot = self.ctx_home.expect("set at entry");
                self.b.ins().stack_load(types::I64, types::I64, slot, 0)
            }
        }
    }

    /// The memory base.
    fn base(&mut self) -> Value {
        match self.mode {
            Mode::Ssa => self.base_val.expect("set at entry"),
            Mode::Memory => {
                let ctx = self.ctx();
                self.b.ins().load(types::I64, host_mem().with_readonly(), ctx, cx_off::MEM_BASE)
            }
        }
    }

    fn frame_base(&mut self) -> Value {
        match self.mode {
            Mode::Ssa => self.frame_base.expect("frame set up"),
            Mode::Memory => {
                let s = self.frame_home.expect("frame set up");
                self.b.ins().stack_load(types::I64, types::I32, s, 0)
            }
        }
    }

    fn saved_sp(&mut self) -> Option<Value> {
        match self.mode {
            Mode::Ssa => self.saved_sp,
            Mode::Memory => {
                let s = self.sp_home?;
                Some(self.b.ins().stack_load(types::I64, types::I32, s, 0))
            }
        }
    }

    /// Records the definition of local value `v`.
    fn def(&mut self, v: ValueId, x: Value) {
        let Some(i) = self.local_index(v) else { return };
        match self.mode {
            Mode::Ssa => self.vals[i] = Some(x),
            Mode::Memory => {
                let ty = self.b.func.dfg.value_type(x);
                let slot = self.home(i, ty);
                self.b.ins().stack_store(types::I64, x, slot, 0);
            }
        }
    }

    fn home(&mut self, i: usize, ty: Type) -> StackSlot {
        if let Some(s) = self.homes[i] {
            return s;
        }
        let bytes = ty.bytes();
        let s = self.slot(bytes.max(4), bytes.max(4).trailing_zeros() as u8);
        self.homes[i] = Some(s);
        s
    }

    /// The value of `v` at the current position.
    fn get(&mut self, v: ValueId) -> Value {
        let m = self.cx.module;
        if let Some(fid) = m.func_of(v) {
            return self.b.ins().iconst(types::I32, i64::from(self.cx.pexe_table_base + fid.0));
        }
        if let Some(g) = m.global_of(v) {
            let a = self.cx.global_addrs.get(g.0 as usize).copied().unwrap_or(0);
            return self.b.ins().iconst(types::I32, i64::from(a as i32));
        }
        let Some(i) = self.local_index(v) else {
            return self.b.ins().iconst(types::I32, 0);
        };
        match self.f.value(v) {
            Some(ValueRef::Const(c)) => return self.constant(c as usize),
            Some(ValueRef::Inst(_)) if self.frame[i].is_some() => {
                let off = self.frame[i].map_or(0, |s| s.offset);
                let fb = self.frame_base();
                return if off == 0 { fb } else { self.b.ins().iadd_imm_s(fb, i64::from(off)) };
            }
            _ => {}
        }
        let ty = cl_type(self.ty(v));
        match self.mode {
            Mode::Ssa => match self.vals[i] {
                Some(x) => x,
                // Only reachable through dead code: any value will do.
                None => self.zero(ty),
            },
            Mode::Memory => match self.homes[i] {
                Some(slot) => self.b.ins().stack_load(types::I64, ty, slot, 0),
                None => self.zero(ty),
            },
        }
    }

    fn constant(&mut self, c: usize) -> Value {
        let k = self.f.consts[c];
        let ty = cl_type(k.ty);
        match (k.value, k.ty) {
            (ConstValue::Int(x), ValType::Scalar(s)) => {
                let x = match s {
                    Scalar::I1 => x & 1,
                    Scalar::I8 => x & 0xff,
                    Scalar::I16 => x & 0xffff,
                    Scalar::I32 => x & 0xffff_ffff,
                    _ => x,
                };
                self.b.ins().iconst(ty, x)
            }
            (ConstValue::Float(bits), ValType::Scalar(Scalar::F32)) => {
                self.b.ins().f32const(Ieee32::with_bits(bits as u32))
            }
            (ConstValue::Float(bits), ValType::Scalar(Scalar::F64)) => {
                self.b.ins().f64const(Ieee64::with_bits(bits))
            }
            _ => self.zero(ty),
        }
    }

    fn zero(&mut self, ty: Type) -> Value {
        if ty.is_vector() {
            let c = self.b.func.dfg.constants.insert(vec![0u8; 16].into());
            self.b.ins().vconst(ty, c)
        } else if ty == types::F32 {
            self.b.ins().f32const(Ieee32::with_bits(0))
        } else if ty == types::F64 {
            self.b.ins().f64const(Ieee64::with_bits(0))
        } else {
            self.b.ins().iconst(ty, 0)
        }
    }

    fn vconst(&mut self, ty: Type, bytes: [u8; 16]) -> Value {
        let c = self.b.func.dfg.constants.insert(bytes.to_vec().into());
        self.b.ins().vconst(ty, c)
    }

    // ------------------------------------------------------------------
    // Blocks and edges

    fn translate_block(&mut self, bi: u32) -> Result<(), TranslateError> {
        let f = self.f;
        let blk = self.blocks[bi as usize].expect("created");
        self.b.switch_to_block(blk);
        let insts = f.block_insts(BlockId(bi));
        let mut k0 = f.blocks[bi as usize].start as usize;
        // Phis: block parameters (SSA form), slots already written by the
        // predecessors' copies (memory form).
        for (p, inst) in insts.iter().enumerate() {
            if !matches!(inst.kind, InstKind::Phi { .. }) {
                break;
            }
            if self.mode == Mode::Ssa {
                let x = self.b.block_params(blk)[p];
                if let Some((v, _)) = inst.result {
                    self.def(v, x);
                }
            }
            k0 += 1;
        }
        let end = f.blocks[bi as usize].end as usize;
        for k in k0..end {
            let inst = &f.insts[k];
            if inst.kind.is_terminator() {
                self.terminator(bi, inst)?;
                if k + 1 != end {
                    return Err(self.unsupported("a terminator in the middle of a block"));
                }
                return Ok(());
            }
            self.instruction(k, inst)?;
        }
        Err(self.unsupported("a block without a terminator"))
    }

    /// The phi arguments of the edge `pred → succ` (SSA form).
    fn edge_args(&mut self, pred: u32, succ: u32) -> Vec<BlockArg> {
        let f = self.f;
        let mut args = Vec::new();
        let blk = f.blocks[succ as usize];
        for k in blk.start..blk.end {
            let inst = &f.insts[k as usize];
            let InstKind::Phi { ty, .. } = inst.kind else { break };
            let n = self.phi_of[k as usize] as usize;
            let v = find_incoming(&self.phi_entries[n], pred);
            let x = match v {
                Some(v) if !self.is_undef(v) => self.get(v),
                _ => self.zero(cl_type(ty)),
            };
            args.push(BlockArg::Value(x));
        }
        args
    }

    fn is_undef(&self, v: ValueId) -> bool {
        matches!(self.f.value(v), Some(ValueRef::Const(c)) if self.f.consts[c as usize].value == ConstValue::Undef)
    }

    fn has_phis(&self, succ: u32) -> bool {
        let blk = self.f.blocks[succ as usize];
        matches!(self.f.insts[blk.start as usize].kind, InstKind::Phi { .. })
    }

    /// Memory form: the phi copies of edge `pred → succ` (all sources read,
    /// then all slots written).
    fn edge_copies(&mut self, pred: u32, succ: u32) {
        let f = self.f;
        let blk = f.blocks[succ as usize];
        let mut moves: Vec<(ValueId, Value)> = Vec::new();
        for k in blk.start..blk.end {
            let inst = &f.insts[k as usize];
            let InstKind::Phi { ty, .. } = inst.kind else { break };
            let Some((dst, _)) = inst.result else { continue };
            let n = self.phi_of[k as usize] as usize;
            let x = match find_incoming(&self.phi_entries[n], pred) {
                Some(v) if !self.is_undef(v) => self.get(v),
                _ => self.zero(cl_type(ty)),
            };
            moves.push((dst, x));
        }
        for (dst, x) in moves {
            self.def(dst, x);
        }
    }

    /// A block to branch to for edge `pred → succ`, and its arguments.
    /// Memory form with phis: a new block holding the copies (filled by
    /// [`Self::fill_edge`] once the branch is emitted).
    fn edge(&mut self, pred: u32, succ: u32, pending: &mut Vec<(Block, u32)>) -> (Block, Vec<BlockArg>) {
        let target = self.blocks[succ as usize].expect("successors of reachable blocks are reachable");
        match self.mode {
            Mode::Ssa => {
                let args = self.edge_args(pred, succ);
                (target, args)
            }
            Mode::Memory => {
                if self.has_phis(succ) {
                    let e = self.b.create_block();
                    pending.push((e, succ));
                    (e, Vec::new())
                } else {
                    (target, Vec::new())
                }
            }
        }
    }

    fn fill_edges(&mut self, pred: u32, pending: Vec<(Block, u32)>) {
        for (e, succ) in pending {
            self.b.switch_to_block(e);
            self.edge_copies(pred, succ);
            let target = self.blocks[succ as usize].expect("reachable");
            self.b.ins().jump(target, &[]);
        }
    }

    fn terminator(&mut self, bi: u32, inst: &Inst) -> Result<(), TranslateError> {
        let mut pending = Vec::new();
        match &inst.kind {
            InstKind::Ret { value } => {
                let v = value.map(|v| self.get(v));
                self.epilogue();
                match v {
                    Some(v) => self.b.ins().return_(&[v]),
                    None => self.b.ins().return_(&[]),
                };
            }
            InstKind::Br { target } => {
                let (blk, args) = self.edge(bi, target.0, &mut pending);
                self.b.ins().jump(blk, &args);
            }
            InstKind::CondBr { cond, if_true, if_false } => {
                let c = self.get(*cond);
                let (t, targs) = self.edge(bi, if_true.0, &mut pending);
                let (e, eargs) = if if_false == if_true {
                    (t, targs.clone())
                } else {
                    self.edge(bi, if_false.0, &mut pending)
                };
                self.b.ins().brif(c, t, &targs, e, &eargs);
            }
            InstKind::Switch { ty, cond, default, cases } => {
                let c = self.get(*cond);
                let width = ty.elem().bits();
                let c = if width < 32 { self.b.ins().uextend(types::I32, c) } else { c };
                // One edge block per distinct target that needs arguments.
                let mut target_block: HashMap<u32, Block> = HashMap::new();
                let mut edges: Vec<(Block, Block, Vec<BlockArg>)> = Vec::new();
                let mut via = |t: &mut Self, succ: u32, pending: &mut Vec<(Block, u32)>| -> Block {
                    if let Some(&b) = target_block.get(&succ) {
                        return b;
                    }
                    let (blk, args) = t.edge(bi, succ, pending);
                    let b = if args.is_empty() {
                        blk
                    } else {
                        let e = t.b.create_block();
                        edges.push((e, blk, args));
                        e
                    };
                    target_block.insert(succ, b);
                    b
                };
                let dflt = via(self, default.0, &mut pending);
                let mut sw = Switch::new();
                let mask: u128 = if width >= 64 { u64::MAX as u128 } else { (1u128 << width) - 1 };
                let f = self.f;
                for case in f.cases(*cases) {
                    let b = via(self, case.target.0, &mut pending);
                    sw.set_entry(case.value as u64 as u128 & mask, b);
                }
                sw.emit(&mut self.b, c, dflt);
                for (e, target, args) in edges {
                    self.b.switch_to_block(e);
                    self.b.ins().jump(target, &args);
                }
            }
            InstKind::Unreachable => {
                self.b.ins().trap(user_trap(trap::UNREACHABLE));
            }
            _ => return Err(self.unsupported("a non-terminator ends a block")),
        }
        self.fill_edges(bi, pending);
        Ok(())
    }

    /// Before a return: the caller's stack pointer back; in memory form,
    /// the frame's setjmps forgotten.
    fn epilogue(&mut self) {
        if self.store_sp {
            if let Some(sp) = self.saved_sp() {
                let ctx = self.ctx();
                self.b.ins().store(host_mem(), sp, ctx, cx_off::STACK_POINTER);
            }
        }
        if let Some(slot) = self.jmpbufs {
            let n = self.setjmp_sites.len().max(1) as i64;
            let lo = self.b.ins().stack_addr(types::I64, slot, 0);
            let hi = self.b.ins().iadd_imm_s(lo, n * i64::from(rtabi::JMPBUF_SIZE));
            let ctx = self.ctx();
            let leave = self.helper(|r| &r.setjmp_leave);
            self.b.ins().call(leave, &[ctx, lo, hi]);
        }
    }

    // ------------------------------------------------------------------
    // Instructions

    fn instruction(&mut self, k: usize, inst: &Inst) -> Result<(), TranslateError> {
        use InstKind::*;
        let result = match &inst.kind {
            Binop { op, lhs, rhs, .. } => Some(self.binop(*op, *lhs, *rhs)),
            Cast { op, value, to } => Some(self.cast(*op, *value, *to)),
            Cmp { pred, lhs, rhs } => Some(self.cmp(*pred, *lhs, *rhs)),
            Select { cond, if_true, if_false } => {
                let c = self.get(*cond);
                let a = self.get(*if_true);
                let b = self.get(*if_false);
                if self.ty(*cond).is_vector() {
                    let ty = self.b.func.dfg.value_type(a);
                    let mask = self.bitcast_vector(c, ty);
                    Some(self.b.ins().bitselect(mask, a, b))
                } else {
                    Some(self.b.ins().select(c, a, b))
                }
            }
            ExtractElement { vector, index } => {
                let lane = self.const_int(*index).unwrap_or(0) as u8;
                let v = self.get(*vector);
                let x = self.b.ins().extractlane(v, lane);
                if self.ty(*vector).elem() == Scalar::I1 {
                    let ty = self.b.func.dfg.value_type(x);
                    let one = self.b.ins().band_imm_s(x, 1);
                    Some(if ty == types::I8 { one } else { self.b.ins().ireduce(types::I8, one) })
                } else {
                    Some(x)
                }
            }
            InsertElement { vector, element, index } => {
                let lane = self.const_int(*index).unwrap_or(0) as u8;
                let v = self.get(*vector);
                let mut e = self.get(*element);
                if self.ty(*vector).elem() == Scalar::I1 {
                    let lane_ty = self.b.func.dfg.value_type(v).lane_type();
                    if lane_ty != types::I8 {
                        e = self.b.ins().uextend(lane_ty, e);
                    }
                    e = self.b.ins().ineg(e);
                }
                Some(self.b.ins().insertlane(v, e, lane))
            }
            Alloca { size, align } => {
                let Some((v, _)) = inst.result else { return Ok(()) };
                match self.local_index(v).and_then(|i| self.frame[i]) {
                    Some(_) => None, // static: its value is frame + offset
                    None => Some(self.dynamic_alloca(*size, *align)),
                }
            }
            Load { ptr, ty, .. } => {
                let addr = self.address(*ptr);
                let (a, off) = addr;
                Some(self.b.ins().load(cl_type(*ty), guest_mem(), a, off))
            }
            Store { ptr, value, .. } => {
                let x = self.get(*value);
                let (a, off) = self.address(*ptr);
                self.b.ins().store(guest_mem(), x, a, off);
                None
            }
            Call { callee, args, ret, .. } => {
                let f = self.f;
                self.call(k, *callee, f.args(*args), *ret)?
            }
            CallIndirect { callee, args, ret, .. } => {
                let f = self.f;
                self.call_indirect(*callee, f.args(*args), *ret)
            }
            Phi { .. } => return Err(self.unsupported("a phi after the start of its block")),
            _ => return Err(self.unsupported("a terminator in the middle of a block")),
        };
        if let (Some(x), Some((v, _))) = (result, inst.result) {
            self.def(v, x);
        }
        Ok(())
    }

    /// The host address and constant offset of guest pointer `ptr`.
    fn address(&mut self, ptr: ValueId) -> (Value, i32) {
        // `add p, C` with a small non-negative C: fold C into the access.
        let mut offset = 0i64;
        let mut p = ptr;
        if let Some(ValueRef::Inst(id)) = self.f.value(ptr) {
            if let InstKind::Binop { op: BinOp::Add, lhs, rhs, .. } = self.f.insts[id.0 as usize].kind {
                if self.ty(ptr) == ValType::I32 {
                    let (c, other) = match (self.const_int(rhs), self.const_int(lhs)) {
                        (Some(c), _) => (Some(c), lhs),
                        (None, Some(c)) => (Some(c), rhs),
                        _ => (None, ptr),
                    };
                    if let Some(c) = c {
                        let c = c as i32 as i64;
                        if (0..=rtabi::MAX_FOLDED_OFFSET).contains(&c) && self.is_available(other) {
                            offset = c;
                            p = other;
                        }
                    }
                }
            }
        }
        let x = self.get(p);
        let wide = self.b.ins().uextend(types::I64, x);
        let base = self.base();
        let a = self.b.ins().iadd(base, wide);
        (a, offset as i32)
    }

    /// Whether `v` can be read here (a constant, a module value, or a
    /// local already defined; folding must not read an operand of an
    /// instruction in a block that does not dominate this one — it always
    /// does here, since the add itself dominates the access).
    fn is_available(&self, v: ValueId) -> bool {
        match self.local_index(v) {
            None => true,
            Some(i) => match self.f.value(v) {
                Some(ValueRef::Const(_)) => true,
                _ => match self.mode {
                    Mode::Ssa => self.vals[i].is_some() || self.frame[i].is_some(),
                    Mode::Memory => self.homes[i].is_some() || self.frame[i].is_some(),
                },
            },
        }
    }

    /// `sp = (sp - size) & -align`, checked against the limit.
    fn dynamic_alloca(&mut self, size: ValueId, align: u32) -> Value {
        let n = self.get(size);
        let ctx = self.ctx();
        let sp = self.b.ins().load(types::I32, host_mem(), ctx, cx_off::STACK_POINTER);
        let mut new = self.b.ins().isub(sp, n);
        if align > 1 {
            new = self.b.ins().band_imm_s(new, -i64::from(align));
        }
        let limit = self.b.ins().load(types::I32, host_mem(), ctx, cx_off::STACK_LIMIT);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, new, limit);
        let wrapped = self.b.ins().icmp(IntCC::UnsignedGreaterThan, new, sp);
        let bad = self.b.ins().bor(below, wrapped);
        self.b.ins().trapnz(bad, user_trap(trap::ALLOCA_OVERFLOW));
        self.b.ins().store(host_mem(), new, ctx, cx_off::STACK_POINTER);
        new
    }

    fn binop(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) -> Value {
        let t = self.ty(lhs);
        let a = self.get(lhs);
        let b = self.get(rhs);
        match t {
            ValType::Scalar(s) if s.is_float() => self.float_binop(op, s, a, b),
            ValType::Scalar(s) => self.int_binop(op, s, a, b),
            ValType::Vector { elem, lanes } => self.vector_binop(op, elem, lanes, a, b),
        }
    }

    fn int_binop(&mut self, op: BinOp, s: Scalar, a: Value, b: Value) -> Value {
        use BinOp::*;
        let narrow = matches!(s, Scalar::I8 | Scalar::I16);
        let ty = scalar_type(s);
        match op {
            Add => self.b.ins().iadd(a, b),
            Sub => self.b.ins().isub(a, b),
            Mul => self.b.ins().imul(a, b),
            And => self.b.ins().band(a, b),
            Or => self.b.ins().bor(a, b),
            Xor => self.b.ins().bxor(a, b),
            UDiv => self.b.ins().udiv(a, b),
            URem => self.b.ins().urem(a, b),
            SDiv | SRem if narrow => {
                let x = self.b.ins().sextend(types::I32, a);
                let y = self.b.ins().sextend(types::I32, b);
                let r = if op == SDiv { self.b.ins().sdiv(x, y) } else { self.b.ins().srem(x, y) };
                self.b.ins().ireduce(ty, r)
            }
            SDiv => self.b.ins().sdiv(a, b),
            SRem => self.b.ins().srem(a, b),
            Shl | LShr | AShr if narrow => {
                let x = if op == AShr {
                    self.b.ins().sextend(types::I32, a)
                } else {
                    self.b.ins().uextend(types::I32, a)
                };
                let n = self.b.ins().uextend(types::I32, b);
                let r = match op {
                    Shl => self.b.ins().ishl(x, n),
                    LShr => self.b.ins().ushr(x, n),
                    _ => self.b.ins().sshr(x, n),
                };
                self.b.ins().ireduce(ty, r)
            }
            Shl => self.b.ins().ishl(a, b),
            LShr => self.b.ins().ushr(a, b),
            AShr => self.b.ins().sshr(a, b),
        }
    }

    fn float_binop(&mut self, op: BinOp, s: Scalar, a: Value, b: Value) -> Value {
        match op {
            BinOp::Add => self.b.ins().fadd(a, b),
            BinOp::Sub => self.b.ins().fsub(a, b),
            BinOp::Mul => self.b.ins().fmul(a, b),
            BinOp::SDiv => self.b.ins().fdiv(a, b),
            // frem: C fmod in double precision (as the wasm path does).
            _ => {
                let (x, y) = if s == Scalar::F32 {
                    (self.b.ins().fpromote(types::F64, a), self.b.ins().fpromote(types::F64, b))
                } else {
                    (a, b)
                };
                let fmod = self.helper(|r| &r.fmod);
                let call = self.b.ins().call(fmod, &[x, y]);
                let r = self.b.inst_results(call)[0];
                if s == Scalar::F32 {
                    self.b.ins().fdemote(types::F32, r)
                } else {
                    r
                }
            }
        }
    }

    fn vector_binop(&mut self, op: BinOp, elem: Scalar, lanes: u32, a: Value, b: Value) -> Value {
        use BinOp::*;
        match (op, elem) {
            (And, _) => return self.b.ins().band(a, b),
            (Or, _) => return self.b.ins().bor(a, b),
            (Xor, _) => return self.b.ins().bxor(a, b),
            (Add, Scalar::F32) => return self.b.ins().fadd(a, b),
            (Sub, Scalar::F32) => return self.b.ins().fsub(a, b),
            (Mul, Scalar::F32) => return self.b.ins().fmul(a, b),
            (SDiv, Scalar::F32) => return self.b.ins().fdiv(a, b),
            (Add, e) if e != Scalar::I1 => return self.b.ins().iadd(a, b),
            (Sub, e) if e != Scalar::I1 => return self.b.ins().isub(a, b),
            (Mul, Scalar::I16 | Scalar::I32) => return self.b.ins().imul(a, b),
            _ => {}
        }
        // Lane by lane, in 32 bits (f32 lanes through double for frem), as
        // the wasm path does.
        let vty = self.b.func.dfg.value_type(a);
        let lane_ty = vty.lane_type();
        let mut out = a;
        for lane in 0..lanes as u8 {
            let x = self.b.ins().extractlane(a, lane);
            let y = self.b.ins().extractlane(b, lane);
            let r = if elem == Scalar::F32 {
                self.float_binop(op, Scalar::F32, x, y)
            } else {
                let signed = matches!(op, SDiv | SRem | AShr);
                let wide = |t: &mut Self, v: Value, signed: bool| {
                    if lane_ty == types::I32 {
                        v
                    } else if signed {
                        t.b.ins().sextend(types::I32, v)
                    } else {
                        t.b.ins().uextend(types::I32, v)
                    }
                };
                let xw = wide(self, x, signed);
                let yw = wide(self, y, signed && matches!(op, SDiv | SRem));
                let r = self.int_binop(op, Scalar::I32, xw, yw);
                if lane_ty == types::I32 {
                    r
                } else {
                    self.b.ins().ireduce(lane_ty, r)
                }
            };
            out = self.b.ins().insertlane(out, r, lane);
        }
        out
    }

    fn cmp(&mut self, pred: CmpPred, lhs: ValueId, rhs: ValueId) -> Value {
        let t = self.ty(lhs);
        let a = self.get(lhs);
        let b = self.get(rhs);
        if t.is_vector() {
            return self.vector_cmp(pred, t, a, b);
        }
        use CmpPred::*;
        let fcc = match pred {
            FFalse => return self.b.ins().iconst(types::I8, 0),
            FTrue => return self.b.ins().iconst(types::I8, 1),
            FOeq => FloatCC::Equal,
            FOgt => FloatCC::GreaterThan,
            FOge => FloatCC::GreaterThanOrEqual,
            FOlt => FloatCC::LessThan,
            FOle => FloatCC::LessThanOrEqual,
            FOne => FloatCC::OrderedNotEqual,
            FOrd => FloatCC::Ordered,
            FUno => FloatCC::Unordered,
            FUeq => FloatCC::UnorderedOrEqual,
            FUgt => FloatCC::UnorderedOrGreaterThan,
            FUge => FloatCC::UnorderedOrGreaterThanOrEqual,
            FUlt => FloatCC::UnorderedOrLessThan,
            FUle => FloatCC::UnorderedOrLessThanOrEqual,
            FUne => FloatCC::NotEqual,
            _ => return self.b.ins().icmp(int_cc(pred), a, b),
        };
        self.b.ins().fcmp(fcc, a, b)
    }

    fn vector_cmp(&mut self, pred: CmpPred, t: ValType, a: Value, b: Value) -> Value {
        use CmpPred::*;
        if t.elem().is_int() {
            return self.b.ins().icmp(int_cc(pred), a, b);
        }
        // Float vectors: the six ordered compares every target has, and
        // their combinations; the result is an i32x4 mask.
        let f = |t: &mut Self, cc: FloatCC, x: Value, y: Value| {
            let m = t.b.ins().fcmp(cc, x, y);
            t.bitcast_vector(m, types::I32X4)
        };
        match pred {
            FFalse => self.vconst(types::I32X4, [0; 16]),
            FTrue => self.vconst(types::I32X4, [0xff; 16]),
            FOeq => f(self, FloatCC::Equal, a, b),
            FOgt => f(self, FloatCC::GreaterThan, a, b),
            FOge => f(self, FloatCC::GreaterThanOrEqual, a, b),
            FOlt => f(self, FloatCC::LessThan, a, b),
            FOle => f(self, FloatCC::LessThanOrEqual, a, b),
            FUne => f(self, FloatCC::NotEqual, a, b),
            FUgt => {
                let m = f(self, FloatCC::LessThanOrEqual, a, b);
                self.b.ins().bnot(m)
            }
            FUge => {
                let m = f(self, FloatCC::LessThan, a, b);
                self.b.ins().bnot(m)
            }
            FUlt => {
                let m = f(self, FloatCC::GreaterThanOrEqual, a, b);
                self.b.ins().bnot(m)
            }
            FUle => {
                let m = f(self, FloatCC::GreaterThan, a, b);
                self.b.ins().bnot(m)
            }
            FOne | FUeq => {
                let lt = f(self, FloatCC::LessThan, a, b);
                let gt = f(self, FloatCC::GreaterThan, a, b);
                let m = self.b.ins().bor(lt, gt);
                if pred == FUeq {
                    self.b.ins().bnot(m)
                } else {
                    m
                }
            }
            FOrd => {
                let x = f(self, FloatCC::Equal, a, a);
                let y = f(self, FloatCC::Equal, b, b);
                self.b.ins().band(x, y)
            }
            FUno => {
                let x = f(self, FloatCC::NotEqual, a, a);
                let y = f(self, FloatCC::NotEqual, b, b);
                self.b.ins().bor(x, y)
            }
            _ => self.vconst(types::I32X4, [0; 16]),
        }
    }

    /// Reinterprets a vector as another vector type of 128 bits.
    fn bitcast_vector(&mut self, v: Value, to: Type) -> Value {
        let from = self.b.func.dfg.value_type(v);
        if from == to {
            return v;
        }
        let flags = MemFlagsData::new().with_endianness(cl::Endianness::Little);
        self.b.ins().bitcast(to, flags, v)
    }

    fn cast(&mut self, op: CastOp, value: ValueId, to: ValType) -> Value {
        let from = self.ty(value);
        let x = self.get(value);
        match (from, to) {
            (ValType::Scalar(a), ValType::Scalar(b)) => self.scalar_cast(op, a, b, x),
            (ValType::Vector { elem: a, .. }, ValType::Vector { elem: b, .. }) => {
                self.vector_cast(op, a, b, x, cl_type(to))
            }
            (ValType::Vector { elem: Scalar::I1, lanes }, ValType::Scalar(_)) => {
                // <16 x i1> → i16, <8 x i1> → i8: one bit per lane.
                let ty = if lanes == 16 { types::I16 } else { types::I8 };
                self.b.ins().vhigh_bits(ty, x)
            }
            (ValType::Scalar(_), ValType::Vector { elem: Scalar::I1, lanes: 16 }) => {
                // i16 → <16 x i1>: byte 0 to lanes 0-7, byte 1 to 8-15, then bit i % 8.
                let w = self.b.ins().splat(types::I16X8, x);
                let bytes = self.bitcast_vector(w, types::I8X16);
                let pick = self.vconst(types::I8X16, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
                let spread = self.b.ins().swizzle(bytes, pick);
                let bits = self.vconst(types::I8X16, [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]);
                let m = self.b.ins().band(spread, bits);
                self.b.ins().icmp(IntCC::Equal, m, bits)
            }
            (ValType::Scalar(_), ValType::Vector { elem: Scalar::I1, .. }) => {
                // i8 → <8 x i1>.
                let wide = self.b.ins().uextend(types::I16, x);
                let w = self.b.ins().splat(types::I16X8, wide);
                let mut bits = [0u8; 16];
                for i in 0..8 {
                    bits[2 * i] = 1 << i;
                }
                let bits = self.vconst(types::I16X8, bits);
                let m = self.b.ins().band(w, bits);
                self.b.ins().icmp(IntCC::Equal, m, bits)
            }
            _ => self.zero(cl_type(to)),
        }
    }

    fn scalar_cast(&mut self, op: CastOp, a: Scalar, b: Scalar, x: Value) -> Value {
        use Scalar::*;
        let to = scalar_type(b);
        match op {
            CastOp::Trunc => {
                let y = if b == I1 {
                    self.b.ins().band_imm_s(x, 1)
                } else {
                    x
                };
                if scalar_type(a) == to {
                    y
                } else {
                    self.b.ins().ireduce(to, y)
                }
            }
            CastOp::ZExt => {
                if scalar_type(a) == to {
                    x
                } else {
                    self.b.ins().uextend(to, x)
                }
            }
            CastOp::SExt => {
                if a == I1 {
                    let w = if to == types::I8 { x } else { self.b.ins().uextend(to, x) };
                    self.b.ins().ineg(w)
                } else {
                    self.b.ins().sextend(to, x)
                }
            }
            CastOp::FpToSi | CastOp::FpToUi => {
                let signed = op == CastOp::FpToSi;
                let wide = if b == I64 { types::I64 } else { types::I32 };
                let r = if signed {
                    self.b.ins().fcvt_to_sint_sat(wide, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(wide, x)
                };
                match b {
                    I1 => {
                        let one = self.b.ins().band_imm_s(r, 1);
                        self.b.ins().ireduce(types::I8, one)
                    }
                    I8 | I16 => self.b.ins().ireduce(to, r),
                    _ => r,
                }
            }
            CastOp::SiToFp | CastOp::UiToFp => {
                let signed = op == CastOp::SiToFp;
                let src = match a {
                    I1 if signed => {
                        let w = self.b.ins().uextend(types::I32, x);
                        self.b.ins().ineg(w)
                    }
                    I1 | I8 | I16 if !signed => self.b.ins().uextend(types::I32, x),
                    I8 | I16 => self.b.ins().sextend(types::I32, x),
                    _ => x,
                };
                if signed {
                    self.b.ins().fcvt_from_sint(to, src)
                } else {
                    self.b.ins().fcvt_from_uint(to, src)
                }
            }
            CastOp::FpTrunc => self.b.ins().fdemote(types::F32, x),
            CastOp::FpExt => self.b.ins().fpromote(types::F64, x),
            CastOp::Bitcast => {
                if scalar_type(a) == to {
                    x
                } else {
                    self.b.ins().bitcast(to, MemFlagsData::new(), x)
                }
            }
        }
    }

    fn vector_cast(&mut self, op: CastOp, a: Scalar, b: Scalar, x: Value, to: Type) -> Value {
        use Scalar::*;
        let from = self.b.func.dfg.value_type(x);
        let lane_bits = i64::from(from.lane_bits());
        match op {
            CastOp::Trunc if b == I1 => {
                let s = self.b.ins().ishl_imm_u(x, lane_bits - 1);
                self.b.ins().sshr_imm_u(s, lane_bits - 1)
            }
            CastOp::ZExt if a == I1 => self.b.ins().ushr_imm_u(x, lane_bits - 1),
            CastOp::SExt if a == I1 => self.bitcast_vector(x, to),
            CastOp::FpToSi | CastOp::FpToUi => {
                let r = if op == CastOp::FpToSi {
                    self.b.ins().fcvt_to_sint_sat(types::I32X4, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(types::I32X4, x)
                };
                if b == I1 {
                    let s = self.b.ins().ishl_imm_u(r, 31);
                    self.b.ins().sshr_imm_u(s, 31)
                } else {
                    r
                }
            }
            CastOp::SiToFp | CastOp::UiToFp => {
                let src = if a == I1 && op == CastOp::UiToFp { self.b.ins().ushr_imm_u(x, 31) } else { x };
                if op == CastOp::SiToFp {
                    self.b.ins().fcvt_from_sint(types::F32X4, src)
                } else {
                    self.b.ins().fcvt_from_uint(types::F32X4, src)
                }
            }
            _ => self.bitcast_vector(x, to),
        }
    }

    // ------------------------------------------------------------------
    // Calls

    /// A `FuncRef` for object function `id` (namespace 0 of
    /// cranelift-module's user names).
    fn func_ref(&mut self, id: cranelift_module::FuncId, sig: &cl::Signature, colocated: bool) -> FuncRef {
        if let Some(&r) = self.func_refs.get(&id.as_u32()) {
            return r;
        }
        let signature = self.b.import_signature(sig.clone());
        let name = self.b.func.declare_imported_user_function(UserExternalName { namespace: 0, index: id.as_u32() });
        let r = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            colocated,
            patchable: false,
        });
        self.func_refs.insert(id.as_u32(), r);
        r
    }

    fn helper(&mut self, pick: fn(&super::Helpers) -> &super::Helper) -> FuncRef {
        let cx: &'a ModuleCx = self.cx;
        let h = pick(&cx.rt);
        self.func_ref(h.id, &h.sig, false)
    }

    fn call(
        &mut self,
        k: usize,
        callee: ValueId,
        args: &[ValueId],
        ret: Option<ValType>,
    ) -> Result<Option<Value>, TranslateError> {
        match self.cx.callee(callee) {
            Some(Callee::Defined { id, .. }) => {
                let sig = self.cx.signature(&self.cx.funcs[callee.0 as usize].params, self.cx.funcs[callee.0 as usize].ret);
                let r = self.func_ref(id, &sig, true);
                let mut a = Vec::with_capacity(args.len() + 1);
                a.push(self.ctx());
                for &x in args {
                    a.push(self.get(x));
                }
                let call = self.b.ins().call(r, &a);
                Ok(self.b.inst_results(call).first().copied())
            }
            Some(Callee::Intrinsic(i)) => self.intrinsic(k, i, args, ret),
            _ => {
                // A declaration without a body: the runtime reports it.
                let fault = self.helper(|r| &r.fault);
                let ctx = self.ctx();
                let kind = self.b.ins().iconst(types::I32, i64::from(rtabi::fault::MISSING_FUNCTION));
                let detail = self.b.ins().iconst(types::I32, i64::from(callee.0));
                let func = self.b.ins().iconst(types::I32, i64::from(self.info));
                self.b.ins().call(fault, &[ctx, kind, detail, func]);
                Ok(ret.map(|t| self.zero(cl_type(t))))
            }
        }
    }

    fn call_indirect(&mut self, callee: ValueId, args: &[ValueId], ret: Option<ValType>) -> Option<Value> {
        let arg_types: Vec<ValType> = args.iter().map(|&a| self.ty(a)).collect();
        let key = super::sig_key(&arg_types, ret);
        let expected = self.cx.sig_ids.get(&key).copied().unwrap_or(u32::MAX);
        // A constant function address with the call's signature: a direct call.
        if let Some(fid) = self.cx.module.func_of(callee) {
            if let Some(Callee::Defined { sig, .. }) = self.cx.callee(callee) {
                if sig == expected {
                    return self.call(0, ValueId(fid.0), args, ret).ok().flatten();
                }
            }
        }
        let mut a = Vec::with_capacity(args.len() + 1);
        let idx = self.get(callee);
        a.push(self.ctx());
        for &x in args {
            a.push(self.get(x));
        }
        let code = self.checked_table_entry(idx, expected);
        let sigref = match self.sig_refs.get(&key) {
            Some(&s) => s,
            None => {
                let s = self.b.import_signature(self.cx.signature(&arg_types, ret));
                self.sig_refs.insert(key, s);
                s
            }
        };
        let call = self.b.ins().call_indirect(sigref, code, &a);
        self.b.inst_results(call).first().copied()
    }

    /// The code address of table entry `idx`, after checking the index and
    /// the signature id (traps otherwise).
    fn checked_table_entry(&mut self, idx: Value, expected: u32) -> Value {
        let mut gv = self.table_gv;
        let code = table_entry(&mut self.b, self.cx, idx, expected, &mut gv);
        self.table_gv = gv;
        code
    }

    // ------------------------------------------------------------------
    // Intrinsics

    fn intrinsic(
        &mut self,
        k: usize,
        i: Intrinsic,
        args: &[ValueId],
        ret: Option<ValType>,
    ) -> Result<Option<Value>, TranslateError> {
        use Intrinsic::*;
        let arg = |t: &mut Self, n: usize| -> Value {
            match args.get(n) {
                Some(&v) => t.get(v),
                None => t.b.ins().iconst(types::I32, 0),
            }
        };
        Ok(Some(match i {
            Bswap(_) => {
                let x = arg(self, 0);
                self.b.ins().bswap(x)
            }
            Ctlz(_) => {
                let x = arg(self, 0);
                self.b.ins().clz(x)
            }
            Cttz(_) => {
                let x = arg(self, 0);
                self.b.ins().ctz(x)
            }
            Ctpop(_) => {
                let x = arg(self, 0);
                self.b.ins().popcnt(x)
            }
            Fabs(_) => {
                let x = arg(self, 0);
                self.b.ins().fabs(x)
            }
            Sqrt(_) => {
                let x = arg(self, 0);
                self.b.ins().sqrt(x)
            }
            ReadTp => {
                let ctx = self.ctx();
                self.b.ins().load(types::I32, host_mem(), ctx, cx_off::THREAD_POINTER)
            }
            Stacksave => {
                let ctx = self.ctx();
                self.b.ins().load(types::I32, host_mem(), ctx, cx_off::STACK_POINTER)
            }
            Stackrestore => {
                let x = arg(self, 0);
                let ctx = self.ctx();
                self.b.ins().store(host_mem(), x, ctx, cx_off::STACK_POINTER);
                return Ok(None);
            }
            Trap => {
                // Ends the block; whatever follows is unreachable.
                self.b.ins().trap(user_trap(trap::UNREACHABLE));
                let dead = self.b.create_block();
                self.b.switch_to_block(dead);
                return Ok(ret.map(|t| self.zero(cl_type(t))));
            }
            Memcpy | Memmove | Memset => {
                self.memory_intrinsic(i, args);
                return Ok(None);
            }
            AtomicLoad(s) => {
                let p = arg(self, 0);
                let a = self.atomic_address(p, s);
                self.b.ins().atomic_load(scalar_type(s), guest_mem(), a)
            }
            AtomicStore(s) => {
                let x = arg(self, 0);
                let p = arg(self, 1);
                let a = self.atomic_address(p, s);
                let order = args.get(2).and_then(|&o| self.const_int(o)).and_then(MemoryOrder::from_value);
                if self.cx.target == super::Target::X86_64Linux {
                    // x86 is TSO: an aligned store already has release
                    // semantics, and Cranelift neither sinks earlier memory
                    // operations below a store nor hoists later ones above
                    // it. A sequentially consistent store is an `xchg`
                    // (cheaper than Cranelift's `mov; mfence`), when other
                    // threads may look.
                    if order == Some(MemoryOrder::SequentiallyConsistent) {
                        let ty = scalar_type(s);
                        self.atomic_or_plain(
                            None,
                            |t| {
                                t.b.ins().atomic_rmw(ty, guest_mem(), AtomicRmwOp::Xchg, a, x);
                                None
                            },
                            |t| {
                                t.b.ins().store(guest_mem(), x, a, 0);
                                None
                            },
                        );
                    } else {
                        self.b.ins().store(guest_mem(), x, a, 0);
                    }
                } else {
                    // AArch64: `stlr`, a release store that is also
                    // sequentially consistent with `ldar` loads.
                    self.b.ins().atomic_store(guest_mem(), x, a);
                }
                return Ok(None);
            }
            AtomicRmw(s) => {
                let op = match args.first().and_then(|&a| self.const_int(a)).and_then(RmwOp::from_value) {
                    Some(RmwOp::Add) => AtomicRmwOp::Add,
                    Some(RmwOp::Sub) => AtomicRmwOp::Sub,
                    Some(RmwOp::And) => AtomicRmwOp::And,
                    Some(RmwOp::Or) => AtomicRmwOp::Or,
                    Some(RmwOp::Xor) => AtomicRmwOp::Xor,
                    Some(RmwOp::Exchange) => AtomicRmwOp::Xchg,
                    None => return Err(self.unsupported("atomic rmw with a non-constant operation")),
                };
                let p = arg(self, 1);
                let x = arg(self, 2);
                let a = self.atomic_address(p, s);
                let ty = scalar_type(s);
                let old = self.atomic_or_plain(
                    Some(ty),
                    |t| Some(t.b.ins().atomic_rmw(ty, guest_mem(), op, a, x)),
                    |t| {
                        let old = t.b.ins().load(ty, guest_mem(), a, 0);
                        let new = match op {
                            AtomicRmwOp::Add => t.b.ins().iadd(old, x),
                            AtomicRmwOp::Sub => t.b.ins().isub(old, x),
                            AtomicRmwOp::And => t.b.ins().band(old, x),
                            AtomicRmwOp::Or => t.b.ins().bor(old, x),
                            AtomicRmwOp::Xor => t.b.ins().bxor(old, x),
                            _ => x,
                        };
                        t.b.ins().store(guest_mem(), new, a, 0);
                        Some(old)
                    },
                );
                old.expect("a value of type ty")
            }
            AtomicCmpxchg(s) => {
                let p = arg(self, 0);
                let e = arg(self, 1);
                let x = arg(self, 2);
                let a = self.atomic_address(p, s);
                let ty = scalar_type(s);
                let old = self.atomic_or_plain(
                    Some(ty),
                    |t| Some(t.b.ins().atomic_cas(guest_mem(), a, e, x)),
                    |t| {
                        // The store happens either way, as a failed
                        // `lock cmpxchg` writes too (a read-only page
                        // faults the same on both paths).
                        let old = t.b.ins().load(ty, guest_mem(), a, 0);
                        let same = t.b.ins().icmp(IntCC::Equal, old, e);
                        let new = t.b.ins().select(same, x, old);
                        t.b.ins().store(guest_mem(), new, a, 0);
                        Some(old)
                    },
                );
                old.expect("a value of type ty")
            }
            AtomicFence | AtomicFenceAll => {
                self.atomic_or_plain(
                    None,
                    |t| {
                        t.b.ins().fence();
                        None
                    },
                    |_| None,
                );
                return Ok(None);
            }
            AtomicIsLockFree => {
                let size = args.first().and_then(|&a| self.const_int(a));
                let free = matches!(size, Some(1 | 2 | 4 | 8));
                self.b.ins().iconst(types::I8, i64::from(free))
            }
            Setjmp => self.setjmp(k, args)?,
            Longjmp => {
                let buf = arg(self, 0);
                let value = arg(self, 1);
                let ctx = self.ctx();
                let f = self.b.ins().iconst(types::I32, i64::from(self.info));
                let h = self.helper(|r| &r.longjmp);
                self.b.ins().call(h, &[ctx, buf, value, f]);
                return Ok(None);
            }
        }))
    }

    /// An atomic operation, or its plain twin while the thread is the
    /// process's only guest thread (`rtabi::ctx::THREADS` is zero): then
    /// nothing else can observe the difference, and the plain form skips
    /// the locked instruction or barrier (as glibc skips its locks in a
    /// single-threaded process). Both forms trap alike on a bad address.
    /// Returns the merged result of type `ty`, if any.
    fn atomic_or_plain(
        &mut self,
        ty: Option<cl::Type>,
        atomic: impl FnOnce(&mut Self) -> Option<Value>,
        plain: impl FnOnce(&mut Self) -> Option<Value>,
    ) -> Option<Value> {
        let ctx = self.ctx();
        let shared = self.b.ins().load(types::I8, host_mem(), ctx, cx_off::THREADS);
        let plain_block = self.b.create_block();
        let atomic_block = self.b.create_block();
        let merge = self.b.create_block();
        if let Some(t) = ty {
            self.b.append_block_param(merge, t);
        }
        self.b.ins().brif(shared, atomic_block, &[], plain_block, &[]);
        self.b.switch_to_block(plain_block);
        self.b.seal_block(plain_block);
        let v: Vec<BlockArg> = plain(self).into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(merge, &v);
        self.b.switch_to_block(atomic_block);
        self.b.seal_block(atomic_block);
        let v: Vec<BlockArg> = atomic(self).into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(merge, &v);
        self.b.switch_to_block(merge);
        self.b.seal_block(merge);
        self.b.block_params(merge).first().copied()
    }

    /// The host address of an atomic access of `s`, after checking the
    /// natural alignment the instructions need (wasm traps the same way).
    fn atomic_address(&mut self, p: Value, s: Scalar) -> Value {
        let size = i64::from(s.bits() / 8);
        if size > 1 {
            let low = self.b.ins().band_imm_s(p, size - 1);
            self.b.ins().trapnz(low, user_trap(trap::UNALIGNED_ATOMIC));
        }
        let wide = self.b.ins().uextend(types::I64, p);
        let base = self.base();
        self.b.ins().iadd(base, wide)
    }

    /// memcpy, memmove, memset: inline for small constant lengths, else a
    /// runtime call that checks the ranges (a failed check traps here, so
    /// the fault names this function).
    fn memory_intrinsic(&mut self, i: Intrinsic, args: &[ValueId]) {
        let (Some(&dst), Some(&src), Some(&len)) = (args.first(), args.get(1), args.get(2)) else { return };
        if let Some(n) = self.const_int(len).map(|n| n as u32) {
            if n <= 64 {
                self.inline_memory(i, dst, src, n);
                return;
            }
        }
        let d = self.get(dst);
        let s = self.get(src);
        let s = if i == Intrinsic::Memset { self.b.ins().uextend(types::I32, s) } else { s };
        let n = self.get(len);
        let ctx = self.ctx();
        let h = match i {
            Intrinsic::Memcpy => self.helper(|r| &r.memcpy),
            Intrinsic::Memmove => self.helper(|r| &r.memmove),
            _ => self.helper(|r| &r.memset),
        };
        let call = self.b.ins().call(h, &[ctx, d, s, n]);
        let failed = self.b.inst_results(call)[0];
        self.b.ins().trapnz(failed, TrapCode::HEAP_OUT_OF_BOUNDS);
    }

    fn inline_memory(&mut self, i: Intrinsic, dst: ValueId, src: ValueId, n: u32) {
        if n == 0 {
            return;
        }
        let (d, doff) = self.address(dst);
        // Chunks of 8, 4, 2, 1 bytes.
        let mut chunks = Vec::new();
        let mut at = 0u32;
        while at < n {
            let size = [8u32, 4, 2, 1].into_iter().find(|&s| s <= n - at).unwrap_or(1);
            chunks.push((at, size));
            at += size;
        }
        let ty_of = |size: u32| match size {
            8 => types::I64,
            4 => types::I32,
            2 => types::I16,
            _ => types::I8,
        };
        if i == Intrinsic::Memset {
            let v = self.get(src);
            let w = self.b.ins().uextend(types::I64, v);
            let splat = self.b.ins().imul_imm_s(w, 0x0101_0101_0101_0101);
            for (at, size) in chunks {
                let ty = ty_of(size);
                let x = if ty == types::I64 { splat } else { self.b.ins().ireduce(ty, splat) };
                self.b.ins().store(guest_mem(), x, d, doff + at as i32);
            }
            return;
        }
        let (s, soff) = self.address(src);
        // All loads first: memmove's ranges may overlap.
        let vals: Vec<(u32, Value)> = chunks
            .iter()
            .map(|&(at, size)| (at, self.b.ins().load(ty_of(size), guest_mem(), s, soff + at as i32)))
            .collect();
        for (at, x) in vals {
            self.b.ins().store(guest_mem(), x, d, doff + at as i32);
        }
    }

    /// `setjmp(buf)` in memory form: register the guest buffer, then call
    /// the native `_setjmp` on this call site's buffer in the frame. The
    /// first return gives 0; a longjmp comes back here with the value the
    /// runtime put in the context.
    fn setjmp(&mut self, k: usize, args: &[ValueId]) -> Result<Value, TranslateError> {
        if self.mode != Mode::Memory {
            return Err(self.unsupported("setjmp outside a memory-form function"));
        }
        let slot = match self.jmpbufs {
            Some(s) => s,
            None => {
                let sites: Vec<u32> = self
                    .f
                    .insts
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| is_intrinsic_call(self.cx, i, Intrinsic::Setjmp))
                    .map(|(k, _)| k as u32)
                    .collect();
                let bytes = sites.len().max(1) as u32 * rtabi::JMPBUF_SIZE;
                let s = self.slot(bytes, rtabi::JMPBUF_ALIGN_LOG2);
                self.setjmp_sites = sites;
                self.jmpbufs = Some(s);
                s
            }
        };
        let site = self.setjmp_sites.iter().position(|&s| s == k as u32).unwrap_or(0);
        let offset = site as i32 * rtabi::JMPBUF_SIZE as i32;
        let gbuf = match args.first() {
            Some(&v) => self.get(v),
            None => self.b.ins().iconst(types::I32, 0),
        };
        let jb = self.b.ins().stack_addr(types::I64, slot, offset);
        let ctx = self.ctx();
        let reg = self.helper(|r| &r.setjmp);
        let call = self.b.ins().call(reg, &[ctx, gbuf, jb]);
        let failed = self.b.inst_results(call)[0];
        self.b.ins().trapnz(failed, TrapCode::HEAP_OUT_OF_BOUNDS);
        let jb = self.b.ins().stack_addr(types::I64, slot, offset);
        let native = self.helper(|r| &r.native_setjmp);
        let call = self.b.ins().call(native, &[jb]);
        let r = self.b.inst_results(call)[0];
        // Second return: the value longjmp delivered (never 0).
        let ctx = self.ctx();
        let delivered = self.b.ins().load(types::I32, host_mem(), ctx, cx_off::LONGJMP_VALUE);
        let zero = self.b.ins().iconst(types::I32, 0);
        Ok(self.b.ins().select(r, delivered, zero))
    }
}

/// The code address of function-table entry `idx` after checking that the
/// index is in the table and the entry's signature id is `expected`
/// (traps otherwise; an empty slot has id 0, which nothing expects).
/// `gv` caches the table's symbol in the function.
pub(super) fn table_entry(
    b: &mut FunctionBuilder,
    cx: &ModuleCx,
    idx: Value,
    expected: u32,
    gv: &mut Option<GlobalValue>,
) -> Value {
    let len = i64::from(cx.table_len);
    let out = b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, idx, len);
    b.ins().trapnz(out, user_trap(trap::TABLE_OUT_OF_BOUNDS));
    let g = match *gv {
        Some(g) => g,
        None => {
            let name = b.func.declare_imported_user_function(UserExternalName { namespace: 1, index: cx.table.as_u32() });
            let g = b.create_global_value(GlobalValueData::Symbol {
                name: ExternalName::user(name),
                offset: cl::immediates::Imm64::new(0),
                colocated: true,
                tls: false,
            });
            *gv = Some(g);
            g
        }
    };
    let table = b.ins().symbol_value(types::I64, g);
    let wide = b.ins().uextend(types::I64, idx);
    let scaled = b.ins().ishl_imm_u(wide, 4);
    let entry = b.ins().iadd(table, scaled);
    let sig = b.ins().load(types::I32, host_mem().with_readonly(), entry, 8);
    let bad = b.ins().icmp_imm_s(IntCC::NotEqual, sig, i64::from(expected as i32));
    b.ins().trapnz(bad, user_trap(trap::BAD_SIGNATURE));
    b.ins().load(types::I64, host_mem().with_readonly(), entry, 0)
}

fn int_cc(pred: CmpPred) -> IntCC {
    use CmpPred::*;
    match pred {
        IEq => IntCC::Equal,
        INe => IntCC::NotEqual,
        IUgt => IntCC::UnsignedGreaterThan,
        IUge => IntCC::UnsignedGreaterThanOrEqual,
        IUlt => IntCC::UnsignedLessThan,
        IUle => IntCC::UnsignedLessThanOrEqual,
        ISgt => IntCC::SignedGreaterThan,
        ISge => IntCC::SignedGreaterThanOrEqual,
        ISlt => IntCC::SignedLessThan,
        _ => IntCC::SignedLessThanOrEqual,
    }
}

/// The parameters of a Cranelift signature: the context, then the pexe's.
pub(super) fn abi_params(params: &[ValType]) -> Vec<AbiParam> {
    std::iter::once(AbiParam::new(types::I64)).chain(params.iter().map(|&t| AbiParam::new(cl_type(t)))).collect()
}
