//! Local allocation: values whose lives do not overlap share a local.
//!
//! A dry walk of the structured body numbers every emitted instruction and
//! every edge's phi copies in emission order, and notes the span of each
//! `loop`. A value's interval runs from its first to its last position
//! (definition, uses, phi copies into it); an interval that is partly
//! inside a loop is widened to the whole loop (the value is live around the
//! back edge). A linear scan over the intervals, by start, then gives each
//! value the first free local of its wasm type. Locals are declared grouped
//! by type, so the local of a value is `base(type) + slot`.
//!
//! Values read before their definition in emission order (possible only
//! around irreducible regions) and functions that call setjmp (re-entry
//! makes every position reachable from every other) get one local per
//! value instead.

use super::{for_each_operand, resolve_in, Fx, Kind, Term, NONE};
use crate::back::wasm::structure::{Exit, ExitHow, Node, Structured};
use crate::back::wasm::types::wasm_type;
use crate::ir::InstKind;
use wasm_encoder::ValType as W;

/// Declaration order of the value locals' types.
pub(super) const LOCAL_TYPES: [W; 5] = [W::I32, W::I64, W::F32, W::F64, W::V128];

fn type_slot(t: W) -> usize {
    match t {
        W::I32 => 0,
        W::I64 => 1,
        W::F32 => 2,
        W::F64 => 3,
        _ => 4,
    }
}

/// Where a value is live: positions `start..=end` (`start` is `NONE` if
/// it is never touched), defined at `def` (`NONE`: not seen).
#[derive(Clone, Copy, Debug)]
pub(super) struct Live {
    start: u32,
    end: u32,
    def: u32,
}

impl Live {
    /// Notes a use or definition at `p`. Positions are handed out in
    /// increasing order, so the first touch is the start and the latest
    /// the end.
    #[inline]
    fn touch(&mut self, p: u32) {
        if self.start == NONE {
            self.start = p;
        }
        self.end = p;
    }
}

/// A `loop` in emission order: positions `start..end`.
#[derive(Clone, Copy, Debug)]
pub(super) struct LoopSpan {
    start: u32,
    end: u32,
    parent: u32,
}

/// Buffers of the allocation, reused between functions.
#[derive(Default)]
pub(in crate::back::wasm) struct LocalBuffers {
    /// Per value: first and last position, and that of its definition.
    live: Vec<Live>,
    own: Vec<bool>,
    loops: Vec<LoopSpan>,
    loop_at: Vec<u32>,
    order: Vec<(u32, u32)>,
    /// Scratch of the sort of `order`.
    count: Vec<u32>,
    sorted: Vec<(u32, u32)>,
    /// Slots in use, by the position where their value's interval ends:
    /// per position the head of a list through `ending` (type, slot, next).
    ending_head: Vec<u32>,
    ending: Vec<(u8, u32, u32)>,
    /// The slots freed at one position, to hand back in slot order.
    freed: Vec<(u8, u32)>,
    free: [Vec<u32>; 5],
}

