//! Reading fixed-width and VBR fields from a window of the input.

use super::{BitPos, Error, ErrorKind};

/// A bit cursor over a window of the input that knows where the window
/// starts in the whole file, so every position it reports is absolute.
#[derive(Clone)]
pub struct BitCursor<'a> {
    data: &'a [u8],
    /// Absolute bit position of `data[0]`; always a multiple of 8.
    base: u64,
    /// Bit offset into `data`.
    bit: u64,
    /// Bits in `data` (cached `data.len() * 8`).
    end: u64,
    /// Whether more input may still arrive after this window (streaming):
    /// then a count that does not fit in the bits held so far means "wait",
    /// not "invalid".
    more: bool,
}

impl<'a> BitCursor<'a> {
    /// A cursor over `data`, whose first byte is byte `base_byte` of the file.
    pub fn new(data: &'a [u8], base_byte: u64) -> Self {
        BitCursor { data, base: base_byte * 8, bit: 0, end: data.len() as u64 * 8, more: false }
    }

    /// Marks the window as a prefix of input still arriving.
    pub fn with_more_to_come(mut self, more: bool) -> Self {
        self.more = more;
        self
    }

    /// The error for a record at `start` claiming `claimed` items of at least
    /// `min_bits` bits each when fewer bits remain: an end-of-data error while
    /// more input may come, so streaming waits; invalid otherwise.
    #[cold]
    pub fn too_many(&self, start: BitPos, claimed: u64) -> Error {
        if self.more {
            Error::new(start, ErrorKind::UnexpectedEof)
        } else {
            Error::new(start, ErrorKind::TooManyOperands { claimed, bits: self.remaining() })
        }
    }

    /// The absolute position of the next bit to read.
    #[inline]
    pub fn pos(&self) -> BitPos {
        BitPos(self.base + self.bit)
    }

    /// Moves to an absolute position inside the window (or its end).
    pub fn seek(&mut self, pos: BitPos) -> Result<(), Error> {
        let rel = pos.0.checked_sub(self.base).filter(|&r| r <= self.end);
        match rel {
            Some(r) => {
                self.bit = r;
                Ok(())
            }
            None => Err(Error::new(pos, ErrorKind::UnexpectedEof)),
        }
    }

    /// Bits left in the window.
    #[inline]
    pub fn remaining(&self) -> u64 {
        self.end - self.bit
    }

    pub fn at_end(&self) -> bool {
        self.bit >= self.end
    }

    #[cold]
    fn eof(&self) -> Error {
        Error::new(self.pos(), ErrorKind::UnexpectedEof)
    }

    /// The 64 bits starting at the byte holding the next bit, shifted so the
    /// next bit is bit 0: at least 57 valid bits. `None` near the end of the
    /// window, where the slow paths read byte by byte.
    #[inline(always)]
    fn peek(&self) -> Option<u64> {
        let byte = (self.bit >> 3) as usize;
        let bytes = self.data.get(byte..byte + 8)?;
        let word = u64::from_le_bytes(bytes.try_into().unwrap());
        Some(word >> (self.bit & 7))
    }

    /// Reads `n` bits (0..=64), least significant first.
    #[inline]
    pub fn read(&mut self, n: u32) -> Result<u64, Error> {
        debug_assert!(n <= 64);
        // A full peek holds at least 57 bits, and then at least that many
        // remain in the window, so no bounds check is needed.
        if n <= 57 {
            if let Some(word) = self.peek() {
                self.bit += n as u64;
                return Ok(word & ((1u64 << n) - 1));
            }
        }
        self.read_checked(n)
    }

    /// `read` for wide fields and the last bytes of the window.
    #[cold]
    #[inline(never)]
    fn read_checked(&mut self, n: u32) -> Result<u64, Error> {
        if n as u64 > self.remaining() {
            return Err(self.eof());
        }
        if n == 0 {
            return Ok(0);
        }
        let byte = (self.bit / 8) as usize;
        let shift = (self.bit % 8) as u32;
        let value = if n + shift <= 64 && byte + 8 <= self.data.len() {
            let word = u64::from_le_bytes(self.data[byte..byte + 8].try_into().unwrap());
            (word >> shift) & mask(n)
        } else {
            self.read_slow(n)
        };
        self.bit += n as u64;
        Ok(value)
    }

