//! The streaming event parser: bytes in, one block/abbreviation/record out.

use super::abbrev::Abbrev;
use super::header::{self, Header, HeaderStatus};
use super::{abbrev_ids, BitCursor, BitPos, Error, ErrorKind, BLOCKINFO_BLOCK_ID, MODULE_BLOCK_ID};
use crate::limits::{MAX_ABBREVS_PER_BLOCK, MAX_BLOCKINFO_TARGETS, MAX_BLOCK_DEPTH};
use std::borrow::Cow;
use std::sync::Arc;

/// One thing read from the bitstream.
#[derive(Debug)]
pub enum Event<'p> {
    /// The wrapper header (always the first event).
    Header(&'p Header),
    /// ENTER_SUBBLOCK. `end` is where the length word says the block ends.
    EnterBlock { pos: BitPos, block_id: u32, abbrev_width: u32, num_words: u32, end: BitPos },
    /// END_BLOCK of the innermost open block.
    ExitBlock { pos: BitPos, block_id: u32 },
    /// DEFINE_ABBREV. Inside BLOCKINFO, `target` is the block it is for (set by
    /// the last SETBID); elsewhere it is `None` and the abbreviation is local.
    /// `index` is the abbreviation index it receives in that block (from 4),
    /// for local ones; for BLOCKINFO ones, its position in the target's list.
    DefineAbbrev { pos: BitPos, abbrev: &'p Abbrev, target: Option<u32>, index: u32 },
    /// A record: `abbrev` is the index it was written with (3 = unabbreviated).
    Record { pos: BitPos, abbrev: u32, code: u32, ops: &'p [u64] },
    /// The module block has closed and only zero padding follows.
    End,
}

/// What `Parser::next` produced.
#[derive(Debug)]
pub enum Step<'p> {
    Event(Event<'p>),
    /// The next item is not complete yet: `feed` more bytes (or `finish`).
    NeedMoreData,
}

/// Abbreviations registered through BLOCKINFO, by target block id.
#[derive(Clone, Debug, Default)]
pub struct BlockInfo {
    /// By target block id. A handful of entries: a linear search beats
    /// hashing on the per-record path.
    abbrevs: Vec<(u32, Vec<Abbrev>)>,
}

impl BlockInfo {
    /// Abbreviations BLOCKINFO gives blocks with `block_id`, in index order from 4.
    pub fn abbrevs(&self, block_id: u32) -> &[Abbrev] {
        self.abbrevs.iter().find(|(id, _)| *id == block_id).map_or(&[], |(_, v)| v)
    }

    fn abbrevs_mut(&mut self, block_id: u32) -> &mut Vec<Abbrev> {
        match self.abbrevs.iter().position(|(id, _)| *id == block_id) {
            Some(i) => &mut self.abbrevs[i].1,
            None => {
                self.abbrevs.push((block_id, Vec::new()));
                &mut self.abbrevs.last_mut().unwrap().1
            }
        }
    }
}

/// A block that was skipped whole, to be read later with `Parser::resume_block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRange {
    pub block_id: u32,
    pub abbrev_width: u32,
    /// Position of the ENTER_SUBBLOCK item.
    pub enter: BitPos,
    /// First bit after the length word.
    pub body: BitPos,
    /// First bit after the block (its END_BLOCK included).
    pub end: BitPos,
}

struct Frame {
    block_id: u32,
    abbrev_width: u32,
    end: u64,
    /// Abbreviations from BLOCKINFO at the time the block was entered.
    inherited: usize,
    local: Vec<Abbrev>,
}

enum State {
    Header,
    TopLevel,
    InModule,
    Done,
}

/// Reads a pexe as a sequence of events, from a buffer or from chunks.
///
/// Whole input: `Parser::new(&bytes)` and call `next` until `Event::End`.
/// Streaming: `Parser::streaming()`, then `feed` chunks as they arrive and
/// call `next` until it answers `Step::NeedMoreData`; `finish` after the last
/// chunk. Truncated and invalid input take the same path: an error carrying
/// its bit position, once no more data can come.
pub struct Parser<'a> {
    data: Cow<'a, [u8]>,
    /// Absolute byte offset of `data[0]` (non-zero after streaming compaction).
    base: u64,
    core: Core,
}

