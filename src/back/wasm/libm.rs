//! The pexe's own libm, where wasm has the operation as one instruction.
//!
//! A pexe carries newlib's `sqrt`: a wrapper whose fast path, for every
//! argument `x >= -0` (ordered: not NaN), returns `llvm.sqrt.f64(x)`, and
//! whose slow path (negative or NaN arguments) sets `errno`. A call of it
//! costs a wasm call, a compare and a branch where clang's code has one
//! `f64.sqrt`, in the innermost loop of programs like nbody.
//!
//! Call sites of a function named `sqrt` of type `double(double)` are
//! therefore emitted as
//!
//! ```text
//! local.set t
//! local.get t  f64.const -0  f64.ge
//! if (result f64)  local.get t  call $sqrt   ;; patch site
//! else             local.get t  call $sqrt
//! end
//! ```
//!
//! which is the plain call either way. Once the module's bodies are all in,
//! the patch sites become `f64.sqrt` (padded with `nop`s to the call's
//! size) only if `sqrt`'s body is *proven* to have that fast path:
//! [`sqrt_fast_path`] interprets the body symbolically under `x >= -0`,
//! following only branches the assumption decides, and succeeds when every
//! step on the path is free of effects, the result is `llvm.sqrt.f64(x)`,
//! and every function called on the way ([`SqrtClaim::helpers`]) is a pure
//! leaf ([`is_pure_leaf`]: no calls, memory, `unreachable` or loops). For
//! `x >= -0`, `llvm.sqrt.f64` is `f64.sqrt`, the correctly rounded IEEE
//! square root, so the result is bit-identical;
//! `tests/all/libm.rs` also runs the original function on edge cases and
//! random arguments against it. Anything else keeps the calls.

use super::{Callee, ModuleCx};
use crate::ir::{BinOp, CmpPred, ConstValue, Function, InstKind, Module, ValType, ValueId};
use crate::verify::Intrinsic;

/// What a body proved about its `sqrt` fast path: the functions it calls
/// on the way, which must all be pure leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqrtClaim {
    pub helpers: Vec<u32>,
}

/// The function the call-site form applies to: a defined function named
/// `sqrt` of type `double(double)`.
pub(crate) fn sqrt_candidate(m: &Module) -> Option<u32> {
    m.functions
        .iter()
        .position(|d| {
            !d.is_proto
                && d.name.as_deref() == Some(b"sqrt")
                && d.sig.params == [ValType::F64]
                && d.sig.ret == Some(ValType::F64)
                && !d.sig.varargs
        })
        .map(|i| i as u32)
}

/// Whether `f` has no effect but its result and always returns: no calls,
/// memory accesses, allocas, `unreachable`, and every branch goes forward
/// in block order (so no loop).
pub(crate) fn is_pure_leaf(f: &Function) -> bool {
    if f.blocks.is_empty() {
        return false;
    }
    f.blocks.iter().enumerate().all(|(b, blk)| {
        f.insts[blk.start as usize..blk.end as usize].iter().all(|i| match &i.kind {
            InstKind::Binop { op, .. } => !matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem),
            InstKind::Cast { .. } | InstKind::Cmp { .. } | InstKind::Select { .. } | InstKind::Phi { .. } => true,
            InstKind::ExtractElement { .. } | InstKind::InsertElement { .. } => true,
            InstKind::Ret { .. } => true,
            InstKind::Br { target } => target.0 as usize > b,
            InstKind::CondBr { if_true, if_false, .. } => if_true.0 as usize > b && if_false.0 as usize > b,
            InstKind::Switch { default, cases, .. } => {
                default.0 as usize > b && cases.iter().all(|c| c.target.0 as usize > b)
            }
            _ => false,
        })
    })
}

/// A value under the assumption `x >= -0` (ordered).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Sym {
    /// The parameter `x`.
    X,
    /// `llvm.sqrt.f64(x)`.
    SqrtX,
    Bool(bool),
    Float(f64),
    Int(i64),
    /// Some value the path does not depend on.
    Unknown,
}

