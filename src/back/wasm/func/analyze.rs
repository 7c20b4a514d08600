//! What a body needs before any code is written: virtual blocks, aliases,
//! use counts, static allocas, dead code, address offsets, phi entries, and
//! which operands stay on the stack (folding and pre-pushes). See the hub's
//! docs ("How values become wasm", "Stack folding").
#[allow(unused_imports)]
use super::lower::{cmp_is_simple, vector_binop};
use super::*;

impl<'a> Fx<'a> {
    // ----------------------------------------------------------------
    // Analysis
    // ----------------------------------------------------------------

    pub(super) fn analyze(&mut self) -> Result<(), TranslateError> {
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
        b.sig_fixups.clear();
        b.call_sites.clear();
        b.setjmp_sites.clear();
        let blank = Val::BLANK;
        // Parameters and constants written once, as they are put in.
        b.vals.extend(f.params.iter().enumerate().map(|(i, &ty)| Val { ty, kind: Kind::Local(i as u32), ..blank }));
        b.vals.extend(f.consts.iter().map(|c| Val { ty: c.ty, kind: Kind::Const, ..blank }));
        b.vals.resize(nvals, blank);
        b.insts.resize(f.insts.len(), InstInfo::default());
        let (mut allocas, mut setjmp) = (0u32, false);
        b.mem_insts.clear();
        b.phi_insts.clear();
        b.aliased.clear();
        let first = f.first_local;
        // The values and instructions as slices of their own: the lists'
        // pushes cannot move them, so their starts and lengths stay in
        // registers.
        let Buffers { vals, insts: infos, mem_insts, phi_insts, aliased, cse, .. } = b;
        let vals = &mut vals[..];
        let infos = &mut infos[..];
        let mut scope = CseScope::default();
        'insts: for (k, inst) in f.insts.iter().enumerate() {
            if let Some((v, t)) = inst.result {
                // `vals` holds the `nvals` values: its own test is the range's.
                let Some(val) = vals.get_mut(v.0.wrapping_sub(first) as usize) else {
                    return Err(self.unsupported("an instruction result outside the function's values"));
                };
                val.ty = t;
            }
            // The uses of the operands of every instruction, as written: no
            // alias, dead code or absorbed add is known yet, and later
            // passes correct the counts (`move_alias_uses` first).
            let mut count = |o: ValueId, user: u32| {
                if let Some(val) = vals.get_mut(o.0.wrapping_sub(first) as usize) {
                    val.uses += 1;
                    val.user = user;
                }
            };
            // What may be an alias is found as it is met (`find_alias`),
            // from the operator tag and the operands matched here.
            let (x, y, tag) = 'pure: {
                match inst.kind {
                    InstKind::Binop { op, lhs, rhs, .. } => break 'pure (lhs, Some(rhs), op as u32),
                    InstKind::Cmp { pred, lhs, rhs } => break 'pure (lhs, Some(rhs), 13 + pred as u32),
                    InstKind::Cast { op, value, to } => {
                        // A cast that is nothing in wasm is decided by the kind
                        // just matched, and counts no use.
                        if let Some((v, _)) = inst.result {
                            let i = v.0.wrapping_sub(first) as usize;
                            let from = ty_before(f, vals, i, value);
                            if value != v && is_noop_cast(op, from, to) {
                                vals[i].alias = value.0;
                                infos[k].emit = false;
                                aliased.push(i as u32);
                                continue 'insts;
                            }
                        }
                        break 'pure (value, None, 39 + op as u32);
                    }
                    InstKind::Phi { incoming, .. } => {
                        // Uses from no instruction.
                        f.incoming(incoming).iter().for_each(|&(o, _)| count(o, NONE));
                        phi_insts.push(k as u32);
                        continue 'insts;
                    }
                    InstKind::Alloca { .. } => allocas += 1,
                    InstKind::Call { .. } => setjmp |= is_setjmp_call(self.cx, inst),
                    // The commonest kinds count their operands here, not in a
                    // second match (`for_each_operand`).
                    InstKind::Load { ptr, .. } => {
                        mem_insts.push((k as u32, ptr));
                        count(ptr, k as u32);
                        continue 'insts;
                    }
                    InstKind::Store { ptr, value, .. } => {
                        mem_insts.push((k as u32, ptr));
                        count(ptr, k as u32);
                        count(value, k as u32);
                        continue 'insts;
                    }
                    InstKind::Br { .. } => continue 'insts,
                    InstKind::CondBr { cond, .. } => {
                        count(cond, k as u32);
                        continue 'insts;
                    }
                    _ => {}
                }
                for_each_operand(f, &inst.kind, |o| count(o, k as u32));
                continue 'insts;
            };
            find_alias(f, vals, infos, cse, aliased, &mut scope, k, inst, x, y, tag);
        }
        move_alias_uses(vals, first, aliased);
        self.has_setjmp = setjmp;
        self.num_allocas = allocas;

        self.build_vblocks()?;
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
    pub(super) fn build_vblocks(&mut self) -> Result<(), TranslateError> {
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
        // Filled whole (sized up front), not block by block.
        b.vblocks.clear();
        b.vblocks.extend(f.blocks.iter().enumerate().map(|(i, blk)| VBlock {
            orig: i as u32,
            start: blk.start,
            after_phis: blk.start,
            end: blk.end,
            term: Term::Real,
            first_part: true,
        }));
        b.first_vblock.clear();
        b.first_vblock.extend(0..n as u32);
        b.succ_start.clear();
        b.succ_start.reserve(n + 1);
        b.succs.clear();
        for blk in &f.blocks {
            b.succ_start.push(b.succs.len() as u32);
            let term = &f.insts[blk.end as usize - 1];
            let mut bad = false;
            for_each_successor(f, &term.kind, |t| {
                bad |= t as usize >= n;
                b.succs.push(t);
            });
            if bad {
                return Err(self.unsupported("a branch to a block that does not exist"));
            }
        }
        b.succ_start.push(b.succs.len() as u32);
        Ok(())
    }

    /// The value `v` stands for (through aliases).
    #[inline]
    pub(super) fn resolve(&self, v: ValueId) -> ValueId {
        resolve_in(&self.b.vals, self.f.first_local, v)
    }

    /// Counts the uses of each value by instructions still emitted, and
    /// notes the last user.
    pub(super) fn count_uses(&mut self) {
        let f = self.f;
        let first = f.first_local;
        let Buffers { vals, insts, .. } = &mut *self.b;
        for v in vals.iter_mut() {
            v.uses = 0;
            v.user = NONE;
        }
        for (k, (inst, info)) in f.insts.iter().zip(insts.iter()).enumerate() {
            if !info.emit {
                continue;
            }
            let user = if matches!(inst.kind, InstKind::Phi { .. }) { NONE } else { k as u32 };
            for_each_operand(f, &inst.kind, |v| {
                let i = resolve_in(vals, first, v).0.wrapping_sub(first) as usize;
                if let Some(val) = vals.get_mut(i) {
                    val.uses += 1;
                    val.user = user;
                }
            });
        }
    }

    /// Entry-block allocas of constant size become offsets in one frame
    /// allocated on entry.
    pub(super) fn place_static_allocas(&mut self) {
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

    pub(super) fn has_frame(&self) -> bool {
        self.has_frame
    }

    /// Unused results of effect-free instructions are not computed; their
    /// operands lose a use (one backward pass).
    pub(super) fn remove_dead_code(&mut self) -> bool {
        let mut removed = false;
        let f = self.f;
        let first = f.first_local;
        // Walks the results (last first: an instruction's operands are
        // released before their definitions are looked at), so that a used
        // result, nearly all of them, costs one test.
        let first_inst = self.num_params as usize + f.consts.len();
        let mut end = self.b.vals.len();
        while end > first_inst {
            // The next unused result below `end`: a tight scan of the values.
            // Aliases (their uses moved to the value they stand for, their
            // instruction not emitted) are passed over in the scan: most
            // unused results are aliases, and the test is reached only at
            // an unused one.
            let Some(r) = last_unused(&self.b.vals[first_inst..end]) else {
                break;
            };
            let i = first_inst + r;
            end = i;
            let val = self.b.vals[i];
            let Some(id) = f.results.get(r) else { continue };
            let k = id.0 as usize;
            let Some(inst) = f.insts.get(k) else { continue };
            if inst.result.map(|(v, _)| v.0.wrapping_sub(first) as usize) != Some(i) || !self.b.insts[k].emit {
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
            for_each_operand(f, &inst.kind, |o| {
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
    pub(super) fn absorb_address_offsets(&mut self) {
        // Pass 1: how many uses of each add are load/store addresses, and
        // the last such access (an add found once answers for the others).
        // Only loads and stores qualify, and pass 2 only revisits the
        // accesses pass 1 found: what it changes (retiring adds, moving
        // uses to their bases) can make an access lose its offset form,
        // never gain one.
        if self.b.mem_insts.is_empty() {
            // Nothing to rewrite; spares clearing a count per value.
            return;
        }
        let mut counts = std::mem::take(&mut self.b.addr_uses);
        let mut found = std::mem::take(&mut self.b.addr_found);
        // Every count is (0, NONE) between bodies (those used are put back
        // at the end): none cleared per value.
        if counts.len() < self.b.vals.len() {
            counts.resize(self.b.vals.len(), (0, NONE));
        }
        found.clear();
        for &(k, ptr) in &self.b.mem_insts {
            if !self.b.insts[k as usize].emit {
                continue;
            }
            // The address's value index found once, for the look-ups below.
            let ptr = self.resolve(ptr);
            let pi = ptr.0.wrapping_sub(self.f.first_local) as usize;
            if pi >= self.b.vals.len() {
                continue;
            }
            let (n, last) = counts[pi];
            let (d, base, c) = if n > 0 {
                // The add of an earlier access: the same answer (nothing
                // it depends on changes in this pass).
                let (_, _, d, base, c) = found[last as usize];
                (d, base, c)
            } else {
                let Some((d, base, c)) = self.offset_address(pi) else { continue };
                if self.b.vals[pi].uses == 1 {
                    // Its one use is this access (most adds): rewritten now,
                    // as pass 2 would, with nothing counted or revisited.
                    // Nothing else reads what this changes: no other access
                    // has this add, and the add is no other one's base (that
                    // would be a second use). Only the base's user may be
                    // written in another order than pass 2's, and a user
                    // matters only to a value used once, whose one user
                    // this is.
                    self.b.insts[k as usize].addr = base.0;
                    self.b.insts[k as usize].offset = c;
                    self.b.insts[d].emit = false;
                    self.b.vals[pi].uses = 0;
                    if let Some(bi) = self.local_index(base) {
                        self.b.vals[bi].user = k;
                    }
                    continue;
                }
                (d as u32, base, c)
            };
            // With the entry of the add's last access so far.
            counts[pi] = (n + 1, found.len() as u32);
            found.push((k, pi as u32, d, base, c));
        }
        // Pass 2: rewrite the accesses of adds used only that way. Of what
        // `offset_address` looked at, only the flags below change here
        // (aliases, constants and types do not), so pass 1's answer stands
        // when they still hold.
        for (at, &(k, pi, d, base, c)) in found.iter().enumerate() {
            let (k, pi, d) = (k as usize, pi as usize, d as usize);
            let (n, last) = counts[pi];
            if last as usize == at {
                // Its last access: the count is read for the last time
                // (every count is (0, NONE) again at the end).
                counts[pi] = (0, NONE);
            }
            let pv = self.b.vals[pi];
            let still = self.b.insts[k].emit
                && self.b.insts[k].addr == NONE
                && self.b.insts[d].emit
                && pv.kind == Kind::None
                && !pv.pinned
                && pv.uses != 0;
            if !still || n != pv.uses {
                continue;
            }
            self.b.insts[k].addr = base.0;
            self.b.insts[k].offset = c;
            if last as usize == at {
                // The last access: retire the add. Its one use of `base`
                // becomes one use per access.
                self.b.insts[d].emit = false;
                self.b.vals[pi].uses = 0;
                if let Some(bi) = self.local_index(base) {
                    self.b.vals[bi].uses += n - 1;
                    self.b.vals[bi].user = k as u32;
                }
            }
        }
        self.b.addr_uses = counts;
        self.b.addr_found = found;
    }

    /// For a load/store address (resolved, value index `pi`) that is `add
    /// base, C`: (the add instruction, base, C). Asked once per add, before
    /// any address is rewritten.
    pub(super) fn offset_address(&self, pi: usize) -> Option<(usize, ValueId, u32)> {
        let f = self.f;
        let pv = self.b.vals[pi];
        if pv.kind != Kind::None || pv.pinned || pv.uses == 0 {
            return None;
        }
        // `def_inst` from the index the caller found.
        let first_inst = self.num_params as usize + f.consts.len();
        let d = f.results.get(pi.checked_sub(first_inst)?)?.0 as usize;
        let InstKind::Binop { op: BinOp::Add, lhs, rhs, .. } = f.insts[d].kind else { return None };
        if !self.b.insts[d].emit {
            return None;
        }
        // The left constant is only looked up when the right is none.
        let (base, c) = match self.const_int(rhs) {
            Some(c) => (self.resolve(lhs), c),
            None => (self.resolve(rhs), self.const_int(lhs)?),
        };
        if !(0..1 << 30).contains(&(c as i32 as i64)) || self.ty(base) != IrType::I32 {
            return None;
        }
        Some((d, base, c as i32 as u32))
    }

    /// The instruction defining `v`, if an instruction does.
    pub(super) fn def_inst(&self, v: ValueId) -> Option<usize> {
        let i = self.local_index(v)?;
        let first_inst = self.num_params as usize + self.f.consts.len();
        let r = i.checked_sub(first_inst)?;
        self.f.results.get(r).map(|id| id.0 as usize)
    }

    /// Decides which results stay on the stack (see the module docs).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn fold_operands(&mut self) {
        let f = self.f;
        let first_local = f.first_local;
        for vb in 0..self.b.vblocks.len() {
            let VBlock { after_phis, end, term, .. } = self.b.vblocks[vb];
            if term == Term::SjEntry {
                continue;
            }
            self.b.roots.clear();
            for k in after_phis as usize..end as usize {
                let inst = &f.insts[k];
                if !self.b.insts[k].emit || matches!(inst.kind, InstKind::Phi { .. }) {
                    continue;
                }
                let ps = self.b.pushes.len() as u32;
                // The kind first: it is at hand (tested just above), and
                // only a `br` plans copies.
                let copies = matches!(inst.kind, InstKind::Br { .. })
                    && term == Term::Real
                    && k + 1 == end as usize
                    && self.plan_copies(vb, k, inst);
                if !copies {
                    self.plan(k, inst);
                }
                let b = &mut *self.b;
                let pe = b.pushes.len() as u32;
                // Match the trailing roots against the pushes, last first.
                // A phi copy on this block's only edge is a use "by" the
                // terminator (phi uses have no user instruction).
                let user = if copies { NONE } else { k as u32 };
                let mut j = pe as usize;
                let mut r = b.roots.len();
                let mut own_from = ps;
                let mut first = k as u32;
                // The root matched before (the next one in push order) and
                // its push: the pushes between it and the one matched now
                // are pre-pushed before its tree, as soon as that is known
                // (no list of matches to walk again).
                let mut later = NONE;
                while r > 0 && j > ps as usize {
                    let (root, ti) = b.roots[r - 1];
                    let Some(val) = b.vals.get_mut(ti as usize) else { break };
                    if val.uses != 1 || val.user != user || val.pinned || val.kind != Kind::None {
                        break;
                    }
                    let tv = ValueId(ti.wrapping_add(first_local));
                    // Mostly the last push left: tried before the scan.
                    let pos = if b.pushes[j - 1].value == tv {
                        j - 1
                    } else {
                        let Some(pos) = b.pushes[ps as usize..j - 1].iter().rposition(|p| p.value == tv) else { break };
                        ps as usize + pos
                    };
                    val.kind = Kind::Folded;
                    val.fold_fixup = b.pushes[pos].fixup;
                    if later == NONE {
                        own_from = pos as u32 + 1;
                    } else if pos + 1 < j {
                        prepush_before(b, later, pos as u32 + 1, j as u32);
                    }
                    later = root;
                    j = pos;
                    r -= 1;
                }
                if later != NONE {
                    if (ps as usize) < j {
                        prepush_before(b, later, ps, j as u32);
                    }
                    first = b.insts[later as usize].first;
                    b.roots.truncate(r);
                }
                let info = &mut b.insts[k];
                info.push_start = ps;
                info.push_end = pe;
                info.own_from = own_from;
                info.first = first;
                // With its result's value index. A tree without a result
                // is never folded, and the matching stops at it: the trees
                // before it are out of reach, so none is kept.
                match inst.result {
                    Some((v, _)) => b.roots.push((k as u32, v.0.wrapping_sub(first_local))),
                    None => b.roots.clear(),
                }
            }
        }
    }

    /// When block `vb` ends in `br` to a block with phis, the phi copies
    /// become the pushes of the `br` (`k`): all sources are pushed, then the
    /// copies set the phis in reverse order, so sources computed at the end
    /// of the block can stay on the stack. `inst` is instruction `k`.
    pub(super) fn plan_copies(&mut self, vb: usize, k: usize, inst: &Inst) -> bool {
        let InstKind::Br { target } = inst.kind else { return false };
        let Some(&tv) = self.b.first_vblock.get(target.0 as usize) else { return false };
        if !self.b.has_phis.get(tv as usize).copied().unwrap_or(false) {
            return false;
        }
        let pred = self.b.vblocks[vb].orig;
        let (s, e) = self.edge_copies(pred, target.0);
        for c in s..e {
            let (_, src) = self.b.edge_copies[c];
            self.push(src, Fixup::None);
        }
        self.b.insts[k].copies_planned = true;
        true
    }

    /// The phi copies of the edge from block `pred` into block `target`
    /// (basic blocks): a range of `b.edge_copies`, (phi, source) in the
    /// order of the phis. Worked out for every edge into a block at once
    /// (`collect_phi_entries`): which phis are live, and their sources, no
    /// longer change once the phi entries are collected. A block with few
    /// predecessors (most have two or three) is scanned: a binary search's
    /// set-up cost more there.
    #[inline(always)]
    pub(super) fn edge_copies(&self, pred: u32, target: u32) -> (usize, usize) {
        let Some(&(s, e)) = self.b.phi_block_edges.get(target as usize) else { return (0, 0) };
        let edges = self.b.phi_edges.get(s as usize..e as usize).unwrap_or(&[]);
        let found = if edges.len() <= 8 {
            edges.iter().find(|x| x.0 == pred)
        } else {
            edges.get(edges.partition_point(|x| x.0 < pred)).filter(|x| x.0 == pred)
        };
        match found {
            Some(&(_, cs, ce)) => (cs as usize, ce as usize),
            None => (0, 0),
        }
    }

    /// Locals of the frame: the frame base and the saved stack pointer.
    pub(super) fn frame_locals(&mut self) {
        if self.has_frame() {
            self.frame_local = self.new_local(W::I32);
        }
        if self.has_frame() || self.has_dynamic_alloca {
            self.saved_sp_local = self.new_local(W::I32);
        }
    }

    /// Works out the phi copies of every edge into each block with live
    /// phis (`edge_copies`), block by block (`phi_block_copies`), where
    /// asking edge by edge searched every phi's entries for each edge (and
    /// memoized).
    pub(super) fn collect_phi_entries(&mut self) {
        let f = self.f;
        let b = &mut *self.b;
        b.phi_heads.clear();
        b.has_phis.clear();
        b.phi_block_edges.clear();
        b.phi_edges.clear();
        b.edge_copies.clear();
        if b.phi_insts.is_empty() {
            // No phi: the lists stay empty, which their readers (by `get`)
            // take as no phis and no copies, and no fill per block is spent.
            return;
        }
        b.has_phis.resize(b.vblocks.len(), false);
        b.phi_block_edges.resize(f.blocks.len(), (0, 0));
        // The block of each phi, by a cursor (phis and blocks are both in
        // order); its first part is where the phis live. Only the phis the
        // block starts with are copied on its edges (`run_end`: just past
        // them so far).
        let mut blk = 0;
        let mut run_end = NONE;
        // The block whose live phis are in `phi_heads`.
        let mut heads_of = NONE;
        let phi_insts = std::mem::take(&mut b.phi_insts);
        for &k in &phi_insts {
            let b = &mut *self.b;
            let k = k as usize;
            let inst = &f.insts[k];
            while f.blocks.get(blk).is_some_and(|x| x.end as usize <= k) {
                blk += 1;
            }
            let in_block = f.blocks.get(blk).is_some_and(|x| x.start as usize <= k);
            let leading = in_block && (f.blocks[blk].start as usize == k || run_end as usize == k);
            if leading {
                run_end = k as u32 + 1;
                // Where the block's code starts, found here once for
                // `emit_basic` (not by testing its instructions again).
                b.vblocks[b.first_vblock[blk] as usize].after_phis = run_end;
            }
            let InstKind::Phi { incoming, .. } = inst.kind else { continue };
            let Some((v, _)) = inst.result else { continue };
            let i = v.0.wrapping_sub(f.first_local) as usize;
            if !b.vals.get(i).is_some_and(|x| x.kind == Kind::None && x.uses > 0) {
                continue;
            }
            if in_block {
                b.has_phis[b.first_vblock[blk] as usize] = true;
            }
            if !leading {
                continue;
            }
            if heads_of != blk as u32 {
                if heads_of != NONE {
                    self.phi_block_copies(heads_of as usize);
                }
                heads_of = blk as u32;
            }
            self.b.phi_heads.push((incoming.start, incoming.len, v));
        }
        if heads_of != NONE {
            self.phi_block_copies(heads_of as usize);
        }
        self.b.phi_insts = phi_insts;
    }

    /// The phi copies of every edge into block `blk`, whose live phis are
    /// `phi_heads` (their entries as a run of `f.phi_entries`, and value;
    /// consumed): predecessors in increasing order, each taking every phi's
    /// first entry for it (by value, when it has several).
    fn phi_block_copies(&mut self, blk: usize) {
        let edges_start = self.b.phi_edges.len() as u32;
        // The shortcut first (the package too: 0.6 KB gzipped for 0.7% of
        // a translation's instructions).
        if !self.phi_block_aligned() {
            self.phi_block_merge();
        }
        let b = &mut *self.b;
        b.phi_block_edges[blk] = (edges_start, b.phi_edges.len() as u32);
        b.phi_heads.clear();
    }

    /// `phi_block_copies` when the phis name the same blocks in the same
    /// order, each once (nearly always): then the first phi's entries,
    /// ordered by block once, give every phi's entry of each edge by
    /// position. `false`, having done nothing, otherwise.
    fn phi_block_aligned(&mut self) -> bool {
        let f = self.f;
        let num_params = self.num_params;
        let entries = &f.phi_entries[..];
        let Buffers { phi_heads, phi_order, phi_edges, edge_copies, vals, .. } = &mut *self.b;
        let (s0, n0, _) = phi_heads[0];
        let first_in = entries.get(s0 as usize..(s0 + n0) as usize).unwrap_or(&[]);
        let aligned = phi_heads[1..].iter().all(|&(s, n, _)| {
            n == n0 && entries.get(s as usize..(s + n) as usize).is_some_and(|e| e.iter().zip(first_in).all(|(x, y)| x.1 == y.1))
        });
        if !aligned {
            return false;
        }
        // Two entries (most blocks): their order by one comparison. Sorted
        // as (block, position) pairs, like `phi_in` (one sort in the code).
        phi_order.clear();
        match first_in {
            [x, y] if x.1 != y.1 => {
                let two = if x.1 < y.1 { [(x.1 .0, 0), (y.1 .0, 1)] } else { [(y.1 .0, 1), (x.1 .0, 0)] };
                phi_order.extend_from_slice(&two);
            }
            _ => {
                phi_order.extend(first_in.iter().enumerate().map(|(j, e)| (e.1 .0, j as u32)));
                phi_order.sort_unstable();
                if phi_order.windows(2).any(|w| w[0].0 == w[1].0) {
                    // A block named more than once (a switch's cases into
                    // this one): grouped here, not one sort per phi.
                    grouped_phi_copies(f, num_params, first_in.len(), phi_order, phi_heads, vals, edge_copies, phi_edges);
                    return true;
                }
            }
        }
        for &(pred, j) in phi_order.iter() {
            let start = edge_copies.len() as u32;
            for &(s, _, dv) in phi_heads.iter() {
                // In range: every phi has as many entries as the first.
                let src = entries[s as usize + j as usize].0;
                phi_copy(f, num_params, vals, edge_copies, dv, src);
            }
            phi_edges.push((pred, start, edge_copies.len() as u32));
        }
        true
    }

    /// `phi_block_copies` for any entries: each phi's sorted by (block,
    /// value), and merged.
    #[inline(never)]
    fn phi_block_merge(&mut self) {
        let f = self.f;
        let num_params = self.num_params;
        let b = &mut *self.b;
        let Buffers { phi_in, phi_heads, phi_edges, edge_copies, vals, .. } = b;
        phi_in.clear();
        for h in phi_heads.iter_mut() {
            let incoming = f.phi_entries.get(h.0 as usize..(h.0 + h.1) as usize).unwrap_or(&[]);
            let start = phi_in.len();
            phi_in.extend(incoming.iter().map(|&(val, blk)| (blk.0, val.0)));
            phi_in[start..].sort_unstable();
            *h = (start as u32, phi_in.len() as u32, h.2);
        }
        loop {
            let mut pred = NONE;
            for &(at, end, _) in phi_heads.iter() {
                if at < end {
                    pred = pred.min(phi_in[at as usize].0);
                }
            }
            if pred == NONE {
                break;
            }
            let start = edge_copies.len() as u32;
            for h in phi_heads.iter_mut() {
                let (mut at, end, dv) = *h;
                if at == end || phi_in[at as usize].0 != pred {
                    continue;
                }
                phi_copy(f, num_params, vals, edge_copies, dv, ValueId(phi_in[at as usize].1));
                // Later entries of the same predecessor (a switch's
                // duplicate edges) are not read.
                while at < end && phi_in[at as usize].0 == pred {
                    at += 1;
                }
                h.0 = at;
            }
            phi_edges.push((pred, start, edge_copies.len() as u32));
        }
    }

    // ----------------------------------------------------------------
    // Operand pushes
    // ----------------------------------------------------------------

    pub(super) fn push(&mut self, v: ValueId, fixup: Fixup) {
        let value = self.resolve(v);
        self.b.pushes.push(Push { value, fixup });
    }

    /// Two pushes, `a` then `b`, with one check of the list's room (most
    /// instructions push two operands).
    #[inline(always)]
    fn push2(&mut self, a: ValueId, fa: Fixup, b: ValueId, fb: Fixup) {
        let (a, b) = (self.resolve(a), self.resolve(b));
        self.b.pushes.extend_from_slice(&[Push { value: a, fixup: fa }, Push { value: b, fixup: fb }]);
    }

    /// Lists the operands instruction `k` pushes, in push order. Must agree
    /// with `lower`. `inst` is instruction `k` (the caller has it).
    pub(super) fn plan(&mut self, k: usize, inst: &'a Inst) {
        let f = self.f;
        use InstKind::*;
        match &inst.kind {
            Binop { op, lhs, rhs, .. } => {
                let t = self.binop_type(inst, *lhs);
                if let IrType::Scalar(s) = t {
                    let (fl, fr) = match (op, s) {
                        (BinOp::AShr, _) => (sext_fixup(s), Fixup::None),
                        (BinOp::SDiv | BinOp::SRem, _) if s.is_int() => (sext_fixup(s), sext_fixup(s)),
                        (BinOp::SRem, Scalar::F32) => (Fixup::Promote, Fixup::Promote),
                        _ => (Fixup::None, Fixup::None),
                    };
                    // An exact division by 2^k is a shift whose count
                    // `lower` writes itself.
                    let shift = if *op == BinOp::SDiv { self.exact_sdiv_shift(*op, *lhs, *rhs) } else { None };
                    match shift {
                        Some(s) => {
                            self.b.insts[k].lowering = Lowering::ExactShift;
                            self.b.insts[k].shift = s as u8;
                            self.push(*lhs, fl);
                        }
                        None => self.push2(*lhs, fl, *rhs, fr),
                    }
                } else if vector_binop(*op, t).is_some() {
                    self.push2(*lhs, Fixup::None, *rhs, Fixup::None);
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
                if let Some(x) = self.eqz_operand(*pred, *lhs, *rhs) {
                    self.b.insts[k].lowering = Lowering::Eqz;
                    self.push(x, Fixup::None);
                } else if let Some(x) = self.truthy_operand(k) {
                    self.b.insts[k].lowering = Lowering::Truthy;
                    self.push(x, Fixup::None);
                } else if cmp_is_simple(*pred, t) {
                    let fix = match (pred, t) {
                        (CmpPred::ISgt | CmpPred::ISge | CmpPred::ISlt | CmpPred::ISle, IrType::Scalar(s)) => {
                            sext_fixup(s)
                        }
                        _ => Fixup::None,
                    };
                    self.push2(*lhs, fix, *rhs, fix);
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
                self.push2(*vector, Fixup::None, *element, fix);
            }
            Alloca { .. } | Phi { .. } | Br { .. } | Unreachable => {}
            Load { ptr, .. } => {
                let a = self.address_of(k, *ptr);
                self.push(a, Fixup::None);
            }
            Store { ptr, value, .. } => {
                let a = self.address_of(k, *ptr);
                self.push2(a, Fixup::None, *value, Fixup::None);
            }
            Ret { value } => {
                if let Some(v) = value {
                    self.push(*v, Fixup::None);
                }
            }
            CondBr { cond, .. } => self.push(*cond, Fixup::None),
            Switch { cond, cases, ty, .. } => {
                if self.switch_is_dense(*ty, f.cases(*cases)) {
                    self.b.insts[k].lowering = Lowering::DenseSwitch;
                    self.push(*cond, Fixup::None);
                }
            }
            Call { callee, args, .. } => match self.cx.callee(*callee) {
                Some(Callee::Defined { .. }) => {
                    for &a in f.args(*args) {
                        self.push(a, Fixup::None);
                    }
                }
                Some(Callee::Intrinsic(i)) => self.plan_intrinsic(i, f.args(*args)),
                _ => {}
            },
            CallIndirect { callee, args, .. } => {
                for &a in f.args(*args) {
                    self.push(a, Fixup::None);
                }
                if self.direct_target(*callee, f.args(*args), inst).is_some() {
                    self.b.insts[k].lowering = Lowering::Direct;
                } else {
                    self.push(*callee, Fixup::None);
                }
            }
        }
    }

    /// The address operand of load/store `k` (after offset absorption).
    pub(super) fn address_of(&self, k: usize, ptr: ValueId) -> ValueId {
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
    pub(super) fn direct_target(&self, callee: ValueId, args: &[ValueId], inst: &Inst) -> Option<DirectCall> {
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
}

/// Appends the copy of `src` into phi `dv` to `copies` unless none is
/// needed: the source (through aliases) is the phi itself or undef.
#[inline(always)]
fn phi_copy(f: &Function, num_params: u32, vals: &[Val], copies: &mut Vec<(ValueId, ValueId)>, dv: ValueId, src: ValueId) {
    let first = f.first_local;
    let src = resolve_in(vals, first, src);
    let undef = match vals.get(src.0.wrapping_sub(first) as usize) {
        Some(x) if x.kind == Kind::Const => f
            .consts
            .get((src.0 - first - num_params) as usize)
            .is_some_and(|c| c.value == ConstValue::Undef),
        _ => false,
    };
    if src != dv && !undef {
        copies.push((dv, src));
    }
}

/// `phi_block_aligned`'s copies when a predecessor is named more than once
/// (`order`: (block, position) sorted): each phi takes the smallest value
/// among its entries for it, the one `phi_block_merge` (entries sorted by
/// block and value) would take first.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn grouped_phi_copies(
    f: &Function,
    num_params: u32,
    n: usize,
    order: &[(u32, u32)],
    heads: &[(u32, u32, ValueId)],
    vals: &[Val],
    copies: &mut Vec<(ValueId, ValueId)>,
    edges: &mut Vec<(u32, u32, u32)>,
) {
    let entries = &f.phi_entries[..];
    let mut g = 0;
    while g < order.len() {
        let pred = order[g].0;
        let end = g + order[g..].iter().take_while(|x| x.0 == pred).count();
        let start = copies.len() as u32;
        for &(s, _, dv) in heads {
            // In range: every phi has `n` entries, as the first.
            let phi = &entries[s as usize..s as usize + n];
            let src = order[g..end].iter().map(|&(_, j)| phi[j as usize].0 .0).min().unwrap_or(NONE);
            phi_copy(f, num_params, vals, copies, dv, ValueId(src));
        }
        edges.push((pred, start, copies.len() as u32));
        g = end;
    }
}

/// `find_alias`'s state within the block being scanned.
struct CseScope {
    /// The block (index) and where it ends.
    blk: usize,
    block_end: u32,
    /// The classes (see `alias_of`) met in the block, and those whose first
    /// instruction's key is stored in the table.
    seen: u64,
    stored: u64,
    /// The first instruction of each class in the block.
    first_of: [u32; 64],
}

impl Default for CseScope {
    fn default() -> Self {
        CseScope { blk: 0, block_end: 0, seen: 0, stored: 0, first_of: [0; 64] }
    }
}

/// Whether pure instruction `k` (operator `tag`, operands `x` and `y`) is
/// an alias: the same computation earlier in its block (CSE; a cast that
/// is nothing in wasm `analyze` decides itself). An alias is not emitted
/// and is listed in `aliased`.
///
/// It counts the uses of the operands of the arithmetic, compares and
/// casts still emitted, as written, and notes the last user (what
/// `count_uses` does): an alias's counts are taken back, and the uses of
/// an alias move to the value it stands for at the end
/// (`move_alias_uses`). A user matters only to a value used once, so the
/// order of the counts does not.
///
/// `analyze` calls it as it meets the instruction, when values defined
/// later in block order have no type in `vals` yet (see `ty_before`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[allow(clippy::too_many_arguments)]
fn find_alias(
    f: &Function,
    vals: &mut [Val],
    infos: &mut [InstInfo],
    cse: &mut CseTable,
    aliased: &mut Vec<u32>,
    scope: &mut CseScope,
    k: usize,
    inst: &Inst,
    x: ValueId,
    y: Option<ValueId>,
    tag: u32,
) {
    let first = f.first_local;
    if k as u32 >= scope.block_end {
        // A block's CSE scope starts at its first pure instruction, found
        // by a cursor over the blocks (both are in order); a block without
        // one has nothing to reset.
        while f.blocks.get(scope.blk).is_some_and(|b| b.end as usize <= k) {
            scope.blk += 1;
        }
        scope.block_end = f.blocks.get(scope.blk).map_or(NONE, |b| b.end);
        // The table is cleared when the block first stores a key
        // (`alias_of`): most blocks store none.
        (scope.seen, scope.stored) = (0, 0);
    }
    // An operand's use is counted as it is resolved for the CSE class (one
    // look-up of its value, not two); an alias takes its operands' counts
    // back below.
    let (rx, ux) = count_use(vals, first, x, k as u32);
    let (ry, uy) = match y {
        Some(y) => count_use(vals, first, y, k as u32),
        None => (0, NONE),
    };
    let Some((v, _)) = inst.result else { return };
    // A local value: `analyze` checked every result.
    let i = v.0.wrapping_sub(first) as usize;
    let class = tag << 24 ^ rx ^ ry;
    if let Some(alias) = alias_of(f, vals, cse, scope, inst, v, k, class) {
        // Not emitted: its uses taken back, the last counted first (both
        // operands may be one value).
        if let Some(y) = y {
            uncount_use(vals, first, y, uy);
        }
        uncount_use(vals, first, x, ux);
        vals[i].alias = alias;
        infos[k].emit = false;
        aliased.push(i as u32);
    }
}

/// The earlier value the result `v` of pure instruction `k` is (see
/// `find_alias`). `class` is the instruction's operator tag and resolved
/// operands.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[allow(clippy::too_many_arguments)]
fn alias_of(
    f: &Function,
    vals: &[Val],
    cse: &mut CseTable,
    scope: &mut CseScope,
    inst: &Inst,
    v: ValueId,
    k: usize,
    class: u32,
) -> Option<u32> {
    // The same pure computation earlier in the block: reuse it. Two
    // instructions with one key have one operator and, resolved, the same
    // operands, so one class of 64 by those: the first of a class in a
    // block (nearly all) is only noted, and its key is built and stored
    // when a second one comes. Stored in the same order, the table answers
    // as if every key had been stored at once.
    let class = class.wrapping_mul(0x9E37_79B9) >> 26;
    let class = class as usize;
    let bit = 1u64 << class;
    if scope.seen & bit == 0 {
        scope.seen |= bit;
        scope.first_of[class] = k as u32;
        return None;
    }
    // Values up to `v` have their types in `vals`.
    let typed = v.0.wrapping_sub(f.first_local) as usize;
    if scope.stored & bit == 0 {
        if scope.stored == 0 {
            // The block's first key: the table still holds an earlier
            // block's (cleared here, not at every block's start).
            cse.clear();
        }
        // The first's operands resolve as they did then (only later
        // results became aliases since).
        scope.stored |= bit;
        let fi = &f.insts[scope.first_of[class] as usize];
        if let (Some(key), Some((fv, _))) = (cse_key(f, vals, typed, fi), fi.result) {
            cse.get_or_insert(key, fv.0);
        }
    }
    let key = cse_key(f, vals, typed, inst)?;
    let earlier = cse.get_or_insert(key, v.0);
    (earlier != v.0).then_some(earlier)
}

/// What makes two instructions compute the same value: integer
/// arithmetic, compares and casts, with operands seen through aliases (and
/// ordered, for commutative operators). Values past index `typed` have no
/// type in `vals` yet (`ty_before`).
#[inline(always)]
fn cse_key(f: &Function, vals: &[Val], typed: usize, inst: &Inst) -> Option<CseKey> {
    let r = |v: ValueId| resolve_in(vals, f.first_local, v).0;
    Some(match inst.kind {
        InstKind::Binop { op, lhs, rhs, .. } => {
            // The result's type, which the decoder took from the left
            // operand.
            let t = match inst.result {
                Some((_, t)) => t,
                None => ty_before(f, vals, typed, lhs),
            };
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
            let t = ty_before(f, vals, typed, lhs);
            if !t.is_int_or_int_vector() {
                return None;
            }
            (0x100 + pred.code() as u32, r(lhs), r(rhs), type_code(t))
        }
        InstKind::Cast { op, value, to } => {
            (0x200 + op.code() as u32, r(value), type_code(ty_before(f, vals, typed, value)), type_code(to))
        }
        _ => return None,
    })
}

/// The type of `o` (module-level values are i32 addresses) while `analyze`
/// has typed the values up to index `typed` only: results are numbered in
/// order, so a later one (an operand defined further on in block order)
/// is typed from its instruction.
#[inline(always)]
fn ty_before(f: &Function, vals: &[Val], typed: usize, o: ValueId) -> IrType {
    let i = o.0.wrapping_sub(f.first_local) as usize;
    match vals.get(i) {
        Some(val) if i <= typed => val.ty,
        Some(_) => later_ty(f, i),
        None => IrType::I32,
    }
}

/// The type of result value `i` (an index into `vals`), from its
/// instruction.
#[cold]
#[inline(never)]
fn later_ty(f: &Function, i: usize) -> IrType {
    let r = i - f.params.len() - f.consts.len();
    f.results.get(r).and_then(|id| f.insts.get(id.0 as usize)?.result).map_or(IrType::I32, |(_, t)| t)
}

/// Moves the uses of each alias to the value it stands for (see
/// `find_alias`).
fn move_alias_uses(vals: &mut [Val], first: u32, aliased: &[u32]) {
    for &a in aliased {
        let a = a as usize;
        let Val { uses, user, .. } = vals[a];
        if uses == 0 {
            continue;
        }
        vals[a].uses = 0;
        vals[a].user = NONE;
        let t = resolve_in(vals, first, ValueId(a as u32 + first)).0.wrapping_sub(first) as usize;
        if let Some(tv) = vals.get_mut(t) {
            if tv.uses == 0 {
                tv.user = user;
            }
            tv.uses += uses;
        }
    }
}

/// Counts a use of `o` by instruction `user` (`find_alias`): the value
/// it resolves to and the user it replaced (module-level values: itself,
/// none).
#[inline(always)]
fn count_use(vals: &mut [Val], first: u32, o: ValueId, user: u32) -> (u32, u32) {
    match vals.get_mut(o.0.wrapping_sub(first) as usize) {
        Some(val) => {
            let old = val.user;
            val.uses += 1;
            val.user = user;
            let r = if val.alias == NONE { o.0 } else { resolve_in(vals, first, o).0 };
            (r, old)
        }
        None => (o.0, NONE),
    }
}

/// Takes back `count_use`'s count of `o`, its user back to `old`.
#[inline(always)]
fn uncount_use(vals: &mut [Val], first: u32, o: ValueId, old: u32) {
    if let Some(val) = vals.get_mut(o.0.wrapping_sub(first) as usize) {
        val.uses -= 1;
        val.user = old;
    }
}

/// Notes that pushes `from..to` go right before the tree of `root` (in the
/// pre-push list of the tree's first instruction).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn prepush_before(b: &mut Buffers, root: u32, from: u32, to: u32) {
    let at = b.insts[root as usize].first as usize;
    let head = b.insts[at].prepush_head;
    b.insts[at].prepush_head = b.prepush.len() as u32;
    b.prepush.push(PrePush { from, to, next: head });
}

/// How a constant-address indirect call becomes a direct one.
pub(super) struct DirectCall {
    /// The wasm function index.
    pub index: u32,
    /// Trailing arguments the function does not take.
    pub drop: u32,
    /// Zero values for the parameters the call does not pass.
    pub pad: Vec<W>,
    pub result: ResultFix,
}

pub(super) enum ResultFix {
    Same,
    /// The function returns a value the call does not expect.
    Drop,
    /// The call expects a value the function does not return.
    Zero(W),
}

/// The last value of `vals` that is unused, not pinned and not an alias:
/// `rposition` of that test, four values a step. Nearly every value is
/// used, so the step tests the smallest of the four use counts (one
/// branch) and only a step with an unused value among them looks closer.
/// Inlined into its one caller (a call per unused value found otherwise;
/// four tests for zero instead of `min`, not inlined, cost as much as
/// `rposition`).
#[inline]
fn last_unused(vals: &[Val]) -> Option<usize> {
    let candidate = |v: &Val| v.uses == 0 && !v.pinned && v.alias == NONE;
    let mut quads = vals.rchunks_exact(4);
    let mut end = vals.len();
    for q in quads.by_ref() {
        end -= 4;
        if q[0].uses.min(q[1].uses).min(q[2].uses).min(q[3].uses) == 0 {
            if let Some(r) = q.iter().rposition(candidate) {
                return Some(end + r);
            }
        }
    }
    quads.remainder().iter().rposition(candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-a-step scan finds what `rposition` finds, for every length
    /// (remainders included) and mixes of used, pinned and alias values.
    #[test]
    fn last_unused_matches_rposition() {
        let mut next = crate::test_rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..4000 {
            let n = (round % 23) as usize;
            let vals: Vec<Val> = (0..n)
                .map(|_| Val {
                    uses: if next(3) == 0 { 0 } else { next(4) as u32 },
                    pinned: next(5) == 0,
                    alias: if next(4) == 0 { next(8) as u32 } else { NONE },
                    ..Val::BLANK
                })
                .collect();
            let want = vals.iter().rposition(|v| v.uses == 0 && !v.pinned && v.alias == NONE);
            assert_eq!(last_unused(&vals), want, "round {round}");
        }
    }

    /// A value defined further on in block order (here by the next
    /// instruction) has no type in `vals` while `analyze` is at an earlier
    /// one: `ty_before` takes it from its instruction, as `vals` has it
    /// once the walk is over.
    #[test]
    fn ty_before_types_later_results_from_their_instructions() {
        let inst = |kind, v, ty| Inst { kind, result: Some((ValueId(v), ty)), pos: Default::default() };
        let f = Function {
            first_local: 10,
            params: vec![IrType::I32],
            insts: vec![
                inst(InstKind::Cast { op: CastOp::ZExt, value: ValueId(12), to: IrType::I32 }, 11, IrType::I32),
                inst(InstKind::Cast { op: CastOp::Trunc, value: ValueId(10), to: IrType::I8 }, 12, IrType::I8),
            ],
            results: vec![crate::ir::InstId(0), crate::ir::InstId(1)],
            ..Default::default()
        };
        let blank = Val::BLANK;
        // At the first cast: the parameter and its result typed, the
        // second's result not yet.
        let vals = [blank; 3];
        assert_eq!(ty_before(&f, &vals, 1, ValueId(12)), IrType::I8);
        assert_eq!(ty_before(&f, &vals, 1, ValueId(10)), IrType::I32);
        // A module-level value.
        assert_eq!(ty_before(&f, &vals, 1, ValueId(3)), IrType::I32);
        // Typed values are read from `vals`.
        let typed = [blank, blank, Val { ty: IrType::I16, ..blank }];
        assert_eq!(ty_before(&f, &typed, 2, ValueId(12)), IrType::I16);
    }
}
