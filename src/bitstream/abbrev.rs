//! Abbreviations: how a record's values are packed into bits.

use super::cursor::FastBits;
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
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Abbrev {
    ops: Vec<AbbrevOp>,
    /// Operands before the array (all of them when there is none): the
    /// record reader takes these as a run of scalars, then the array.
    scalars: usize,
    /// Those scalars in the record fast path's form, if they are a literal
    /// or none, then fixed and VBR fields only (else it reads `ops`).
    fast: Option<FastScalars>,
    /// For the shape most records have (`fast` packed, its first operand a
    /// literal code, no array, at most three fields): what the record fast
    /// path reads them with. It then takes the code from here, not the
    /// input, and the fields from the load that held the abbreviation
    /// index, with no test of the shape per record.
    simple: Simple,
    /// Whether the operands end in an array of fixed(8): bytes, which a
    /// sink that wants them gets as such (`read_bytes_fast`).
    byte_array: bool,
}

/// An abbreviation's scalars as the record fast path reads them: every
/// field the same way, with no jump per operand kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FastScalars {
    /// The first operand, if it is a literal (usually the record code).
    first_literal: Option<u64>,
    /// The other scalars. Three bytes each, so abbreviations cost little
    /// more memory than their operands already do.
    fields: Vec<FastField>,
    /// Whether the fields take at most 57 bits (a VBR field counted as one
    /// chunk): then one load holds them all, each at its `shift`.
    packed: bool,
    /// The continuation bits of the VBR fields' first chunks, at their
    /// offsets in that load: none set means every field is one chunk.
    continues: u64,
    /// Bits the fields take when `packed` and no continuation bit is set.
    bits: u32,
}

/// `Abbrev::simple`, in the abbreviation itself rather than behind an
/// `Option` and a vector: read for most records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Simple {
    code: u32,
    /// How many fields follow the code (0..=3), or `NOT_SIMPLE`.
    fields: u8,
    /// `FastScalars::bits`.
    bits: u8,
    /// `FastScalars::continues`.
    continues: u64,
    /// The fields; the unused ones have mask 0, so they read as 0 (into
    /// values past the record's, which nothing reads).
    field: [FastField; 3],
    /// Which of `KNOWN`'s field lists `field` is, if one (`NOT_KNOWN`).
    known: u8,
    /// Where `(known, code)` is in `KNOWN_RECORDS`, if there (`NOT_KNOWN`).
    record: u8,
}

const NOT_SIMPLE: u8 = u8::MAX;
pub(crate) const NOT_KNOWN: u8 = u8::MAX;

/// The fields of the toolchain's own abbreviations, which nearly every
/// record of a pexe's function, constants and globals blocks is written
/// with (after its literal code): LOAD; BINOP and CAST; STORE; FORWARDTYPEREF;
/// RET, a constants SETTYPE and global initializers; INTEGER and FLOAT
/// constants; INTEGER 0 (a literal 0 field, read as fixed(0)). An
/// abbreviation with exactly these fields is read by `read_known` with them
/// as constants (shifts and masks in the code, not loaded from the
/// abbreviation), the same reading as any other's.
const KNOWN: [&[FastField]; 7] = [
    &fields_of([(6, true), (4, true), (4, true)]),
    &fields_of([(6, true), (6, true), (4, false)]),
    &fields_of([(6, true), (6, true), (4, true)]),
    &fields_of([(6, true), (6, true)]),
    &fields_of([(6, true)]),
    &fields_of([(8, true)]),
    &fields_of([(0, false)]),
];

