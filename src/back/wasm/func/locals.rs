//! Local allocation: values whose lives do not overlap share a local.
//!
//! Every emitted instruction and every edge's phi copies get a position,
//! in emission order, and each `loop` a span of positions. A value's
//! interval runs from its first to its last position (definition, uses,
//! phi copies into it); an interval that is partly inside a loop is widened
//! to the whole loop (the value is live around the back edge). A linear
//! scan over the intervals, by start, then gives each value the first free
//! local of its wasm type. Locals are declared grouped by type, so the
//! local of a value is `base(type) + slot`.
//!
//! Positions are numbered by emission itself: it writes each value's local
//! (and each extra local, numbered after the value locals) as a
//! [`VIRTUAL`] index, leaving out the immediate and noting where it goes
//! (`Buffers::relocs`), and touches the intervals as it goes, listing the
//! values in the order it defines them (the scan's order, but for the few
//! widened or given a local of their own). Once the body is emitted the
//! scan runs, and the body is copied with the final indices put in
//! ([`Fx::place_locals`]): a byte copy, where numbering the positions
//! first was a second walk of the whole tree. Functions that
//! call setjmp, and those whose loop nests may be outlined (a decision
//! emission takes from the number of locals), are numbered by that dry walk
//! before emission instead (`number_positions`).
//!
//! Values read before their definition in emission order (possible only
//! around irreducible regions) and functions that call setjmp (re-entry
//! makes every position reachable from every other) get one local per
//! value instead.

use super::{for_each_operand, put_uleb32_in_room, resolve_in, Fx, Kind, Term, NONE};
use crate::back::wasm::structure::{Exit, ExitHow, Node, Structured};
use crate::back::wasm::types::wasm_type;
use crate::back::wasm::leb_len;
use crate::ir::{InstKind, ValueId};
use wasm_encoder::ValType as W;

/// A local index written before allocation: `VIRTUAL | i` is value `i`'s
/// local for `i` below the number of values `n`, the `k`th extra local for
/// `i = n + k` (so that `local_of` maps both, without a test per index).
pub(super) const VIRTUAL: u32 = 1 << 31;

/// Values past which indices are not written `VIRTUAL` (values and extra
/// locals share the indices below it).
const MAX_VIRTUAL_VALUES: usize = 1 << 30;

/// Declaration order of the value locals' types.
pub(super) const LOCAL_TYPES: [W; 5] = [W::I32, W::I64, W::F32, W::F64, W::V128];

pub(super) fn type_slot(t: W) -> usize {
    match t {
        W::I32 => 0,
        W::I64 => 1,
        W::F32 => 2,
        W::F64 => 3,
        _ => 4,
    }
}

/// Where a value is live: positions `start..=end` (`start` is `NONE` if
/// it is never touched), defined at `def` (`NONE`: not seen); `t` is the
/// type slot of its local (noted once, so the scan reads no `Val`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Live {
    start: u32,
    end: u32,
    def: u32,
    t: u32,
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

    /// Notes a definition of value `i` at `p`: the first one (positions
    /// only grow) is its `def`, and if its interval starts there it is
    /// listed in `started`.
    #[inline]
    fn touch_def(&mut self, p: u32, i: u32, started: &mut Vec<u32>) {
        self.touch(p);
        if self.def == NONE {
            self.def = p;
            if self.start == p {
                started.push(i);
            }
        }
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
    /// Per value: first and last position, and that of its definition
    /// (once given a slot: the slot for the first, and the next in its end
    /// list for the last); `end == NONE` once it is known to need a local
    /// of its own, `def == NONE` once it is known not to start at its
    /// definition. Only the entries of the values
    /// in `need` are set per body (the others are touched but never read).
    live: Vec<Live>,
    loops: Vec<LoopSpan>,
    /// Innermost loop per position, filled from `loop_marks` at the end of
    /// the walk (one fill per loop boundary, not one per block).
    loop_at: Vec<u32>,
    /// (position, innermost loop from there on), at each loop boundary.
    loop_marks: Vec<(u32, u32)>,
    /// Per position, the first value whose interval ends there, once given
    /// a slot (the next is in its `Live::end`, which is spent by then). All
    /// `NONE` between bodies: the scan resets what it set (a reset of the
    /// whole array was a memset per body).
    end_heads: Vec<u32>,
    /// A bit per position with a list in `end_heads`: the scan goes from
    /// one to the next (most positions end nothing).
    active: Vec<u64>,
    /// The values defined where their interval starts, in order of
    /// position (then of value: a position defines one value, or the phis
    /// of an edge in order), as emission defines them: the scan's order,
    /// where listing them by start took a list per position and a walk
    /// over the positions.
    started: Vec<u32>,
    /// The others, as `start << 32 | value`: those with a local of their
    /// own (at position 0) and those widened to an earlier start; sorted,
    /// and merged into `started` by the scan.
    moved: Vec<u64>,
    /// The values that need a local, in increasing order.
    need: Vec<u32>,
    /// Pre-pushed operand ranges not yet touched (`Fx::note_prepushed`).
    prepushed: Vec<(u32, u32)>,
    /// The values given a slot of a type other than i32.
    typed: Vec<u32>,
    /// Per value, its local once allocated (`NONE`: none): what its
    /// `Kind::Local` says, dense for [`Fx::place_locals`]; past the values,
    /// the extra locals'.
    local_of: Vec<u32>,
    free: [Vec<u32>; 5],
}

