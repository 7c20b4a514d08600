//! Function-body rules: structure, SSA dominance, constants and every
//! instruction's operand and result types (see the list in `mod.rs`).
//!
//! The work per body is linear in its size apart from the dominator
//! computation (near-linear) and sorting of switch cases and phi entries.
//! All scratch space lives in [`FunctionVerifier`] and is reused from one
//! body to the next.

use crate::cfg::{Cfg, Edges};
use super::intrinsics::{
    Intrinsic, MemoryOrder, OrderUse, RmwOp, LOCK_FREE_SIZE_ARG, MEM_INTRINSIC_ALIGN_ARG, RMW_OP_ARG,
};
use super::module::is_intrinsic_name;
use super::types::{
    bit_size, bool_type_for, is_allowed_access_alignment, is_valid_memory_type, is_valid_object_alignment,
    is_valid_param_type, is_valid_value_type, lanes,
};
use super::{function_label, Diagnostic};
use crate::ir::{
    BinOp, BlockId, CastOp, CmpPred, ConstValue, FuncId, FuncType, Function, FunctionDecl, Inst, InstId, InstKind,
    Module, Scalar, SwitchCase, ValType, ValueId, ValueRef,
};
use crate::BitPos;

/// Checks function bodies, keeping its buffers between them.
#[derive(Default)]
pub struct FunctionVerifier {
    cfg: Cfg,
    /// Type, definition and its block's dominator interval of each
    /// function-local value.
    locals: Vec<Local>,
    /// Block of each instruction by `Local::def_at` (so instruction `i` at
    /// `i + 1`; entry 0 is the entry block, where parameters and constants
    /// count as defined). Filled only off the clean path, by
    /// `build_structure`.
    inst_block: Vec<u32>,
    phi_scratch: PhiScratch,
    case_values: Vec<i64>,
    phi_edges: PhiEdges,
    /// No back end reads [`FunctionVerifier::analysis`]: the graph of a
    /// clean body gets only what the checks need (dominators, found in
    /// block order when that gives them: `Cfg::finish_dominance`).
    dominance_only: bool,
    /// Tests turn the quick checks off to compare the two paths.
    #[cfg(test)]
    pub(super) full_checks_only: bool,
}

/// The control-flow facts the verifier established for a body it passed,
/// handed to back ends so they need not compute them again: successors and
/// predecessors of each basic block (distinct, each block once), which
/// blocks are reachable, reverse postorder and dominators.
///
/// A body with no blocks has an empty graph.
#[derive(Clone, Copy)]
pub struct FunctionAnalysis<'a> {
    cfg: &'a Cfg,
}

impl<'a> FunctionAnalysis<'a> {
    /// The graph itself (for back ends that run [`Cfg`]'s algorithms on
    /// graphs of their own too).
    pub fn cfg(&self) -> &'a Cfg {
        self.cfg
    }
    /// Number of basic blocks.
    pub fn num_blocks(&self) -> usize {
        self.cfg.len()
    }
    /// Distinct successors of block `b`, in the order its terminator names them.
    pub fn succs(&self, b: u32) -> &'a [u32] {
        self.cfg.succs(b)
    }
    /// Distinct predecessors of block `b`, in increasing order.
    pub fn preds(&self, b: u32) -> &'a [u32] {
        self.cfg.preds(b)
    }
    /// Whether block `b` can be reached from the entry block.
    pub fn is_reachable(&self, b: u32) -> bool {
        self.cfg.is_reachable(b)
    }
    /// Reachable blocks in reverse postorder (the entry first).
    pub fn rpo(&self) -> &'a [u32] {
        self.cfg.rpo()
    }
    /// The immediate dominator of reachable `b` (the entry block is its own).
    pub fn idom(&self, b: u32) -> Option<u32> {
        self.cfg.idom(b)
    }
    /// Whether `a` dominates `b` (reflexive; false if either is unreachable).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        self.cfg.dominates(a, b)
    }
}

/// A function-local value (parameter, constant or instruction result).
#[derive(Clone, Copy)]
struct Local {
    /// The type as a [`TyCode`] (`Cx::local_ty` gives the type itself).
    code: TyCode,
    /// 1 + the defining instruction's index; 0 for parameters and
    /// constants, defined before the body (see `def_reaches`).
    def_at: u32,
    /// The dominator interval (`Cfg::dom_interval`) of the defining block
    /// (the entry block's for parameters and constants), when the body has
    /// a block structure: a use checks dominance with the one load that
    /// also gives the type.
    dom: (u32, u32),
}

const NO_DOM: (u32, u32) = (u32::MAX, 0);

impl Local {
    #[inline(always)]
    fn new(ty: ValType, def_at: u32, dom: (u32, u32)) -> Self {
        Local { code: ty_code(ty), def_at, dom }
    }
}

/// What an instruction yields, for comparing with its recorded result.
#[derive(Clone, Copy, PartialEq)]
enum Yields {
    Nothing,
    Value(ValType),
    /// Its operands are broken (already reported), so the type is unknown.
    Unknown,
}

impl FunctionVerifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// A verifier whose [`FunctionVerifier::analysis`] nobody reads (the
    /// pipeline's when its back end does not): the reverse postorder and
    /// predecessor lists of a clean body are then left out (a phi's full
    /// check makes the lists), and the analysis is incomplete (see
    /// `Cfg::finish_dominance`). The diagnostics are the same.
    pub(crate) fn dominance_only() -> Self {
        FunctionVerifier { dominance_only: true, ..Self::default() }
    }

    /// What the last [`FunctionVerifier::verify`] computed about its body
    /// (meaningful when it found no problem).
    pub fn analysis(&self) -> FunctionAnalysis<'_> {
        FunctionAnalysis { cfg: &self.cfg }
    }

    /// Appends the problems of body `f` (of module `m`) to `out`.
    pub fn verify(&mut self, m: &Module, f: &Function, out: &mut Vec<Diagnostic>) {
        self.verify_body::<false>(m, f, &[], out);
    }

    /// [`FunctionVerifier::verify`] for a body just as the decoder handed it
    /// out, whose results it numbered and typed itself: each instruction
    /// with a result defines the next value after the constants and is
    /// listed in `Function::results`, in order, and no other is; and each
    /// result has the type the decoder derived from the record (a binary
    /// operator's or select's that of its first operand, a compare's the
    /// boolean of it, a load's, cast's, call's or phi's the one it names,
    /// an alloca's i32, none for the rest). The clean path then numbers the
    /// values from `results` without checking that again (a walk over every
    /// instruction), and the quick checks leave out the results; the
    /// diagnostics are the same. `types` are the values' types as the
    /// decoder kept them (parameters, constants, results), which the
    /// numbering reads rather than each result's instruction. Also, each
    /// block ends at its first terminator (the decoder closes a block
    /// there), so the quick checks of a clean body leave out where a
    /// terminator stands and, its targets being the graph's edges
    /// (`build_clean_cfg` takes none to a missing block or the entry),
    /// where it goes. A body that is not clean takes `verify`'s path.
    /// Its scalar constants are as the decoder makes them (an integer
    /// within its integer type's width, a float of f32 within 32 bits or
    /// of f64, or undef), so only the vector ones are checked.
    pub(crate) fn verify_decoded(&mut self, m: &Module, f: &Function, types: &[ValType], out: &mut Vec<Diagnostic>) {
        self.verify_body::<true>(m, f, types, out);
    }

    fn verify_body<const DECODED: bool>(&mut self, m: &Module, f: &Function, types: &[ValType], out: &mut Vec<Diagnostic>) {
        self.cfg.clear();
        self.phi_scratch.listed = false;
        let Some(decl) = m.functions.get(f.id.0 as usize) else {
            out.push(Diagnostic::module(
                f.pos,
                format!("function body for @f{}, which is not declared (only {} functions)", f.id.0, m.functions.len()),
            ));
            return;
        };
        #[cfg(test)]
        let quick = !self.full_checks_only;
        #[cfg(not(test))]
        let quick = true;
        // Clean bodies (blocks tiling the instructions, each ending in its
        // terminator) get their graph first, so the values can be numbered
        // with their blocks' dominator intervals in one pass; the others
        // take the reporting path below in the order it reports.
        let clean = quick
            && if cfg!(not(target_arch = "wasm32")) && self.dominance_only {
                build_clean_cfg::<true>(f, &mut self.cfg)
            } else {
                build_clean_cfg::<false>(f, &mut self.cfg)
            }
            && if DECODED {
                number_locals_decoded(&mut self.locals, f, types, &self.cfg)
            } else {
                number_locals_clean(&mut self.locals, f, &self.cfg)
            };
        // A decoded body that is not clean (rare: broken input) takes the
        // general path whole, so below a decoded body is a clean one.
        #[cfg(not(target_arch = "wasm32"))]
        if DECODED && !clean {
            self.verify_body::<false>(m, f, types, out);
            return;
        }
        let numbered = if clean {
            Ok(())
        } else {
            self.cfg.clear();
            number_locals(&mut self.locals, f, quick)
        };
        // `number_locals_decoded` leaves the slots of a longer earlier body
        // after this one's.
        let locals_len = if DECODED && clean { types.len() } else { self.locals.len() };
        let mut cx = Cx { m, f, decl, out, label: None, locals: &self.locals[..locals_len], first_local: f.first_local, bad_operand: false };
        if decl.is_proto {
            let msg = format!("Function {} has a body but is declared as a prototype", cx.label());
            cx.report(f.pos, None, None, msg);
        }
        if f.first_local != m.num_global_values() {
            // Every value id would be misread; nothing else is meaningful.
            let msg = format!(
                "function-local values start at {}, but the module has {} functions and globals",
                f.first_local,
                m.num_global_values()
            );
            cx.report(f.pos, None, None, msg);
            return;
        }
        if f.params != decl.sig.params {
            let msg = format!("parameters ({}) do not match the signature {}", TypeList(&f.params), decl.sig);
            cx.report(f.pos, None, None, msg);
        }
        if let Err((pos, inst, msg)) = numbered {
            cx.report(pos, None, inst, msg);
            return;
        }
        cx.check_constants::<DECODED>();

        let structured = clean || {
            drop(cx);
            let mut cx = Cx { m, f, decl, out, label: None, locals: &self.locals[..locals_len], first_local: f.first_local, bad_operand: false };
            let structured = build_structure(&mut cx, &mut self.inst_block, &mut self.cfg);
            if structured {
                let (inst_block, cfg) = (&self.inst_block, &self.cfg);
                for l in self.locals.iter_mut() {
                    l.dom = cfg.dom_interval(inst_block[l.def_at as usize]);
                }
            }
            structured
        };
        let mut cx = Cx { m, f, decl, out, label: None, locals: &self.locals[..locals_len], first_local: f.first_local, bad_operand: false };
        let (phi_scratch, case_values) = (&mut self.phi_scratch, &mut self.case_values);
        if structured {
            let layout = Layout { cfg: &self.cfg };
            let edges = &mut self.phi_edges;
            // The graph has a node per block.
            for ((b, blk), (pre, _)) in f.blocks.iter().enumerate().zip(layout.cfg.dom_intervals()) {
                let b = b as u32;
                // Unreachable blocks have no preorder number (the loop
                // keeps `pre` anyway; the size was one more spilled).
                let reachable = pre != UNREACHABLE;
                let (start, end) = (blk.start as usize, blk.end as usize);
                // Sliced once: within `end <= f.insts.len()` (the blocks
                // tile the body, or are empty within it).
                let insts = &f.insts[start..end];
                // The leading phis: neither misplaced nor terminators.
                let mut i = start;
                if let Some(Inst { kind: InstKind::Phi { .. }, .. }) = insts.first() {
                    edges.reusable = 0;
                }
                while let Some(inst) = insts.get(i - start) {
                    let InstKind::Phi { ty, incoming } = inst.kind else { break };
                    let mut quick_phi = || {
                        (DECODED || inst.result.is_some_and(|(_, r)| r == ty))
                            && cx.quick_phi(b, &layout, ty, f.incoming(incoming), edges)
                    };
                    if !(quick && quick_phi()) {
                        let at = At { i, inst, block: Some(b), dom: false, pre };
                        let yields = cx.check_inst(&at, Some(&layout), phi_scratch, case_values);
                        cx.check_result(&at, yields);
                    }
                    i += 1;
                }
                // The rest: a phi here follows a non-phi.
                // (Uses in unreachable blocks take the full checks.)
                let quick = quick && reachable;
                // One counter, the index plus 1, which stays in a register
                // (an index counted from the block's start was recomputed
                // and spilled at each instruction: callgrind).
                for (next, inst) in (i + 1..).zip(&insts[i - start..]) {
                    // (`next` is at most the block's end, a `u32`.)
                    if quick && cx.quick_ok::<DECODED>(Use { next: next as u32, pre }, inst, next == end) {
                        continue;
                    }
                    cx.check_in_block(At { i: next, inst, block: Some(b), dom: true, pre }, &layout, phi_scratch, case_values);
                }
            }
        } else {
            // No usable blocks: per-instruction checks only.
            for (i, inst) in f.insts.iter().enumerate() {
                let at = At { i, inst, block: None, dom: false, pre: u32::MAX };
                let yields = cx.check_inst(&at, None, phi_scratch, case_values);
                cx.check_result(&at, yields);
            }
        }
        cx.check_forward_types::<DECODED>();
        cx.check_names();
    }
}