/// Everything but the bytes, so a cursor over the bytes can be held while
/// the state changes.
struct Core {
    /// Bits of input held so far (absolute end of `data`).
    avail_bits: u64,
    eof: bool,
    /// Absolute bit position of the next item.
    pos: u64,
    state: State,
    header: Option<Header>,
    stack: Vec<Frame>,
    blockinfo: Arc<BlockInfo>,
    /// Target of the last SETBID in the current BLOCKINFO block.
    setbid: Option<u32>,
    ops: Vec<u64>,
    /// For `resume_block`: the parser reads one block, not a module.
    resume_depth: Option<usize>,
    /// Position of the last ENTER_SUBBLOCK item read.
    last_enter: u64,
    /// Whether the module block has been read (only padding may follow).
    saw_module: bool,
}

/// An event without its borrows, produced first and borrowed second.
enum Item {
    Header,
    Enter { pos: u64, block_id: u32, abbrev_width: u32, num_words: u32, end: u64 },
    Exit { pos: u64, block_id: u32 },
    Define { pos: u64, target: Option<u32>, index: u32 },
    Record { pos: u64, abbrev: u32, code: u32 },
    End,
}

type Res<T> = Result<T, Error>;

impl<'a> Parser<'a> {
    /// A parser over a whole file held in memory.
    pub fn new(data: &'a [u8]) -> Self {
        Self::with(Cow::Borrowed(data), true)
    }

    fn with(data: Cow<'a, [u8]>, eof: bool) -> Self {
        let avail_bits = data.len() as u64 * 8;
        Parser {
            data,
            base: 0,
            core: Core {
            avail_bits,
            eof,
            pos: 0,
            state: State::Header,
            header: None,
            stack: Vec::new(),
            blockinfo: Arc::new(BlockInfo::default()),
            setbid: None,
            ops: Vec::new(),
            resume_depth: None,
            last_enter: 0,
            saw_module: false,
        },
        }
    }

