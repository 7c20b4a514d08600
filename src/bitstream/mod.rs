//! The LLVM bitstream container as PNaCl uses it. Knows bits, not PNaCl.
//!
//! A pexe is a small header (`PEXE`, version 2) followed by a bitstream: a
//! tree of blocks holding records, where each record is a code and a list of
//! unsigned integers. How the integers are packed is chosen per record by an
//! *abbreviation index*: 0 ends a block, 1 enters one, 2 defines an
//! abbreviation, 3 writes a record with every value as vbr6, and 4 and up
//! name abbreviations, which come from the BLOCKINFO block (for every block
//! with a given id) or are defined inside the block itself.
//!
//! [`Parser`] turns bytes into [`Event`]s, from a whole buffer or from chunks
//! as they arrive. Every position is a [`BitPos`] in the whole file, and every
//! error carries one. [`Writer`] does the reverse, for the assembler.
//!
//! ```
//! use pexe::bitstream::{Parser, Event};
//! # let bytes = pexe::bitstream::tests_support::minimal_pexe();
//! let mut p = Parser::new(&bytes);
//! let mut records = 0;
//! loop {
//!     match p.next_event().unwrap() {
//!         Event::Record { .. } => records += 1,
//!         Event::End => break,
//!         _ => {}
//!     }
//! }
//! assert!(records > 0);
//! ```

pub mod abbrev;
mod cursor;
mod error;
pub mod header;
mod parser;

mod writer;

pub use abbrev::{Abbrev, AbbrevOp};
pub use cursor::BitCursor;
pub use error::{Error, ErrorKind};
pub use header::Header;
pub use parser::{BlockInfo, BlockRange, Event, Parser, ParserBuffers, Step};
pub(crate) use parser::{as_values, RecordSink};
pub use crate::pos::BitPos;
pub use writer::{BitWriter, WriteError, Writer};

/// The fixed abbreviation indices.
pub mod abbrev_ids {
    pub const END_BLOCK: u32 = 0;
    pub const ENTER_SUBBLOCK: u32 = 1;
    pub const DEFINE_ABBREV: u32 = 2;
    pub const UNABBREV_RECORD: u32 = 3;
    pub const FIRST_APPLICATION_ABBREV: u32 = 4;
}

pub const BLOCKINFO_BLOCK_ID: u32 = 0;
pub const MODULE_BLOCK_ID: u32 = 8;
pub const CONSTANTS_BLOCK_ID: u32 = 11;
pub const FUNCTION_BLOCK_ID: u32 = 12;
pub const VALUE_SYMTAB_BLOCK_ID: u32 = 14;
pub const TYPE_BLOCK_ID: u32 = 17;
pub const GLOBALVAR_BLOCK_ID: u32 = 19;

/// The PNaClAsm name of a block id, as pnacl-bcdis prints it.
pub fn block_name(id: u32) -> &'static str {
    match id {
        BLOCKINFO_BLOCK_ID => "abbreviations",
        MODULE_BLOCK_ID => "module",
        CONSTANTS_BLOCK_ID => "constants",
        FUNCTION_BLOCK_ID => "function",
        VALUE_SYMTAB_BLOCK_ID => "valuesymtab",
        TYPE_BLOCK_ID => "types",
        GLOBALVAR_BLOCK_ID => "globals",
        _ => "unknown",
    }
}

/// The standard 16-byte header of a PNaCl version 2 file.
pub const STANDARD_HEADER: [u8; 16] = *b"PEXE\x01\x00\x08\x00\x11\x00\x04\x00\x02\x00\x00\x00";

#[doc(hidden)]
pub mod tests_support {
    /// The smallest pexe: the factorial-free module of seed 001 with one
    /// types block. Used by doc examples.
    pub fn minimal_pexe() -> Vec<u8> {
        let mut w = super::Writer::new(&super::STANDARD_HEADER);
        w.enter_block(super::MODULE_BLOCK_ID, 2).unwrap();
        w.record(3, &[1, 1]).unwrap();
        w.enter_block(super::TYPE_BLOCK_ID, 2).unwrap();
        w.record(3, &[1, 1]).unwrap();
        w.record(3, &[2]).unwrap();
        w.exit_block().unwrap();
        w.exit_block().unwrap();
        w.finish().unwrap()
    }
}