/// Fills `locals` with the type and definition of every local value, checking
/// that result ids run on from the constants in instruction order and that
/// `Function::results` lists those instructions; otherwise no value id can
/// be trusted.
#[inline(never)]
fn number_locals(locals: &mut Vec<Local>, f: &Function, quick: bool) -> Result<(), (BitPos, Option<InstId>, String)> {
    locals.clear();
    locals.extend(f.params.iter().map(|&ty| Local::new(ty, 0, NO_DOM)));
    locals.extend(f.consts.iter().map(|c| Local::new(c.ty, 0, NO_DOM)));
    // One pass with no branch per instruction on whether it has a result:
    // each instruction's entry goes to the next free slot, which only an
    // instruction with a result moves past. Then `results` must list
    // exactly those instructions, in order (always, for decoded bodies).
    if quick {
        let base = locals.len();
        let first = f.first_inst_value();
        locals.resize(base + f.insts.len() + 1, Local::new(ValType::I32, 0, NO_DOM));
        let slots = &mut locals[base..];
        let mut n = 0usize;
        let mut numbered = true;
        for (i, inst) in f.insts.iter().enumerate() {
            let has = inst.result.is_some();
            let (v, ty) = inst.result.unwrap_or((ValueId(first.wrapping_add(n as u32)), ValType::I32));
            numbered &= v.0 == first.wrapping_add(n as u32);
            slots[n] = Local::new(ty, i as u32 + 1, NO_DOM);
            n += has as usize;
        }
        locals.truncate(base + n);
        if numbered
            && n == f.results.len()
            && f.results.iter().zip(&locals[base..]).all(|(&InstId(i), l)| l.def_at == i.wrapping_add(1))
        {
            return Ok(());
        }
        locals.truncate(base);
    }
    number_locals_in_order(locals, f)
}

/// `number_locals` instruction by instruction, naming the first at fault.
fn number_locals_in_order(locals: &mut Vec<Local>, f: &Function) -> Result<(), (BitPos, Option<InstId>, String)> {
    let first = f.first_inst_value();
    for (i, inst) in f.insts.iter().enumerate() {
        if let Some((v, ty)) = inst.result {
            let k = locals.len() - (f.params.len() + f.consts.len());
            let expected = first.wrapping_add(k as u32);
            if v.0 != expected || f.results.get(k) != Some(&InstId(i as u32)) {
                let msg = format!("instruction result is numbered {} but should be {expected} (%v{k})", v.0);
                return Err((inst.pos, Some(InstId(i as u32)), msg));
            }
            locals.push(Local::new(ty, i as u32 + 1, NO_DOM));
        }
    }
    let produced = locals.len() - (f.params.len() + f.consts.len());
    if produced != f.results.len() {
        let msg = format!("{} result ids listed but {produced} instructions produce values", f.results.len());
        return Err((f.pos, None, msg));
    }
    Ok(())
}

/// The clean path's `build_structure` (which it must match when it returns
/// true): if the blocks tile the body and each ends with a terminator,
/// builds the CFG and returns true; otherwise false, having reported
/// nothing (and left a graph to be cleared). With `DOMINANCE_ONLY`, only
/// what the checks read (see [`FunctionVerifier::dominance_only`]).
#[inline(never)]
fn build_clean_cfg<const DOMINANCE_ONLY: bool>(f: &Function, cfg: &mut Cfg) -> bool {
    if f.blocks.is_empty() {
        return false;
    }
    // Tiling and terminators checked in the walk that adds the edges. A
    // terminator has at most two targets, or a switch's default and cases.
    let max_edges = 2 * f.blocks.len() + f.switch_cases.len();
    let built = cfg.build_edges(f.blocks.len(), max_edges, |edges| {
        let mut expected_start = 0u32;
        for (b, blk) in f.blocks.iter().enumerate() {
            if blk.start != expected_start || blk.end <= blk.start {
                return false;
            }
            expected_start = blk.end;
            let Some(last) = f.insts.get(blk.end as usize - 1) else { return false };
            // A target that is missing or the entry is reported by the
            // reporting path (and left out of the graph): here it makes the
            // body unclean, so a clean body's targets are its edges.
            #[cfg(not(target_arch = "wasm32"))]
            let added = if DOMINANCE_ONLY {
                edges.begin_source_dominance(b as u32);
                add_successors(f, b as u32, &last.kind, &mut DominanceEdges(edges))
            } else {
                add_successors(f, b as u32, &last.kind, edges)
            };
            #[cfg(target_arch = "wasm32")]
            let added = add_successors(f, b as u32, &last.kind, edges);
            if added != Some(true) {
                return false;
            }
            edges.end_source(b as u32);
        }
        expected_start as usize == f.insts.len()
    });
    if !built {
        return false;
    }
    #[cfg(not(target_arch = "wasm32"))]
    if DOMINANCE_ONLY {
        cfg.finish_dominance();
        return true;
    }
    cfg.finish();
    true
}

/// `number_locals` for a body that `build_clean_cfg` accepted, giving each
/// value its block's dominator interval. False, with `locals` to be
/// rebuilt, when the numbering is not exactly right: then `number_locals`
/// says why.
#[inline(never)]
fn number_locals_clean(locals: &mut Vec<Local>, f: &Function, cfg: &Cfg) -> bool {
    locals.clear();
    let entry = cfg.dom_interval(0);
    locals.extend(f.params.iter().map(|&ty| Local::new(ty, 0, entry)));
    locals.extend(f.consts.iter().map(|c| Local::new(c.ty, 0, entry)));
    let base = locals.len();
    locals.resize(base + f.results.len(), Local::new(ValType::I32, 0, NO_DOM));
    // One walk over the instructions (the blocks tile them): the k-th
    // with a result must be `results[k]` and define the k-th value after
    // the constants, and there must be as many as `results` lists.
    // (Walking `results` instead needs a count of the instructions with
    // results: a second walk.)
    let insts = &f.insts[..];
    let mut listed = f.results.iter().zip(&mut locals[base..]);
    let mut next_value = f.first_inst_value();
    for (b, blk) in f.blocks.iter().enumerate() {
        let dom = cfg.dom_interval(b as u32);
        let (start, end) = (blk.start as usize, blk.end as usize);
        for (i, inst) in insts[start..end].iter().enumerate().map(|(j, inst)| (start + j, inst)) {
            if let Some((v, ty)) = inst.result {
                let Some((&InstId(listed_i), slot)) = listed.next() else { return false };
                // Branches, not accumulated flags: they are never taken
                // on decoded bodies.
                if listed_i as usize != i || v.0 != next_value {
                    return false;
                }
                *slot = Local::new(ty, i as u32 + 1, dom);
                next_value = next_value.wrapping_add(1);
            }
        }
    }
    listed.next().is_none()
}

/// `number_locals_clean` for a body numbered by the decoder (see
/// [`FunctionVerifier::verify_decoded`]), whose values' types the decoder
/// kept in order in `types`: the values after the constants are
/// `results`' instructions' in order, so it walks `results` (and `types`),
/// not every instruction, each block taking those before its end. False (never, for decoded bodies) when `types` or a
/// listed instruction is not where it should be. The body's locals are
/// the first `types.len()`: `locals` keeps any longer earlier body's.
#[inline(never)]
fn number_locals_decoded(locals: &mut Vec<Local>, f: &Function, types: &[ValType], cfg: &Cfg) -> bool {
    let base = f.params.len() + f.consts.len();
    if types.len() != base + f.results.len() {
        return false;
    }
    // Every slot is written below, so the earlier bodies' are kept rather
    // than cleared, and never cut: only the slots past the longest body's
    // so far get the placeholder first (after a short body, resizing
    // filled every slot a longer one needed again).
    if locals.len() < types.len() {
        locals.resize(types.len(), Local::new(ValType::I32, 0, NO_DOM));
    }
    let (head, tail) = locals[..types.len()].split_at_mut(base);
    let entry = cfg.dom_interval(0);
    for (slot, &ty) in head.iter_mut().zip(&types[..base]) {
        *slot = Local::new(ty, 0, entry);
    }
    // Block by block, the results before its end: a tight loop per block
    // (a walk over the results moving a block cursor spilled and reloaded
    // its registers at each block it entered).
    let (results, types) = (&f.results[..], &types[base..]);
    // All three are as long; the minimum shows the compiler so.
    let n = results.len().min(types.len()).min(tail.len());
    let mut k = 0;
    // (`cfg` has a node per block.)
    for (blk, dom) in f.blocks.iter().zip(cfg.dom_intervals()) {
        while k < n && results[k].0 < blk.end {
            tail[k] = Local::new(types[k], results[k].0 + 1, dom);
            k += 1;
        }
    }
    k == results.len()
}

/// Checks that the blocks tile the body and end in terminators, then
/// builds the CFG. Returns whether block-level analysis is possible.
// Out of line, like `number_locals`: inlined, these once-per-body passes
// left `verify`'s per-instruction loop worse code (0.3% more instructions
// in all on xsystem35.pexe).
#[inline(never)]
fn build_structure(cx: &mut Cx<'_>, inst_block: &mut Vec<u32>, cfg: &mut Cfg) -> bool {
    let f = cx.f;
    if f.blocks.is_empty() {
        // An empty function block (no DECLAREBLOCKS, no instructions)
        // is accepted, as PNaCl's reference interpreter does (corpus
        // regression/3.pexe); instructions without blocks are not.
        if !f.insts.is_empty() {
            cx.report(f.pos, None, None, "instructions outside any basic block (no blocks declared)".into());
        }
        return false;
    }
    // Non-empty blocks must tile the instructions in order. An empty block
    // (declared but never reached by a terminator) holds nothing, so where
    // it says it starts does not matter; it is reported below.
    let mut expected_start = 0u32;
    for blk in &f.blocks {
        if blk.start == blk.end && blk.end as usize <= f.insts.len() {
            continue;
        }
        if blk.start != expected_start || blk.end < blk.start || blk.end as usize > f.insts.len() {
            cx.report(f.pos, None, None, "basic blocks do not tile the instruction list".into());
            return false;
        }
        expected_start = blk.end;
    }
    if expected_start as usize != f.insts.len() {
        cx.report(f.pos, None, None, "instructions follow the last basic block".into());
        return false;
    }
    let n = f.blocks.len();
    inst_block.clear();
    inst_block.resize(f.insts.len() + 1, 0);
    cfg.begin(n);
    for (b, blk) in f.blocks.iter().enumerate() {
        let b = b as u32;
        let insts = &f.insts[blk.start as usize..blk.end as usize];
        inst_block[blk.start as usize + 1..blk.end as usize + 1].fill(b);
        match insts.last() {
            None => cx.report(f.pos, Some(BlockId(b)), None, format!("block %b{b} is empty (it needs a terminator)")),
            Some(last) if !last.kind.is_terminator() => {
                let id = InstId(blk.end - 1);
                cx.report(last.pos, Some(BlockId(b)), Some(id), format!("block %b{b} does not end with a terminator"));
            }
            Some(last) => {
                let _ = add_successors(f, b, &last.kind, cfg);
            }
        }
        cfg.end_source(b);
    }
    cfg.finish();
    true
}

/// Adds the edges from block `b` to the targets of its terminator `kind`,
/// and says whether every target was valid; `None` if `kind` is no
/// terminator. Invalid targets (out of range, or the entry) are reported
/// with the instruction and left out of the graph.
#[inline(always)]
fn add_successors(f: &Function, b: u32, kind: &InstKind, cfg: &mut impl AddEdge) -> Option<bool> {
    let n = f.blocks.len();
    let mut valid = true;
    let mut edge = |t: BlockId| {
        if t.0 != 0 && (t.0 as usize) < n {
            cfg.add_edge(b, t.0);
        } else {
            valid = false;
        }
    };
    match kind {
        InstKind::Br { target } => edge(*target),
        InstKind::CondBr { if_true, if_false, .. } => {
            edge(*if_true);
            edge(*if_false);
        }
        InstKind::Switch { default, cases, .. } => {
            edge(*default);
            f.cases(*cases).iter().for_each(|c| edge(c.target));
        }
        InstKind::Ret { .. } | InstKind::Unreachable => {}
        _ => return None,
    }
    Some(valid)
}

/// Where `add_successors` puts the edges: the reporting path's graph, or
/// the clean path's (`Cfg::build_edges`).
trait AddEdge {
    fn add_edge(&mut self, from: u32, to: u32);
}

