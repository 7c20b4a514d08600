//! Which functions start as optimized code under [`Tiering::Hinted`]
//! (V8's compilation hints, which `pexe run` gives Node).
//!
//! V8 swaps a wasm function's baseline code for optimized code only
//! between calls: there is no on-stack replacement. A loop in a function
//! entered a bounded number of times therefore runs as baseline code
//! however hot it gets, and such a function must be optimized from its
//! first call. Any other function gets optimized once its calls make it
//! hot, so it starts as baseline code: optimizing costs milliseconds per
//! function at start-up (newlib's `__sprint_r`, `free`, `qsort`: 2–5 ms
//! each), which a short run never earns back.
//!
//! The rules, from facts each body gives on its own ([`BodyFacts`]):
//! - **Entered once** (a bounded number of times): `_start`; and a function
//!   whose address is never taken, that is called directly, and only from
//!   call sites outside loops of functions entered once.
//! - **Optimized first**: a function with a loop, under [`LARGE_INSTS`]
//!   instructions, that is `_start`; or whose address is taken (its
//!   callers are unknown: a thread's entry, a callback); or that
//!   has direct callers, all entered once (a kernel called from `main`'s
//!   loop: each call may be long, and the first would run as baseline
//!   code). A function calling itself is its own caller, never entered
//!   once: recursion gets hot by its calls.
//! - Everything else starts as baseline code.
//!
//! "Outside loops" is judged by block numbers: a block lies in a loop when
//! it is between the ends of an edge to a block at or before its source.
//! Every cycle has such an edge, so a block that is in a loop is always
//! judged so; a block merely between the ends is judged so too, which
//! only ever leaves a function baseline first.
//!
//! [`Tiering::Hinted`]: super::Tiering::Hinted
//! [`LARGE_INSTS`]: super::LARGE_INSTS

use crate::ir::{BlockId, Function, InstKind, ValueId};

/// What one body tells of the module's call graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyFacts {
    /// It has a loop and fewer than [`super::LARGE_INSTS`] instructions.
    pub small_loop: bool,
    /// Its direct calls: callee id, and whether the call may be in a loop
    /// (in body order; a callee may repeat).
    pub calls: Vec<(u32, bool)>,
    /// Functions whose address it takes (any use but a direct call's callee).
    pub takes: Vec<u32>,
}

