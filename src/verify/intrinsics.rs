//! The LLVM intrinsics a pexe may declare, each with its one allowed overload,
//! and the constant operands the NaCl atomic intrinsics take
//! (`NaClAtomicIntrinsics.h`).
//!
//! Signatures are written as they appear in a pexe's types block: PNaCl has
//! no pointer types, so every `i8*` of the LLVM declaration is `i32` here.

use crate::ir::{FuncType, Scalar, ValType};

/// An allowed intrinsic. Overloaded families carry their overload type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// `llvm.bswap.{i16,i32,i64}`: `iN (iN)`.
    Bswap(Scalar),
    /// `llvm.ctlz.{i32,i64}`: `iN (iN, i1 is_zero_undef)`.
    Ctlz(Scalar),
    /// `llvm.cttz.{i32,i64}`: `iN (iN, i1 is_zero_undef)`.
    Cttz(Scalar),
    /// `llvm.ctpop.{i32,i64}`: `iN (iN)`.
    Ctpop(Scalar),
    /// `llvm.fabs.{f32,f64,v4f32}`: `T (T)`.
    Fabs(ValType),
    /// `llvm.sqrt.{f32,f64}`: `T (T)`.
    Sqrt(Scalar),
    /// `llvm.nacl.read.tp`: `i32 ()`.
    ReadTp,
    /// `llvm.nacl.setjmp`: `i32 (i32 jmpbuf)`.
    Setjmp,
    /// `llvm.nacl.longjmp`: `void (i32 jmpbuf, i32 value)`.
    Longjmp,
    /// `llvm.nacl.atomic.load.iN`: `iN (i32 ptr, i32 order)`.
    AtomicLoad(Scalar),
    /// `llvm.nacl.atomic.store.iN`: `void (iN value, i32 ptr, i32 order)`.
    AtomicStore(Scalar),
    /// `llvm.nacl.atomic.rmw.iN`: `iN (i32 op, i32 ptr, iN value, i32 order)`.
    AtomicRmw(Scalar),
    /// `llvm.nacl.atomic.cmpxchg.iN`:
    /// `iN (i32 ptr, iN expected, iN desired, i32 success, i32 failure)`.
    AtomicCmpxchg(Scalar),
    /// `llvm.nacl.atomic.fence`: `void (i32 order)`.
    AtomicFence,
    /// `llvm.nacl.atomic.fence.all`: `void ()`.
    AtomicFenceAll,
    /// `llvm.nacl.atomic.is.lock.free`: `i1 (i32 byte_size, i32 ptr)`.
    AtomicIsLockFree,
    /// `llvm.stacksave`: `i32 ()`.
    Stacksave,
    /// `llvm.stackrestore`: `void (i32)`.
    Stackrestore,
    /// `llvm.trap`: `void ()`.
    Trap,
    /// `llvm.memcpy.p0i8.p0i8.i32`: `void (i32 dst, i32 src, i32 len, i32 align, i1 volatile)`.
    Memcpy,
    /// `llvm.memmove.p0i8.p0i8.i32`: same as memcpy.
    Memmove,
    /// `llvm.memset.p0i8.i32`: `void (i32 dst, i8 value, i32 len, i32 align, i1 volatile)`.
    Memset,
}

/// Operand index of the alignment argument of memcpy/memmove/memset.
pub const MEM_INTRINSIC_ALIGN_ARG: usize = 3;

fn int_suffix(name: &[u8], allowed: &[Scalar]) -> Option<Scalar> {
    let s = match name {
        b"i8" => Scalar::I8,
        b"i16" => Scalar::I16,
        b"i32" => Scalar::I32,
        b"i64" => Scalar::I64,
        _ => return None,
    };
    allowed.contains(&s).then_some(s)
}

const ATOMIC_WIDTHS: &[Scalar] = &[Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64];