impl AddEdge for Cfg {
    #[inline(always)]
    fn add_edge(&mut self, from: u32, to: u32) {
        Cfg::add_edge(self, from, to);
    }
}

impl AddEdge for Edges<'_> {
    #[inline(always)]
    fn add_edge(&mut self, from: u32, to: u32) {
        self.add(from, to);
    }
}

/// The clean path's graph finding dominators in block order as its edges
/// come (`Edges::add_dominance`).
#[cfg(not(target_arch = "wasm32"))]
struct DominanceEdges<'a, 'b>(&'a mut Edges<'b>);

#[cfg(not(target_arch = "wasm32"))]
impl AddEdge for DominanceEdges<'_, '_> {
    #[inline(always)]
    fn add_edge(&mut self, from: u32, to: u32) {
        self.0.add_dominance(from, to);
    }
}

/// `check_phi`'s scratch.
#[derive(Default)]
struct PhiScratch {
    /// A phi's entries as (block, value), sorted for the predecessor check.
    entries: Vec<(u32, u32)>,
    /// The body's predecessor lists when its graph left them out
    /// (`Cfg::preds_pending`: most bodies' phis are checked without them),
    /// made by the first phi of the body that needs them (`listed`), as
    /// `Cfg::preds` would give them (`Cfg::pred_range`), and their fill
    /// cursors.
    preds: Vec<u32>,
    cursor: Vec<u32>,
    listed: bool,
}

/// The incoming blocks of a phi that name each predecessor of its block
/// (once, or more with the same value: as `PhiEdges::fill` found), with
/// their dominator-tree preorder numbers (`UNREACHABLE` for blocks where
/// nothing needs to be available).
#[derive(Default)]
struct PhiEdges {
    /// How many blocks the last `fill` that succeeded took.
    len: usize,
    /// Up to 8 (most phis), in place.
    block: [u32; 8],
    pre: [u32; 8],
    /// More (a switch's join), and the blocks sorted (scratch).
    many_block: Vec<u32>,
    many_pre: Vec<u32>,
    sorted: Vec<u32>,
    /// Entries as (block, index), sorted (scratch).
    sorted_entries: Vec<(u32, u32)>,
    /// After `fill_repeated`: the index of the first entry naming each
    /// entry's block.
    first_of: Vec<u32>,
    /// `fill_from_succs_many`'s per block: the stamp of the last fill
    /// that met it and the first entry naming it then.
    seen: Vec<(u32, u32)>,
    stamp: u32,
    /// How many entries a later phi of the block needs to take these
    /// blocks without `fill` (when it names the same): `len` after `fill`
    /// took them, 0 when nothing was taken; after `fill_repeated`, `len`
    /// with `REPEATED` set, which none has: `fill` takes them again
    /// once each value is its block's first one (`first_of`).
    reusable: usize,
}

/// Marks `PhiEdges::reusable` after `fill_repeated`.
const REPEATED: usize = 1 << (usize::BITS - 1);

/// The preorder number of unreachable blocks (`Cfg::dom_interval`), which
/// no reachable block has.
const UNREACHABLE: u32 = u32::MAX;

impl PhiEdges {
    /// Takes the blocks of `incoming` if they are exactly the predecessors
    /// of block `b`, each once (a few: searched in a line and marked), or
    /// more often with the same value (see `fill_repeated`).
    fn fill(&mut self, b: u32, cfg: &Cfg, incoming: &[(ValueId, BlockId)]) -> bool {
        let last = std::mem::replace(&mut self.reusable, 0);
        if cfg.preds_pending() {
            return self.fill_from_succs(b, cfg, incoming, last);
        }
        let preds = cfg.preds(b);
        if incoming.is_empty() || incoming.len() < preds.len() {
            return false;
        }
        if incoming.len() > preds.len() {
            return self.fill_repeated(cfg, preds, incoming, last == incoming.len() | REPEATED);
        }
        if incoming.len() > 8 {
            return self.fill_many(cfg, preds, incoming);
        }
        let mut seen = 0u32;
        for (j, &(_, bb)) in incoming.iter().enumerate() {
            let Some(k) = preds.iter().position(|&p| p == bb.0) else { return false };
            seen |= 1 << k;
            self.block[j] = bb.0;
            self.pre[j] = cfg.dom_interval(bb.0).0;
        }
        // Each of the `n` entries marked one of `n` predecessors: all of them
        // iff the low `n` bits are set.
        if seen != (1u32 << incoming.len()) - 1 {
            return false;
        }
        self.len = incoming.len();
        self.reusable = self.len;
        true
    }

    /// `fill` before the predecessor lists are made (`Cfg::preds_pending`,
    /// which most blocks never need): the entries' blocks must branch to
    /// `b` (`b` among their successors) and, each taken once, be as many as
    /// its predecessors; so they are its predecessors. Up to 8 entries, one
    /// per predecessor (most phis), are compared in a line; more, or
    /// repeated blocks, go to `fill_from_succs_many`. False past a budget
    /// of successors scanned (switches with many cases as entries): then
    /// `check_phi` decides, with the lists. Inlined into `fill` (so into
    /// `quick_phi`): out of line, its prologue and spills cost verify X
    /// 0.18M instructions (callgrind).
    #[inline]
    fn fill_from_succs(&mut self, b: u32, cfg: &Cfg, incoming: &[(ValueId, BlockId)], last: usize) -> bool {
        let n = incoming.len();
        let count = cfg.pred_count(b);
        if n == 0 || n < count {
            return false;
        }
        if n > 8 || n > count {
            return self.fill_from_succs_many(b, cfg, incoming, count, last);
        }
        let mut scanned = 0;
        for (j, &(_, bb)) in incoming.iter().enumerate() {
            if bb.0 as usize >= cfg.len() || self.block[..j].iter().any(|&e| e == bb.0) {
                return false;
            }
            let succs = cfg.succs(bb.0);
            scanned += succs.len();
            if scanned > 64 || !succs.iter().any(|&s| s == b) {
                return false;
            }
            self.block[j] = bb.0;
            self.pre[j] = cfg.dom_interval(bb.0).0;
        }
        self.len = n;
        self.reusable = n;
        true
    }

    /// `fill_from_succs` for more than 8 entries, or more than `count`,
    /// `b`'s predecessors (`fill_many`'s and `fill_repeated`'s shapes): the
    /// first entry naming each block found by a stamp per block (no sort),
    /// and repeated blocks must repeat their first entry's value, as in
    /// `fill_repeated` (whose reuse by the next phi naming the same blocks
    /// this keeps).
    #[inline(never)]
    fn fill_from_succs_many(&mut self, b: u32, cfg: &Cfg, incoming: &[(ValueId, BlockId)], count: usize, last: usize) -> bool {
        let n = incoming.len();
        let repeated = n > count;
        let one_value = |first_of: &[u32]| incoming.iter().zip(first_of).all(|(&(v, _), &k)| incoming[k as usize].0 == v);
        if repeated && last == n | REPEATED && incoming.iter().zip(self.blocks().0).all(|(&(_, bb), &e)| bb.0 == e) {
            if !one_value(&self.first_of) {
                return false;
            }
            self.reusable = n | REPEATED;
            return true;
        }
        if self.stamp == u32::MAX {
            self.seen.fill((0, 0));
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        if self.seen.len() < cfg.len() {
            self.seen.resize(cfg.len(), (0, 0));
        }
        self.first_of.clear();
        let (mut distinct, mut scanned) = (0, 0);
        for (j, &(_, bb)) in incoming.iter().enumerate() {
            // (`seen` may be longer than this graph.)
            if bb.0 as usize >= cfg.len() {
                return false;
            }
            let seen = &mut self.seen[bb.0 as usize];
            if seen.0 != stamp {
                let succs = cfg.succs(bb.0);
                scanned += succs.len();
                if scanned > 8 * n + 64 || !succs.iter().any(|&s| s == b) {
                    return false;
                }
                *seen = (stamp, j as u32);
                distinct += 1;
            }
            self.first_of.push(seen.1);
        }
        if distinct != count || repeated && !one_value(&self.first_of) {
            return false;
        }
        if n <= 8 {
            for (j, &(_, bb)) in incoming.iter().enumerate() {
                self.block[j] = bb.0;
                self.pre[j] = cfg.dom_interval(bb.0).0;
            }
            self.len = n;
        } else {
            self.take_many(cfg, incoming);
        }
        self.reusable = if repeated { n | REPEATED } else { n };
        true
    }

    /// `fill` for more than 8 entries (as many as `preds`): sorted, they
    /// must be the (sorted) predecessors.
    #[inline(never)]
    fn fill_many(&mut self, cfg: &Cfg, preds: &[u32], incoming: &[(ValueId, BlockId)]) -> bool {
        self.sorted.clear();
        self.sorted.extend(incoming.iter().map(|&(_, bb)| bb.0));
        self.sorted.sort_unstable();
        if self.sorted != preds {
            return false;
        }
        self.take_many(cfg, incoming);
        self.reusable = self.len;
        true
    }

    /// `fill` for more entries than predecessors: a switch's multi-edge
    /// has an entry per case to the block (LLVM's phis keep one per edge),
    /// which `check_phi` merges when they are the same (block, value). So
    /// merged, the entries must be the predecessors, each once; then every
    /// entry is checked as usual, a repeated one once more. (These went to
    /// `check_phi`, sorting them there at about 300 instructions an entry.)
    /// `same_count`: the last phi of the block was taken here and had as
    /// many entries; when they name the same blocks, those are taken
    /// again with no sort, each value compared with its block's first.
    #[inline(never)]
    fn fill_repeated(&mut self, cfg: &Cfg, preds: &[u32], incoming: &[(ValueId, BlockId)], same_count: bool) -> bool {
        let one_value = |first_of: &[u32]| incoming.iter().zip(first_of).all(|(&(v, _), &k)| incoming[k as usize].0 == v);
        if same_count && incoming.iter().zip(self.blocks().0).all(|(&(_, bb), &e)| bb.0 == e) {
            if !one_value(&self.first_of) {
                return false;
            }
            self.reusable = self.len | REPEATED;
            return true;
        }
        // Sorted by block, each block's entries in order: the first of
        // each group is the first entry naming it.
        let entries = &mut self.sorted_entries;
        entries.clear();
        entries.extend(incoming.iter().enumerate().map(|(j, &(_, bb))| (bb.0, j as u32)));
        entries.sort_unstable();
        self.first_of.clear();
        self.first_of.resize(incoming.len(), 0);
        let mut distinct = 0;
        let mut first = (u32::MAX, 0);
        for &(eb, j) in entries.iter() {
            if eb != first.0 {
                // The blocks, each once, must be the (distinct) predecessors.
                if preds.get(distinct) != Some(&eb) {
                    return false;
                }
                distinct += 1;
                first = (eb, j);
            }
            self.first_of[j as usize] = first.1;
        }
        if distinct != preds.len() || !one_value(&self.first_of) {
            return false;
        }
        if incoming.len() <= 8 {
            for (j, &(_, bb)) in incoming.iter().enumerate() {
                self.block[j] = bb.0;
                self.pre[j] = cfg.dom_interval(bb.0).0;
            }
            self.len = incoming.len();
        } else {
            self.take_many(cfg, incoming);
        }
        self.reusable = self.len | REPEATED;
        true
    }

    /// Takes the blocks of more than 8 entries.
    fn take_many(&mut self, cfg: &Cfg, incoming: &[(ValueId, BlockId)]) {
        self.many_block.clear();
        self.many_block.extend(incoming.iter().map(|&(_, bb)| bb.0));
        self.many_pre.clear();
        self.many_pre.extend(incoming.iter().map(|&(_, bb)| cfg.dom_interval(bb.0).0));
        self.len = incoming.len();
    }

    /// The blocks `fill` took, and their preorder numbers.
    #[inline(always)]
    fn blocks(&self) -> (&[u32], &[u32]) {
        if self.len <= 8 {
            (&self.block[..self.len], &self.pre[..self.len])
        } else {
            (&self.many_block, &self.many_pre)
        }
    }
}

/// The block structure, when the body has one (dominator intervals of the
/// definitions are in `Local::dom`).
struct Layout<'a> {
    cfg: &'a Cfg,
}

/// The instruction being checked.
struct At<'a> {
    i: usize,
    inst: &'a Inst,
    block: Option<u32>,
    /// Whether definitions must dominate this instruction's operands (in
    /// `block`): not if the block is unreachable, there is no layout, or
    /// the instruction is a phi (checked per incoming edge). A flag, not
    /// the layout itself: that is all its readers ask.
    dom: bool,
    /// The block's dominator-tree preorder number (when `dom` is set).
    pre: u32,
}

/// A non-phi instruction's place in a reachable block, for the quick
/// checks of its operands.
#[derive(Clone, Copy)]
struct Use {
    /// The instruction's index plus 1 (the block loop's counter), as wide
    /// as `Local::def_at`: compared with it in one instruction, where a
    /// `usize` needed it loaded and widened first.
    next: u32,
    /// The block's dominator-tree preorder number.
    pre: u32,
}