    /// A parser fed chunk by chunk (`feed`, then `finish` after the last).
    pub fn streaming() -> Parser<'static> {
        Parser::with(Cow::Owned(Vec::new()), false)
    }

    /// Appends the next chunk of input.
    pub fn feed(&mut self, chunk: &[u8]) -> Res<()> {
        if self.core.eof {
            return Err(Error::new(BitPos(self.core.pos), ErrorKind::AlreadyFinished));
        }
        // Drop bytes before the current item (kept 4-byte aligned) once
        // enough have piled up, so memory follows the window, not the file.
        let keep_from = (self.core.pos / 8) & !3;
        let consumed = keep_from.saturating_sub(self.base) as usize;
        if matches!(self.core.state, State::InModule | State::TopLevel) && consumed >= 1 << 16 && consumed * 2 >= self.data.len() {
            self.data.to_mut().drain(..consumed);
            self.base += consumed as u64;
        }
        self.data.to_mut().extend_from_slice(chunk);
        self.core.avail_bits = (self.base + self.data.len() as u64) * 8;
        Ok(())
    }

    /// Marks the end of input: from now on a truncated item is an error.
    pub fn finish(&mut self) {
        self.core.eof = true;
    }

    /// Reads the items of one block skipped earlier (see `skip_block`), from
    /// `data` holding the whole file, with the BLOCKINFO abbreviations that
    /// were in force. Yields the block's contents, its `ExitBlock`, then `End`.
    pub fn resume_block(data: &'a [u8], range: BlockRange, blockinfo: Arc<BlockInfo>) -> Self {
        let mut p = Self::with(Cow::Borrowed(data), true);
        p.core.state = State::InModule;
        p.core.pos = range.body.0;
        let inherited = blockinfo.abbrevs(range.block_id).len();
        p.core.stack.push(Frame {
            block_id: range.block_id,
            abbrev_width: range.abbrev_width,
            end: range.end.0,
            inherited,
            local: Vec::new(),
        });
        p.core.blockinfo = blockinfo;
        p.core.resume_depth = Some(0);
        p
    }

    /// The header, once it has been read.
    pub fn header(&self) -> Option<&Header> {
        self.core.header.as_ref()
    }

    /// The BLOCKINFO abbreviations read so far (shared, cheap to clone).
    pub fn blockinfo(&self) -> Arc<BlockInfo> {
        self.core.blockinfo.clone()
    }

    /// Position of the next item.
    pub fn pos(&self) -> BitPos {
        BitPos(self.core.pos)
    }

    /// Ids of the open blocks, outermost first.
    pub fn block_path(&self) -> impl Iterator<Item = u32> + '_ {
        self.core.stack.iter().map(|f| f.block_id)
    }

    /// Bytes of the whole input held now, for reading a skipped block's bits:
    /// `(absolute byte offset of the first one, the bytes)`.
    pub fn window(&self) -> (u64, &[u8]) {
        (self.base, &self.data)
    }


    /// Reads the next event.
    pub fn next(&mut self) -> Res<Step<'_>> {
        let save = self.core.pos;
        match self.next_inner() {
            Ok(Some(kind)) => Ok(Step::Event(self.event(kind))),
            Ok(None) => Ok(Step::NeedMoreData),
            Err(e) if e.is_eof() && !self.core.eof => {
                self.core.pos = save;
                Ok(Step::NeedMoreData)
            }
            Err(e) => {
                let block = self.core.stack.last().map(|f| f.block_id);
                Err(e.in_block(block))
            }
        }
    }

    /// Convenience for whole input: the next event, with running out of
    /// data treated as an error.
    pub fn next_event(&mut self) -> Res<Event<'_>> {
        debug_assert!(self.core.eof);
        let pos = BitPos(self.core.pos);
        match self.next()? {
            Step::Event(e) => Ok(e),
            Step::NeedMoreData => Err(Error::new(pos, ErrorKind::UnexpectedEof)),
        }
    }

    /// Skips the block just entered (call right after its `EnterBlock`),
    /// using its length word, and returns where it lies. The skipped block's
    /// items produce no events. In streaming mode, answers `None` until the
    /// whole block has arrived.
    pub fn skip_block(&mut self) -> Res<Option<BlockRange>> {
        let f = self.core.stack.last().expect("skip_block right after EnterBlock");
        let avail = self.core.avail_bits;
        if f.end > avail {
            if self.core.eof {
                return Err(Error::new(BitPos(self.core.pos), ErrorKind::BlockPastEnd).in_block(Some(f.block_id)));
            }
            return Ok(None);
        }
        let range = BlockRange {
            block_id: f.block_id,
            abbrev_width: f.abbrev_width,
            enter: BitPos(self.core.last_enter),
            body: BitPos(self.core.pos),
            end: BitPos(f.end),
        };
        self.core.pos = f.end;
        self.core.stack.pop();
        Ok(Some(range))
    }
}

impl Core {
    fn top_level(&mut self, c: &mut BitCursor) -> Res<Option<Item>> {
                if self.saw_module {
            // Only zero padding may follow the module block.
            if !self.eof {
                return Ok(None);
            }
            while !c.at_end() {
                let n = c.remaining().min(32) as u32;
                let at = c.pos();
                if c.read(n)? != 0 {
                    return Err(Error::new(at, ErrorKind::TrailingData));
                }
            }
            self.state = State::Done;
            return Ok(Some(Item::End));
        }
        let pos = c.pos();
        let id = c.read(2)? as u32;
        if id != abbrev_ids::ENTER_SUBBLOCK {
            return Err(Error::new(pos, ErrorKind::TopLevel(format!("abbreviation index {id}"))));
        }
        let block_id = c.read_vbr(8)?;
        if block_id != MODULE_BLOCK_ID as u64 {
            return Err(Error::new(pos, ErrorKind::TopLevel(format!("block {block_id}"))));
        }
        let item = self.enter(c, pos, MODULE_BLOCK_ID)?;
        self.state = State::InModule;
        Ok(Some(item))
    }