enum Walk<'t> {
    Nodes(&'t [Node]),
    EndLoop(u32),
    Exit(u32, &'t Exit),
}

impl<'a> Fx<'a> {
    /// Before emission: either numbers the positions by the dry walk and
    /// allocates the locals now (setjmp, loops that may be outlined), or
    /// gives each value that needs a local its [`VIRTUAL`] index, for
    /// emission to number the positions ([`Fx::end_locals`] allocates).
    // Not inlined into `translate`: its loops keep their registers.
    #[inline(never)]
    pub(super) fn begin_locals(&mut self, tree: &Structured) {
        let n = self.b.vals.len();
        let b = &mut *self.b;
        let lb = &mut b.locals;
        // Grown only: the entries of the values in `need` are set below.
        if lb.live.len() < n {
            lb.live.resize(n, Live { start: NONE, end: 0, def: NONE, t: 0 });
        }
        b.relocs.clear();
        let numbered_later = !self.has_setjmp
            && n < MAX_VIRTUAL_VALUES
            && !(self.cx.outline_loops && has_loop_nest(tree));
        let first_inst = self.num_params as usize + self.f.consts.len();
        lb.need.clear();
        lb.started.clear();
        // Each value with its entry, side by side (no bounds test per value).
        let vals = b.vals.get_mut(first_inst..).unwrap_or(&mut []);
        let live = lb.live.get_mut(first_inst..n).unwrap_or(&mut []);
        for (i, (v, l)) in (first_inst as u32..).zip(vals.iter_mut().zip(live)) {
            if v.kind == Kind::None && v.uses > 0 {
                if numbered_later {
                    v.kind = Kind::Local(VIRTUAL | i);
                }
                *l = Live { start: NONE, end: 0, def: NONE, t: type_slot(wasm_type(v.ty)) as u32 };
                lb.need.push(i);
            }
        }
        if !numbered_later {
            // (The buffers out of the hub while the dry walk reads both.)
            let mut lb = std::mem::take(&mut self.b.locals);
            let npos = if self.has_setjmp { 0 } else { self.number_positions(tree, &mut lb) };
            // The dry walk touched values outside `need` too: `started`
            // from `need` instead, by start (stable: then by value).
            let LocalBuffers { started, need, live, .. } = &mut lb;
            started.clear();
            started.extend(need.iter().copied().filter(|&i| live.get(i as usize).is_some_and(|l| l.def != NONE && l.start == l.def)));
            started.sort_by_key(|&i| live[i as usize].start);
            self.b.locals = lb;
            self.allocate(npos);
            return;
        }
        lb.loops.clear();
        lb.loop_marks.clear();
        lb.prepushed.clear();
        self.virtual_locals = true;
        self.pos = 0;
        self.cur_loop = NONE;
    }

    /// After emission numbered the positions: the loop of each position,
    /// then the allocation.
    #[inline(never)]
    pub(super) fn end_locals(&mut self) {
        if !self.virtual_locals {
            return;
        }
        let npos = self.pos;
        // (Without a value to allocate, `allocate` reads no loop span.)
        if !self.b.locals.need.is_empty() {
            fill_loop_at(&mut self.b.locals, npos);
        }
        self.allocate(npos);
        self.place_locals();
    }

    /// Puts the final local indices into the code, and moves the offsets
    /// noted in it (call sites, signature placeholders) past them.
    #[inline(never)]
    fn place_locals(&mut self) {
        let extra_base = self.num_params + self.num_value_locals;
        let b = &mut *self.b;
        if b.code.len() > u32::MAX as usize {
            self.bug = Some("function body too large".into());
            return;
        }
        // The extra locals' entries: their indices are past the values'.
        let n = b.vals.len();
        let lb = &mut b.locals;
        let extras = n + b.extra_locals.len();
        if extras >= VIRTUAL as usize {
            // (Values are fewer than 2^30 here: not seen.)
            self.bug = Some("too many locals".into());
            return;
        }
        if lb.local_of.len() < extras {
            lb.local_of.resize(extras, NONE);
        }
        for (k, x) in lb.local_of[n..extras].iter_mut().enumerate() {
            *x = extra_base + k as u32;
        }
        // Indices below 128 (most) go in their one-byte placeholder. (The
        // slices apart, so that the loop keeps them in registers.)
        let (mut longer, mut unallocated) = (0, false);
        let (local_of, code) = (&lb.local_of[..], &mut b.code[..]);
        let mut place = |r: &mut (u32, u32)| {
            // (`NONE`, no local, is not below 128 either.)
            let x = local_of.get((r.1 ^ VIRTUAL) as usize).copied().unwrap_or(NONE);
            if x < 0x80 {
                if let Some(c) = code.get_mut(r.0 as usize) {
                    *c = x as u8;
                }
            } else if x == NONE {
                unallocated = true;
            } else {
                r.1 = x;
                longer += leb_len(x) - 1;
            }
        };
        // Four at a time: one loop test per four (a quarter of the loop's
        // instructions were its own).
        let (fours, rest) = b.relocs.as_chunks_mut::<4>();
        for four in fours {
            four.iter_mut().for_each(&mut place);
        }
        rest.iter_mut().for_each(place);
        if unallocated {
            self.bug = Some("a value read without a local".into());
            return;
        }
        if longer == 0 {
            return;
        }
        // The others: the code copied with them put in.
        let (code, out) = (&b.code[..], &mut b.placed);
        out.clear();
        out.reserve(code.len() + longer);
        let mut s = 0;
        for &(at, x) in b.relocs.iter().filter(|r| r.1 < VIRTUAL) {
            let at = at as usize;
            out.extend_from_slice(&code[s..at]);
            // Mostly two bytes, written directly, inline (`out` has room
            // for all: the call's register saves were most of its cost).
            put_uleb32_in_room(out, x);
            s = at + 1;
        }
        out.extend_from_slice(&code[s..]);
        std::mem::swap(&mut b.code, &mut b.placed);
        let relocs = &b.relocs[..];
        move_offsets(relocs, b.sig_fixups.iter_mut().map(|s| &mut s.0));
        move_offsets(relocs, b.call_sites.iter_mut().map(|c| &mut c.0));
    }

    /// A read of value `i`'s local at the current position.
    #[inline(always)]
    pub(super) fn touch_value(&mut self, i: u32) {
        let p = self.pos;
        if let Some(l) = self.b.locals.live.get_mut(i as usize) {
            l.touch(p);
        }
    }

    /// The definition of value `i` at the current position.
    #[inline(always)]
    pub(super) fn touch_def(&mut self, i: u32) {
        let p = self.pos;
        let lb = &mut self.b.locals;
        if let Some(l) = lb.live.get_mut(i as usize) {
            // An instruction's result, defined once, and not read at its
            // own position: it starts here unless read before.
            if l.start == NONE {
                (l.start, l.def) = (p, p);
                lb.started.push(i);
            } else {
                l.def = l.def.min(p);
            }
            l.end = p;
        }
    }

    /// Operands `pushes[from..to]` of a later instruction, pushed before
    /// a folded operand's tree: the dry walk numbers them read at that
    /// instruction's position, so they are touched there.
    pub(super) fn note_prepushed(&mut self, from: u32, to: u32) {
        self.b.locals.prepushed.push((from, to));
    }

    /// Whether the last noted pre-push is among `pushes[from..to]` (then
    /// [`Fx::touch_prepushed`] has some to touch; most instructions with
    /// folded operands have none, and are spared the call).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn has_prepushed(&self, from: u32, to: u32) -> bool {
        self.b.locals.prepushed.last().is_some_and(|&(s, e)| s >= from && e <= to)
    }

    /// Touches the noted pre-pushes among `pushes[from..to]`, those of the
    /// instruction at the current position. They are the last noted: the
    /// instructions between a tree's first one and its user belong to the
    /// user's folded trees, so a pre-push noted there is either the user's
    /// or that of an instruction inside, emitted (and its pre-pushes
    /// touched) before the user; those below are of users further on, whose
    /// pushes come after `to`.
    #[inline(never)]
    pub(super) fn touch_prepushed(&mut self, from: u32, to: u32) {
        let first = self.f.first_local;
        let p = self.pos;
        let b = &mut *self.b;
        let LocalBuffers { prepushed, live, .. } = &mut b.locals;
        let (vals, pushes) = (&b.vals, &b.pushes);
        while let Some(&(s, e)) = prepushed.last() {
            if s < from || e > to {
                debug_assert!(!prepushed.iter().any(|&(s, e)| s >= from && e <= to), "a pre-push below another user's");
                break;
            }
            prepushed.pop();
            for push in pushes.get(s as usize..e as usize).unwrap_or(&[]) {
                let i = resolve_in(vals, first, push.value).0.wrapping_sub(first);
                if let Some(Kind::Local(l)) = vals.get(i as usize).map(|v| v.kind) {
                    if l >= VIRTUAL {
                        live[i as usize].touch(p);
                    }
                }
            }
        }
    }

    /// A `loop` opens at the current position (while emission numbers).
    pub(super) fn loop_opens(&mut self) -> u32 {
        let lb = &mut self.b.locals;
        let li = lb.loops.len() as u32;
        lb.loops.push(LoopSpan { start: self.pos, end: NONE, parent: self.cur_loop });
        self.cur_loop = li;
        lb.loop_marks.push((self.pos, li));
        li
    }

    /// Loop `li` ends at the current position.
    pub(super) fn loop_closes(&mut self, li: u32) {
        let lb = &mut self.b.locals;
        if let Some(l) = lb.loops.get_mut(li as usize) {
            l.end = self.pos;
            self.cur_loop = l.parent;
            lb.loop_marks.push((self.pos, self.cur_loop));
        }
    }

    /// Exits of `from` that emission takes no code for (plain branches, and
    /// those sharing another's wrapper): their positions, and the phi
    /// copies of those that have some, as the dry walk numbers them.
    pub(super) fn skip_exits(&mut self, from: u32, exits: &[Exit]) {
        if from == NONE || !self.virtual_locals {
            return;
        }
        for e in exits {
            self.touch_edge(from, e.target);
            self.pos += 1;
        }
    }

    /// The phi copies of edge `from → target` at the current position.
    pub(super) fn touch_edge(&mut self, from: u32, target: u32) {
        if let Some((s, e)) = self.edge_copy_range(from, target) {
            self.touch_copies_here(s, e);
        }
    }

    /// The source `src` of an edge's phi copy, not pushed (its phi has no
    /// local), at the current position (as [`touch_copy_range`] does).
    pub(super) fn touch_source(&mut self, src: ValueId) {
        self.touch_value(src.0.wrapping_sub(self.f.first_local));
    }

    /// The phi `dv` an edge's copy defines, at the current position (as
    /// [`touch_copy_range`] does, after its source).
    #[inline(always)]
    pub(super) fn touch_phi_def(&mut self, dv: ValueId) {
        let i = dv.0.wrapping_sub(self.f.first_local);
        let p = self.pos;
        let lb = &mut self.b.locals;
        if let Some(l) = lb.live.get_mut(i as usize) {
            l.touch_def(p, i, &mut lb.started);
        }
    }

    /// Checks what `emit_phi_copies` relies on to touch the sources of
    /// copies `b.edge_copies[s..e]` by pushing them: each source the scan
    /// reads (one with a [`VIRTUAL`] local) was touched at the current
    /// position.
    pub(super) fn check_sources_touched(&self, s: usize, e: usize) {
        let first = self.f.first_local;
        for &(_, src) in &self.b.edge_copies[s..e] {
            let i = src.0.wrapping_sub(first) as usize;
            if let (Some(Kind::Local(l)), Some(live)) = (self.b.vals.get(i).map(|v| v.kind), self.b.locals.live.get(i)) {
                assert!(l < VIRTUAL || live.end == self.pos, "phi copy source %v{} not touched at its edge", src.0);
            }
        }
    }

    /// Copies `b.edge_copies[s..e]` at the current position.
    pub(super) fn touch_copies_here(&mut self, s: usize, e: usize) {
        let b = &mut *self.b;
        let lb = &mut b.locals;
        touch_copy_range(&b.edge_copies[s..e], self.f.first_local, self.pos, &mut lb.live, &mut lb.started);
    }

    /// Gives each value that needs a local its local (`Kind::Local`) from
    /// the intervals over `npos` positions.
    fn allocate(&mut self, npos: u32) {
        let b = &mut *self.b;
        let lb = &mut b.locals;
        if lb.need.is_empty() {
            // No value needs a local (every value folded or unused): the
            // scan would assign nothing and count no slot, and no code
            // looks a value's local up. The buffers are left as the scan
            // leaves them for the next body (`end_heads` all `NONE`; `free`,
            // `typed` and `moved` are cleared before they are read).
            self.num_value_locals = 0;
            b.local_counts = [0; 5];
            return;
        }
        // Not reset: scan writes the entry of every value in `need`, and only
        // those have a `VIRTUAL` local for `place_locals` to look up (a reset
        // was a memset of the whole array per body). Grown only: sized to
        // each body, the part past a smaller one's was filled again.
        if lb.local_of.len() < b.vals.len() {
            lb.local_of.resize(b.vals.len(), NONE);
        }
        if lb.end_heads.len() <= npos as usize {
            lb.end_heads.resize(npos as usize + 1, NONE);
        }
        lb.active.clear();
        lb.active.resize(npos as usize / 64 + 1, 0);
        lb.moved.clear();
        // A body without loops whose every value starts at its definition
        // (listed in `started`, which holds only values of `need`, each
        // once, with `start == def`) has nothing to move: the loop below
        // would leave every interval as it is (most loop-free bodies).
        let all_started = lb.started.len() == lb.need.len();
        if cfg!(any(test, debug_assertions)) && all_started {
            let starts_at_def = |&i: &u32| lb.live.get(i as usize).is_some_and(|l| l.def != NONE && l.start == l.def);
            assert!(lb.need.iter().all(starts_at_def), "a value listed as started does not start at its definition");
        }
        let one_loop = lb.one_loop();
        if self.has_setjmp || !lb.loop_at.is_empty() || one_loop.is_some() || !all_started {
            // Intervals widened over loops. A value read before its
            // definition in emission order, or never defined there, gets a
            // local of its own (`end == NONE`), taken at position 0. Those
            // and the values widened to an earlier start are `moved` (their
            // `def` set to `NONE`: the scan passes them in `started`).
            let LocalBuffers { live, loops, loop_at, need, moved, .. } = lb;
            // (Slices: their pointers and lengths stay in registers across
            // the pushes and calls.)
            let (live, loops, loop_at) = (&mut live[..], &loops[..], &loop_at[..]);
            // (Without loops nothing widens: `loop_at` is empty.)
            let (own_all, has_loops) = (self.has_setjmp, !loop_at.is_empty());
            // Every value listed as started (`all_started`): none is read
            // before its definition, and their tests are spared.
            let some_own = own_all || !all_started;
            if let Some(span) = one_loop {
                // The same, with the one loop's span for `loop_at`.
                for &i in need.iter() {
                    let Some(l) = live.get_mut(i as usize) else { continue };
                    if some_own && (own_all || l.def == NONE || l.start < l.def) {
                        (l.end, l.def) = (NONE, NONE);
                        moved.push(i as u64);
                    } else {
                        let (s, e) = widen_one(span, l.start, l.end);
                        l.end = e;
                        if s != l.start {
                            (l.start, l.def) = (s, NONE);
                            moved.push((s as u64) << 32 | i as u64);
                        }
                    }
                }
            } else {
                for &i in need.iter() {
                    let Some(l) = live.get_mut(i as usize) else { continue };
                    if some_own && (own_all || l.def == NONE || l.start < l.def) {
                        (l.end, l.def) = (NONE, NONE);
                        moved.push(i as u64);
                    } else if has_loops && loop_at.get(l.start as usize) != loop_at.get(l.end as usize) {
                        // (Both ends in the same loop, or in none, the most
                        // often: nothing to widen, and no call.)
                        let (s, e) = widen(loops, loop_at, l.start, l.end);
                        l.end = e;
                        if s != l.start {
                            (l.start, l.def) = (s, NONE);
                            moved.push((s as u64) << 32 | i as u64);
                        }
                    }
                }
            }
            // Few: own locals, and values live across a loop's start.
            moved.sort_unstable();
        }
        let slots = scan(lb, self.num_params);
        let mut base = [0u32; 5];
        let mut next = self.num_params;
        for t in 0..5 {
            base[t] = next;
            next += slots[t];
        }
        for &i in &lb.typed {
            let l = lb.live[i as usize];
            lb.local_of[i as usize] = base[l.t as usize] + l.start;
        }
        if !self.virtual_locals {
            // Emission is still to come: it reads each value's `Kind`
            // (place_locals reads `local_of`).
            for &i in &lb.need {
                if let Some(&x) = lb.local_of.get(i as usize) {
                    b.vals[i as usize].kind = Kind::Local(x);
                }
            }
        }
        self.num_value_locals = next - self.num_params;
        b.local_counts = slots;
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
        fill_loop_at(lb, npos);
        npos
    }

    /// Marks the phi copies of edge `from → target` at position `p`: each
    /// live phi is written, each source read.
    fn touch_copies(&mut self, from: u32, target: u32, p: u32, lb: &mut LocalBuffers) {
        if let Some((s, e)) = self.edge_copy_range(from, target) {
            touch_copy_range(&self.b.edge_copies[s..e], self.f.first_local, p, &mut lb.live, &mut lb.started);
        }
    }

    /// The range of `b.edge_copies` of edge `from → target`, if the target
    /// has phis.
    #[inline]
    fn edge_copy_range(&mut self, from: u32, target: u32) -> Option<(usize, usize)> {
        let tv = self.b.vblocks.get(target as usize)?;
        if !tv.first_part || !self.b.has_phis.get(target as usize).copied().unwrap_or(false) {
            return None;
        }
        let to = tv.orig;
        let pred = self.b.vblocks.get(from as usize)?.orig;
        Some(self.edge_copies(pred, to))
    }
}

