//! Instructions of a function body.

use super::{BlockId, Function, Span, ValType, ValueId};

/// Binary operators, with PNaCl's record opcodes.
///
/// PNaCl reuses the integer opcodes for floating point: `SDiv` on floats is
/// `fdiv`, `SRem` is `frem`, `Add`/`Sub`/`Mul` are `fadd`/`fsub`/`fmul`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

impl BinOp {
    pub fn from_code(code: u64) -> Option<BinOp> {
        use BinOp::*;
        Some(match code {
            0 => Add,
            1 => Sub,
            2 => Mul,
            3 => UDiv,
            4 => SDiv,
            5 => URem,
            6 => SRem,
            7 => Shl,
            8 => LShr,
            9 => AShr,
            10 => And,
            11 => Or,
            12 => Xor,
            _ => return None,
        })
    }
    pub fn code(self) -> u64 {
        self as u64
    }
    /// The PNaClAsm mnemonic for operands of type `ty` (`add` or `fadd`, …).
    pub fn name(self, is_float: bool) -> &'static str {
        use BinOp::*;
        match (self, is_float) {
            (Add, false) => "add",
            (Add, true) => "fadd",
            (Sub, false) => "sub",
            (Sub, true) => "fsub",
            (Mul, false) => "mul",
            (Mul, true) => "fmul",
            (UDiv, _) => "udiv",
            (SDiv, false) => "sdiv",
            (SDiv, true) => "fdiv",
            (URem, _) => "urem",
            (SRem, false) => "srem",
            (SRem, true) => "frem",
            (Shl, _) => "shl",
            (LShr, _) => "lshr",
            (AShr, _) => "ashr",
            (And, _) => "and",
            (Or, _) => "or",
            (Xor, _) => "xor",
        }
    }
}

/// Conversions, with PNaCl's record opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FpToUi,
    FpToSi,
    UiToFp,
    SiToFp,
    FpTrunc,
    FpExt,
    Bitcast,
}

impl CastOp {
    pub fn from_code(code: u64) -> Option<CastOp> {
        use CastOp::*;
        Some(match code {
            0 => Trunc,
            1 => ZExt,
            2 => SExt,
            3 => FpToUi,
            4 => FpToSi,
            5 => UiToFp,
            6 => SiToFp,
            7 => FpTrunc,
            8 => FpExt,
            11 => Bitcast,
            _ => return None,
        })
    }
    pub fn code(self) -> u64 {
        match self {
            CastOp::Bitcast => 11,
            other => other as u64,
        }
    }
    pub fn name(self) -> &'static str {
        use CastOp::*;
        match self {
            Trunc => "trunc",
            ZExt => "zext",
            SExt => "sext",
            FpToUi => "fptoui",
            FpToSi => "fptosi",
            UiToFp => "uitofp",
            SiToFp => "sitofp",
            FpTrunc => "fptrunc",
            FpExt => "fpext",
            Bitcast => "bitcast",
        }
    }
}

/// Comparison predicates, with PNaCl's record codes (fcmp 0..=15, icmp 32..=41).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpPred {
    FFalse,
    FOeq,
    FOgt,
    FOge,
    FOlt,
    FOle,
    FOne,
    FOrd,
    FUno,
    FUeq,
    FUgt,
    FUge,
    FUlt,
    FUle,
    FUne,
    FTrue,
    IEq,
    INe,
    IUgt,
    IUge,
    IUlt,
    IUle,
    ISgt,
    ISge,
    ISlt,
    ISle,
}

impl CmpPred {
    const ALL: [CmpPred; 26] = {
        use CmpPred::*;
        [
            FFalse, FOeq, FOgt, FOge, FOlt, FOle, FOne, FOrd, FUno, FUeq, FUgt, FUge, FUlt, FUle, FUne, FTrue, IEq,
            INe, IUgt, IUge, IUlt, IUle, ISgt, ISge, ISlt, ISle,
        ]
    };
    pub fn from_code(code: u64) -> Option<CmpPred> {
        match code {
            0..=15 => Some(Self::ALL[code as usize]),
            32..=41 => Some(Self::ALL[code as usize - 16]),
            _ => None,
        }
    }
    pub fn code(self) -> u64 {
        let i = Self::ALL.iter().position(|&p| p == self).unwrap() as u64;
        if i < 16 {
            i
        } else {
            i + 16
        }
    }
    pub fn is_float(self) -> bool {
        self.code() < 16
    }
    /// `fcmp`/`icmp` condition name as PNaClAsm prints it (`oeq`, `slt`, …).
    pub fn name(self) -> &'static str {
        use CmpPred::*;
        match self {
            FFalse => "false",
            FOeq => "oeq",
            FOgt => "ogt",
            FOge => "oge",
            FOlt => "olt",
            FOle => "ole",
            FOne => "one",
            FOrd => "ord",
            FUno => "uno",
            FUeq => "ueq",
            FUgt => "ugt",
            FUge => "uge",
            FUlt => "ult",
            FUle => "ule",
            FUne => "une",
            FTrue => "true",
            IEq => "eq",
            INe => "ne",
            IUgt => "ugt",
            IUge => "uge",
            IUlt => "ult",
            IUle => "ule",
            ISgt => "sgt",
            ISge => "sge",
            ISlt => "slt",
            ISle => "sle",
        }
    }
}