    /// Reads the rest of an ENTER_SUBBLOCK (after the block id) and opens the block.
    fn enter(&mut self, c: &mut BitCursor, pos: BitPos, block_id: u32) -> Res<Item> {
        let width = c.read_vbr(4)?;
        if !(2..=crate::limits::MAX_ABBREV_ID_WIDTH as u64).contains(&width) {
            return Err(Error::new(pos, ErrorKind::BadAbbrevIdWidth(width)));
        }
        c.align32()?;
        let num_words = c.read(32)? as u32;
        let body = c.pos().0;
        let end = body + num_words as u64 * 32;
        if let Some(parent) = self.stack.last() {
            if end > parent.end {
                return Err(Error::new(pos, ErrorKind::BlockLength { expected: parent.end / 32, actual: end / 32 }));
            }
        }
        if self.eof && end > self.avail_bits {
            return Err(Error::new(pos, ErrorKind::BlockPastEnd));
        }
        if self.stack.len() >= MAX_BLOCK_DEPTH {
            return Err(Error::new(pos, ErrorKind::TooDeep(MAX_BLOCK_DEPTH)));
        }
        let inherited = self.blockinfo.abbrevs(block_id).len();
        self.stack.push(Frame { block_id, abbrev_width: width as u32, end, inherited, local: Vec::new() });
        if block_id == BLOCKINFO_BLOCK_ID {
            self.setbid = None;
        }
        self.pos = body;
        self.last_enter = pos.0;
        Ok(Item::Enter { pos: pos.0, block_id, abbrev_width: width as u32, num_words, end })
    }

    fn in_block(&mut self, c: &mut BitCursor) -> Res<Option<Item>> {
                let pos = c.pos();
        let f = self.stack.last().expect("inside a block");
        let (block_id, width, end) = (f.block_id, f.abbrev_width, f.end);
        if pos.0 >= end {
            return Err(Error::new(pos, ErrorKind::BlockLength { expected: end / 32, actual: pos.0.div_ceil(32) }));
        }
        let id = c.read(width)?;
        match id as u32 {
            abbrev_ids::END_BLOCK => {
                c.align32()?;
                if c.pos().0 != end {
                    return Err(Error::new(pos, ErrorKind::BlockLength { expected: end / 32, actual: c.pos().0 / 32 }));
                }
                self.stack.pop();
                self.pos = c.pos().0;
                if self.stack.is_empty() {
                    self.saw_module = true;
                    self.state = if self.resume_depth.is_some() { State::Done } else { State::TopLevel };
                }
                Ok(Some(Item::Exit { pos: pos.0, block_id }))
            }
            abbrev_ids::ENTER_SUBBLOCK => {
                let sub = c.read_vbr(8)?;
                let sub = u32::try_from(sub).map_err(|_| Error::new(pos, ErrorKind::CodeTooLarge(sub)))?;
                self.enter(c, pos, sub).map(Some)
            }
            abbrev_ids::DEFINE_ABBREV => {
                let abbrev = Abbrev::read(c)?;
                let (target, index) = if block_id == BLOCKINFO_BLOCK_ID {
                    let bid = self.setbid.ok_or_else(|| {
                        Error::new(pos, ErrorKind::BadBlockInfo("abbreviation before any SETBID".into()))
                    })?;
                    let known = self.blockinfo.abbrevs.iter().any(|(id, _)| *id == bid);
                    if !known && self.blockinfo.abbrevs.len() >= MAX_BLOCKINFO_TARGETS {
                        return Err(Error::new(
                            pos,
                            ErrorKind::BadBlockInfo(format!("abbreviations for more than {MAX_BLOCKINFO_TARGETS} block ids")),
                        ));
                    }
                    let list = Arc::make_mut(&mut self.blockinfo).abbrevs_mut(bid);
                    if list.len() >= MAX_ABBREVS_PER_BLOCK {
                        return Err(Error::new(pos, ErrorKind::BadAbbrev("too many abbreviations".into())));
                    }
                    list.push(abbrev);
                    (Some(bid), list.len() as u32 - 1)
                } else {
                    let f = self.stack.last_mut().unwrap();
                    if f.inherited + f.local.len() >= MAX_ABBREVS_PER_BLOCK {
                        return Err(Error::new(pos, ErrorKind::BadAbbrev("too many abbreviations".into())));
                    }
                    f.local.push(abbrev);
                    let index = abbrev_ids::FIRST_APPLICATION_ABBREV as usize + f.inherited + f.local.len() - 1;
                    (None, index as u32)
                };
                self.pos = c.pos().0;
                Ok(Some(Item::Define { pos: pos.0, target, index }))
            }
            abbrev_ids::UNABBREV_RECORD => {
                self.ops.clear();
                let code = c.read_vbr(6)?;
                let n = c.read_vbr(6)?;
                if n > c.remaining() / 6 {
                    return Err(c.too_many(pos, n));
                }
                self.ops.reserve(n as usize + 1);
                self.ops.push(code);
                for _ in 0..n {
                    let v = c.read_vbr(6)?;
                    self.ops.push(v);
                }
                self.record(c.pos().0, pos, abbrev_ids::UNABBREV_RECORD, block_id).map(Some)
            }
            _ => {
                let f = self.stack.last().unwrap();
                let i = (id - abbrev_ids::FIRST_APPLICATION_ABBREV as u64) as usize;
                let abbrev = if i < f.inherited {
                    &self.blockinfo.abbrevs(block_id)[i]
                } else {
                    f.local.get(i - f.inherited).ok_or_else(|| Error::new(pos, ErrorKind::UnknownAbbrev(id)))?
                };
                self.ops.clear();
                abbrev.read_record(c, &mut self.ops)?;
                if self.ops.is_empty() {
                    return Err(Error::new(pos, ErrorKind::EmptyRecord));
                }
                self.record(c.pos().0, pos, id as u32, block_id).map(Some)
            }
        }
    }

