use std::fmt;

/// A position in the whole input, counted in bits from its first byte.
///
/// Displays as `byte:bit`, the form pnacl-bcdis uses in its first column, so a
/// position in an error message can be found in a listing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitPos(pub u64);

impl BitPos {
    /// The byte this position falls in.
    pub fn byte(self) -> u64 {
        self.0 / 8
    }
    /// The bit within that byte, 0..8.
    pub fn bit(self) -> u32 {
        (self.0 % 8) as u32
    }
    /// The position of the start of byte `byte`.
    pub fn from_byte(byte: u64) -> Self {
        BitPos(byte * 8)
    }
}

impl fmt::Display for BitPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.byte(), self.bit())
    }
}