/// Marks `copies` (phi, source) at position `p`.
fn touch_copy_range(copies: &[(ValueId, ValueId)], first: u32, p: u32, live: &mut [Live], started: &mut Vec<u32>) {
    for &(dv, src) in copies {
        if let Some(l) = live.get_mut(src.0.wrapping_sub(first) as usize) {
            l.touch(p);
        }
        if let Some(l) = live.get_mut(dv.0.wrapping_sub(first) as usize) {
            l.touch_def(p, dv.0.wrapping_sub(first), started);
        }
    }
}

/// The linear scan: gives each value a slot of its type, the first free
/// one unless it has a local of its own, kept in its `live` as its
/// `start`; returns the number of slots per type. The values are taken by
/// (start, value), `started` and `moved` merged; before each, the slots of
/// the intervals ending before its start are freed. An i32 value's local
/// is `first + slot` (i32 locals come first); the others are listed in
/// `typed`, to be rebased once all counts are known. Its own function so
/// that the walk keeps its registers.
#[inline(never)]
fn scan(lb: &mut LocalBuffers, first: u32) -> [u32; 5] {
    let in_order = lb.moved.is_empty();
    scan_as(lb, first, in_order)
}

/// [`scan`], taking `started` in its order when `in_order` (which needs
/// `moved` empty), else merging the two lists (tests compare the two).
#[inline(always)]
fn scan_as(lb: &mut LocalBuffers, first: u32, in_order: bool) -> [u32; 5] {
    let (mut sc, started, moved) = Scan::over(lb, first);
    if in_order {
        // Nothing moved (a body without loops but a few, and those with
        // loops where no interval widens to an earlier start):
        // `started` in its order, as the merge below takes it, without
        // the keys.
        for &i in started.iter() {
            if let Some(&Live { def, .. }) = sc.live.get(i as usize).filter(|l| l.def != NONE) {
                sc.assign(i, def);
            }
        }
        sc.reset_unreached_ends();
        return sc.slots;
    }
    // The two lists merged, by `start << 32 | value` (`u64::MAX`: none
    // left); values `moved` have no `def`, and are passed in `started`.
    let mut moved = moved.iter().copied();
    let mut next_moved = moved.next().unwrap_or(u64::MAX);
    let mut started = started.iter();
    let mut next_started = |live: &[Live]| loop {
        let Some(&i) = started.next() else { break u64::MAX };
        if let Some(l) = live.get(i as usize).filter(|l| l.def != NONE) {
            break (l.def as u64) << 32 | i as u64;
        }
    };
    let mut next_defined = next_started(sc.live);
    loop {
        let key = if next_moved < next_defined {
            std::mem::replace(&mut next_moved, moved.next().unwrap_or(u64::MAX))
        } else if next_defined != u64::MAX {
            let key = next_defined;
            next_defined = next_started(sc.live);
            debug_assert!(key < next_defined, "started out of order");
            key
        } else {
            break;
        };
        sc.assign(key as u32, (key >> 32) as u32);
    }
    sc.reset_unreached_ends();
    sc.slots
}

