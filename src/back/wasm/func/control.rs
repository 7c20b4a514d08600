//! Emits a structured body (the tree of [`super::structure`]) as wasm
//! control flow.
//!
//! `Block`/`Loop` become `block`/`loop`; a label stack (which also holds the
//! anonymous `if`/`block` wrappers added here) turns labels into `br`
//! depths. A basic block's exits first copy the phis of the edge, then set
//! the dispatch variable, then `br` (or continue inline). `condbr` becomes a
//! `br_if` when one side is a bare branch, `if/else` otherwise; `switch`
//! and dispatchers become one `br_table` (or a compare chain for sparse
//! switches) with one wrapper block per exit that has work to do on the way.
//!
//! "Fallthrough": when code is the last thing before the `end` of a block
//! `L` (or of code that ends there), a `br L` is left out. The walk keeps an
//! explicit work stack, so deep nesting cannot overflow the Rust stack.

use super::{put_uleb32, Fx, InstInfo, Lowering, Term, NONE};
use crate::back::wasm::structure::{Body, Exit, ExitHow, Exits, LabelId, Node, Structured};
use crate::ir::{InstKind, Scalar, SwitchCase, ValType as IrType, ValueId};
use wasm_encoder::{BlockType, ValType as W};

/// Largest `br_table` emitted (V8 accepts at most 65520 entries).
const MAX_BR_TABLE: u64 = 65_000;
/// Fewest cases worth a `br_table` (fewer are compared one by one).
const MIN_TABLE_CASES: usize = 4;

/// Label-stack entry of a wrapper this module adds (not a tree label).
const ANON: u32 = u32::MAX;

/// Where falling off the end of the current code goes: equivalent to
/// `br` to this label. A label id rather than an `Option`, so that a work
/// item is 16 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Fall(u32);

impl Fall {
    /// Nowhere: leaving needs a `br`.
    const NOWHERE: Fall = Fall(u32::MAX);

    fn to(l: LabelId) -> Fall {
        Fall(l.0)
    }
}

/// A step of `emit_tree`. Handles into the tree rather than slices keep an
/// item at 16 bytes.
pub(super) enum Work {
    Nodes(Body, Fall),
    /// `end` of the innermost construct.
    End,
    /// `end` of loop `.0` (of `locals.rs`'s numbering).
    EndLoop(u32),
    /// Exits of block `.0` that take no code here: positions to number.
    Skip(u32, Exits),
    Else,
    /// Take exit `.1` (a tree handle) of virtual block `.0` (`NONE`: of a
    /// dispatcher).
    Exit(u32, u32, Fall),
    /// After an outlined loop's `end` in its function (`outline.rs`).
    OutlineEnd,
    /// Opens F's own copy of an outlined loop (`Loop` without outlining
    /// inside); its body, `end` and `LoopCopyEnd` are under it.
    LoopCopy(LabelId),
    /// After that copy.
    LoopCopyEnd,
}

const _: () = assert!(std::mem::size_of::<Work>() == 16);

/// What follows a basic block's code (see `emit_basic`).
enum Then {
    /// Nothing (it returns, or traps).
    Done,
    /// Exit `.0`.
    Take(usize),
    /// Exit 0, then exit 1 numbered only (a `br_if` took it).
    TakeFirstSkipSecond,
    /// `if` exit 0 `else` exit 1 `end` (the `if` is written).
    IfElse,
    /// The terminator is a switch (its condition is pushed).
    Switch,
    /// A setjmp entry: a dispatch on the target local.
    SjEntry,
}

/// Where a multiway exit goes: straight to a label, or to wrapper `k`.
#[derive(Clone, Copy)]
enum Slot {
    Label(LabelId),
    Wrapper(u32),
}

impl<'a> Fx<'a> {
    fn push_label(&mut self, l: u32) {
        if l != ANON {
            if let Some(p) = self.b.label_pos.get_mut(l as usize) {
                *p = self.b.labels.len() as u32;
            }
        }
        self.b.labels.push(l);
    }

    fn pop_label(&mut self) {
        if let Some(l) = self.b.labels.pop() {
            if l != ANON {
                if let Some(p) = self.b.label_pos.get_mut(l as usize) {
                    *p = NONE;
                }
            }
        }
    }

