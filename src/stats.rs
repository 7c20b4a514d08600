//! Where the bits of a pexe go: per block kind, per record code, per function.
//!
//! This is the `pnacl-bcanalyzer` view of a file, computed from
//! [`bitstream::Parser`](crate::bitstream::Parser) events alone. No decoder
//! runs, so a file the decoder or the verifier rejects still gets its
//! statistics, and a file with a bitstream error gets them up to that error
//! ([`Stats::compute_partial`]).
//!
//! How bits are counted:
//! - a record, or an abbreviation definition, owns the bits from its position
//!   to the position of the next item;
//! - a block owns the bits from its ENTER_SUBBLOCK item to the end of its
//!   END_BLOCK (alignment included): [`BlockStats::bits`] counts nested
//!   blocks too, [`BlockStats::own_bits`] leaves them out. So the module
//!   block holds every bit of the bitstream, and the `own_bits` of all block
//!   kinds add up to the bitstream (the file minus its header and any zero
//!   padding after the module block);
//! - a function's size is the `bits` of its function block, nested
//!   constants and symbol table blocks included.
//!
//! Functions are matched to their declarations the way the format does it,
//! by position: the k-th function block is the body of the k-th module
//! FUNCTION record with `isproto = 0`, and the record's index among all
//! FUNCTION records is the function's value id. Names come from the module
//! level value symbol table (ENTRY records `[valueid, chars...]`).
//!
//! ```
//! # let bytes = pexe::bitstream::tests_support::minimal_pexe();
//! let stats = pexe::stats::Stats::compute(&bytes).unwrap();
//! let module = stats.block(pexe::bitstream::MODULE_BLOCK_ID).unwrap();
//! assert_eq!(module.bits, stats.bitstream_bits());
//! println!("{}", stats.report(10));
//! ```

use crate::bitstream::{self, block_name, Event, Parser};
use crate::BitPos;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// Statistics of one file. See the module docs for how bits are counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Size of the whole file, in bits.
    pub file_bits: u64,
    /// Size of the wrapper header (`PEXE` and its fields), in bits.
    pub header_bits: u64,
    /// Where reading stopped: the end of the module block, or, for a partial
    /// result, the start of the item that could not be read.
    pub end: BitPos,
    /// One entry per block id seen, by block id.
    pub blocks: Vec<BlockStats>,
    /// One entry per function block, in file order.
    pub functions: Vec<FunctionSize>,
}

/// All blocks with one block id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockStats {
    pub block_id: u32,
    /// The PNaClAsm name (`module`, `function`, ...), `unknown` for others.
    pub name: &'static str,
    /// How many blocks with this id the file holds.
    pub count: u64,
    /// Their bits, nested blocks included.
    pub bits: u64,
    /// Their bits without nested blocks: records, abbreviation definitions,
    /// and the enter/exit items with their alignment.
    pub own_bits: u64,
    /// Blocks directly nested in them.
    pub subblocks: u64,
    /// Abbreviation definitions read inside them (for BLOCKINFO: the ones it
    /// registers for other blocks).
    pub abbrev_defs: u64,
    /// Bits of those definitions.
    pub abbrev_def_bits: u64,
    /// One entry per record code, by code.
    pub records: Vec<RecordStats>,
}

/// All records with one code in blocks with one id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordStats {
    pub code: u32,
    /// The `pnacl-bcanalyzer` name (`INST_BINOP`, `INTEGER`, `ENTRY`, ...),
    /// `unknown` for codes PNaCl does not define.
    pub name: &'static str,
    pub count: u64,
    pub bits: u64,
    /// How many were written with an abbreviation (index 4 and up).
    pub abbreviated: u64,
}

/// The size of one function block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSize {
    /// Which function block this is (0 for the first in the file).
    pub index: u32,
    /// The function's value id, when a matching FUNCTION record exists.
    pub func: Option<u32>,
    /// Its name in the module symbol table, if it has one.
    pub name: Option<String>,
    /// Bits of the block, nested blocks included.
    pub bits: u64,
    /// Records in the block, nested blocks included.
    pub records: u64,
    /// Position of the block's ENTER_SUBBLOCK item.
    pub pos: BitPos,
}

impl BlockStats {
    fn new(block_id: u32) -> Self {
        BlockStats {
            block_id,
            name: block_name(block_id),
            count: 0,
            bits: 0,
            own_bits: 0,
            subblocks: 0,
            abbrev_defs: 0,
            abbrev_def_bits: 0,
            records: Vec::new(),
        }
    }