/// The scan's state and buffers.
struct Scan<'b> {
    /// Slots per type so far.
    slots: [u32; 5],
    /// No end still listed lies below it.
    low: usize,
    live: &'b mut [Live],
    end_heads: &'b mut [u32],
    active: &'b mut [u64],
    local_of: &'b mut [u32],
    free: &'b mut [Vec<u32>; 5],
    typed: &'b mut Vec<u32>,
    first: u32,
}

impl<'b> Scan<'b> {
    /// A scan over `lb`'s buffers, its free lists emptied, with the lists
    /// it takes the values from (`started`, `moved`).
    #[inline(always)]
    fn over(lb: &'b mut LocalBuffers, first: u32) -> (Self, &'b [u32], &'b [u64]) {
        let LocalBuffers { live, end_heads, active, free, typed, local_of, started, moved, .. } = lb;
        for f in free.iter_mut() {
            f.clear();
        }
        typed.clear();
        // (Slices: their pointers and lengths stay put across the pushes.)
        let sc = Scan {
            slots: [0; 5],
            low: 0,
            live: &mut live[..],
            end_heads: &mut end_heads[..],
            active: &mut active[..],
            local_of: &mut local_of[..],
            free,
            typed,
            first,
        };
        (sc, started, moved)
    }

    /// Resets the end lists past the last start, which the scan never
    /// reached (`end_heads` is all `NONE` between bodies).
    fn reset_unreached_ends(&mut self) {
        for (w, x) in self.active.iter_mut().enumerate().skip(self.low / 64) {
            while *x != 0 {
                if let Some(h) = self.end_heads.get_mut(w * 64 + x.trailing_zeros() as usize) {
                    *h = NONE;
                }
                *x &= *x - 1;
            }
        }
    }

