//! The assembler: text of records → pexe bytes, the inverse of a listing.
//!
//! [`assemble`] reads the records of a pexe written as text and encodes them
//! with [`crate::bitstream::Writer`]. When the text came from a real file (a
//! pnacl-bcdis listing, or `pexe dis` output), the bytes are identical to that
//! file: every record names the abbreviation index it was written with, and
//! the abbreviations themselves are in the listing.
//!
//! # Accepted text
//!
//! Line styles may be mixed freely; blank lines are ignored and `#` starts a
//! comment that runs to the end of the line.
//!
//! **Listing form**, as pnacl-bcdis prints it, with three columns
//! (`pos|records|PNaClAsm`), two (`pos|records`) or only the records column.
//! A record is `N: <code, ops...>` and may wrap onto continuation lines
//! (`   |     8, 0, 3>`). The PNaClAsm column is ignored. A position column,
//! when present, is checked against the bit the writer is at, so a listing
//! edited into inconsistency is reported rather than silently re-laid out.
//! A line's first `|`-separated field is taken as the position column when
//! it is blank or reads `byte:bit`; otherwise the line is a records column
//! (anything after a `|` on it is ignored).
//!
//! | record | meaning |
//! |---|---|
//! | `<65532, bytes...>` | the file header, raw bytes; must come first |
//! | `1: <65535, id, width>` | enter block `id` with `width`-bit abbreviation indices |
//! | `0: <65534>` | exit the innermost block |
//! | `2: <65533, n, op...>` | define an abbreviation with `n` operands, each `1, value` (literal), `0, 1, w` (fixed), `0, 2, w` (vbr), `0, 3` (array), `0, 4` (char6) |
//! | `3: <code, ops...>` | a record, unabbreviated |
//! | `N: <code, ops...>`, N ≥ 4 | a record written with abbreviation N of the current block (BLOCKINFO ones first, then local ones in definition order) |
//!
//! Inside the BLOCKINFO block (id 0), pnacl-bcdis prints the unabbreviated
//! SETBID record as `1: <1, id>`; that spelling is accepted and written as the
//! unabbreviated record it is.
//!
//! **Textual bitcode form**, as pnacl-llvm's `NaClBitcodeTextReader` reads it:
//! records of decimal numbers separated by `,` and ended by `;`, code first,
//! e.g. `65535,8,2; 1,1; 65534;`. This form has no abbreviation index (its
//! first number is the record code): `65535,id,width` enters a block,
//! `65534` exits one, and every other record is written unabbreviated.
//! Unlike pnacl-llvm, which rejects them, a `65532` header record and
//! `65533` abbreviation definitions are accepted here (with the meaning of
//! the table above); several records may share a line.
//!
//! In the listing form the `N:` may also be left out (`<code, ops...>`), with
//! the same defaults as the textual form. Without a header record the file
//! gets the standard 16-byte PNaCl version 2 header.
//!
//! # Example
//!
//! ```
//! let text = "
//!     0:0|<65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0>
//!    16:0|1: <65535, 8, 2>
//!    24:0|  3: <1, 1>
//!    26:4|0: <65534>
//! ";
//! let bytes = pexe::asm::assemble(text).unwrap();
//! assert_eq!(&bytes[..4], b"PEXE");
//! // The same module in the textual form (header implied).
//! assert_eq!(pexe::asm::assemble("65535,8,2; 1,1; 65534;").unwrap(), bytes);
//! ```

mod samples;
mod syntax;

pub use samples::{ABBREVIATIONS_LISTING, FACTORIAL_LISTING};

use crate::bitstream::{
    abbrev_ids, block_name, Abbrev, AbbrevOp, WriteError, Writer, BLOCKINFO_BLOCK_ID, STANDARD_HEADER,
};
use crate::pos::BitPos;
use syntax::Statement;

/// Record codes with a fixed meaning in the listing's records column.
mod codes {
    pub const HEADER: u64 = 65532;
    pub const DEFINE_ABBREV: u64 = 65533;
    pub const EXIT_BLOCK: u64 = 65534;
    pub const ENTER_BLOCK: u64 = 65535;
    /// SETBID, inside the BLOCKINFO block.
    pub const SETBID: u64 = 1;
}

