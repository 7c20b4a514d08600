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
//! `local.get` of the same local becomes a `local.tee`; an `sdiv` by 2^k of
//! a value known to be a multiple of 2^k (`x*(x+1)/2`) is an arithmetic
//! shift (`lower.rs`, `exact_sdiv_shift`).
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
//!
//! # Files
//!
//! This file is the hub: the per-value and per-instruction records, the
//! reused buffers, [`Fx`] (one body's translation state) with its small
//! helpers, and [`FuncTranslator::translate`], which runs the passes in
//! order. Each pass is an `impl Fx` in a file of its own that uses only the
//! hub (never a sibling, but `analyze` asks `lower` which operations have a
//! one-instruction form):
//!
//! | file | pass |
//! |---|---|
//! | `analyze.rs` | virtual blocks, aliases, use counts, static allocas, dead code, address offsets, phi entries, stack folding |
//! | `locals.rs` | locals for the values that need one, shared between values whose lives do not overlap |
//! | `emit.rs` | pushing values: locals, constants, frame addresses, folded trees |
//! | `lower.rs` | instruction selection |
//! | `intrinsics.rs` | the PNaCl intrinsics |
//! | `control.rs` | the structured tree as `block`/`loop`/`br`, phi copies on edges, switches |
//! | `setjmp.rs` | functions that call setjmp |
//! | `outline.rs` | outermost loop nests also emitted as functions of their own (for engines without on-stack replacement); uses `control.rs`'s label stack |
//! | `function.rs` | the frame, the whole body, the code-section entry |

mod analyze;
mod control;
mod emit;
mod function;
mod intrinsics;
mod locals;
mod lower;
mod outline;
mod setjmp;

pub use outline::OutlinedBody;
pub(super) use outline::COUNTER_REFS;

use super::imports::{FAULT_FUNC, FMOD_FUNC};
use super::types::{self, wasm_type, Signatures};
use super::{global, Callee, ModuleCx, TranslateError};
use crate::ir::{BinOp, CastOp, CmpPred, ConstValue, Function, Inst, InstKind, Scalar, ValType as IrType, ValueId};
use crate::verify::{FunctionAnalysis, Intrinsic};
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

impl Val {
    /// A value nothing is known of yet: what `analyze` starts from.
    pub const BLANK: Val = Val {
        kind: Kind::None,
        ty: IrType::I32,
        uses: 0,
        user: NONE,
        pinned: false,
        fold_fixup: Fixup::None,
        alias: NONE,
    };
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
    /// What `plan` chose for `lower` (decided once, so the two agree).
    pub lowering: Lowering,
    /// The k of [`Lowering::ExactShift`], 0 otherwise. A field of its own,
    /// not the variant's: the record's last four bytes are then all
    /// defined, and its default (written for every instruction of a body)
    /// is stored as one word, not a byte and a half-word around an
    /// undefined one.
    pub shift: u8,
}