    /// Gives value `i`, starting at `s`, its slot (kept as its `start`),
    /// once the slots of the intervals ending before `s` are free, and
    /// lists it by its end.
    #[inline(always)]
    fn assign(&mut self, i: u32, s: u32) {
        if self.low < s as usize {
            self.free_before(s as usize);
        }
        let Some(l) = self.live.get_mut(i as usize) else { return };
        let t = l.t as usize;
        let Some(slots) = self.slots.get_mut(t) else { return };
        let slot = if l.end == NONE {
            *slots += 1;
            *slots - 1
        } else {
            let slot = self.free[t].pop().unwrap_or_else(|| {
                *slots += 1;
                *slots - 1
            });
            // The end spent: it links the list of those ending there.
            let e = l.end as usize;
            if let Some(head) = self.end_heads.get_mut(e) {
                l.end = std::mem::replace(head, i);
                if let Some(x) = self.active.get_mut(e / 64) {
                    *x |= 1 << (e % 64);
                }
                self.low = self.low.min(e);
            }
            slot
        };
        l.start = slot;
        if t == 0 {
            if let Some(x) = self.local_of.get_mut(i as usize) {
                *x = self.first + slot;
            }
        } else {
            self.typed.push(i);
        }
    }

    /// Frees the slots of the intervals ending before `s`, position by
    /// position; `low` ends at the next end listed, or at `s`'s word.
    #[inline(always)]
    fn free_before(&mut self, s: usize) {
        while self.low < s {
            let w = self.low / 64;
            let Some(word) = self.active.get_mut(w) else { break };
            // (No bit below `low` is set.)
            if *word == 0 {
                self.low = (w + 1) * 64;
                continue;
            }
            let p = w * 64 + word.trailing_zeros() as usize;
            if p >= s {
                self.low = p;
                break;
            }
            *word &= *word - 1;
            self.low = p + 1;
            // In order of slot (per type; a min-heap of (end, slot) per
            // type gave the same order at a log factor).
            let e = std::mem::replace(&mut self.end_heads[p], NONE);
            let Some(&l) = self.live.get(e as usize) else { continue };
            if l.end == NONE {
                if let Some(f) = self.free.get_mut(l.t as usize) {
                    f.push(l.start);
                }
            } else {
                free_list(e, self.live, self.free);
            }
        }
    }
}

/// Frees the slots of the list of intervals from `e` ending at one
/// position (more than one: the rarer case, out of line), each type's in
/// increasing order.
#[inline(never)]
fn free_list(e: u32, live: &[Live], free: &mut [Vec<u32>; 5]) {
    // Two intervals (most such lists): the order the sort below gives them
    // (one type: the lower slot first; two: one each), without the sort.
    if let Some((&a, &b)) = live.get(e as usize).and_then(|a| Some((a, live.get(a.end as usize)?))) {
        if live.get(b.end as usize).is_none() {
            if a.t == b.t {
                if let Some(f) = free.get_mut(a.t as usize) {
                    f.extend_from_slice(&[a.start.min(b.start), a.start.max(b.start)]);
                }
            } else {
                for l in [a, b] {
                    if let Some(f) = free.get_mut(l.t as usize) {
                        f.push(l.start);
                    }
                }
            }
            return;
        }
    }
    if !free_few(e, live, free) {
        free_sorted(e, live, free);
    }
}

