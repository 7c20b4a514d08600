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

use super::{for_each_operand, resolve_in, Fx, Kind, Term, Val, NONE};
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
    /// Innermost loop per position, filled from `loop_marks` at the end of
    /// the walk (one fill per loop boundary, not one per block).
    loop_at: Vec<u32>,
    /// (position, innermost loop from there on), at each loop boundary.
    loop_marks: Vec<(u32, u32)>,
    /// The values that get a local, as (next, value) lists by start
    /// position from `heads`, next entry of the same start; once given a
    /// slot an entry holds (type slot, value) for the rebasing.
    order: Vec<(u32, u32)>,
    /// Per position, the heads of its list in `order` (values starting
    /// there) and of its list in `ending` (slots whose value's interval
    /// ends there).
    heads: Vec<[u32; 2]>,
    /// (type, slot, next).
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
    // Not inlined into `translate`: its loops keep their registers.
    #[inline(never)]
    pub(super) fn assign_locals(&mut self, tree: &Structured) {
        let first_inst = self.num_params as usize + self.f.consts.len();
        let n = self.b.vals.len();
        let mut lb = std::mem::take(&mut self.b.locals);
        lb.live.clear();
        lb.live.resize(n, Live { start: NONE, end: 0, def: NONE });
        lb.own.clear();
        lb.own.resize(n, self.has_setjmp);
        let npos = if self.has_setjmp { 0 } else { self.number_positions(tree, &mut lb) };
        // Intervals, widened over loops, listed by start: values pushed in
        // decreasing order, so each start's list runs in increasing order
        // (the scan's order is (start, value)).
        lb.order.clear();
        lb.heads.clear();
        lb.heads.resize(npos as usize + 1, [NONE; 2]);
        let mut last_start = 0;
        for i in (first_inst..n).rev() {
            if !self.needs_local(i) {
                continue;
            }
            let live = lb.live[i];
            let s = if lb.own[i] || live.start == NONE || live.def == NONE || live.start < live.def {
                lb.own[i] = true;
                0
            } else {
                let (s, e) = widen(&lb, live.start, live.end);
                lb.live[i].start = s;
                lb.live[i].end = e;
                s
            };
            last_start = last_start.max(s);
            let k = lb.order.len() as u32;
            lb.order.push((lb.heads[s as usize][0], i as u32));
            lb.heads[s as usize][0] = k;
        }
        let slots = scan(&mut self.b.vals, &mut lb, last_start as usize);
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
    /// Returns the number of positions.
    #[inline(never)]
    fn number_positions(&mut self, tree: &Structured, lb: &mut LocalBuffers) -> u32 {
        lb.loops.clear();
        lb.loop_marks.clear();
        let mut cur_loop = NONE;
        let mut npos = 0u32;
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
                            lb.loops.push(LoopSpan { start: npos, end: NONE, parent: cur_loop });
                            cur_loop = li;
                            lb.loop_marks.push((npos, li));
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
                                let mut p = npos;
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
                                npos = p;
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
                    l.end = npos;
                    cur_loop = l.parent;
                    lb.loop_marks.push((npos, cur_loop));
                }
                Walk::Exit(from, e) => {
                    if from != NONE {
                        self.touch_copies(from, e.target, npos, lb);
                        npos += 1;
                    }
                    if let ExitHow::Inline(body) = e.how {
                        work.push(Walk::Nodes(tree.nodes_of(body)));
                    }
                }
            }
        }
        lb.loop_at.clear();
        let mut cur = NONE;
        for &(p, l) in &lb.loop_marks {
            lb.loop_at.resize(p as usize, cur);
            cur = l;
        }
        lb.loop_at.resize(npos as usize, cur);
        npos
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

/// The linear scan: gives each listed value a slot of its type (stored as
/// `Local(slot)`), the first free one unless it has a local of its own;
/// returns the number of slots per type. Its own function so that the walk
/// over the positions keeps its registers.
#[inline(never)]
fn scan(vals: &mut [Val], lb: &mut LocalBuffers, last_start: usize) -> [u32; 5] {
    let mut slots = [0u32; 5];
    for t in 0..5 {
        lb.free[t].clear();
    }
    lb.ending.clear();
    let mut p = 0;
    loop {
        // Most positions start and end nothing: skip them in a tight loop.
        while lb.heads.get(p).is_some_and(|&h| h == [NONE; 2]) {
            p += 1;
        }
        if p > last_start {
            break;
        }
        let [mut k, mut e] = lb.heads[p];
        if k != NONE {
            while k != NONE {
                let (next, i) = lb.order[k as usize];
                let i = i as usize;
                let t = type_slot(wasm_type(vals[i].ty));
                // The list link is behind us: keep the type for the rebasing.
                lb.order[k as usize].0 = t as u32;
                k = next;
                let slot = if lb.own[i] {
                    slots[t] += 1;
                    slots[t] - 1
                } else {
                    let slot = lb.free[t].pop().unwrap_or_else(|| {
                        slots[t] += 1;
                        slots[t] - 1
                    });
                    let end = lb.live[i].end as usize;
                    lb.ending.push((t as u8, slot, lb.heads[end][1]));
                    lb.heads[end][1] = (lb.ending.len() - 1) as u32;
                    slot
                };
                vals[i].kind = Kind::Local(slot);
            }
            e = lb.heads[p][1];
        }
        // Free the slots of the intervals ending here, for the starts after,
        // in order of slot (per type; a min-heap of (end, slot) per type
        // gave the same order at a log factor).
        if e != NONE {
            let (ft, slot, next) = lb.ending[e as usize];
            if next == NONE {
                lb.free[ft as usize].push(slot);
            } else {
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
        }
        p += 1;
    }
    slots
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