    /// Finishes a record whose values (code first) are in `self.ops`.
    fn record(&mut self, next: u64, pos: BitPos, abbrev: u32, block_id: u32) -> Res<Item> {
        let code = self.ops[0];
        let code = u32::try_from(code).map_err(|_| Error::new(pos, ErrorKind::CodeTooLarge(code)))?;
        if block_id == BLOCKINFO_BLOCK_ID && code == 1 {
            match self.ops[1..] {
                [bid] if bid <= u32::MAX as u64 => self.setbid = Some(bid as u32),
                _ => return Err(Error::new(pos, ErrorKind::BadBlockInfo("SETBID needs one block id".into()))),
            }
        }
        self.pos = next;
        Ok(Item::Record { pos: pos.0, abbrev, code })
    }
}

impl<'a> Parser<'a> {
    fn event(&self, item: Item) -> Event<'_> {
        match item {
            Item::Header => Event::Header(self.core.header.as_ref().expect("header was read")),
            Item::Enter { pos, block_id, abbrev_width, num_words, end } => {
                Event::EnterBlock { pos: BitPos(pos), block_id, abbrev_width, num_words, end: BitPos(end) }
            }
            Item::Exit { pos, block_id } => Event::ExitBlock { pos: BitPos(pos), block_id },
            Item::Define { pos, target, index } => {
                let abbrev = match target {
                    Some(bid) => &self.core.blockinfo.abbrevs(bid)[index as usize],
                    None => {
                        let f = self.core.stack.last().expect("local abbreviation in a block");
                        &f.local[index as usize - abbrev_ids::FIRST_APPLICATION_ABBREV as usize - f.inherited]
                    }
                };
                Event::DefineAbbrev { pos: BitPos(pos), abbrev, target, index }
            }
            Item::Record { pos, abbrev, code } => {
                Event::Record { pos: BitPos(pos), abbrev, code, ops: &self.core.ops[1..] }
            }
            Item::End => Event::End,
        }
    }

    fn next_inner(&mut self) -> Res<Option<Item>> {
        let mut c = BitCursor::new(&self.data, self.base).with_more_to_come(!self.core.eof);
        c.seek(BitPos(self.core.pos))?;
        let core = &mut self.core;
        match core.state {
            State::Header => {
                match header::parse(&self.data, core.eof)? {
                    HeaderStatus::NeedMoreData => Ok(None),
                    HeaderStatus::Complete(h) => {
                        core.pos = h.size as u64 * 8;
                        core.header = Some(h);
                        core.state = State::TopLevel;
                        Ok(Some(Item::Header))
                    }
                }
            }
            State::Done => Ok(Some(Item::End)),
            State::TopLevel => core.top_level(&mut c),
            State::InModule => core.in_block(&mut c),
        }
    }

}