    /// Records in these blocks, all codes together.
    pub fn record_count(&self) -> u64 {
        self.records.iter().map(|r| r.count).sum()
    }

    /// Bits of the records in these blocks, all codes together.
    pub fn record_bits(&self) -> u64 {
        self.records.iter().map(|r| r.bits).sum()
    }

    /// Records written with an abbreviation, all codes together.
    pub fn abbreviated(&self) -> u64 {
        self.records.iter().map(|r| r.abbreviated).sum()
    }
}

impl Stats {
    /// Statistics of a whole file; a bitstream error if it cannot be read to
    /// the end (see [`Stats::compute_partial`] for what came before it).
    pub fn compute(bytes: &[u8]) -> Result<Stats, bitstream::Error> {
        match Stats::compute_partial(bytes) {
            (stats, None) => Ok(stats),
            (_, Some(e)) => Err(e),
        }
    }

    /// Statistics of everything read before the first bitstream error, and
    /// that error. Blocks still open at the error count up to it.
    pub fn compute_partial(bytes: &[u8]) -> (Stats, Option<bitstream::Error>) {
        let mut acc = Accumulator::new(bytes.len() as u64 * 8);
        let mut parser = Parser::new(bytes);
        let error = loop {
            let item = match parser.next_event() {
                Ok(event) => acc.item(&event),
                Err(e) => break Some(e),
            };
            // The parser has moved past the item: this is where it ends.
            if acc.apply(item, parser.pos()) {
                break None;
            }
        };
        (acc.finish(parser.pos()), error)
    }

    /// Bits of the bitstream: the file without its header.
    pub fn bitstream_bits(&self) -> u64 {
        self.file_bits - self.header_bits.min(self.file_bits)
    }

    /// The statistics of blocks with id `block_id`, if the file has any.
    pub fn block(&self, block_id: u32) -> Option<&BlockStats> {
        self.blocks.iter().find(|b| b.block_id == block_id)
    }

    /// The printable tables, with the `top_functions` largest functions.
    /// (`Display` for `Stats` shows the 10 largest.)
    pub fn report(&self, top_functions: usize) -> Report<'_> {
        Report { stats: self, top_functions }
    }

    /// The function blocks, largest first (ties in file order).
    pub fn largest_functions(&self) -> Vec<&FunctionSize> {
        let mut v: Vec<&FunctionSize> = self.functions.iter().collect();
        v.sort_by(|a, b| b.bits.cmp(&a.bits).then(a.index.cmp(&b.index)));
        v
    }
}

/// A block being read.
struct Frame {
    block_id: u32,
    enter: u64,
    /// Bits of the blocks nested in it so far.
    nested_bits: u64,
    /// Its entry in `functions`, for a function block.
    function: Option<usize>,
}

/// The part of an event the statistics use, owned.
enum Item {
    Header { bits: u64 },
    Enter { pos: BitPos, block_id: u32 },
    Exit,
    Define { pos: BitPos },
    Record { pos: BitPos, abbrev: u32, code: u32, meaning: Meaning },
    End,
}

/// What a record says that the function table needs.
enum Meaning {
    FunctionDecl { is_proto: bool },
    Name { id: u64, name: String },
    Other,
}

/// Running totals while the events go by.
struct Accumulator {
    stats: Stats,
    blocks: BTreeMap<u32, BlockStats>,
    records: BTreeMap<(u32, u32), RecordStats>,
    stack: Vec<Frame>,
    /// `isproto` of each module FUNCTION record, in order.
    function_decls: Vec<bool>,
    /// Names from the module symbol table, by value id.
    names: HashMap<u64, String>,
}

impl Accumulator {
    fn new(file_bits: u64) -> Self {
        Accumulator {
            stats: Stats { file_bits, ..Stats::default() },
            blocks: BTreeMap::new(),
            records: BTreeMap::new(),
            stack: Vec::new(),
            function_decls: Vec::new(),
            names: HashMap::new(),
        }
    }