/// A lowering choice `plan` makes from the operands and uses, which its
/// pushes depend on; `lower` follows it rather than deciding again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lowering {
    Plain,
    /// `icmp eq x, 0`: `x` pushed, then `eqz`.
    Eqz,
    /// `icmp ne x, 0` used only as a condition: `x` pushed, nothing else.
    Truthy,
    /// `sdiv x, 2^k` exact: `x` pushed, then a shift by k
    /// (`InstInfo::shift`).
    ExactShift,
    /// `call_indirect` of a constant function address: a direct call.
    Direct,
    /// A switch as one `br_table` (its condition pushed), not a search.
    DenseSwitch,
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
            lowering: Lowering::Plain,
            shift: 0,
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
    /// Its first instruction after the phis that open it (`start` until
    /// `collect_phi_entries` steps over them): where emission starts.
    pub after_phis: u32,
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
    /// The top-level trees of the block being folded: (root instruction,
    /// value index of its result).
    pub roots: Vec<(u32, u32)>,
    pub vblocks: Vec<VBlock>,
    pub succ_start: Vec<u32>,
    pub succs: Vec<u32>,
    pub first_vblock: Vec<u32>,
    /// Whether the (first part of the) block has phis with a local.
    pub has_phis: Vec<bool>,
    /// Phi incoming entries sorted by (block, value), a range per live phi
    /// (`phi_heads`) of the block being collected, when its phis' entries
    /// do not line up.
    pub phi_in: Vec<(u32, u32)>,
    /// The live phis of the block being collected: (start and length of
    /// its entries in `Function::phi_entries`, the phi's value), or when
    /// merged (cursor in `phi_in`, end of its entries, the phi's value).
    pub phi_heads: Vec<(u32, u32, ValueId)>,
    /// The first phi's entries as (block, position), in block order.
    pub phi_order: Vec<(u32, u32)>,
    /// The phi copies of every edge into a block with live phis
    /// (`Fx::edge_copies`): per basic block a range of `phi_edges`, which
    /// holds (predecessor, range of `edge_copies`) in increasing predecessor
    /// order; `edge_copies` the (phi, source) pairs.
    pub phi_block_edges: Vec<(u32, u32)>,
    pub phi_edges: Vec<(u32, u32, u32)>,
    pub edge_copies: Vec<(ValueId, ValueId)>,
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
    pub locals: locals::LocalBuffers,
    /// Per add: uses as a load/store address, and the `addr_found` entry of
    /// the last such access.
    pub addr_uses: Vec<(u32, u32)>,
    /// The accesses whose address is such an add, with what
    /// `offset_address` found for them: (access, value index of the add,
    /// the add, base, offset).
    pub addr_found: Vec<(u32, u32, u32, ValueId, u32)>,
    /// The loads and stores of the body with their addresses, in order.
    pub mem_insts: Vec<(u32, ValueId)>,
    /// The values found to be aliases (value indices).
    pub aliased: Vec<u32>,
    /// The phis of the body, in order.
    pub phi_insts: Vec<u32>,
    /// Pure computations of the block being scanned, for reuse.
    pub cse: CseTable,
    pub seen_exits: Vec<SeenExit>,
    /// `emit_tree`'s work stack (empty between uses), for its buffer.
    work: Vec<control::Work>,
    /// `call_indirect` type indices left as placeholders: (offset in
    /// `code`, signature key).
    pub sig_fixups: Vec<(usize, Box<[u8]>)>,
    /// Local indices not known yet: (offset of the index's one-byte
    /// placeholder in `code`, [`locals::VIRTUAL`] index), in order; and the
    /// code with the longer ones put in.
    pub relocs: Vec<(u32, u32)>,
    pub placed: Vec<u8>,
    /// Indirect calls' type indices found (`lower.rs`), for the
    /// `Signatures` at the address noted.
    pub sig_memo: lower::SigMemo,
    /// Direct calls that may be patched later: (offset of the `call` in
    /// `code`, its length, callee, unguarded).
    pub call_sites: Vec<(usize, u8, u32, bool)>,
    /// Buffers of the dominator computation for the structurer's graphs.
    pub dominators: crate::cfg::Cfg,
    /// A code-section entry's local declarations, and their runs.
    pub entry_head: Vec<u8>,
    pub entry_runs: Vec<(u32, W)>,
    /// Loop outlining (`outline.rs`): per label, defined inside / branched
    /// to from the loop being looked at; bodies still to scan; the labels
    /// outside it that it branches to; the finished outlined functions.
    pub label_marks: Vec<u8>,
    pub scan: Vec<super::structure::Body>,
    pub outer_labels: Vec<super::structure::LabelId>,
    pub outlined: Vec<outline::OutlinedCode>,
}

/// A `call_indirect` whose signature the module context's frozen type
/// table lacked: a 5-byte LEB placeholder at `at` (bytes from the start of
/// the body's code-section entry) for the type index of the signature `key`
/// (parameter type codes, 0, result type codes), interned when the body is
/// stitched into the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigFixup {
    pub at: u32,
    pub key: Box<[u8]>,
}

/// A direct `call` of pexe function `callee` at `at` (bytes from the start
/// of the entry), `len` bytes long, which the module may rewrite in place
/// (the `sqrt` form, `libm.rs`). An `unguarded` call is not inside the
/// `x >= -0` test: its argument is never below zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub at: u32,
    pub len: u8,
    pub callee: u32,
    pub unguarded: bool,
}