    /// The `br` depth of tree label `l` from here. Inlined (a call per
    /// branch otherwise), its error out of line.
    #[inline]
    pub(super) fn depth(&mut self, l: LabelId) -> u32 {
        match self.b.label_pos.get(l.0 as usize) {
            Some(&p) if p != NONE => self.b.labels.len() as u32 - 1 - p,
            _ => self.label_outside(l),
        }
    }

    #[cold]
    #[inline(never)]
    fn label_outside(&mut self, l: LabelId) -> u32 {
        self.bug(format!("branch to label {} outside its construct", l.0));
        0
    }

    pub(super) fn open(&mut self, label: u32, is_loop: bool) {
        // `loop` or `block`, with the empty block type.
        let op = if is_loop { 0x03 } else { 0x02 };
        self.b.code.extend_from_slice(&[op, 0x40]);
        self.push_label(label);
        self.terminal = false;
    }

    pub(super) fn close(&mut self) {
        self.b.code.push(0x0B); // end
        self.pop_label();
        self.terminal = false;
    }

    fn br(&mut self, l: LabelId) {
        let d = self.depth(l);
        self.op_u32(0x0C, d); // br
        self.terminal = true;
    }

    /// Emits body `body` of `tree` (the whole body, or a setjmp function's
    /// inner body).
    pub(super) fn emit_tree(&mut self, tree: &Structured, body: Body) {
        // The stack's buffer is kept between bodies (an allocation and a
        // free per body otherwise).
        let mut work = std::mem::take(&mut self.b.work);
        // The instructions' records, out of the buffers while the body is
        // emitted (nothing writes them now): each instruction's is read in
        // place, not copied out of `self` before code is written.
        let insts = std::mem::take(&mut self.b.insts);
        // A step's last item (the first to run) is handed straight to the
        // next turn rather than pushed and popped.
        let mut item = Work::Nodes(body, Fall::NOWHERE);
        loop {
            let next = match item {
                Work::Nodes(list, fall) => match tree.split_first(list) {
                    Some((node, rest)) => {
                        let node_fall = if rest.is_empty() {
                            fall
                        } else {
                            work.push(Work::Nodes(rest, fall));
                            Fall::NOWHERE
                        };
                        self.emit_node(tree, node, node_fall, &mut work, &insts)
                    }
                    None => None,
                },
                Work::End => {
                    self.close();
                    None
                }
                Work::EndLoop(li) => {
                    self.close();
                    self.loop_closes(li);
                    None
                }
                Work::Skip(from, exits) => {
                    self.skip_exits(from, tree.exits_of(exits));
                    None
                }
                Work::Else => {
                    self.b.code.push(0x05); // else
                    self.terminal = false;
                    None
                }
                Work::Exit(from, exit, fall) => self.emit_exit(from, tree.exit(exit), fall, &insts),
                Work::OutlineEnd => {
                    self.end_outline();
                    None
                }
                Work::LoopCopy(label) => {
                    self.in_loop_copy += 1;
                    self.open(label.0, true);
                    None
                }
                Work::LoopCopyEnd => {
                    self.in_loop_copy -= 1;
                    None
                }
            };
            item = match next.or_else(|| work.pop()) {
                Some(w) => w,
                None => break,
            };
        }
        self.b.work = work;
        self.b.insts = insts;
    }