/// Proves `sqrt`'s fast path (see the module docs); `None` if it cannot.
pub(crate) fn sqrt_fast_path(f: &Function, cx: &ModuleCx) -> Option<SqrtClaim> {
    /// Instructions interpreted at most (the wrapper takes about ten).
    const STEPS: usize = 256;
    if f.params != [ValType::F64] || f.blocks.is_empty() {
        return None;
    }
    let first = f.first_local;
    let nvals = (f.end_value() - first) as usize;
    let mut vals = vec![Sym::Unknown; nvals];
    vals[0] = Sym::X;
    for (i, c) in f.consts.iter().enumerate() {
        vals[f.params.len() + i] = match (c.ty, c.value) {
            (ValType::F64, ConstValue::Float(bits)) => Sym::Float(f64::from_bits(bits)),
            (ValType::Scalar(s), ConstValue::Int(v)) if s.is_int() => Sym::Int(v),
            _ => Sym::Unknown,
        };
    }
    // Function-local values are numbered from `first` (parameters,
    // constants, results); functions and globals are addresses.
    let get = |vals: &[Sym], v: ValueId| -> Option<Sym> {
        match v.0.checked_sub(first) {
            Some(i) => vals.get(i as usize).copied(),
            None => Some(Sym::Unknown),
        }
    };
    let set = |vals: &mut [Sym], inst: &crate::ir::Inst, s: Sym| {
        if let Some((v, _)) = inst.result {
            if let Some(slot) = vals.get_mut((v.0 - first) as usize) {
                *slot = s;
            }
        }
    };
    let mut helpers = Vec::new();
    let (mut block, mut from) = (0usize, usize::MAX);
    let mut steps = 0;
    loop {
        let blk = f.blocks.get(block)?;
        for inst in &f.insts[blk.start as usize..blk.end as usize] {
            steps += 1;
            if steps > STEPS {
                return None;
            }
            match &inst.kind {
                InstKind::Phi { incoming, .. } => {
                    let (v, _) = incoming.iter().find(|(_, b)| b.0 as usize == from)?;
                    let s = get(&vals, *v)?;
                    set(&mut vals, inst, s);
                }
                InstKind::Cmp { pred, lhs, rhs } => {
                    let s = compare(*pred, get(&vals, *lhs)?, get(&vals, *rhs)?);
                    set(&mut vals, inst, s);
                }
                InstKind::Binop { op, lhs, rhs, .. } => {
                    let s = match (op, get(&vals, *lhs)?, get(&vals, *rhs)?) {
                        (BinOp::And, Sym::Bool(false), _) | (BinOp::And, _, Sym::Bool(false)) => Sym::Bool(false),
                        (BinOp::And, Sym::Bool(true), Sym::Bool(true)) => Sym::Bool(true),
                        (BinOp::Or, Sym::Bool(true), _) | (BinOp::Or, _, Sym::Bool(true)) => Sym::Bool(true),
                        (BinOp::Or, Sym::Bool(false), Sym::Bool(false)) => Sym::Bool(false),
                        // Division can trap: not on the path.
                        (BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem, _, _) => return None,
                        _ => Sym::Unknown,
                    };
                    set(&mut vals, inst, s);
                }
                InstKind::Cast { .. } | InstKind::Select { .. } => set(&mut vals, inst, Sym::Unknown),
                InstKind::Call { callee, args, .. } => match cx.callee(*callee)? {
                    Callee::Intrinsic(Intrinsic::Sqrt(crate::ir::Scalar::F64)) => {
                        let [a] = args[..] else { return None };
                        let s = if get(&vals, a)? == Sym::X { Sym::SqrtX } else { Sym::Unknown };
                        set(&mut vals, inst, s);
                    }
                    Callee::Defined { .. } if callee.0 != f.id.0 => {
                        helpers.push(callee.0);
                        set(&mut vals, inst, Sym::Unknown);
                    }
                    _ => return None,
                },
                InstKind::Br { target } => {
                    from = block;
                    block = target.0 as usize;
                    break;
                }
                InstKind::CondBr { cond, if_true, if_false } => {
                    let Sym::Bool(c) = get(&vals, *cond)? else { return None };
                    from = block;
                    block = if c { if_true.0 } else { if_false.0 } as usize;
                    break;
                }
                InstKind::Ret { value: Some(v) } => {
                    return (get(&vals, *v)? == Sym::SqrtX).then(|| {
                        helpers.sort_unstable();
                        helpers.dedup();
                        SqrtClaim { helpers }
                    });
                }
                // Memory, other calls, switches, unreachable: not proven.
                _ => return None,
            }
        }
    }
}

/// `pred(a, b)` under `x >= -0` (ordered), when that decides it.
fn compare(pred: CmpPred, a: Sym, b: Sym) -> Sym {
    use CmpPred::*;
    // x against a constant c, or a constant against x (mirrored).
    let (pred, c) = match (a, b) {
        (Sym::X, Sym::Float(c)) => (pred, c),
        (Sym::Float(c), Sym::X) => (
            match pred {
                FOlt => FOgt,
                FOgt => FOlt,
                FOle => FOge,
                FOge => FOle,
                FUlt => FUgt,
                FUgt => FUlt,
                FUle => FUge,
                FUge => FUle,
                p => p,
            },
            c,
        ),
        _ => return Sym::Unknown,
    };
    if c.is_nan() {
        return Sym::Unknown;
    }
    // x is in [-0, +inf] and not NaN, so ordered and unordered predicates
    // agree, and -0 == 0.
    let below = c < 0.0; // every x is above c
    let zero = c == 0.0; // every x is >= c
    match pred {
        FOrd => Sym::Bool(true),
        FUno => Sym::Bool(false),
        FOlt | FUlt if below || zero => Sym::Bool(false),
        FOge | FUge if below || zero => Sym::Bool(true),
        FOle | FUle | FOeq | FUeq if below => Sym::Bool(false),
        FOgt | FUgt | FOne | FUne if below => Sym::Bool(true),
        _ => Sym::Unknown,
    }
}
