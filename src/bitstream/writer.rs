//! Writing bits, and writing blocks and records back into bits.

use super::abbrev::Abbrev;
use super::{abbrev_ids, BLOCKINFO_BLOCK_ID};
use std::collections::HashMap;

/// An append-only bit buffer, least significant bit first.
#[derive(Default, Clone)]
pub struct BitWriter {
    bytes: Vec<u8>,
    /// Bits used in the last byte of `bytes` (0 = it is full or there is none).
    partial: u32,
}

impl BitWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> u64 {
        if self.partial == 0 {
            self.bytes.len() as u64 * 8
        } else {
            (self.bytes.len() as u64 - 1) * 8 + self.partial as u64
        }
    }

    /// Appends the low `n` bits (0..=64) of `value`.
    pub fn write(&mut self, value: u64, n: u32) {
        let mut value = if n >= 64 { value } else { value & ((1u64 << n) - 1) };
        let mut left = n;
        while left > 0 {
            if self.partial == 0 {
                self.bytes.push(0);
            }
            let room = 8 - self.partial;
            let take = room.min(left);
            let last = self.bytes.last_mut().unwrap();
            *last |= ((value & ((1u64 << take) - 1)) as u8) << self.partial;
            self.partial = (self.partial + take) % 8;
            value = if take >= 64 { 0 } else { value >> take };
            left -= take;
        }
    }

    /// Appends `value` as VBR with `width`-bit chunks.
    pub fn write_vbr(&mut self, mut value: u64, width: u32) {
        let hi = 1u64 << (width - 1);
        loop {
            if value < hi {
                self.write(value, width);
                return;
            }
            self.write((value & (hi - 1)) | hi, width);
            value >>= width - 1;
        }
    }

    /// Pads with zero bits to a multiple of 32.
    pub fn align32(&mut self) {
        let pad = (32 - self.bit_len() % 32) % 32;
        self.write(0, pad as u32);
    }

    /// Overwrites the 32-bit little-endian word at byte `offset`.
    pub fn patch_u32(&mut self, offset: usize, value: u32) {
        self.bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

struct OpenBlock {
    block_id: u32,
    abbrev_width: u32,
    /// Byte offset of the length word, patched at exit.
    len_at: usize,
    abbrevs: Vec<Abbrev>,
}

/// Writes a bitstream the way the parser reads it: blocks with length words,
/// BLOCKINFO abbreviations, local abbreviations and records.
///
/// The caller chooses every abbreviation index, so a listing can be written
/// back bit for bit.
pub struct Writer {
    bits: BitWriter,
    stack: Vec<OpenBlock>,
    blockinfo: HashMap<u32, Vec<Abbrev>>,
    /// Target of the last SETBID inside a BLOCKINFO block.
    cur_bid: Option<u32>,
}

/// A writer error: the request cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("abbreviation index {0} is not defined in this block")]
    UnknownAbbrev(u32),
    #[error("record {values:?} does not fit abbreviation {index}")]
    DoesNotFit { index: u32, values: Vec<u64> },
    #[error("exit without a block to exit")]
    NoBlock,
    #[error("abbreviation width {0} is out of range 2..=32")]
    BadWidth(u32),
    #[error("abbreviation index {index} does not fit in {width} bits")]
    IndexTooWide { index: u32, width: u32 },
    #[error("abbreviation definition in the BLOCKINFO block before any SETBID")]
    NoSetBid,
    #[error("blocks still open at the end")]
    Unclosed,
}

impl Writer {
    /// A writer that starts at byte 0 with the given prefix (the pexe header).
    pub fn new(prefix: &[u8]) -> Self {
        let mut bits = BitWriter::new();
        for &b in prefix {
            bits.write(b as u64, 8);
        }
        Writer { bits, stack: Vec::new(), blockinfo: HashMap::new(), cur_bid: None }
    }

    fn width(&self) -> u32 {
        self.stack.last().map_or(2, |b| b.abbrev_width)
    }

    fn write_index(&mut self, index: u32) -> Result<(), WriteError> {
        let width = self.width();
        if width < 32 && index >> width != 0 {
            return Err(WriteError::IndexTooWide { index, width });
        }
        self.bits.write(index as u64, width);
        Ok(())
    }

    /// Bits written so far: the position of the next item.
    pub fn bit_len(&self) -> u64 {
        self.bits.bit_len()
    }

