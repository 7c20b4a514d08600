//! One function body: from IR to the bytes of a wasm code-section entry.
//!
//! # How values become wasm
//!
//! Every SSA value ends up as one of:
//! - a **local** (parameters, phis, and results used more than once, or
//!   used out of stack order); values whose lives do not overlap share one
//!   (`locals.rs`), and locals are declared grouped by wasm type;
//! - **folded**: left on the operand stack by its definition and consumed
//!   there by its single user. A result is folded when its only use is an
//!   operand of an instruction in the same basic block and the values pushed
//!   between its definition and that use are exactly the user's other
//!   operands (see "Stack folding" below). Nothing is moved, so no side
//!   effect is reordered;
//! - **rematerialized** at each use: constants, function and global
//!   addresses, and the addresses of the entry block's constant-size allocas
//!   (`frame + offset`, one stack frame allocated on entry);
//! - nothing, when it has no use and computing it has no effect;
//! - its operand, for casts that change nothing in wasm (`zext i8 → i32`,
//!   same-representation bitcasts): an alias.
//!
//! Loads and stores of `add p, C` (C a small constant, every use of the add
//! an access) use `p` with `offset=C`; an integer computation repeated in a
//! block reuses the first one; a `local.set` followed at once by a
//! `local.get` of the same local becomes a `local.tee`.
//!
//! # Stack folding
//!
//! Each instruction lists the operands it pushes, in push order (its
//! "pushes", with a fix-up such as a sign extension applied after each).
//! Scanning a block in order, the analysis keeps the top-level trees emitted
//! so far; an instruction takes over the trees at the end of that list whose
//! results are its single-use operands, in push order. Its other operands
//! are rematerializable, so those that must sit below a folded operand on
//! the stack are pushed just before that operand's tree starts ("pre-pushes"),
//! the rest just before the instruction itself.
//!
//! # Control flow
//!
//! [`super::structure::structure`] turns the CFG into nested blocks and
//! loops; `control.rs` emits that tree. Phis are locals written on each
//! edge (a parallel copy: sequential when no phi reads another phi of the
//! block, else all sources pushed and the phis set in reverse; a block that
//! ends in `br` pushes its sources like operands, so values computed last
//! go straight from the stack into the phis). Functions that call `setjmp`
//! are split after each call and wrapped in a `loop`/`try` (see
//! `setjmp.rs`).
//!
//! All scratch space lives in [`FuncTranslator`] and is reused from one body
//! to the next.

use super::imports::{FAULT_FUNC, FMOD_FUNC};
use super::types::{wasm_type, Signatures};
use super::{global, Callee, ModuleCx, TranslateError};
use crate::ir::{BinOp, CastOp, CmpPred, ConstValue, Function, Inst, InstKind, Scalar, ValType as IrType, ValueId};
use crate::verify::Intrinsic;
use wasm_encoder::{BlockType, Encode, Ieee32, Ieee64, InstructionSink, MemArg, MemArgTarget, ValType as W};

pub(super) const NONE: u32 = u32::MAX;

/// What to do to an operand right after pushing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fixup {
    None,
    /// i8 → signed i32.
    Sext8,
    /// i16 → signed i32.
    Sext16,
    /// i1 (0/1) → 0/-1.
    NegI1,
    /// f32 → f64.
    Promote,
}

/// One operand an instruction pushes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Push {
    pub value: ValueId,
    pub fixup: Fixup,
}

/// Where a function-local value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Not decided yet / no value (unused, or no local needed).
    None,
    Local(u32),
    /// A constant of the function's constants block.
    Const,
    /// Left on the stack for its single user.
    Folded,
    /// A static alloca: frame base + offset.
    Frame(u32),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Val {
    pub kind: Kind,
    pub ty: IrType,
    pub uses: u32,
    /// The instruction of the last use seen (the only one when `uses == 1`);
    /// `NONE` for a phi use.
    pub user: u32,
    /// Must live in a local (setjmp results: written on two paths).
    pub pinned: bool,
    /// Fix-up the user wants, applied after the definition when folded.
    pub fold_fixup: Fixup,
    /// The result of a cast that changes nothing in wasm: it is this value
    /// (`NONE` otherwise). Uses count toward the source.
    pub alias: u32,
}

/// Per-instruction analysis results.
#[derive(Clone, Copy, Debug)]
pub(super) struct InstInfo {
    pub vblock: u32,
    pub emit: bool,
    pub push_start: u32,
    pub push_end: u32,
    /// Pushes from here to `push_end` are emitted right before the
    /// instruction; earlier ones are folded or pre-pushed.
    pub own_from: u32,
    /// Head of this instruction's pre-push list (`NONE` if empty).
    pub prepush_head: u32,
    /// First instruction of the tree this instruction roots.
    pub first: u32,
    /// Load/store address replaced by `addr + offset` (absorbed `add`).
    pub addr: u32,
    pub offset: u32,
    /// A `br` whose pushes are the phi copies of its edge.
    pub copies_planned: bool,
}

impl Default for InstInfo {
    fn default() -> Self {
        InstInfo {
            vblock: NONE,
            emit: true,
            push_start: 0,
            push_end: 0,
            own_from: 0,
            prepush_head: NONE,
            first: NONE,
            addr: NONE,
            offset: 0,
            copies_planned: false,
        }
    }
}

/// Operands `pushes[from..to]` of instruction `user`, pushed before the
/// instruction that starts one of its folded operands' trees.
#[derive(Clone, Copy, Debug)]
pub(super) struct PrePush {
    pub from: u32,
    pub to: u32,
    pub next: u32,
}

/// How a virtual block ends (see `setjmp.rs` for the split blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Term {
    /// The last instruction of the range is the block's terminator.
    Real,
    /// Split after a setjmp call: continues into the next virtual block.
    Split,
    /// The synthetic entry of a setjmp function: dispatches on the
    /// re-entry local to the real entry or a setjmp continuation.
    SjEntry,
}

/// A block as the structurer sees it: an original basic block, or a part
/// of one split at setjmp calls.
#[derive(Clone, Copy, Debug)]
pub(super) struct VBlock {
    pub orig: u32,
    pub start: u32,
    pub end: u32,
    pub term: Term,
    /// First part of its original block (phis live there).
    pub first_part: bool,
}

/// The buffers reused from one function to the next.
#[derive(Default)]
pub(super) struct Buffers {
    pub vals: Vec<Val>,
    pub insts: Vec<InstInfo>,
    pub pushes: Vec<Push>,
    pub prepush: Vec<PrePush>,
    pub roots: Vec<u32>,
    pub matched: Vec<u32>,
    pub vblocks: Vec<VBlock>,
    pub succ_start: Vec<u32>,
    pub succs: Vec<u32>,
    pub first_vblock: Vec<u32>,
    /// Whether the (first part of the) block has phis with a local.
    pub has_phis: Vec<bool>,
    /// Phi incoming entries sorted by block: `(block, value)`, per phi
    /// instruction a range in `phi_ranges`.
    pub phi_in: Vec<(u32, u32)>,
    pub phi_range: Vec<(u32, u32)>,
    pub copies: Vec<(u32, ValueId)>,
    pub extra_locals: Vec<W>,
    pub scratch: [[u32; 4]; 5],
    pub dispatch_locals: Vec<u32>,
    pub labels: Vec<u32>,
    pub label_pos: Vec<u32>,
    pub slot_of: Vec<u32>,
    /// A sparse switch's cases sorted by value: (value, exit index).
    pub case_order: Vec<(u64, u32)>,
    /// Dense runs of `case_order`: index ranges.
    pub clusters: Vec<(u32, u32)>,
    pub table: Vec<u32>,
    pub setjmp_sites: Vec<SetjmpSite>,
    pub code: Vec<u8>,
    /// Value locals per wasm type (i32, i64, f32, f64, v128).
    pub local_counts: [u32; 5],
    pub wrapper_exit: Vec<u32>,
    pub locals: super::locals::LocalBuffers,
    /// Per add: uses as a load/store address, and the last such access.
    pub addr_uses: Vec<(u32, u32)>,
    /// Pure computations of the block being scanned, for reuse.
    pub cse: std::collections::HashMap<CseKey, u32>,
    pub seen_exits: Vec<SeenExit>,
}

/// A branch exit already given a wrapper: (target, set_dispatch, label,
/// wrapper).
pub(super) type SeenExit = (u32, Option<(u32, u32)>, u32, u32);

/// A setjmp call site of the function being translated.
#[derive(Clone, Copy, Debug)]
pub(super) struct SetjmpSite {
    pub inst: u32,
    /// The virtual block that continues after the call.
    pub cont: u32,
    /// Local holding the id this invocation stored in the jmp_buf.
    pub id_local: u32,
}

/// Translates function bodies, one after the other, reusing its buffers.
#[derive(Default)]
pub struct FuncTranslator {
    b: Buffers,
}

/// The state of one function's translation.
pub(super) struct Fx<'a> {
    pub b: &'a mut Buffers,
    pub f: &'a Function,
    pub cx: &'a ModuleCx,
    pub sigs: &'a mut Signatures,
    pub num_params: u32,
    /// Locals for values (after the parameters); extras follow.
    pub num_value_locals: u32,
    pub ret: Option<IrType>,
    /// Frame base of the static allocas (`NONE` if none).
    pub frame_local: u32,
    pub frame_size: u32,
    pub frame_align: u32,
    /// The stack pointer at entry, restored before returning.
    pub saved_sp_local: u32,
    pub has_dynamic_alloca: bool,
    /// Allocas in the body, and whether some are static (in the frame).
    pub num_allocas: u32,
    pub has_frame: bool,
    pub has_setjmp: bool,
    /// setjmp re-entry: which continuation the entry dispatch goes to.
    pub sj_target_local: u32,
    /// Set when a `return`, `br`, `unreachable`… ended the code so far.
    pub terminal: bool,
    /// First internal inconsistency met (reported as an error).
    pub bug: Option<String>,
    /// The last `local.set`: (offset of its opcode, local, end offset), so
    /// an immediately following `local.get` of it becomes a `local.tee`.
    pub last_set: (usize, u32, usize),
    /// Label-stack height inside the wrapper blocks of the multiway branch
    /// being emitted.
    pub wrapper_base: u32,
}

