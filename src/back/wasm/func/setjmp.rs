//! setjmp/longjmp with legacy wasm exception handling (runtime ABI,
//! "Instructions and intrinsics").
//!
//! `llvm.nacl.longjmp(buf, v)` throws tag `__pexe_longjmp` with `(buf, v)`.
//! A function that calls `llvm.nacl.setjmp` is translated as
//!
//! ```text
//! loop $reenter
//!   try
//!     br_table on $target: 0 → the entry block, k → after setjmp call k
//!     … the body …
//!   catch $__pexe_longjmp            ;; (buf, v)
//!     if buf[0] is the id setjmp call k stored in this invocation:
//!       sp = buf[4]; result of call k = (v == 0 ? 1 : v); $target = k
//!       br $reenter
//!     rethrow
//!   end
//! end
//! ```
//!
//! For the structurer, each block is split after every setjmp call (the
//! call ends a virtual block that continues into the next part) and a
//! synthetic entry block branches to the real entry and to every
//! continuation, so re-entering in the middle of a block is an ordinary
//! edge of the CFG.

use super::{for_each_successor, is_setjmp_call, memarg, Fx, SetjmpSite, Term, VBlock, NONE};
use crate::back::wasm::structure::Structured;
use crate::back::wasm::{global, TranslateError, LONGJMP_TAG};
use wasm_encoder::{BlockType, ValType as W};

impl<'a> Fx<'a> {
    /// Virtual blocks of a function that calls setjmp (see the module docs).
    pub(super) fn build_setjmp_vblocks(&mut self) -> Result<(), TranslateError> {
        let f = self.f;
        let n = f.blocks.len();
        let b = &mut *self.b;
        b.vblocks.clear();
        b.first_vblock.clear();
        b.succ_start.clear();
        b.succs.clear();
        b.setjmp_sites.clear();
        b.vblocks.push(VBlock { orig: 0, start: 0, after_phis: 0, end: 0, term: Term::SjEntry, first_part: false });
        for (i, blk) in f.blocks.iter().enumerate() {
            b.first_vblock.push(b.vblocks.len() as u32);
            let mut start = blk.start;
            for k in blk.start..blk.end {
                if !is_setjmp_call(self.cx, &f.insts[k as usize]) {
                    continue;
                }
                b.vblocks.push(VBlock {
                    orig: i as u32,
                    start,
                    after_phis: start,
                    end: k + 1,
                    term: Term::Split,
                    first_part: start == blk.start,
                });
                b.setjmp_sites.push(SetjmpSite { inst: k, cont: b.vblocks.len() as u32, id_local: NONE });
                start = k + 1;
            }
            b.vblocks.push(VBlock {
                orig: i as u32,
                start,
                after_phis: start,
                end: blk.end,
                term: Term::Real,
                first_part: start == blk.start,
            });
        }
        for vb in 0..b.vblocks.len() {
            let v = b.vblocks[vb];
            b.succ_start.push(b.succs.len() as u32);
            match v.term {
                Term::SjEntry => {
                    b.succs.push(b.first_vblock[0]);
                    for s in &b.setjmp_sites {
                        b.succs.push(s.cont);
                    }
                }
                Term::Split => b.succs.push(vb as u32 + 1),
                Term::Real => {
                    let term = &f.insts[v.end as usize - 1];
                    let mut bad = false;
                    let first = &b.first_vblock;
                    let succs = &mut b.succs;
                    for_each_successor(f, &term.kind, |t| match first.get(t as usize) {
                        Some(&fv) if (t as usize) < n => succs.push(fv),
                        _ => bad = true,
                    });
                    if bad {
                        return Err(self.unsupported("a branch to a block that does not exist"));
                    }
                }
            }
            for k in v.start..v.end {
                b.insts[k as usize].vblock = vb as u32;
            }
        }
        b.succ_start.push(b.succs.len() as u32);
        // A setjmp result is written on two paths: it needs its own local.
        for s in 0..b.setjmp_sites.len() {
            let k = b.setjmp_sites[s].inst as usize;
            if let Some((v, _)) = f.insts[k].result {
                let i = v.0.wrapping_sub(f.first_local) as usize;
                if let Some(val) = b.vals.get_mut(i) {
                    val.pinned = true;
                }
            }
        }
        Ok(())
    }

    /// The `loop`/`try` around the body, and the longjmp handler.
    pub(super) fn emit_setjmp_body(&mut self, tree: &Structured) {
        self.sj_target_local = self.new_local(W::I32);
        for s in 0..self.b.setjmp_sites.len() {
            let l = self.new_local(W::I32);
            self.b.setjmp_sites[s].id_local = l;
        }
        let buf = self.new_local(W::I32);
        let value = self.new_local(W::I32);
        let id = self.new_local(W::I32);
        const ANON: u32 = u32::MAX;
        self.open(ANON, true);
        self.w().try_(BlockType::Empty);
        self.b.labels.push(ANON);
        self.emit_tree(tree, tree.body);
        self.w().catch(LONGJMP_TAG);
        self.w()
            .local_set(value)
            .local_tee(buf)
            .i32_load(memarg(0, 2))
            .local_tee(id)
            .i32_eqz()
            .if_(BlockType::Empty)
            .rethrow(1)
            .end();
        let target = self.sj_target_local;
        for s in 0..self.b.setjmp_sites.len() {
            let site = self.b.setjmp_sites[s];
            let result =
                self.f.insts[site.inst as usize].result.and_then(|(v, _)| self.local_index(v)).and_then(|i| match self
                    .b
                    .vals[i]
                    .kind
                {
                    super::Kind::Local(l) => Some(l),
                    _ => None,
                });
            self.w()
                .local_get(id)
                .local_get(site.id_local)
                .i32_eq()
                .if_(BlockType::Empty)
                .local_get(buf)
                .i32_load(memarg(4, 2))
                .global_set(global::STACK_POINTER);
            if let Some(r) = result {
                self.w().local_get(value).i32_const(1).local_get(value).select().local_set(r);
            }
            // Depths inside the `if`: 0 if, 1 try, 2 loop.
            self.w().i32_const(s as i32 + 1).local_set(target).br(2).end();
        }
        self.w().rethrow(0).end();
        self.b.labels.pop();
        self.close();
        self.terminal = false;
    }
}
