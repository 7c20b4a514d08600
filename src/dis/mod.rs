//! The disassembler: a pexe as a pnacl-bcdis listing.
//!
//! A listing has three columns, as in the PNaCl bitcode manual:
//!
//! ```text
//!        0:0|<65532, 80, 69, 88, 69, 1, 0,|Magic Number: 'PEXE' (80, 69, 88, 69)
//!           | 8, 0, 17, 0, 4, 0, 2, 0, 0, |PNaCl Version: 2
//!           | 0>                          |
//!       16:0|1: <65535, 8, 2>             |module {  // BlockID = 8
//!       24:0|  3: <1, 1>                  |  version 1;
//! ```
//!
//! the bit position of each record (`byte:bit`, the byte right-aligned in
//! eight columns); the record itself, `abbreviation index: <code, values…>`
//! (enter block is `1: <65535, id, width>`, exit block `0: <65534>`, an
//! abbreviation definition `2: <65533, count, encodings…>`, the header
//! `<65532, bytes…>`); and the record in PNaClAsm. The first two columns
//! together are 40 characters wide, the third 39; longer text wraps onto
//! continuation lines by pnacl-bcdis's token rules (see `text`). Lines that
//! belong to no record (basic block labels such as `%b1:`, the `}` closing a
//! compound initializer) have an empty records column.
//!
//! [`Mode::Records`] prints only the first two columns (80 wide): everything
//! needed to write the bits back, so `pexe as` can read it. One pnacl-bcdis
//! quirk is kept there too: inside the abbreviations (BLOCKINFO) block a
//! SETBID record is shown with abbreviation index 1 (`1: <1, 14>`), although
//! it is written unabbreviated (index 3). [`Mode::Asm`] prints only the
//! PNaClAsm column (79 wide), without the header lines.
//!
//! The listing follows the [`Decoder`]: every event goes to it, and the
//! PNaClAsm column is printed from its answer ([`Decoded`]) and the module
//! and body it has built, never by decoding records a second time. Values
//! are named as PNaClAsm does: `@fN` functions, `@gN` globals, `%pN`
//! parameters, `%cN` constants, `%vN` instruction results, `%bN` basic
//! blocks, `@tN` types, `@aN`/`%aN` global/local abbreviations.
//!
//! ```
//! # let bytes = pexe::bitstream::tests_support::minimal_pexe();
//! let mut listing = String::new();
//! pexe::dis::disassemble(&bytes, &pexe::dis::Options::default(), &mut listing).unwrap();
//! assert!(listing.contains("|module {  // BlockID = 8"));
//! ```

mod asm;
mod float;
mod text;

use crate::bitstream::{
    block_name, Abbrev, AbbrevOp, Event, Parser, CONSTANTS_BLOCK_ID, FUNCTION_BLOCK_ID, GLOBALVAR_BLOCK_ID,
};
use crate::decode::{DecodeError, Decoded, Decoder};
use std::collections::HashMap;
use text::{push_spaces, Column, Digits};

/// Which columns a listing has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Positions, records and PNaClAsm.
    #[default]
    Full,
    /// Positions and records only: the input of the assembler.
    Records,
    /// PNaClAsm only.
    Asm,
}

/// What to list.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub mode: Mode,
    /// List only the function block of this function (its value id, the `N`
    /// of `@fN`), from its enter line to its exit line.
    pub function: Option<u32>,
}

/// Width of the position and records columns together, with PNaClAsm beside.
const RECORDS_WIDTH: usize = 40;
/// Width of the records column alone.
const RECORDS_ONLY_WIDTH: usize = 80;
/// Usable characters a records continuation line keeps (a 64-bit value is
/// up to 21 characters).
const RECORDS_MIN_WIDTH: usize = 21;
/// Width of the PNaClAsm column beside the records.
const ASM_WIDTH: usize = 80 - (RECORDS_WIDTH + 1);
/// Width of the PNaClAsm column alone.
const ASM_ONLY_WIDTH: usize = 80 - 1;
const ASM_MIN_WIDTH: usize = 20;
/// Extra indentation of wrapped PNaClAsm lines (two indentation steps).
const ASM_CONTINUATION: usize = 4;