impl FuncTranslator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the code-section entry of `f` (size, locals, body) to `out`.
    pub(super) fn translate(
        &mut self,
        cx: &ModuleCx,
        sigs: &mut Signatures,
        f: &Function,
        out: &mut Vec<u8>,
    ) -> Result<(), TranslateError> {
        if f.blocks.is_empty() {
            // A body with no blocks (the verifier lets it through): it has
            // nothing to run, so calling it traps.
            out.extend_from_slice(&[3, 0, 0x00, 0x0B]);
            return Ok(());
        }
        let decl_ret = cx.funcs.get(f.id.0 as usize).map(|e| e.ret).unwrap_or(None);
        let mut fx = Fx {
            b: &mut self.b,
            f,
            cx,
            sigs,
            num_params: f.params.len() as u32,
            num_value_locals: 0,
            ret: decl_ret,
            frame_local: NONE,
            frame_size: 0,
            frame_align: 1,
            saved_sp_local: NONE,
            has_dynamic_alloca: false,
            num_allocas: 0,
            has_frame: false,
            has_setjmp: false,
            sj_target_local: NONE,
            terminal: false,
            bug: None,
            last_set: (0, NONE, usize::MAX),
            wrapper_base: 0,
        };
        fx.analyze()?;
        let tree = {
            let b = &*fx.b;
            let n = b.vblocks.len();
            super::structure::structure(n, |v: u32| {
                let v = v as usize;
                &b.succs[b.succ_start[v] as usize..b.succ_start[v + 1] as usize]
            })
        };
        fx.assign_locals(&tree);
        fx.frame_locals();
        fx.emit_function(&tree);
        if let Some(message) = fx.bug.take() {
            return Err(TranslateError::Unsupported { function: f.id.0, message });
        }
        fx.write_entry(out);
        Ok(())
    }
}

fn int_mask(s: Scalar) -> Option<i32> {
    match s {
        Scalar::I1 => Some(1),
        Scalar::I8 => Some(0xff),
        Scalar::I16 => Some(0xffff),
        _ => None,
    }
}

fn sext_fixup(s: Scalar) -> Fixup {
    match s {
        Scalar::I1 => Fixup::NegI1,
        Scalar::I8 => Fixup::Sext8,
        Scalar::I16 => Fixup::Sext16,
        _ => Fixup::None,
    }
}

/// log2 of the alignment hint for an access of `natural` bytes stated to be
/// aligned to `align` bytes (capped at natural; 0 = natural).
pub(super) fn align_log2(align: u32, natural: u32) -> u32 {
    let a = if align == 0 { natural } else { align.min(natural) };
    a.max(1).trailing_zeros()
}

pub(super) fn memarg(offset: u32, align_log2: u32) -> MemArg {
    MemArg { offset: u64::from(offset), align: align_log2, target: MemArgTarget::Memory(0), ordering: None }
}

/// Bytes of a memory access of type `t`.
pub(super) fn access_size(t: IrType) -> u32 {
    match t {
        IrType::Scalar(s) => s.bits().div_ceil(8),
        IrType::Vector { .. } => 16,
    }
}

/// Whether computing `kind` has no effect beyond its result (so an unused
/// one can be left out).
fn is_pure(cx: &ModuleCx, kind: &InstKind) -> bool {
    match kind {
        InstKind::Binop { .. }
        | InstKind::Cast { .. }
        | InstKind::Cmp { .. }
        | InstKind::Select { .. }
        | InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::Load { .. }
        | InstKind::Phi { .. } => true,
        InstKind::Call { callee, .. } => matches!(
            cx.callee(*callee),
            Some(Callee::Intrinsic(
                Intrinsic::ReadTp
                    | Intrinsic::Stacksave
                    | Intrinsic::AtomicIsLockFree
                    | Intrinsic::Bswap(_)
                    | Intrinsic::Ctlz(_)
                    | Intrinsic::Cttz(_)
                    | Intrinsic::Ctpop(_)
                    | Intrinsic::Fabs(_)
                    | Intrinsic::Sqrt(_)
            ))
        ),
        _ => false,
    }
}

/// Follows aliases from `v` (a bounded walk: chains are short in valid SSA).
#[inline]
fn resolve_in(vals: &[Val], first: u32, mut v: ValueId) -> ValueId {
    match vals.get(v.0.wrapping_sub(first) as usize) {
        Some(val) if val.alias != NONE => {}
        _ => return v,
    }
    for _ in 0..64 {
        match vals.get(v.0.wrapping_sub(first) as usize) {
            Some(val) if val.alias != NONE => v = ValueId(val.alias),
            _ => break,
        }
    }
    v
}

/// Key of a pure computation for [`Fx::cse_key`].
pub(super) type CseKey = (u32, u32, u32, u32);

/// A number naming a value type.
fn type_code(t: IrType) -> u32 {
    match t {
        IrType::Scalar(s) => s.bits() | (u32::from(s.is_float()) << 7),
        IrType::Vector { elem, lanes } => (lanes << 8) | elem.bits() | (u32::from(elem.is_float()) << 7),
    }
}

/// Whether a cast leaves the wasm value unchanged.
fn is_noop_cast(op: CastOp, from: IrType, to: IrType) -> bool {
    match (op, from, to) {
        (CastOp::ZExt, IrType::Scalar(a), IrType::Scalar(b)) => {
            a.is_int() && b.is_int() && a.bits() < b.bits() && b.bits() <= 32
        }
        (CastOp::SExt, IrType::Vector { elem: Scalar::I1, lanes: a }, IrType::Vector { lanes: b, .. }) => a == b,
        (CastOp::Bitcast, a, b) if a == b => true,
        (CastOp::Bitcast, IrType::Vector { elem: a, .. }, IrType::Vector { elem: b, .. }) => {
            a != Scalar::I1 && b != Scalar::I1
        }
        _ => false,
    }
}

/// Whether `inst` calls `llvm.nacl.setjmp`.
pub(super) fn is_setjmp_call(cx: &ModuleCx, inst: &Inst) -> bool {
    matches!(&inst.kind, InstKind::Call { callee, .. }
        if matches!(cx.callee(*callee), Some(Callee::Intrinsic(Intrinsic::Setjmp))))
}