    /// Emits `node`'s own code and schedules the rest; returns the item to
    /// run next (the last one it would push).
    fn emit_node(
        &mut self,
        tree: &Structured,
        node: &Node,
        fall: Fall,
        work: &mut Vec<Work>,
        insts: &[InstInfo],
    ) -> Option<Work> {
        match *node {
            Node::Block { label, body } => {
                self.open(label.0, false);
                work.push(Work::End);
                Some(Work::Nodes(body, Fall::to(label)))
            }
            Node::Loop { label, body } if self.should_outline(tree, label, body) => {
                self.begin_outline(label);
                // G's loop, then (in F) the call of G or F's own copy.
                work.push(Work::End);
                work.push(Work::LoopCopyEnd);
                work.push(Work::End);
                work.push(Work::Nodes(body, fall));
                work.push(Work::LoopCopy(label));
                work.push(Work::OutlineEnd);
                work.push(Work::End);
                Some(Work::Nodes(body, fall))
            }
            Node::Loop { label, body } => {
                self.open(label.0, true);
                if self.virtual_locals {
                    let li = self.loop_opens();
                    work.push(Work::EndLoop(li));
                } else {
                    work.push(Work::End);
                }
                Some(Work::Nodes(body, fall))
            }
            Node::Basic { block, exits } => {
                let list = tree.exits_of(exits);
                match self.emit_basic(block, list, insts) {
                    Then::Done => None,
                    Then::Take(k) => Some(Work::Exit(block, exits.at(k), fall)),
                    Then::TakeFirstSkipSecond => {
                        work.push(Work::Skip(block, exits.sub(1, 2)));
                        Some(Work::Exit(block, exits.at(0), fall))
                    }
                    Then::IfElse => {
                        work.push(Work::End);
                        work.push(Work::Exit(block, exits.at(1), fall));
                        work.push(Work::Else);
                        Some(Work::Exit(block, exits.at(0), fall))
                    }
                    Then::Switch => {
                        self.emit_block_switch(block, list, exits, fall, work, insts);
                        None
                    }
                    Then::SjEntry => {
                        let t = self.sj_target_local;
                        self.emit_index_multiway(t, list, exits, fall, work);
                        None
                    }
                }
            }
            Node::Dispatch { var, exits } => {
                let Some(&local) = self.b.dispatch_locals.get(var as usize) else {
                    self.bug("dispatch variable out of range");
                    return None;
                };
                self.emit_index_multiway(local, tree.exits_of(exits), exits, fall, work);
                None
            }
        }
    }

    /// The switch ending block `vb` (`emit_basic` wrote its code up to the
    /// branch), and the end of the switch's position.
    #[inline(never)]
    fn emit_block_switch(&mut self, vb: u32, exits: &[Exit], run: Exits, fall: Fall, work: &mut Vec<Work>, insts: &[InstInfo]) {
        let f = self.f;
        let Some(last) = self.b.vblocks.get(vb as usize).map(|info| info.end as usize - 1) else { return };
        let InstInfo { emit, lowering, .. } = insts[last];
        if let InstKind::Switch { ty, cond, cases, .. } = &f.insts[last].kind {
            let dense = lowering == Lowering::DenseSwitch;
            self.emit_switch(vb, *ty, *cond, f.cases(*cases), dense, exits, run, fall, work);
        }
        self.pos += u32::from(emit);
    }