    /// ENTER_SUBBLOCK: `1: <65535, id, width>`.
    pub fn enter_block(&mut self, block_id: u32, abbrev_width: u32) -> Result<(), WriteError> {
        if !(2..=32).contains(&abbrev_width) {
            return Err(WriteError::BadWidth(abbrev_width));
        }
        self.write_index(abbrev_ids::ENTER_SUBBLOCK)?;
        self.bits.write_vbr(block_id as u64, 8);
        self.bits.write_vbr(abbrev_width as u64, 4);
        self.bits.align32();
        let len_at = self.bits.bytes().len();
        self.bits.write(0, 32);
        let abbrevs = self.blockinfo.get(&block_id).cloned().unwrap_or_default();
        self.stack.push(OpenBlock { block_id, abbrev_width, len_at, abbrevs });
        if block_id == BLOCKINFO_BLOCK_ID {
            self.cur_bid = None;
        }
        Ok(())
    }

    /// END_BLOCK: `0: <65534>`; patches the block's length word.
    pub fn exit_block(&mut self) -> Result<(), WriteError> {
        if self.stack.is_empty() {
            return Err(WriteError::NoBlock);
        }
        self.write_index(abbrev_ids::END_BLOCK)?;
        self.bits.align32();
        let b = self.stack.pop().unwrap();
        let words = (self.bits.bytes().len() - b.len_at - 4) / 4;
        self.bits.patch_u32(b.len_at, words as u32);
        Ok(())
    }

    /// DEFINE_ABBREV: local to the current block, or, inside BLOCKINFO, for
    /// the block chosen by the last SETBID.
    pub fn define_abbrev(&mut self, abbrev: Abbrev) -> Result<(), WriteError> {
        self.write_index(abbrev_ids::DEFINE_ABBREV)?;
        abbrev.write(&mut self.bits);
        let in_blockinfo = self.stack.last().is_some_and(|b| b.block_id == BLOCKINFO_BLOCK_ID);
        if in_blockinfo {
            let bid = self.cur_bid.ok_or(WriteError::NoSetBid)?;
            self.blockinfo.entry(bid).or_default().push(abbrev);
        } else if let Some(b) = self.stack.last_mut() {
            b.abbrevs.push(abbrev);
        }
        Ok(())
    }

    /// A record with `values[0]` as its code, written with abbreviation
    /// `index` (3 = unabbreviated).
    pub fn record(&mut self, index: u32, values: &[u64]) -> Result<(), WriteError> {
        let in_blockinfo = self.stack.last().is_some_and(|b| b.block_id == BLOCKINFO_BLOCK_ID);
        if in_blockinfo && values.first() == Some(&1) && values.len() >= 2 {
            self.cur_bid = Some(values[1] as u32);
        }
        if index == abbrev_ids::UNABBREV_RECORD {
            self.write_index(index)?;
            let (code, ops) = values.split_first().expect("record has a code");
            self.bits.write_vbr(*code, 6);
            self.bits.write_vbr(ops.len() as u64, 6);
            for &v in ops {
                self.bits.write_vbr(v, 6);
            }
            return Ok(());
        }
        let abbrev = index
            .checked_sub(abbrev_ids::FIRST_APPLICATION_ABBREV)
            .and_then(|i| self.stack.last().and_then(|b| b.abbrevs.get(i as usize)))
            .cloned()
            .ok_or(WriteError::UnknownAbbrev(index))?;
        if !abbrev.fits(values) {
            return Err(WriteError::DoesNotFit { index, values: values.to_vec() });
        }
        self.write_index(index)?;
        abbrev.write_record(&mut self.bits, values);
        Ok(())
    }

    /// The abbreviation with `index` in the current block, if defined.
    pub fn abbrev(&self, index: u32) -> Option<&Abbrev> {
        let i = index.checked_sub(abbrev_ids::FIRST_APPLICATION_ABBREV)?;
        self.stack.last()?.abbrevs.get(i as usize)
    }

    /// Abbreviations usable in the current block, in index order from 4.
    pub fn abbrevs(&self) -> &[Abbrev] {
        self.stack.last().map_or(&[], |b| &b.abbrevs)
    }

    /// Finishes; every block must be closed.
    pub fn finish(self) -> Result<Vec<u8>, WriteError> {
        if !self.stack.is_empty() {
            return Err(WriteError::Unclosed);
        }
        Ok(self.bits.into_bytes())
    }

    /// Appends raw bits (for reproducing padding exactly).
    pub fn raw_bits(&mut self) -> &mut BitWriter {
        &mut self.bits
    }
}