    /// Bit-by-byte path for the last bytes of the window and wide fields.
    fn read_slow(&self, n: u32) -> u64 {
        let mut value: u64 = 0;
        let mut got = 0u32;
        let mut bit = self.bit;
        while got < n {
            let byte = self.data[(bit / 8) as usize] as u64;
            let shift = (bit % 8) as u32;
            let take = (8 - shift).min(n - got);
            value |= ((byte >> shift) & mask(take)) << got;
            got += take;
            bit += take as u64;
        }
        value
    }

    /// Reads a VBR field whose chunks are `width` bits (2..=32) wide.
    #[inline]
    pub fn read_vbr(&mut self, width: u32) -> Result<u64, Error> {
        debug_assert!((2..=32).contains(&width));
        if let Some(word) = self.peek() {
            let hi = 1u64 << (width - 1);
            let chunk = word & ((hi << 1) - 1);
            if chunk & hi == 0 {
                self.bit += width as u64;
                return Ok(chunk);
            }
            if let Some((value, used)) = vbr_in_word(word, width) {
                self.bit += used as u64;
                return Ok(value);
            }
        }
        self.read_vbr_slow(width)
    }

    /// Reads a vbr6 field, the encoding of unabbreviated records.
    #[inline(always)]
    pub(crate) fn read_vbr6(&mut self) -> Result<u64, Error> {
        if let Some(word) = self.peek() {
            if word & 32 == 0 {
                self.bit += 6;
                return Ok(word & 31);
            }
            if let Some((value, used)) = vbr_in_word(word, 6) {
                self.bit += used as u64;
                return Ok(value);
            }
        }
        self.read_vbr_slow(6)
    }

    /// `read_vbr` chunk by chunk with every check: values that do not fit
    /// in one peek, the end of the window, and overflow.
    #[cold]
    #[inline(never)]
    fn read_vbr_slow(&mut self, width: u32) -> Result<u64, Error> {
        let start = self.pos();
        let hi = 1u64 << (width - 1);
        let chunk = self.read(width)?;
        if chunk & hi == 0 {
            return Ok(chunk);
        }
        let mut value = chunk & (hi - 1);
        let mut shift = width - 1;
        loop {
            let chunk = self.read(width)?;
            let payload = chunk & (hi - 1);
            if payload != 0 {
                if shift >= 64 || (payload << shift) >> shift != payload {
                    return Err(Error::new(start, ErrorKind::VbrOverflow));
                }
                value |= payload << shift;
            }
            if chunk & hi == 0 {
                return Ok(value);
            }
            shift += width - 1;
            // Past 64 bits only zero chunks are accepted, and not forever:
            // a long run of them is garbage that would otherwise spin.
            if shift > 64 + 32 {
                return Err(Error::new(start, ErrorKind::VbrOverflow));
            }
        }
    }

    /// Skips to the next multiple of 32 bits (absolute, which is the same as
    /// relative because windows start on byte 0 mod 4 of the bitstream).
    pub fn align32(&mut self) -> Result<(), Error> {
        let abs = self.base + self.bit;
        let aligned = (abs + 31) & !31;
        let skip = aligned - abs;
        if skip > self.remaining() {
            return Err(self.eof());
        }
        self.bit += skip;
        Ok(())
    }
}

/// The record fast path's reader: a bit position in `data`, each field
/// read from the 8 bytes at its first byte, meant to live in registers for
/// the length of one record. (A 64-bit buffer refilled when it ran low
/// branched on how full it was, which no predictor can guess: a twelfth of
/// the parser's time. The check here, that 8 bytes can be loaded, is almost
/// always true.)
///
/// It never reports errors: anything unusual (fewer than 8 bytes left to
/// load from, a VBR value longer than 64 bits can hold without checks)
/// makes it answer `None`, and the caller reads the item again from its
/// start with [`BitCursor`], whose answer (value or error) is then the
/// answer. So where it does answer, it must answer what `BitCursor` would.
#[derive(Clone, Copy)]
pub(crate) struct FastBits<'a> {
    data: &'a [u8],
    /// The next bit to read, relative to `data`.
    bit: u64,
}

impl<'a> FastBits<'a> {
    /// A reader at bit `bit` of `data`, if 8 bytes can be loaded there.
    #[inline(always)]
    pub fn new(data: &'a [u8], bit: u64) -> Option<Self> {
        load(data, (bit >> 3) as usize)?;
        Some(FastBits { data, bit })
    }