/// Indices into `KNOWN` (the field lists), by the records written with
/// each; the asserts hold each to its field count. A sink names the
/// records it takes by their `KNOWN_RECORDS` index (`RecordSink::TAKES`).
pub(crate) const KNOWN_LOAD: u8 = 0;
pub(crate) const KNOWN_BINOP_CAST: u8 = 1;
pub(crate) const KNOWN_STORE: u8 = 2;
pub(crate) const KNOWN_FORWARD_TYPE: u8 = 3;
pub(crate) const KNOWN_ONE_VALUE: u8 = 4;
pub(crate) const KNOWN_CONSTANT: u8 = 5;
pub(crate) const KNOWN_ZERO: u8 = 6;
/// The toolchain's abbreviated records by their field list and literal
/// code (the block's own record code): what a sink can take by value
/// (`RecordSink::known`, by index here). An abbreviation knows its index
/// (`Abbrev::known_record`), so the record fast path dispatches once on it
/// with the code a constant in each arm, and a sink's match on the code
/// folds away: no code to load, keep or compare per record.
pub(crate) const KNOWN_RECORDS: [(u8, u32); 9] = [
    (KNOWN_LOAD, 20),         // function block LOAD
    (KNOWN_BINOP_CAST, 2),    // function block BINOP
    (KNOWN_BINOP_CAST, 3),    // function block CAST
    (KNOWN_STORE, 24),        // function block STORE
    (KNOWN_FORWARD_TYPE, 43), // function block FORWARDTYPEREF
    (KNOWN_ONE_VALUE, 10),    // function block RET
    (KNOWN_ONE_VALUE, 1),     // constants SETTYPE
    (KNOWN_CONSTANT, 4),      // constants INTEGER
    (KNOWN_ZERO, 4),          // constants INTEGER 0
];
/// Indices into `KNOWN_RECORDS`.
pub(crate) const RECORD_LOAD: u8 = 0;
pub(crate) const RECORD_BINOP: u8 = 1;
pub(crate) const RECORD_CAST: u8 = 2;
pub(crate) const RECORD_STORE: u8 = 3;
pub(crate) const RECORD_FORWARD_TYPE: u8 = 4;
pub(crate) const RECORD_RET: u8 = 5;
pub(crate) const RECORD_SETTYPE: u8 = 6;
pub(crate) const RECORD_INTEGER: u8 = 7;
pub(crate) const RECORD_ZERO: u8 = 8;
const _: () = {
    assert!(KNOWN[KNOWN_LOAD as usize].len() == 3);
    assert!(KNOWN[KNOWN_BINOP_CAST as usize].len() == 3);
    assert!(KNOWN[KNOWN_STORE as usize].len() == 3);
    assert!(KNOWN[KNOWN_FORWARD_TYPE as usize].len() == 2);
    assert!(KNOWN[KNOWN_ONE_VALUE as usize].len() == 1);
    assert!(KNOWN[KNOWN_CONSTANT as usize].len() == 1);
    assert!(KNOWN[KNOWN_ZERO as usize].len() == 1);
};

/// `FastScalars::of`'s fields for `(width, vbr)` operands, at compile time.
const fn fields_of<const N: usize>(ops: [(u32, bool); N]) -> [FastField; N] {
    let mut out = [FastField { mask: 0, hi: 0, width: 0, shift: 0 }; N];
    let mut bits = 0;
    let mut k = 0;
    while k < N {
        let (width, vbr) = ops[k];
        let hi = if vbr { 1u64 << (width - 1) } else { 0 };
        out[k] = FastField { mask: !(u64::MAX << width), hi, width: width as u8, shift: bits as u8 };
        bits += width;
        k += 1;
    }
    out
}

/// The continuation bits of `fields`' first chunks and the bits they take
/// (`FastScalars::continues` and `bits`), at compile time.
const fn packing(fields: &[FastField]) -> (u64, u32) {
    let mut continues = 0;
    let mut bits = 0;
    let mut k = 0;
    while k < fields.len() {
        let f = fields[k];
        if f.hi != 0 {
            continues |= f.hi << f.shift;
        }
        bits += f.width as u32;
        k += 1;
    }
    (continues, bits)
}

impl Simple {
    fn of(scalars: usize, ops: usize, fast: Option<&FastScalars>) -> Simple {
        const UNUSED: FastField = FastField { mask: 0, hi: 0, width: 0, shift: 0 };
        let mut s = Simple { code: 0, fields: NOT_SIMPLE, bits: 0, continues: 0, field: [UNUSED; 3], known: NOT_KNOWN, record: NOT_KNOWN };
        let Some(f) = fast.filter(|f| scalars == ops && f.packed && f.fields.len() <= 3) else { return s };
        let Some(code) = f.first_literal.and_then(|c| u32::try_from(c).ok()) else { return s };
        s.field[..f.fields.len()].copy_from_slice(&f.fields);
        let known = KNOWN.iter().position(|k| *k == &f.fields[..]).map_or(NOT_KNOWN, |i| i as u8);
        let record = KNOWN_RECORDS.iter().position(|&r| r == (known, code)).map_or(NOT_KNOWN, |i| i as u8);
        Simple { code, fields: f.fields.len() as u8, bits: f.bits as u8, continues: f.continues, known, record, ..s }
    }
}

