use super::BitPos;
use std::fmt;

/// What went wrong while reading bits, without the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("unexpected end of file")]
    UnexpectedEof,
    #[error("{0}")]
    Header(String),
    #[error("vbr value does not fit in 64 bits")]
    VbrOverflow,
    #[error("abbreviation index {0} is not defined in this block")]
    UnknownAbbrev(u64),
    #[error("invalid abbreviation: {0}")]
    BadAbbrev(String),
    #[error("abbreviation width {0} is out of range 2..=32")]
    BadAbbrevIdWidth(u64),
    #[error("blocks nested deeper than {0}")]
    TooDeep(usize),
    #[error("block length word says it ends at word {expected}, but it ends at word {actual}")]
    BlockLength { expected: u64, actual: u64 },
    #[error("block length word points past the end of the file")]
    BlockPastEnd,
    #[error("end of block outside any block")]
    ExitOutsideBlock,
    #[error("top level must hold one module block (block id 8), found {0}")]
    TopLevel(String),
    #[error("array of {0} zero-width elements is longer than allowed")]
    ArrayTooLong(u64),
    #[error("record claims {claimed} operands but only {bits} bits remain")]
    TooManyOperands { claimed: u64, bits: u64 },
    #[error("record code {0} does not fit in 32 bits")]
    CodeTooLarge(u64),
    #[error("record without a code")]
    EmptyRecord,
    #[error("non-zero bits after the module block")]
    TrailingData,
    #[error("blockinfo record {0} is invalid here")]
    BadBlockInfo(String),
    #[error("streaming input was already finished")]
    AlreadyFinished,
}

/// An error of the bitstream layer: what happened, and where.
///
/// Boxed so `Result<T, Error>` stays one word wide on the hot path.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorInner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct ErrorInner {
    pos: BitPos,
    kind: ErrorKind,
    /// Block id the reader was in, if any.
    block: Option<u32>,
}

impl Error {
    #[cold]
    pub fn new(pos: BitPos, kind: ErrorKind) -> Self {
        Error(Box::new(ErrorInner { pos, kind, block: None }))
    }
    #[cold]
    pub(crate) fn in_block(mut self, block: Option<u32>) -> Self {
        if self.0.block.is_none() {
            self.0.block = block;
        }
        self
    }
    pub fn pos(&self) -> BitPos {
        self.0.pos
    }
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }
    /// The id of the innermost block being read when the error happened.
    pub fn block(&self) -> Option<u32> {
        self.0.block
    }
    pub fn is_eof(&self) -> bool {
        self.0.kind == ErrorKind::UnexpectedEof
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind)?;
        if let Some(b) = self.0.block {
            write!(f, " (in {} block)", super::block_name(b))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.pos, self)
    }
}

impl std::error::Error for Error {}