    /// What the accumulator needs of an event, without borrowing the parser.
    fn item(&self, event: &Event) -> Item {
        match *event {
            Event::Header(h) => Item::Header { bits: h.size as u64 * 8 },
            Event::EnterBlock { pos, block_id, .. } => Item::Enter { pos, block_id },
            Event::ExitBlock { .. } => Item::Exit,
            Event::DefineAbbrev { pos, .. } => Item::Define { pos },
            Event::Record { pos, abbrev, code, ops } => {
                // Function declarations and their names: only at module level.
                let at_module = |depth, block| {
                    self.stack.len() == depth
                        && self.stack.first().is_some_and(|f| f.block_id == bitstream::MODULE_BLOCK_ID)
                        && self.stack.last().is_some_and(|f| f.block_id == block)
                };
                let meaning = if code == MODULE_CODE_FUNCTION && at_module(1, bitstream::MODULE_BLOCK_ID) {
                    // [type, callingconv, isproto, linkage]; a short record
                    // counts as a definition (the decoder reports it, not us).
                    Meaning::FunctionDecl { is_proto: ops.get(2).is_some_and(|&p| p != 0) }
                } else if code == VST_CODE_ENTRY && at_module(2, bitstream::VALUE_SYMTAB_BLOCK_ID) {
                    match ops.split_first() {
                        Some((&id, chars)) => {
                            let name: Vec<u8> = chars.iter().map(|&c| u8::try_from(c).unwrap_or(b'?')).collect();
                            Meaning::Name { id, name: String::from_utf8_lossy(&name).into_owned() }
                        }
                        None => Meaning::Other,
                    }
                } else {
                    Meaning::Other
                };
                Item::Record { pos, abbrev, code, meaning }
            }
            Event::End => Item::End,
        }
    }

    /// Counts one item; `next` is where the item after it starts. True at
    /// the end of the file.
    fn apply(&mut self, item: Item, next: BitPos) -> bool {
        match item {
            Item::Header { bits } => self.stats.header_bits = bits,
            Item::Enter { pos, block_id } => {
                if let Some(parent) = self.stack.last() {
                    self.block_mut(parent.block_id).subblocks += 1;
                }
                self.block_mut(block_id).count += 1;
                let function = (block_id == bitstream::FUNCTION_BLOCK_ID).then(|| {
                    self.stats.functions.push(FunctionSize {
                        index: self.stats.functions.len() as u32,
                        func: None,
                        name: None,
                        bits: 0,
                        records: 0,
                        pos,
                    });
                    self.stats.functions.len() - 1
                });
                self.stack.push(Frame { block_id, enter: pos.0, nested_bits: 0, function });
            }
            Item::Exit => self.close_block(next.0),
            Item::Define { pos } => {
                if let Some(frame) = self.stack.last() {
                    let b = self.block_mut(frame.block_id);
                    b.abbrev_defs += 1;
                    b.abbrev_def_bits += next.0 - pos.0;
                }
            }
            Item::Record { pos, abbrev, code, meaning } => self.record(pos, next, abbrev, code, meaning),
            Item::End => return true,
        }
        false
    }

    fn record(&mut self, pos: BitPos, next: BitPos, abbrev: u32, code: u32, meaning: Meaning) {
        let Some(frame) = self.stack.last() else { return };
        let block_id = frame.block_id;
        let r = self.records.entry((block_id, code)).or_insert_with(|| RecordStats {
            code,
            name: record_name(block_id, code),
            count: 0,
            bits: 0,
            abbreviated: 0,
        });
        r.count += 1;
        r.bits += next.0 - pos.0;
        if abbrev >= bitstream::abbrev_ids::FIRST_APPLICATION_ABBREV {
            r.abbreviated += 1;
        }
        if let Some(i) = self.stack.iter().rev().find_map(|f| f.function) {
            self.stats.functions[i].records += 1;
        }
        match meaning {
            Meaning::FunctionDecl { is_proto } => self.function_decls.push(is_proto),
            Meaning::Name { id, name } => {
                self.names.insert(id, name);
            }
            Meaning::Other => {}
        }
    }

    fn close_block(&mut self, end: u64) {
        let Some(frame) = self.stack.pop() else { return };
        let bits = end.saturating_sub(frame.enter);
        let b = self.block_mut(frame.block_id);
        b.bits += bits;
        b.own_bits += bits.saturating_sub(frame.nested_bits);
        if let Some(i) = frame.function {
            self.stats.functions[i].bits = bits;
        }
        if let Some(parent) = self.stack.last_mut() {
            parent.nested_bits += bits;
        }
    }

    fn block_mut(&mut self, block_id: u32) -> &mut BlockStats {
        self.blocks.entry(block_id).or_insert_with(|| BlockStats::new(block_id))
    }