/// [`free_sorted`] of a list of at most eight intervals (a cap of four
/// took slightly more in all): the list's (type, slot) pairs sorted on
/// the stack, then pushed, which leaves each type's slots in increasing
/// order after those it held, as the per-type sorts do, without a sort
/// call per type met; `false` (and nothing freed) for a longer list.
#[inline(always)]
fn free_few(mut e: u32, live: &[Live], free: &mut [Vec<u32>; 5]) -> bool {
    let mut items = [0u64; 8];
    let mut k = 0;
    while let Some(&l) = live.get(e as usize) {
        let Some(x) = items.get_mut(k) else { return false };
        *x = (l.t as u64) << 32 | l.start as u64;
        k += 1;
        e = l.end;
    }
    let items = &mut items[..k];
    // Insertion sort: a few items.
    for a in 1..items.len() {
        let v = items[a];
        let mut b = a;
        while b > 0 && items[b - 1] > v {
            items[b] = items[b - 1];
            b -= 1;
        }
        items[b] = v;
    }
    for &v in items.iter() {
        if let Some(f) = free.get_mut((v >> 32) as usize) {
            f.push(v as u32);
        }
    }
    true
}

/// [`free_list`] of any length: each type's slots pushed, then sorted.
#[cfg_attr(not(test), inline(always))]
fn free_sorted(mut e: u32, live: &[Live], free: &mut [Vec<u32>; 5]) {
    let from = free.each_ref().map(|f| f.len());
    while let Some(&l) = live.get(e as usize) {
        if let Some(f) = free.get_mut(l.t as usize) {
            f.push(l.start);
        }
        e = l.end;
    }
    for (f, from) in free.iter_mut().zip(from) {
        if let Some(tail) = f.get_mut(from..).filter(|t| t.len() > 1) {
            tail.sort_unstable();
        }
    }
}

/// The innermost loop of each of the `npos` positions, from the marks at
/// the loop boundaries (one fill per boundary, not one per block).
fn fill_loop_at(lb: &mut LocalBuffers, npos: u32) {
    lb.loop_at.clear();
    if lb.loop_marks.is_empty() || lb.one_loop().is_some() {
        // No loop: left empty, every position reads as in none. One loop:
        // `allocate` reads its span instead (`widen_one`).
        return;
    }
    let mut cur = NONE;
    for &(p, l) in &lb.loop_marks {
        lb.loop_at.resize(p as usize, cur);
        cur = l;
    }
    lb.loop_at.resize(npos as usize, cur);
}

impl LocalBuffers {
    /// The span of the body's loop when it has exactly one, opened and
    /// closed: a position is in it when inside the span, so no table of the
    /// innermost loop per position is filled.
    fn one_loop(&self) -> Option<LoopSpan> {
        match (&self.loops[..], self.loop_marks.len()) {
            (&[span], 2) if span.end != NONE => Some(span),
            _ => None,
        }
    }
}

/// `[s, e]` as `allocate` leaves it in a body whose one loop is `span`
/// (calling [`widen`] only when one end is in the loop and the other not):
/// an interval starting in the loop and ending after it starts at the
/// loop's start, and one starting before it and ending in it ends at the
/// loop's end (the first position after it), as `widen`'s walks give in
/// one and two passes (checked against it in the tests).
#[inline(always)]
fn widen_one(span: LoopSpan, s: u32, e: u32) -> (u32, u32) {
    let inside = |p: u32| span.start <= p && p < span.end;
    match (inside(s), inside(e)) {
        (true, false) => (span.start, e),
        (false, true) => (s, span.end),
        _ => (s, e),
    }
}

/// Whether some loop of `tree` holds another (only such loops are
/// outlined, see `outline.rs`).
fn has_loop_nest(tree: &Structured) -> bool {
    // (body, inside a loop)
    let mut stack = vec![(tree.body, false)];
    while let Some((body, in_loop)) = stack.pop() {
        for node in tree.nodes_of(body) {
            match *node {
                Node::Block { body, .. } => stack.push((body, in_loop)),
                Node::Loop { body, .. } => {
                    if in_loop {
                        return true;
                    }
                    stack.push((body, true));
                }
                Node::Basic { exits, .. } | Node::Dispatch { exits, .. } => {
                    for e in tree.exits_of(exits) {
                        if let ExitHow::Inline(body) = e.how {
                            stack.push((body, in_loop));
                        }
                    }
                }
            }
        }
    }
    false
}

/// Widens `[s, e]` until no loop holds part of it: a value live on both
/// sides of a loop boundary is live around the whole loop.
#[inline(never)]
fn widen(loops: &[LoopSpan], loop_at: &[u32], mut s: u32, mut e: u32) -> (u32, u32) {
    let innermost = |p: u32| loop_at.get(p as usize).copied().unwrap_or(NONE);
    if innermost(s) == innermost(e) {
        // Both ends in the same loop (or in none): every loop around one
        // holds the other, and any loop between lies wholly inside.
        return (s, e);
    }
    // Each walk stops at the first loop it leaves as it is: the loops
    // around a position nest, so going out their ends only grow and their
    // starts only fall, and neither walk moves the end the first tests
    // (nor the start the second tests): every loop further out fails too.
    loop {
        let mut l = innermost(s);
        while let Some(&span) = loops.get(l as usize) {
            if span.end > e {
                break;
            }
            s = s.min(span.start);
            l = span.parent;
        }
        let e0 = e;
        let mut l = innermost(e);
        while let Some(&span) = loops.get(l as usize) {
            if span.start <= s {
                break;
            }
            e = e.max(span.end);
            l = span.parent;
        }
        // The end unmoved, another pass moves nothing: `s` is now the
        // start of the outermost loop around the old `s` ending by `e`
        // (the loops around the new `s` are it, those around it, and
        // those inside it starting there), so the first walk finds it again.
        if e == e0 {
            return (s, e);
        }
    }
}

