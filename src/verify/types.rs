//! Which types PNaCl allows where (PNaClABITypeChecker's rules, plus the
//! per-use restrictions of the bitcode reference).

use crate::ir::{FuncType, Scalar, ValType};

/// Any value type PNaCl allows: every scalar `ValType` can express, and the
/// six vector types `<4/8/16 x i1>`, `<16 x i8>`, `<8 x i16>`, `<4 x i32>`,
/// `<4 x float>`.
pub fn is_valid_value_type(t: ValType) -> bool {
    match t {
        ValType::Scalar(_) => true,
        ValType::Vector { elem, lanes } => matches!(
            (elem, lanes),
            (Scalar::I1, 4 | 8 | 16) | (Scalar::I8, 16) | (Scalar::I16, 8) | (Scalar::I32, 4) | (Scalar::F32, 4)
        ),
    }
}

/// A type a function may take or return (`IsFcnArgType`): integers of at
/// least 32 bits, float, double, or an allowed vector.
pub fn is_valid_param_type(t: ValType) -> bool {
    is_valid_value_type(t)
        && match t {
            ValType::Scalar(s) => s.is_float() || s.bits() >= 32,
            ValType::Vector { .. } => true,
        }
}

/// A signature an ordinary (non-intrinsic) function may have.
pub fn is_valid_function_type(sig: &FuncType) -> bool {
    !sig.varargs && sig.ret.map_or(true, is_valid_param_type) && sig.params.iter().all(|&p| is_valid_param_type(p))
}

/// A type memory can be loaded as or stored from: anything but `i1` and
/// vectors of `i1`.
pub fn is_valid_memory_type(t: ValType) -> bool {
    is_valid_value_type(t) && t.elem() != Scalar::I1
}

/// `BitSizeOf` of the reference: lanes times element width.
pub fn bit_size(t: ValType) -> u32 {
    match t {
        ValType::Scalar(s) => s.bits(),
        ValType::Vector { elem, lanes } => elem.bits().saturating_mul(lanes),
    }
}

/// `UnderlyingCount`: lanes of a vector, 0 for a scalar.
pub fn lanes(t: ValType) -> u32 {
    match t {
        ValType::Scalar(_) => 0,
        ValType::Vector { lanes, .. } => lanes,
    }
}

/// The `i1` (or vector of `i1`) type a comparison of `t` values yields.
pub fn bool_type_for(t: ValType) -> ValType {
    match t {
        ValType::Scalar(_) => ValType::I1,
        ValType::Vector { lanes, .. } => ValType::Vector { elem: Scalar::I1, lanes },
    }
}

/// The alignments a load or store of `t` may state (PNaClABIProps
/// `isAllowedAlignment`): integers 1; float 1 or 4; double 1 or 8; vectors
/// exactly their element size. 0 (unspecified) is never allowed.
pub fn is_allowed_access_alignment(t: ValType, align: u32) -> bool {
    match t {
        ValType::Vector { elem, .. } => elem != Scalar::I1 && align * 8 == elem.bits(),
        ValType::Scalar(Scalar::F32) => align == 1 || align == 4,
        ValType::Scalar(Scalar::F64) => align == 1 || align == 8,
        ValType::Scalar(_) => align == 1,
    }
}

/// Alignment of a global or an alloca: a power of two, or 0 (unspecified,
/// which the record encoding allows and the reference's examples use).
pub fn is_valid_object_alignment(align: u32) -> bool {
    align == 0 || align.is_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(elem: Scalar, lanes: u32) -> ValType {
        ValType::Vector { elem, lanes }
    }

    #[test]
    fn vector_types() {
        for ok in [v(Scalar::I1, 4), v(Scalar::I1, 8), v(Scalar::I1, 16), v(Scalar::I8, 16), v(Scalar::I16, 8)] {
            assert!(is_valid_value_type(ok), "{ok}");
        }
        assert!(is_valid_value_type(v(Scalar::I32, 4)) && is_valid_value_type(v(Scalar::F32, 4)));
        for bad in [v(Scalar::I32, 2), v(Scalar::F64, 2), v(Scalar::I64, 2), v(Scalar::I8, 8), v(Scalar::I1, 2)] {
            assert!(!is_valid_value_type(bad), "{bad}");
        }
    }

    #[test]
    fn param_types() {
        assert!(is_valid_param_type(ValType::I32) && is_valid_param_type(ValType::I64));
        assert!(is_valid_param_type(ValType::F32) && is_valid_param_type(ValType::F64));
        assert!(is_valid_param_type(v(Scalar::I1, 4)));
        for bad in [ValType::I1, ValType::I8, ValType::I16] {
            assert!(!is_valid_param_type(bad));
        }
        let sig = FuncType { ret: None, params: vec![ValType::I32], varargs: true };
        assert!(!is_valid_function_type(&sig));
    }

    #[test]
    fn access_alignment() {
        assert!(is_allowed_access_alignment(ValType::I32, 1));
        assert!(!is_allowed_access_alignment(ValType::I32, 4));
        assert!(!is_allowed_access_alignment(ValType::I8, 0));
        assert!(is_allowed_access_alignment(ValType::F32, 4) && !is_allowed_access_alignment(ValType::F32, 8));
        assert!(is_allowed_access_alignment(ValType::F64, 8) && !is_allowed_access_alignment(ValType::F64, 4));
        assert!(is_allowed_access_alignment(v(Scalar::I32, 4), 4));
        assert!(!is_allowed_access_alignment(v(Scalar::I32, 4), 1));
        assert!(is_allowed_access_alignment(v(Scalar::I8, 16), 1));
        assert!(is_allowed_access_alignment(v(Scalar::I16, 8), 2));
    }
}