    fn finish(mut self, end: BitPos) -> Stats {
        // After an error, blocks still open count up to where reading stopped.
        while !self.stack.is_empty() {
            self.close_block(end.0);
        }
        self.stats.end = end;
        for ((block_id, _), r) in std::mem::take(&mut self.records) {
            self.block_mut(block_id).records.push(r);
        }
        self.stats.blocks = self.blocks.into_values().collect();
        // The k-th body belongs to the k-th defined (isproto = 0) function.
        let mut defined = self
            .function_decls
            .iter()
            .enumerate()
            .filter(|&(_, &is_proto)| !is_proto)
            .map(|(id, _)| id);
        for f in &mut self.stats.functions {
            let Some(id) = defined.next() else { break };
            f.func = u32::try_from(id).ok();
            f.name = self.names.get(&(id as u64)).cloned();
        }
        self.stats
    }
}

const MODULE_CODE_FUNCTION: u32 = 8;
const VST_CODE_ENTRY: u32 = 1;

/// The `pnacl-bcanalyzer` name of record `code` in blocks with id `block_id`.
pub fn record_name(block_id: u32, code: u32) -> &'static str {
    use bitstream::*;
    let name = match block_id {
        BLOCKINFO_BLOCK_ID => match code {
            1 => "SETBID",
            2 => "BLOCKNAME",
            3 => "SETRECORDNAME",
            _ => "",
        },
        MODULE_BLOCK_ID => match code {
            1 => "VERSION",
            2 => "TRIPLE",
            3 => "DATALAYOUT",
            4 => "ASM",
            5 => "SECTIONNAME",
            6 => "DEPLIB",
            7 => "GLOBALVAR",
            8 => "FUNCTION",
            9 => "ALIAS",
            10 => "PURGEVALS",
            11 => "GCNAME",
            _ => "",
        },
        TYPE_BLOCK_ID => match code {
            1 => "NUMENTRY",
            2 => "VOID",
            3 => "FLOAT",
            4 => "DOUBLE",
            5 => "LABEL",
            7 => "INTEGER",
            8 => "POINTER",
            12 => "VECTOR",
            21 => "FUNCTION",
            _ => "",
        },
        GLOBALVAR_BLOCK_ID => match code {
            0 => "VAR",
            1 => "COMPOUND",
            2 => "ZEROFILL",
            3 => "DATA",
            4 => "RELOC",
            5 => "COUNT",
            _ => "",
        },
        VALUE_SYMTAB_BLOCK_ID => match code {
            1 => "ENTRY",
            2 => "BBENTRY",
            _ => "",
        },
        CONSTANTS_BLOCK_ID => match code {
            1 => "SETTYPE",
            2 => "NULL",
            3 => "UNDEF",
            4 => "INTEGER",
            6 => "FLOAT",
            _ => "",
        },
        FUNCTION_BLOCK_ID => match code {
            1 => "DECLAREBLOCKS",
            2 => "INST_BINOP",
            3 => "INST_CAST",
            4 => "INST_GEP",
            5 => "INST_SELECT",
            6 => "INST_EXTRACTELT",
            7 => "INST_INSERTELT",
            8 => "INST_SHUFFLEVEC",
            9 => "INST_CMP",
            10 => "INST_RET",
            11 => "INST_BR",
            12 => "INST_SWITCH",
            13 => "INST_INVOKE",
            15 => "INST_UNREACHABLE",
            16 => "INST_PHI",
            19 => "INST_ALLOCA",
            20 => "INST_LOAD",
            23 => "INST_VAARG",
            24 => "INST_STORE",
            26 => "INST_EXTRACTVAL",
            27 => "INST_INSERTVAL",
            28 => "INST_CMP2",
            29 => "INST_VSELECT",
            30 => "INST_INBOUNDS_GEP",
            31 => "INST_INDIRECTBR",
            33 => "DEBUG_LOC_AGAIN",
            34 => "INST_CALL",
            35 => "DEBUG_LOC",
            36 => "INST_FENCE",
            37 => "INST_CMPXCHG",
            38 => "INST_ATOMICRMW",
            39 => "INST_RESUME",
            40 => "INST_LANDINGPAD",
            41 => "INST_LOADATOMIC",
            42 => "INST_STOREATOMIC",
            43 => "FORWARDTYPEREF",
            44 => "INST_CALL_INDIRECT",
            _ => "",
        },
        _ => "",
    };
    if name.is_empty() {
        "unknown"
    } else {
        name
    }
}