/// Writes the listing of `bytes` into `out`.
///
/// On a decode error the listing up to the record at fault is in `out` and
/// the error is returned. With [`Options::function`], a function without a
/// body is an error too (and nothing is listed).
pub fn disassemble(bytes: &[u8], opts: &Options, out: &mut String) -> Result<(), DecodeError> {
    let mut parser = Parser::new(bytes);
    let mut decoder = Decoder::new();
    let mut listing = Listing::new(opts, out);
    loop {
        let event = parser.next_event().map_err(DecodeError::from_bitstream)?;
        if let Event::End = event {
            break;
        }
        listing.before(&event);
        let decoded = decoder.event(&event)?;
        listing.after(&event, &decoded, &decoder);
        if listing.finished {
            return Ok(());
        }
    }
    match opts.function {
        Some(f) if !listing.found => {
            Err(DecodeError::new(parser.pos(), format!("function @f{f} has no function block to list")))
        }
        _ => Ok(()),
    }
}

/// An open block.
struct Frame {
    id: u32,
    /// BLOCKINFO abbreviations this block inherited (indices 4..).
    global_abbrevs: u32,
    /// Abbreviations defined in the block so far.
    local_abbrevs: u32,
}

/// The printer: two columns and the little state pnacl-bcdis keeps beside
/// the decoder's (indentation, labels, initializer nesting).
struct Listing<'o> {
    out: &'o mut String,
    mode: Mode,
    filter: Option<u32>,
    /// Whether lines go to `out` (false outside the filtered function).
    emit: bool,
    found: bool,
    finished: bool,
    rec: Column,
    asm: Column,
    blocks: Vec<Frame>,
    /// BLOCKINFO abbreviations defined so far, by target block id.
    global_abbrevs: HashMap<u32, u32>,
    /// The globals count record: which ids are `@gN`.
    expected_globals: u64,
    /// Globals block: indentation of its records, and the initializers the
    /// current global still expects.
    globals_tabs: usize,
    inits_left: u64,
    in_compound: bool,
    num_globals: u64,
    /// Constants block: indentation of the function around it.
    constants_tabs: usize,
    /// Function block: the previous record ended a basic block (or declared
    /// the blocks), so the next record starts one and gets a label.
    terminated: bool,
    next_label: u32,
}

impl<'o> Listing<'o> {
    fn new(opts: &Options, out: &'o mut String) -> Self {
        let (rec_width, asm_width) = match opts.mode {
            Mode::Full => (RECORDS_WIDTH, ASM_WIDTH),
            Mode::Records => (RECORDS_ONLY_WIDTH, ASM_MIN_WIDTH),
            Mode::Asm => (0, ASM_ONLY_WIDTH),
        };
        let mut rec = Column::new(rec_width.max(RECORDS_MIN_WIDTH), RECORDS_MIN_WIDTH, 0, true);
        let mut asm = Column::new(asm_width, ASM_MIN_WIDTH, ASM_CONTINUATION, false);
        let emit = opts.function.is_none();
        rec.enabled = emit && opts.mode != Mode::Asm;
        asm.enabled = emit && opts.mode != Mode::Records;
        let mut l = Listing {
            out,
            mode: opts.mode,
            filter: opts.function,
            emit,
            found: false,
            finished: false,
            rec,
            asm,
            blocks: Vec::new(),
            global_abbrevs: HashMap::new(),
            expected_globals: 0,
            globals_tabs: 0,
            inits_left: 0,
            in_compound: false,
            num_globals: 0,
            constants_tabs: 0,
            terminated: false,
            next_label: 0,
        };
        l.set_label(0);
        l
    }

    fn set_emit(&mut self, on: bool) {
        self.emit = on;
        self.rec.enabled = on && self.mode != Mode::Asm;
        self.asm.enabled = on && self.mode != Mode::Records;
    }

    fn block(&self) -> Option<u32> {
        self.blocks.last().map(|f| f.id)
    }

    /// What pnacl-bcdis prints before a record reaches the decoder: the
    /// label of a basic block that starts with it.
    fn before(&mut self, event: &Event) {
        if let Event::Record { .. } = event {
            if self.block() == Some(FUNCTION_BLOCK_ID) && self.terminated {
                self.terminated = false;
                self.asm.dec();
                self.asm.text("%b");
                self.write_num(self.next_label);
                self.asm.text(":");
                self.asm.endline();
                self.flush();
                self.asm.inc();
                self.next_label += 1;
            }
        }
    }