impl Use {
    /// `Cx::def_reaches` for a non-phi, or false: a definition that comes
    /// later in the body counts as not reaching (within the block it does
    /// not; from a dominating block laid out later, which is rare, the full
    /// check accepts it).
    #[inline(always)]
    fn reaches(self, l: &Local) -> bool {
        let (dp, ds) = l.dom;
        (self.pre.wrapping_sub(dp) < ds) & (l.def_at < self.next)
    }
}

/// The body being checked and where its diagnostics go.
struct Cx<'a> {
    m: &'a Module,
    f: &'a Function,
    decl: &'a FunctionDecl,
    locals: &'a [Local],
    /// `f.first_local`, at hand: each operand's index into `locals` is
    /// its id less this (one load from `Cx`, where through `f` it was two).
    first_local: u32,
    out: &'a mut Vec<Diagnostic>,
    /// The function's name for messages, made on the first error.
    label: Option<String>,
    /// Set by `op` when an operand is undefined, does not dominate, or is
    /// an intrinsic's address; the details are worked out afterwards.
    bad_operand: bool,
}

impl Cx<'_> {
    fn label(&mut self) -> String {
        self.label.get_or_insert_with(|| function_label(self.m, self.f.id)).clone()
    }

    #[cold]
    fn report(&mut self, pos: BitPos, block: Option<BlockId>, inst: Option<InstId>, message: String) {
        let function_name = self.decl.name.as_deref().map(|n| String::from_utf8_lossy(n).into_owned());
        self.out.push(Diagnostic { pos, message, function: Some(self.f.id), function_name, block, inst });
    }

    #[cold]
    fn err(&mut self, at: &At<'_>, message: String) {
        self.report(at.inst.pos, at.block.map(BlockId), Some(InstId(at.i as u32)), message);
    }

    /// A pnacl-abicheck style error: "Function F disallowed: reason: detail".
    #[cold]
    fn disallowed(&mut self, at: &At<'_>, reason: &str, detail: String) {
        let label = self.label();
        self.err(at, format!("Function {label} disallowed: {reason}: {detail}"));
    }

    /// The type of `v`, if it is defined (functions and globals are i32).
    #[inline]
    fn ty(&self, v: ValueId) -> Option<ValType> {
        match self.locals.get(v.0.wrapping_sub(self.first_local) as usize) {
            Some(l) => Some(self.local_ty(l, v)),
            None => (v.0 < self.first_local).then_some(ValType::I32),
        }
    }

    /// The type of local `l`, value `v`.
    #[inline(always)]
    fn local_ty(&self, l: &Local, v: ValueId) -> ValType {
        if l.code < OTHER_CODE {
            CODE_TYPES[l.code as usize]
        } else {
            self.disallowed_local_ty(l, v)
        }
    }

    /// `local_ty` of a type with no code of its own, from where `l` was
    /// defined.
    #[cold]
    #[inline(never)]
    fn disallowed_local_ty(&self, l: &Local, v: ValueId) -> ValType {
        let f = self.f;
        let k = v.0.wrapping_sub(f.first_local) as usize;
        let ty = if l.def_at != 0 {
            f.insts.get(l.def_at as usize - 1).and_then(|inst| inst.result).map(|(_, t)| t)
        } else if k < f.params.len() {
            f.params.get(k).copied()
        } else {
            f.consts.get(k - f.params.len()).map(|c| c.ty)
        };
        ty.unwrap_or(ValType::I32)
    }

    /// The instruction defining `v`, if `v` is an instruction result.
    #[inline]
    fn def(&self, v: ValueId) -> Option<usize> {
        let l = self.locals.get(v.0.wrapping_sub(self.first_local) as usize)?;
        (l.def_at != 0).then(|| l.def_at as usize - 1)
    }

    /// How listings name `v`: `@f3`, `@g2`, `%p0`, `%c4`, `%v7`.
    fn name(&self, v: ValueId) -> String {
        match self.f.value_in(self.m, v) {
            Some(ValueRef::Function(id)) => format!("@f{}", id.0),
            Some(ValueRef::Global(g)) => format!("@g{}", g.0),
            Some(ValueRef::Param(i)) => format!("%p{i}"),
            Some(ValueRef::Const(i)) => format!("%c{i}"),
            Some(ValueRef::Inst(_)) | None if v.0 >= self.f.first_inst_value() => {
                format!("%v{}", v.0 - self.f.first_inst_value())
            }
            _ => format!("value {}", v.0),
        }
    }

    /// The integer value of `v` if it is an integer constant.
    fn const_int(&self, v: ValueId) -> Option<i64> {
        match self.f.value(v)? {
            ValueRef::Const(i) => match self.f.consts[i as usize].value {
                ConstValue::Int(x) => Some(x),
                _ => None,
            },
            _ => None,
        }
    }

    fn check_constants<const DECODED: bool>(&mut self) {
        let consts = &self.f.consts;
        // Decoded: straight to the first vector constant, if any (see
        // below), in a loop that does nothing else.
        let first = if DECODED {
            consts.iter().position(|c| !matches!(c.ty, ValType::Scalar(_))).unwrap_or(consts.len())
        } else {
            0
        };
        for (k, c) in consts.iter().enumerate().skip(first) {
            // The decoder makes a scalar constant only as one that passes:
            // an integer of an integer type, sign-extended from its width
            // (so it fits), a float of f32 (at most 32 bits) or f64, or
            // undef. Only a vector's type can be at fault (undef of a
            // disallowed vector type).
            if DECODED && matches!(c.ty, ValType::Scalar(_)) {
                continue;
            }
            // Most constants are integers that fit their scalar type: one
            // range from a table (empty for the float types), no match.
            if let (ConstValue::Int(x), ValType::Scalar(s)) = (c.value, c.ty) {
                let (lo, hi) = INT_RANGE[s as usize];
                if lo <= x && x <= hi {
                    continue;
                }
            }
            let problem = if !is_valid_value_type(c.ty) {
                Some(format!("constant %c{k} has disallowed type {}", c.ty))
            } else {
                match (c.value, c.ty) {
                    (ConstValue::Undef, _) => None,
                    (_, ValType::Vector { .. }) => Some(format!("vector constant %c{k} must be undef")),
                    (ConstValue::Int(x), ValType::Scalar(s)) if s.is_int() => {
                        (!int_fits(x, s.bits())).then(|| format!("constant %c{k} = {x} does not fit in {}", c.ty))
                    }
                    (ConstValue::Float(bits), ValType::Scalar(Scalar::F32)) => (bits > u64::from(u32::MAX))
                        .then(|| format!("float constant %c{k} has more than 32 bits ({bits:#x})")),
                    (ConstValue::Float(_), ValType::Scalar(Scalar::F64)) => None,
                    (ConstValue::Int(_), _) => Some(format!("integer constant %c{k} has non-integer type {}", c.ty)),
                    (ConstValue::Float(_), _) => Some(format!("float constant %c{k} has non-float type {}", c.ty)),
                }
            };
            if let Some(msg) = problem {
                self.report(c.pos, None, None, msg);
            }
        }
    }

    /// The type of operand `v` of the instruction at `at`, checking on the
    /// way that it is defined, that its definition dominates the use (only
    /// phis may use their own result), and that it is not an intrinsic's
    /// address (intrinsics may only be called directly, and as values they
    /// would be addresses of functions that do not exist). Each operand
    /// must go through here exactly once; problems set `bad_operand`.
    #[inline(always)]
    fn op(&mut self, at: &At<'_>, v: ValueId) -> Option<ValType> {
        self.operand(at, v, false)
    }

    /// `op` for the callee of a direct call, which may be an intrinsic.
    fn callee_op(&mut self, at: &At<'_>, v: ValueId) -> Option<ValType> {
        self.operand(at, v, true)
    }

    #[inline(always)]
    fn operand(&mut self, at: &At<'_>, v: ValueId, is_direct_callee: bool) -> Option<ValType> {
        match self.locals.get(v.0.wrapping_sub(self.first_local) as usize) {
            Some(l) => {
                if !self.def_reaches(at, l) {
                    self.bad_operand = true;
                }
                Some(self.local_ty(l, v))
            }
            None if v.0 < self.first_local => {
                if !is_direct_callee && self.is_intrinsic_value(v) {
                    self.bad_operand = true;
                }
                Some(ValType::I32)
            }
            None => {
                self.bad_operand = true;
                None
            }
        }
    }

    /// Whether the value defined at `def_at` (see `Local`) may be used by
    /// the instruction at `at`.
    #[inline(always)]
    fn def_reaches(&self, at: &At<'_>, l: &Local) -> bool {
        let def_at = l.def_at as usize;
        match at.dom {
            // "Earlier in the same block, or in a dominating block" (a block
            // dominates itself; parameters and constants sit before the
            // entry block's first instruction). Written without branches:
            // which case applies is data-dependent and mispredicts.
            // Same block as `Cfg::dominates(def block, b)` and `def block
            // != b`: preorder numbers of reachable blocks are distinct.
            true => {
                let (dp, ds) = l.dom;
                (at.pre.wrapping_sub(dp) < ds) & ((dp != at.pre) | (def_at <= at.i))
            }
            // `dom` is false for phis (checked per edge), unreachable
            // blocks and bodies without blocks: only a non-phi's use of its
            // own result is wrong then.
            false => def_at != at.i + 1 || matches!(at.inst.kind, InstKind::Phi { .. }),
        }
    }

    /// Whether `v` is the address of an intrinsic declaration.
    fn is_intrinsic_value(&self, v: ValueId) -> bool {
        self.m.functions.get(v.0 as usize).is_some_and(|d| d.is_proto && is_intrinsic_name(d))
    }

    /// Says what `op` found wrong: the first problem of each kind.
    #[cold]
    #[inline(never)]
    fn report_operand_problems(&mut self, at: &At<'_>) {
        let dom = at.dom;
        let mut found = OperandProblems::default();
        let mut check = |v: ValueId, is_direct_callee: bool, dom: bool| {
            let x = v.0.wrapping_sub(self.first_local) as usize;
            if let Some(local) = self.locals.get(x) {
                if local.def_at == 0 {
                    return;
                }
                let d = local.def_at as usize - 1;
                if d == at.i {
                    if dom || !matches!(at.inst.kind, InstKind::Phi { .. }) {
                        found.self_use.get_or_insert(v);
                    }
                } else if dom {
                    // `dom` is set only for reachable blocks, whose preorder
                    // numbers are distinct: equal numbers mean one block.
                    let (dp, ds) = local.dom;
                    let ok = if dp == at.pre { d < at.i } else { at.pre.wrapping_sub(dp) < ds };
                    if !ok {
                        found.not_dominating.get_or_insert((v, d));
                    }
                }
            } else if v.0 >= self.first_local {
                found.undefined.get_or_insert(v);
            } else if !is_direct_callee && self.is_intrinsic_value(v) {
                found.intrinsic.get_or_insert(v);
            }
        };
        match Operands::of(self.f, &at.inst.kind) {
            Operands::Few(ops, n) => ops[..n].iter().for_each(|&v| check(v, false, dom)),
            Operands::Call { callee, args, direct } => {
                check(callee, direct, dom);
                args.iter().for_each(|&v| check(v, false, dom));
            }
            Operands::Phi(incoming) => incoming.iter().for_each(|&(v, _)| check(v, false, false)),
        }
        self.report_found(at, found);
    }

    fn report_found(&mut self, at: &At<'_>, found: OperandProblems) {
        if let Some(v) = found.undefined {
            let msg = format!("operand {} is not a defined value (values end at {})", v.0, self.f.end_value());
            self.err(at, msg);
        }
        if let Some(v) = found.intrinsic {
            let name = function_label(self.m, FuncId(v.0));
            self.disallowed(at, "operand not InherentPtr", format!("address of LLVM intrinsic {name}"));
        }
        if let Some(v) = found.self_use {
            let msg = format!("instruction uses its own result {} (only phis may)", self.name(v));
            self.err(at, msg);
        }
        if let Some((v, d)) = found.not_dominating {
            let msg = format!("{} (defined at {}) does not dominate this use", self.name(v), self.f.insts[d].pos);
            self.err(at, msg);
        }
    }

    #[inline]
    fn check_result(&mut self, at: &At<'_>, yields: Yields) {
        let ok = match yields {
            Yields::Nothing => at.inst.result.is_none(),
            Yields::Value(t) => at.inst.result.is_some_and(|(_, r)| r == t),
            Yields::Unknown => true,
        };
        if !ok {
            self.report_result(at, yields);
        }
    }

    #[cold]
    #[inline(never)]
    fn report_result(&mut self, at: &At<'_>, yields: Yields) {
        match (yields, at.inst.result) {
            (Yields::Nothing, Some((v, _))) => {
                let msg = format!("instruction produces no value but has result {}", self.name(v));
                self.err(at, msg);
            }
            (Yields::Value(t), None) => self.err(at, format!("instruction produces a {t} but has no result")),
            (Yields::Value(t), Some((_, r))) => {
                self.err(at, format!("result type is {r}, but the instruction produces {t}"));
            }
            _ => {}
        }
    }

    /// Types an instruction names (phi, load, cast, indirect call) must be
    /// allowed ones; every other result type follows from checked operands.
    fn check_named_type(&mut self, at: &At<'_>, t: ValType) {
        if !is_valid_value_type(t) {
            self.disallowed(at, "bad result type", format!("{t}"));
        }
    }

    /// `DECODED`: the decoder compared each declaration of an instruction's
    /// result with the type it defined (`FunctionState::forward_type` for a
    /// value defined already, `resolve_forward` as one is), so only those
    /// of other values are left to report.
    fn check_forward_types<const DECODED: bool>(&mut self) {
        let f = self.f;
        for ft in &f.forward_types {
            let msg = if ft.value.0 < f.first_inst_value() || ft.value.0 >= f.end_value() {
                Some(format!("forward type declaration of {}, which is not an instruction result", self.name(ft.value)))
            } else if DECODED {
                None
            } else {
                match self.ty(ft.value) {
                    Some(t) if t != ft.ty => Some(format!(
                        "forward type declaration says {} is {}, but it is defined as {t}",
                        self.name(ft.value),
                        ft.ty
                    )),
                    _ => None,
                }
            };
            if let Some(msg) = msg {
                self.report(ft.pos, None, None, msg);
            }
        }
    }

    fn check_names(&mut self) {
        let f = self.f;
        let end = f.end_value();
        for (v, name) in &f.value_names {
            if v.0 >= end {
                let msg =
                    format!("symbol {:?} names value {}, which is not defined", String::from_utf8_lossy(name), v.0);
                self.report(f.pos, None, None, msg);
            }
        }
        for (b, name) in &f.block_names {
            if b.0 as usize >= f.blocks.len() {
                let msg = format!(
                    "symbol {:?} names block %b{}, but the function has {} blocks",
                    String::from_utf8_lossy(name),
                    b.0,
                    f.blocks.len()
                );
                self.report(f.pos, None, None, msg);
            }
        }
    }

    /// A branch target must exist and must not be the entry block.
    fn check_target(&mut self, at: &At<'_>, t: BlockId) {
        let n = self.f.blocks.len();
        if t.0 as usize >= n {
            self.err(at, format!("branch to %b{}, which does not exist (the function has {n} blocks)", t.0));
        } else if t.0 == 0 {
            self.err(at, "branch to the entry block %b0 (the entry block cannot have predecessors)".into());
        }
    }

    /// Whether non-phi `inst` at `at` (`last` in its block) certainly
    /// passes the placement checks, `check_inst` and `check_result` without
    /// a diagnostic: the common instructions, checked directly with no
    /// reporting machinery (a terminator only when last). `false` means
    /// "not known", and the full checks run (and decide). Phis go to
    /// `quick_phi`; here they are misplaced.
    #[inline(always)]
    ///
    /// `DECODED`: the result is the decoder's, so right when the operands
    /// are (see [`FunctionVerifier::verify_decoded`]), and not compared.
    fn quick_ok<const DECODED: bool>(&self, at: Use, inst: &Inst, last: bool) -> bool {
        // Whether the result's type has code `c` (compared only with valid
        // codes), or there is none.
        let result = |c: TyCode| DECODED || inst.result.map_or(NO_RESULT, |(_, t)| ty_code(t)) == c;
        let no_result = || DECODED || inst.result.is_none();
        // A decoded body is clean here (see `verify_decoded`): each
        // terminator ends its block and names existing blocks.
        let last = DECODED || last;
        let target = |t: BlockId| DECODED || self.quick_target(t);
        match inst.kind {
            InstKind::Binop { op, lhs, rhs, flags } => {
                let (a, b) = (self.quick_op(at, lhs), self.quick_op(at, rhs));
                a == b && bit(BINOP_TYPES[op as usize], a) && flags == 0 && result(a)
            }
            InstKind::Load { ptr, ty, align } => {
                let t = ty_code(ty);
                self.quick_op(at, ptr) == I32_CODE && access_ok(t, align) && result(t)
            }
            InstKind::Store { ptr, value, align } => {
                let t = self.quick_op(at, value);
                self.quick_op(at, ptr) == I32_CODE && access_ok(t, align) && no_result()
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let (a, b) = (self.quick_op(at, lhs), self.quick_op(at, rhs));
                let types = if pred_is_float(pred) { FLOAT_CODES } else { INT_CODES };
                a == b && bit(types, a) && result(BOOL_CODE_FOR[a as usize & 15])
            }
            InstKind::Br { target: t } => last && target(t) && no_result(),
            InstKind::CondBr { cond, if_true, if_false } => {
                last && self.quick_op(at, cond) == I1_CODE && target(if_true) && target(if_false) && no_result()
            }
            InstKind::Ret { value } => {
                let ok = match (self.decl.sig.ret, value) {
                    (None, None) => true,
                    (Some(w), Some(v)) => code_is(self.quick_op(at, v), w),
                    _ => false,
                };
                last && ok && no_result()
            }
            InstKind::Alloca { size, align } => {
                self.quick_op(at, size) == I32_CODE && is_valid_object_alignment(align) && result(I32_CODE)
            }
            InstKind::Cast { op, value, to } => {
                let from = self.quick_op(at, value);
                let t = ty_code(to);
                let legal = || bit(CAST_TARGETS[op as usize][from as usize], t);
                from < OTHER_CODE && t < OTHER_CODE && legal() && result(t)
            }
            InstKind::Call { callee, args, ret, cc, .. } => {
                let args = self.f.args(args);
                // Direct calls (intrinsics have rules on constant operands too).
                let Some(decl) = self.m.functions.get(callee.0 as usize) else { return false };
                let sig = &decl.sig;
                if cc != 0 || ret != sig.ret || (!DECODED && inst.result.map(|(_, t)| t) != ret) {
                    return false;
                }
                args.len() == sig.params.len()
                    && args.iter().zip(&sig.params).all(|(&a, &p)| code_is(self.quick_op(at, a), p))
                    && !(decl.is_proto && is_intrinsic_name(decl) && !self.quick_intrinsic_args(decl, args))
            }
            InstKind::Select { cond, if_true, if_false } => {
                let (a, b) = (self.quick_op(at, if_true), self.quick_op(at, if_false));
                a == b
                    && a < OTHER_CODE
                    && self.quick_op(at, cond) == BOOL_CODE_FOR[a as usize & 15]
                    && result(a)
            }
            InstKind::CallIndirect { callee, args, ret, cc, .. } => {
                cc == 0
                    && self.quick_op(at, callee) == I32_CODE
                    && ret.is_none_or(is_valid_param_type)
                    && (DECODED || inst.result.map(|(_, t)| t) == ret)
                    && self.f.args(args).iter().all(|&a| bit(PARAM_CODES, self.quick_op(at, a)))
            }
            InstKind::Unreachable => last && no_result(),
            InstKind::Switch { ty, cond, default, cases } => {
                last && no_result() && self.quick_switch::<DECODED>(at, ty, cond, default, self.f.cases(cases))
            }
            // Named rather than `_`: with every kind an arm, the dispatch
            // needs no range test of the kind byte (two instructions per
            // instruction checked: callgrind).
            InstKind::Phi { .. } | InstKind::ExtractElement { .. } | InstKind::InsertElement { .. } => false,
        }
    }

    /// `check_switch` and the target checks finding nothing, for switches
    /// with a few cases (compared pairwise; more are sorted by the full
    /// check): an integer type other than i1, the condition of that type,
    /// and cases that fit it, are distinct and branch to existing blocks
    /// other than the entry. In a decoded body (see
    /// [`FunctionVerifier::verify_decoded`]) only the type, the condition
    /// and distinctness are left: the decoder sign-extends each case from
    /// the type's width (so it fits, and truncating changes nothing), and
    /// the targets are the clean graph's edges.
    #[inline(never)]
    fn quick_switch<const DECODED: bool>(
        &self,
        at: Use,
        ty: ValType,
        cond: ValueId,
        default: BlockId,
        cases: &[SwitchCase],
    ) -> bool {
        let ValType::Scalar(s) = ty else { return false };
        if !s.is_int() || s == Scalar::I1 || cases.len() > QUICK_SWITCH_CASES {
            return false;
        }
        if self.quick_op(at, cond) != ty_code(ty) || !(DECODED || self.quick_target(default)) {
            return false;
        }
        if DECODED {
            return cases.iter().enumerate().all(|(k, c)| cases[..k].iter().all(|d| d.value != c.value));
        }
        let bits = s.bits();
        cases.iter().enumerate().all(|(k, c)| {
            let x = truncate_signed(c.value, bits);
            int_fits(c.value, bits)
                && self.quick_target(c.target)
                && cases[..k].iter().all(|d| truncate_signed(d.value, bits) != x)
        })
    }

    /// `check_phi` finding nothing, for the common shape: one entry per
    /// predecessor (a few, each named once), values of the phi's type that
    /// are available at the end of their blocks. `edges` holds what the
    /// last phi of block `b` this accepted found about its entries' blocks
    /// (the phis of a block usually name the same blocks in the same
    /// order): then only the values are left to check.
    #[inline(never)]
    fn quick_phi(
        &self,
        b: u32,
        l: &Layout<'_>,
        ty: ValType,
        incoming: &[(ValueId, BlockId)],
        edges: &mut PhiEdges,
    ) -> bool {
        let tc = ty_code(ty);
        if tc >= OTHER_CODE {
            return false;
        }
        let known = incoming.len() == edges.reusable
            && incoming.iter().zip(edges.blocks().0).all(|(&(_, bb), &e)| bb.0 == e);
        if !known && !edges.fill(b, l.cfg, incoming) {
            return false;
        }
        // Definition, type and intrinsic use only (a phi may use its own
        // result); availability is per edge: the definition's block (the
        // entry block's for parameters and constants) must dominate a
        // reachable incoming block, compared by dominator intervals
        // (`Cfg::dominates`).
        incoming.iter().zip(edges.blocks().1).all(|(&(v, _), &bp)| {
            match self.locals.get(v.0.wrapping_sub(self.first_local) as usize) {
                Some(&Local { code, dom: (dp, ds), .. }) => code == tc && (bp == UNREACHABLE || bp.wrapping_sub(dp) < ds),
                None if v.0 < self.first_local => tc == I32_CODE && !self.is_intrinsic_value(v),
                None => false,
            }
        })
    }

    /// `check_intrinsic_call` finding nothing, for intrinsics other than
    /// cmpxchg (whose two orders are compared): each constant operand
    /// allowed.
    #[inline(never)]
    fn quick_intrinsic_args(&self, decl: &FunctionDecl, args: &[ValueId]) -> bool {
        let Some(intrinsic) = decl.name.as_deref().and_then(Intrinsic::lookup) else { return false };
        let arg = |k: usize| args.get(k).and_then(|&a| self.const_int(a));
        !matches!(intrinsic, Intrinsic::AtomicCmpxchg(_))
            && constant_rule(intrinsic).is_none_or(|(_, k, allowed)| arg(k).is_some_and(allowed))
            && intrinsic.memory_order_args().iter().all(|&(k, use_)| {
                arg(k).and_then(MemoryOrder::from_value).is_some_and(|o| o.allowed_for(use_))
            })
    }

    /// `op` without reporting: the type code of a defined operand whose
    /// definition reaches `at` and that is not an intrinsic's address, else
    /// [`BAD_OPERAND`] (a code every check refuses: a plain byte compares
    /// in one instruction where an `Option` took two).
    #[inline(always)]
    fn quick_op(&self, at: Use, v: ValueId) -> TyCode {
        match self.locals.get(v.0.wrapping_sub(self.first_local) as usize) {
            Some(l) => {
                if at.reaches(l) {
                    l.code
                } else {
                    BAD_OPERAND
                }
            }
            None if v.0 < self.first_local && !self.is_intrinsic_value(v) => I32_CODE,
            None => BAD_OPERAND,
        }
    }

    /// `check_target` without reporting.
    #[inline(always)]
    fn quick_target(&self, t: BlockId) -> bool {
        t.0 != 0 && (t.0 as usize) < self.f.blocks.len()
    }

    /// The full checks of a non-phi-led instruction of block `at.block`,
    /// where the quick ones did not decide. Out of line and
    /// cold: inlined, it left the quick loop short of registers (its
    /// locals reloaded from the stack per instruction).
    ///
    /// `at.i` is the loop's counter, the index plus 1, made the index here:
    /// when the loop made it, it kept the counter's last value on the stack
    /// for it, a store per instruction (callgrind).
    #[cold]
    #[inline(never)]
    fn check_in_block(
        &mut self,
        mut at: At<'_>,
        layout: &Layout<'_>,
        phi_scratch: &mut PhiScratch,
        case_values: &mut Vec<i64>,
    ) {
        at.i -= 1;
        // Reachable blocks have a preorder number (as `dom` needs): worked
        // out here, not kept by the loop.
        at.dom = at.pre != UNREACHABLE;
        let at = &at;
        // The block's end, read here rather than kept by the loop (which
        // has no register for it).
        let end = at.block.and_then(|b| self.f.blocks.get(b as usize)).map_or(0, |blk| blk.end as usize);
        if matches!(at.inst.kind, InstKind::Phi { .. }) {
            self.err(at, "phi is not at the start of its block (only phis may precede it)".into());
        }
        if at.i + 1 != end && at.inst.kind.is_terminator() {
            let b = at.block.unwrap_or_default();
            self.err(at, format!("terminator in the middle of block %b{b}"));
        }
        let yields = self.check_inst(at, Some(layout), phi_scratch, case_values);
        self.check_result(at, yields);
    }

    /// Type and ABI checks of one instruction (every operand goes through
    /// `op` once); returns what it yields.
    fn check_inst(
        &mut self,
        at: &At<'_>,
        layout: Option<&Layout<'_>>,
        phi_scratch: &mut PhiScratch,
        case_values: &mut Vec<i64>,
    ) -> Yields {
        let yields = self.check_kind(at, layout, phi_scratch, case_values);
        if self.bad_operand {
            self.bad_operand = false;
            self.report_operand_problems(at);
        }
        yields
    }

    fn check_kind(
        &mut self,
        at: &At<'_>,
        layout: Option<&Layout<'_>>,
        phi_scratch: &mut PhiScratch,
        case_values: &mut Vec<i64>,
    ) -> Yields {
        match &at.inst.kind {
            InstKind::Binop { op, lhs, rhs, flags } => self.check_binop(at, *op, *lhs, *rhs, *flags),
            InstKind::Cast { op, value, to } => {
                self.check_named_type(at, *to);
                self.check_cast(at, *op, *value, *to)
            }
            InstKind::Ret { value } => {
                let want = self.decl.sig.ret;
                match (want, value) {
                    (None, None) => {}
                    (None, Some(v)) => {
                        if let Some(t) = self.op(at, *v) {
                            self.err(at, format!("ret {t} in a function returning void"));
                        }
                    }
                    (Some(w), None) => self.err(at, format!("ret void in a function returning {w}")),
                    (Some(w), Some(v)) => {
                        if let Some(t) = self.op(at, *v).filter(|&t| t != w) {
                            self.err(at, format!("ret {t} in a function returning {w}"));
                        }
                    }
                }
                Yields::Nothing
            }
            InstKind::Br { target } => {
                self.check_target(at, *target);
                Yields::Nothing
            }
            InstKind::CondBr { cond, if_true, if_false } => {
                if let Some(t) = self.op(at, *cond).filter(|&t| t != ValType::I1) {
                    let msg = format!("branch condition {} has type {t}, not i1", self.name(*cond));
                    self.err(at, msg);
                }
                self.check_target(at, *if_true);
                self.check_target(at, *if_false);
                Yields::Nothing
            }
            InstKind::Switch { ty, cond, default, cases } => {
                let cases = self.f.cases(*cases);
                self.check_switch(at, *ty, *cond, cases, case_values);
                self.check_target(at, *default);
                for c in cases {
                    self.check_target(at, c.target);
                }
                Yields::Nothing
            }
            InstKind::Unreachable => Yields::Nothing,
            InstKind::Phi { ty, incoming } => {
                self.check_named_type(at, *ty);
                self.check_phi(at, *ty, self.f.incoming(*incoming), layout, phi_scratch);
                Yields::Value(*ty)
            }
            InstKind::Alloca { size, align } => {
                if let Some(t) = self.op(at, *size).filter(|&t| t != ValType::I32) {
                    self.disallowed(at, "alloca array size is not i32", format!("alloca i8, {t} {}", self.name(*size)));
                }
                if !is_valid_object_alignment(*align) {
                    self.disallowed(at, "bad alignment", format!("alloca align {align} is not a power of 2"));
                }
                Yields::Value(ValType::I32)
            }
            InstKind::Load { ptr, ty, align } => {
                self.check_pointer(at, *ptr, "load");
                if !is_valid_memory_type(*ty) {
                    self.disallowed(at, "bad result type", format!("load {ty} (i1 memory accesses are not supported)"));
                } else if !is_allowed_access_alignment(*ty, *align) {
                    self.disallowed(at, "bad alignment", format!("load {ty}, align {align}"));
                }
                Yields::Value(*ty)
            }
            InstKind::Store { ptr, value, align } => {
                self.check_pointer(at, *ptr, "store");
                if let Some(t) = self.op(at, *value) {
                    if !is_valid_memory_type(t) {
                        self.disallowed(at, "bad operand", format!("store {t} (i1 memory accesses are not supported)"));
                    } else if !is_allowed_access_alignment(t, *align) {
                        self.disallowed(at, "bad alignment", format!("store {t}, align {align}"));
                    }
                }
                Yields::Nothing
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let (Some(a), Some(b)) = (self.op(at, *lhs), self.op(at, *rhs)) else { return Yields::Unknown };
                if a != b {
                    self.err(at, format!("compare operands have different types: {a} and {b}"));
                    return Yields::Unknown;
                }
                let is_fcmp = pred_is_float(*pred);
                if is_fcmp != a.is_float_or_float_vector() {
                    let kind = if is_fcmp { "fcmp" } else { "icmp" };
                    self.err(at, format!("{kind} {} on {a}", pred.name()));
                } else if !is_fcmp && a.elem() == Scalar::I1 {
                    self.disallowed(at, "arithmetic on i1", format!("icmp {} {a}", pred.name()));
                }
                Yields::Value(bool_type_for(a))
            }
            InstKind::Select { cond, if_true, if_false } => {
                let c = self.op(at, *cond);
                let (Some(a), Some(b)) = (self.op(at, *if_true), self.op(at, *if_false)) else {
                    return Yields::Unknown;
                };
                if a != b {
                    self.err(at, format!("select operands have different types: {a} and {b}"));
                    return Yields::Unknown;
                }
                if let Some(c) = c {
                    if c != bool_type_for(a) {
                        self.err(
                            at,
                            format!("select condition has type {c}; selecting {a} needs {}", bool_type_for(a)),
                        );
                    }
                }
                Yields::Value(a)
            }
            InstKind::ExtractElement { vector, index } => {
                let (vt, it) = (self.op(at, *vector), self.op(at, *index));
                let Some(vt) = vt else { return Yields::Unknown };
                if !vt.is_vector() {
                    self.err(at, format!("extractelement from {vt}, which is not a vector"));
                    return Yields::Unknown;
                }
                self.check_lane_index(at, vt, *index, it);
                Yields::Value(ValType::Scalar(vt.elem()))
            }
            InstKind::InsertElement { vector, element, index } => {
                let (vt, et, it) = (self.op(at, *vector), self.op(at, *element), self.op(at, *index));
                let Some(vt) = vt else { return Yields::Unknown };
                if !vt.is_vector() {
                    self.err(at, format!("insertelement into {vt}, which is not a vector"));
                    return Yields::Unknown;
                }
                if let Some(et) = et.filter(|&t| t != ValType::Scalar(vt.elem())) {
                    self.err(at, format!("insertelement of {et} into {vt}"));
                }
                self.check_lane_index(at, vt, *index, it);
                Yields::Value(vt)
            }
            InstKind::Call { callee, args, ret, cc, .. } => {
                self.check_cc(at, *cc);
                self.check_direct_call(at, *callee, self.f.args(*args), *ret);
                ret.map_or(Yields::Nothing, Yields::Value)
            }
            InstKind::CallIndirect { callee, args, ret, cc, .. } => {
                self.check_cc(at, *cc);
                self.check_indirect_call(at, *callee, self.f.args(*args), *ret);
                ret.map_or(Yields::Nothing, Yields::Value)
            }
        }
    }

    fn check_binop(&mut self, at: &At<'_>, op: BinOp, lhs: ValueId, rhs: ValueId, flags: u64) -> Yields {
        let (Some(a), Some(b)) = (self.op(at, lhs), self.op(at, rhs)) else { return Yields::Unknown };
        if a != b {
            let msg = format!("binary operator operands have different types: {a} and {b}");
            self.err(at, msg);
            return Yields::Unknown;
        }
        let is_float = a.is_float_or_float_vector();
        let float_ok = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::SDiv | BinOp::SRem);
        let i1_ok = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
        if is_float && !float_ok {
            self.disallowed(at, "Expects integer arithmetic type", format!("{} {a}", op.name(is_float)));
        } else if !is_float && a.elem() == Scalar::I1 && !i1_ok {
            let reason = if a.is_vector() { "arithmetic on vector of i1" } else { "arithmetic on i1" };
            self.disallowed(at, reason, format!("{} {a}", op.name(is_float)));
        }
        if flags != 0 {
            self.check_binop_flags(at, op, is_float, op.name(is_float), flags);
        }
        Yields::Value(a)
    }

    #[cold]
    fn check_binop_flags(&mut self, at: &At<'_>, op: BinOp, is_float: bool, name: &str, flags: u64) {
        // Bitcode flag bits: nuw = 1, nsw = 2 on add/sub/mul/shl; exact = 1
        // on udiv/sdiv/lshr/ashr; fast-math bits on float operators.
        let mut rest = flags;
        if is_float {
            self.disallowed(at, "has fast-math flags", format!("{name} flags {flags}"));
            return;
        }
        if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl) {
            if rest & 1 != 0 {
                self.disallowed(at, "has \"nuw\" attribute", name.to_string());
            }
            if rest & 2 != 0 {
                self.disallowed(at, "has \"nsw\" attribute", name.to_string());
            }
            rest &= !3;
        } else if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::LShr | BinOp::AShr) {
            if rest & 1 != 0 {
                self.disallowed(at, "has \"exact\" attribute", name.to_string());
            }
            rest &= !1;
        }
        if rest != 0 {
            self.disallowed(at, "has unknown flags", format!("{name} flags {flags}"));
        }
    }

    fn check_cast(&mut self, at: &At<'_>, op: CastOp, value: ValueId, to: ValType) -> Yields {
        let Some(from) = self.op(at, value) else { return Yields::Value(to) };
        if !cast_is_legal(op, from, to) {
            let why = if op == CastOp::Bitcast {
                " (bit sizes differ)"
            } else if lanes(from) != lanes(to) {
                " (lane counts differ)"
            } else {
                ""
            };
            self.err(at, format!("invalid cast: {} {from} to {to}{why}", op.name()));
        }
        Yields::Value(to)
    }

    fn check_switch(
        &mut self,
        at: &At<'_>,
        ty: ValType,
        cond: ValueId,
        cases: &[SwitchCase],
        case_values: &mut Vec<i64>,
    ) {
        let cond_ty = self.op(at, cond);
        let ValType::Scalar(s) = ty else {
            self.disallowed(at, "bad switch condition", format!("switch on {ty}"));
            return;
        };
        if !s.is_int() {
            self.disallowed(at, "bad switch condition", format!("switch on {ty}"));
            return;
        }
        if s == Scalar::I1 {
            self.disallowed(at, "switch on i1", format!("switch {ty} {}", self.name(cond)));
        }
        if let Some(t) = cond_ty.filter(|&t| t != ty) {
            let msg = format!("switch condition {} has type {t}, but the switch is on {ty}", self.name(cond));
            self.err(at, msg);
        }
        case_values.clear();
        for c in cases {
            if !int_fits(c.value, s.bits()) {
                self.disallowed(at, "bad switch case", format!("case {} does not fit in {ty}", c.value));
            }
            case_values.push(truncate_signed(c.value, s.bits()));
        }
        case_values.sort_unstable();
        if let Some(w) = case_values.windows(2).find(|w| w[0] == w[1]) {
            let dup = w[0];
            self.err(at, format!("duplicate switch case value {dup}"));
        }
    }

    fn check_phi(
        &mut self,
        at: &At<'_>,
        ty: ValType,
        incoming: &[(ValueId, BlockId)],
        layout: Option<&Layout<'_>>,
        scratch: &mut PhiScratch,
    ) {
        if incoming.is_empty() {
            self.err(at, "phi has no incoming values".into());
        }
        let n = self.f.blocks.len();
        for &(v, bb) in incoming {
            if bb.0 as usize >= n {
                let msg = format!("phi entry names %b{}, which does not exist (the function has {n} blocks)", bb.0);
                self.err(at, msg);
            }
            if let Some(t) = self.op(at, v).filter(|&t| t != ty) {
                let msg = format!("phi entry {} from %b{} has type {t}, not the phi's {ty}", self.name(v), bb.0);
                self.err(at, msg);
            }
        }
        let (Some(l), Some(b)) = (layout, at.block) else { return };

        // The predecessor lists, made here if the graph left them out
        // (see `Cfg::preds_pending`), once a body.
        let pending = l.cfg.preds_pending();
        if pending && !scratch.listed {
            l.cfg.list_preds_into(&mut scratch.preds, &mut scratch.cursor);
            scratch.listed = true;
        }
        let PhiScratch { entries, preds: listed, .. } = scratch;
        // Entries against predecessors: identical (block, value) duplicates
        // merge, as LLVM keeps one entry per edge of a multi-edge.
        entries.clear();
        entries.extend(incoming.iter().filter(|(_, bb)| (bb.0 as usize) < n).map(|&(v, bb)| (bb.0, v.0)));
        entries.sort_unstable();
        entries.dedup();
        let mut prev: Option<u32> = None;
        for &(bb, _) in entries.iter() {
            if prev == Some(bb) {
                self.err(at, format!("phi has different values for the same predecessor %b{bb}"));
            }
            prev = Some(bb);
        }
        entries.dedup_by_key(|e| e.0);
        // Entry blocks that are not predecessors, by binary search: the work
        // depends on the entries, not on how many predecessors the block has
        // (many one-entry phis in a block with many predecessors must not
        // cost their product).
        let preds = if pending { &listed[l.cfg.pred_range(b)] } else { l.cfg.preds(b) };
        let mut matched = 0;
        for &(eb, _) in entries.iter() {
            if preds.binary_search(&eb).is_ok() {
                matched += 1;
            } else {
                self.err(at, format!("phi has an entry for %b{eb}, which is not a predecessor of %b{b}"));
            }
        }
        if matched < preds.len() {
            // The first missing predecessor is where the (sorted) matched
            // entries and the predecessors first differ.
            let mut matched_entries = entries.iter().map(|e| e.0).filter(|eb| preds.binary_search(eb).is_ok());
            let first = preds.iter().copied().find(|&pb| matched_entries.next() != Some(pb)).unwrap_or(preds[0]);
            let missing = preds.len() - matched;
            let msg = if missing == 1 {
                format!("phi has no entry for predecessor %b{first}")
            } else {
                format!("phi has no entry for predecessor %b{first} (and {} more)", missing - 1)
            };
            self.err(at, msg);
        }

        // Each value must be available at the end of its incoming block.
        for &(v, bb) in incoming {
            if bb.0 as usize >= n || !l.cfg.is_reachable(bb.0) {
                continue;
            }
            if let Some(d) = self.def(v) {
                // `Cfg::dominates(def block, bb)`, by the definition's interval.
                let (dp, ds) = self.locals[v.0.wrapping_sub(self.first_local) as usize].dom;
                if l.cfg.dom_interval(bb.0).0.wrapping_sub(dp) >= ds {
                    let msg = format!(
                        "phi entry {} (defined at {}) does not dominate the end of %b{}",
                        self.name(v),
                        self.f.insts[d].pos,
                        bb.0
                    );
                    self.err(at, msg);
                }
            }
        }
    }

    /// Loads and stores go through an i32 address. In PNaCl records every
    /// i32 is a normalized pointer (the reader inserts the inttoptr), so the
    /// type is what remains to check.
    fn check_pointer(&mut self, at: &At<'_>, ptr: ValueId, what: &str) {
        if let Some(t) = self.op(at, ptr).filter(|&t| t != ValType::I32) {
            self.disallowed(at, "bad pointer", format!("{what} through {} of type {t}", self.name(ptr)));
        }
    }

    fn check_lane_index(&mut self, at: &At<'_>, vt: ValType, index: ValueId, index_ty: Option<ValType>) {
        if let Some(t) = index_ty.filter(|&t| t != ValType::I32) {
            self.err(at, format!("vector index {} has type {t}, not i32", self.name(index)));
            return;
        }
        match self.const_int(index) {
            None => self.disallowed(
                at,
                "non-constant vector insert/extract index",
                format!("index {} of {vt}", self.name(index)),
            ),
            Some(x) if x < 0 || x >= i64::from(lanes(vt)) => {
                self.disallowed(at, "out of range vector insert/extract index", format!("index {x} of {vt}"))
            }
            Some(_) => {}
        }
    }

    fn check_cc(&mut self, at: &At<'_>, cc: u32) {
        if cc != 0 {
            self.disallowed(at, "bad calling convention", format!("call with calling convention {cc}"));
        }
    }

    fn check_direct_call(&mut self, at: &At<'_>, callee: ValueId, args: &[ValueId], ret: Option<ValType>) {
        self.callee_op(at, callee);
        let sig = self.m.func_of(callee).map(|fid| &self.m.function(fid).sig);
        for (j, &a) in args.iter().enumerate() {
            let t = self.op(at, a);
            if let (Some(t), Some(&p)) = (t, sig.and_then(|s| s.params.get(j))) {
                if t != p {
                    let msg = format!("argument {j} of call of {} has type {t}, not {p}", self.callee_label(callee));
                    self.err(at, msg);
                }
            }
        }
        let Some(fid) = self.m.func_of(callee) else {
            if callee.0 < self.f.end_value() {
                let msg = format!("direct call of {}, which is not a function", self.name(callee));
                self.disallowed(at, "bad function callee operand", msg);
            }
            return;
        };
        let decl = self.m.function(fid);
        let sig = &decl.sig;
        if args.len() != sig.params.len() {
            let msg = format!(
                "call of {} passes {} arguments; its type {sig} takes {}",
                self.callee_label(callee),
                args.len(),
                sig.params.len()
            );
            self.err(at, msg);
        }
        if ret != sig.ret {
            let msg = format!(
                "call of {} yields {}, but it returns {}",
                self.callee_label(callee),
                OptType(ret),
                OptType(sig.ret)
            );
            self.err(at, msg);
        }
        if decl.is_proto && is_intrinsic_name(decl) {
            if let Some(intrinsic) = decl.name.as_deref().and_then(Intrinsic::lookup) {
                self.check_intrinsic_call(at, intrinsic, decl, args);
            }
        }
    }

    /// `@f1 (name)` for messages about calls.
    fn callee_label(&self, callee: ValueId) -> String {
        let decl = self.m.function(FuncId(callee.0));
        format!("@f{} ({})", callee.0, decl.name_str())
    }

    fn check_intrinsic_call(&mut self, at: &At<'_>, intrinsic: Intrinsic, decl: &FunctionDecl, args: &[ValueId]) {
        let arg_const = |cx: &Self, k: usize| args.get(k).and_then(|&a| cx.const_int(a));
        if let Some((reason, k, allowed)) = constant_rule(intrinsic) {
            if !arg_const(self, k).is_some_and(allowed) {
                let value = self.arg_name(args, k);
                let msg = match intrinsic {
                    Intrinsic::AtomicRmw(_) => format!("operation {value} is not a constant 1..=6"),
                    Intrinsic::AtomicIsLockFree => format!("byte size {value} is not a constant 1, 2, 4 or 8"),
                    _ => format!("{} alignment argument {value} is not the constant 1", decl.name_str()),
                };
                self.disallowed(at, reason, msg);
            }
        }
        let mut success: Option<MemoryOrder> = None;
        for &(k, use_) in intrinsic.memory_order_args() {
            let value = arg_const(self, k);
            match value.and_then(MemoryOrder::from_value) {
                Some(o) if o.allowed_for(use_) => {
                    if use_ == OrderUse::CmpxchgSuccess {
                        success = Some(o);
                    }
                    if let Some(s) = success.filter(|&s| use_ == OrderUse::CmpxchgFailure && o > s) {
                        let msg = format!(
                            "cmpxchg failure order {} ({}) is stronger than its success order {} ({})",
                            o as u8,
                            o.name(),
                            s as u8,
                            s.name()
                        );
                        self.disallowed(at, "invalid memory order", msg);
                    }
                }
                order => {
                    let msg = match value {
                        None => format!("operand {k} ({}) is not a constant", self.arg_name(args, k)),
                        Some(x) => format!(
                            "{x} ({}) is not allowed for {}",
                            order.map_or("not an order", MemoryOrder::name),
                            use_.describe()
                        ),
                    };
                    self.disallowed(at, "invalid memory order", msg);
                }
            }
        }
    }

    fn arg_name(&self, args: &[ValueId], k: usize) -> String {
        match args.get(k) {
            Some(&a) => match self.const_int(a) {
                Some(x) => x.to_string(),
                None => self.name(a),
            },
            None => "missing".into(),
        }
    }

    fn check_indirect_call(&mut self, at: &At<'_>, callee: ValueId, args: &[ValueId], ret: Option<ValType>) {
        if let Some(t) = self.op(at, callee).filter(|&t| t != ValType::I32) {
            let msg = format!("callee {} has type {t}, not i32", self.name(callee));
            self.disallowed(at, "bad function callee operand", msg);
        }
        // The record constraints say an indirect callee is not a function
        // address, but real pexes call functions through casts of their
        // addresses this way (a call with another signature), so it is
        // allowed; only intrinsics may not be called indirectly (`op`).
        let mut valid = ret.map_or(true, is_valid_param_type);
        let mut known = true;
        for &a in args {
            match self.op(at, a) {
                Some(t) => valid &= is_valid_param_type(t),
                None => known = false,
            }
        }
        if known && !valid {
            let params = args.iter().filter_map(|&a| self.ty(a)).collect();
            let sig = FuncType { ret, params, varargs: false };
            self.disallowed(at, "bad function callee operand", format!("indirect call of type {sig}"));
        }
    }
}