/// The tables of a [`Stats`], from [`Stats::report`].
pub struct Report<'a> {
    stats: &'a Stats,
    top_functions: usize,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.report(10).fmt(f)
    }
}

/// `part` as a percentage of `whole`, 0 when `whole` is 0.
fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.stats;
        let file = s.file_bits;
        writeln!(
            f,
            "file: {} bytes, {} bits (header {} bits, bitstream {} bits), {} function blocks",
            file / 8,
            file,
            s.header_bits,
            s.bitstream_bits(),
            s.functions.len()
        )?;
        writeln!(f)?;
        writeln!(f, "Blocks (bits include nested blocks; own bits do not):")?;
        writeln!(
            f,
            "  {:>3}  {:<13} {:>7} {:>10} {:>7} {:>10} {:>7} {:>8} {:>7} {:>7}",
            "id", "block", "count", "bits", "%file", "own bits", "%file", "records", "%abbrev", "abbrevs"
        )?;
        for b in &s.blocks {
            writeln!(
                f,
                "  {:>3}  {:<13} {:>7} {:>10} {:>6.2}% {:>10} {:>6.2}% {:>8} {:>6.1}% {:>7}",
                b.block_id,
                b.name,
                b.count,
                b.bits,
                percent(b.bits, file),
                b.own_bits,
                percent(b.own_bits, file),
                b.record_count(),
                percent(b.abbreviated(), b.record_count()),
                b.abbrev_defs
            )?;
        }
        for b in &s.blocks {
            writeln!(f)?;
            writeln!(
                f,
                "{} block (id {}): count {}, {} bits ({:.2}% of file), {} abbreviation definitions ({} bits)",
                b.name,
                b.block_id,
                b.count,
                b.bits,
                percent(b.bits, file),
                b.abbrev_defs,
                b.abbrev_def_bits
            )?;
            if b.records.is_empty() {
                continue;
            }
            writeln!(
                f,
                "  {:>4}  {:<20} {:>8} {:>10} {:>7} {:>7} {:>9}",
                "code", "record", "count", "bits", "%file", "%abbrev", "bits/rec"
            )?;
            let mut records: Vec<&RecordStats> = b.records.iter().collect();
            records.sort_by(|x, y| y.bits.cmp(&x.bits).then(x.code.cmp(&y.code)));
            for r in records {
                writeln!(
                    f,
                    "  {:>4}  {:<20} {:>8} {:>10} {:>6.2}% {:>6.1}% {:>9.2}",
                    r.code,
                    r.name,
                    r.count,
                    r.bits,
                    percent(r.bits, file),
                    percent(r.abbreviated, r.count),
                    ratio(r.bits, r.count)
                )?;
            }
        }
        if self.top_functions > 0 && !s.functions.is_empty() {
            let largest = s.largest_functions();
            let shown = self.top_functions.min(largest.len());
            writeln!(f)?;
            writeln!(f, "Largest functions ({shown} of {}):", largest.len())?;
            writeln!(
                f,
                "  {:>6}  {:>7}  {:>10} {:>7} {:>8}  {:<10}  name",
                "block", "value", "bits", "%file", "records", "at"
            )?;
            for func in &largest[..shown] {
                let value = func.func.map_or_else(|| "?".to_string(), |id| format!("@f{id}"));
                let row = format!(
                    "  {:>6}  {:>7}  {:>10} {:>6.2}% {:>8}  {:<10}  {}",
                    func.index,
                    value,
                    func.bits,
                    percent(func.bits, file),
                    func.records,
                    func.pos.to_string(),
                    func.name.as_deref().unwrap_or("")
                );
                writeln!(f, "{}", row.trim_end())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::{FUNCTION_BLOCK_ID, MODULE_BLOCK_ID};

    fn corpus(path: &str) -> Vec<u8> {
        let full = format!("{}/../shared/corpus/{path}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
    }

    /// Raw event counts, to check the statistics against.
    #[derive(Default, Debug)]
    struct Counts {
        records: u64,
        abbreviated: u64,
        defines: u64,
        enters: u64,
        function_blocks: u64,
        module_functions: u64,
        function_protos: u64,
    }

    fn count_events(bytes: &[u8]) -> Counts {
        let mut c = Counts::default();
        let mut p = Parser::new(bytes);
        let mut depth = 0;
        loop {
            match p.next_event().unwrap() {
                Event::Record { abbrev, code, ops, .. } => {
                    c.records += 1;
                    c.abbreviated += (abbrev >= 4) as u64;
                    if depth == 1 && code == 8 {
                        c.module_functions += 1;
                        c.function_protos += (ops[2] != 0) as u64;
                    }
                }
                Event::DefineAbbrev { .. } => c.defines += 1,
                Event::EnterBlock { block_id, .. } => {
                    depth += 1;
                    c.enters += 1;
                    c.function_blocks += (block_id == FUNCTION_BLOCK_ID) as u64;
                }
                Event::ExitBlock { .. } => depth -= 1,
                Event::End => return c,
                Event::Header(_) => {}
            }
        }
    }

    /// Every invariant that must hold for a file that reads to the end.
    fn check_consistent(path: &str) -> Stats {
        let bytes = corpus(path);
        let s = Stats::compute(&bytes).unwrap();
        let c = count_events(&bytes);
        let sum = |f: fn(&BlockStats) -> u64| s.blocks.iter().map(f).sum::<u64>();

        assert_eq!(s.file_bits, bytes.len() as u64 * 8);
        assert_eq!(sum(BlockStats::record_count), c.records, "{path}: records");
        assert_eq!(sum(BlockStats::abbreviated), c.abbreviated, "{path}: abbreviated");
        assert_eq!(sum(|b| b.abbrev_defs), c.defines, "{path}: abbreviation definitions");
        assert_eq!(sum(|b| b.count), c.enters, "{path}: blocks");
        // Every block but the module block is some block's subblock.
        assert_eq!(sum(|b| b.subblocks), c.enters - 1, "{path}: subblocks");

        // The module block is the whole bitstream; own bits partition it.
        let module = s.block(MODULE_BLOCK_ID).unwrap();
        assert_eq!(module.count, 1);
        assert_eq!(module.bits, s.end.0 - s.header_bits, "{path}: module bits");
        assert_eq!(sum(|b| b.own_bits), module.bits, "{path}: own bits");
        assert!(s.header_bits + module.bits <= s.file_bits);
        for b in &s.blocks {
            assert!(b.record_bits() + b.abbrev_def_bits <= b.own_bits, "{path}: block {}", b.block_id);
            assert!(b.own_bits <= b.bits);
            assert!(b.records.windows(2).all(|w| w[0].code < w[1].code));
            for r in &b.records {
                assert!(r.count > 0 && r.abbreviated <= r.count);
                // No record takes fewer bits than its abbreviation index.
                assert!(r.bits >= 2 * r.count, "{path}: {} {}", b.name, r.name);
            }
        }

        // One function row per function block, matched to definitions.
        assert_eq!(s.functions.len() as u64, c.function_blocks);
        assert_eq!(c.module_functions - c.function_protos, c.function_blocks, "{path}: bodies");
        let function = s.block(FUNCTION_BLOCK_ID).unwrap();
        assert_eq!(s.functions.iter().map(|f| f.bits).sum::<u64>(), function.bits);
        for (i, f) in s.functions.iter().enumerate() {
            assert_eq!(f.index as usize, i);
            assert!(f.func.is_some(), "{path}: function block {i} has no declaration");
            assert!(f.bits > 0);
        }
        assert!(s.functions.windows(2).all(|w| w[0].pos < w[1].pos && w[0].func < w[1].func));
        s
    }

    #[test]
    fn hello_world_totals_add_up() {
        let s = check_consistent("cli/binji_pexe_py/tests/hello_world.pexe");
        // A finalized pexe ends with its module block: the module is the
        // whole file but the header.
        assert_eq!(s.block(MODULE_BLOCK_ID).unwrap().bits, s.bitstream_bits());
        // It keeps its entry point's name.
        assert!(s.functions.iter().any(|f| f.name.as_deref() == Some("_start")));
        // BLOCKINFO registers abbreviations; types are read once.
        assert!(s.block(crate::bitstream::BLOCKINFO_BLOCK_ID).unwrap().abbrev_defs > 0);
        assert_eq!(s.block(crate::bitstream::TYPE_BLOCK_ID).unwrap().count, 1);
        let records = &s.block(FUNCTION_BLOCK_ID).unwrap().records;
        assert!(records.iter().any(|r| r.name == "INST_CALL" && r.count > 0));
        assert!(records.iter().all(|r| r.name != "unknown"));
    }

    #[test]
    fn start_pexe_names_every_function() {
        // pnacl.c's own test pexes keep all their symbols.
        let s = check_consistent("cli/binji_pnacl_c/test/res/start.pexe");
        assert!(!s.functions.is_empty());
        assert!(s.functions.iter().all(|f| f.name.is_some()));
    }

    /// Every pexe of the corpus that reads to the end (regression 1, 2, 4,
    /// 5 and 6 are fuzzed and invalid; see the test below).
    fn valid_corpus_files() -> Vec<String> {
        fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else if path.extension().is_some_and(|e| e == "pexe") {
                    out.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
        let mut files = Vec::new();
        walk(&root, &root, &mut files);
        files.retain(|f| !f.contains("/regression/") || f.ends_with("/3.pexe"));
        files.sort();
        files
    }

    #[test]
    fn corpus_files_are_consistent() {
        let files = valid_corpus_files();
        assert!(files.len() >= 36, "{files:?}");
        for path in &files {
            check_consistent(path);
        }
    }

    #[test]
    fn bitstream_error_gives_partial_stats_and_the_error() {
        // A fuzzed copy of start.pexe whose last function block is too long.
        let bytes = corpus("cli/binji_pnacl_c/test/regression/4.pexe");
        let (s, err) = Stats::compute_partial(&bytes);
        let err = err.expect("regression/4.pexe has a bitstream error");
        assert!(Stats::compute(&bytes).is_err());
        assert_eq!(err.block(), Some(FUNCTION_BLOCK_ID));
        assert_eq!(err.pos(), s.end);
        // Everything before the error is counted and still adds up, the
        // blocks left open included.
        let module = s.block(MODULE_BLOCK_ID).unwrap();
        assert_eq!(module.bits, s.end.0 - s.header_bits);
        assert_eq!(s.blocks.iter().map(|b| b.own_bits).sum::<u64>(), module.bits);
        let last = s.functions.last().expect("the broken function was entered");
        assert_eq!(last.pos.0 + last.bits, s.end.0);
        // The valid original has the same functions, the same names.
        let original = Stats::compute(&corpus("cli/binji_pnacl_c/test/res/start.pexe")).unwrap();
        assert_eq!(s.functions.len(), original.functions.len());
        for (a, b) in s.functions.iter().zip(&original.functions) {
            assert_eq!((a.func, &a.name, a.pos), (b.func, &b.name, b.pos));
        }
    }

    #[test]
    fn invalid_regression_files_never_panic() {
        for n in 1..=6 {
            let bytes = corpus(&format!("cli/binji_pnacl_c/test/regression/{n}.pexe"));
            let (s, err) = Stats::compute_partial(&bytes);
            if let Some(e) = err {
                assert!(e.pos() >= s.end);
            }
            // The report prints whatever was read.
            assert!(s.report(5).to_string().starts_with("file: "));
        }
    }

    #[test]
    fn report_lists_blocks_records_and_functions() {
        let s = Stats::compute(&corpus("cli/binji_pexe_py/tests/hello_world.pexe")).unwrap();
        let text = s.report(3).to_string();
        assert!(text.contains("function block (id 12)"));
        assert!(text.contains("INST_CALL"));
        let header = format!("Largest functions (3 of {}):", s.functions.len());
        assert!(text.contains(&header), "{text}");
        // The header line, the column titles, three rows.
        let rows = text.lines().skip_while(|l| !l.starts_with("Largest")).count();
        assert_eq!(rows, 5);
        assert_eq!(s.to_string(), s.report(10).to_string());
    }

    #[test]
    fn record_names_follow_bcanalyzer() {
        assert_eq!(record_name(FUNCTION_BLOCK_ID, 2), "INST_BINOP");
        assert_eq!(record_name(FUNCTION_BLOCK_ID, 43), "FORWARDTYPEREF");
        assert_eq!(record_name(crate::bitstream::TYPE_BLOCK_ID, 7), "INTEGER");
        assert_eq!(record_name(crate::bitstream::CONSTANTS_BLOCK_ID, 1), "SETTYPE");
        assert_eq!(record_name(MODULE_BLOCK_ID, 8), "FUNCTION");
        assert_eq!(record_name(MODULE_BLOCK_ID, 99), "unknown");
        assert_eq!(record_name(77, 1), "unknown");
    }
}
