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

    /// Reads `n` bits (0..=64), least significant first.
    #[inline]
    pub fn read(&mut self, n: u32) -> Result<u64, Error> {
        debug_assert!(n <= 64);
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

#[inline]
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

    #[test]
    fn eof_is_reported_at_position() {
        let mut c = BitCursor::new(&[0xff], 16);
        assert_eq!(c.read(5).unwrap(), 31);
        let e = c.read(4).unwrap_err();
        assert!(e.is_eof());
        assert_eq!(e.pos(), BitPos(16 * 8 + 5));
    }
}
