//! Abbreviations: how a record's values are packed into bits.

use super::{BitCursor, BitWriter, Error, ErrorKind};
use crate::limits::{MAX_ABBREV_OPS, MAX_ABBREV_WIDTH, MAX_ZERO_WIDTH_ARRAY};

/// One operand of an abbreviation, as written in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AbbrevOp {
    /// The value is not stored: it is always this constant.
    Literal(u64),
    /// `fixed(N)`: N bits.
    Fixed(u32),
    /// `vbr(N)`: chunks of N bits.
    Vbr(u32),
    /// `array`: a vbr6 length, then that many values of the next operand.
    Array,
    /// `char6`: six bits, one of `[a-zA-Z0-9._]`.
    Char6,
}

/// A validated abbreviation: `Array`, if present, is second to last and is
/// followed by a scalar element operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Abbrev {
    ops: Vec<AbbrevOp>,
}

const CHAR6: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

/// The character a char6 value stands for.
pub fn char6_decode(v: u64) -> u8 {
    CHAR6[(v & 63) as usize]
}

/// The char6 value of `c`, if it has one.
pub fn char6_encode(c: u8) -> Option<u64> {
    CHAR6.iter().position(|&x| x == c).map(|i| i as u64)
}

impl Abbrev {
    /// Checks the shape rules and builds an abbreviation.
    pub fn new(ops: Vec<AbbrevOp>) -> Result<Self, String> {
        if ops.is_empty() {
            return Err("abbreviation has no operands".into());
        }
        if ops.len() > MAX_ABBREV_OPS {
            return Err(format!("abbreviation has {} operands, more than {MAX_ABBREV_OPS}", ops.len()));
        }
        for (i, op) in ops.iter().enumerate() {
            match *op {
                AbbrevOp::Array => {
                    if i + 2 != ops.len() {
                        return Err("array must be the second to last operand".into());
                    }
                    if ops[i + 1] == AbbrevOp::Array {
                        return Err("array of arrays".into());
                    }
                }
                AbbrevOp::Fixed(w) if w > MAX_ABBREV_WIDTH => {
                    return Err(format!("fixed width {w} is larger than {MAX_ABBREV_WIDTH}"))
                }
                AbbrevOp::Vbr(w) if !(2..=MAX_ABBREV_WIDTH).contains(&w) => {
                    return Err(format!("vbr width {w} is out of range 2..={MAX_ABBREV_WIDTH}"))
                }
                _ => {}
            }
        }
        Ok(Abbrev { ops })
    }

    pub fn ops(&self) -> &[AbbrevOp] {
        &self.ops
    }

    /// Reads a DEFINE_ABBREV body (after its abbreviation index).
    pub(crate) fn read(c: &mut BitCursor) -> Result<Self, Error> {
        let start = c.pos();
        let n = c.read_vbr(5)?;
        if n as usize > MAX_ABBREV_OPS {
            return Err(Error::new(start, ErrorKind::BadAbbrev(format!("{n} operands"))));
        }
        let mut ops = Vec::with_capacity(n as usize);
        let mut i = 0;
        while i < n {
            let is_literal = c.read(1)? == 1;
            if is_literal {
                ops.push(AbbrevOp::Literal(c.read_vbr(8)?));
            } else {
                let enc = c.read(3)?;
                ops.push(match enc {
                    1 => AbbrevOp::Fixed(width(c.read_vbr(5)?, c, start)?),
                    2 => AbbrevOp::Vbr(width(c.read_vbr(5)?, c, start)?),
                    3 => AbbrevOp::Array,
                    4 => AbbrevOp::Char6,
                    5 => return Err(Error::new(start, ErrorKind::BadAbbrev("blob is not allowed in PNaCl".into()))),
                    e => return Err(Error::new(start, ErrorKind::BadAbbrev(format!("unknown encoding {e}")))),
                });
            }
            i += 1;
        }
        Abbrev::new(ops).map_err(|m| Error::new(start, ErrorKind::BadAbbrev(m)))
    }

    /// Writes a DEFINE_ABBREV body (after its abbreviation index).
    pub fn write(&self, w: &mut BitWriter) {
        w.write_vbr(self.ops.len() as u64, 5);
        for op in &self.ops {
            match *op {
                AbbrevOp::Literal(v) => {
                    w.write(1, 1);
                    w.write_vbr(v, 8);
                }
                AbbrevOp::Fixed(n) => {
                    w.write(0, 1);
                    w.write(1, 3);
                    w.write_vbr(n as u64, 5);
                }
                AbbrevOp::Vbr(n) => {
                    w.write(0, 1);
                    w.write(2, 3);
                    w.write_vbr(n as u64, 5);
                }
                AbbrevOp::Array => {
                    w.write(0, 1);
                    w.write(3, 3);
                }
                AbbrevOp::Char6 => {
                    w.write(0, 1);
                    w.write(4, 3);
                }
            }
        }
    }