/// One case of a switch: `value` (sign-extended to 64 bits) jumps to `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchCase {
    pub value: i64,
    pub target: BlockId,
}

/// What an instruction does. Operands are `ValueId`s in the function's value
/// numbering (see [`super::Function`]); blocks are `BlockId`s. The lists of
/// calls, phis and switches are [`Span`]s of the function's
/// [`Function::call_args`], [`Function::phi_entries`] and
/// [`Function::switch_cases`] (read them with [`Function::args`],
/// [`Function::incoming`], [`Function::cases`]), so an instruction owns
/// nothing and is `Copy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InstKind {
    /// `flags` is the optional fourth record field (nuw/nsw/exact bits),
    /// 0 when absent; PNaCl allows none.
    Binop { op: BinOp, lhs: ValueId, rhs: ValueId, flags: u64 },
    Cast { op: CastOp, value: ValueId, to: ValType },
    Ret { value: Option<ValueId> },
    Br { target: BlockId },
    CondBr { cond: ValueId, if_true: BlockId, if_false: BlockId },
    Switch { ty: ValType, cond: ValueId, default: BlockId, cases: Span },
    Unreachable,
    Phi { ty: ValType, incoming: Span },
    /// `size` bytes (an i32 value) aligned to `align` bytes (0 = unspecified).
    Alloca { size: ValueId, align: u32 },
    Load { ptr: ValueId, ty: ValType, align: u32 },
    Store { ptr: ValueId, value: ValueId, align: u32 },
    Cmp { pred: CmpPred, lhs: ValueId, rhs: ValueId },
    /// `cond ? if_true : if_false`; `cond` is i1 or a vector of i1.
    Select { cond: ValueId, if_true: ValueId, if_false: ValueId },
    ExtractElement { vector: ValueId, index: ValueId },
    InsertElement { vector: ValueId, element: ValueId, index: ValueId },
    /// Direct call: `callee` is a function's value id. `ret` is `None` for void.
    Call { callee: ValueId, args: Span, ret: Option<ValType>, tail: bool, cc: u32 },
    /// Call through an i32 function address.
    CallIndirect { callee: ValueId, args: Span, ret: Option<ValType>, tail: bool, cc: u32 },
}

impl InstKind {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Ret { .. } | InstKind::Br { .. } | InstKind::CondBr { .. } | InstKind::Switch { .. } | InstKind::Unreachable
        )
    }

    /// Successor blocks of a terminator of `f`, in record order
    /// (duplicates kept).
    pub fn successors(&self, f: &Function) -> Vec<BlockId> {
        match *self {
            InstKind::Br { target } => vec![target],
            InstKind::CondBr { if_true, if_false, .. } => vec![if_true, if_false],
            InstKind::Switch { default, cases, .. } => {
                std::iter::once(default).chain(f.cases(cases).iter().map(|c| c.target)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Every value operand of an instruction of `f`, in record order.
    pub fn operands(&self, f: &Function) -> Vec<ValueId> {
        use InstKind::*;
        match *self {
            Binop { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => vec![lhs, rhs],
            Cast { value, .. } => vec![value],
            Ret { value } => value.iter().copied().collect(),
            Br { .. } | Unreachable => Vec::new(),
            CondBr { cond, .. } | Switch { cond, .. } => vec![cond],
            Phi { incoming, .. } => f.incoming(incoming).iter().map(|(v, _)| *v).collect(),
            Alloca { size, .. } => vec![size],
            Load { ptr, .. } => vec![ptr],
            Store { ptr, value, .. } => vec![ptr, value],
            Select { cond, if_true, if_false } => vec![cond, if_true, if_false],
            ExtractElement { vector, index } => vec![vector, index],
            InsertElement { vector, element, index } => vec![vector, element, index],
            Call { callee, args, .. } | CallIndirect { callee, args, .. } => {
                std::iter::once(callee).chain(f.args(args).iter().copied()).collect()
            }
        }
    }
}