    /// A reader at bit `bit` of `data` that has not checked it can load
    /// there: its first load does (and answers `None` if it cannot), for a
    /// caller that has bounded `bit` already.
    #[inline(always)]
    pub fn at(data: &'a [u8], bit: u64) -> Self {
        FastBits { data, bit }
    }

    /// Bit position of the next unread bit, relative to `data`.
    #[inline(always)]
    pub fn pos(&self) -> u64 {
        self.bit
    }

    /// Bits left in `data`.
    #[inline(always)]
    pub fn remaining(&self) -> u64 {
        self.data.len() as u64 * 8 - self.bit
    }

    /// The next 57 bits or more (in the low bits; the rest are later bits),
    /// without moving.
    #[inline(always)]
    pub fn peek(&self) -> Option<u64> {
        Some(load(self.data, (self.bit >> 3) as usize)? >> (self.bit & 7))
    }

    /// Moves past `n` bits just read from a `peek` (`n` <= 57).
    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        self.bit += n as u64;
    }

    /// `n` (0..=32) bits.
    #[inline(always)]
    pub fn read(&mut self, n: u32) -> Option<u64> {
        debug_assert!(n <= 32);
        // At least 57 bits of the word are the stream's: enough for n.
        let word = load(self.data, (self.bit >> 3) as usize)?;
        let value = (word >> (self.bit & 7)) & ((1u64 << n) - 1);
        self.bit += n as u64;
        Some(value)
    }

    /// A VBR field with `width`-bit (2..=32) chunks.
    #[inline(always)]
    pub fn vbr(&mut self, width: u32) -> Option<u64> {
        let hi = 1u64 << (width - 1);
        let chunk = self.read(width)?;
        if chunk & hi == 0 {
            return Some(chunk);
        }
        self.vbr_rest(width, chunk & (hi - 1))
    }

    /// A vbr6 field.
    #[inline(always)]
    pub fn vbr6(&mut self) -> Option<u64> {
        let chunk = self.read(6)?;
        if chunk & 32 == 0 {
            return Some(chunk);
        }
        self.vbr_rest(6, chunk & 31)
    }

    /// Fills `out` with vbr6 values, chunk after chunk from one load until
    /// its nine whole chunks are used (rather than a load per value). Gives
    /// up on values of more than 55 bits, which the cursor then reads.
    #[inline(always)]
    pub fn vbr6_run(&mut self, out: &mut [u64]) -> Option<()> {
        self.vbr6_run_held(out, &mut (0, 0))
    }

    /// `vbr6_run` starting from `held`: a word whose low bits are the next
    /// `held.1` whole chunks (the ones at `pos`), loaded already.
    ///
    /// The loop keeps the bit just past the held chunks rather than the
    /// position (which is that less 6 bits per chunk still held), so a
    /// value moves only `word` and the count; and a value of two chunks
    /// (nearly half of those of the phis and calls) or three in one step.
    #[inline(always)]
    pub fn vbr6_run_held(&mut self, out: &mut [u64], held: &mut (u64, u32)) -> Option<()> {
        let (mut word, mut left) = *held;
        let mut end = self.bit + 6 * left as u64;
        for v in out.iter_mut() {
            // Two chunks held at least, for the two-chunk step below.
            if left < 2 {
                let bit = end - 6 * left as u64;
                word = load(self.data, (bit >> 3) as usize)? >> (bit & 7);
                left = 9;
                end = bit + 54;
            }
            if word & 32 == 0 {
                *v = word & 31;
                word >>= 6;
                left -= 1;
            } else if word & 32 << 6 == 0 {
                *v = (word & 31) | (word >> 1) & 31 << 5;
                word >>= 12;
                left -= 2;
            } else if left >= 3 && word & 32 << 12 == 0 {
                *v = three_chunks(word);
                word >>= 18;
                left -= 3;
            } else {
                self.bit = end - 6 * left as u64;
                let mut rest = (word, left);
                *v = self.vbr6_chunks(&mut rest)?;
                (word, left) = rest;
                end = self.bit + 6 * left as u64;
            }
        }
        self.bit = end - 6 * left as u64;
        *held = (word, left);
        Some(())
    }

    /// One vbr6 value, its chunks taken from `held` (see `vbr6_run_held`),
    /// which is loaded again when it runs out: no load per value. A value
    /// of up to three chunks held is read in one step.
    #[inline(always)]
    pub fn vbr6_held(&mut self, held: &mut (u64, u32)) -> Option<u64> {
        let (mut word, mut left) = *held;
        // Two chunks held at least, for the two-chunk step.
        if left < 2 {
            word = load(self.data, (self.bit >> 3) as usize)? >> (self.bit & 7);
            left = 9;
        }
        if word & 32 == 0 {
            self.bit += 6;
            *held = (word >> 6, left - 1);
            return Some(word & 31);
        }
        if word & 32 << 6 == 0 {
            self.bit += 12;
            *held = (word >> 12, left - 2);
            return Some((word & 31) | (word >> 1) & 31 << 5);
        }
        if left >= 3 && word & 32 << 12 == 0 {
            self.bit += 18;
            *held = (word >> 18, left - 3);
            return Some(three_chunks(word));
        }
        *held = (word, left);
        self.vbr6_chunks(held)
    }

    /// `vbr6_held` chunk by chunk: values of three chunks or more.
    #[inline(always)]
    fn vbr6_chunks(&mut self, held: &mut (u64, u32)) -> Option<u64> {
        let (mut word, mut left) = *held;
        let mut value = 0;
        let mut shift = 0;
        loop {
            if left == 0 {
                word = load(self.data, (self.bit >> 3) as usize)? >> (self.bit & 7);
                left = 9;
            }
            let chunk = word & 63;
            word >>= 6;
            left -= 1;
            self.bit += 6;
            value |= (chunk & 31) << shift;
            if chunk & 32 == 0 {
                *held = (word, left);
                return Some(value);
            }
            shift += 5;
            if shift > 50 {
                return None;
            }
        }
    }

    /// The chunks after the first of a multi-chunk VBR value; gives up
    /// (`None`) before a chunk whose payload could pass bit 63.
    #[inline(always)]
    pub fn vbr_rest(&mut self, width: u32, first: u64) -> Option<u64> {
        let hi = 1u64 << (width - 1);
        let mut value = first;
        let mut shift = width - 1;
        while shift + (width - 1) <= 64 {
            let chunk = self.read(width)?;
            value |= (chunk & (hi - 1)) << shift;
            if chunk & hi == 0 {
                return Some(value);
            }
            shift += width - 1;
        }
        None
    }
}