    /// Prints an event the decoder has accepted.
    fn after(&mut self, event: &Event, decoded: &Decoded, dec: &Decoder) {
        match *event {
            Event::Header(h) => self.header(&h.bytes, h.version),
            Event::EnterBlock { pos, block_id, abbrev_width, .. } => {
                if let (Decoded::FunctionBegin(f), Some(want)) = (decoded, self.filter) {
                    if f.0 == want {
                        self.found = true;
                        self.set_emit(true);
                    }
                }
                self.enter(pos.0, block_id, abbrev_width, decoded, dec);
            }
            Event::ExitBlock { pos, block_id } => {
                self.exit(pos.0, block_id);
                if block_id == FUNCTION_BLOCK_ID && self.found && self.emit && self.filter.is_some() {
                    self.set_emit(false);
                    self.finished = true;
                }
            }
            Event::DefineAbbrev { pos, abbrev, target, index } => self.define_abbrev(pos.0, abbrev, target, index),
            Event::Record { pos, abbrev, code, ops } => self.record(pos.0, abbrev, code, ops, decoded, dec),
            Event::End => {}
        }
    }

    /// The header record, and (beside records only) its meaning.
    fn header(&mut self, bytes: &[u8], version: u32) {
        if self.mode == Mode::Full && bytes.len() >= 4 {
            let a = &mut self.asm;
            a.text("Magic");
            a.space();
            a.text("Number");
            a.tok(":");
            a.space();
            a.start();
            a.start();
            a.text("'");
            // The header was checked to start with `PEXE`.
            a.text(std::str::from_utf8(&bytes[..4]).unwrap_or("????"));
            a.text("'");
            a.finish();
            a.space();
            a.start();
            a.open("(");
            for (i, &b) in bytes[..4].iter().enumerate() {
                if i > 0 {
                    self.asm.tok(",");
                    self.asm.space();
                }
                self.write_num(b);
            }
            let a = &mut self.asm;
            a.close(")");
            a.finish();
            a.finish();
            a.endline();
            a.text("PNaCl Version: ");
            self.write_num(version);
            self.asm.endline();
        }
        self.write_record(0, None, std::iter::once(65532).chain(bytes.iter().map(|&b| b as u64)));
    }

    fn enter(&mut self, pos: u64, id: u32, width: u32, decoded: &Decoded, dec: &Decoder) {
        let global_abbrevs = self.global_abbrevs.get(&id).copied().unwrap_or(0);
        match id {
            GLOBALVAR_BLOCK_ID => {
                self.globals_tabs = self.asm.tabs + 1;
                self.inits_left = 0;
                self.in_compound = false;
            }
            CONSTANTS_BLOCK_ID => self.constants_tabs = self.asm.tabs,
            FUNCTION_BLOCK_ID => {
                self.terminated = false;
                self.next_label = 0;
            }
            _ => {}
        }
        match decoded {
            Decoded::FunctionBegin(f) => self.function_header(*f, dec),
            _ => {
                self.asm.text(block_name(id));
                self.asm.space();
                self.block_comment(id);
            }
        }
        self.write_record(pos, Some(1), [65535, id as u64, width as u64]);
        self.rec.inc();
        self.asm.inc();
        self.blocks.push(Frame { id, global_abbrevs, local_abbrevs: 0 });
    }

    /// `{  // BlockID = N`, ending a block's first line.
    fn block_comment(&mut self, id: u32) {
        let a = &mut self.asm;
        a.open("{");
        a.space();
        a.space();
        a.text("// BlockID = ");
        self.write_num(id);
        self.asm.endline();
    }

    fn exit(&mut self, pos: u64, id: u32) {
        self.asm.dec();
        self.rec.dec();
        self.asm.close("}");
        self.asm.endline();
        self.write_record(pos, Some(0), [65534]);
        if id == CONSTANTS_BLOCK_ID {
            while self.constants_tabs < self.asm.tabs {
                self.asm.dec();
            }
        }
        self.blocks.pop();
    }