    /// `insts`: the instructions' analysis records (`Buffers::insts`).
    /// Returns what follows: which exits to take (`emit_node` schedules
    /// them, with the handles this does not need).
    fn emit_basic(&mut self, vb: u32, exits: &[Exit], insts: &[InstInfo]) -> Then {
        let Some(&info) = self.b.vblocks.get(vb as usize) else {
            self.bug("structured block out of range");
            return Then::Done;
        };
        if info.term == Term::SjEntry {
            return Then::SjEntry;
        }
        // A split part has no terminator of its own. One loop for both
        // kinds: `emit_inst` is inlined here.
        let last = match info.term {
            Term::Split => info.end as usize,
            _ => info.end as usize - 1,
        };
        // The phis open the block (the verifier holds to that): they take
        // no code and no position, and are stepped over (`after_phis`,
        // found as the phis are collected) rather than looked for at every
        // instruction.
        let f = self.f;
        let first = info.after_phis as usize;
        // Each instruction is a position (`locals.rs`). Its record is read
        // in place from `insts` (out of the buffers): a copy out of `self`
        // was needed while emission's writes could have changed it.
        let code = f.insts.get(first..last).unwrap_or(&[]);
        for (k, (inst, info)) in (first..).zip(code.iter().zip(insts.get(first..last).unwrap_or(&[]))) {
            if info.emit {
                self.emit_inst(k, inst, info);
                self.pos += 1;
            }
        }
        if info.term == Term::Split {
            if exits.is_empty() {
                self.bug("split block without an exit");
                return Then::Done;
            }
            return Then::Take(0);
        }
        let term = &f.insts[last];
        // Only what a terminator's code reads of its record: it starts no
        // folded tree (it has no result), so it has no pre-pushes of its
        // own, only its pushes (`emit_pushes` without the list).
        let InstInfo { push_start, own_from, push_end, emit, prepush_head, .. } = insts[last];
        debug_assert_eq!(prepush_head, NONE, "pre-pushes before a terminator");
        if own_from > push_start && self.has_prepushed(push_start, own_from) {
            self.touch_prepushed(push_start, own_from);
        }
        self.push_range(own_from, push_end);
        // The terminator's position ends when its code does: before its
        // exits' (run after this returns).
        let term_pos = u32::from(emit);
        let then = match &term.kind {
            InstKind::Ret { .. } => {
                self.emit_return();
                Then::Done
            }
            InstKind::Unreachable => {
                self.w().unreachable();
                self.terminal = true;
                Then::Done
            }
            InstKind::Br { .. } => {
                if exits.is_empty() {
                    self.bug("br without an exit");
                    Then::Done
                } else {
                    Then::Take(0)
                }
            }
            InstKind::CondBr { .. } => {
                let [e0, e1] = exits else {
                    self.bug("condbr without two exits");
                    return Then::Done;
                };
                if let Some(l0) = self.plain_label(vb, e0) {
                    let d = self.depth(l0);
                    self.op_u32(0x0D, d); // br_if
                    // e0's position (a plain branch copies nothing).
                    self.pos += 1;
                    Then::Take(1)
                } else if let Some(l1) = self.plain_label(vb, e1) {
                    let d = self.depth(l1);
                    self.b.code.push(0x45); // i32.eqz
                    self.op_u32(0x0D, d); // br_if
                    // e1 is numbered after e0.
                    Then::TakeFirstSkipSecond
                } else {
                    self.b.code.extend_from_slice(&[0x04, 0x40]); // if, empty type
                    self.push_label(ANON);
                    Then::IfElse
                }
            }
            // Its position ends after its code (`emit_block_switch`).
            InstKind::Switch { .. } => return Then::Switch,
            _ => {
                self.bug("a block that does not end in a terminator");
                Then::Done
            }
        };
        self.pos += term_pos;
        then
    }

    /// The label of an exit that is only a `br` (no copies, no dispatch).
    fn plain_label(&self, from: u32, e: &Exit) -> Option<LabelId> {
        let ExitHow::Br(l) = e.how else { return None };
        if e.set_dispatch.is_some() || (from != NONE && self.edge_has_copies(e.target)) {
            return None;
        }
        Some(l)
    }

    /// Only a first part is marked (`collect_phi_entries` marks the
    /// first part of the phis' block): no test of the part here.
    fn edge_has_copies(&self, target: u32) -> bool {
        self.b.has_phis.get(target as usize).copied().unwrap_or(false)
    }

    /// Returns the inline code to emit next, if any.
    fn emit_exit(&mut self, from: u32, e: &Exit, fall: Fall, insts: &[InstInfo]) -> Option<Work> {
        if from != NONE {
            self.emit_phi_copies(from, e.target, insts);
            // The edge's position (`locals.rs`).
            self.pos += 1;
        }
        if let Some((var, value)) = e.set_dispatch {
            self.set_dispatch(var, value);
        }
        match e.how {
            ExitHow::Br(l) => {
                if fall != Fall::to(l) {
                    self.br(l);
                }
                None
            }
            ExitHow::Inline(body) => Some(Work::Nodes(body, fall)),
        }
    }