/// The value of the three vbr6 chunks at the bottom of `word` (the third
/// without its continuation bit): values from 2^10 to 2^15, such as a
/// call's relative reference to a function or global.
#[inline(always)]
fn three_chunks(word: u64) -> u64 {
    (word & 31) | (word >> 1) & 31 << 5 | (word >> 2) & 31 << 10
}

/// The 8 bytes at `byte`, little endian, if they are all in `data`.
#[inline(always)]
fn load(data: &[u8], byte: usize) -> Option<u64> {
    let bytes = data.get(byte..byte.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().unwrap()))
}

/// Decodes a multi-chunk VBR value lying wholly in the 57 valid bits of a
/// peeked `word` (whose first chunk has its continuation bit set): the value
/// and the bits it took, or `None` if it runs past those bits (then the
/// slow path decides, overflow included; within 57 bits none can occur).
#[inline(always)]
fn vbr_in_word(word: u64, width: u32) -> Option<(u64, u32)> {
    let hi = 1u64 << (width - 1);
    let m = (hi << 1) - 1;
    let mut value = 0u64;
    let mut used = 0u32;
    let mut shift = 0u32;
    while used + width <= 57 {
        let chunk = (word >> used) & m;
        value |= (chunk & (hi - 1)) << shift;
        used += width;
        shift += width - 1;
        if chunk & hi == 0 {
            return Some((value, used));
        }
    }
    None
}