/// What a translated body leaves for the module to fill in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyFixups {
    pub sigs: Vec<SigFixup>,
    pub calls: Vec<CallSite>,
    /// Loops made functions of their own (`outline.rs`), in order.
    pub outlined: Vec<OutlinedBody>,
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
    /// The structured body (its arrays reused). Beside the buffers, not in
    /// them: the passes borrow both, and taking it out and putting it back
    /// was a default tree built and dropped per body.
    tree: super::structure::Structured,
}

/// The state of one function's translation.
pub(super) struct Fx<'a> {
    pub b: &'a mut Buffers,
    pub f: &'a Function,
    pub cx: &'a ModuleCx,
    pub sigs: &'a Signatures,
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
    /// Local indices are written [`locals::VIRTUAL`] and emission numbers
    /// the positions (`locals.rs`): the current one, and the innermost
    /// loop open there.
    pub virtual_locals: bool,
    pub pos: u32,
    pub cur_loop: u32,
    /// The loop being outlined, while its function is emitted.
    pub outline: Option<outline::Outline>,
    /// Inside F's own copy of an outlined loop (nothing is outlined there).
    pub in_loop_copy: u32,
    /// This activation's number among those that reached an outlined loop
    /// (0: none yet), once a loop is outlined (`outline.rs`).
    pub act_local: u32,
}

impl FuncTranslator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the code-section entry of `f` (size, locals, body) to `out`,
    /// and to `fixups` the placeholders it left for signatures `sigs` lacks.
    ///
    /// `known` is the body's control-flow analysis as the verifier made it,
    /// if the caller has it.
    pub(super) fn translate(
        &mut self,
        cx: &ModuleCx,
        sigs: &Signatures,
        f: &Function,
        known: Option<FunctionAnalysis<'_>>,
        out: &mut Vec<u8>,
        fixups: &mut BodyFixups,
    ) -> Result<(), TranslateError> {
        if f.blocks.is_empty() {
            // A body with no blocks (the verifier lets it through): it has
            // nothing to run, so calling it traps.
            out.extend_from_slice(&[3, 0, 0x00, 0x0B]);
            return Ok(());
        }
        let tree = &mut self.tree;
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
            virtual_locals: false,
            pos: 0,
            cur_loop: NONE,
            outline: None,
            in_loop_copy: 0,
            act_local: NONE,
        };
        fx.b.outlined.clear();
        fx.analyze()?;
        {
            // Without setjmp the structurer's graph is the basic blocks: the
            // verifier's orders and dominators are that graph's.
            let known = known.filter(|_| !fx.has_setjmp).map(|a| a.cfg()).filter(|c| c.len() == f.blocks.len());
            let b = &mut *fx.b;
            debug_assert_eq!(b.succ_start.len(), b.vblocks.len() + 1);
            super::structure::structure_in(&b.succ_start, &b.succs, &mut b.dominators, known, tree);
        }
        fx.begin_locals(tree);
        fx.frame_locals();
        fx.emit_function(tree);
        fx.end_locals();
        if let Some(message) = fx.bug.take() {
            return Err(TranslateError::Unsupported { function: f.id.0, message });
        }
        fx.write_entry(out, fixups);
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

/// Adds a local of type `t` to the run-length list of a body's local
/// declarations.
fn push_local_run(runs: &mut Vec<(u32, W)>, t: W) {
    match runs.last_mut() {
        Some((n, lt)) if *lt == t => *n += 1,
        _ => runs.push((1, t)),
    }
}

/// Appends a code section entry to `out`: its size, the local declarations
/// `runs` (encoded in `head`, a scratch buffer) and `code`. Returns where
/// `code` starts, from the entry's start.
fn write_code_entry(runs: &[(u32, W)], code: &[u8], head: &mut Vec<u8>, out: &mut Vec<u8>) -> usize {
    let entry_start = out.len();
    head.clear();
    // The LEBs by `put_uleb32`, not the encoder's generic calls (three or
    // more a body, mostly of one or two bytes).
    put_uleb32(head, runs.len() as u32);
    for &(n, t) in runs {
        put_uleb32(head, n);
        match t {
            W::I32 | W::I64 | W::F32 | W::F64 | W::V128 => head.push(types::code(t)),
            _ => t.encode(head),
        }
    }
    let size = (head.len() + code.len()) as u32;
    // At most 5 bytes of size: one allocation (growth as usual for a
    // buffer holding many entries), not one per piece.
    out.reserve(5 + size as usize);
    put_uleb32(out, size);
    out.extend_from_slice(head);
    let code_at = out.len() - entry_start;
    out.extend_from_slice(code);
    code_at
}