/// The first problem of each kind among an instruction's operands.
#[derive(Default, PartialEq)]
struct OperandProblems {
    undefined: Option<ValueId>,
    intrinsic: Option<ValueId>,
    self_use: Option<ValueId>,
    not_dominating: Option<(ValueId, usize)>,
}

/// The value operands of an instruction, in record order.
enum Operands<'a> {
    Few([ValueId; 3], usize),
    Call { callee: ValueId, args: &'a [ValueId], direct: bool },
    Phi(&'a [(ValueId, BlockId)]),
}

impl<'a> Operands<'a> {
    #[inline]
    fn of(f: &'a Function, kind: &'a InstKind) -> Self {
        use InstKind::*;
        const Z: ValueId = ValueId(0);
        match kind {
            Binop { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => Operands::Few([*lhs, *rhs, Z], 2),
            Cast { value, .. } => Operands::Few([*value, Z, Z], 1),
            Ret { value: Some(v) } => Operands::Few([*v, Z, Z], 1),
            Ret { value: None } | Br { .. } | Unreachable => Operands::Few([Z; 3], 0),
            CondBr { cond, .. } | Switch { cond, .. } => Operands::Few([*cond, Z, Z], 1),
            Phi { incoming, .. } => Operands::Phi(f.incoming(*incoming)),
            Alloca { size, .. } => Operands::Few([*size, Z, Z], 1),
            Load { ptr, .. } => Operands::Few([*ptr, Z, Z], 1),
            Store { ptr, value, .. } => Operands::Few([*ptr, *value, Z], 2),
            Select { cond, if_true, if_false } => Operands::Few([*cond, *if_true, *if_false], 3),
            ExtractElement { vector, index } => Operands::Few([*vector, *index, Z], 2),
            InsertElement { vector, element, index } => Operands::Few([*vector, *element, *index], 3),
            Call { callee, args, .. } => Operands::Call { callee: *callee, args: f.args(*args), direct: true },
            CallIndirect { callee, args, .. } => Operands::Call { callee: *callee, args: f.args(*args), direct: false },
        }
    }
}

/// The most cases `Cx::quick_switch` compares pairwise (most switches have
/// a handful).
const QUICK_SWITCH_CASES: usize = 16;

/// An intrinsic's constant operand: the abicheck reason, the operand index
/// and which values are allowed.
type ConstantRule = (&'static str, usize, fn(i64) -> bool);

/// Each intrinsic family's constant operand, if it has one.
fn constant_rule(intrinsic: Intrinsic) -> Option<ConstantRule> {
    match intrinsic {
        Intrinsic::Memcpy | Intrinsic::Memmove | Intrinsic::Memset => {
            Some(("bad alignment", MEM_INTRINSIC_ALIGN_ARG, |x| x == 1))
        }
        Intrinsic::AtomicRmw(_) => Some(("invalid atomicRMW operation", RMW_OP_ARG, |x| RmwOp::from_value(x).is_some())),
        Intrinsic::AtomicIsLockFree => {
            Some(("invalid atomic lock-free byte size", LOCK_FREE_SIZE_ARG, |x| matches!(x, 1 | 2 | 4 | 8)))
        }
        _ => None,
    }
}

/// A value type in one byte, for the quick checks (`Cx::quick_ok`): the
/// scalars in `Scalar` order, then the allowed vector types
/// (`is_valid_value_type`), then [`OTHER_CODE`] for every type PNaCl does
/// not allow. The codes below it stand for one type each, so comparing
/// them compares types and the rules become bit masks; `OTHER_CODE` is in
/// no mask, so such types always take the full checks.
type TyCode = u8;

const I1_CODE: TyCode = Scalar::I1 as TyCode;
const I32_CODE: TyCode = Scalar::I32 as TyCode;
const OTHER_CODE: TyCode = 14;
/// An instruction without a result (no type has this code).
const NO_RESULT: TyCode = 15;
/// What `Cx::quick_op` gives for an operand the quick checks do not take:
/// no type's code (it is at least [`OTHER_CODE`], which `code_is` and the
/// casts refuse), and as an index (`& 15`) bit 15, set in no mask, and an
/// access alignment table entry of 0.
const BAD_OPERAND: TyCode = 0xff;

/// The type of each code below [`OTHER_CODE`] (the rest are placeholders).
const CODE_TYPES: [ValType; 16] = {
    const fn v(elem: Scalar, lanes: u32) -> ValType {
        ValType::Vector { elem, lanes }
    }
    use ValType as T;
    [
        T::I1,
        T::I8,
        T::I16,
        T::I32,
        T::I64,
        T::F32,
        T::F64,
        v(Scalar::I1, 4),
        v(Scalar::I1, 8),
        v(Scalar::I1, 16),
        v(Scalar::I8, 16),
        v(Scalar::I16, 8),
        v(Scalar::I32, 4),
        v(Scalar::F32, 4),
        T::I32,
        T::I32,
    ]
};

#[inline(always)]
fn ty_code(t: ValType) -> TyCode {
    match t {
        ValType::Scalar(s) => s as TyCode,
        ValType::Vector { elem, lanes } => vector_code(elem, lanes),
    }
}

fn vector_code(elem: Scalar, lanes: u32) -> TyCode {
    match (elem, lanes) {
        (Scalar::I1, 4) => 7,
        (Scalar::I1, 8) => 8,
        (Scalar::I1, 16) => 9,
        (Scalar::I8, 16) => 10,
        (Scalar::I16, 8) => 11,
        (Scalar::I32, 4) => 12,
        (Scalar::F32, 4) => 13,
        _ => OTHER_CODE,
    }
}

/// Whether code `c` stands for type `t`: `t`'s own code, which for a
/// scalar is its one byte (where `CODE_TYPES[c] == t` compared the types
/// field by field, about ten instructions more for each call argument).
#[inline(always)]
fn code_is(c: TyCode, t: ValType) -> bool {
    let tc = ty_code(t);
    tc == c && tc < OTHER_CODE
}

#[inline(always)]
fn bit(mask: u16, c: TyCode) -> bool {
    (mask >> (c & 15)) & 1 != 0
}

/// `i1` and its vectors.
const BOOL_CODES: u16 = 1 << 0 | 1 << 7 | 1 << 8 | 1 << 9;
/// The other integer types and vectors.
const INT_CODES: u16 = 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 10 | 1 << 11 | 1 << 12;
const FLOAT_CODES: u16 = 1 << 5 | 1 << 6 | 1 << 13;
/// `is_valid_param_type`.
const PARAM_CODES: u16 = 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 0x7f << 7;
/// The operand types each `BinOp` (by discriminant) allows: floats only
/// for add, sub, mul, sdiv and srem; `i1` only for the bitwise ops.
const BINOP_TYPES: [u16; 13] = {
    const IF: u16 = INT_CODES | FLOAT_CODES;
    const I: u16 = INT_CODES;
    const IB: u16 = INT_CODES | BOOL_CODES;
    // Add Sub Mul UDiv SDiv URem SRem Shl LShr AShr And Or Xor
    [IF, IF, IF, I, IF, I, IF, I, I, I, IB, IB, IB]
};
/// `bool_type_for` by code (a value no type has for `OTHER_CODE` and
/// `NO_RESULT`).
const BOOL_CODE_FOR: [TyCode; 16] = [0, 0, 0, 0, 0, 0, 0, 7, 8, 9, 9, 8, 7, 7, 0xff, 0xff];
/// Bit `align` (below 16) set if a load or store of the code's type may
/// state that alignment (`is_valid_memory_type` and
/// `is_allowed_access_alignment`).
const ACCESS_ALIGNS: [u16; 16] = [0, 2, 2, 2, 2, 2 | 16, 2 | 256, 0, 0, 0, 2, 4, 16, 16, 0, 0];

#[inline(always)]
fn access_ok(c: TyCode, align: u32) -> bool {
    align < 16 && (ACCESS_ALIGNS[c as usize & 15] >> align) & 1 != 0
}

/// Whether `p` is an fcmp predicate (`CmpPred::is_float` searches a table).
fn pred_is_float(p: CmpPred) -> bool {
    use CmpPred::*;
    !matches!(p, IEq | INe | IUgt | IUge | IUlt | IUle | ISgt | ISge | ISlt | ISle)
}

/// For each cast (by `CastOp` discriminant) and operand type code, the
/// codes it may cast to: `cast_is_legal` over the codes below
/// [`OTHER_CODE`], worked out when compiling (a test holds the two to the
/// same answers).
const CAST_TARGETS: [[u16; 16]; 10] = {
    /// Element bits, whether a float, lanes (0 for a scalar).
    const fn shape(c: usize) -> (u32, bool, u32) {
        let (s, lanes) = match CODE_TYPES[c] {
            ValType::Scalar(s) => (s, 0),
            ValType::Vector { elem, lanes } => (elem, lanes),
        };
        let bits = match s {
            Scalar::I1 => 1,
            Scalar::I8 => 8,
            Scalar::I16 => 16,
            Scalar::I32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::F64 => 64,
        };
        (bits, matches!(s, Scalar::F32 | Scalar::F64), lanes)
    }
    let mut table = [[0u16; 16]; 10];
    let mut op = 0;
    while op < 10 {
        let mut from = 0;
        while from < OTHER_CODE as usize {
            let (fb, ff, fl) = shape(from);
            let mut to = 0;
            while to < OTHER_CODE as usize {
                let (tb, tf, tl) = shape(to);
                let ok = if op == CastOp::Bitcast as usize {
                    fb * if fl == 0 { 1 } else { fl } == tb * if tl == 0 { 1 } else { tl }
                } else {
                    fl == tl
                        && if op == CastOp::Trunc as usize {
                            !ff && !tf && fb > tb
                        } else if op == CastOp::ZExt as usize || op == CastOp::SExt as usize {
                            !ff && !tf && fb < tb
                        } else if op == CastOp::FpTrunc as usize {
                            ff && fb == 64 && tf && tb == 32
                        } else if op == CastOp::FpExt as usize {
                            ff && fb == 32 && tf && tb == 64
                        } else if op == CastOp::FpToUi as usize || op == CastOp::FpToSi as usize {
                            ff && !tf
                        } else {
                            !ff && tf
                        }
                };
                if ok {
                    table[op][from] |= 1 << to;
                }
                to += 1;
            }
            from += 1;
        }
        op += 1;
    }
    table
};

/// Whether a cast `op` from `from` to `to` is one PNaCl allows.
#[inline]
fn cast_is_legal(op: CastOp, from: ValType, to: ValType) -> bool {
    let (fe, te) = (from.elem(), to.elem());
    if op == CastOp::Bitcast {
        bit_size(from) == bit_size(to)
    } else {
        lanes(from) == lanes(to)
            && match op {
                CastOp::Trunc => fe.is_int() && te.is_int() && fe.bits() > te.bits(),
                CastOp::ZExt | CastOp::SExt => fe.is_int() && te.is_int() && fe.bits() < te.bits(),
                CastOp::FpTrunc => fe == Scalar::F64 && te == Scalar::F32,
                CastOp::FpExt => fe == Scalar::F32 && te == Scalar::F64,
                CastOp::FpToUi | CastOp::FpToSi => fe.is_float() && te.is_int(),
                CastOp::UiToFp | CastOp::SiToFp | CastOp::Bitcast => fe.is_int() && te.is_float(),
            }
    }
}

/// The values `int_fits` takes for each scalar type, by discriminant (an
/// empty range for the float types).
const INT_RANGE: [(i64, i64); 7] = [
    (-1, 1),
    (-(1 << 7), (1 << 8) - 1),
    (-(1 << 15), (1 << 16) - 1),
    (-(1 << 31), (1 << 32) - 1),
    (i64::MIN, i64::MAX),
    (1, 0),
    (1, 0),
];

/// Whether `x` is a value of a `bits`-wide integer, read as signed or as
/// unsigned (records may carry either form).
fn int_fits(x: i64, bits: u32) -> bool {
    if bits >= 64 {
        return true;
    }
    let min = -(1i64 << (bits - 1));
    let max_unsigned = (1i64 << bits) - 1;
    (min..=max_unsigned).contains(&x)
}

/// `x` truncated to `bits` and sign-extended back.
fn truncate_signed(x: i64, bits: u32) -> i64 {
    if bits >= 64 {
        x
    } else {
        let shift = 64 - bits;
        (x << shift) >> shift
    }
}

struct TypeList<'a>(&'a [ValType]);

impl std::fmt::Display for TypeList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

struct OptType(Option<ValType>);

impl std::fmt::Display for OptType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(t) => write!(f, "{t}"),
            None => f.write_str("void"),
        }
    }
}