    /// Reads one record encoded with this abbreviation into `out` (code first).
    pub(crate) fn read_record(&self, c: &mut BitCursor, out: &mut Vec<u64>) -> Result<(), Error> {
        let start = c.pos();
        let mut ops = self.ops.iter();
        while let Some(op) = ops.next() {
            if *op == AbbrevOp::Array {
                let elem = *ops.next().expect("validated: array has an element");
                let len = c.read_vbr(6)?;
                let bits = elem_min_bits(elem);
                if bits == 0 {
                    if len > MAX_ZERO_WIDTH_ARRAY {
                        return Err(Error::new(start, ErrorKind::ArrayTooLong(len)));
                    }
                } else if len > c.remaining() / bits {
                    return Err(c.too_many(start, len));
                }
                out.reserve(len as usize);
                for _ in 0..len {
                    out.push(read_scalar(elem, c)?);
                }
            } else {
                out.push(read_scalar(*op, c)?);
            }
        }
        Ok(())
    }

    /// Whether `values` (code first) can be written with this abbreviation.
    pub fn fits(&self, values: &[u64]) -> bool {
        let mut i = 0;
        let mut ops = self.ops.iter();
        while let Some(op) = ops.next() {
            if *op == AbbrevOp::Array {
                let elem = *ops.next().unwrap();
                return values[i.min(values.len())..].iter().all(|&v| scalar_fits(elem, v));
            }
            match values.get(i) {
                Some(&v) if scalar_fits(*op, v) => i += 1,
                _ => return false,
            }
        }
        i == values.len()
    }

    /// Writes `values` (code first) with this abbreviation; they must `fit`.
    pub fn write_record(&self, w: &mut BitWriter, values: &[u64]) {
        debug_assert!(self.fits(values));
        let mut i = 0;
        let mut ops = self.ops.iter();
        while let Some(op) = ops.next() {
            if *op == AbbrevOp::Array {
                let elem = *ops.next().unwrap();
                let rest = &values[i.min(values.len())..];
                w.write_vbr(rest.len() as u64, 6);
                for &v in rest {
                    write_scalar(elem, w, v);
                }
                return;
            }
            write_scalar(*op, w, values[i]);
            i += 1;
        }
    }
}

fn width(w: u64, c: &BitCursor, start: super::BitPos) -> Result<u32, Error> {
    let _ = c;
    if w > MAX_ABBREV_WIDTH as u64 {
        return Err(Error::new(start, ErrorKind::BadAbbrev(format!("width {w} is larger than {MAX_ABBREV_WIDTH}"))));
    }
    Ok(w as u32)
}

fn elem_min_bits(op: AbbrevOp) -> u64 {
    match op {
        AbbrevOp::Literal(_) => 0,
        AbbrevOp::Fixed(n) => n as u64,
        AbbrevOp::Vbr(n) => n as u64,
        AbbrevOp::Char6 => 6,
        AbbrevOp::Array => unreachable!(),
    }
}

#[inline]
fn read_scalar(op: AbbrevOp, c: &mut BitCursor) -> Result<u64, Error> {
    match op {
        AbbrevOp::Literal(v) => Ok(v),
        AbbrevOp::Fixed(n) => c.read(n),
        AbbrevOp::Vbr(n) => c.read_vbr(n),
        AbbrevOp::Char6 => Ok(char6_decode(c.read(6)?) as u64),
        AbbrevOp::Array => unreachable!("validated"),
    }
}

fn scalar_fits(op: AbbrevOp, v: u64) -> bool {
    match op {
        AbbrevOp::Literal(l) => l == v,
        AbbrevOp::Fixed(n) => n >= 64 || v >> n == 0,
        AbbrevOp::Vbr(_) => true,
        AbbrevOp::Char6 => v < 256 && char6_encode(v as u8).is_some(),
        AbbrevOp::Array => false,
    }
}

fn write_scalar(op: AbbrevOp, w: &mut BitWriter, v: u64) {
    match op {
        AbbrevOp::Literal(_) => {}
        AbbrevOp::Fixed(n) => w.write(v, n),
        AbbrevOp::Vbr(n) => w.write_vbr(v, n),
        AbbrevOp::Char6 => w.write(char6_encode(v as u8).unwrap_or(0), 6),
        AbbrevOp::Array => unreachable!(),
    }
}