/// Appends the unsigned LEB of `x`: one or two bytes directly, longer
/// ones as [`uleb32`] gives them.
fn put_uleb32(out: &mut Vec<u8>, x: u32) {
    // Room for the longest form first, its growth a cold tail call: the
    // writes then need no register kept across a growth call (the saves
    // and restores of callee-saved registers were a third of the
    // instructions of a two-byte write).
    if out.capacity() - out.len() < 5 {
        return put_uleb32_grow(out, x);
    }
    put_uleb32_in_room(out, x);
}

/// [`put_uleb32`] into a buffer without room for five more bytes.
#[cold]
#[inline(never)]
fn put_uleb32_grow(out: &mut Vec<u8>, x: u32) {
    out.reserve(5);
    put_uleb32_in_room(out, x);
}

/// [`put_uleb32`]'s writes (their growth tests fold away when five bytes
/// are known free).
#[inline(always)]
fn put_uleb32_in_room(out: &mut Vec<u8>, x: u32) {
    if x < 0x80 {
        out.push(x as u8);
    } else if x < 0x4000 {
        out.extend_from_slice(&[x as u8 | 0x80, (x >> 7) as u8]);
    } else {
        let (b, n) = uleb32(x);
        out.extend_from_slice(&b[..n]);
    }
}

/// The alignment hint of an access stated to be aligned to `align` bytes
/// (0 or a power of two, as decoded; 0 = natural), as a function of the
/// log2 of the access's natural size: the smaller of the two logs. Each
/// access type's arm passes its own size (no size lookup per access), and
/// 0's 32 trailing zeros are past every size.
#[inline(always)]
pub(super) fn capped_align(align: u32) -> impl Fn(u32) -> u32 {
    let stated = align.trailing_zeros();
    move |natural_log2| stated.min(natural_log2)
}

pub(super) fn memarg(offset: u32, align_log2: u32) -> MemArg {
    MemArg { offset: u64::from(offset), align: align_log2, target: MemArgTarget::Memory(0), ordering: None }
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

/// The unsigned LEB128 form of `x`: its bytes (the first `n` used) and
/// `n`. Without a loop per byte (see [`leb_groups`]).
#[inline(always)]
fn uleb32(x: u32) -> ([u8; 5], usize) {
    // Significant bits, 7 to a byte.
    let n = (32 - x.leading_zeros()).div_ceil(7).max(1) as usize;
    (leb_groups(u64::from(x), n), n)
}

/// The signed LEB128 form of `x`, as [`uleb32`].
#[inline(always)]
fn sleb32(x: i32) -> ([u8; 5], usize) {
    // Significant bits and the sign bit, 7 to a byte.
    let n = (33 - (x ^ (x >> 31)).leading_zeros()).div_ceil(7) as usize;
    (leb_groups(x as i64 as u64, n), n)
}

/// The low `7n` bits of `v` (1 ≤ n ≤ 5) as `n` LEB128 bytes: the 7-bit
/// groups spread to a byte each by shifts, every byte but the last
/// flagged.
#[inline(always)]
fn leb_groups(v: u64, n: usize) -> [u8; 5] {
    let spread = (v & 0x7f)
        | (v << 1) & 0x7f00
        | (v << 2) & 0x7f_0000
        | (v << 3) & 0x7f00_0000
        | (v << 4) & 0x7f_0000_0000;
    let more = 0x80_8080_8080u64 & ((1u64 << (8 * (n - 1))) - 1);
    let b = (spread | more).to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4]]
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

/// The pure computations of one block, by [`CseKey`]: an open-addressing
/// table whose entries belong to the block being scanned only if they carry
/// its stamp, so starting a block costs nothing (clearing a hash map per
/// block wrote all of its control bytes, and hashing through `HashMap`'s
/// entry API cost several times a probe here).
pub(super) struct CseTable {
    /// (stamp, key, value); a power-of-two length, or empty.
    slots: Vec<(u32, CseKey, u32)>,
    /// Never 0, the stamp of slots never written.
    stamp: u32,
    live: usize,
}