#[inline(always)]
fn mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_vbr() {
        // 0b101 (3 bits), then vbr6 of 40 = 0b101000 -> chunks 0b1_01000 (40 & 31 = 8 | 32), 0b000001
        let mut w = crate::bitstream::BitWriter::new();
        w.write(0b101, 3);
        w.write_vbr(40, 6);
        w.write_vbr(u64::MAX, 6);
        w.write(0xdead_beef_1234_5678, 64);
        let bytes = w.into_bytes();
        let mut c = BitCursor::new(&bytes, 0);
        assert_eq!(c.read(3).unwrap(), 0b101);
        assert_eq!(c.read_vbr(6).unwrap(), 40);
        assert_eq!(c.read_vbr(6).unwrap(), u64::MAX);
        assert_eq!(c.read(64).unwrap(), 0xdead_beef_1234_5678);
    }

    /// A small deterministic generator for the tests below.
    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// A field: fixed (`true`) or VBR of `width` bits holding `value`.
    fn random_fields(seed: &mut u64, n: usize) -> Vec<(bool, u32, u64)> {
        (0..n)
            .map(|_| {
                let fixed = xorshift(seed) % 2 == 0;
                let width = if fixed { (xorshift(seed) % 33) as u32 } else { 2 + (xorshift(seed) % 31) as u32 };
                // Mostly small values, sometimes up to 64 bits.
                let bits = match xorshift(seed) % 4 {
                    0 => 64,
                    1 => (xorshift(seed) % 64) as u32,
                    _ => (xorshift(seed) % 12) as u32,
                };
                let mut value = if bits == 64 { xorshift(seed) } else { xorshift(seed) & ((1u64 << bits) - 1) };
                if fixed && width < 64 {
                    value &= (1u64 << width) - 1;
                }
                (fixed, width, value)
            })
            .collect()
    }

    /// The fast paths of `read`/`read_vbr` (one peek) and their slow paths
    /// (the last bytes, long values) agree with the writer at every
    /// alignment, up to the very end of the buffer.
    #[test]
    fn cursor_reads_every_field_back() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for shift in 0..8 {
            let fields = random_fields(&mut seed, 400);
            let mut w = crate::bitstream::BitWriter::new();
            w.write(0, shift);
            for &(fixed, width, value) in &fields {
                if fixed {
                    w.write(value, width);
                } else {
                    w.write_vbr(value, width);
                }
            }
            let bytes = w.into_bytes();
            let mut c = BitCursor::new(&bytes, 0);
            c.read(shift).unwrap();
            for &(fixed, width, value) in &fields {
                let got = if fixed { c.read(width) } else { c.read_vbr(width) };
                assert_eq!(got.unwrap(), value, "fixed {fixed} width {width}");
            }
            assert!(c.remaining() < 8);
        }
    }

    /// `FastBits` either gives up or answers exactly what `BitCursor` does,
    /// value and position, including near the end of the data (where it
    /// must give up) and for VBR values too long for it.
    #[test]
    fn fast_bits_agree_with_cursor() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        let fields = random_fields(&mut seed, 2000);
        let mut w = crate::bitstream::BitWriter::new();
        for &(fixed, width, value) in &fields {
            if fixed {
                w.write(value, width);
            } else {
                w.write_vbr(value, width);
            }
        }
        let bytes = w.into_bytes();
        let mut c = BitCursor::new(&bytes, 0);
        let (mut answered, mut gave_up) = (0, 0);
        for &(fixed, width, value) in &fields {
            // A fresh reader at each field, and one carried over three fields,
            // so refills happen at every offset.
            let at = c.pos().0;
            let fast = FastBits::new(&bytes, at).and_then(|mut r| {
                let v = if fixed {
                    r.read(width)
                } else if width == 6 {
                    r.vbr6()
                } else {
                    r.vbr(width)
                }?;
                Some((v, r.pos()))
            });
            let slow = if fixed { c.read(width) } else { c.read_vbr(width) }.unwrap();
            assert_eq!(slow, value);
            match fast {
                Some((v, pos)) => {
                    assert_eq!((v, pos), (slow, c.pos().0), "fixed {fixed} width {width} value {value}");
                    answered += 1;
                }
                None => gave_up += 1,
            }
        }
        // It gives up on long VBR values (a fifth of these are 64-bit).
        assert!(answered > 1500 && gave_up > 0, "{answered} answered, {gave_up} gave up");
        // Runs of fields through one reader (refills in the middle of records).
        let mut c = BitCursor::new(&bytes, 0);
        for chunk in fields.chunks(3) {
            let mut r = FastBits::new(&bytes, c.pos().0);
            for &(fixed, width, _) in chunk {
                let slow = if fixed { c.read(width) } else { c.read_vbr(width) }.unwrap();
                if let Some(reader) = r.as_mut() {
                    match if fixed { reader.read(width) } else { reader.vbr(width) } {
                        Some(v) => assert_eq!((v, reader.pos()), (slow, c.pos().0)),
                        None => r = None,
                    }
                }
            }
        }
        // `new` succeeds below the last place 8 bytes fit (which the
        // record runs' cut at a block's end relies on).
        let limit = (bytes.len() as u64 - 7) * 8;
        assert!(FastBits::new(&bytes, limit - 1).is_some() && FastBits::new(&bytes, limit).is_none());
        // Fewer than 8 bytes: no fast reader at all.
        assert!(FastBits::new(&bytes[..7], 0).is_none());
        assert!(FastBits::new(&bytes, (bytes.len() as u64 - 7) * 8).is_none());
    }

    /// `vbr6_run` reads what `read_vbr(6)` reads, one-chunk values and
    /// longer ones mixed, at every alignment; it gives up only on values
    /// past 55 bits and near the end of the data.
    #[test]
    fn vbr6_run_agrees_with_cursor() {
        let mut seed = 0x0123_4567_89ab_cdef;
        for shift in 0..8 {
            let values: Vec<u64> = (0..600)
                .map(|_| match xorshift(&mut seed) % 5 {
                    0 => xorshift(&mut seed) >> (xorshift(&mut seed) % 64),
                    1 => xorshift(&mut seed) % 1024,
                    2 => xorshift(&mut seed) % 32768,
                    _ => xorshift(&mut seed) % 32,
                })
                .collect();
            let mut w = crate::bitstream::BitWriter::new();
            w.write(0, shift);
            values.iter().for_each(|&v| w.write_vbr(v, 6));
            let bytes = w.into_bytes();
            let mut c = BitCursor::new(&bytes, 0);
            c.read(shift).unwrap();
            let mut answered = 0;
            for run in values.chunks(7) {
                let at = c.pos().0;
                let expected: Vec<u64> = run.iter().map(|_| c.read_vbr(6).unwrap()).collect();
                assert_eq!(expected, run);
                let mut got = vec![0; run.len()];
                let near_end = bytes.len() as u64 * 8 - at < 7 * 13 * 6 + 64;
                let fast = FastBits::new(&bytes, at).and_then(|mut r| r.vbr6_run(&mut got).map(|()| r.pos()));
                match fast {
                    Some(pos) => {
                        assert_eq!((got.as_slice(), pos), (run, c.pos().0));
                        answered += 1;
                    }
                    None => assert!(near_end || run.iter().any(|&v| v >> 55 != 0), "gave up on {run:?}"),
                }
                // The same from a word loaded already (nine chunks of a peek).
                let held = FastBits::new(&bytes, at).and_then(|mut r| {
                    let mut held = (r.peek()?, 9);
                    r.vbr6_run_held(&mut got, &mut held).map(|()| r.pos())
                });
                assert_eq!(held, fast);
                if held.is_some() {
                    assert_eq!(got, run);
                }
                // Value by value (`vbr6_held`), from a word holding each
                // count of chunks (two-chunk steps at every count left).
                for count in 0..=9 {
                    let single = FastBits::new(&bytes, at).and_then(|mut r| {
                        let mut held = (r.peek()?, count);
                        let got: Option<Vec<u64>> = run.iter().map(|_| r.vbr6_held(&mut held)).collect();
                        got.map(|got| (got, r.pos()))
                    });
                    match single {
                        Some((got, pos)) => assert_eq!((got.as_slice(), pos), (run, c.pos().0), "count {count}"),
                        None => assert!(near_end || run.iter().any(|&v| v >> 55 != 0), "gave up on {run:?} (count {count})"),
                    }
                }
            }
            assert!(answered > 40);
        }
    }

    #[test]
    fn vbr_overflow_is_reported_at_the_field_start() {
        // vbr6 chunks: 13 continuation chunks of payload 31, then one more:
        // 14 * 5 = 70 payload bits, more than 64.
        let mut w = crate::bitstream::BitWriter::new();
        w.write(0b101, 3);
        for _ in 0..13 {
            w.write(0b111111, 6);
        }
        w.write(0b011111, 6);
        w.write(0, 64);
        let bytes = w.into_bytes();
        let mut c = BitCursor::new(&bytes, 2);
        c.read(3).unwrap();
        let e = c.read_vbr(6).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::VbrOverflow);
        assert_eq!(e.pos(), BitPos(2 * 8 + 3));
        let mut r = FastBits::new(&bytes, 3).unwrap();
        assert_eq!(r.vbr6(), None, "the fast reader leaves overflow to the cursor");
    }

    #[test]
    fn eof_is_reported_at_position() {
        let mut c = BitCursor::new(&[0xff], 16);
        assert_eq!(c.read(5).unwrap(), 31);
        let e = c.read(4).unwrap_err();
        assert!(e.is_eof());
        assert_eq!(e.pos(), BitPos(16 * 8 + 5));
    }
}