#[cfg(test)]
mod code_tests {
    use super::*;

    /// The type codes' tables say what the `ValType` rules say.
    #[test]
    fn type_code_tables_match_the_type_rules() {
        let scalars = [Scalar::I1, Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64, Scalar::F32, Scalar::F64];
        let mut types: Vec<ValType> = scalars.iter().map(|&s| ValType::Scalar(s)).collect();
        for &elem in &scalars {
            for lanes in [0, 1, 2, 4, 8, 16, 32] {
                types.push(ValType::Vector { elem, lanes });
            }
        }
        let ops: Vec<BinOp> = (0..64).filter_map(BinOp::from_code).collect();
        assert_eq!(ops.len(), BINOP_TYPES.len());
        for t in types {
            let c = ty_code(t);
            assert_eq!(c < OTHER_CODE, is_valid_value_type(t), "{t}");
            // `code_is` against the table's type, for every code.
            for d in 0..=TyCode::MAX {
                assert_eq!(code_is(d, t), d < OTHER_CODE && CODE_TYPES[d as usize] == t, "{t} code {d}");
            }
            for align in 0..70 {
                let ok = is_valid_memory_type(t) && is_allowed_access_alignment(t, align);
                assert_eq!(access_ok(c, align), ok, "{t} align {align}");
            }
            if c >= OTHER_CODE {
                assert_eq!(c, OTHER_CODE);
                let all = BOOL_CODES | INT_CODES | FLOAT_CODES | PARAM_CODES;
                assert!(!bit(all, c) && ops.iter().all(|&op| !bit(BINOP_TYPES[op as usize], c)));
                assert!(!code_is(c, t));
                continue;
            }
            assert_eq!(CODE_TYPES[c as usize], t);
            assert!(code_is(c, t));
            let e = t.elem();
            assert_eq!(bit(BOOL_CODES, c), e == Scalar::I1, "{t}");
            assert_eq!(bit(INT_CODES, c), e.is_int() && e != Scalar::I1, "{t}");
            assert_eq!(bit(FLOAT_CODES, c), e.is_float(), "{t}");
            assert_eq!(bit(PARAM_CODES, c), is_valid_param_type(t), "{t}");
            assert_eq!(BOOL_CODE_FOR[c as usize], ty_code(bool_type_for(t)), "{t}");
            for &op in &ops {
                let allowed = if e.is_float() {
                    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::SDiv | BinOp::SRem)
                } else {
                    e != Scalar::I1 || matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
                };
                assert_eq!(bit(BINOP_TYPES[op as usize], c), allowed, "{t} {op:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check_constants`' table agrees with `int_fits` at and past every
    /// bound, and takes no float type.
    #[test]
    fn int_range_is_int_fits() {
        use Scalar::*;
        for s in [I1, I8, I16, I32, I64, F32, F64] {
            let (lo, hi) = INT_RANGE[s as usize];
            if !s.is_int() {
                assert!(lo > hi, "{s:?}");
                continue;
            }
            for x in [lo, hi, lo.saturating_sub(1), hi.saturating_add(1), 0, -1, 1, i64::MIN, i64::MAX] {
                assert_eq!((lo..=hi).contains(&x), int_fits(x, s.bits()), "{s:?} {x}");
            }
        }
    }

    /// The quick checks' cast table gives `cast_is_legal`'s answers for
    /// every cast between types with a code.
    #[test]
    fn cast_targets_are_cast_is_legal() {
        let mut allowed = 0;
        for op in (0..16).filter_map(CastOp::from_code) {
            for from in 0..OTHER_CODE {
                for to in 0..OTHER_CODE {
                    let legal = cast_is_legal(op, CODE_TYPES[from as usize], CODE_TYPES[to as usize]);
                    assert_eq!(bit(CAST_TARGETS[op as usize][from as usize], to), legal, "{op:?} {from} {to}");
                    allowed += usize::from(legal);
                }
            }
        }
        assert!(allowed > 40, "{allowed}");
    }
}
