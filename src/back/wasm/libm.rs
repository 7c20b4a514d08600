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
//! which is the plain call either way. Where the argument can never be
//! below zero ([`never_negative`]: squares, sums and products of such
//! values, `fabs`, `llvm.sqrt`, non-negative constants — nbody's
//! `dx*dx + dy*dy + dz*dz`) the call is emitted alone, unguarded, as a
//! patch site of its own: its argument is then `>= -0` or NaN. Once the
//! module's bodies are all in, the guarded patch sites become `f64.sqrt`
//! (padded with `nop`s to the call's size) only if `sqrt`'s body is
//! *proven* to have that fast path, and the unguarded ones only if the
//! NaN path is proven too (below):
//! [`sqrt_fast_path`] interprets the body symbolically under `x >= -0`,
//! following only branches the assumption decides, and succeeds when every
//! step on the path is free of effects, the result is `llvm.sqrt.f64(x)`,
//! and every function called on the way ([`SqrtClaim::helpers`]) is a pure
//! leaf ([`is_pure_leaf`]: no calls, memory, `unreachable` or loops). For
//! `x >= -0`, `llvm.sqrt.f64` is `f64.sqrt`, the correctly rounded IEEE
//! square root, so the result is bit-identical;
//! `tests/all/libm.rs` also runs the original function on edge cases and
//! random arguments against it. Anything else keeps the calls.
//!
//! # The NaN path
//!
//! The same interpretation under "x is a NaN" (every ordered comparison
//! with it false, every unordered one true, its exponent bits all ones)
//! must reach a `ret` of a value computed from `x` by float arithmetic
//! (`x*x + x` in newlib: `fadd`/`fsub`/`fmul`/`fdiv` of `x`, of such
//! values, and of constants that are not NaN), with no effect on the way.
//! Wasm gives such a value and `f64.sqrt(x)` by the same rule: a canonical
//! NaN when `x` is canonical, an arithmetic NaN otherwise (and V8 keeps
//! `x`'s payload, quieted, in both). Returning `x` itself would not do:
//! a signalling NaN would stay signalling.

use super::{Callee, ModuleCx};
use crate::ir::{BinOp, CastOp, CmpPred, ConstValue, Function, InstKind, Module, Scalar, ValType, ValueId, ValueRef};
use crate::verify::Intrinsic;

/// What a body proved about its `sqrt` fast path: the functions it calls
/// on the way, which must all be pure leaves; and, when the NaN path is
/// proven as well, the functions called on that one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqrtClaim {
    pub helpers: Vec<u32>,
    pub nan_helpers: Option<Vec<u32>>,
}

/// What the interpretation assumes of `x`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Assume {
    /// `x >= -0`, ordered: the fast path.
    NotBelowZero,
    /// `x` is a NaN.
    Nan,
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
                default.0 as usize > b && f.cases(*cases).iter().all(|c| c.target.0 as usize > b)
            }
            _ => false,
        })
    })
}

/// A value under the assumption on `x`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Sym {
    /// The parameter `x`.
    X,
    /// `llvm.sqrt.f64(x)`.
    SqrtX,
    /// Under [`Assume::Nan`]: a NaN that float arithmetic made of `x`.
    NanOfX,
    /// `bitcast x to i64`, then `lshr 32` of it, then that `trunc`ed to
    /// i32 (the high word, whose exponent bits a NaN sets).
    XBits,
    XHigh64,
    XHigh,
    Bool(bool),
    Float(f64),
    Int(i64),
    /// Some value the path does not depend on.
    Unknown,
}

/// Proves `sqrt`'s fast path, and tries its NaN path (see the module
/// docs); `None` if the fast path cannot be proven.
pub(crate) fn sqrt_fast_path(f: &Function, cx: &ModuleCx) -> Option<SqrtClaim> {
    let helpers = interpret(f, cx, Assume::NotBelowZero)?;
    Some(SqrtClaim { helpers, nan_helpers: interpret(f, cx, Assume::Nan) })
}