impl Intrinsic {
    /// The allowed intrinsic with exactly this name, if any.
    pub fn lookup(name: &[u8]) -> Option<Intrinsic> {
        use Intrinsic::*;
        let rest = name.strip_prefix(b"llvm.")?;
        // Chosen by length, then compared whole: `==` on slices of a known
        // length compares a word at a time, where byte-string patterns
        // compared byte by byte (~40 instructions for memcpy's name, the
        // most called; the verifier looks up every intrinsic call's).
        let is = |exact: &[u8]| rest == exact;
        let found = match rest.len() {
            4 if is(b"trap") => Trap,
            8 if is(b"fabs.f32") => Fabs(ValType::F32),
            8 if is(b"fabs.f64") => Fabs(ValType::F64),
            8 if is(b"sqrt.f32") => Sqrt(Scalar::F32),
            8 if is(b"sqrt.f64") => Sqrt(Scalar::F64),
            9 if is(b"stacksave") => Stacksave,
            10 if is(b"fabs.v4f32") => Fabs(ValType::Vector { elem: Scalar::F32, lanes: 4 }),
            11 if is(b"nacl.setjmp") => Setjmp,
            12 if is(b"nacl.read.tp") => ReadTp,
            12 if is(b"nacl.longjmp") => Longjmp,
            12 if is(b"stackrestore") => Stackrestore,
            15 if is(b"memset.p0i8.i32") => Memset,
            17 if is(b"nacl.atomic.fence") => AtomicFence,
            20 if is(b"memcpy.p0i8.p0i8.i32") => Memcpy,
            21 if is(b"memmove.p0i8.p0i8.i32") => Memmove,
            21 if is(b"nacl.atomic.fence.all") => AtomicFenceAll,
            24 if is(b"nacl.atomic.is.lock.free") => AtomicIsLockFree,
            _ => {
                let (family, suffix) = rest.split_at(rest.iter().rposition(|&c| c == b'.')?);
                let suffix = &suffix[1..];
                let wide = &[Scalar::I32, Scalar::I64][..];
                let is = |f: &[u8]| family == f;
                match family.len() {
                    5 if is(b"bswap") => Bswap(int_suffix(suffix, &[Scalar::I16, Scalar::I32, Scalar::I64])?),
                    4 if is(b"ctlz") => Ctlz(int_suffix(suffix, wide)?),
                    4 if is(b"cttz") => Cttz(int_suffix(suffix, wide)?),
                    5 if is(b"ctpop") => Ctpop(int_suffix(suffix, wide)?),
                    16 if is(b"nacl.atomic.load") => AtomicLoad(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    17 if is(b"nacl.atomic.store") => AtomicStore(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    15 if is(b"nacl.atomic.rmw") => AtomicRmw(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    19 if is(b"nacl.atomic.cmpxchg") => AtomicCmpxchg(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    _ => return None,
                }
            }
        };
        Some(found)
    }

    /// The one signature this intrinsic may be declared with.
    pub fn signature(self) -> FuncType {
        use Intrinsic::*;
        const I1: ValType = ValType::I1;
        const I8: ValType = ValType::I8;
        const I32: ValType = ValType::I32;
        let s = ValType::Scalar;
        let (ret, params): (Option<ValType>, Vec<ValType>) = match self {
            Bswap(t) | Ctpop(t) => (Some(s(t)), vec![s(t)]),
            Ctlz(t) | Cttz(t) => (Some(s(t)), vec![s(t), I1]),
            Fabs(t) => (Some(t), vec![t]),
            Sqrt(t) => (Some(s(t)), vec![s(t)]),
            ReadTp | Stacksave => (Some(I32), vec![]),
            Setjmp => (Some(I32), vec![I32]),
            Longjmp => (None, vec![I32, I32]),
            AtomicLoad(t) => (Some(s(t)), vec![I32, I32]),
            AtomicStore(t) => (None, vec![s(t), I32, I32]),
            AtomicRmw(t) => (Some(s(t)), vec![I32, I32, s(t), I32]),
            AtomicCmpxchg(t) => (Some(s(t)), vec![I32, s(t), s(t), I32, I32]),
            AtomicFence | Stackrestore => (None, vec![I32]),
            AtomicFenceAll | Trap => (None, vec![]),
            AtomicIsLockFree => (Some(I1), vec![I32, I32]),
            Memcpy | Memmove => (None, vec![I32, I32, I32, I32, I1]),
            Memset => (None, vec![I32, I8, I32, I32, I1]),
        };
        FuncType { ret, params, varargs: false }
    }

    /// Whether `sig` is exactly this intrinsic's [`signature`](Self::signature).
    pub fn matches(self, sig: &FuncType) -> bool {
        sig == &self.signature()
    }

    /// Operand indices of the memory-order arguments, with the operation
    /// each one orders.
    pub fn memory_order_args(self) -> &'static [(usize, OrderUse)] {
        use Intrinsic::*;
        match self {
            AtomicLoad(_) => &[(1, OrderUse::Load)],
            AtomicStore(_) => &[(2, OrderUse::Store)],
            AtomicRmw(_) => &[(3, OrderUse::ReadModifyWrite)],
            AtomicCmpxchg(_) => &[(3, OrderUse::CmpxchgSuccess), (4, OrderUse::CmpxchgFailure)],
            AtomicFence => &[(0, OrderUse::Fence)],
            _ => &[],
        }
    }
}

/// What a memory-order argument orders, which decides the orders it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderUse {
    Load,
    Store,
    ReadModifyWrite,
    CmpxchgSuccess,
    CmpxchgFailure,
    Fence,
}

impl OrderUse {
    /// "a load", "a store", ... for messages.
    pub fn describe(self) -> &'static str {
        match self {
            OrderUse::Load => "a load",
            OrderUse::Store => "a store",
            OrderUse::ReadModifyWrite => "a read-modify-write",
            OrderUse::CmpxchgSuccess => "a cmpxchg success",
            OrderUse::CmpxchgFailure => "a cmpxchg failure",
            OrderUse::Fence => "a fence",
        }
    }
}

/// `NaCl::MemoryOrder` (values fixed by the ABI; do not reorder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MemoryOrder {
    Relaxed = 1,
    Consume = 2,
    Acquire = 3,
    Release = 4,
    AcquireRelease = 5,
    SequentiallyConsistent = 6,
}