/// An assembly error: the 1-based line of the record at fault and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    pub line: usize,
    pub message: String,
}

/// Assembles the records in `text` into the bytes of a pexe.
///
/// See the module docs for the accepted forms. Fails on the first record that
/// cannot be encoded, naming its line.
pub fn assemble(text: &str) -> Result<Vec<u8>, AsmError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut asm = Assembler::default();
    syntax::parse(text, &mut |stmt| asm.statement(stmt))?;
    asm.finish(text.lines().count().max(1))
}

/// What a statement asks the writer to do.
enum Action {
    Header,
    Enter,
    Exit,
    Define,
    Record(u32),
}

struct OpenBlock {
    id: u32,
    /// Bits of each abbreviation index in this block.
    width: u32,
    line: usize,
}

#[derive(Default)]
struct Assembler {
    /// Created at the first record after the (optional) header.
    writer: Option<Writer>,
    /// Header bytes given by a `65532` record, before the writer exists.
    header: Option<Vec<u8>>,
    blocks: Vec<OpenBlock>,
    statements: usize,
}

fn err(line: usize, message: impl Into<String>) -> AsmError {
    AsmError { line, message: message.into() }
}

/// `<v, v, ...>` for messages; long records are cut short.
fn show_values(values: &[u64]) -> String {
    const SHOWN: usize = 16;
    let mut items: Vec<String> = values.iter().take(SHOWN).map(u64::to_string).collect();
    if values.len() > SHOWN {
        items.push(format!("... ({} values)", values.len()));
    }
    format!("<{}>", items.join(", "))
}

/// An abbreviation in PNaClAsm notation, e.g. `<2, vbr(6), array(fixed(8))>`.
fn show_abbrev(a: &Abbrev) -> String {
    let mut items = Vec::new();
    let mut in_array = false;
    for op in a.ops() {
        let s = match *op {
            AbbrevOp::Literal(v) => v.to_string(),
            AbbrevOp::Fixed(n) => format!("fixed({n})"),
            AbbrevOp::Vbr(n) => format!("vbr({n})"),
            AbbrevOp::Char6 => "char6".to_string(),
            AbbrevOp::Array => {
                in_array = true;
                continue;
            }
        };
        items.push(if in_array { format!("array({s})") } else { s });
    }
    format!("<{}>", items.join(", "))
}

fn show_block(id: u32) -> String {
    match block_name(id) {
        "unknown" => format!("block {id}"),
        name => format!("{name} block"),
    }
}

/// Reads the operands of a numeric abbreviation definition (after the count).
fn parse_abbrev_ops(ops: &[u64], line: usize) -> Result<Vec<AbbrevOp>, AsmError> {
    let width = |w: u64| u32::try_from(w).map_err(|_| err(line, format!("abbreviation operand width {w} is too large")));
    let mut out = Vec::new();
    let mut rest = ops;
    while let Some((&kind, tail)) = rest.split_first() {
        rest = tail;
        let op = match kind {
            1 => {
                let (&v, tail) = rest.split_first().ok_or_else(|| err(line, "literal abbreviation operand without a value"))?;
                rest = tail;
                AbbrevOp::Literal(v)
            }
            0 => {
                let (&enc, tail) = rest.split_first().ok_or_else(|| err(line, "abbreviation operand without an encoding"))?;
                rest = tail;
                match enc {
                    1 | 2 => {
                        let (&w, tail) = rest
                            .split_first()
                            .ok_or_else(|| err(line, "fixed/vbr abbreviation operand without a width"))?;
                        rest = tail;
                        if enc == 1 { AbbrevOp::Fixed(width(w)?) } else { AbbrevOp::Vbr(width(w)?) }
                    }
                    3 => AbbrevOp::Array,
                    4 => AbbrevOp::Char6,
                    5 => return Err(err(line, "blob abbreviation operands are not allowed in PNaCl bitcode")),
                    e => return Err(err(line, format!("unknown abbreviation operand encoding {e} (expected 1..=4)"))),
                }
            }
            k => return Err(err(line, format!("abbreviation operand must start with 1 (literal) or 0 (encoded), found {k}"))),
        };
        out.push(op);
    }
    Ok(out)
}