impl Default for CseTable {
    fn default() -> Self {
        CseTable { slots: Vec::new(), stamp: 1, live: 0 }
    }
}

impl CseTable {
    /// Forgets every entry (those of the previous block).
    pub fn clear(&mut self) {
        self.live = 0;
        if self.stamp == u32::MAX {
            // Stamps wrapped: no old entry may look current.
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    fn home(key: CseKey, mask: usize) -> usize {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let a = (u64::from(key.0) | u64::from(key.1) << 32).wrapping_mul(K);
        let b = (u64::from(key.2) | u64::from(key.3) << 32) ^ a.rotate_left(26);
        (b.wrapping_mul(K) >> 32) as usize & mask
    }

    /// The value stored under `key`, after storing `value` there if there
    /// was none.
    #[inline(always)]
    pub fn get_or_insert(&mut self, key: CseKey, value: u32) -> u32 {
        // At most half full: probes stay short. The table only grows up to
        // twice the largest block's count of pure instructions.
        if 2 * (self.live + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = Self::home(key, mask);
        loop {
            let slot = &mut self.slots[at];
            if slot.0 != self.stamp {
                *slot = (self.stamp, key, value);
                self.live += 1;
                return value;
            }
            if slot.1 == key {
                return slot.2;
            }
            at = (at + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let stamp = self.stamp;
        self.slots = vec![(0, (0, 0, 0, 0), 0); (old.len() * 2).max(64)];
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.0 == stamp) {
            let mut at = Self::home(s.1, mask);
            while self.slots[at].0 == stamp {
                at = (at + 1) & mask;
            }
            self.slots[at] = s;
        }
    }
}

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
pub(super) fn for_each_operand(f: &Function, kind: &InstKind, mut visit: impl FnMut(ValueId)) {
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
        Phi { incoming, .. } => f.incoming(*incoming).iter().for_each(|(v, _)| visit(*v)),
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
            f.args(*args).iter().for_each(|a| visit(*a));
        }
    }
}

/// Calls `visit` with every successor block of a terminator, in order.
pub(super) fn for_each_successor(f: &Function, kind: &InstKind, mut visit: impl FnMut(u32)) {
    match kind {
        InstKind::Br { target } => visit(target.0),
        InstKind::CondBr { if_true, if_false, .. } => {
            visit(if_true.0);
            visit(if_false.0);
        }
        InstKind::Switch { default, cases, .. } => {
            visit(default.0);
            f.cases(*cases).iter().for_each(|c| visit(c.target.0));
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
    /// directly (these are most of the bytes emitted). Inlined (the
    /// one-byte case; longer ones call out), in the package too: a call
    /// per operand cost V8 more than the ~3.4 KB gzipped the copies take.
    #[inline(always)]
    pub(super) fn op_u32(&mut self, op: u8, x: u32) {
        if x < 0x80 {
            // One LEB byte (most locals, labels and offsets): no loop.
            self.b.code.extend_from_slice(&[op, x as u8]);
        } else {
            self.op_u32_long(op, x);
        }
    }

    /// `local.get/set/tee l` (`op`): a [`locals::VIRTUAL`] index is noted,
    /// to be put in once the locals are allocated.
    #[inline(always)]
    pub(super) fn local_op(&mut self, op: u8, l: u32) {
        if l >= locals::VIRTUAL {
            self.virtual_op(op, l);
        } else {
            self.op_u32(op, l);
        }
    }

    /// [`Fx::local_op`] of a [`locals::VIRTUAL`] index `l`: two bytes, a
    /// one-byte placeholder (most indices fit) and its note.
    #[inline(always)]
    pub(super) fn virtual_op(&mut self, op: u8, l: u32) {
        self.b.relocs.push((self.b.code.len() as u32 + 1, l));
        self.b.code.extend_from_slice(&[op, 0]);
    }

    #[cfg_attr(target_arch = "wasm32", inline(always))]
    pub(super) fn local_get(&mut self, l: u32) {
        self.local_op(0x20, l);
    }

    #[cfg_attr(target_arch = "wasm32", inline(always))]
    pub(super) fn local_set(&mut self, l: u32) {
        self.local_op(0x21, l);
    }

    #[cfg_attr(target_arch = "wasm32", inline(always))]
    pub(super) fn local_tee(&mut self, l: u32) {
        self.local_op(0x22, l);
    }

    /// [`Fx::op_u32`] with an immediate of two bytes or more.
    #[inline(never)]
    fn op_u32_long(&mut self, op: u8, x: u32) {
        // Room for the longest form first, as in `put_uleb32`.
        if self.b.code.capacity() - self.b.code.len() < 6 {
            return self.op_u32_grow(op, x);
        }
        self.op_u32_in_room(op, x);
    }

    /// [`Fx::op_u32_long`] into a code buffer without room for six more bytes.
    #[cold]
    #[inline(never)]
    fn op_u32_grow(&mut self, op: u8, x: u32) {
        self.b.code.reserve(6);
        self.op_u32_in_room(op, x);
    }

    /// [`Fx::op_u32_long`]'s writes.
    #[inline(always)]
    fn op_u32_in_room(&mut self, op: u8, x: u32) {
        debug_assert!(x >= 0x80);
        if x < 0x4000 {
            // Two LEB bytes (most: call targets, locals and offsets past
            // 127) without the general encoding's arithmetic.
            self.b.code.extend_from_slice(&[op, x as u8 | 0x80, (x >> 7) as u8]);
            return;
        }
        let (b, n) = uleb32(x);
        self.put([op, b[0], b[1], b[2], b[3], b[4]], n + 1);
    }

    /// Appends the first `n` bytes of `buf`: all six copied (a fixed-size
    /// copy is a couple of moves; a variable one was a call of memcpy per
    /// operand), then the length cut back.
    #[inline(always)]
    fn put(&mut self, buf: [u8; 6], n: usize) {
        let code = &mut self.b.code;
        let len = code.len();
        code.extend_from_slice(&buf);
        code.truncate(len + n);
    }

    /// A load or store (one-byte opcode) on memory 0.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn mem_op(&mut self, op: u8, align_log2: u32, offset: u32) {
        if offset < 0x80 {
            self.b.code.extend_from_slice(&[op, align_log2 as u8, offset as u8]);
        } else {
            self.b.code.push(op);
            self.op_u32_long(align_log2 as u8, offset);
        }
    }

    /// `i32.const x` (inlined, as `op_u32`).
    #[inline(always)]
    pub(super) fn i32_const(&mut self, x: i32) {
        if (-0x40..0x40).contains(&x) {
            // One SLEB byte: no loop.
            self.b.code.extend_from_slice(&[0x41, x as u8 & 0x7f]);
        } else {
            self.i32_const_long(x);
        }
    }

    /// `i32.const m, i32.and`: a value cut to its type's bits (i1, i8, i16
    /// results). Written directly, out of line: the two sink calls it
    /// replaces were ~130 instructions, and the instruction loop it is
    /// called from keeps one call.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn and_mask(&mut self, m: i32) {
        self.i32_const(m);
        self.b.code.push(0x71); // i32.and
    }

    /// [`Fx::i32_const`] with an immediate of two bytes or more.
    #[inline(never)]
    fn i32_const_long(&mut self, x: i32) {
        // Room for the longest form first, as in `put_uleb32`.
        if self.b.code.capacity() - self.b.code.len() < 6 {
            return self.i32_const_grow(x);
        }
        self.i32_const_in_room(x);
    }

    /// [`Fx::i32_const_long`] into a code buffer without room for six
    /// more bytes.
    #[cold]
    #[inline(never)]
    fn i32_const_grow(&mut self, x: i32) {
        self.b.code.reserve(6);
        self.i32_const_in_room(x);
    }

    /// [`Fx::i32_const_long`]'s writes.
    #[inline(always)]
    fn i32_const_in_room(&mut self, x: i32) {
        debug_assert!(!(-0x40..0x40).contains(&x));
        // Two or three SLEB bytes (most) without the general encoding's
        // arithmetic.
        if (-0x2000..0x2000).contains(&x) {
            self.b.code.extend_from_slice(&[0x41, x as u8 | 0x80, (x >> 7) as u8 & 0x7f]);
            return;
        }
        if (-0x10_0000..0x10_0000).contains(&x) {
            self.b.code.extend_from_slice(&[0x41, x as u8 | 0x80, (x >> 7) as u8 | 0x80, (x >> 14) as u8 & 0x7f]);
            return;
        }
        let (b, n) = sleb32(x);
        self.put([0x41, b[0], b[1], b[2], b[3], b[4]], n + 1);
    }

    #[cold]
    pub(super) fn bug(&mut self, message: impl Into<String>) {
        if self.bug.is_none() {
            self.bug = Some(message.into());
        }
        self.w().unreachable();
    }

    /// Index into `vals` of a function-local value, if it is one.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub(super) fn local_index(&self, v: ValueId) -> Option<usize> {
        let i = v.0.checked_sub(self.f.first_local)? as usize;
        (i < self.b.vals.len()).then_some(i)
    }

    /// The PNaCl type of `v` (module-level values are i32 addresses).
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub(super) fn ty(&self, v: ValueId) -> IrType {
        match self.local_index(v) {
            Some(i) => self.b.vals[i].ty,
            None => IrType::I32,
        }
    }

    /// The type of binop `inst` and of its operands: its result's, which
    /// the decoder took from its left operand (no lookup of that operand).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn binop_type(&self, inst: &Inst, lhs: ValueId) -> IrType {
        match inst.result {
            Some((_, t)) => t,
            None => self.ty(lhs),
        }
    }