/// A fixed or VBR field: take `width` bits; for VBR, a set top bit among
/// them means more chunks follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct FastField {
    /// The low `width` bits.
    mask: u64,
    /// The continuation bit of a VBR chunk (bit `width - 1`); 0 for a
    /// fixed field.
    hi: u64,
    width: u8,
    /// Offset from the first field's first bit, when `FastScalars::packed`.
    shift: u8,
}

impl FastScalars {
    fn of(scalars: &[AbbrevOp]) -> Option<FastScalars> {
        let (first_literal, rest) = match scalars {
            [AbbrevOp::Literal(v), rest @ ..] => (Some(*v), rest),
            _ => (None, scalars),
        };
        let mut bits = 0u32;
        let mut continues = 0u64;
        let fields = rest
            .iter()
            .map(|op| {
                let (width, vbr) = match *op {
                    AbbrevOp::Fixed(n) => (n, false),
                    // Reads as fixed(0): no bits, the value 0 (INTEGER 0's
                    // abbreviation, `KNOWN_ZERO`).
                    AbbrevOp::Literal(0) => (0, false),
                    AbbrevOp::Vbr(n) => (n, true),
                    _ => return None,
                };
                let shift = bits.min(64) as u8;
                if vbr && bits + width <= 57 {
                    continues |= 1u64 << (bits + width - 1);
                }
                bits += width;
                let mask = !(u64::MAX << width);
                let hi = if vbr { 1u64 << (width - 1) } else { 0 };
                Some(FastField { mask, hi, width: width as u8, shift })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(FastScalars { first_literal, fields, packed: bits <= 57, continues, bits })
    }
}

/// Shows the operands only: `scalars` follows from them.
impl std::fmt::Debug for Abbrev {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Abbrev").field("ops", &self.ops).finish()
    }
}

const CHAR6: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

/// The character a char6 value stands for.
#[inline]
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
        let scalars = ops.iter().position(|op| *op == AbbrevOp::Array).unwrap_or(ops.len());
        let fast = FastScalars::of(&ops[..scalars]);
        let simple = Simple::of(scalars, ops.len(), fast.as_ref());
        let byte_array = ops[scalars..] == [AbbrevOp::Array, AbbrevOp::Fixed(8)];
        Ok(Abbrev { ops, scalars, fast, simple, byte_array })
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

    /// Reads one record encoded with this abbreviation into the first
    /// values of `buf` (code first), growing it if needed; returns how many.
    #[inline]
    pub(crate) fn read_record(&self, c: &mut BitCursor, buf: &mut Vec<u64>) -> Result<usize, Error> {
        let start = c.pos();
        let scalars = self.scalars;
        for (slot, &op) in slots(buf, 0, scalars).iter_mut().zip(&self.ops[..scalars]) {
            *slot = read_scalar(op, c)?;
        }
        let [AbbrevOp::Array, elem] = self.ops[scalars..] else { return Ok(scalars) };
        let len = c.read_vbr6()?;
        let bits = elem_min_bits(elem);
        if bits == 0 {
            if len > MAX_ZERO_WIDTH_ARRAY {
                return Err(Error::new(start, ErrorKind::ArrayTooLong(len)));
            }
        } else if len > c.remaining() / bits {
            return Err(c.too_many(start, len));
        }
        let items = slots(buf, scalars, len as usize);
        match elem {
            // The common element encodings get their own loops.
            AbbrevOp::Fixed(8) => items.iter_mut().try_for_each(|v| c.read(8).map(|x| *v = x))?,
            AbbrevOp::Char6 => items.iter_mut().try_for_each(|v| c.read(6).map(|x| *v = char6_decode(x) as u64))?,
            AbbrevOp::Vbr(6) => items.iter_mut().try_for_each(|v| c.read_vbr6().map(|x| *v = x))?,
            _ => items.iter_mut().try_for_each(|v| read_scalar(elem, c).map(|x| *v = x))?,
        }
        Ok(scalars + len as usize)
    }