    fn define_abbrev(&mut self, pos: u64, abbrev: &Abbrev, target: Option<u32>, index: u32) {
        match target {
            Some(bid) => {
                *self.global_abbrevs.entry(bid).or_insert(0) += 1;
                self.asm.inc();
                self.asm.text("@a");
                self.write_num(index);
                self.abbrev_definition(abbrev);
                self.asm.dec();
            }
            None => {
                let local = match self.blocks.last_mut() {
                    Some(f) => {
                        f.local_abbrevs += 1;
                        f.local_abbrevs - 1
                    }
                    None => 0,
                };
                self.asm.text("%a");
                self.write_num(local);
                self.abbrev_definition(abbrev);
            }
        }
        let values = abbrev_values(abbrev);
        self.write_record(pos, Some(2), std::iter::once(65533).chain(values));
    }

    /// Writes the records column line(s) of a record and flushes both
    /// columns: pnacl-bcdis's `ObjDumpStream::Write`.
    fn write_record(&mut self, bit: u64, abbrev: Option<u32>, values: impl IntoIterator<Item = u64>) {
        if self.rec.enabled {
            self.set_label(bit);
            self.rec.record_line(abbrev, values);
        }
        self.flush();
    }

    /// `byte:bit`, the byte right-aligned in eight columns.
    fn set_label(&mut self, bit: u64) {
        let mut digits = Digits::default();
        let byte = digits.of(bit / 8);
        let label = &mut self.rec.label;
        label.clear();
        push_spaces(label, 8usize.saturating_sub(byte.len()));
        label.push_str(byte);
        label.push(':');
        label.push((b'0' + (bit % 8) as u8) as char);
    }

    /// Moves the buffered lines of both columns into the listing.
    fn flush(&mut self) {
        if self.emit {
            match self.mode {
                Mode::Records => self.out.push_str(&self.rec.buf),
                Mode::Asm => self.out.push_str(&self.asm.buf),
                Mode::Full if self.rec.lines == 1 && self.asm.lines == 1 => {
                    // One line each, the usual case.
                    let rec = &self.rec.buf[..self.rec.buf.len() - 1];
                    self.out.push_str(rec);
                    push_spaces(self.out, RECORDS_WIDTH.saturating_sub(rec.len()));
                    self.out.push('|');
                    self.out.push_str(&self.asm.buf);
                }
                Mode::Full => {
                    let (rec, asm) = (&self.rec.buf, &self.asm.buf);
                    let (mut r, mut a) = (0, 0);
                    while r < rec.len() || a < asm.len() {
                        let line = next_line(rec, &mut r);
                        self.out.push_str(line);
                        let mut column = line.len();
                        if column == 0 {
                            push_spaces(self.out, self.rec.label.len());
                            self.out.push('|');
                            column = self.rec.label.len() + 1;
                        }
                        if column < RECORDS_WIDTH {
                            push_spaces(self.out, RECORDS_WIDTH - column);
                        }
                        self.out.push('|');
                        self.out.push_str(next_line(asm, &mut a));
                        self.out.push('\n');
                    }
                }
            }
        }
        self.rec.clear();
        self.asm.clear();
    }

    /// Appends a number to the PNaClAsm pending token.
    fn write_num(&mut self, n: impl Into<u64>) {
        write_u64(&mut self.asm, n.into());
    }
}

/// The text of `s` from `*at` to the next newline (which is skipped).
fn next_line<'s>(s: &'s str, at: &mut usize) -> &'s str {
    let rest = &s[(*at).min(s.len())..];
    match rest.find('\n') {
        Some(n) => {
            *at += n + 1;
            &rest[..n]
        }
        None => {
            *at = s.len();
            rest
        }
    }
}

/// Decimal digits of `v` into the pending token, without `fmt` machinery.
fn write_u64(c: &mut Column, v: u64) {
    c.text_u64(v);
}