    /// The integer constant `v`, if it is one.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
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

    /// A local of type `t` beyond the value locals.
    pub(super) fn new_local(&mut self, t: W) -> u32 {
        self.b.extra_locals.push(t);
        let k = self.b.extra_locals.len() as u32 - 1;
        if self.virtual_locals {
            // Numbered past the values (`locals::VIRTUAL`; `place_locals`
            // reports a count that would reach the flag).
            locals::VIRTUAL | (self.b.vals.len() as u32).saturating_add(k)
        } else {
            self.num_params + self.num_value_locals + k
        }
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

}

#[cfg(test)]
mod tests {
    use super::{put_uleb32, sleb32, uleb32};
    use wasm_encoder::Encode;

    /// The shift-built LEB128 forms (and `put_uleb32`'s direct short ones) are wasm-encoder's.
    #[test]
    fn leb_forms_match_wasm_encoder() {
        let mut edges = vec![0u32, 1, u32::MAX, u32::MAX - 1, 1 << 31];
        for k in 1..32 {
            edges.extend([(1u32 << k) - 1, 1 << k, (1 << k) + 1]);
        }
        for x in edges.into_iter().chain((0..20_000).map(|i| i * 214_013 + 2_531_011)) {
            let (mut want, mut got) = (Vec::new(), Vec::new());
            x.encode(&mut want);
            let (b, n) = uleb32(x);
            got.extend_from_slice(&b[..n]);
            assert_eq!(got, want, "u32 {x}");
            got.clear();
            put_uleb32(&mut got, x);
            assert_eq!(got, want, "put_uleb32 {x}");
            let s = x as i32;
            want.clear();
            got.clear();
            s.encode(&mut want);
            let (b, n) = sleb32(s);
            got.extend_from_slice(&b[..n]);
            assert_eq!(got, want, "i32 {s}");
        }
    }

    /// `put_uleb32` makes room first when fewer than five bytes are free
    /// (its cold path) and writes in place otherwise: the same bytes after
    /// the same prefix, at every amount of room.
    #[test]
    fn put_uleb32_at_every_room() {
        for x in [0u32, 0x7f, 0x80, 0x3fff, 0x4000, 0x1f_ffff, 0x20_0000, u32::MAX] {
            let mut want = vec![0xAA];
            x.encode(&mut want);
            for room in 0..8 {
                let mut got = Vec::with_capacity(1 + room);
                got.push(0xAA);
                got.truncate(1);
                put_uleb32(&mut got, x);
                assert_eq!(got, want, "put_uleb32 {x} with room {room}");
            }
        }
    }
}