    /// `read_record` on the fast path for abbreviations of the common shape
    /// (see `simple`): the fields into `buf[1..]` (`buf[0]` left as it
    /// is), from `word`
    /// whose low `avail` bits are the input's next; answers the code, the
    /// number of values and the bits used. `None` for any other shape or
    /// when the fields run past `avail`: then `read_record_fast` decides.
    #[inline(always)]
    pub(crate) fn read_simple(&self, buf: &mut Vec<u64>, word: u64, avail: u32) -> Option<(u32, usize, u32)> {
        let s = &self.simple;
        if s.fields == NOT_SIMPLE {
            return None;
        }
        let n = s.fields as usize + 1;
        // Four values always: the code's place and up to three fields.
        // The code is answered, not written: every reader of a record's
        // values (`ops[1..]`) takes its code from the answer.
        let out: &mut [u64; 4] = slots(buf, 0, 4).try_into().ok()?;
        // The toolchain's abbreviations with their fields as constants.
        let used = match s.known {
            0 => read_known::<3, 0, false>(word, avail, &mut out[1..]),
            1 => read_known::<3, 1, false>(word, avail, &mut out[1..]),
            2 => read_known::<3, 2, false>(word, avail, &mut out[1..]),
            3 => read_known::<2, 3, false>(word, avail, &mut out[1..]),
            4 => read_known::<1, 4, false>(word, avail, &mut out[1..]),
            5 => read_known::<1, 5, false>(word, avail, &mut out[1..]),
            6 => read_known::<1, 6, false>(word, avail, &mut out[1..]),
            _ => None,
        };
        if s.known != NOT_KNOWN {
            return used.map(|used| (s.code, n, used));
        }
        let used = if word & s.continues == 0 && s.bits as u32 <= avail {
            // Each field at its place, all three (unused ones read 0).
            for k in 0..3 {
                out[k + 1] = (word >> s.field[k].shift) & s.field[k].mask;
            }
            s.bits as u32
        } else {
            // Unrolled for the field counts.
            match s.fields {
                1 => fields_in_word_n::<1>(word, avail, &s.field[..1], &mut out[1..2])?,
                2 => fields_in_word_n::<2>(word, avail, &s.field[..2], &mut out[1..3])?,
                _ => fields_in_word_n::<3>(word, avail, &s.field[..], &mut out[1..])?,
            }
        };
        Some((s.code, n, used))
    }

    /// Which of `KNOWN`'s field lists this abbreviation reads with (its
    /// index, `NOT_KNOWN` for none) and its code: for a record run whose
    /// sink takes such records with their fields by value
    /// (`RecordSink::known`).
    #[inline(always)]
    pub(crate) fn known(&self) -> (u8, u32) {
        (self.simple.known, self.simple.code)
    }

    /// Where this abbreviation's record is in `KNOWN_RECORDS` (`NOT_KNOWN`
    /// for none): its field list and code in one index.
    #[inline(always)]
    pub(crate) fn known_record(&self) -> u8 {
        self.simple.record
    }

    /// `read_record` on the fast path: `None` wherever that would not
    /// simply succeed, and then the caller reads the record with it.
    /// `(word, bits)`: the next bits of the input, already loaded, and how
    /// many of them are valid.
    #[inline(always)]
    pub(crate) fn read_record_fast(&self, reader: &mut FastBits, buf: &mut Vec<u64>, loaded: (u64, u32)) -> Option<usize> {
        // A local copy, so it can live in registers; written back on success.
        let mut r = *reader;
        self.read_scalars_fast(&mut r, buf, loaded)?;
        let scalars = self.scalars;
        let [AbbrevOp::Array, elem] = self.ops[scalars..] else {
            *reader = r;
            return Some(scalars);
        };
        let len = r.vbr6()?;
        let bits = elem_min_bits(elem);
        if bits == 0 || len > r.remaining() / bits {
            return None;
        }
        let items = slots(buf, scalars, len as usize);
        match elem {
            // Seven bytes or nine char6 values per load.
            AbbrevOp::Fixed(8) => {
                let mut runs = items.chunks_exact_mut(7);
                for run in &mut runs {
                    let word = r.peek()?;
                    for (k, v) in run.iter_mut().enumerate() {
                        *v = (word >> (8 * k)) & 0xff;
                    }
                    r.skip(56);
                }
                runs.into_remainder().iter_mut().try_for_each(|v| r.read(8).map(|x| *v = x))?
            }
            AbbrevOp::Char6 => {
                let mut runs = items.chunks_exact_mut(9);
                for run in &mut runs {
                    let word = r.peek()?;
                    for (k, v) in run.iter_mut().enumerate() {
                        *v = char6_decode(word >> (6 * k)) as u64;
                    }
                    r.skip(54);
                }
                runs.into_remainder().iter_mut().try_for_each(|v| r.read(6).map(|x| *v = char6_decode(x) as u64))?
            }
            AbbrevOp::Vbr(6) => r.vbr6_run(items)?,
            AbbrevOp::Fixed(n) => items.iter_mut().try_for_each(|v| r.read(n).map(|x| *v = x))?,
            AbbrevOp::Vbr(n) => items.iter_mut().try_for_each(|v| r.vbr(n).map(|x| *v = x))?,
            AbbrevOp::Literal(_) | AbbrevOp::Array => return None,
        }
        *reader = r;
        Some(scalars + len as usize)
    }