impl Assembler {
    fn in_blockinfo(&self) -> bool {
        self.blocks.last().is_some_and(|b| b.id == BLOCKINFO_BLOCK_ID)
    }

    /// Decides what a statement is from its index (if written) and its code.
    fn classify(&self, s: &Statement) -> Result<Action, AsmError> {
        let code = s.values[0];
        let Some(index) = s.index else {
            return Ok(match code {
                codes::HEADER => Action::Header,
                codes::ENTER_BLOCK => Action::Enter,
                codes::EXIT_BLOCK => Action::Exit,
                codes::DEFINE_ABBREV => Action::Define,
                _ => Action::Record(abbrev_ids::UNABBREV_RECORD),
            });
        };
        let index = u32::try_from(index).map_err(|_| err(s.line, format!("abbreviation index {index} is too large")))?;
        match index {
            abbrev_ids::END_BLOCK if code == codes::EXIT_BLOCK => Ok(Action::Exit),
            abbrev_ids::END_BLOCK => Err(err(s.line, "abbreviation index 0 ends a block; its record is <65534>")),
            abbrev_ids::ENTER_SUBBLOCK if code == codes::ENTER_BLOCK => Ok(Action::Enter),
            // pnacl-bcdis prints the unabbreviated SETBID as `1: <1, id>`.
            abbrev_ids::ENTER_SUBBLOCK if code == codes::SETBID && self.in_blockinfo() => {
                Ok(Action::Record(abbrev_ids::UNABBREV_RECORD))
            }
            abbrev_ids::ENTER_SUBBLOCK => {
                Err(err(s.line, "abbreviation index 1 enters a block; its record is <65535, id, width>"))
            }
            abbrev_ids::DEFINE_ABBREV if code == codes::DEFINE_ABBREV => Ok(Action::Define),
            abbrev_ids::DEFINE_ABBREV => {
                Err(err(s.line, "abbreviation index 2 defines an abbreviation; its record is <65533, count, ops...>"))
            }
            i => Ok(Action::Record(i)),
        }
    }