enum Walk<'t> {
    Nodes(&'t [Node]),
    EndLoop(u32),
    Exit(u32, &'t Exit),
}

impl<'a> Fx<'a> {
    /// Whether value index `i` gets a local.
    pub(super) fn needs_local(&self, i: usize) -> bool {
        let v = &self.b.vals[i];
        v.kind == Kind::None && v.uses > 0
    }

    /// Assigns `Kind::Local` to every value that needs a local.
    pub(super) fn assign_locals(&mut self, tree: &Structured) {
        let first_inst = self.num_params as usize + self.f.consts.len();
        let n = self.b.vals.len();
        let mut lb = std::mem::take(&mut self.b.locals);
        lb.live.clear();
        lb.live.resize(n, Live { start: NONE, end: 0, def: NONE });
        lb.own.clear();
        lb.own.resize(n, self.has_setjmp);
        if !self.has_setjmp {
            self.number_positions(tree, &mut lb);
        }
        // Intervals, widened over loops; then the scan.
        lb.order.clear();
        let mut max_end = 0;
        for i in first_inst..n {
            if !self.needs_local(i) {
                continue;
            }
            let live = lb.live[i];
            if live.start == NONE || live.def == NONE || live.start < live.def {
                lb.own[i] = true;
            }
            if lb.own[i] {
                lb.order.push((0, i as u32));
                continue;
            }
            let (s, e) = widen(&lb, live.start, live.end);
            lb.live[i].start = s;
            lb.live[i].end = e;
            max_end = max_end.max(e);
            lb.order.push((s, i as u32));
        }
        sort_by_start(&mut lb);
        let mut slots = [0u32; 5];
        for t in 0..5 {
            lb.free[t].clear();
        }
        lb.ending_head.clear();
        lb.ending_head.resize(max_end as usize + 1, NONE);
        lb.ending.clear();
        // Intervals ending before this position have given their slots back.
        let mut swept = 0u32;
        // Slot per value first (stored as Local(slot)), indices after.
        for k in 0..lb.order.len() {
            let (s, i) = lb.order[k];
            let i = i as usize;
            let t = type_slot(wasm_type(self.b.vals[i].ty));
            // The start is behind us: keep the type for the rebasing below.
            lb.order[k].0 = t as u32;
            let slot = if lb.own[i] {
                slots[t] += 1;
                slots[t] - 1
            } else {
                // Free the slots of the intervals that ended before `s`, in
                // order of (end, slot): starts only grow, so one sweep over
                // the positions does it (a min-heap of (end, slot) per type
                // gave the same order at a log factor).
                while swept < s {
                    let mut e = lb.ending_head[swept as usize];
                    if e != NONE {
                        lb.freed.clear();
                        while e != NONE {
                            let (ft, slot, next) = lb.ending[e as usize];
                            lb.freed.push((ft, slot));
                            e = next;
                        }
                        lb.freed.sort_unstable();
                        for &(ft, slot) in &lb.freed {
                            lb.free[ft as usize].push(slot);
                        }
                    }
                    swept += 1;
                }
                let slot = lb.free[t].pop().unwrap_or_else(|| {
                    slots[t] += 1;
                    slots[t] - 1
                });
                let end = lb.live[i].end as usize;
                lb.ending.push((t as u8, slot, lb.ending_head[end]));
                lb.ending_head[end] = (lb.ending.len() - 1) as u32;
                slot
            };
            self.b.vals[i].kind = Kind::Local(slot);
        }
        let mut base = [0u32; 5];
        let mut next = self.num_params;
        for t in 0..5 {
            base[t] = next;
            next += slots[t];
        }
        for &(t, i) in &lb.order {
            let val = &mut self.b.vals[i as usize];
            if let Kind::Local(slot) = val.kind {
                val.kind = Kind::Local(base[t as usize] + slot);
            }
        }
        self.num_value_locals = next - self.num_params;
        self.b.local_counts = slots;
        self.b.locals = lb;
    }

    /// The dry walk: positions of instructions and copies, loop spans.
    fn number_positions(&mut self, tree: &Structured, lb: &mut LocalBuffers) {
        lb.loops.clear();
        lb.loop_at.clear();
        let mut cur_loop = NONE;
        let mut work: Vec<Walk<'_>> = Vec::with_capacity(32);
        work.push(Walk::Nodes(tree.nodes_of(tree.body)));
        let f = self.f;
        let first = f.first_local;
        while let Some(item) = work.pop() {
            match item {
                Walk::Nodes(list) => {
                    let Some((node, rest)) = list.split_first() else { continue };
                    if !rest.is_empty() {
                        work.push(Walk::Nodes(rest));
                    }
                    match *node {
                        Node::Block { body, .. } => work.push(Walk::Nodes(tree.nodes_of(body))),
                        Node::Loop { body, .. } => {
                            let li = lb.loops.len() as u32;
                            lb.loops.push(LoopSpan { start: lb.loop_at.len() as u32, end: NONE, parent: cur_loop });
                            cur_loop = li;
                            work.push(Walk::EndLoop(li));
                            work.push(Walk::Nodes(tree.nodes_of(body)));
                        }
                        Node::Basic { block, exits } => {
                            let Some(&info) = self.b.vblocks.get(block as usize) else { continue };
                            if info.term != Term::SjEntry {
                                // Positions of the block's instructions are
                                // consecutive: their loop noted once.
                                let (s, e) = (info.start as usize, info.end as usize);
                                let (Some(infos), Some(insts)) = (self.b.insts.get(s..e), f.insts.get(s..e)) else {
                                    continue;
                                };
                                let vals = &self.b.vals[..];
                                let live = &mut lb.live[..];
                                let mut p = lb.loop_at.len() as u32;
                                for (inst, info) in insts.iter().zip(infos) {
                                    if !info.emit || matches!(inst.kind, InstKind::Phi { .. }) {
                                        continue;
                                    }
                                    let mut touch = |v: u32| {
                                        let v = resolve_in(vals, first, crate::ir::ValueId(v)).0;
                                        if let Some(l) = live.get_mut(v.wrapping_sub(first) as usize) {
                                            l.touch(p);
                                        }
                                    };
                                    for_each_operand(f, &inst.kind, |o| touch(o.0));
                                    if info.addr != NONE {
                                        touch(info.addr);
                                    }
                                    if let Some((v, _)) = inst.result {
                                        if let Some(l) = live.get_mut(v.0.wrapping_sub(first) as usize) {
                                            l.touch(p);
                                            l.def = l.def.min(p);
                                        }
                                    }
                                    p += 1;
                                }
                                lb.loop_at.resize(p as usize, cur_loop);
                            }
                            for e in tree.exits_of(exits).iter().rev() {
                                work.push(Walk::Exit(block, e));
                            }
                        }
                        Node::Dispatch { exits, .. } => {
                            for e in tree.exits_of(exits).iter().rev() {
                                work.push(Walk::Exit(NONE, e));
                            }
                        }
                    }
                }
                Walk::EndLoop(li) => {
                    let l = &mut lb.loops[li as usize];
                    l.end = lb.loop_at.len() as u32;
                    cur_loop = l.parent;
                }
                Walk::Exit(from, e) => {
                    if from != NONE {
                        let p = lb.loop_at.len() as u32;
                        lb.loop_at.push(cur_loop);
                        self.touch_copies(from, e.target, p, lb);
                    }
                    if let ExitHow::Inline(body) = e.how {
                        work.push(Walk::Nodes(tree.nodes_of(body)));
                    }
                }
            }
        }
    }

    /// Marks the phi copies of edge `from → target` at position `p`: each
    /// live phi is written, each source read.
    fn touch_copies(&mut self, from: u32, target: u32, p: u32, lb: &mut LocalBuffers) {
        let Some(tv) = self.b.vblocks.get(target as usize) else { return };
        if !tv.first_part || !self.b.has_phis.get(target as usize).copied().unwrap_or(false) {
            return;
        }
        let f = self.f;
        let first = f.first_local;
        let pred = self.b.vblocks[from as usize].orig;
        let (s, e) = self.edge_copies(pred, tv.orig);
        for c in s..e {
            let (dv, src) = self.b.edge_copies[c];
            if let Some(l) = lb.live.get_mut(src.0.wrapping_sub(first) as usize) {
                l.touch(p);
            }
            if let Some(l) = lb.live.get_mut(dv.0.wrapping_sub(first) as usize) {
                l.touch(p);
                l.def = l.def.min(p);
            }
        }
    }
}

/// Sorts `order` by (start, value): a counting sort by start, since starts
/// are positions (below the body's size) and the values of one start are
/// already in increasing order (they were added so). The same order as
/// sorting the pairs, in linear time.
fn sort_by_start(lb: &mut LocalBuffers) {
    let Some(max) = lb.order.iter().map(|&(s, _)| s).max() else { return };
    lb.count.clear();
    lb.count.resize(max as usize + 2, 0);
    for &(s, _) in &lb.order {
        lb.count[s as usize + 1] += 1;
    }
    for k in 1..lb.count.len() {
        lb.count[k] += lb.count[k - 1];
    }
    lb.sorted.clear();
    lb.sorted.resize(lb.order.len(), (0, 0));
    for &(s, i) in &lb.order {
        let at = &mut lb.count[s as usize];
        lb.sorted[*at as usize] = (s, i);
        *at += 1;
    }
    std::mem::swap(&mut lb.order, &mut lb.sorted);
}

/// Widens `[s, e]` until no loop holds part of it: a value live on both
/// sides of a loop boundary is live around the whole loop.
fn widen(lb: &LocalBuffers, mut s: u32, mut e: u32) -> (u32, u32) {
    loop {
        let (s0, e0) = (s, e);
        let mut l = lb.loop_at.get(s as usize).copied().unwrap_or(NONE);
        while l != NONE {
            let span = lb.loops[l as usize];
            if span.end <= e {
                s = s.min(span.start);
                e = e.max(span.end);
            }
            l = span.parent;
        }
        let mut l = lb.loop_at.get(e as usize).copied().unwrap_or(NONE);
        while l != NONE {
            let span = lb.loops[l as usize];
            if span.start > s {
                s = s.min(span.start);
                e = e.max(span.end);
            }
            l = span.parent;
        }
        if (s, e) == (s0, e0) {
            return (s, e);
        }
    }
}