/// Calls `visit` with every value operand of `kind` (no allocation).
pub(super) fn for_each_operand(kind: &InstKind, mut visit: impl FnMut(ValueId)) {
    use InstKind::*;
    match kind {
        Binop { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => {
            visit(*lhs);
            visit(*rhs);
        }
        Cast { value, .. } => visit(*value),
        Ret { value } => {
            if let Some(v) = value {
                visit(*v)
            }
        }
        Br { .. } | Unreachable => {}
        CondBr { cond, .. } | Switch { cond, .. } => visit(*cond),
        Phi { incoming, .. } => incoming.iter().for_each(|(v, _)| visit(*v)),
        Alloca { size, .. } => visit(*size),
        Load { ptr, .. } => visit(*ptr),
        Store { ptr, value, .. } => {
            visit(*ptr);
            visit(*value);
        }
        Select { cond, if_true, if_false } => {
            visit(*cond);
            visit(*if_true);
            visit(*if_false);
        }
        ExtractElement { vector, index } => {
            visit(*vector);
            visit(*index);
        }
        InsertElement { vector, element, index } => {
            visit(*vector);
            visit(*element);
            visit(*index);
        }
        Call { callee, args, .. } | CallIndirect { callee, args, .. } => {
            visit(*callee);
            args.iter().for_each(|a| visit(*a));
        }
    }
}

/// Calls `visit` with every successor block of a terminator, in order.
pub(super) fn for_each_successor(kind: &InstKind, mut visit: impl FnMut(u32)) {
    match kind {
        InstKind::Br { target } => visit(target.0),
        InstKind::CondBr { if_true, if_false, .. } => {
            visit(if_true.0);
            visit(if_false.0);
        }
        InstKind::Switch { default, cases, .. } => {
            visit(default.0);
            cases.iter().for_each(|c| visit(c.target.0));
        }
        _ => {}
    }
}

impl<'a> Fx<'a> {
    // ----------------------------------------------------------------
    // Small helpers
    // ----------------------------------------------------------------

    pub(super) fn w(&mut self) -> InstructionSink<'_> {
        InstructionSink::new(&mut self.b.code)
    }

    /// `op` with an unsigned LEB immediate (local.get/set/tee…), written
    /// directly (these are most of the bytes emitted).
    #[inline]
    pub(super) fn op_u32(&mut self, op: u8, mut x: u32) {
        let mut buf = [op, 0, 0, 0, 0, 0];
        let mut n = 1;
        loop {
            let byte = (x & 0x7f) as u8;
            x >>= 7;
            if x == 0 {
                buf[n] = byte;
                n += 1;
                break;
            }
            buf[n] = byte | 0x80;
            n += 1;
        }
        self.b.code.extend_from_slice(&buf[..n]);
    }

    /// A load or store (one-byte opcode) on memory 0.
    #[inline]
    fn mem_op(&mut self, op: u8, align_log2: u32, offset: u32) {
        self.b.code.push(op);
        self.op_u32(align_log2 as u8, offset);
    }

    /// `i32.const x`.
    #[inline]
    pub(super) fn i32_const(&mut self, x: i32) {
        let mut buf = [0x41u8, 0, 0, 0, 0, 0];
        let mut n = 1;
        let mut v = x;
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
            buf[n] = if done { byte } else { byte | 0x80 };
            n += 1;
            if done {
                break;
            }
        }
        self.b.code.extend_from_slice(&buf[..n]);
    }

    #[cold]
    pub(super) fn bug(&mut self, message: impl Into<String>) {
        if self.bug.is_none() {
            self.bug = Some(message.into());
        }
        self.w().unreachable();
    }

    /// Index into `vals` of a function-local value, if it is one.
    pub(super) fn local_index(&self, v: ValueId) -> Option<usize> {
        let i = v.0.checked_sub(self.f.first_local)? as usize;
        (i < self.b.vals.len()).then_some(i)
    }

    /// The PNaCl type of `v` (module-level values are i32 addresses).
    pub(super) fn ty(&self, v: ValueId) -> IrType {
        match self.local_index(v) {
            Some(i) => self.b.vals[i].ty,
            None => IrType::I32,
        }
    }

    /// The integer constant `v`, if it is one.
    pub(super) fn const_int(&self, v: ValueId) -> Option<i64> {
        let i = self.local_index(self.resolve(v))?;
        if self.b.vals[i].kind != Kind::Const {
            return None;
        }
        let c = self.f.consts.get(i - self.num_params as usize)?;
        match c.value {
            ConstValue::Int(x) => Some(x),
            _ => None,
        }
    }

    pub(super) fn is_undef(&self, v: ValueId) -> bool {
        match self.local_index(v) {
            Some(i) if self.b.vals[i].kind == Kind::Const => {
                self.f.consts.get(i - self.num_params as usize).is_some_and(|c| c.value == ConstValue::Undef)
            }
            _ => false,
        }
    }

    /// A local of type `t` beyond the value locals.
    pub(super) fn new_local(&mut self, t: W) -> u32 {
        self.b.extra_locals.push(t);
        self.num_params + self.num_value_locals + self.b.extra_locals.len() as u32 - 1
    }

    /// Scratch local `k` of type `t`, live only inside one instruction's code.
    pub(super) fn scratch(&mut self, t: W, k: usize) -> u32 {
        let ti = match t {
            W::I32 => 0,
            W::I64 => 1,
            W::F32 => 2,
            W::F64 => 3,
            _ => 4,
        };
        if self.b.scratch[ti][k] == NONE {
            self.b.scratch[ti][k] = self.new_local(t);
        }
        self.b.scratch[ti][k]
    }

    // ----------------------------------------------------------------
    // Analysis
    // ----------------------------------------------------------------

    fn analyze(&mut self) -> Result<(), TranslateError> {
        let f = self.f;
        let nvals = (f.end_value() - f.first_local) as usize;
        let b = &mut *self.b;
        b.vals.clear();
        b.insts.clear();
        b.pushes.clear();
        b.prepush.clear();
        b.extra_locals.clear();
        b.scratch = [[NONE; 4]; 5];
        b.dispatch_locals.clear();
        b.code.clear();
        b.setjmp_sites.clear();
        let blank = Val {
            kind: Kind::None,
            ty: IrType::I32,
            uses: 0,
            user: NONE,
            pinned: false,
            fold_fixup: Fixup::None,
            alias: NONE,
        };
        b.vals.resize(nvals, blank);
        for (i, &t) in f.params.iter().enumerate() {
            b.vals[i].ty = t;
            b.vals[i].kind = Kind::Local(i as u32);
        }
        let np = f.params.len();
        for (i, c) in f.consts.iter().enumerate() {
            b.vals[np + i].ty = c.ty;
            b.vals[np + i].kind = Kind::Const;
        }
        b.insts.resize(f.insts.len(), InstInfo::default());
        let (mut allocas, mut setjmp) = (0u32, false);
        for inst in &f.insts {
            if let Some((v, t)) = inst.result {
                let i = v.0.wrapping_sub(f.first_local) as usize;
                if i >= nvals {
                    return Err(self.unsupported("an instruction result outside the function's values"));
                }
                b.vals[i].ty = t;
            }
            match inst.kind {
                InstKind::Alloca { .. } => allocas += 1,
                InstKind::Call { .. } => setjmp |= is_setjmp_call(self.cx, inst),
                _ => {}
            }
        }
        self.has_setjmp = setjmp;
        self.num_allocas = allocas;

        self.build_vblocks()?;
        self.find_aliases();
        self.count_uses();
        self.place_static_allocas();
        if self.remove_dead_code() {
            // Exact counts and single users over what is left.
            self.count_uses();
        }
        self.absorb_address_offsets();
        self.collect_phi_entries();
        self.fold_operands();
        Ok(())
    }

    pub(super) fn unsupported(&self, message: &str) -> TranslateError {
        TranslateError::Unsupported { function: self.f.id.0, message: message.to_string() }
    }

    /// One virtual block per basic block, or (with setjmp) per part.
    fn build_vblocks(&mut self) -> Result<(), TranslateError> {
        let f = self.f;
        let n = f.blocks.len();
        let ninsts = f.insts.len() as u32;
        for blk in &f.blocks {
            if blk.start >= blk.end || blk.end > ninsts {
                return Err(self.unsupported("a basic block without instructions"));
            }
        }
        if self.has_setjmp {
            return self.build_setjmp_vblocks();
        }
        let b = &mut *self.b;
        b.vblocks.clear();
        b.first_vblock.clear();
        b.succ_start.clear();
        b.succs.clear();
        for (i, blk) in f.blocks.iter().enumerate() {
            b.vblocks.push(VBlock {
                orig: i as u32,
                start: blk.start,
                end: blk.end,
                term: Term::Real,
                first_part: true,
            });
            b.first_vblock.push(i as u32);
            b.succ_start.push(b.succs.len() as u32);
            let term = &f.insts[blk.end as usize - 1];
            let mut bad = false;
            for_each_successor(&term.kind, |t| {
                bad |= t as usize >= n;
                b.succs.push(t);
            });
            if bad {
                return Err(self.unsupported("a branch to a block that does not exist"));
            }
            for k in blk.start..blk.end {
                b.insts[k as usize].vblock = i as u32;
            }
        }
        b.succ_start.push(b.succs.len() as u32);
        Ok(())
    }

    /// Casts that are nothing in wasm (zext to i32 of a zero-extended
    /// value, same-representation bitcasts, sext of a mask) become aliases
    /// of their operand and are not emitted.
    fn find_aliases(&mut self) {
        let f = self.f;
        for blk in &f.blocks {
            self.b.cse.clear();
            for k in blk.start as usize..blk.end as usize {
                let inst = &f.insts[k];
                let Some((v, _)) = inst.result else { continue };
                let Some(i) = self.local_index(v) else { continue };
                if let InstKind::Cast { op, value, to } = inst.kind {
                    if value != v && is_noop_cast(op, self.ty(value), to) {
                        self.b.vals[i].alias = value.0;
                        self.b.insts[k].emit = false;
                        continue;
                    }
                }
                // The same pure computation earlier in the block: reuse it.
                let Some(key) = self.cse_key(&inst.kind) else { continue };
                match self.b.cse.entry(key) {
                    std::collections::hash_map::Entry::Occupied(e) => {
                        let earlier = *e.get();
                        if earlier != v.0 {
                            self.b.vals[i].alias = earlier;
                            self.b.insts[k].emit = false;
                        }
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(v.0);
                    }
                }
            }
        }
    }

    /// What makes two instructions compute the same value: integer
    /// arithmetic, compares and casts, with operands seen through aliases
    /// (and ordered, for commutative operators).
    fn cse_key(&self, kind: &InstKind) -> Option<CseKey> {
        let r = |v: ValueId| self.resolve(v).0;
        Some(match *kind {
            InstKind::Binop { op, lhs, rhs, .. } => {
                let t = self.ty(lhs);
                if !t.is_int_or_int_vector() {
                    return None;
                }
                let (mut a, mut b) = (r(lhs), r(rhs));
                if matches!(op, BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor) && a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                (op.code() as u32, a, b, type_code(t))
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let t = self.ty(lhs);
                if !t.is_int_or_int_vector() {
                    return None;
                }
                (0x100 + pred.code() as u32, r(lhs), r(rhs), type_code(t))
            }
            InstKind::Cast { op, value, to } => {
                (0x200 + op.code() as u32, r(value), type_code(self.ty(value)), type_code(to))
            }
            _ => return None,
        })
    }

    /// The value `v` stands for (through aliases).
    pub(super) fn resolve(&self, v: ValueId) -> ValueId {
        resolve_in(&self.b.vals, self.f.first_local, v)
    }

    /// Counts the uses of each value by instructions still emitted, and
    /// notes the last user.
    fn count_uses(&mut self) {
        let f = self.f;
        let first = f.first_local;
        let b = &mut *self.b;
        let n = b.vals.len();
        for v in b.vals.iter_mut() {
            v.uses = 0;
            v.user = NONE;
        }
        for (k, inst) in f.insts.iter().enumerate() {
            if !b.insts[k].emit {
                continue;
            }
            let is_phi = matches!(inst.kind, InstKind::Phi { .. });
            for_each_operand(&inst.kind, |v| {
                let i = resolve_in(&b.vals, first, v).0.wrapping_sub(first) as usize;
                if i < n {
                    let val = &mut b.vals[i];
                    val.uses += 1;
                    val.user = if is_phi { NONE } else { k as u32 };
                }
            });
        }
    }

    /// Entry-block allocas of constant size become offsets in one frame
    /// allocated on entry.
    fn place_static_allocas(&mut self) {
        let f = self.f;
        let entry = f.blocks[0];
        let mut offset: u64 = 0;
        let mut max_align: u32 = 1;
        let mut statics = 0;
        if self.num_allocas == 0 {
            return;
        }
        for k in entry.start..entry.end {
            let inst = &f.insts[k as usize];
            let InstKind::Alloca { size, align } = inst.kind else { continue };
            let Some((v, _)) = inst.result else { continue };
            let Some(sz) = self.const_int(size) else { continue };
            let sz = sz as u32 as u64;
            let align = align.max(1);
            let at = offset.div_ceil(u64::from(align)) * u64::from(align);
            if at + sz > 1 << 30 || !align.is_power_of_two() {
                continue;
            }
            let Some(i) = self.local_index(v) else { continue };
            offset = at + sz;
            max_align = max_align.max(align);
            self.b.vals[i].kind = Kind::Frame(at as u32);
            // It emits nothing where it stands.
            self.b.insts[k as usize].emit = false;
            statics += 1;
        }
        self.has_frame = statics > 0;
        if self.has_frame {
            self.frame_size = (offset.div_ceil(u64::from(max_align)) * u64::from(max_align)) as u32;
            self.frame_align = max_align;
        }
        self.has_dynamic_alloca = self.num_allocas > statics;
    }

    fn has_frame(&self) -> bool {
        self.has_frame
    }

    /// Unused results of effect-free instructions are not computed; their
    /// operands lose a use (one backward pass).
    fn remove_dead_code(&mut self) -> bool {
        let mut removed = false;
        let f = self.f;
        let first = f.first_local;
        for k in (0..f.insts.len()).rev() {
            let inst = &f.insts[k];
            if !self.b.insts[k].emit {
                continue;
            }
            let Some((v, _)) = inst.result else { continue };
            let Some(i) = self.local_index(v) else { continue };
            let val = self.b.vals[i];
            if val.uses != 0 || val.pinned {
                continue;
            }
            let dead = match val.kind {
                Kind::Frame(_) => true,
                _ => is_pure(self.cx, &inst.kind),
            };
            if !dead {
                continue;
            }
            self.b.insts[k].emit = false;
            removed = true;
            let b = &mut *self.b;
            let n = b.vals.len();
            for_each_operand(&inst.kind, |o| {
                let j = resolve_in(&b.vals, first, o).0.wrapping_sub(first) as usize;
                if j < n && b.vals[j].uses > 0 {
                    b.vals[j].uses -= 1;
                }
            });
        }
        removed
    }

    /// `load (add p, C)` with a small constant C becomes `load offset=C p`
    /// when every use of the add is the address of a load or store (the add
    /// is then left out): wasm adds the offset without the 32-bit wrap, so
    /// an engine cannot do this itself. Frame addresses become
    /// `offset=off` of the frame base when pushed.
    fn absorb_address_offsets(&mut self) {
        let f = self.f;
        // Pass 1: how many uses of each add are load/store addresses, and
        // the last such access.
        let mut counts = std::mem::take(&mut self.b.addr_uses);
        counts.clear();
        counts.resize(self.b.vals.len(), (0, NONE));
        let mut any = false;
        for k in 0..f.insts.len() {
            if let Some((pi, _, _, _)) = self.offset_address(k) {
                counts[pi].0 += 1;
                counts[pi].1 = k as u32;
                any = true;
            }
        }
        if !any {
            self.b.addr_uses = counts;
            return;
        }
        // Pass 2: rewrite the accesses of adds used only that way.
        for k in 0..f.insts.len() {
            let Some((pi, d, base, c)) = self.offset_address(k) else { continue };
            if counts[pi].0 != self.b.vals[pi].uses {
                continue;
            }
            self.b.insts[k].addr = base.0;
            self.b.insts[k].offset = c;
            if counts[pi].1 == k as u32 {
                // The last access: retire the add. Its one use of `base`
                // becomes one use per access.
                self.b.insts[d].emit = false;
                self.b.vals[pi].uses = 0;
                if let Some(bi) = self.local_index(base) {
                    self.b.vals[bi].uses += counts[pi].0 - 1;
                    self.b.vals[bi].user = k as u32;
                }
            }
        }
        self.b.addr_uses = counts;
    }

    /// For load/store `k` whose address is `add base, C`: (value index of
    /// the add, the add instruction, base, C).
    fn offset_address(&self, k: usize) -> Option<(usize, usize, ValueId, u32)> {
        let f = self.f;
        if !self.b.insts[k].emit || self.b.insts[k].addr != NONE {
            return None;
        }
        let ptr = match f.insts[k].kind {
            InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => self.resolve(ptr),
            _ => return None,
        };
        let pi = self.local_index(ptr)?;
        let pv = self.b.vals[pi];
        if pv.kind != Kind::None || pv.pinned || pv.uses == 0 {
            return None;
        }
        let d = self.def_inst(ptr)?;
        let InstKind::Binop { op: BinOp::Add, lhs, rhs, .. } = f.insts[d].kind else { return None };
        if !self.b.insts[d].emit {
            return None;
        }
        let (base, c) = match (self.const_int(rhs), self.const_int(lhs)) {
            (Some(c), _) => (self.resolve(lhs), c),
            (None, Some(c)) => (self.resolve(rhs), c),
            _ => return None,
        };
        if !(0..1 << 30).contains(&(c as i32 as i64)) || self.ty(base) != IrType::I32 {
            return None;
        }
        Some((pi, d, base, c as i32 as u32))
    }

    /// The instruction defining `v`, if an instruction does.
    pub(super) fn def_inst(&self, v: ValueId) -> Option<usize> {
        let i = self.local_index(v)?;
        let first_inst = self.num_params as usize + self.f.consts.len();
        let r = i.checked_sub(first_inst)?;
        self.f.results.get(r).map(|id| id.0 as usize)
    }

    /// Decides which results stay on the stack (see the module docs).
    fn fold_operands(&mut self) {
        let f = self.f;
        for vb in 0..self.b.vblocks.len() {
            let VBlock { start, end, term, .. } = self.b.vblocks[vb];
            if term == Term::SjEntry {
                continue;
            }
            self.b.roots.clear();
            for k in start..end {
                let k = k as usize;
                if !self.b.insts[k].emit {
                    continue;
                }
                let inst = &f.insts[k];
                if matches!(inst.kind, InstKind::Phi { .. }) {
                    continue;
                }
                let ps = self.b.pushes.len() as u32;
                let copies = term == Term::Real && k as u32 + 1 == end && self.plan_copies(vb, k);
                if !copies {
                    self.plan(k);
                }
                let pe = self.b.pushes.len() as u32;
                let b = &mut *self.b;
                b.insts[k].push_start = ps;
                b.insts[k].push_end = pe;
                // Match the trailing roots against the pushes, last first.
                b.matched.clear();
                let mut j = pe;
                let mut r = b.roots.len();
                while r > 0 {
                    let top = b.roots[r - 1] as usize;
                    let Some((tv, _)) = f.insts[top].result else { break };
                    let ti = tv.0.wrapping_sub(f.first_local) as usize;
                    let Some(val) = b.vals.get(ti) else { break };
                    // A phi copy on this block's only edge is a use "by" the
                    // terminator (phi uses have no user instruction).
                    let user = if copies { NONE } else { k as u32 };
                    if val.uses != 1 || val.user != user || val.pinned || val.kind != Kind::None {
                        break;
                    }
                    let Some(pos) = (ps..j).rev().find(|&p| b.pushes[p as usize].value == tv) else { break };
                    b.matched.push(pos);
                    j = pos;
                    r -= 1;
                }
                let mut own_from = ps;
                let mut first = k as u32;
                if !b.matched.is_empty() {
                    let mut prev = ps;
                    for (idx, &pos) in b.matched.iter().rev().enumerate() {
                        let root = b.roots[r + idx] as usize;
                        let (rv, _) = f.insts[root].result.expect("matched roots have results");
                        let ri = (rv.0 - f.first_local) as usize;
                        b.vals[ri].kind = Kind::Folded;
                        b.vals[ri].fold_fixup = b.pushes[pos as usize].fixup;
                        if prev < pos {
                            let at = b.insts[root].first as usize;
                            let head = b.insts[at].prepush_head;
                            b.insts[at].prepush_head = b.prepush.len() as u32;
                            b.prepush.push(PrePush { from: prev, to: pos, next: head });
                        }
                        prev = pos + 1;
                    }
                    own_from = prev;
                    first = b.insts[b.roots[r] as usize].first;
                    b.roots.truncate(r);
                }
                b.insts[k].own_from = own_from;
                b.insts[k].first = first;
                b.roots.push(k as u32);
            }
        }
    }

    /// When block `vb` ends in `br` to a block with phis, the phi copies
    /// become the pushes of the `br` (`k`): all sources are pushed, then the
    /// copies set the phis in reverse order, so sources computed at the end
    /// of the block can stay on the stack.
    fn plan_copies(&mut self, vb: usize, k: usize) -> bool {
        let f = self.f;
        let InstKind::Br { target } = f.insts[k].kind else { return false };
        let Some(&tv) = self.b.first_vblock.get(target.0 as usize) else { return false };
        if !self.b.has_phis.get(tv as usize).copied().unwrap_or(false) {
            return false;
        }
        let pred = self.b.vblocks[vb].orig;
        let blk = f.blocks[target.0 as usize];
        for p in blk.start..blk.end {
            let inst = &f.insts[p as usize];
            if !matches!(inst.kind, InstKind::Phi { .. }) {
                break;
            }
            if let Some(src) = self.copy_source(p as usize, pred) {
                self.push(src, Fixup::None);
            }
        }
        self.b.insts[k].copies_planned = true;
        true
    }

    /// The value phi `p` takes on the edge from block `pred`, if the edge
    /// needs a copy for it (the phi is live, the value is neither the phi
    /// itself nor undef).
    pub(super) fn copy_source(&self, p: usize, pred: u32) -> Option<ValueId> {
        let (dv, _) = self.f.insts[p].result?;
        let di = self.local_index(dv)?;
        let live = match self.b.vals[di].kind {
            Kind::None => self.b.vals[di].uses > 0,
            Kind::Local(_) => true,
            _ => false,
        };
        if !live {
            return None;
        }
        let (s, e) = self.b.phi_range[p];
        let entries = &self.b.phi_in[s as usize..e as usize];
        let pos = entries.partition_point(|&(b, _)| b < pred);
        let &(b, src) = entries.get(pos)?;
        let src = self.resolve(ValueId(src));
        (b == pred && src != dv && !self.is_undef(src)).then_some(src)
    }

    /// Locals of the frame: the frame base and the saved stack pointer.
    fn frame_locals(&mut self) {
        if self.has_frame() {
            self.frame_local = self.new_local(W::I32);
        }
        if self.has_frame() || self.has_dynamic_alloca {
            self.saved_sp_local = self.new_local(W::I32);
        }
    }

    /// Sorts each live phi's entries by block for the edge copies.
    fn collect_phi_entries(&mut self) {
        let f = self.f;
        let b = &mut *self.b;
        b.phi_in.clear();
        b.phi_range.clear();
        b.phi_range.resize(f.insts.len(), (0, 0));
        b.has_phis.clear();
        b.has_phis.resize(b.vblocks.len(), false);
        for (k, inst) in f.insts.iter().enumerate() {
            let InstKind::Phi { incoming, .. } = &inst.kind else { continue };
            let Some((v, _)) = inst.result else { continue };
            let i = v.0.wrapping_sub(f.first_local) as usize;
            if !b.vals.get(i).is_some_and(|x| x.kind == Kind::None && x.uses > 0) {
                continue;
            }
            let start = b.phi_in.len();
            b.phi_in.extend(incoming.iter().map(|&(val, blk)| (blk.0, val.0)));
            b.phi_in[start..].sort_unstable();
            b.phi_range[k] = (start as u32, b.phi_in.len() as u32);
            let vb = b.insts[k].vblock;
            if vb != NONE {
                b.has_phis[vb as usize] = true;
            }
        }
    }

    // ----------------------------------------------------------------
    // Operand pushes
    // ----------------------------------------------------------------

    fn push(&mut self, v: ValueId, fixup: Fixup) {
        let value = self.resolve(v);
        self.b.pushes.push(Push { value, fixup });
    }

    /// Lists the operands instruction `k` pushes, in push order. Must agree
    /// with `lower`.
    fn plan(&mut self, k: usize) {
        let f = self.f;
        let inst = &f.insts[k];
        use InstKind::*;
        match &inst.kind {
            Binop { op, lhs, rhs, .. } => {
                let t = self.ty(*lhs);
                if let IrType::Scalar(s) = t {
                    let (fl, fr) = match (op, s) {
                        (BinOp::AShr, _) => (sext_fixup(s), Fixup::None),
                        (BinOp::SDiv | BinOp::SRem, _) if s.is_int() => (sext_fixup(s), sext_fixup(s)),
                        (BinOp::SRem, Scalar::F32) => (Fixup::Promote, Fixup::Promote),
                        _ => (Fixup::None, Fixup::None),
                    };
                    self.push(*lhs, fl);
                    self.push(*rhs, fr);
                } else if vector_binop(*op, t).is_some() {
                    self.push(*lhs, Fixup::None);
                    self.push(*rhs, Fixup::None);
                }
            }
            Cast { op, value, .. } => {
                let from = self.ty(*value);
                let fix = match (op, from) {
                    (CastOp::SiToFp, IrType::Scalar(s)) => sext_fixup(s),
                    _ => Fixup::None,
                };
                self.push(*value, fix);
            }
            Cmp { pred, lhs, rhs } => {
                let t = self.ty(*lhs);
                if let Some(x) = self.eqz_operand(*pred, *lhs, *rhs).or_else(|| self.truthy_operand(k)) {
                    self.push(x, Fixup::None);
                } else if cmp_is_simple(*pred, t) {
                    let fix = match (pred, t) {
                        (CmpPred::ISgt | CmpPred::ISge | CmpPred::ISlt | CmpPred::ISle, IrType::Scalar(s)) => {
                            sext_fixup(s)
                        }
                        _ => Fixup::None,
                    };
                    self.push(*lhs, fix);
                    self.push(*rhs, fix);
                }
            }
            Select { cond, if_true, if_false } => {
                self.push(*if_true, Fixup::None);
                self.push(*if_false, Fixup::None);
                self.push(*cond, Fixup::None);
            }
            ExtractElement { vector, .. } => self.push(*vector, Fixup::None),
            InsertElement { vector, element, .. } => {
                let fix = if self.ty(*vector).elem() == Scalar::I1 { Fixup::NegI1 } else { Fixup::None };
                self.push(*vector, Fixup::None);
                self.push(*element, fix);
            }
            Alloca { .. } | Phi { .. } | Br { .. } | Unreachable => {}
            Load { ptr, .. } => {
                let a = self.address_of(k, *ptr);
                self.push(a, Fixup::None);
            }
            Store { ptr, value, .. } => {
                let a = self.address_of(k, *ptr);
                self.push(a, Fixup::None);
                self.push(*value, Fixup::None);
            }
            Ret { value } => {
                if let Some(v) = value {
                    self.push(*v, Fixup::None);
                }
            }
            CondBr { cond, .. } => self.push(*cond, Fixup::None),
            Switch { cond, cases, ty, .. } => {
                if self.switch_is_dense(*ty, cases) {
                    self.push(*cond, Fixup::None);
                }
            }
            Call { callee, args, .. } => match self.cx.callee(*callee) {
                Some(Callee::Defined { .. }) => {
                    for &a in args.iter() {
                        self.push(a, Fixup::None);
                    }
                }
                Some(Callee::Intrinsic(i)) => self.plan_intrinsic(i, args),
                _ => {}
            },
            CallIndirect { callee, args, .. } => {
                for &a in args.iter() {
                    self.push(a, Fixup::None);
                }
                if self.direct_target(*callee, args, inst).is_none() {
                    self.push(*callee, Fixup::None);
                }
            }
        }
    }

    /// The address operand of load/store `k` (after offset absorption).
    fn address_of(&self, k: usize, ptr: ValueId) -> ValueId {
        match self.b.insts[k].addr {
            NONE => ptr,
            a => ValueId(a),
        }
    }

    /// An indirect call of a constant function address becomes a direct
    /// call. When the call's signature differs from the function's (C code
    /// calling `int main(void)` as `main(argc, argv, envp)`, which native
    /// code tolerates), the call is adapted as a native caller's would be:
    /// extra trailing arguments are dropped, missing ones are zero, an
    /// unused result is dropped and a missing one is zero. Arguments whose
    /// types differ cannot be adapted: the call stays indirect (and traps).
    fn direct_target(&self, callee: ValueId, args: &[ValueId], inst: &Inst) -> Option<DirectCall> {
        let Some(Callee::Defined { index, .. }) = self.cx.callee(callee) else { return None };
        let decl = self.cx.funcs.get(callee.0 as usize)?;
        let ret = match inst.kind {
            InstKind::CallIndirect { ret, .. } => ret,
            _ => return None,
        };
        let common = decl.params.len().min(args.len());
        let prefix_matches =
            decl.params.iter().zip(args).take(common).all(|(&p, &a)| wasm_type(p) == wasm_type(self.ty(a)));
        if !prefix_matches {
            return None;
        }
        let result = match (decl.ret.map(wasm_type), ret.map(wasm_type)) {
            (a, b) if a == b => ResultFix::Same,
            (Some(_), None) => ResultFix::Drop,
            (None, Some(t)) => ResultFix::Zero(t),
            _ => return None,
        };
        Some(DirectCall {
            index,
            drop: (args.len() - common) as u32,
            pad: decl.params[common..].iter().map(|&p| wasm_type(p)).collect(),
            result,
        })
    }

    // ----------------------------------------------------------------
    // Emission of values
    // ----------------------------------------------------------------

    /// Pushes value `v` (which must not be folded).
    pub(super) fn get(&mut self, v: ValueId) {
        let v = self.resolve(v);
        let Some(i) = self.local_index(v) else {
            let x = v.0;
            if x < self.cx.num_funcs {
                self.i32_const((self.cx.pexe_table_base + x) as i32);
            } else {
                let g = (x - self.cx.num_funcs) as usize;
                match self.cx.global_addrs.get(g) {
                    Some(&a) => self.i32_const(a as i32),
                    None => self.bug(format!("value %{x} is not defined")),
                }
            }
            return;
        };
        let val = self.b.vals[i];
        match val.kind {
            Kind::Local(l) => {
                let (at, set, end) = self.last_set;
                if set == l && end == self.b.code.len() {
                    self.b.code[at] = 0x22; // local.set → local.tee
                    self.last_set.1 = NONE;
                } else {
                    self.op_u32(0x20, l);
                }
            }
            Kind::Const => self.emit_const(i),
            Kind::Frame(off) => {
                let fl = self.frame_local;
                self.w().local_get(fl);
                if off != 0 {
                    self.w().i32_const(off as i32).i32_add();
                }
            }
            Kind::Folded | Kind::None => {
                // Unused values read only by dead code: any value will do.
                if val.uses == 0 {
                    self.zero(val.ty);
                } else {
                    self.bug(format!("value %v{} read out of order", v.0))
                }
            }
        }
    }

    fn emit_const(&mut self, i: usize) {
        let c = self.f.consts[i - self.num_params as usize];
        match (c.value, c.ty) {
            (ConstValue::Int(x), IrType::Scalar(s)) => match s {
                Scalar::I64 => {
                    self.w().i64_const(x);
                }
                _ => {
                    let x = match int_mask(s) {
                        Some(m) => (x as i32) & m,
                        None => x as i32,
                    };
                    self.i32_const(x);
                }
            },
            (ConstValue::Float(bits), IrType::Scalar(Scalar::F32)) => {
                self.w().f32_const(Ieee32::new(bits as u32));
            }
            (ConstValue::Float(bits), IrType::Scalar(Scalar::F64)) => {
                self.w().f64_const(Ieee64::new(bits));
            }
            (_, t) => self.zero(t),
        }
    }

    pub(super) fn zero(&mut self, t: IrType) {
        self.zero_w(wasm_type(t));
    }

    fn zero_w(&mut self, t: W) {
        match t {
            W::I32 => self.w().i32_const(0),
            W::I64 => self.w().i64_const(0),
            W::F32 => self.w().f32_const(Ieee32::new(0)),
            W::F64 => self.w().f64_const(Ieee64::new(0)),
            _ => self.w().v128_const(0),
        };
    }

    fn fixup(&mut self, fix: Fixup) {
        match fix {
            Fixup::None => {}
            Fixup::Sext8 => {
                self.w().i32_extend8_s();
            }
            Fixup::Sext16 => {
                self.w().i32_extend16_s();
            }
            Fixup::NegI1 => {
                self.w().i32_const(-1).i32_mul();
            }
            Fixup::Promote => {
                self.w().f64_promote_f32();
            }
        }
    }

    fn push_range(&mut self, from: u32, to: u32) {
        for p in from..to {
            let Push { value, fixup } = self.b.pushes[p as usize];
            self.get(value);
            self.fixup(fixup);
        }
    }

    /// Emits the pre-pushes that start at `k` and `k`'s own pushes.
    pub(super) fn emit_pushes(&mut self, k: usize) {
        let mut e = self.b.insts[k].prepush_head;
        while e != NONE {
            let PrePush { from, to, next } = self.b.prepush[e as usize];
            self.push_range(from, to);
            e = next;
        }
        let InstInfo { own_from, push_end, .. } = self.b.insts[k];
        self.push_range(own_from, push_end);
    }

    /// Emits non-terminator instruction `k` in full.
    pub(super) fn emit_inst(&mut self, k: usize) {
        self.emit_pushes(k);
        let inst = &self.f.insts[k];
        let pushed = self.lower(k, inst);
        self.terminal = false;
        if let Some((v, _)) = inst.result {
            let Some(i) = self.local_index(v) else { return };
            let val = self.b.vals[i];
            match val.kind {
                Kind::Local(l) if pushed => {
                    let at = self.b.code.len();
                    self.op_u32(0x21, l);
                    self.last_set = (at, l, self.b.code.len());
                }
                Kind::Folded => self.fixup(val.fold_fixup),
                _ if pushed => {
                    self.w().drop();
                }
                _ => {}
            }
        }
    }

    // ----------------------------------------------------------------
    // Instructions
    // ----------------------------------------------------------------

    /// Emits instruction `k` after its pushes; answers whether it left its
    /// result on the stack (false for void and for results already stored).
    fn lower(&mut self, k: usize, inst: &'a Inst) -> bool {
        use InstKind::*;
        match &inst.kind {
            Binop { op, lhs, rhs, .. } => self.lower_binop(*op, *lhs, *rhs),
            Cast { op, value, to } => self.lower_cast(*op, self.ty(*value), *to),
            Cmp { pred, lhs, rhs } => self.lower_cmp(*pred, *lhs, *rhs, k),
            Select { cond, .. } => {
                if self.ty(*cond).is_vector() {
                    self.w().v128_bitselect();
                } else {
                    self.w().select();
                }
            }
            ExtractElement { vector, index } => {
                let lane = self.const_int(*index).unwrap_or(0) as u8;
                match self.ty(*vector) {
                    IrType::Vector { elem, lanes } => self.extract_lane(elem, lanes, lane, false),
                    _ => self.bug("extractelement of a scalar"),
                }
                if self.ty(*vector).elem() == Scalar::I1 {
                    self.w().i32_const(1).i32_and();
                }
            }
            InsertElement { vector, index, .. } => {
                let lane = self.const_int(*index).unwrap_or(0) as u8;
                match self.ty(*vector) {
                    IrType::Vector { elem, lanes } => self.replace_lane(elem, lanes, lane),
                    _ => self.bug("insertelement into a scalar"),
                }
            }
            Alloca { size, align } => self.lower_dynamic_alloca(*size, *align),
            Load { ty, align, .. } => {
                let (align, offset) = (align_log2(*align, access_size(*ty)), self.b.insts[k].offset);
                match ty {
                    IrType::Scalar(Scalar::I8) => self.mem_op(0x2D, align, offset), // i32.load8_u
                    IrType::Scalar(Scalar::I16) => self.mem_op(0x2F, align, offset), // i32.load16_u
                    IrType::Scalar(Scalar::I1 | Scalar::I32) => self.mem_op(0x28, align, offset),
                    IrType::Scalar(Scalar::I64) => self.mem_op(0x29, align, offset),
                    IrType::Scalar(Scalar::F32) => self.mem_op(0x2A, align, offset),
                    IrType::Scalar(Scalar::F64) => self.mem_op(0x2B, align, offset),
                    IrType::Vector { .. } => {
                        self.w().v128_load(memarg(offset, align));
                    }
                };
                if *ty == IrType::I1 {
                    self.w().i32_const(1).i32_and();
                }
            }
            Store { value, align, .. } => {
                let ty = self.ty(*value);
                let (align, offset) = (align_log2(*align, access_size(ty)), self.b.insts[k].offset);
                match ty {
                    IrType::Scalar(Scalar::I1 | Scalar::I8) => self.mem_op(0x3A, align, offset), // i32.store8
                    IrType::Scalar(Scalar::I16) => self.mem_op(0x3B, align, offset),
                    IrType::Scalar(Scalar::I32) => self.mem_op(0x36, align, offset),
                    IrType::Scalar(Scalar::I64) => self.mem_op(0x37, align, offset),
                    IrType::Scalar(Scalar::F32) => self.mem_op(0x38, align, offset),
                    IrType::Scalar(Scalar::F64) => self.mem_op(0x39, align, offset),
                    IrType::Vector { .. } => {
                        self.w().v128_store(memarg(offset, align));
                    }
                };
                return false;
            }
            Call { callee, args, ret, .. } => {
                return match self.cx.callee(*callee) {
                    Some(Callee::Defined { index, .. }) => {
                        self.w().call(index);
                        ret.is_some()
                    }
                    Some(Callee::Intrinsic(i)) => self.lower_intrinsic(k, i, args, *ret),
                    _ => {
                        self.w()
                            .i32_const(super::imports::fault::MISSING_FUNCTION)
                            .i32_const(callee.0 as i32)
                            .call(FAULT_FUNC)
                            .unreachable();
                        self.terminal = true;
                        ret.is_some()
                    }
                };
            }
            CallIndirect { callee, args, ret, .. } => {
                if let Some(d) = self.direct_target(*callee, args, inst) {
                    for _ in 0..d.drop {
                        self.w().drop();
                    }
                    for &t in &d.pad {
                        self.zero_w(t);
                    }
                    self.w().call(d.index);
                    match d.result {
                        ResultFix::Same => {}
                        ResultFix::Drop => {
                            self.w().drop();
                        }
                        ResultFix::Zero(t) => self.zero_w(t),
                    }
                } else {
                    let ty = {
                        let vals = &self.b.vals;
                        let first = self.f.first_local;
                        let ty_of = |a: &ValueId| match a.0.checked_sub(first) {
                            Some(i) if (i as usize) < vals.len() => vals[i as usize].ty,
                            _ => IrType::I32,
                        };
                        self.sigs.intern_pnacl(args.iter().map(ty_of), *ret)
                    };
                    self.w().call_indirect(0, ty);
                }
                return ret.is_some();
            }
            Phi { .. } | Ret { .. } | Br { .. } | CondBr { .. } | Switch { .. } | Unreachable => {
                self.bug("a terminator or phi in the middle of a block");
                return false;
            }
        }
        true
    }

    fn lower_binop(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) {
        let t = self.ty(lhs);
        match t {
            IrType::Scalar(s) if s.is_float() => self.float_binop(op, s),
            IrType::Scalar(s) => {
                self.int_binop(op, s == Scalar::I64);
                if let Some(m) = int_mask(s) {
                    if matches!(
                        op,
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::AShr | BinOp::SDiv | BinOp::SRem
                    ) {
                        self.w().i32_const(m).i32_and();
                    }
                }
            }
            IrType::Vector { elem, lanes } => match vector_binop(op, t) {
                Some(simd) => self.emit_simd(simd),
                None => self.scalarize_binop(op, elem, lanes, lhs, rhs),
            },
        }
    }

    fn int_binop(&mut self, op: BinOp, wide: bool) {
        let mut w = self.w();
        use BinOp::*;
        if wide {
            match op {
                Add => w.i64_add(),
                Sub => w.i64_sub(),
                Mul => w.i64_mul(),
                UDiv => w.i64_div_u(),
                SDiv => w.i64_div_s(),
                URem => w.i64_rem_u(),
                SRem => w.i64_rem_s(),
                Shl => w.i64_shl(),
                LShr => w.i64_shr_u(),
                AShr => w.i64_shr_s(),
                And => w.i64_and(),
                Or => w.i64_or(),
                Xor => w.i64_xor(),
            };
        } else {
            match op {
                Add => w.i32_add(),
                Sub => w.i32_sub(),
                Mul => w.i32_mul(),
                UDiv => w.i32_div_u(),
                SDiv => w.i32_div_s(),
                URem => w.i32_rem_u(),
                SRem => w.i32_rem_s(),
                Shl => w.i32_shl(),
                LShr => w.i32_shr_u(),
                AShr => w.i32_shr_s(),
                And => w.i32_and(),
                Or => w.i32_or(),
                Xor => w.i32_xor(),
            };
        }
    }

    #[allow(clippy::needless_return)] // a bug arm must match the sink type of the others
    fn float_binop(&mut self, op: BinOp, s: Scalar) {
        let f64_ = s == Scalar::F64;
        let mut w = self.w();
        match (op, f64_) {
            (BinOp::Add, false) => w.f32_add(),
            (BinOp::Sub, false) => w.f32_sub(),
            (BinOp::Mul, false) => w.f32_mul(),
            (BinOp::SDiv, false) => w.f32_div(),
            (BinOp::Add, true) => w.f64_add(),
            (BinOp::Sub, true) => w.f64_sub(),
            (BinOp::Mul, true) => w.f64_mul(),
            (BinOp::SDiv, true) => w.f64_div(),
            (BinOp::SRem, true) => w.call(FMOD_FUNC),
            (BinOp::SRem, false) => w.call(FMOD_FUNC).f32_demote_f64(),
            _ => return self.bug(format!("{} on floating point", op.name(true))),
        };
    }

    /// A lane-wise binop SIMD has no instruction for: lane by lane.
    fn scalarize_binop(&mut self, op: BinOp, elem: Scalar, lanes: u32, lhs: ValueId, rhs: ValueId) {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem | BinOp::AShr);
        self.get(lhs);
        for lane in 0..lanes as u8 {
            self.get(lhs);
            self.extract_lane(elem, lanes, lane, signed);
            if elem == Scalar::F32 {
                self.w().f64_promote_f32();
            }
            self.get(rhs);
            self.extract_lane(elem, lanes, lane, signed);
            if elem == Scalar::F32 {
                self.w().f64_promote_f32();
            }
            if elem.is_float() {
                self.float_binop(op, Scalar::F64);
                self.w().f32_demote_f64();
            } else {
                self.int_binop(op, false);
            }
            self.replace_lane(elem, lanes, lane);
        }
    }

    pub(super) fn extract_lane(&mut self, elem: Scalar, lanes: u32, lane: u8, signed: bool) {
        let mut w = self.w();
        match (elem, lanes) {
            (Scalar::F32, _) => w.f32x4_extract_lane(lane),
            (_, 4) => w.i32x4_extract_lane(lane),
            (_, 8) if signed => w.i16x8_extract_lane_s(lane),
            (_, 8) => w.i16x8_extract_lane_u(lane),
            (_, _) if signed => w.i8x16_extract_lane_s(lane),
            (_, _) => w.i8x16_extract_lane_u(lane),
        };
    }

    pub(super) fn replace_lane(&mut self, elem: Scalar, lanes: u32, lane: u8) {
        let mut w = self.w();
        match (elem, lanes) {
            (Scalar::F32, _) => w.f32x4_replace_lane(lane),
            (_, 4) => w.i32x4_replace_lane(lane),
            (_, 8) => w.i16x8_replace_lane(lane),
            (_, _) => w.i8x16_replace_lane(lane),
        };
    }

    fn emit_simd(&mut self, op: Simd) {
        let mut w = self.w();
        use Simd::*;
        match op {
            And => w.v128_and(),
            Or => w.v128_or(),
            Xor => w.v128_xor(),
            I8Add => w.i8x16_add(),
            I8Sub => w.i8x16_sub(),
            I16Add => w.i16x8_add(),
            I16Sub => w.i16x8_sub(),
            I16Mul => w.i16x8_mul(),
            I32Add => w.i32x4_add(),
            I32Sub => w.i32x4_sub(),
            I32Mul => w.i32x4_mul(),
            F32Add => w.f32x4_add(),
            F32Sub => w.f32x4_sub(),
            F32Mul => w.f32x4_mul(),
            F32Div => w.f32x4_div(),
        };
    }

    fn lower_cast(&mut self, op: CastOp, from: IrType, to: IrType) {
        match (from, to) {
            (IrType::Scalar(a), IrType::Scalar(b)) => self.scalar_cast(op, a, b),
            (IrType::Vector { elem: a, lanes }, IrType::Vector { elem: b, .. }) => self.vector_cast(op, a, b, lanes),
            (IrType::Vector { elem: Scalar::I1, lanes: 16 }, IrType::Scalar(Scalar::I16)) if op == CastOp::Bitcast => {
                self.w().i8x16_bitmask();
            }
            (IrType::Vector { elem: Scalar::I1, lanes: 8 }, IrType::Scalar(Scalar::I8)) if op == CastOp::Bitcast => {
                self.w().i16x8_bitmask();
            }
            (IrType::Scalar(Scalar::I16), IrType::Vector { elem: Scalar::I1, lanes: 16 }) if op == CastOp::Bitcast => {
                // Byte 0 to lanes 0-7, byte 1 to lanes 8-15, then test bit i % 8.
                let bits = i128::from_le_bytes([1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]);
                let pick = i128::from_le_bytes([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
                self.w()
                    .i16x8_splat()
                    .v128_const(pick)
                    .i8x16_swizzle()
                    .v128_const(bits)
                    .v128_and()
                    .v128_const(bits)
                    .i8x16_eq();
            }
            (IrType::Scalar(Scalar::I8), IrType::Vector { elem: Scalar::I1, lanes: 8 }) if op == CastOp::Bitcast => {
                let bits = (0..8).rev().fold(0i128, |acc, i| (acc << 16) | (1i128 << i));
                self.w().i16x8_splat().v128_const(bits).v128_and().v128_const(bits).i16x8_eq();
            }
            _ => self.bug(format!("cast {} {from} to {to}", op.name())),
        }
    }

    #[allow(clippy::needless_return)] // a bug arm must match the sink type of the others
    fn scalar_cast(&mut self, op: CastOp, a: Scalar, b: Scalar) {
        use Scalar::*;
        let mut w = self.w();
        match op {
            CastOp::Trunc => {
                if a == I64 {
                    w.i32_wrap_i64();
                }
                if let Some(m) = int_mask(b) {
                    w.i32_const(m).i32_and();
                }
            }
            CastOp::ZExt => {
                if b == I64 {
                    w.i64_extend_i32_u();
                }
            }
            CastOp::SExt => {
                match a {
                    I1 => w.i32_const(-1).i32_mul(),
                    I8 => w.i32_extend8_s(),
                    I16 => w.i32_extend16_s(),
                    _ => &mut w,
                };
                if b == I64 {
                    w.i64_extend_i32_s();
                } else if let Some(m) = int_mask(b) {
                    w.i32_const(m).i32_and();
                }
            }
            CastOp::FpToSi | CastOp::FpToUi => {
                let signed = op == CastOp::FpToSi;
                match (a, b == I64, signed) {
                    (F32, false, true) => w.i32_trunc_sat_f32_s(),
                    (F32, false, false) => w.i32_trunc_sat_f32_u(),
                    (F64, false, true) => w.i32_trunc_sat_f64_s(),
                    (F64, false, false) => w.i32_trunc_sat_f64_u(),
                    (F32, true, true) => w.i64_trunc_sat_f32_s(),
                    (F32, true, false) => w.i64_trunc_sat_f32_u(),
                    (F64, true, true) => w.i64_trunc_sat_f64_s(),
                    (F64, true, false) => w.i64_trunc_sat_f64_u(),
                    _ => return self.bug("fptoi from an integer"),
                };
                if let Some(m) = int_mask(b) {
                    self.w().i32_const(m).i32_and();
                }
            }
            CastOp::SiToFp | CastOp::UiToFp => {
                // i1/i8/i16 operands were sign-extended by the push fix-up
                // for sitofp; zero-extended is their normal form.
                let signed = op == CastOp::SiToFp;
                match (a == I64, b, signed) {
                    (false, F32, true) => w.f32_convert_i32_s(),
                    (false, F32, false) => w.f32_convert_i32_u(),
                    (false, F64, true) => w.f64_convert_i32_s(),
                    (false, F64, false) => w.f64_convert_i32_u(),
                    (true, F32, true) => w.f32_convert_i64_s(),
                    (true, F32, false) => w.f32_convert_i64_u(),
                    (true, F64, true) => w.f64_convert_i64_s(),
                    (true, F64, false) => w.f64_convert_i64_u(),
                    _ => return self.bug("itofp to an integer"),
                };
            }
            CastOp::FpTrunc => {
                w.f32_demote_f64();
            }
            CastOp::FpExt => {
                w.f64_promote_f32();
            }
            CastOp::Bitcast => {
                match (a, b) {
                    (I32, F32) => w.f32_reinterpret_i32(),
                    (F32, I32) => w.i32_reinterpret_f32(),
                    (I64, F64) => w.f64_reinterpret_i64(),
                    (F64, I64) => w.i64_reinterpret_f64(),
                    (x, y) if x == y => &mut w,
                    _ => return self.bug(format!("bitcast {a} to {b}")),
                };
            }
        }
    }

    fn vector_cast(&mut self, op: CastOp, a: Scalar, b: Scalar, lanes: u32) {
        use Scalar::*;
        let width = 128 / lanes;
        // Lane shifts for masks: `shl` then arithmetic `shr` by width - 1.
        let mask_from_low_bit = |fx: &mut Self| {
            let s = (width - 1) as i32;
            let mut w = fx.w();
            match lanes {
                4 => w.i32_const(s).i32x4_shl().i32_const(s).i32x4_shr_s(),
                8 => w.i32_const(s).i16x8_shl().i32_const(s).i16x8_shr_s(),
                _ => w.i32_const(s).i8x16_shl().i32_const(s).i8x16_shr_s(),
            };
        };
        let mask_to_one = |fx: &mut Self| {
            let s = (width - 1) as i32;
            let mut w = fx.w();
            match lanes {
                4 => w.i32_const(s).i32x4_shr_u(),
                8 => w.i32_const(s).i16x8_shr_u(),
                _ => w.i32_const(s).i8x16_shr_u(),
            };
        };
        match op {
            CastOp::Trunc if b == I1 => mask_from_low_bit(self),
            CastOp::ZExt if a == I1 => mask_to_one(self),
            CastOp::SExt if a == I1 => {}
            CastOp::FpToSi | CastOp::FpToUi if a == F32 && lanes == 4 => {
                if op == CastOp::FpToSi {
                    self.w().i32x4_trunc_sat_f32x4_s();
                } else {
                    self.w().i32x4_trunc_sat_f32x4_u();
                }
                if b == I1 {
                    mask_from_low_bit(self);
                }
            }
            CastOp::SiToFp | CastOp::UiToFp if b == F32 && lanes == 4 => {
                if a == I1 && op == CastOp::UiToFp {
                    mask_to_one(self);
                }
                if op == CastOp::SiToFp {
                    self.w().f32x4_convert_i32x4_s();
                } else {
                    self.w().f32x4_convert_i32x4_u();
                }
            }
            CastOp::Bitcast => {}
            _ => self.bug(format!("vector cast {} <{lanes} x {a}> to <{lanes} x {b}>", op.name())),
        }
    }

    /// `icmp eq x, 0` (either side): the `x` to test with `eqz`.
    fn eqz_operand(&self, pred: CmpPred, lhs: ValueId, rhs: ValueId) -> Option<ValueId> {
        if pred != CmpPred::IEq || !matches!(self.ty(lhs), IrType::Scalar(s) if s.is_int()) {
            return None;
        }
        if self.const_int(rhs) == Some(0) {
            Some(lhs)
        } else if self.const_int(lhs) == Some(0) {
            Some(rhs)
        } else {
            None
        }
    }

    /// `icmp ne x, 0` on at most 32 bits whose only use is the condition of
    /// a `br` or `select`, which test for non-zero anyway: just `x`.
    fn truthy_operand(&self, k: usize) -> Option<ValueId> {
        let inst = &self.f.insts[k];
        let InstKind::Cmp { pred: CmpPred::INe, lhs, rhs } = inst.kind else { return None };
        if wasm_type(self.ty(lhs)) != W::I32 || self.ty(lhs).is_vector() {
            return None;
        }
        let x = match (self.const_int(lhs), self.const_int(rhs)) {
            (_, Some(0)) => lhs,
            (Some(0), _) => rhs,
            _ => return None,
        };
        let (v, _) = inst.result?;
        let val = &self.b.vals[self.local_index(v)?];
        if val.uses != 1 || val.user == NONE {
            return None;
        }
        match self.f.insts[val.user as usize].kind {
            InstKind::CondBr { cond, .. } if cond == v => Some(x),
            InstKind::Select { cond, if_true, if_false } if cond == v && if_true != v && if_false != v => Some(x),
            _ => None,
        }
    }

    #[allow(clippy::needless_return)] // a bug arm must match the sink type of the others
    fn lower_cmp(&mut self, pred: CmpPred, lhs: ValueId, rhs: ValueId, k: usize) {
        let t = self.ty(lhs);
        if self.truthy_operand(k).is_some() {
            return;
        }
        if self.eqz_operand(pred, lhs, rhs).is_some() {
            if t == IrType::I64 {
                self.w().i64_eqz();
            } else {
                self.w().i32_eqz();
            }
            return;
        }
        match t {
            IrType::Scalar(s) if s.is_int() => {
                let mut w = self.w();
                use CmpPred::*;
                if s == Scalar::I64 {
                    match pred {
                        IEq => w.i64_eq(),
                        INe => w.i64_ne(),
                        IUgt => w.i64_gt_u(),
                        IUge => w.i64_ge_u(),
                        IUlt => w.i64_lt_u(),
                        IUle => w.i64_le_u(),
                        ISgt => w.i64_gt_s(),
                        ISge => w.i64_ge_s(),
                        ISlt => w.i64_lt_s(),
                        ISle => w.i64_le_s(),
                        _ => return self.bug("fcmp on integers"),
                    };
                } else {
                    match pred {
                        IEq => w.i32_eq(),
                        INe => w.i32_ne(),
                        IUgt => w.i32_gt_u(),
                        IUge => w.i32_ge_u(),
                        IUlt => w.i32_lt_u(),
                        IUle => w.i32_le_u(),
                        ISgt => w.i32_gt_s(),
                        ISge => w.i32_ge_s(),
                        ISlt => w.i32_lt_s(),
                        ISle => w.i32_le_s(),
                        _ => return self.bug("fcmp on integers"),
                    };
                }
            }
            IrType::Scalar(s) => self.float_cmp(pred, s == Scalar::F64, lhs, rhs),
            IrType::Vector { elem, lanes } => self.vector_cmp(pred, elem, lanes, lhs, rhs),
        }
    }

    /// One scalar float comparison `which` on the two values on the stack.
    fn fcmp_op(&mut self, f64_: bool, which: FCmp) {
        let mut w = self.w();
        match (which, f64_) {
            (FCmp::Eq, false) => w.f32_eq(),
            (FCmp::Ne, false) => w.f32_ne(),
            (FCmp::Lt, false) => w.f32_lt(),
            (FCmp::Gt, false) => w.f32_gt(),
            (FCmp::Le, false) => w.f32_le(),
            (FCmp::Ge, false) => w.f32_ge(),
            (FCmp::Eq, true) => w.f64_eq(),
            (FCmp::Ne, true) => w.f64_ne(),
            (FCmp::Lt, true) => w.f64_lt(),
            (FCmp::Gt, true) => w.f64_gt(),
            (FCmp::Le, true) => w.f64_le(),
            (FCmp::Ge, true) => w.f64_ge(),
        };
    }

    fn float_cmp(&mut self, pred: CmpPred, f64_: bool, lhs: ValueId, rhs: ValueId) {
        use CmpPred::*;
        // Simple predicates have their operands pushed; `u` ones are the
        // negation of the opposite ordered compare.
        let (simple, negate) = match pred {
            FOeq => (Some(FCmp::Eq), false),
            FOgt => (Some(FCmp::Gt), false),
            FOge => (Some(FCmp::Ge), false),
            FOlt => (Some(FCmp::Lt), false),
            FOle => (Some(FCmp::Le), false),
            FUne => (Some(FCmp::Ne), false),
            FUgt => (Some(FCmp::Le), true),
            FUge => (Some(FCmp::Lt), true),
            FUlt => (Some(FCmp::Ge), true),
            FUle => (Some(FCmp::Gt), true),
            _ => (None, false),
        };
        if let Some(op) = simple {
            self.fcmp_op(f64_, op);
            if negate {
                self.w().i32_eqz();
            }
            return;
        }
        match pred {
            FFalse => {
                self.w().i32_const(0);
            }
            FTrue => {
                self.w().i32_const(1);
            }
            FOne | FUeq => {
                self.get(lhs);
                self.get(rhs);
                self.fcmp_op(f64_, FCmp::Lt);
                self.get(lhs);
                self.get(rhs);
                self.fcmp_op(f64_, FCmp::Gt);
                self.w().i32_or();
                if pred == FUeq {
                    self.w().i32_eqz();
                }
            }
            FOrd | FUno => {
                let (op, join) = if pred == FOrd { (FCmp::Eq, true) } else { (FCmp::Ne, false) };
                self.get(lhs);
                self.get(lhs);
                self.fcmp_op(f64_, op);
                self.get(rhs);
                self.get(rhs);
                self.fcmp_op(f64_, op);
                if join {
                    self.w().i32_and();
                } else {
                    self.w().i32_or();
                }
            }
            _ => self.bug("icmp on floating point"),
        }
    }

    fn vector_cmp(&mut self, pred: CmpPred, elem: Scalar, lanes: u32, lhs: ValueId, rhs: ValueId) {
        use CmpPred::*;
        if elem.is_int() {
            let mut w = self.w();
            macro_rules! cmp {
                ($eq:ident, $ne:ident, $gtu:ident, $geu:ident, $ltu:ident, $leu:ident, $gts:ident, $ges:ident, $lts:ident, $les:ident) => {
                    match pred {
                        IEq => w.$eq(),
                        INe => w.$ne(),
                        IUgt => w.$gtu(),
                        IUge => w.$geu(),
                        IUlt => w.$ltu(),
                        IUle => w.$leu(),
                        ISgt => w.$gts(),
                        ISge => w.$ges(),
                        ISlt => w.$lts(),
                        ISle => w.$les(),
                        _ => return self.bug("fcmp on an integer vector"),
                    }
                };
            }
            match lanes {
                4 => cmp!(
                    i32x4_eq, i32x4_ne, i32x4_gt_u, i32x4_ge_u, i32x4_lt_u, i32x4_le_u, i32x4_gt_s, i32x4_ge_s,
                    i32x4_lt_s, i32x4_le_s
                ),
                8 => cmp!(
                    i16x8_eq, i16x8_ne, i16x8_gt_u, i16x8_ge_u, i16x8_lt_u, i16x8_le_u, i16x8_gt_s, i16x8_ge_s,
                    i16x8_lt_s, i16x8_le_s
                ),
                _ => cmp!(
                    i8x16_eq, i8x16_ne, i8x16_gt_u, i8x16_ge_u, i8x16_lt_u, i8x16_le_u, i8x16_gt_s, i8x16_ge_s,
                    i8x16_lt_s, i8x16_le_s
                ),
            };
            return;
        }
        match pred {
            FOeq => {
                self.w().f32x4_eq();
            }
            FOgt => {
                self.w().f32x4_gt();
            }
            FOge => {
                self.w().f32x4_ge();
            }
            FOlt => {
                self.w().f32x4_lt();
            }
            FOle => {
                self.w().f32x4_le();
            }
            FUne => {
                self.w().f32x4_ne();
            }
            FUgt => {
                self.w().f32x4_le().v128_not();
            }
            FUge => {
                self.w().f32x4_lt().v128_not();
            }
            FUlt => {
                self.w().f32x4_ge().v128_not();
            }
            FUle => {
                self.w().f32x4_gt().v128_not();
            }
            FFalse => {
                self.w().v128_const(0);
            }
            FTrue => {
                self.w().v128_const(-1);
            }
            FOne | FUeq => {
                self.get(lhs);
                self.get(rhs);
                self.w().f32x4_lt();
                self.get(lhs);
                self.get(rhs);
                self.w().f32x4_gt().v128_or();
                if pred == FUeq {
                    self.w().v128_not();
                }
            }
            FOrd | FUno => {
                let ord = pred == FOrd;
                self.get(lhs);
                self.get(lhs);
                if ord {
                    self.w().f32x4_eq();
                } else {
                    self.w().f32x4_ne();
                }
                self.get(rhs);
                self.get(rhs);
                if ord {
                    self.w().f32x4_eq().v128_and();
                } else {
                    self.w().f32x4_ne().v128_or();
                }
            }
            _ => self.bug("icmp on a float vector"),
        }
    }

    /// `sp = (sp - size) & -align`, checked against the stack limit.
    fn lower_dynamic_alloca(&mut self, size: ValueId, align: u32) {
        let tmp = self.scratch(W::I32, 0);
        self.w().global_get(global::STACK_POINTER);
        self.get(size);
        self.w().i32_sub();
        if align > 1 {
            self.w().i32_const(-(align as i32)).i32_and();
        }
        self.w()
            .local_tee(tmp)
            .global_get(global::STACK_LIMIT)
            .i32_lt_u()
            .local_get(tmp)
            .global_get(global::STACK_POINTER)
            .i32_gt_u()
            .i32_or()
            .if_(BlockType::Empty)
            .i32_const(super::imports::fault::STACK_OVERFLOW)
            .i32_const(0)
            .call(FAULT_FUNC)
            .end()
            .local_get(tmp)
            .global_set(global::STACK_POINTER)
            .local_get(tmp);
    }

    /// Function prologue: the static frame.
    fn emit_prologue(&mut self) {
        if self.frame_local != NONE {
            let (fl, saved) = (self.frame_local, self.saved_sp_local);
            let size = self.frame_size;
            self.w().global_get(global::STACK_POINTER).local_tee(saved).i32_const(size as i32).i32_sub();
            if self.frame_align > 1 {
                let mask = -(self.frame_align as i32);
                self.w().i32_const(mask).i32_and();
            }
            self.w().local_tee(fl).global_get(global::STACK_LIMIT).i32_lt_u();
            if u64::from(size) + u64::from(self.frame_align) >= 0x1_0000 {
                // A large frame could wrap below address 0.
                self.w().local_get(fl).local_get(saved).i32_gt_u().i32_or();
            }
            self.w()
                .if_(BlockType::Empty)
                .i32_const(super::imports::fault::STACK_OVERFLOW)
                .i32_const(0)
                .call(FAULT_FUNC)
                .end()
                .local_get(fl)
                .global_set(global::STACK_POINTER);
        } else if self.saved_sp_local != NONE {
            let saved = self.saved_sp_local;
            self.w().global_get(global::STACK_POINTER).local_set(saved);
        }
    }

    /// `ret`: its value is already pushed.
    pub(super) fn emit_return(&mut self) {
        if self.saved_sp_local != NONE {
            let saved = self.saved_sp_local;
            self.w().local_get(saved).global_set(global::STACK_POINTER);
        }
        self.w().return_();
        self.terminal = true;
    }

    /// The whole body: prologue, structured code, and the end.
    fn emit_function(&mut self, tree: &super::structure::Structured) {
        self.emit_prologue();
        self.b.labels.clear();
        self.b.label_pos.clear();
        self.b.label_pos.resize(tree.num_labels as usize, NONE);
        for _ in 0..tree.num_dispatch_vars {
            let l = self.new_local(W::I32);
            self.b.dispatch_locals.push(l);
        }
        if self.has_setjmp {
            self.emit_setjmp_body(tree);
        } else {
            self.emit_tree(&tree.body);
        }
        if self.ret.is_some() && !self.terminal {
            self.w().unreachable();
        }
        self.w().end();
    }

    /// Writes `size, locals, body` to `out`.
    fn write_entry(&mut self, out: &mut Vec<u8>) {
        let mut head: Vec<u8> = Vec::with_capacity(16);
        let order = super::locals::LOCAL_TYPES;
        let mut runs: Vec<(u32, W)> = Vec::with_capacity(8);
        for (t, &n) in order.iter().zip(self.b.local_counts.iter()) {
            if n > 0 {
                runs.push((n, *t));
            }
        }
        for &t in &self.b.extra_locals {
            match runs.last_mut() {
                Some((n, lt)) if *lt == t => *n += 1,
                _ => runs.push((1, t)),
            }
        }
        (runs.len() as u32).encode(&mut head);
        for (n, t) in &runs {
            n.encode(&mut head);
            t.encode(&mut head);
        }
        let size = (head.len() + self.b.code.len()) as u32;
        size.encode(out);
        out.extend_from_slice(&head);
        out.extend_from_slice(&self.b.code);
    }
}

/// The six ordered scalar float compares wasm has.
#[derive(Clone, Copy, Debug)]
enum FCmp {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

/// A lane-wise operation SIMD128 has as one instruction.
#[derive(Clone, Copy, Debug)]
enum Simd {
    And,
    Or,
    Xor,
    I8Add,
    I8Sub,
    I16Add,
    I16Sub,
    I16Mul,
    I32Add,
    I32Sub,
    I32Mul,
    F32Add,
    F32Sub,
    F32Mul,
    F32Div,
}

fn vector_binop(op: BinOp, t: IrType) -> Option<Simd> {
    let IrType::Vector { elem, lanes } = t else { return None };
    use BinOp::*;
    Some(match (op, elem, lanes) {
        (And, e, _) if e.is_int() => Simd::And,
        (Or, e, _) if e.is_int() => Simd::Or,
        (Xor, e, _) if e.is_int() => Simd::Xor,
        (_, Scalar::I1, _) => return None,
        (Add, Scalar::F32, _) => Simd::F32Add,
        (Sub, Scalar::F32, _) => Simd::F32Sub,
        (Mul, Scalar::F32, _) => Simd::F32Mul,
        (SDiv, Scalar::F32, _) => Simd::F32Div,
        (Add, _, 16) => Simd::I8Add,
        (Sub, _, 16) => Simd::I8Sub,
        (Add, _, 8) => Simd::I16Add,
        (Sub, _, 8) => Simd::I16Sub,
        (Mul, _, 8) => Simd::I16Mul,
        (Add, _, 4) => Simd::I32Add,
        (Sub, _, 4) => Simd::I32Sub,
        (Mul, _, 4) => Simd::I32Mul,
        _ => return None,
    })
}

/// Whether a compare is one instruction on its two pushed operands.
fn cmp_is_simple(pred: CmpPred, t: IrType) -> bool {
    use CmpPred::*;
    if t.elem().is_int() {
        return true;
    }
    !matches!(pred, FOne | FUeq | FOrd | FUno | FFalse | FTrue)
}

/** How a constant-address indirect call becomes a direct one. */
struct DirectCall {
    /// The wasm function index.
    index: u32,
    /// Trailing arguments the function does not take.
    drop: u32,
    /// Zero values for the parameters the call does not pass.
    pad: Vec<W>,
    result: ResultFix,
}

enum ResultFix {
    Same,
    /// The function returns a value the call does not expect.
    Drop,
    /// The call expects a value the function does not return.
    Zero(W),
}
