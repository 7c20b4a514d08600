use crate::bitstream::{self, block_name};
use crate::BitPos;
use std::fmt;

/// Why a pexe could not be decoded, and where.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    pos: BitPos,
    message: String,
    /// Innermost block id.
    block: Option<u32>,
    /// The function whose body was being read: its value id and name.
    function: Option<(u32, Option<String>)>,
}

impl DecodeError {
    #[cold]
    pub fn new(pos: BitPos, message: impl Into<String>) -> Self {
        DecodeError(Box::new(Inner { pos, message: message.into(), block: None, function: None }))
    }

    #[cold]
    pub fn from_bitstream(e: bitstream::Error) -> Self {
        let mut d = DecodeError::new(e.pos(), e.kind().to_string());
        d.0.block = e.block();
        d
    }

    /// Adds the block id, unless one is already known.
    #[cold]
    pub fn in_block(mut self, block: u32) -> Self {
        self.0.block.get_or_insert(block);
        self
    }

    /// Adds the function, unless one is already known.
    #[cold]
    pub fn in_function(mut self, id: u32, name: Option<String>) -> Self {
        self.0.function.get_or_insert((id, name));
        self
    }

    pub fn pos(&self) -> BitPos {
        self.0.pos
    }
    pub fn message(&self) -> &str {
        &self.0.message
    }
    pub fn block(&self) -> Option<u32> {
        self.0.block
    }
    pub fn function(&self) -> Option<u32> {
        self.0.function.as_ref().map(|f| f.0)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        match (&self.0.function, self.0.block) {
            (Some((id, name)), b) => {
                write!(f, " (in function @f{id}")?;
                if let Some(n) = name {
                    write!(f, " \"{n}\"")?;
                }
                if let Some(b) = b {
                    write!(f, ", {} block", block_name(b))?;
                }
                f.write_str(")")
            }
            (None, Some(b)) => write!(f, " (in {} block)", block_name(b)),
            (None, None) => Ok(()),
        }
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.pos, self)
    }
}

impl std::error::Error for DecodeError {}