impl MemoryOrder {
    pub fn from_value(v: i64) -> Option<MemoryOrder> {
        use MemoryOrder::*;
        Some(match v {
            1 => Relaxed,
            2 => Consume,
            3 => Acquire,
            4 => Release,
            5 => AcquireRelease,
            6 => SequentiallyConsistent,
            _ => return None,
        })
    }

    /// The C11 name: `relaxed`, `consume`, `acquire`, `release`,
    /// `acq_rel`, `seq_cst`.
    pub fn name(self) -> &'static str {
        use MemoryOrder::*;
        match self {
            Relaxed => "relaxed",
            Consume => "consume",
            Acquire => "acquire",
            Release => "release",
            AcquireRelease => "acq_rel",
            SequentiallyConsistent => "seq_cst",
        }
    }

    /// Whether PNaCl allows this order for `use_`: never relaxed or consume;
    /// loads not release/acq_rel; stores not acquire/acq_rel; a cmpxchg
    /// failure order not release/acq_rel (its relation to the success
    /// order is checked by the caller).
    pub fn allowed_for(self, use_: OrderUse) -> bool {
        use MemoryOrder::*;
        match self {
            Relaxed | Consume => false,
            _ => match use_ {
                OrderUse::Load | OrderUse::CmpxchgFailure => !matches!(self, Release | AcquireRelease),
                OrderUse::Store => !matches!(self, Acquire | AcquireRelease),
                OrderUse::ReadModifyWrite | OrderUse::CmpxchgSuccess | OrderUse::Fence => true,
            },
        }
    }
}