/// The values of an abbreviation definition record after its code: the
/// operand count, then each operand's encoding (`1, value` for a literal,
/// `0, 1, width` fixed, `0, 2, width` vbr, `0, 3` array, `0, 4` char6).
fn abbrev_values(abbrev: &Abbrev) -> Vec<u64> {
    let mut v = vec![abbrev.ops().len() as u64];
    for op in abbrev.ops() {
        match *op {
            AbbrevOp::Literal(x) => v.extend([1, x]),
            AbbrevOp::Fixed(w) => v.extend([0, 1, w as u64]),
            AbbrevOp::Vbr(w) => v.extend([0, 2, w as u64]),
            AbbrevOp::Array => v.extend([0, 3]),
            AbbrevOp::Char6 => v.extend([0, 4]),
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::{Writer, STANDARD_HEADER};

    fn list(bytes: &[u8], mode: Mode) -> String {
        let mut out = String::new();
        disassemble(bytes, &Options { mode, function: None }, &mut out).unwrap();
        out
    }

    /// A module with a BLOCKINFO block (one abbreviation for types blocks)
    /// and a types block using it.
    fn with_abbreviations() -> Vec<u8> {
        use crate::bitstream::{Abbrev, AbbrevOp};
        let mut w = Writer::new(&STANDARD_HEADER);
        w.enter_block(8, 2).unwrap();
        w.record(3, &[1, 1]).unwrap();
        w.enter_block(0, 2).unwrap();
        w.record(3, &[1, 17]).unwrap();
        w.define_abbrev(Abbrev::new(vec![AbbrevOp::Literal(7), AbbrevOp::Vbr(8)]).unwrap()).unwrap();
        w.record(3, &[1, 11]).unwrap();
        w.define_abbrev(Abbrev::new(vec![AbbrevOp::Literal(4), AbbrevOp::Fixed(0)]).unwrap()).unwrap();
        w.exit_block().unwrap();
        w.enter_block(17, 3).unwrap();
        w.define_abbrev(Abbrev::new(vec![AbbrevOp::Literal(2)]).unwrap()).unwrap();
        w.record(3, &[1, 2]).unwrap();
        w.record(4, &[7, 32]).unwrap();
        w.record(5, &[2]).unwrap();
        w.exit_block().unwrap();
        w.exit_block().unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn abbreviations_are_named_where_defined_and_where_used() {
        let out = list(&with_abbreviations(), Mode::Full);
        let lines: Vec<&str> = out.lines().collect();
        // SETBID is shown with index 1, as pnacl-bcdis does.
        assert!(lines[6].ends_with("|    1: <1, 17>               |    types:"), "{out}");
        assert!(lines[7].ends_with("|    2: <65533, 2, 1, 7, 0, 2,|      @a0 = abbrev <7, vbr(8)>;"), "{out}");
        // fixed(0) reads back as the literal 0.
        assert!(lines[10].ends_with("|    2: <65533, 2, 1, 4, 0, 1,|      @a0 = abbrev <4, 0>;"), "{out}");
        assert!(out.contains("|    %a0 = abbrev <2>;"), "{out}");
        assert!(out.contains("|    4: <7, 32>               |    @t0 = i32; <@a0>"), "{out}");
        assert!(out.contains("|    5: <2>                   |    @t1 = void; <%a0>"), "{out}");
    }

    #[test]
    fn modes_keep_their_columns() {
        let bytes = with_abbreviations();
        let records = list(&bytes, Mode::Records);
        let asm = list(&bytes, Mode::Asm);
        assert!(records.lines().all(|l| !l.contains("BlockID") && l.as_bytes()[10] == b'|'), "{records}");
        assert!(records.starts_with("       0:0|<65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0>\n"));
        assert!(asm.starts_with("module {  // BlockID = 8\n  version 1;\n"), "{asm}");
        assert!(!asm.contains('|'));
        // Each mode lists the same records.
        let full = list(&bytes, Mode::Full);
        assert_eq!(records.lines().count(), full.lines().filter(|l| !l[..10].trim().is_empty()).count());
    }

    #[test]
    fn positions_are_right_aligned_bytes_and_a_bit() {
        let mut out = String::new();
        let mut l = Listing::new(&Options::default(), &mut out);
        l.set_label(156 * 8 + 7);
        assert_eq!(l.rec.label, "     156:7");
        l.set_label(123_456_789 * 8);
        assert_eq!(l.rec.label, "123456789:0");
    }

    #[test]
    fn a_bad_file_lists_up_to_the_error() {
        let mut bytes = with_abbreviations();
        bytes.truncate(bytes.len() - 8);
        let mut out = String::new();
        let e = disassemble(&bytes, &Options::default(), &mut out).unwrap_err();
        assert!(out.starts_with("       0:0|<65532"), "{out}");
        assert!(!out.is_empty() && e.pos().0 > 0);
    }
}