impl BodyFacts {
    /// The facts of `f`; `num_funcs` is the module's function count (value
    /// ids below it are functions).
    pub fn of(f: &Function, num_funcs: u32) -> BodyFacts {
        let n = f.blocks.len();
        // +1 at a back edge's target, -1 after its source: a positive
        // running sum marks the blocks between the ends of some back edge.
        let mut depth = vec![0i32; n + 1];
        let mut loops = false;
        for b in 0..n {
            let Some(term) = f.terminator(BlockId(b as u32)) else { continue };
            let mut edge = |t: BlockId| {
                let t = t.0 as usize;
                if t <= b {
                    loops = true;
                    depth[t] += 1;
                    depth[b + 1] -= 1;
                }
            };
            match term.kind {
                InstKind::Br { target } => edge(target),
                InstKind::CondBr { if_true, if_false, .. } => {
                    edge(if_true);
                    edge(if_false);
                }
                InstKind::Switch { default, cases, .. } => {
                    edge(default);
                    for c in f.cases(cases) {
                        edge(c.target);
                    }
                }
                _ => {}
            }
        }
        let mut facts =
            BodyFacts { small_loop: loops && f.insts.len() < super::LARGE_INSTS, calls: Vec::new(), takes: Vec::new() };
        // Value ids below the function count are the functions'.
        let func = |v: ValueId| (v.0 < num_funcs).then_some(v.0);
        let mut running = 0i32;
        for b in 0..n {
            running += depth[b];
            for inst in f.block_insts(BlockId(b as u32)) {
                let mut take = |v: ValueId| {
                    if let Some(id) = func(v) {
                        facts.takes.push(id);
                    }
                };
                use InstKind::*;
                match inst.kind {
                    Call { callee, args, .. } => {
                        if let Some(id) = func(callee) {
                            facts.calls.push((id, running > 0));
                        }
                        f.args(args).iter().for_each(|&v| take(v));
                    }
                    CallIndirect { callee, args, .. } => {
                        take(callee);
                        f.args(args).iter().for_each(|&v| take(v));
                    }
                    Binop { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => {
                        take(lhs);
                        take(rhs);
                    }
                    Cast { value, .. } | Alloca { size: value, .. } | Load { ptr: value, .. } => take(value),
                    Ret { value } => value.into_iter().for_each(take),
                    CondBr { cond, .. } | Switch { cond, .. } => take(cond),
                    Phi { incoming, .. } => f.incoming(incoming).iter().for_each(|&(v, _)| take(v)),
                    Store { ptr, value, .. } => {
                        take(ptr);
                        take(value);
                    }
                    Select { cond, if_true, if_false } => [cond, if_true, if_false].into_iter().for_each(take),
                    ExtractElement { vector, index } => [vector, index].into_iter().for_each(take),
                    InsertElement { vector, element, index } => [vector, element, index].into_iter().for_each(take),
                    Br { .. } | Unreachable => {}
                }
            }
        }
        facts
    }
}

/// Which of the module's functions (by id) start optimized. `facts` has an
/// entry per function id, `None` for those without a body; `entry` is
/// `_start`'s id; `taken` are the functions whose address the module's
/// globals hold.
pub fn optimized_first(facts: &[Option<BodyFacts>], entry: Option<u32>, taken: impl IntoIterator<Item = u32>) -> Vec<bool> {
    let n = facts.len();
    let mut address_taken = vec![false; n];
    for id in taken.into_iter().chain(facts.iter().flatten().flat_map(|f| f.takes.iter().copied())) {
        if let Some(t) = address_taken.get_mut(id as usize) {
            *t = true;
        }
    }
    // Per callee, its call sites not yet found to be in a function entered
    // once: all of them (`callers`), and those that could make it entered
    // once (`once_sites`: a site in a loop never counts down, so a callee
    // with one is never entered once). Counting down as callers turn out
    // entered once is linear in the calls.
    let mut sites = vec![0u32; n];
    for &(callee, _) in facts.iter().flatten().flat_map(|f| &f.calls) {
        if let Some(s) = sites.get_mut(callee as usize) {
            *s += 1;
        }
    }
    let mut callers = sites.clone();
    let mut once_sites = sites.clone();
    let mut once = vec![false; n];
    let mut work: Vec<usize> = entry.map(|e| e as usize).filter(|&e| e < n).into_iter().collect();
    for &e in &work {
        once[e] = true;
    }
    while let Some(caller) = work.pop() {
        for &(callee, in_loop) in facts[caller].iter().flat_map(|f| &f.calls) {
            let c = callee as usize;
            if c >= n {
                continue;
            }
            callers[c] -= 1;
            if !in_loop {
                once_sites[c] -= 1;
                if once_sites[c] == 0 && !address_taken[c] && !once[c] {
                    once[c] = true;
                    work.push(c);
                }
            }
        }
    }
    facts
        .iter()
        .enumerate()
        .map(|(id, f)| {
            let Some(f) = f else { return false };
            f.small_loop
                && (Some(id as u32) == entry
                    || address_taken[id]
                    || (sites[id] > 0 && callers[id] == 0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(small_loop: bool, calls: &[(u32, bool)], takes: &[u32]) -> Option<BodyFacts> {
        Some(BodyFacts { small_loop, calls: calls.to_vec(), takes: takes.to_vec() })
    }

    /// 0 `_start` → 1 main (once) → 2 kernel in main's loop, 3 printf once;
    /// 3 → 4 its helper in printf's loop; 5 recursive; 6 a callback whose
    /// address main takes; 7 never called; 8 called from the kernel (which
    /// is not entered once).
    #[test]
    fn the_rules() {
        let facts = vec![
            body(true, &[(1, false)], &[]),
            body(true, &[(2, true), (3, false), (5, false)], &[6]),
            body(true, &[(8, false)], &[]),
            body(true, &[(4, true)], &[]),
            body(true, &[], &[]),
            body(true, &[(5, false)], &[]),
            body(true, &[], &[]),
            body(true, &[], &[]),
            body(true, &[], &[]),
            None,
        ];
        let got = optimized_first(&facts, Some(0), []);
        //                _start main  kernel printf helper recur callback dead  deep  proto
        assert_eq!(got, [true, true, true, true, true, false, true, false, false, false]);
        // Without loops nothing starts optimized.
        let flat: Vec<_> = facts.iter().map(|f| f.clone().map(|f| BodyFacts { small_loop: false, ..f })).collect();
        assert!(optimized_first(&flat, Some(0), []).iter().all(|&o| !o));
        // printf called in main's loop too: its helper is no longer entered
        // from a function entered once.
        let mut twice = facts.clone();
        twice[1].as_mut().unwrap().calls.push((3, true));
        let got = optimized_first(&twice, Some(0), []);
        assert!(got[3] && !got[4]);
        // A global holding main's address: main's callees are no longer
        // called from a function entered once, but main itself may be a
        // callback's entry and stays optimized.
        let got = optimized_first(&facts, Some(0), [1]);
        assert!(got[1] && !got[2] && !got[3]);
    }
}