    fn statement(&mut self, s: &Statement) -> Result<(), AsmError> {
        let action = self.classify(s)?;
        let first = self.statements == 0;
        self.statements += 1;
        let line = s.line;
        if let Action::Header = action {
            if !first {
                return Err(err(line, "the header record <65532, ...> must be the first record"));
            }
            check_pos(s.pos, 0, line)?;
            let bytes = s.values[1..]
                .iter()
                .map(|&b| u8::try_from(b).map_err(|_| err(line, format!("header byte {b} is larger than 255"))))
                .collect::<Result<Vec<u8>, _>>()?;
            self.header = Some(bytes);
            return Ok(());
        }
        let header = self.header.take();
        let w = self.writer.get_or_insert_with(|| Writer::new(header.as_deref().unwrap_or(&STANDARD_HEADER)));
        check_pos(s.pos, w.bit_len(), line)?;
        let ops = &s.values[1..];
        match action {
            Action::Header => unreachable!("handled above"),
            Action::Enter => {
                let [id, width] = *ops else {
                    return Err(err(line, format!("enter block record {} needs a block id and an abbreviation width", show_values(&s.values))));
                };
                let id = u32::try_from(id).map_err(|_| err(line, format!("block id {id} does not fit in 32 bits")))?;
                let width = match u32::try_from(width) {
                    Ok(w) if (2..=crate::limits::MAX_ABBREV_ID_WIDTH).contains(&w) => w,
                    _ => {
                        let max = crate::limits::MAX_ABBREV_ID_WIDTH;
                        return Err(err(line, format!("abbreviation width {width} is out of range 2..={max}")));
                    }
                };
                w.enter_block(id, width).map_err(|e| write_err(e, line, self.blocks.last()))?;
                self.blocks.push(OpenBlock { id, width, line });
            }
            Action::Exit => {
                if !ops.is_empty() {
                    return Err(err(line, format!("exit block record {} takes no operands", show_values(&s.values))));
                }
                if self.blocks.is_empty() {
                    return Err(err(line, "exit block record without an open block"));
                }
                w.exit_block().map_err(|e| write_err(e, line, self.blocks.last()))?;
                self.blocks.pop();
            }
            Action::Define => {
                let Some(block) = self.blocks.last() else {
                    return Err(err(line, "abbreviation definition outside any block"));
                };
                let (&count, rest) = ops
                    .split_first()
                    .ok_or_else(|| err(line, "abbreviation definition without an operand count"))?;
                let parsed = parse_abbrev_ops(rest, line)?;
                if count != parsed.len() as u64 {
                    return Err(err(line, format!("abbreviation definition says {count} operands but lists {}", parsed.len())));
                }
                let abbrev = Abbrev::new(parsed).map_err(|m| err(line, format!("invalid abbreviation: {m}")))?;
                w.define_abbrev(abbrev).map_err(|e| write_err(e, line, Some(block)))?;
            }
            Action::Record(index) => {
                let Some(block) = self.blocks.last() else {
                    return Err(err(line, "record outside any block"));
                };
                if s.values[0] > u32::MAX as u64 {
                    return Err(err(line, format!("record code {} does not fit in 32 bits", s.values[0])));
                }
                if block.width < 32 && index >> block.width != 0 {
                    return Err(err(
                        line,
                        format!(
                            "abbreviation index {index} does not fit in the {}'s {}-bit abbreviation width",
                            show_block(block.id),
                            block.width
                        ),
                    ));
                }
                if index >= abbrev_ids::FIRST_APPLICATION_ABBREV {
                    let Some(abbrev) = w.abbrev(index) else {
                        let defined = w.abbrevs().len() as u32;
                        let have = match defined {
                            0 => "none".to_string(),
                            n => format!("4..={}", n + abbrev_ids::FIRST_APPLICATION_ABBREV - 1),
                        };
                        return Err(err(
                            line,
                            format!("abbreviation index {index} is not defined in the {} (defined: {have})", show_block(block.id)),
                        ));
                    };
                    if !abbrev.fits(&s.values) {
                        return Err(err(
                            line,
                            format!(
                                "record {} does not fit abbreviation {index} {}",
                                show_values(&s.values),
                                show_abbrev(abbrev)
                            ),
                        ));
                    }
                }
                w.record(index, &s.values).map_err(|e| write_err(e, line, Some(block)))?;
            }
        }
        Ok(())
    }

    fn finish(self, last_line: usize) -> Result<Vec<u8>, AsmError> {
        if let Some(b) = self.blocks.last() {
            return Err(err(
                last_line,
                format!(
                    "the {} entered on line {} is never exited ({} block(s) still open at the end)",
                    show_block(b.id),
                    b.line,
                    self.blocks.len()
                ),
            ));
        }
        match (self.writer, self.header) {
            (Some(w), _) => w.finish().map_err(|e| err(last_line, e.to_string())),
            (None, Some(header)) => Ok(header),
            (None, None) => Err(err(last_line, "no records in the input")),
        }
    }
}

/// A position column must name the bit the record is written at.
fn check_pos(claimed: Option<BitPos>, actual: u64, line: usize) -> Result<(), AsmError> {
    match claimed {
        Some(p) if p.0 != actual => Err(err(
            line,
            format!("the listing says this record is at {p}, but it is written at {}", BitPos(actual)),
        )),
        _ => Ok(()),
    }
}

fn write_err(e: WriteError, line: usize, block: Option<&OpenBlock>) -> AsmError {
    match (e, block) {
        (WriteError::IndexTooWide { index, width }, Some(b)) => err(
            line,
            format!("abbreviation index {index} does not fit in the {}'s {width}-bit abbreviation width", show_block(b.id)),
        ),
        (e, Some(b)) => err(line, format!("{e} (in the {})", show_block(b.id))),
        (e, None) => err(line, e.to_string()),
    }
}

#[cfg(test)]
mod tests;