/// Moves each of `offsets` (in code order) past the bytes the indices put
/// in at or before it took beyond their placeholder.
fn move_offsets<'o>(relocs: &[(u32, u32)], offsets: impl Iterator<Item = &'o mut usize>) {
    let (mut k, mut delta) = (0, 0);
    for at in offsets {
        while let Some(&(_, l)) = relocs.get(k).filter(|r| r.0 as usize <= *at) {
            // Those still VIRTUAL went in their placeholder.
            delta += if l < VIRTUAL { leb_len(l) - 1 } else { 0 };
            k += 1;
        }
        *at += delta;
    }
}

#[cfg(test)]
mod tests {
    use super::{fill_loop_at, free_few, free_list, free_sorted, scan_as, widen, widen_one, Live, LocalBuffers, LoopSpan, Scan, NONE};

    /// `free_few` frees a list of up to eight intervals as `free_sorted`
    /// does (random types and distinct slots, onto lists holding slots
    /// already), and declines a longer one, freeing nothing.
    #[test]
    fn few_ends_free_as_sorted() {
        let mut next = crate::test_rng(0x9e6c_63d0_676a_9a99);
        for _ in 0..2000 {
            let k = 1 + next(10) as usize;
            // Entry `i` links to entry `i - 1`; the list starts at the last.
            let mut slots: Vec<u32> = (0..20).collect();
            let live: Vec<Live> = (0..k as u32)
                .map(|i| {
                    let slot = slots.swap_remove(next(slots.len() as u64) as usize);
                    Live { start: slot, end: i.wrapping_sub(1), def: NONE, t: next(5) as u32 }
                })
                .collect();
            let base: [Vec<u32>; 5] = [vec![25], vec![], vec![24, 30], vec![], vec![21]];
            let (mut few, mut sorted) = (base.clone(), base.clone());
            let done = free_few(k as u32 - 1, &live, &mut few);
            free_sorted(k as u32 - 1, &live, &mut sorted);
            if k <= 8 {
                assert!(done);
                assert_eq!(few, sorted, "{live:?}");
            } else {
                assert!(!done);
                assert_eq!(few, base);
            }
        }
    }

    /// With nothing moved, the scan taking `started` in its order gives
    /// every value the slot the merge gives it, and leaves the buffers as
    /// it does, on random intervals of the five types.
    #[test]
    fn scan_in_order_as_merged() {
        let mut next = crate::test_rng(0x5851_f42d_4c95_7f2d);
        for _ in 0..500 {
            let n = 1 + next(60) as usize;
            // Starts in the order of the values (a position defines one
            // value, or several phis); ends a little or far on.
            let mut live = Vec::new();
            let mut p = 0u32;
            for _ in 0..n {
                p += (next(3) == 0) as u32;
                let end = p + if next(4) == 0 { next(40) } else { next(4) } as u32;
                live.push(Live { start: p, end, def: p, t: next(5) as u32 });
            }
            let npos = live.iter().map(|l| l.end).max().unwrap_or(0) + 1;
            let fresh = || LocalBuffers {
                live: live.clone(),
                end_heads: vec![NONE; npos as usize + 1],
                active: vec![0; npos as usize / 64 + 1],
                local_of: vec![NONE; n],
                started: (0..n as u32).collect(),
                ..Default::default()
            };
            let (mut ordered, mut merged) = (fresh(), fresh());
            let slots = scan_as(&mut ordered, 7, true);
            assert_eq!(slots, scan_as(&mut merged, 7, false));
            let starts = |lb: &LocalBuffers| lb.live.iter().map(|l| (l.start, l.end)).collect::<Vec<_>>();
            assert_eq!(starts(&ordered), starts(&merged));
            assert_eq!(ordered.local_of, merged.local_of);
            assert_eq!(ordered.typed, merged.typed);
            assert_eq!(ordered.free, merged.free);
            assert!(ordered.end_heads.iter().all(|&h| h == NONE) && merged.end_heads.iter().all(|&h| h == NONE));
            assert!(ordered.active.iter().all(|&w| w == 0) && merged.active.iter().all(|&w| w == 0));
        }
    }

    /// The scan taking every value by its key, `start << 32 | value`, from
    /// one sorted list: what merging `moved` into `started` must give.
    fn scan_by_sorted_keys(lb: &mut LocalBuffers, first: u32) -> [u32; 5] {
        let def = |i: u32| lb.live[i as usize].def;
        let mut keys: Vec<u64> = lb.started.iter().filter(|&&i| def(i) != NONE).map(|&i| (def(i) as u64) << 32 | i as u64).collect();
        keys.extend_from_slice(&lb.moved);
        keys.sort_unstable();
        let (mut sc, _, _) = Scan::over(lb, first);
        for key in keys {
            sc.assign(key as u32, (key >> 32) as u32);
        }
        sc.reset_unreached_ends();
        sc.slots
    }

    /// With values moved (own locals, taken at position 0, and intervals
    /// widened to an earlier start), the scan's merge gives every value
    /// the slot taking all by key from one sorted list gives it, and leaves
    /// the buffers as it does, on random intervals of the five types.
    #[test]
    fn moved_merge_as_sorted_keys() {
        let mut next = crate::test_rng(0x6a09_e667_f3bc_c908);
        for _ in 0..500 {
            let n = 1 + next(60) as usize;
            let (mut live, mut moved, mut started) = (Vec::new(), Vec::new(), Vec::new());
            let mut p = 0u32;
            for i in 0..n as u32 {
                p += (next(3) == 0) as u32;
                let end = p + if next(4) == 0 { next(40) } else { next(4) } as u32;
                let t = next(5) as u32;
                match next(8) {
                    // A local of its own (listed as started or not).
                    0 => {
                        live.push(Live { start: p, end: NONE, def: NONE, t });
                        moved.push(i as u64);
                        if next(2) == 0 {
                            started.push(i);
                        }
                    }
                    // Widened to an earlier start (and maybe a later end).
                    1 => {
                        let s = p.saturating_sub(next(10) as u32);
                        live.push(Live { start: s, end: end + next(5) as u32, def: NONE, t });
                        moved.push((s as u64) << 32 | i as u64);
                        started.push(i);
                    }
                    _ => {
                        live.push(Live { start: p, end, def: p, t });
                        started.push(i);
                    }
                }
            }
            moved.sort_unstable();
            let npos = live.iter().filter(|l| l.end != NONE).map(|l| l.end).max().unwrap_or(0) + 1;
            let fresh = || LocalBuffers {
                live: live.clone(),
                end_heads: vec![NONE; npos as usize + 1],
                active: vec![0; npos as usize / 64 + 1],
                local_of: vec![NONE; n],
                started: started.clone(),
                moved: moved.clone(),
                ..Default::default()
            };
            let (mut merged, mut sorted) = (fresh(), fresh());
            let slots = scan_as(&mut merged, 7, false);
            assert_eq!(slots, scan_by_sorted_keys(&mut sorted, 7));
            let starts = |lb: &LocalBuffers| lb.live.iter().map(|l| (l.start, l.end)).collect::<Vec<_>>();
            assert_eq!(starts(&merged), starts(&sorted));
            assert_eq!(merged.local_of, sorted.local_of);
            assert_eq!(merged.typed, sorted.typed);
            assert_eq!(merged.free, sorted.free);
            assert!(merged.end_heads.iter().all(|&h| h == NONE));
            assert!(merged.active.iter().all(|&w| w == 0));
        }
    }