    /// The scalars of a record (the operands before any array) on the fast
    /// path, into the first values of `buf`; `(word, bits)` as for
    /// `read_record_fast`. `None` where that would give up; `r` has then
    /// moved by an unknown amount (the callers read on a copy).
    // One copy in the package (its size budget), not one per caller.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn read_scalars_fast(&self, r: &mut FastBits, buf: &mut Vec<u64>, (word, bits): (u64, u32)) -> Option<()> {
        let scalars = self.scalars;
        let out = slots(buf, 0, scalars);
        if let Some(fast) = &self.fast {
            let rest = match (fast.first_literal, out.split_first_mut()) {
                (Some(v), Some((first, rest))) => {
                    *first = v;
                    rest
                }
                _ => out,
            };
            // One load for all the fields when they fit in it: each at its
            // place when every VBR field is one chunk (the common case), else
            // walked through the word; field by field when they run past it.
            let loaded = match fast.packed {
                true if fast.bits <= bits => Some((word, bits)),
                true => r.peek().map(|w| (w, 57)),
                false => None,
            };
            let used = match loaded {
                Some((word, _)) if word & fast.continues == 0 => {
                    for (slot, field) in rest.iter_mut().zip(&fast.fields) {
                        *slot = (word >> field.shift) & field.mask;
                    }
                    Some(fast.bits)
                }
                Some((word, avail)) => fields_in_word(word, avail, &fast.fields, rest),
                None => None,
            };
            if let Some(used) = used {
                r.skip(used);
            } else {
                for (slot, field) in rest.iter_mut().zip(&fast.fields) {
                    let width = field.width as u32;
                    let chunk = r.read(width)?;
                    let hi = field.hi;
                    *slot = if chunk & hi == 0 { chunk } else { r.vbr_rest(width, chunk & (hi - 1))? };
                }
            }
        } else {
            for (slot, &op) in out.iter_mut().zip(&self.ops[..scalars]) {
                *slot = match op {
                    AbbrevOp::Literal(v) => v,
                    AbbrevOp::Fixed(n) => r.read(n)?,
                    AbbrevOp::Vbr(n) => r.vbr(n)?,
                    AbbrevOp::Char6 => char6_decode(r.read(6)?) as u64,
                    AbbrevOp::Array => return None,
                };
            }
        }
        Some(())
    }

    /// `read_record_fast` for an abbreviation ending in an array of
    /// fixed(8) (`byte_array`): its scalars into `buf`, its array into
    /// `bytes`, seven bytes per load and one store each. Answers how many
    /// of each; `None` for other abbreviations and wherever
    /// `read_record_fast` would give up (then the caller reads the record
    /// with that, on the same terms).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(crate) fn read_bytes_fast(
        &self,
        reader: &mut FastBits,
        buf: &mut Vec<u64>,
        bytes: &mut Vec<u8>,
        loaded: (u64, u32),
    ) -> Option<(usize, usize)> {
        if !self.byte_array {
            return None;
        }
        let mut r = *reader;
        self.read_scalars_fast(&mut r, buf, loaded)?;
        let len = r.vbr6()?;
        // Bounded by the bits left, as `read_record_fast` bounds it.
        if len > r.remaining() / 8 {
            return None;
        }
        let len = len as usize;
        if bytes.len() < len {
            grow_bytes(bytes, len);
        }
        let out = &mut bytes[..len];
        let mut runs = out.chunks_exact_mut(7);
        for run in &mut runs {
            let word = r.peek()?;
            run.copy_from_slice(&word.to_le_bytes()[..7]);
            r.skip(56);
        }
        runs.into_remainder().iter_mut().try_for_each(|v| r.read(8).map(|x| *v = x as u8))?;
        *reader = r;
        Some((self.scalars, len))
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

/// Reads `fields` (VBR ones of any number of chunks) into `out` from
/// `word`, whose low `avail` (at most 57) bits are the input's next bits:
/// the bits used, or `None` if the fields run past them.
#[inline(always)]
fn fields_in_word(word: u64, avail: u32, fields: &[FastField], out: &mut [u64]) -> Option<u32> {
    let mut off = 0u32;
    for (slot, field) in out.iter_mut().zip(fields) {
        let width = field.width as u32;
        let (mask, hi) = (field.mask, field.hi);
        if off + width > avail {
            return None;
        }
        let chunk = (word >> off) & mask;
        off += width;
        let mut value = chunk & !hi;
        if chunk & hi != 0 {
            // At most 57 payload bits in all: no overflow to check.
            let mut shift = width - 1;
            loop {
                if off + width > avail {
                    return None;
                }
                let chunk = (word >> off) & mask;
                off += width;
                value |= (chunk & !hi) << shift;
                if chunk & hi == 0 {
                    break;
                }
                shift += width - 1;
            }
        }
        *slot = value;
    }
    Some(off)
}

/// `fields_in_word` for exactly `N` fields, unrolled. Chunks are taken
/// past `avail` (a shift past 63 bits wraps and reads garbage, never out
/// of the word) and the bits used are checked against it once at the end;
/// a continuation loop stops at `avail`, so it stays bounded.
#[inline(always)]
fn fields_in_word_n<const N: usize>(word: u64, avail: u32, fields: &[FastField], out: &mut [u64]) -> Option<u32> {
    let fields: &[FastField; N] = fields.try_into().ok()?;
    let out: &mut [u64; N] = out.try_into().ok()?;
    let mut off = 0u32;
    for k in 0..N {
        let FastField { mask, hi, width, .. } = fields[k];
        let width = width as u32;
        // Two chunks at once: most values of more than one chunk have two.
        let two = word.wrapping_shr(off);
        let mut chunk = two & mask;
        off += width;
        let mut value = chunk & !hi;
        if chunk & hi != 0 {
            let second = two.wrapping_shr(width) & mask;
            if second & hi == 0 && off < avail {
                out[k] = value | second << (width - 1);
                off += width;
                continue;
            }
            let mut shift = width - 1;
            loop {
                if off >= avail {
                    return None;
                }
                chunk = (word >> off) & mask;
                off += width;
                value |= (chunk & !hi) << shift;
                if chunk & hi == 0 {
                    break;
                }
                shift += width - 1;
            }
        }
        out[k] = value;
    }
    (off <= avail).then_some(off)
}

/// `Abbrev::read_simple`'s reading of `KNOWN[K]` (`N` fields) into the
/// first `N` of `out`: its fields, continuation bits and size constants.
#[inline(always)]
fn read_known<const N: usize, const K: usize, const TWO: bool>(word: u64, avail: u32, out: &mut [u64]) -> Option<u32> {
    let fields: &[FastField; N] = KNOWN[K].try_into().ok()?;
    let out: &mut [u64; N] = out.get_mut(..N)?.try_into().ok()?;
    let (continues, bits) = const { packing(KNOWN[K]) };
    if word & continues == 0 && bits <= avail {
        for k in 0..N {
            out[k] = (word >> fields[k].shift) & fields[k].mask;
        }
        return Some(bits);
    }
    // With `TWO`: operands 32 to 1023 values back (a constant, from a long
    // body) take two chunks. The usual such layout (`TWO_CHUNKS`, or
    // `THREE_CHUNKS` for a forward declaration's value id) is told by one
    // mask test and read with constant shifts, as above; anything else
    // takes the general reading.
    if TWO {
        let l = const { two_chunk_layout(KNOWN[K], TWO_CHUNKS[K], THREE_CHUNKS[K]) };
        if l.bits != 0 && word & l.test == l.expect && l.bits <= avail {
            for k in 0..N {
                let f = fields[k];
                let x = word >> l.shift[k];
                let payload = f.width.max(1) - 1;
                out[k] = (x & f.mask & !f.hi)
                    | ((x >> f.width) & l.second[k]) << payload
                    | ((x >> (2 * f.width)) & l.third[k]) << (2 * payload);
            }
            return Some(l.bits);
        }
    }
    fields_in_word_n::<N>(word, avail, fields, out)
}

/// The fields of a record written with `KNOWN[K]` (`N` fields) by value,
/// the unused ones 0, and the bits they take, from `word` whose low `avail`
/// bits are the input's next; `None` where `read_known` would give up.
#[inline(always)]
pub(crate) fn known_fields<const N: usize, const K: usize>(word: u64, avail: u32) -> Option<([u64; 3], u32)> {
    let mut out = [0; 3];
    let used = read_known::<N, K, true>(word, avail, &mut out)?;
    Some((out, used))
}

/// For each of `KNOWN`'s field lists, the one set of fields (a bit per
/// field) of two chunks that `known_fields` tells apart by a mask test:
/// a relative operand 32 values back or more, mostly a constant (the
/// second operand of a binary operator or a store) or a pointer (a load's).
/// One only: with more, the compiler merged their readings into one with
/// shifts and masks loaded from a table, dearer than the general reading.
/// None (0) for FORWARDTYPEREF (an absolute value id, of three chunks in
/// the usual body: `THREE_CHUNKS`) or the constants' lists (read by the
/// sink's value run).
const TWO_CHUNKS: [u8; 7] = [0b001, 0b010, 0b010, 0, 0b1, 0, 0];

/// As `TWO_CHUNKS`, the fields of three chunks in the same layout: a
/// FORWARDTYPEREF's value id (1024 to 32767, the usual body's values;
/// its type takes one chunk).
const THREE_CHUNKS: [u8; 7] = [0, 0, 0, 0b01, 0, 0, 0];

/// A layout of a `KNOWN` field list with some of its VBR fields of exactly
/// two or three chunks and the rest of one (`bits` 0 for none).
#[derive(Clone, Copy)]
struct TwoChunkLayout {
    /// The continuation bits of every chunk (`test`) and which of them
    /// are set (`expect`): the first chunk's of each two-chunk field.
    test: u64,
    expect: u64,
    /// Where each field starts.
    shift: [u32; 3],
    /// The mask of a field's second chunk's payload (0 for one chunk).
    second: [u64; 3],
    /// The same of its third chunk (0 for fewer).
    third: [u64; 3],
    bits: u32,
}

/// The layout of `fields` for the sets `two` and `three` (`bits` 0 for
/// none), at compile time.
const fn two_chunk_layout(fields: &[FastField], two: u8, three: u8) -> TwoChunkLayout {
    let mut l = TwoChunkLayout { test: 0, expect: 0, shift: [0; 3], second: [0; 3], third: [0; 3], bits: 0 };
    if two == 0 && three == 0 {
        return l;
    }
    let mut k = 0;
    while k < fields.len() {
        let f = fields[k];
        l.shift[k] = l.bits;
        let chunks = if three & 1 << k != 0 {
            3
        } else if two & 1 << k != 0 {
            2
        } else {
            1
        };
        if f.hi != 0 {
            // Every chunk's continuation bit is tested; all but the last
            // one's are set.
            let mut c = 0;
            while c < chunks {
                let at = l.bits + c * f.width as u32;
                l.test |= f.hi << at;
                if c + 1 < chunks {
                    l.expect |= f.hi << at;
                }
                c += 1;
            }
            if chunks >= 2 {
                l.second[k] = f.mask & !f.hi;
            }
            if chunks == 3 {
                l.third[k] = f.mask & !f.hi;
            }
        } else {
            assert!(chunks == 1, "a fixed field has one chunk");
        }
        l.bits += chunks * f.width as u32;
        k += 1;
    }
    l
}

/// `buf[from..from + n]`, growing `buf` first if it is shorter. The record
/// buffer only grows, so filling it needs no capacity check per value.
#[inline(always)]
pub(crate) fn slots(buf: &mut Vec<u64>, from: usize, n: usize) -> &mut [u64] {
    if buf.len() < from + n {
        grow(buf, from + n);
    }
    &mut buf[from..from + n]
}

#[cold]
#[inline(never)]
fn grow(buf: &mut Vec<u64>, len: usize) {
    buf.resize(len, 0);
}

/// `grow` for the bytes of `Abbrev::read_bytes_fast`, which only grow too.
#[cold]
#[inline(never)]
fn grow_bytes(buf: &mut Vec<u8>, len: usize) {
    buf.resize(len, 0);
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

#[inline(always)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `known_fields`' two-chunk layouts read what the general path
    /// (`read_known` without them: the one-chunk test, then
    /// `fields_in_word_n`) reads, on words of fields of one to three
    /// chunks followed by random bits, for every `avail`.
    #[test]
    fn two_chunk_layouts_agree_with_the_general_path() {
        fn check<const N: usize, const K: usize>(rng: &mut impl FnMut(u64) -> u64) {
            for _ in 0..20_000 {
                let mut word = 0u64;
                let mut bits = 0u32;
                for f in KNOWN[K] {
                    let w = f.width as u32;
                    if f.hi == 0 {
                        word |= rng(1 << w) << bits;
                        bits += w;
                        continue;
                    }
                    let chunks = 1 + rng(3) as u32;
                    for c in 0..chunks {
                        let more = if c + 1 < chunks { f.hi } else { 0 };
                        word |= (rng(f.hi) | more) << bits;
                        bits += w;
                    }
                }
                // Random bits past the fields (and now and then in place of them).
                if bits < 64 {
                    word |= rng(u64::MAX) << bits;
                }
                if rng(8) == 0 {
                    word = rng(u64::MAX);
                }
                for avail in 0..=57 {
                    let mut general = [0; 3];
                    let want = read_known::<N, K, false>(word, avail, &mut general).map(|used| (general, used));
                    assert_eq!(known_fields::<N, K>(word, avail), want, "K {K}, word {word:#x}, avail {avail}");
                }
            }
        }
        let mut rng = crate::test_rng(0x2c4d_1e37);
        check::<3, 0>(&mut rng);
        check::<3, 1>(&mut rng);
        check::<3, 2>(&mut rng);
        check::<2, 3>(&mut rng);
        check::<1, 4>(&mut rng);
        check::<1, 5>(&mut rng);
        check::<1, 6>(&mut rng);
    }

    /// The toolchain's abbreviations (as in every pexe's BLOCKINFO) are
    /// `KNOWN` field lists, so the record fast path reads them with
    /// `read_known`; others are not.
    #[test]
    fn toolchain_abbreviations_are_known() {
        use AbbrevOp::*;
        let toolchain = [
            vec![Literal(20), Vbr(6), Vbr(4), Vbr(4)],
            vec![Literal(2), Vbr(6), Vbr(6), Fixed(4)],
            vec![Literal(3), Vbr(6), Vbr(6), Fixed(4)],
            vec![Literal(24), Vbr(6), Vbr(6), Vbr(4)],
            vec![Literal(43), Vbr(6), Vbr(6)],
            vec![Literal(10), Vbr(6)],
            vec![Literal(1), Vbr(6)],
            vec![Literal(4), Vbr(8)],
            vec![Literal(6), Vbr(8)],
            vec![Literal(4), Literal(0)],
        ];
        for ops in toolchain {
            let simple = Abbrev::new(ops.clone()).unwrap().simple;
            assert_ne!(simple.known, NOT_KNOWN, "{ops:?}");
            // Each `KNOWN_RECORDS` entry is its field list and code.
            match KNOWN_RECORDS.iter().position(|&r| r == (simple.known, simple.code)) {
                Some(i) => assert_eq!(simple.record as usize, i, "{ops:?}"),
                None => assert_eq!(simple.record, NOT_KNOWN, "{ops:?}"),
            }
        }
        // Every entry is one of the toolchain's abbreviations.
        for (i, &(known, code)) in KNOWN_RECORDS.iter().enumerate() {
            let ops: Vec<AbbrevOp> = std::iter::once(Literal(code as u64))
                .chain(KNOWN[known as usize].iter().map(|f| match (f.width, f.hi != 0) {
                    (0, _) => Literal(0),
                    (w, true) => Vbr(w as u32),
                    (w, false) => Fixed(w as u32),
                }))
                .collect();
            assert_eq!(Abbrev::new(ops.clone()).unwrap().simple.record as usize, i, "{ops:?}");
        }
        for ops in [vec![Literal(2), Vbr(6), Vbr(6), Fixed(3)], vec![Literal(10), Vbr(7)], vec![Vbr(6), Vbr(6)]] {
            assert_eq!(Abbrev::new(ops.clone()).unwrap().simple.known, NOT_KNOWN, "{ops:?}");
        }
    }
}