/// Runs `f` on `x` under `assume`; answers the functions called on the
/// way when it returns the value the assumption wants (`llvm.sqrt(x)`, or
/// a NaN computed from `x`) with no effect on the way.
fn interpret(f: &Function, cx: &ModuleCx, assume: Assume) -> Option<Vec<u32>> {
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
                    let (v, _) = f.incoming(*incoming).iter().find(|(_, b)| b.0 as usize == from)?;
                    let s = get(&vals, *v)?;
                    set(&mut vals, inst, s);
                }
                InstKind::Cmp { pred, lhs, rhs } => {
                    let s = compare(assume, *pred, get(&vals, *lhs)?, get(&vals, *rhs)?);
                    set(&mut vals, inst, s);
                }
                InstKind::Binop { op, lhs, rhs, .. } => {
                    let (a, b) = (get(&vals, *lhs)?, get(&vals, *rhs)?);
                    let nan_arith = |s: Sym| matches!(s, Sym::X | Sym::NanOfX) || matches!(s, Sym::Float(c) if !c.is_nan());
                    let from_x = |s: Sym| matches!(s, Sym::X | Sym::NanOfX);
                    let exponent_mask = |m: i64| (m as u32) & !0x7ff0_0000 == 0;
                    let s = match (op, a, b) {
                        // Float arithmetic on a NaN of x (PNaCl's fdiv is SDiv).
                        (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::SDiv, a, b)
                            if assume == Assume::Nan && (from_x(a) || from_x(b)) && nan_arith(a) && nan_arith(b) =>
                        {
                            Sym::NanOfX
                        }
                        (BinOp::LShr, Sym::XBits, Sym::Int(32)) => Sym::XHigh64,
                        (BinOp::And, Sym::XHigh, Sym::Int(m)) | (BinOp::And, Sym::Int(m), Sym::XHigh)
                            if assume == Assume::Nan && exponent_mask(m) =>
                        {
                            Sym::Int(m)
                        }
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
                InstKind::Cast { op, value, .. } => {
                    let s = match (op, get(&vals, *value)?) {
                        (CastOp::Bitcast, Sym::X) => Sym::XBits,
                        (CastOp::Trunc, Sym::XHigh64) => Sym::XHigh,
                        _ => Sym::Unknown,
                    };
                    set(&mut vals, inst, s);
                }
                InstKind::Select { .. } => set(&mut vals, inst, Sym::Unknown),
                InstKind::Call { callee, args, .. } => match cx.callee(*callee)? {
                    Callee::Intrinsic(Intrinsic::Sqrt(crate::ir::Scalar::F64)) => {
                        let [a] = f.args(*args)[..] else { return None };
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
                    let want = match assume {
                        Assume::NotBelowZero => Sym::SqrtX,
                        Assume::Nan => Sym::NanOfX,
                    };
                    return (get(&vals, *v)? == want).then(|| {
                        helpers.sort_unstable();
                        helpers.dedup();
                        helpers
                    });
                }
                // Memory, other calls, switches, unreachable: not proven.
                _ => return None,
            }
        }
    }
}

/// `pred(a, b)` under the assumption, when that decides it.
fn compare(assume: Assume, pred: CmpPred, a: Sym, b: Sym) -> Sym {
    use CmpPred::*;
    match (pred, a, b) {
        (IEq, Sym::Int(x), Sym::Int(y)) => return Sym::Bool(x == y),
        (INe, Sym::Int(x), Sym::Int(y)) => return Sym::Bool(x != y),
        _ => {}
    }
    if assume == Assume::Nan {
        // A NaN against anything: ordered predicates are false, unordered
        // ones true.
        let nan = |s: Sym| matches!(s, Sym::X | Sym::NanOfX);
        let float = |s: Sym| nan(s) || matches!(s, Sym::Float(_));
        if pred.is_float() && (nan(a) || nan(b)) && float(a) && float(b) {
            return Sym::Bool(matches!(pred, FUno | FUeq | FUgt | FUge | FUlt | FUle | FUne | FTrue));
        }
        return Sym::Unknown;
    }
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

/// Whether `v` can never be below zero: every value it takes is `>= -0`
/// (so `-0` too) or a NaN. Squares, and sums and products of such values,
/// stay so (`-0 + -0` is `-0`, `inf * 0` NaN); so do `fabs`, `llvm.sqrt`,
/// `uitofp`, widening, a `select` of two such values, and constants that
/// are not below zero. Division does not (`1 / -0` is `-inf`), nor do phis
/// (a cycle would need a fixed point): both answer no.
pub(crate) fn never_negative(f: &Function, cx: &ModuleCx, v: ValueId) -> bool {
    /// How deep an expression is followed.
    const DEPTH: u32 = 16;
    fn go(f: &Function, cx: &ModuleCx, v: ValueId, depth: u32) -> bool {
        if depth == 0 {
            return false;
        }
        let rec = |v: ValueId| go(f, cx, v, depth - 1);
        match f.value(v) {
            Some(ValueRef::Const(i)) => match f.consts.get(i as usize) {
                Some(c) => match (c.ty, c.value) {
                    (ValType::Scalar(Scalar::F64), ConstValue::Float(bits)) => !(f64::from_bits(bits) < 0.0),
                    (ValType::Scalar(Scalar::F32), ConstValue::Float(bits)) => !(f32::from_bits(bits as u32) < 0.0),
                    _ => false,
                },
                None => false,
            },
            Some(ValueRef::Inst(i)) => {
                let inst = &f.insts[i.0 as usize];
                let float = matches!(inst.result, Some((_, ValType::Scalar(Scalar::F32 | Scalar::F64))));
                match &inst.kind {
                    InstKind::Binop { op: BinOp::Mul, lhs, rhs, .. } if float && lhs == rhs => true,
                    InstKind::Binop { op: BinOp::Mul | BinOp::Add, lhs, rhs, .. } if float => rec(*lhs) && rec(*rhs),
                    InstKind::Select { if_true, if_false, .. } if float => rec(*if_true) && rec(*if_false),
                    InstKind::Cast { op: CastOp::UiToFp, .. } => float,
                    InstKind::Cast { op: CastOp::FpExt, value, .. } => rec(*value),
                    InstKind::Call { callee, .. } => matches!(
                        cx.callee(*callee),
                        Some(Callee::Intrinsic(Intrinsic::Fabs(ValType::Scalar(Scalar::F32 | Scalar::F64))))
                            | Some(Callee::Intrinsic(Intrinsic::Sqrt(_)))
                    ),
                    _ => false,
                }
            }
            _ => false,
        }
    }
    go(f, cx, v, DEPTH)
}