    /// The innermost loop per position from `marks`, as `fill_loop_at`
    /// fills it for a body of several loops.
    fn loop_table(marks: &[(u32, u32)], npos: u32) -> Vec<u32> {
        let (mut cur, mut table) = (NONE, Vec::new());
        for &(p, l) in marks {
            table.resize(p as usize, cur);
            cur = l;
        }
        table.resize(npos as usize, cur);
        table
    }

    /// `widen` as it was before its walks stopped early: each walk goes
    /// out to the outermost loop.
    fn widen_full_walks(loops: &[LoopSpan], loop_at: &[u32], mut s: u32, mut e: u32) -> (u32, u32) {
        let innermost = |p: u32| loop_at.get(p as usize).copied().unwrap_or(NONE);
        if innermost(s) == innermost(e) {
            return (s, e);
        }
        loop {
            let mut l = innermost(s);
            while let Some(&span) = loops.get(l as usize) {
                if span.end <= e {
                    s = s.min(span.start);
                    e = e.max(span.end);
                }
                l = span.parent;
            }
            let e0 = e;
            let mut l = innermost(e);
            while let Some(&span) = loops.get(l as usize) {
                if span.start > s {
                    s = s.min(span.start);
                    e = e.max(span.end);
                }
                l = span.parent;
            }
            if e == e0 {
                return (s, e);
            }
        }
    }

    /// `widen`'s walks, stopping at the first loop that fails their test,
    /// give what walking out to the outermost loop gives, for every
    /// interval of random loop nests (opened and closed as emission does,
    /// several at one position included).
    #[test]
    fn widen_stops_early_as_the_full_walks() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..300 {
            let (mut loops, mut marks, mut open) = (Vec::new(), Vec::new(), Vec::new());
            let mut p = 0u32;
            for _ in 0..40 {
                match next(4) {
                    0 => {
                        let li = loops.len() as u32;
                        loops.push(LoopSpan { start: p, end: NONE, parent: open.last().copied().unwrap_or(NONE) });
                        open.push(li);
                        marks.push((p, li));
                    }
                    1 => {
                        if let Some(li) = open.pop() {
                            loops[li as usize].end = p;
                            marks.push((p, open.last().copied().unwrap_or(NONE)));
                        }
                    }
                    _ => p += 1,
                }
            }
            while let Some(li) = open.pop() {
                loops[li as usize].end = p;
                marks.push((p, open.last().copied().unwrap_or(NONE)));
            }
            let table = loop_table(&marks, p);
            for s in 0..=p {
                for e in s..=p {
                    assert_eq!(widen(&loops, &table, s, e), widen_full_walks(&loops, &table, s, e), "{loops:?}, {s}..={e}");
                }
            }
        }
    }

    /// A body with one loop: `widen_one` gives every interval what the
    /// per-position table and `widen` give it (called when its ends lie in
    /// different loops), whatever the loop's span, ends at `npos` included.
    #[test]
    fn one_loop_widens_as_the_table() {
        let npos = 12;
        for start in 0..npos {
            for end in start + 1..=npos {
                let span = LoopSpan { start, end, parent: NONE };
                let mut lb = LocalBuffers { loops: vec![span], loop_marks: vec![(start, 0), (end, NONE)], ..Default::default() };
                assert_eq!(lb.one_loop().map(|l| (l.start, l.end)), Some((start, end)));
                // The general path's table, filled as for several loops.
                let table = loop_table(&lb.loop_marks, npos);
                fill_loop_at(&mut lb, npos);
                assert!(lb.loop_at.is_empty());
                for s in 0..=npos {
                    for e in s..=npos {
                        let general = if table.get(s as usize) != table.get(e as usize) {
                            widen(&lb.loops, &table, s, e)
                        } else {
                            (s, e)
                        };
                        assert_eq!(widen_one(span, s, e), general, "loop {start}..{end}, interval {s}..={e}");
                    }
                }
            }
        }
    }

    /// `free_list`'s two-interval path leaves the free lists as the sort
    /// does, for every pair of types and slot order, onto lists holding
    /// slots already.
    #[test]
    fn two_ends_free_as_sorted() {
        for (ta, tb) in (0..5).flat_map(|a| (0..5).map(move |b| (a, b))) {
            for (sa, sb) in [(0, 1), (1, 0), (3, 7), (7, 3), (2, 2)] {
                // The list: entry 2, linked to entry 0 (entry 1 is not in it).
                let live = [
                    Live { start: sb, end: NONE, def: NONE, t: tb },
                    Live { start: 9, end: NONE, def: NONE, t: 0 },
                    Live { start: sa, end: 0, def: NONE, t: ta },
                ];
                let base: [Vec<u32>; 5] = [vec![5], vec![], vec![4, 6], vec![], vec![8]];
                let (mut fast, mut sorted) = (base.clone(), base);
                free_list(2, &live, &mut fast);
                free_sorted(2, &live, &mut sorted);
                assert_eq!(fast, sorted, "types {ta} {tb}, slots {sa} {sb}");
            }
        }
        // Longer lists take the general path.
        let live = [
            Live { start: 4, end: NONE, def: NONE, t: 1 },
            Live { start: 2, end: 0, def: NONE, t: 1 },
            Live { start: 3, end: 1, def: NONE, t: 1 },
        ];
        let mut free: [Vec<u32>; 5] = Default::default();
        free_list(2, &live, &mut free);
        assert_eq!(free[1], [2, 3, 4]);
    }
}