    /// Sets dispatch variable `var` to `value` (an exit into a dispatcher).
    /// Out of line: few exits do, and inlined into `emit_tree` it crowded
    /// the walk's registers.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn set_dispatch(&mut self, var: u32, value: u32) {
        match self.b.dispatch_locals.get(var as usize) {
            Some(&l) => {
                self.i32_const(value as i32);
                self.local_op(0x21, l); // local.set
            }
            None => self.bug("dispatch variable out of range"),
        }
    }

    /// The parallel copy `phi_i := incoming_i(from)` of the phis of `target`.
    #[inline(always)]
    fn emit_phi_copies(&mut self, from: u32, target: u32, insts: &[InstInfo]) {
        if self.edge_has_copies(target) {
            self.emit_edge_copies(from, target, insts);
        }
    }

    /// [`Fx::emit_phi_copies`] of an edge with copies.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn emit_edge_copies(&mut self, from: u32, target: u32, insts: &[InstInfo]) {
        let f = self.f;
        let fv = self.b.vblocks[from as usize];
        let pred = fv.orig;
        let tv = self.b.vblocks[target as usize];
        let tb = tv.orig;
        // Sources already pushed by the block's `br` (see `plan_copies`).
        let planned = fv.term == Term::Real && insts[fv.end as usize - 1].copies_planned;
        let (s, e) = self.edge_copies(pred, tb);
        // The dry walk's touches: every copy, source then phi, at the
        // edge's position. A source is touched where it is pushed below
        // (a value with a local, the only kind whose interval is read),
        // so only a planned copy's, pushed at the `br`'s, are touched
        // here, with its phi.
        let touch = self.virtual_locals;
        if touch && planned {
            self.touch_copies_here(s, e);
        }
        // Does a source read a phi of this block? The phis open it (the
        // verifier holds to that; the target is its block's first part)
        // and results are numbered in order, so its phis are the values
        // from the first one's on, one per phi up to `after_phis`.
        let interferes = planned || {
            match f.insts.get(tv.start as usize).and_then(|i| i.result) {
                Some((v0, _)) => {
                    let n = tv.after_phis - tv.start;
                    self.b.edge_copies[s..e]
                        .iter()
                        .any(|&(dv, src)| src.0.wrapping_sub(v0.0) < n && self.phi_local(dv).is_some())
                }
                None => false,
            }
        };
        let mut any = false;
        if interferes {
            // All sources on the stack, then the phis set last to first.
            if !planned {
                for c in s..e {
                    let (dv, src) = self.b.edge_copies[c];
                    if self.phi_local(dv).is_some() {
                        self.push_value(src);
                    } else if touch {
                        self.touch_source(src);
                    }
                    if touch {
                        self.touch_phi_def(dv);
                    }
                }
            }
            for c in (s..e).rev() {
                let (dv, _) = self.b.edge_copies[c];
                if let Some(dl) = self.phi_local(dv) {
                    self.local_op(0x21, dl); // local.set
                    any = true;
                }
            }
        } else {
            for c in s..e {
                let (dv, src) = self.b.edge_copies[c];
                if let Some(dl) = self.phi_local(dv) {
                    self.push_value(src);
                    self.local_op(0x21, dl); // local.set
                    any = true;
                } else if touch {
                    self.touch_source(src);
                }
                if touch {
                    self.touch_phi_def(dv);
                }
            }
        }
        if cfg!(any(test, debug_assertions)) && touch && !planned {
            self.check_sources_touched(s, e);
        }
        if any {
            self.terminal = false;
        }
    }

    /// The local of phi `dv` (every phi with copies has one).
    #[inline(always)]
    fn phi_local(&self, dv: ValueId) -> Option<u32> {
        match self.b.vals.get(dv.0.wrapping_sub(self.f.first_local) as usize)?.kind {
            super::Kind::Local(l) => Some(l),
            _ => None,
        }
    }

    /// Groups `exits` into destinations: plain branches go straight to
    /// their label, the others get a wrapper block each (identical branches
    /// share one). Fills `b.slot_of[k]` for exit `k` and `b.wrapper_exit[w]`
    /// with the exit whose code follows wrapper `w`; returns the wrapper count.
    fn assign_slots(&mut self, from: u32, exits: &[Exit]) -> u32 {
        self.b.slot_of.clear();
        self.b.wrapper_exit.clear();
        self.b.seen_exits.clear();
        for (k, e) in exits.iter().enumerate() {
            let slot = match (self.plain_label(from, e), e.how) {
                (Some(l), _) => Slot::Label(l),
                (None, ExitHow::Br(l)) => {
                    let key = (e.target, e.set_dispatch, l.0);
                    match self.b.seen_exits.iter().find(|s| (s.0, s.1, s.2) == key) {
                        Some(s) => Slot::Wrapper(s.3),
                        None => {
                            let w = self.b.wrapper_exit.len() as u32;
                            self.b.seen_exits.push((key.0, key.1, key.2, w));
                            self.b.wrapper_exit.push(k as u32);
                            Slot::Wrapper(w)
                        }
                    }
                }
                (None, ExitHow::Inline(_)) => {
                    let w = self.b.wrapper_exit.len() as u32;
                    self.b.wrapper_exit.push(k as u32);
                    Slot::Wrapper(w)
                }
            };
            self.b.slot_of.push(encode_slot(slot));
        }
        self.b.wrapper_exit.len() as u32
    }

    /// The br depth of a slot, inside all `wrappers` wrapper blocks.
    fn slot_depth(&mut self, slot: u32) -> u32 {
        match decode_slot(slot) {
            Slot::Label(l) => self.depth(l),
            // Wrappers are the innermost constructs when the multiway
            // branch starts; deeper code adds its own nesting.
            Slot::Wrapper(w) => w + (self.b.labels.len() as u32 - self.wrapper_base),
        }
    }

    /// Opens the wrappers, runs `branch` (which ends in a br_table or a
    /// chain of br_ifs), then schedules each wrapper's exit code. With
    /// `carry_index`, an i32 on the stack is passed in as a block parameter.
    #[allow(clippy::too_many_arguments)]
    fn with_wrappers(
        &mut self,
        from: u32,
        exits: &[Exit],
        run: Exits,
        wrappers: u32,
        carry_index: bool,
        fall: Fall,
        work: &mut Vec<Work>,
        branch: impl FnOnce(&mut Self),
    ) {
        let carried = self.cx.i32_to_void;
        for _ in 0..wrappers {
            if carry_index && carried < 0x40 {
                // block, type index as a one-byte s33 (the encoder's
                // generic path cost a hundred instructions a wrapper).
                self.b.code.extend_from_slice(&[0x02, carried as u8]);
            } else if carry_index {
                self.w().block(BlockType::FunctionType(carried));
            } else {
                self.b.code.extend_from_slice(&[0x02, 0x40]); // block, empty type
            }
            self.push_label(ANON);
        }
        self.wrapper_base = self.b.labels.len() as u32;
        branch(self);
        self.terminal = true;
        self.schedule_wrappers(from, exits, run, wrappers, fall, work);
    }

    /// After `end` of wrapper w comes the code of the exit using it; the
    /// last one is in tail position. The exits between (plain ones, and
    /// those sharing an earlier wrapper) are numbered in order. (Not in
    /// `with_wrappers`, which has a copy per `branch`.)
    #[allow(clippy::too_many_arguments)]
    fn schedule_wrappers(
        &mut self,
        from: u32,
        exits: &[Exit],
        run: Exits,
        wrappers: u32,
        fall: Fall,
        work: &mut Vec<Work>,
    ) {
        let numbered = self.virtual_locals && from != NONE;
        // Exits from `after` on are numbered after wrapper w's.
        let mut after = exits.len();
        for w in (0..wrappers as usize).rev() {
            let Some(&k) = self.b.wrapper_exit.get(w) else { break };
            if k as usize >= exits.len() {
                break;
            }
            // An empty run numbers nothing: no work item for it.
            if numbered && k as usize + 1 < after {
                work.push(Work::Skip(from, run.sub(k as usize + 1, after)));
            }
            let f = if w + 1 == wrappers as usize { fall } else { Fall::NOWHERE };
            work.push(Work::Exit(from, run.at(k as usize), f));
            work.push(Work::End);
            after = k as usize;
        }
        if numbered {
            // Those before the first wrapper's: right away.
            self.skip_exits(from, exits.get(..after).unwrap_or(&[]));
        }
    }

    /// A dispatcher: exit `k` when local `index` is `k` (the last exit
    /// when out of range).
    fn emit_index_multiway(&mut self, index: u32, exits: &[Exit], run: Exits, fall: Fall, work: &mut Vec<Work>) {
        if exits.is_empty() {
            self.w().unreachable();
            self.terminal = true;
            return;
        }
        let wrappers = self.assign_slots(NONE, exits);
        self.with_wrappers(NONE, exits, run, wrappers, false, fall, work, |fx| {
            fx.local_get(index);
            fx.b.table.clear();
            for k in 0..exits.len() {
                let d = fx.slot_depth(fx.b.slot_of[k]);
                fx.b.table.push(d);
            }
            let default = fx.b.table.pop().unwrap_or(0);
            let table = std::mem::take(&mut fx.b.table);
            fx.br_table(&table, default);
            fx.b.table = table;
        });
    }

    /// Whether a switch is lowered to one `br_table` (its condition is then
    /// pushed once) rather than a compare chain.
    pub(super) fn switch_is_dense(&self, ty: IrType, cases: &[SwitchCase]) -> bool {
        if cases.len() < MIN_TABLE_CASES {
            return false;
        }
        let bits = match ty {
            IrType::Scalar(s) => s.bits(),
            _ => return false,
        };
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for c in cases {
            let v = case_value(c.value, bits);
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let span = hi - lo;
        span < MAX_BR_TABLE && span <= 3 * cases.len() as u64 + 8
    }

    #[allow(clippy::too_many_arguments)]
    fn emit_switch(
        &mut self,
        vb: u32,
        ty: IrType,
        cond: ValueId,
        cases: &[SwitchCase],
        dense: bool,
        exits: &[Exit],
        run: Exits,
        fall: Fall,
        work: &mut Vec<Work>,
    ) {
        if exits.len() != cases.len() + 1 {
            self.bug("switch exits do not match its cases");
            return;
        }
        let bits = match ty {
            IrType::Scalar(s) => s.bits(),
            _ => 32,
        };
        let wide = ty == IrType::Scalar(Scalar::I64);
        if cases.is_empty() {
            work.push(Work::Exit(vb, run.at(0), fall));
            return;
        }
        let wrappers = self.assign_slots(vb, exits);
        // As `plan` decided (it pushed the condition for a table).
        if dense {
            // The condition is on the stack. index = cond - lo.
            let lo = cases.iter().map(|c| case_value(c.value, bits)).min().unwrap_or(0);
            let hi = cases.iter().map(|c| case_value(c.value, bits)).max().unwrap_or(0);
            let span = (hi - lo + 1) as u32;
            if wide {
                let tmp = self.scratch(W::I64, 0);
                self.w().i64_const(lo as i64).i64_sub();
                self.local_tee(tmp);
                self.w().i64_const(i64::from(span));
                self.local_get(tmp);
                self.w().i64_const(i64::from(span)).i64_lt_u().select().i32_wrap_i64();
            } else if lo != 0 {
                self.w().i32_const(lo as u32 as i32).i32_sub();
            }
            self.with_wrappers(vb, exits, run, wrappers, true, fall, work, |fx| {
                fx.b.table.clear();
                let default_depth = fx.slot_depth(fx.b.slot_of[0]);
                fx.b.table.resize(span as usize, default_depth);
                for (i, c) in cases.iter().enumerate() {
                    let at = (case_value(c.value, bits) - lo) as usize;
                    let s = fx.b.slot_of[i + 1];
                    fx.b.table[at] = fx.slot_depth(s);
                }
                let dd = fx.slot_depth(fx.b.slot_of[0]);
                let table = std::mem::take(&mut fx.b.table);
                fx.br_table(&table, dd);
                fx.b.table = table;
            });
        } else {
            self.with_wrappers(vb, exits, run, wrappers, false, fall, work, |fx| {
                // Cases sorted by value, then grouped into dense clusters.
                fx.b.case_order.clear();
                fx.b.case_order
                    .extend(cases.iter().enumerate().map(|(i, c)| (case_value(c.value, bits), i as u32 + 1)));
                fx.b.case_order.sort_unstable();
                fx.b.clusters.clear();
                let n = fx.b.case_order.len();
                let mut i = 0;
                while i < n {
                    let lo = fx.b.case_order[i].0;
                    let mut j = i + 1;
                    // Grow while the cluster stays dense enough for a table.
                    while j < n {
                        let span = fx.b.case_order[j].0 - lo;
                        if span >= MAX_BR_TABLE || span > 3 * (j - i + 1) as u64 + 8 {
                            break;
                        }
                        j += 1;
                    }
                    if j - i < MIN_TABLE_CASES {
                        j = i + 1;
                    }
                    fx.b.clusters.push((i as u32, j as u32));
                    i = j;
                }
                let nclusters = fx.b.clusters.len();
                fx.emit_case_search(cond, wide, 0, nclusters);
            });
        }
    }

    /// `br_table` of `table` with `default`, its LEBs written directly (the
    /// encoder's went through a call per entry).
    fn br_table(&mut self, table: &[u32], default: u32) {
        self.op_u32(0x0E, table.len() as u32);
        for &d in table.iter().chain([&default]) {
            put_uleb32(&mut self.b.code, d);
        }
    }

    /// Branches on the cases of `clusters[from..to]` (a binary search over
    /// the clusters, a table or a compare for each); every path ends in a
    /// branch (to the default exit when no case matches).
    ///
    /// The condition is pushed at each test by `push_value` (a local or
    /// constant inline; an alias still resolved by `get`), and the
    /// one-byte opcodes are written directly, not through the encoder's
    /// sink (a call each).
    fn emit_case_search(&mut self, cond: ValueId, wide: bool, from: usize, to: usize) {
        if to - from > 3 {
            let mid = (from + to) / 2;
            let pivot = self.b.case_order[self.b.clusters[mid].0 as usize].0;
            self.push_value(cond);
            if wide {
                self.w().i64_const(pivot as i64).i64_lt_u();
            } else {
                self.i32_const(pivot as u32 as i32);
                self.b.code.push(0x49); // i32.lt_u
            }
            self.b.code.extend_from_slice(&[0x04, 0x40]); // if, empty type
            self.push_label(ANON);
            self.emit_case_search(cond, wide, from, mid);
            self.b.code.push(0x05); // else
            self.emit_case_search(cond, wide, mid, to);
            self.b.code.push(0x0B); // end
            self.pop_label();
            return;
        }
        for c in from..to {
            let (i, j) = self.b.clusters[c];
            if j - i == 1 {
                let (v, k) = self.b.case_order[i as usize];
                self.push_value(cond);
                if wide {
                    self.w().i64_const(v as i64).i64_eq();
                } else {
                    self.i32_const(v as u32 as i32);
                    self.b.code.push(0x46); // i32.eq
                }
                let d = self.slot_depth(self.b.slot_of[k as usize]);
                self.op_u32(0x0D, d); // br_if
                continue;
            }
            // A table: holes and out-of-range values fall to the next test.
            let lo = self.b.case_order[i as usize].0;
            let hi = self.b.case_order[j as usize - 1].0;
            let span = (hi - lo + 1) as u32;
            self.b.code.extend_from_slice(&[0x02, 0x40]); // block, empty type
            self.push_label(ANON);
            self.push_value(cond);
            if wide {
                let tmp = self.scratch(W::I64, 0);
                self.w().i64_const(lo as i64).i64_sub();
                self.local_tee(tmp);
                self.w().i64_const(i64::from(span)).i64_ge_u().br_if(0);
                self.local_get(tmp);
                self.w().i32_wrap_i64();
            } else if lo != 0 {
                self.i32_const(lo as u32 as i32);
                self.b.code.push(0x6B); // i32.sub
            }
            let mut table = std::mem::take(&mut self.b.table);
            table.clear();
            table.resize(span as usize, 0);
            for x in i..j {
                let (v, k) = self.b.case_order[x as usize];
                table[(v - lo) as usize] = self.slot_depth(self.b.slot_of[k as usize]);
            }
            self.br_table(&table, 0);
            self.b.table = table;
            self.b.code.push(0x0B); // end
            self.pop_label();
        }
        let d = self.slot_depth(self.b.slot_of[0]);
        self.op_u32(0x0C, d); // br
    }
}

/// A case value as the unsigned value of its `bits`-wide type (how i8/i16
/// values sit zero-extended in an i32).
fn case_value(v: i64, bits: u32) -> u64 {
    if bits >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << bits) - 1)
    }
}

fn encode_slot(s: Slot) -> u32 {
    match s {
        Slot::Label(l) => l.0 << 1,
        Slot::Wrapper(w) => (w << 1) | 1,
    }
}

fn decode_slot(s: u32) -> Slot {
    if s & 1 == 0 {
        Slot::Label(LabelId(s >> 1))
    } else {
        Slot::Wrapper(s >> 1)
    }
}
