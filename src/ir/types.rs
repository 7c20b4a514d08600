//! Types: the entries of the types block, and the value types they describe.

use std::fmt;
use std::sync::Arc;

/// A scalar (primitive, non-void) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Scalar {
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::I1 => 1,
            Scalar::I8 => 8,
            Scalar::I16 => 16,
            Scalar::I32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::F64 => 64,
        }
    }
    pub fn is_int(self) -> bool {
        !self.is_float()
    }
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
    /// The integer type of `bits` width, if PNaCl has one.
    pub fn int(bits: u64) -> Option<Scalar> {
        Some(match bits {
            1 => Scalar::I1,
            8 => Scalar::I8,
            16 => Scalar::I16,
            32 => Scalar::I32,
            64 => Scalar::I64,
            _ => return None,
        })
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scalar::I1 => "i1",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        })
    }
}

/// The type of a value: a scalar or a vector of scalars.
///
/// Pointers are `i32` (PNaCl has no pointer types), so this is every type a
/// value can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValType {
    Scalar(Scalar),
    Vector { elem: Scalar, lanes: u32 },
}

impl ValType {
    pub const I1: ValType = ValType::Scalar(Scalar::I1);
    pub const I8: ValType = ValType::Scalar(Scalar::I8);
    pub const I16: ValType = ValType::Scalar(Scalar::I16);
    pub const I32: ValType = ValType::Scalar(Scalar::I32);
    pub const I64: ValType = ValType::Scalar(Scalar::I64);
    pub const F32: ValType = ValType::Scalar(Scalar::F32);
    pub const F64: ValType = ValType::Scalar(Scalar::F64);

    pub fn scalar(self) -> Option<Scalar> {
        match self {
            ValType::Scalar(s) => Some(s),
            ValType::Vector { .. } => None,
        }
    }
    /// The element type of a vector, or the type itself for a scalar.
    pub fn elem(self) -> Scalar {
        match self {
            ValType::Scalar(s) => s,
            ValType::Vector { elem, .. } => elem,
        }
    }
    pub fn is_vector(self) -> bool {
        matches!(self, ValType::Vector { .. })
    }
    /// Integer scalar or vector of integers (i1 included).
    pub fn is_int_or_int_vector(self) -> bool {
        self.elem().is_int()
    }
    pub fn is_float_or_float_vector(self) -> bool {
        self.elem().is_float()
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValType::Scalar(s) => s.fmt(f),
            ValType::Vector { elem, lanes } => write!(f, "<{lanes} x {elem}>"),
        }
    }
}

/// A function signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncType {
    /// `None` for `void`.
    pub ret: Option<ValType>,
    pub params: Vec<ValType>,
    /// Always false in valid PNaCl; kept so the verifier can say so.
    pub varargs: bool,
}

impl fmt::Display for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ret {
            Some(t) => write!(f, "{t} (")?,
            None => write!(f, "void (")?,
        }
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        if self.varargs {
            f.write_str(if self.params.is_empty() { "..." } else { ", ..." })?;
        }
        f.write_str(")")
    }
}

/// One entry of the types block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Value(ValType),
    /// Shared with the [`FunctionDecl`](super::FunctionDecl)s of this type
    /// (no copy of the parameters per declaration).
    Function(Arc<FuncType>),
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Value(v) => v.fmt(f),
            Type::Function(ft) => ft.fmt(f),
        }
    }
}