/// `NaCl::AtomicRMWOperation`: the first argument of `llvm.nacl.atomic.rmw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    Add = 1,
    Sub = 2,
    Or = 3,
    And = 4,
    Xor = 5,
    Exchange = 6,
}

impl RmwOp {
    pub fn from_value(v: i64) -> Option<RmwOp> {
        use RmwOp::*;
        Some(match v {
            1 => Add,
            2 => Sub,
            3 => Or,
            4 => And,
            5 => Xor,
            6 => Exchange,
            _ => return None,
        })
    }
}

/// Operand index of the operation argument of `llvm.nacl.atomic.rmw`.
pub const RMW_OP_ARG: usize = 0;
/// Operand index of the byte-size argument of `llvm.nacl.atomic.is.lock.free`.
pub const LOCK_FREE_SIZE_ARG: usize = 0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_exact_names_only() {
        assert_eq!(Intrinsic::lookup(b"llvm.memcpy.p0i8.p0i8.i32"), Some(Intrinsic::Memcpy));
        assert_eq!(Intrinsic::lookup(b"llvm.nacl.atomic.rmw.i16"), Some(Intrinsic::AtomicRmw(Scalar::I16)));
        assert_eq!(Intrinsic::lookup(b"llvm.bswap.i16"), Some(Intrinsic::Bswap(Scalar::I16)));
        assert_eq!(Intrinsic::lookup(b"llvm.nacl.atomic.fence.all"), Some(Intrinsic::AtomicFenceAll));
        for bad in [
            &b"llvm.memcpy.p0i8.p0i8.i64"[..],
            b"llvm.ctlz.i16",
            b"llvm.bswap.i8",
            b"llvm.sqrt.v4f32",
            b"llvm.cos.f32",
            b"llvm.nacl.atomic.load.i128",
            b"llvm.",
            b"memcpy",
            b"llvm.lifetime.start",
        ] {
            assert_eq!(Intrinsic::lookup(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    /// `lookup` as it was written before it chose by length: one
    /// byte-string pattern per name.
    fn lookup_by_patterns(name: &[u8]) -> Option<Intrinsic> {
        use Intrinsic::*;
        let rest = name.strip_prefix(b"llvm.")?;
        Some(match rest {
            b"nacl.read.tp" => ReadTp,
            b"nacl.setjmp" => Setjmp,
            b"nacl.longjmp" => Longjmp,
            b"nacl.atomic.fence" => AtomicFence,
            b"nacl.atomic.fence.all" => AtomicFenceAll,
            b"nacl.atomic.is.lock.free" => AtomicIsLockFree,
            b"stacksave" => Stacksave,
            b"stackrestore" => Stackrestore,
            b"trap" => Trap,
            b"memcpy.p0i8.p0i8.i32" => Memcpy,
            b"memmove.p0i8.p0i8.i32" => Memmove,
            b"memset.p0i8.i32" => Memset,
            b"fabs.f32" => Fabs(ValType::F32),
            b"fabs.f64" => Fabs(ValType::F64),
            b"fabs.v4f32" => Fabs(ValType::Vector { elem: Scalar::F32, lanes: 4 }),
            b"sqrt.f32" => Sqrt(Scalar::F32),
            b"sqrt.f64" => Sqrt(Scalar::F64),
            _ => {
                let (family, suffix) = rest.split_at(rest.iter().rposition(|&c| c == b'.')?);
                let suffix = &suffix[1..];
                let wide = &[Scalar::I32, Scalar::I64][..];
                match family {
                    b"bswap" => Bswap(int_suffix(suffix, &[Scalar::I16, Scalar::I32, Scalar::I64])?),
                    b"ctlz" => Ctlz(int_suffix(suffix, wide)?),
                    b"cttz" => Cttz(int_suffix(suffix, wide)?),
                    b"ctpop" => Ctpop(int_suffix(suffix, wide)?),
                    b"nacl.atomic.load" => AtomicLoad(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    b"nacl.atomic.store" => AtomicStore(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    b"nacl.atomic.rmw" => AtomicRmw(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    b"nacl.atomic.cmpxchg" => AtomicCmpxchg(int_suffix(suffix, ATOMIC_WIDTHS)?),
                    _ => return None,
                }
            }
        })
    }

    /// `lookup` against `lookup_by_patterns` on every name either knows
    /// (each family with every width) and on pseudo-random edits of them:
    /// a byte changed, dropped or added, a prefix, a name run on.
    #[test]
    fn lookup_by_length_matches_patterns() {
        let mut names: Vec<Vec<u8>> = [
            "nacl.read.tp", "nacl.setjmp", "nacl.longjmp", "nacl.atomic.fence", "nacl.atomic.fence.all",
            "nacl.atomic.is.lock.free", "stacksave", "stackrestore", "trap", "memcpy.p0i8.p0i8.i32",
            "memmove.p0i8.p0i8.i32", "memset.p0i8.i32", "fabs.f32", "fabs.f64", "fabs.v4f32", "sqrt.f32", "sqrt.f64",
        ]
        .iter()
        .map(|n| format!("llvm.{n}").into_bytes())
        .collect();
        let families = [
            "bswap", "ctlz", "cttz", "ctpop", "nacl.atomic.load", "nacl.atomic.store", "nacl.atomic.rmw",
            "nacl.atomic.cmpxchg", "fabs", "sqrt",
        ];
        for family in families {
            for width in ["i1", "i8", "i16", "i32", "i64", "i128", "f32", ""] {
                names.push(format!("llvm.{family}.{width}").into_bytes());
            }
        }
        let known = names.len();
        let mut next = crate::test_rng(0x51_7cc1_b727_220au64);
        for k in 0..20_000 {
            let mut name = names[k % known].clone();
            match next(5) {
                0 => {
                    let at = next(name.len() as u64) as usize;
                    name[at] = b"lmv.ntaicp0123468efisx"[next(22) as usize];
                }
                1 => {
                    name.remove(next(name.len() as u64) as usize);
                }
                2 => name.insert(next(name.len() as u64 + 1) as usize, b"l.a0i"[next(5) as usize]),
                3 => name.truncate(next(name.len() as u64 + 1) as usize),
                _ => name.extend_from_slice(&names[next(known as u64) as usize][5..]),
            }
            names.push(name);
        }
        let mut found = 0;
        for name in &names {
            let expected = lookup_by_patterns(name);
            assert_eq!(Intrinsic::lookup(name), expected, "{}", String::from_utf8_lossy(name));
            found += usize::from(expected.is_some());
        }
        assert!(found > 200 && found < names.len() / 2, "{found} of {} names found", names.len());
    }

    #[test]
    fn signatures() {
        assert_eq!(Intrinsic::Memcpy.signature().to_string(), "void (i32, i32, i32, i32, i1)");
        assert_eq!(Intrinsic::Memset.signature().to_string(), "void (i32, i8, i32, i32, i1)");
        assert_eq!(Intrinsic::AtomicCmpxchg(Scalar::I8).signature().to_string(), "i8 (i32, i8, i8, i32, i32)");
        assert_eq!(Intrinsic::Ctlz(Scalar::I64).signature().to_string(), "i64 (i64, i1)");
        assert_eq!(Intrinsic::AtomicIsLockFree.signature().to_string(), "i1 (i32, i32)");
    }

    #[test]
    fn memory_orders() {
        use MemoryOrder::*;
        assert!(SequentiallyConsistent.allowed_for(OrderUse::Load));
        assert!(!Relaxed.allowed_for(OrderUse::Fence));
        assert!(!Release.allowed_for(OrderUse::Load));
        assert!(!Acquire.allowed_for(OrderUse::Store));
        assert!(!AcquireRelease.allowed_for(OrderUse::CmpxchgFailure));
        assert!(AcquireRelease.allowed_for(OrderUse::ReadModifyWrite));
        assert_eq!(MemoryOrder::from_value(7), None);
    }
}
