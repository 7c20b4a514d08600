//! PNaCl value types as WebAssembly value types, and the module's function
//! types, each written once.
//!
//! Integers of at most 32 bits (i1, i8, i16, i32) are wasm `i32` — i1 always
//! 0 or 1, i8 and i16 zero-extended — i64 is `i64`, float and double are
//! `f32` and `f64`, and every vector, `<N x i1>` masks included, is `v128`.

use crate::ir::{Scalar, ValType as IrType};
use std::collections::HashMap;
use wasm_encoder::{TypeSection, ValType};

/// The wasm type that holds values of PNaCl type `t`.
pub fn wasm_type(t: IrType) -> ValType {
    match t {
        IrType::Scalar(Scalar::I1 | Scalar::I8 | Scalar::I16 | Scalar::I32) => ValType::I32,
        IrType::Scalar(Scalar::I64) => ValType::I64,
        IrType::Scalar(Scalar::F32) => ValType::F32,
        IrType::Scalar(Scalar::F64) => ValType::F64,
        IrType::Vector { .. } => ValType::V128,
    }
}

/// The one-byte code of a value type (its binary encoding).
pub(super) fn code(t: ValType) -> u8 {
    match t {
        ValType::I32 => 0x7F,
        ValType::I64 => 0x7E,
        ValType::F32 => 0x7D,
        ValType::F64 => 0x7C,
        _ => 0x7B,
    }
}

/// The value type with binary code `c`.
fn from_code(c: u8) -> Option<ValType> {
    Some(match c {
        0x7F => ValType::I32,
        0x7E => ValType::I64,
        0x7D => ValType::F32,
        0x7C => ValType::F64,
        0x7B => ValType::V128,
        _ => return None,
    })
}

/// The function types of the module, interned: each distinct signature is
/// written to the type section once, in first-use order.
///
/// Bodies read a frozen copy (so they can be translated on any thread): a
/// signature it lacks is written as a placeholder and named by its key (see
/// [`Signatures::lookup_pnacl`]); the module translator interns those keys
/// when it stitches the bodies together, in body order.
#[derive(Clone, Default)]
pub struct Signatures {
    section: TypeSection,
    /// Key: parameter codes, a 0 byte, result codes.
    /// FxHash, not SipHash: looked up for every indirect call, where
    /// SipHash's setup cost more than the rest of the lookup. The keys are
    /// our own type codes (no flooding), and the map is never iterated (the
    /// hash decides no output order).
    index: HashMap<Box<[u8]>, u32, rustc_hash::FxBuildHasher>,
    key: Vec<u8>,
    params: Vec<ValType>,
}

impl Signatures {
    pub fn new() -> Self {
        Self::default()
    }

    /// The type index of `(params) -> (results)`.
    pub fn intern(&mut self, params: &[ValType], results: &[ValType]) -> u32 {
        self.key.clear();
        self.key.extend(params.iter().map(|&t| code(t)));
        self.key.push(0);
        self.key.extend(results.iter().map(|&t| code(t)));
        if let Some(&i) = self.index.get(&self.key[..]) {
            return i;
        }
        let i = self.section.len();
        self.section.ty().function(params.iter().copied(), results.iter().copied());
        self.index.insert(self.key.clone().into_boxed_slice(), i);
        i
    }

    /// The type index of a PNaCl signature if it is interned already, else
    /// its key (for [`Signatures::intern_key`]).
    pub fn lookup_pnacl(&self, params: impl IntoIterator<Item = IrType>, ret: Option<IrType>) -> Result<u32, Box<[u8]>> {
        // The key on the stack when short (nearly always): no allocation
        // unless the signature is missing.
        let mut buf = [0u8; 32];
        let mut n = 0;
        let mut params = params.into_iter();
        for t in params.by_ref() {
            buf[n] = code(wasm_type(t));
            n += 1;
            if n == buf.len() - 2 {
                break;
            }
        }
        let mut long: Vec<u8> = Vec::new();
        let key: &[u8] = if n == buf.len() - 2 {
            long.extend_from_slice(&buf[..n]);
            long.extend(params.map(|t| code(wasm_type(t))));
            long.push(0);
            long.extend(ret.map(|r| code(wasm_type(r))));
            &long
        } else {
            buf[n] = 0;
            n += 1;
            if let Some(r) = ret {
                buf[n] = code(wasm_type(r));
                n += 1;
            }
            &buf[..n]
        };
        match self.index.get(key) {
            Some(&i) => Ok(i),
            None => Err(key.into()),
        }
    }

    /// The type index of the signature with `key` (parameter codes, 0,
    /// result codes); `None` if `key` is not one.
    pub fn intern_key(&mut self, key: &[u8]) -> Option<u32> {
        let split = key.iter().position(|&c| c == 0)?;
        let decode = |c: &u8| from_code(*c);
        let params: Option<Vec<ValType>> = key[..split].iter().map(decode).collect();
        let results: Option<Vec<ValType>> = key[split + 1..].iter().map(decode).collect();
        Some(self.intern(&params?, &results?))
    }

    /// The type index of a PNaCl signature.
    pub fn intern_pnacl<I>(&mut self, params: I, ret: Option<IrType>) -> u32
    where
        I: IntoIterator<Item = IrType>,
        I::IntoIter: Clone,
    {
        let params = params.into_iter();
        // Nearly always there already (a module has a few hundred
        // signatures, thousands of functions): the key on the stack first.
        if let Ok(i) = self.lookup_pnacl(params.clone(), ret) {
            return i;
        }
        let mut p = std::mem::take(&mut self.params);
        p.clear();
        p.extend(params.map(wasm_type));
        let i = match ret {
            Some(r) => self.intern(&p, &[wasm_type(r)]),
            None => self.intern(&p, &[]),
        };
        self.params = p;
        i
    }

    #[cfg(test)]
    pub fn len(&self) -> u32 {
        self.section.len()
    }

    pub fn section(&self) -> &TypeSection {
        &self.section
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_writes_each_signature_once() {
        let mut s = Signatures::new();
        let a = s.intern(&[ValType::I32], &[]);
        let b = s.intern(&[ValType::I32], &[ValType::I32]);
        let c = s.intern_pnacl([IrType::I32], None);
        let d = s.intern_pnacl([IrType::I8], Some(IrType::I1));
        assert_eq!((a, b, c), (0, 1, 0));
        assert_eq!(d, 1);
        assert_eq!(s.len(), 2);
        assert_eq!(s.lookup_pnacl([IrType::I32], None), Ok(0));
        let key = s.lookup_pnacl([IrType::F64], Some(IrType::I64)).unwrap_err();
        assert_eq!(&key[..], &[0x7C, 0, 0x7E]);
        assert_eq!(s.intern_key(&key), Some(2));
        assert_eq!(s.intern_key(&[0x7C, 0x7E]), None);
        assert_eq!(wasm_type(IrType::Vector { elem: Scalar::I1, lanes: 16 }), ValType::V128);
        // Keys longer than the stack buffer.
        for n in [29, 30, 31, 40] {
            let key = s.lookup_pnacl(vec![IrType::I64; n], Some(IrType::F32)).unwrap_err();
            assert_eq!(key.len(), n + 2);
            assert_eq!(s.intern_key(&key), Some(s.intern_pnacl(vec![IrType::I64; n], Some(IrType::F32))));
            assert_eq!(s.lookup_pnacl(vec![IrType::I64; n], Some(IrType::F32)), Ok(s.len() - 1));
        }
    }
}
