//! The streaming event parser: bytes in, one block/abbreviation/record out.
//!
//! Records take a fast path (`Core::fast_record`, reading with
//! `cursor::FastBits`) when every 8-byte word it loads lies inside the input
//! held. It reports no errors: anything unusual (a block boundary, an
//! unknown abbreviation, a count too large for the bits left, a VBR value
//! past 64 bits, SETBID) sends the item to the careful path (`in_block`,
//! with `BitCursor`), which then decides, so both give the same answers.
//! Decoders that take a run of records at once (a body's) call
//! `Parser::fast_records`, the same fast path in a loop with no `Event`.

use super::abbrev::{slots, Abbrev};
use super::abbrev::{known_fields, KNOWN_CONSTANT, KNOWN_RECORDS, KNOWN_ZERO, NOT_KNOWN};
use super::cursor::FastBits;
use super::header::{self, Header, HeaderStatus};
use super::{abbrev_ids, BitCursor, BitPos, Error, ErrorKind, BLOCKINFO_BLOCK_ID, MODULE_BLOCK_ID};
use crate::limits::{MAX_ABBREVS_PER_BLOCK, MAX_ABBREV_ID_WIDTH, MAX_BLOCKINFO_TARGETS, MAX_BLOCK_DEPTH};
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

    /// Where `block_id`'s list is in `abbrevs` (entries are only appended,
    /// so the index stays valid as BLOCKINFO grows), or `usize::MAX`.
    fn index_of(&self, block_id: u32) -> usize {
        self.abbrevs.iter().position(|(id, _)| *id == block_id).unwrap_or(usize::MAX)
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

/// The buffers a [`Parser`] grows (a record's values, the open blocks),
/// carried from one parser to the next: see [`Parser::resume_block_reusing`].
#[derive(Default)]
pub struct ParserBuffers {
    ops: Vec<u64>,
    stack: Vec<Frame>,
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
    /// Index of this block id's list in `BlockInfo::abbrevs` (meaningful
    /// when `inherited > 0`), so records need no search by block id.
    blockinfo_index: usize,
    local: Vec<Abbrev>,
}

/// The innermost frame's fields that every record reads, kept in `Core`
/// beside the stack (`Core::sync_top`) so the record fast path reaches them
/// with no load through the stack.
#[derive(Clone, Copy)]
struct Top {
    block_id: u32,
    abbrev_width: u32,
    /// 0 with no block open: every position is then past it, which sends
    /// the item to the careful path.
    end: u64,
    inherited: usize,
    blockinfo_index: usize,
}

const NO_TOP: Top = Top { block_id: 0, abbrev_width: 0, end: 0, inherited: 0, blockinfo_index: 0 };

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
    /// The last of `stack`, in part (see `Top`).
    top: Top,
    blockinfo: Arc<BlockInfo>,
    /// Target of the last SETBID in the current BLOCKINFO block.
    setbid: Option<u32>,
    /// Values of the last record (code first) are `ops[..ops_len]`; the
    /// buffer only grows (see `abbrev::slots`).
    ops: Vec<u64>,
    ops_len: usize,
    /// The byte arrays of `RecordSink::bytes_record` (only grows).
    bytes: Vec<u8>,
    /// For `resume_block`: the parser reads one block, not a module.
    resume_depth: Option<usize>,
    /// Position of the last ENTER_SUBBLOCK item read.
    last_enter: u64,
    /// Whether the module block has been read (only padding may follow).
    saw_module: bool,
    /// The item just read. Kept here rather than returned so the per-record
    /// path moves no large values through the stack.
    item: Item,
}

/// An event without its borrows, produced first and borrowed second.
#[derive(Clone, Copy)]
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
            top: NO_TOP,
            blockinfo: Arc::new(BlockInfo::default()),
            setbid: None,
            ops: Vec::new(),
            ops_len: 0,
            bytes: Vec::new(),
            resume_depth: None,
            last_enter: 0,
            saw_module: false,
            item: Item::End,
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
        Self::resume_block_at(data, 0, range, blockinfo)
    }

    /// [`Parser::resume_block`] over only part of the file: `data` is the
    /// file's bytes from byte `base` on (at least up to the block's end).
    /// Positions stay those of the whole file. `base` must be a multiple of
    /// 4 at or before `range.body`; otherwise the parser reports an error at
    /// its first step.
    pub fn resume_block_at(data: &'a [u8], base: u64, range: BlockRange, blockinfo: Arc<BlockInfo>) -> Self {
        Self::resume_block_reusing(data, base, range, blockinfo, ParserBuffers::default())
    }

    /// [`Parser::resume_block_at`] growing `buffers` (from
    /// [`Parser::into_buffers`] of an earlier parser) rather than new ones:
    /// reading many blocks one after the other allocates once.
    pub fn resume_block_reusing(
        data: &'a [u8],
        base: u64,
        range: BlockRange,
        blockinfo: Arc<BlockInfo>,
        buffers: ParserBuffers,
    ) -> Self {
        let mut p = Self::with(Cow::Borrowed(data), true);
        let ParserBuffers { ops, mut stack } = buffers;
        stack.clear();
        // Values left in `ops` are never read: a record writes its own
        // before `ops_len` covers them (see `abbrev::slots`).
        p.core.ops = ops;
        p.core.stack = stack;
        p.base = base;
        p.core.avail_bits = (base + data.len() as u64) * 8;
        p.core.state = State::InModule;
        p.core.pos = range.body.0;
        let inherited = blockinfo.abbrevs(range.block_id).len();
        p.core.stack.push(Frame {
            block_id: range.block_id,
            abbrev_width: range.abbrev_width,
            end: range.end.0,
            inherited,
            blockinfo_index: blockinfo.index_of(range.block_id),
            local: Vec::new(),
        });
        p.core.sync_top();
        p.core.blockinfo = blockinfo;
        p.core.resume_depth = Some(0);
        p
    }

    /// The buffers this parser grew, for the next one.
    pub fn into_buffers(self) -> ParserBuffers {
        let Core { ops, stack, .. } = self.core;
        ParserBuffers { ops, stack }
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
        Ok(if self.step(true)? { Step::Event(self.event()) } else { Step::NeedMoreData })
    }

    /// Convenience for whole input: the next event, with running out of
    /// data treated as an error.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    // Not forced in the package: the copies cost its size budget.
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub fn next_event(&mut self) -> Res<Event<'_>> {
        debug_assert!(self.core.eof);
        // No state check: a block is open (`top` is not `NO_TOP`, which
        // `fast_record` turns away) only in `State::InModule`.
        if let Some((pos, abbrev, code)) = self.core.fast_record(&self.data, self.base) {
            return Ok(Event::Record { pos: BitPos(pos), abbrev, code, ops: &self.core.ops[1..self.core.ops_len] });
        }
        self.next_event_slow()
    }

    /// The next item if the record fast path reads it (its position, code
    /// and values), else `None` with nothing read: for one record where a
    /// run of [`Parser::fast_records`] would cost more to set up than the
    /// record. Whole input or a stream alike: it reads only bytes held,
    /// and turns away a record not all there.
    #[inline(always)]
    pub(crate) fn fast_record(&mut self) -> Option<(BitPos, u32, &[u64])> {
        let (pos, _, code) = self.core.fast_record(&self.data, self.base)?;
        Some((BitPos(pos), code, &self.core.ops[1..self.core.ops_len]))
    }

    /// Hands `each` the records the fast path reads from here on (position,
    /// code, values), one after the other, until an item it turns away
    /// (left for `next_event`) or the first error `each` answers. The
    /// parser's state stays in locals for the whole run.
    // One copy per sink in the package (its size budget), not one per caller.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(crate) fn fast_records<S: RecordSink>(&mut self, each: &mut S) -> Result<(), S::Error> {
        // A copy of the loop for the sink's usual width, where the masks
        // and shifts by it are constants rather than values reloaded per
        // record (not in the package: its size budget).
        // Within it, one more for bytes held from the file's start (the
        // whole file, as the CLI reads it), where a record's position
        // needs no base added: one value fewer live in the loop.
        #[cfg(not(target_arch = "wasm32"))]
        if S::USUAL_WIDTH != 0 && self.core.top.abbrev_width == S::USUAL_WIDTH {
            if self.base == 0 {
                return self.fast_records_of_width::<S, true, true>(each);
            }
            return self.fast_records_of_width::<S, true, false>(each);
        }
        self.fast_records_of_width::<S, false, false>(each)
    }

    /// `fast_records`, with `USUAL` when the block's abbreviation width is
    /// `S::USUAL_WIDTH` and `FROM_START` when `self.base` is 0.
    #[inline(always)]
    fn fast_records_of_width<S: RecordSink, const USUAL: bool, const FROM_START: bool>(
        &mut self,
        each: &mut S,
    ) -> Result<(), S::Error> {
        let Core { top, blockinfo, stack, ops, pos, ops_len, bytes, .. } = &mut self.core;
        // BLOCKINFO's records are left to the careful path (SETBID), so
        // the run's records need no check for it.
        if RUNS_SKIP_BLOCKINFO && top.block_id == BLOCKINFO_BLOCK_ID {
            return Ok(());
        }
        let width = if USUAL { S::USUAL_WIDTH } else { top.abbrev_width };
        let base = if FROM_START { 0 } else { self.base };
        let cx = FastCx::new(&self.data, base, Top { abbrev_width: width, ..*top });
        // The block's abbreviations found once for the run.
        let inherited = match top.inherited {
            0 => &[][..],
            n => match blockinfo.abbrevs.get(top.blockinfo_index).and_then(|(_, list)| list.get(..n)) {
                Some(list) => list,
                // Lists only grow, so this cannot happen; if it did, the
                // careful path would read every item.
                None => return Ok(()),
            },
        };
        let local = stack.last().map_or(&[][..], |f| &f.local[..]);
        // One list, so finding a record's abbreviation is one bounds check:
        // a pexe's blocks have either BLOCKINFO's abbreviations or their
        // own, not both; a block with both is left to the careful path.
        let list = match (inherited.is_empty(), local.is_empty()) {
            (_, true) => inherited,
            (true, false) => local,
            (false, false) => return Ok(()),
        };
        let abbrev = |i: usize| list.get(i);
        // Each small id's `KNOWN_RECORDS` index, found once for the run:
        // the records the sink takes by value are told apart by one load
        // (no bounds check and no step into the abbreviation).
        let kinds: KnownKinds = if S::TAKES != 0 {
            std::array::from_fn(|id| id.checked_sub(4).and_then(|i| list.get(i)).map_or(NOT_KNOWN, |a| a.known_record()))
        } else {
            NO_KINDS
        };
        // The ids of the abbreviations whose records go to the sink's
        // value run (`RecordSink::VALUE_RUN`), found once for the run;
        // `u64::MAX`, which no id is, for none.
        let value_ids = match S::VALUE_RUN {
            Some(code) => {
                let id_of = |k: u8| list.iter().position(|a| a.known() == (k, code)).map_or(u64::MAX, |i| i as u64 + 4);
                (id_of(KNOWN_CONSTANT), id_of(KNOWN_ZERO))
            }
            None => (u64::MAX, u64::MAX),
        };
        // The position relative to the bytes held, as the fast path reads
        // it (converted back at the end of the run).
        let mut at = pos.wrapping_sub(cx.base_bit);
        // Taken out so that writing values cannot alias anything `cx` reads.
        let mut values = std::mem::take(ops);
        let mut len = *ops_len;
        let result = loop {
            if S::VALUE_RUN.is_some() {
                if let Err(e) = cx.value_run(value_ids, &mut at, each) {
                    break Err(e);
                }
            }
            let mut byte_run = None;
            let bytes_out = if S::BYTES { Some(&mut *bytes) } else { None };
            let Some(got) = cx.record::<RUNS_SKIP_BLOCKINFO, S>(abbrev, &kinds, &mut at, &mut values, bytes_out, &mut byte_run, each) else {
                break Ok(());
            };
            let (start, code, n) = match got {
                // Taken by the sink's `known`.
                Ok((_, _, _, 0)) => continue,
                Ok((start, _, code, n)) => (start, code, n),
                Err(e) => break Err(e),
            };
            len = n;
            if let Some(nbytes) = byte_run {
                let (Some(record), Some(data)) = (values.get(1..n), bytes.get(..nbytes)) else {
                    // Never (the buffers hold that many); left to the careful path.
                    at = start - cx.base_bit;
                    break Ok(());
                };
                if let Err(e) = each.bytes_record(BitPos(start), code, record, data) {
                    break Err(e);
                }
                continue;
            }
            let Some(record) = values.get(1..n) else {
                // Never (the buffer holds `n` values); left to the careful path.
                at = start - cx.base_bit;
                break Ok(());
            };
            if let Err(e) = each.record(BitPos(start), code, record) {
                break Err(e);
            }
        };
        *pos = at.wrapping_add(cx.base_bit);
        *ops = values;
        *ops_len = len;
        result
    }

    /// [`Parser::next_event`] for an item the fast path has just turned
    /// away (where a run of [`Parser::fast_records`] stopped): straight to
    /// the careful path, not trying the fast one again.
    pub(crate) fn next_event_careful(&mut self) -> Res<Event<'_>> {
        debug_assert!(self.core.eof);
        self.next_event_slow()
    }

    /// Where a run of [`Parser::fast_records`] stopped, crosses into
    /// sub-block `id` (`enter`) or out of the current block if it is `id`
    /// (not `enter`), with every check of the careful path, and answers
    /// true; the caller then needs no event for it. For any other item, or
    /// one that fails a check, reads nothing and answers false:
    /// `next_event` reads (and reports) it.
    pub(crate) fn cross_block(&mut self, id: u32, enter: bool) -> bool {
        let core = &mut self.core;
        if !matches!(core.state, State::InModule) || (!enter && core.top.block_id != id) {
            return false;
        }
        // A look at the item's first bits (the block id a single VBR
        // chunk, so `id` below 128) before the careful read.
        let w = core.top.abbrev_width;
        let word = core.pos.checked_sub(self.base * 8).and_then(|bit| FastBits::new(&self.data, bit)?.peek());
        let wanted = word.is_some_and(|word| match word & !(u64::MAX << w) {
            a if a == abbrev_ids::ENTER_SUBBLOCK as u64 => enter && (word >> w) & 0xff == id as u64,
            a => !enter && a == abbrev_ids::END_BLOCK as u64,
        });
        if !wanted {
            return false;
        }
        if !enter {
            // An END_BLOCK that passes the careful path's checks (the block
            // ends at the next 32-bit boundary, inside the bytes held, and
            // an outer block stays open) closes the block as it would.
            let (at, end) = (core.pos, core.top.end);
            let after = (at + w as u64 + 31) & !31;
            if at < end && after == end && end <= core.avail_bits && core.stack.len() > 1 {
                core.pop_frame();
                core.sync_top();
                core.pos = end;
                core.item = Item::Exit { pos: at, block_id: id };
                return true;
            }
        }
        if enter && id != BLOCKINFO_BLOCK_ID {
            if let Some(word) = word {
                if core.enter_from(&self.data, self.base, word, id) {
                    return true;
                }
            }
        }
        let mut c = BitCursor::new(&self.data, self.base).with_more_to_come(!core.eof);
        if c.seek(BitPos(core.pos)).is_err() {
            return false;
        }
        // `in_block` changes nothing when it fails.
        core.in_block(&mut c).is_ok()
    }

    /// Where the block [`Parser::cross_block`] has just entered begins (its
    /// ENTER_SUBBLOCK item) and ends.
    pub(crate) fn entered_block(&self) -> (BitPos, BitPos) {
        (BitPos(self.core.last_enter), BitPos(self.core.top.end))
    }

    #[inline(never)]
    fn next_event_slow(&mut self) -> Res<Event<'_>> {
        let pos = BitPos(self.core.pos);
        // Every caller has tried the fast path here already.
        if self.step(false)? {
            Ok(self.event())
        } else {
            Err(Error::new(pos, ErrorKind::UnexpectedEof))
        }
    }

    /// Reads the next item into `core.item`; false when it has not fully
    /// arrived yet. `fast`: try the record fast path first.
    #[inline]
    fn step(&mut self, fast: bool) -> Res<bool> {
        let save = self.core.pos;
        match self.next_inner(fast) {
            Ok(ready) => Ok(ready),
            Err(e) => self.failed(e, save),
        }
    }

    #[cold]
    #[inline(never)]
    fn failed(&mut self, e: Error, save: u64) -> Res<bool> {
        if e.is_eof() && !self.core.eof {
            self.core.pos = save;
            return Ok(false);
        }
        let block = self.core.stack.last().map(|f| f.block_id);
        Err(e.in_block(block))
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
        self.core.sync_top();
        Ok(Some(range))
    }
}

#[cold]
#[inline(never)]
fn grow_frames(stack: &mut Vec<Frame>) {
    stack.reserve(1);
}

/// The `KNOWN_RECORDS` index of the abbreviation of each id below 16
/// (`NOT_KNOWN` for none), as a record run finds them once: every id of
/// a block of the toolchain's widths (3 and 4 bits). Larger ids read their
/// abbreviation.
type KnownKinds = [u8; 16];
const NO_KINDS: KnownKinds = [NOT_KNOWN; 16];

/// Whether record runs leave BLOCKINFO to the careful path and so check no
/// record for SETBID. The package too: its module came out smaller gzipped.
const RUNS_SKIP_BLOCKINFO: bool = true;

/// Takes the records of [`Parser::fast_records`]. A trait rather than a
/// closure so that implementations can insist on being inlined into the
/// loop (a closure as large as a body decoder's record step was not).
pub(crate) trait RecordSink {
    type Error;
    fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Result<(), Self::Error>;
    /// Whether records whose abbreviation ends in an array of fixed(8)
    /// come to `bytes_record`, the array as bytes (the globals' data:
    /// no value per byte to write, read back and check).
    const BYTES: bool = false;
    /// A record whose values are `ops` followed by `bytes`. The default
    /// hands them to `record` as values.
    fn bytes_record(&mut self, pos: BitPos, code: u32, ops: &[u64], bytes: &[u8]) -> Result<(), Self::Error> {
        as_values(self, pos, code, ops, bytes)
    }
    /// Whether unabbreviated records of one or three values come to
    /// `plain` first.
    const PLAIN: bool = false;
    /// The records of abbrev.rs's `KNOWN_RECORDS` (a bit per index) that
    /// come to `known` first: only these get an arm in the sink's loop.
    const TAKES: u16 = 0;
    /// A record written with the toolchain's abbreviation `KNOWN_RECORDS[R]`
    /// (its field list and code), one that `TAKES` names: its fields by
    /// value (the unused ones 0), straight from the bits, with no values
    /// buffer and no dispatch on the code. `None` leaves the record to
    /// `record`.
    #[inline(always)]
    fn known<const R: u8>(&mut self, pos: BitPos, fields: [u64; 3]) -> Option<Result<(), Self::Error>> {
        let _ = (pos, fields);
        None
    }
    /// With `Some(code)`, records of that code written with the
    /// `KNOWN_CONSTANT` abbreviation (one vbr8 value) or the `KNOWN_ZERO`
    /// one (a literal 0) come to `run_value` (rather than `known`), read
    /// in a loop of their own with no dispatch on the abbreviation per
    /// record: the constants block's INTEGERs, most of its records.
    const VALUE_RUN: Option<u32> = None;
    /// The abbreviation width of the sink's blocks as the toolchain writes
    /// them (0 for none): `Parser::fast_records` has a copy of its loop
    /// for that width.
    const USUAL_WIDTH: u32 = 0;
    /// A record of `VALUE_RUN`'s code and its one value. The default hands
    /// it to `record`.
    #[inline(always)]
    fn run_value(&mut self, pos: BitPos, value: u64) -> Result<(), Self::Error> {
        match Self::VALUE_RUN {
            Some(code) => self.record(pos, code, &[value]),
            None => Ok(()),
        }
    }
    /// An unabbreviated record of `N` (1 or 3) values, by value (the
    /// unused ones 0), for a sink with `PLAIN`; `None` leaves it to
    /// `record`.
    #[inline(always)]
    fn plain<const N: usize>(&mut self, pos: BitPos, code: u32, values: [u64; 3]) -> Option<Result<(), Self::Error>> {
        let _ = (pos, code, values);
        None
    }
}

/// The sink of a single record read on the fast path (`Core::fast_record`):
/// it takes nothing itself.
struct NoSink;

impl RecordSink for NoSink {
    type Error = std::convert::Infallible;
    fn record(&mut self, _: BitPos, _: u32, _: &[u64]) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A record of `RecordSink::bytes_record` handed to `record` as values.
pub(crate) fn as_values<S: RecordSink + ?Sized>(sink: &mut S, pos: BitPos, code: u32, ops: &[u64], bytes: &[u8]) -> Result<(), S::Error> {
    let values: Vec<u64> = ops.iter().copied().chain(bytes.iter().map(|&b| b as u64)).collect();
    sink.record(pos, code, &values)
}

/// What the record fast path reads with, borrowed apart from the rest of
/// the parser so that a loop over many records (`Parser::fast_records`)
/// keeps all this in registers rather than reloading it through `self`
/// per record, and looks the block's abbreviations up once.
struct FastCx<'c> {
    data: &'c [u8],
    /// Absolute bit position of `data[0]`.
    base_bit: u64,
    top: Top,
    /// Whole vbr6 chunks left in a load after an abbreviation index and
    /// an unabbreviated record's one-chunk code and count.
    held_chunks: u32,
}

impl<'c> FastCx<'c> {
    #[inline(always)]
    fn new(data: &'c [u8], base: u64, top: Top) -> Self {
        // Held to the limit entering a block checks it against (so no
        // change): the compiler then knows a load holds at least 25 bits
        // past the index, and drops the record loop's checks that the
        // short fields of the usual records fit there.
        let top = Top { abbrev_width: top.abbrev_width.min(MAX_ABBREV_ID_WIDTH), ..top };
        // 57 bits of a load are the input's (see `FastBits::peek`).
        let held_chunks = 57u32.saturating_sub(top.abbrev_width + 12) / 6;
        // Cut 7 bytes past the block's end (a multiple of 8 bits): 8 bytes
        // then load at a bit exactly when it is below both the end and the
        // last place a load fits, so an item's first load checks both, with
        // no comparison of its own (and turns away a position before
        // `data`, which wraps past it). No item inside the block loses a
        // byte it could load.
        let end = top.end.saturating_sub(base * 8);
        let data = usize::try_from(end / 8 + 7).ok().and_then(|n| data.get(..n)).unwrap_or(data);
        FastCx { data, base_bit: base * 8, top, held_chunks }
    }

    /// `Core::fast_record` with the position and the values buffer given
    /// apart: the position, abbreviation index, code and number of values
    /// (code first, in `ops`) of the record at bit `*pos` of `data` (not
    /// of the file, unlike the position answered), which moves past it.
    /// `abbrev` looks an abbreviation up by its index less 4. With
    /// `NO_BLOCKINFO` the caller knows the block is not BLOCKINFO, so no
    /// record is checked for SETBID.
    // Inlined in the package too (each sink's copy has one caller, its
    // `Parser::fast_records`, and `Core::fast_record` calls `single`): out
    // of line, V8 set up a frame, reloaded `self` and the abbreviation
    // lists and wrote the answer to memory for every record.
    #[inline(always)]
    fn record<'a, const NO_BLOCKINFO: bool, S: RecordSink>(
        &self,
        abbrev: impl Fn(usize) -> Option<&'a Abbrev>,
        kinds: &KnownKinds,
        pos: &mut u64,
        ops: &mut Vec<u64>,
        bytes: Option<&mut Vec<u8>>,
        byte_run: &mut Option<usize>,
        sink: &mut S,
    ) -> Option<Result<(u64, u32, u32, usize), S::Error>> {
        let f = self.top;
        let bit = *pos;
        let at = self.base_bit.wrapping_add(bit);
        // The block's end is the first load's to check (see `new`), but
        // where a position past 2^35 bytes would wrap in a 32-bit index.
        if usize::BITS < 64 && bit >> 3 > usize::MAX as u64 {
            return None;
        }
        let mut r = FastBits::at(self.data, bit);
        // The abbreviation index and what follows it from one load: an
        // abbreviation's fields often fit in the rest.
        let word = r.peek()?;
        let id = word & !(u64::MAX << f.abbrev_width);
        r.skip(f.abbrev_width);
        let rest = (word >> f.abbrev_width, 57 - f.abbrev_width);
        let len = match id as u32 {
            abbrev_ids::END_BLOCK | abbrev_ids::ENTER_SUBBLOCK | abbrev_ids::DEFINE_ABBREV => return None,
            abbrev_ids::UNABBREV_RECORD => {
                // The code and the count are nearly always one chunk each,
                // in the bits already loaded; the values then start in
                // what is left of them (`held`).
                // The code is checked where it is read, not read back from
                // `ops` below (a one-chunk code needs no check).
                let (code, code32, n, mut held) = if rest.0 & (32 | 32 << 6) == 0 && rest.1 >= 12 {
                    r.skip(12);
                    // No check of the count against the bits left: it is
                    // below 32 (so the values buffer stays small), and every
                    // chunk is read from a load that lies wholly in `data`,
                    // so values that do not fit there fail a load and give
                    // up (`None`, nothing moved) as that check did.
                    let n = (rest.0 >> 6) & 31;
                    (rest.0 & 31, (rest.0 & 31) as u32, n, (rest.0 >> 12, self.held_chunks))
                } else if rest.0 & (32 | 32 << 6 | 32 << 12) == 32 && rest.1 >= 18 {
                    // A code of two chunks (CALL, CALL_INDIRECT: 32 and
                    // up) and a one-chunk count, read the same way.
                    r.skip(18);
                    let code = (rest.0 & 31) | (rest.0 >> 1) & 31 << 5;
                    let n = (rest.0 >> 12) & 31;
                    (code, code as u32, n, (rest.0 >> 18, self.held_chunks - 1))
                } else {
                    let (code, n) = (r.vbr6()?, r.vbr6()?);
                    if n > r.remaining() / 6 {
                        return None;
                    }
                    (code, u32::try_from(code).ok()?, n, (0, 0))
                };
                // SETBID takes the careful path.
                if !NO_BLOCKINFO && f.block_id == BLOCKINFO_BLOCK_ID && code32 == 1 {
                    return None;
                }
                // A record of one or three values (a branch, a compare) to
                // a sink that takes it by value, with no values buffer.
                if S::PLAIN && (n == 1 || n == 3) {
                    let a = r.vbr6_held(&mut held)?;
                    let (taken, v) = if n == 1 {
                        (sink.plain::<1>(BitPos(at), code32, [a, 0, 0]), [a, 0, 0])
                    } else {
                        let b = r.vbr6_held(&mut held)?;
                        let c = r.vbr6_held(&mut held)?;
                        (sink.plain::<3>(BitPos(at), code32, [a, b, c]), [a, b, c])
                    };
                    *pos = r.pos();
                    if let Some(taken) = taken {
                        return Some(taken.map(|()| (at, id as u32, code32, 0)));
                    }
                    let values = slots(ops, 0, 4);
                    values[0] = code;
                    values[1..].copy_from_slice(&v);
                    return Some(Ok((at, id as u32, code32, n as usize + 1)));
                }
                let values = slots(ops, 0, n as usize + 1);
                values[0] = code;
                // Unrolled for the counts of the usual records (a branch,
                // a compare).
                #[cfg(not(target_arch = "wasm32"))]
                match &mut values[1..] {
                    [a] => *a = r.vbr6_held(&mut held)?,
                    [a, b, c] => {
                        *a = r.vbr6_held(&mut held)?;
                        *b = r.vbr6_held(&mut held)?;
                        *c = r.vbr6_held(&mut held)?;
                    }
                    rest => r.vbr6_run_held(rest, &mut held)?,
                }
                #[cfg(target_arch = "wasm32")]
                r.vbr6_run_held(&mut values[1..], &mut held)?;
                *pos = r.pos();
                return Some(Ok((at, id as u32, code32, n as usize + 1)));
            }
            _ => {
                // The toolchain's abbreviations straight to a sink that
                // takes them: one dispatch on the record (field list and
                // code), the code a constant in each arm, no values buffer.
                if S::TAKES != 0 {
                    macro_rules! take {
                        ($r:literal, $n:literal, $k:literal) => {{
                            const CODE: u32 = KNOWN_RECORDS[$r].1;
                            const { assert!(KNOWN_RECORDS[$r].0 == $k) };
                            // SETBID takes the careful path.
                            if !NO_BLOCKINFO && f.block_id == BLOCKINFO_BLOCK_ID && CODE == 1 {
                                return None;
                            }
                            if let Some((fields, used)) = known_fields::<$n, $k>(rest.0, rest.1) {
                                r.skip(used);
                                *pos = r.pos();
                                if let Some(taken) = sink.known::<$r>(BitPos(at), fields) {
                                    return Some(taken.map(|()| (at, id as u32, CODE, 0)));
                                }
                                slots(ops, 0, 4)[1..].copy_from_slice(&fields);
                                return Some(Ok((at, id as u32, CODE, $n + 1)));
                            }
                        }};
                    }
                    // The indices and field lists of `KNOWN_RECORDS`.
                    match kinds.get(id as usize).copied().unwrap_or(NOT_KNOWN) {
                        0 if S::TAKES & 1 << 0 != 0 => take!(0, 3, 0),
                        1 if S::TAKES & 1 << 1 != 0 => take!(1, 3, 1),
                        2 if S::TAKES & 1 << 2 != 0 => take!(2, 3, 1),
                        3 if S::TAKES & 1 << 3 != 0 => take!(3, 3, 2),
                        4 if S::TAKES & 1 << 4 != 0 => take!(4, 2, 3),
                        5 if S::TAKES & 1 << 5 != 0 => take!(5, 1, 4),
                        6 if S::TAKES & 1 << 6 != 0 => take!(6, 1, 4),
                        7 if S::TAKES & 1 << 7 != 0 => take!(7, 1, 5),
                        8 if S::TAKES & 1 << 8 != 0 => take!(8, 1, 6),
                        _ => {}
                    }
                }
                let i = (id - abbrev_ids::FIRST_APPLICATION_ABBREV as u64) as usize;
                let abbrev = abbrev(i)?;
                if let Some((code, len, used)) = abbrev.read_simple(ops, rest.0, rest.1) {
                    // SETBID takes the careful path.
                    if !NO_BLOCKINFO && f.block_id == BLOCKINFO_BLOCK_ID && code == 1 {
                        return None;
                    }
                    r.skip(used);
                    *pos = r.pos();
                    return Some(Ok((at, id as u32, code, len)));
                }
                // With `bytes` (a sink that takes them), an array of bytes
                // goes there: the values are then `ops[..len]` and the bytes.
                if let Some(bytes) = bytes {
                    if let Some((len, nbytes)) = abbrev.read_bytes_fast(&mut r, ops, bytes, rest) {
                        // The same checks as every record's below.
                        let code = u32::try_from(*ops[..len].first()?).ok()?;
                        if !NO_BLOCKINFO && f.block_id == BLOCKINFO_BLOCK_ID && code == 1 {
                            return None;
                        }
                        *pos = r.pos();
                        *byte_run = Some(nbytes);
                        return Some(Ok((at, id as u32, code, len)));
                    }
                }
                abbrev.read_record_fast(&mut r, ops, rest)?
            }
        };
        if len == 0 {
            return None;
        }
        let code = u32::try_from(ops[0]).ok()?;
        // SETBID takes the careful path.
        if !NO_BLOCKINFO && f.block_id == BLOCKINFO_BLOCK_ID && code == 1 {
            return None;
        }
        *pos = r.pos();
        Some(Ok((at, id as u32, code, len)))
    }
}

impl<'c> FastCx<'c> {
    /// Hands the sink's `run_value` the records from bit `*at` of `data`
    /// on (moving past them) while they are written with abbreviation
    /// `ids.0` (`KNOWN_CONSTANT`: one vbr8 field, of one or two chunks
    /// here) or `ids.1` (`KNOWN_ZERO`: a literal 0) and their first load
    /// lies in the block (see `new`); stops at any other item, which
    /// `record` then reads, or at the sink's first error. Each record is
    /// read from that one load with no dispatch on its abbreviation: what
    /// `record` would read for it, and the same call of the sink.
    #[inline(always)]
    fn value_run<S: RecordSink>(&self, ids: (u64, u64), at: &mut u64, sink: &mut S) -> Result<(), S::Error> {
        let w = self.top.abbrev_width;
        loop {
            let bit = *at;
            // As in `record`.
            if usize::BITS < 64 && bit >> 3 > usize::MAX as u64 {
                return Ok(());
            }
            let Some(word) = FastBits::at(self.data, bit).peek() else { return Ok(()) };
            let id = word & !(u64::MAX << w);
            // At least 25 bits of the load follow the id (`new`'s width
            // limit), so two vbr8 chunks are there.
            let rest = word >> w;
            let (value, used) = if id == ids.0 {
                if rest & 0x80 == 0 {
                    (rest & 0x7f, w + 8)
                } else if rest & 0x8000 == 0 {
                    ((rest & 0x7f) | (rest >> 1) & 0x3f80, w + 16)
                } else {
                    return Ok(());
                }
            } else if id == ids.1 {
                (0, w)
            } else {
                return Ok(());
            };
            *at = bit + used as u64;
            sink.run_value(BitPos(self.base_bit.wrapping_add(bit)), value)?;
        }
    }

    /// `record` of a single record, for `Core::fast_record`: out of line in
    /// the package (a copy in every `Parser::next_event` would cost its
    /// size budget).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn single<'a>(
        &self,
        abbrev: impl Fn(usize) -> Option<&'a Abbrev>,
        pos: &mut u64,
        ops: &mut Vec<u64>,
    ) -> Option<Result<(u64, u32, u32, usize), std::convert::Infallible>> {
        self.record::<false, _>(abbrev, &NO_KINDS, pos, ops, None, &mut None, &mut NoSink)
    }
}

impl Core {
    /// Closes the innermost block's frame. One with no abbreviations of
    /// its own (every function and constants block the toolchain writes)
    /// owns nothing and is let go with no call to its drop.
    #[inline(always)]
    fn pop_frame(&mut self) {
        if let Some(frame) = self.stack.pop() {
            if frame.local.capacity() == 0 {
                std::mem::forget(frame);
            }
        }
    }

    /// Copies the innermost frame's fields to `top`: after every change
    /// of the stack.
    fn sync_top(&mut self) {
        self.top = match self.stack.last() {
            Some(f) => Top {
                block_id: f.block_id,
                abbrev_width: f.abbrev_width,
                end: f.end,
                inherited: f.inherited,
                blockinfo_index: f.blockinfo_index,
            },
            None => NO_TOP,
        };
    }

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
        Ok(self.open(pos.0, block_id, width as u32, num_words, end))
    }

    /// Opens the block whose ENTER_SUBBLOCK at `pos` passed `enter`'s
    /// checks; its contents start at `end - num_words * 32`.
    #[inline(always)]
    fn open(&mut self, pos: u64, block_id: u32, width: u32, num_words: u32, end: u64) -> Item {
        // One search for both: where the list is, and its length.
        let blockinfo_index = self.blockinfo.index_of(block_id);
        let inherited = self.blockinfo.abbrevs.get(blockinfo_index).map_or(0, |(_, list)| list.len());
        if self.stack.len() == self.stack.capacity() {
            // Out of line, so the push below is a plain store in place.
            grow_frames(&mut self.stack);
        }
        self.stack.push(Frame { block_id, abbrev_width: width, end, inherited, blockinfo_index, local: Vec::new() });
        // Set from the values at hand, not read back from the frame.
        self.top = Top { block_id, abbrev_width: width, end, inherited, blockinfo_index };
        if block_id == BLOCKINFO_BLOCK_ID {
            self.setbid = None;
        }
        self.pos = end - num_words as u64 * 32;
        self.last_enter = pos;
        Item::Enter { pos, block_id, abbrev_width: width, num_words, end }
    }

    /// `in_block` for an ENTER_SUBBLOCK of block `id` at `self.pos` whose
    /// first bits are `word` (its abbreviation id and block id, one VBR
    /// chunk, checked already), when its abbreviation width is one VBR
    /// chunk and its length word lies in `data`: `enter`'s checks, not the
    /// cursor's at every field. False for anything else or a failed check,
    /// with nothing changed: `in_block` reads (and reports) it.
    #[inline(always)]
    fn enter_from(&mut self, data: &[u8], base: u64, word: u64, id: u32) -> bool {
        let at = self.pos;
        let w = self.top.abbrev_width;
        let width = (word >> (w + 8)) & 0xf;
        if width & 8 != 0 || !(2..=crate::limits::MAX_ABBREV_ID_WIDTH as u64).contains(&width) {
            return false;
        }
        // The length word, at the 32-bit boundary after the width.
        let len_at = (at + w as u64 + 12 + 31) & !31;
        let Some(byte) = (len_at / 8).checked_sub(base) else { return false };
        let Some(&len) = data.get(byte as usize..).and_then(|d| d.first_chunk::<4>()) else { return false };
        let num_words = u32::from_le_bytes(len);
        let end = len_at + 32 + num_words as u64 * 32;
        let parent_end = self.top.end;
        if at >= parent_end || end > parent_end || (self.eof && end > self.avail_bits) || self.stack.len() >= MAX_BLOCK_DEPTH {
            return false;
        }
        self.item = self.open(at, id, width as u32, num_words, end);
        true
    }

    /// Reads the next item inside the module if it is an ordinary record
    /// lying well inside `data`: the common case, with no error checks
    /// beyond noticing that one might fail. Answers the record's position,
    /// abbreviation index and code (the caller sets `self.item` if it needs
    /// it); `None` leaves the position as it was, for `in_block` to read the
    /// item properly.
    #[inline(always)]
    fn fast_record(&mut self, data: &[u8], base: u64) -> Option<(u64, u32, u32)> {
        let Core { top, blockinfo, stack, ops, pos, ops_len, .. } = self;
        let f = *top;
        // Looked up only for an abbreviated record (for one record, a
        // search up front would cost more than it saves).
        let abbrev = |i: usize| {
            if i < f.inherited {
                blockinfo.abbrevs[f.blockinfo_index].1.get(i)
            } else {
                stack.last()?.local.get(i - f.inherited)
            }
        };
        let cx = FastCx::new(data, base, f);
        let mut bit = pos.wrapping_sub(cx.base_bit);
        let Ok((at, id, code, len)) = cx.single(abbrev, &mut bit, ops)?;
        *pos = bit.wrapping_add(cx.base_bit);
        *ops_len = len;
        Some((at, id, code))
    }

    /// Reads the next item inside the module into `self.item`.
    #[inline(never)]
    fn in_block(&mut self, c: &mut BitCursor) -> Res<()> {
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
                self.sync_top();
                self.pos = c.pos().0;
                if self.stack.is_empty() {
                    self.saw_module = true;
                    self.state = if self.resume_depth.is_some() { State::Done } else { State::TopLevel };
                }
                self.item = Item::Exit { pos: pos.0, block_id };
                Ok(())
            }
            abbrev_ids::ENTER_SUBBLOCK => {
                let sub = c.read_vbr(8)?;
                let sub = u32::try_from(sub).map_err(|_| Error::new(pos, ErrorKind::CodeTooLarge(sub)))?;
                self.item = self.enter(c, pos, sub)?;
                Ok(())
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
                self.item = Item::Define { pos: pos.0, target, index };
                Ok(())
            }
            abbrev_ids::UNABBREV_RECORD => {
                let code = c.read_vbr6()?;
                let n = c.read_vbr6()?;
                if n > c.remaining() / 6 {
                    return Err(c.too_many(pos, n));
                }
                let values = slots(&mut self.ops, 0, n as usize + 1);
                values[0] = code;
                for v in &mut values[1..] {
                    *v = c.read_vbr6()?;
                }
                self.ops_len = n as usize + 1;
                self.record(c.pos().0, pos, abbrev_ids::UNABBREV_RECORD, block_id)
            }
            _ => {
                let f = self.stack.last().unwrap();
                let i = (id - abbrev_ids::FIRST_APPLICATION_ABBREV as u64) as usize;
                let abbrev = if i < f.inherited {
                    &self.blockinfo.abbrevs[f.blockinfo_index].1[i]
                } else {
                    f.local.get(i - f.inherited).ok_or_else(|| Error::new(pos, ErrorKind::UnknownAbbrev(id)))?
                };
                self.ops_len = abbrev.read_record(c, &mut self.ops)?;
                if self.ops_len == 0 {
                    return Err(Error::new(pos, ErrorKind::EmptyRecord));
                }
                self.record(c.pos().0, pos, id as u32, block_id)
            }
        }
    }

    /// Finishes a record whose values (code first) are in `self.ops`.
    #[inline]
    fn record(&mut self, next: u64, pos: BitPos, abbrev: u32, block_id: u32) -> Res<()> {
        let code = self.ops[0];
        let code = u32::try_from(code).map_err(|_| Error::new(pos, ErrorKind::CodeTooLarge(code)))?;
        if block_id == BLOCKINFO_BLOCK_ID && code == 1 {
            match self.ops[1..self.ops_len] {
                [bid] if bid <= u32::MAX as u64 => self.setbid = Some(bid as u32),
                _ => return Err(Error::new(pos, ErrorKind::BadBlockInfo("SETBID needs one block id".into()))),
            }
        }
        self.pos = next;
        self.item = Item::Record { pos: pos.0, abbrev, code };
        Ok(())
    }
}

impl<'a> Parser<'a> {
    #[inline]
    fn event(&self) -> Event<'_> {
        match self.core.item {
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
                Event::Record { pos: BitPos(pos), abbrev, code, ops: &self.core.ops[1..self.core.ops_len] }
            }
            Item::End => Event::End,
        }
    }

    #[inline]
    fn next_inner(&mut self, fast: bool) -> Res<bool> {
        if let (true, State::InModule) = (fast, &self.core.state) {
            if let Some((pos, abbrev, code)) = self.core.fast_record(&self.data, self.base) {
                self.core.item = Item::Record { pos, abbrev, code };
                return Ok(true);
            }
        }
        let mut c = BitCursor::new(&self.data, self.base).with_more_to_come(!self.core.eof);
        c.seek(BitPos(self.core.pos))?;
        let core = &mut self.core;
        let item = match core.state {
            State::InModule => {
                core.in_block(&mut c)?;
                return Ok(true);
            }
            State::Header => match header::parse(&self.data, core.eof)? {
                HeaderStatus::NeedMoreData => return Ok(false),
                HeaderStatus::Complete(h) => {
                    core.pos = h.size as u64 * 8;
                    core.header = Some(h);
                    core.state = State::TopLevel;
                    Item::Header
                }
            },
            State::Done => Item::End,
            State::TopLevel => match core.top_level(&mut c)? {
                Some(item) => item,
                None => return Ok(false),
            },
        };
        core.item = item;
        Ok(true)
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::{AbbrevOp, Writer, STANDARD_HEADER};

    /// Every event as owned data, for comparing two parses.
    fn owned(e: &Event) -> String {
        format!("{e:?}")
    }

    /// A module whose records take every abbreviation shape (BLOCKINFO and
    /// local abbreviations, a block with both and blocks with their own
    /// only; literals, fixed, VBR, char6, arrays of each)
    /// with values small and large (VBR values past what the record fast
    /// path reads, so it hands them to the careful path).
    fn many_shapes() -> Vec<u8> {
        use AbbrevOp::*;
        let shapes = [
            vec![Literal(7), Vbr(6), Vbr(4), Fixed(4)],
            vec![Fixed(5), Vbr(8), Char6],
            vec![Literal(3), Array, Fixed(8)],
            vec![Vbr(6), Array, Char6],
            // The toolchain's own (`abbrev::KNOWN`, read with constants),
            // at ids below 16 as in its blocks (record runs find those
            // ids' records once per run).
            vec![Literal(20), Vbr(6), Vbr(4), Vbr(4)],
            vec![Literal(2), Vbr(6), Vbr(6), Fixed(4)],
            vec![Literal(24), Vbr(6), Vbr(6), Vbr(4)],
            vec![Literal(43), Vbr(6), Vbr(6)],
            vec![Literal(10), Vbr(6)],
            vec![Literal(4), Vbr(8)],
            vec![Literal(4), Literal(0)],
            vec![Literal(9), Fixed(0), Array, Vbr(6)],
            vec![Fixed(32), Array, Vbr(11)],
            vec![Literal(1), Array, Fixed(3)],
            vec![Vbr(32), Vbr(2)],
            // One and two fields after a literal code (the unrolled readers).
            vec![Literal(5), Vbr(3), Fixed(2)],
            vec![Literal(6), Vbr(5)],
        ];
        let mut w = Writer::new(&STANDARD_HEADER);
        w.enter_block(MODULE_BLOCK_ID, 3).unwrap();
        w.enter_block(BLOCKINFO_BLOCK_ID, 2).unwrap();
        w.record(3, &[1, 12]).unwrap();
        for ops in &shapes[..4] {
            w.define_abbrev(Abbrev::new(ops.clone()).unwrap()).unwrap();
        }
        w.exit_block().unwrap();
        let mut next = crate::test_rng(0x1234_5678_9abc_def1u64);
        let value = |op: AbbrevOp, next: &mut dyn FnMut(u64) -> u64| match op {
            Literal(v) => v,
            Fixed(n) => next(1 << n),
            Vbr(_) => {
                // Of one chunk, about two (the readers' two-chunk step), many.
                let bits = [3, 8, 20, 63][next(4) as usize];
                next(1 << bits)
            }
            Char6 => b"azAZ09._"[next(8) as usize] as u64,
            Array => unreachable!("arrays are expanded by the caller"),
        };
        // The last block, of id 12, has BLOCKINFO's abbreviations and its
        // own (a record run leaves it to the careful path); the others, of
        // id 13, define the same list themselves, so the abbreviation ids
        // are the same (and the first block's records go by record runs,
        // which the refusal below needs).
        for block in 0..3 {
            let id = if block == 2 { 12 } else { 13 };
            w.enter_block(id, 5).unwrap();
            let own = if id == 12 { &shapes[4..] } else { &shapes[..] };
            for ops in own {
                w.define_abbrev(Abbrev::new(ops.clone()).unwrap()).unwrap();
            }
            for _ in 0..300 {
                let index = 3 + next(shapes.len() as u64 + 1) as u32;
                let mut values = Vec::new();
                if index == 3 {
                    for _ in 0..1 + next(6) {
                        let bits = next(64);
                        values.push(next(1 << bits));
                    }
                    // Codes of one and of two chunks often (the fast
                    // path reads both from the load with the index).
                    values[0] = match next(3) {
                        0 => next(32),
                        1 => 32 + next(1024 - 32),
                        _ => values[0],
                    };
                } else {
                    let shape = &shapes[index as usize - 4];
                    let mut ops = shape.iter();
                    while let Some(&op) = ops.next() {
                        if op == Array {
                            let elem = *ops.next().unwrap();
                            for _ in 0..next(12) {
                                values.push(value(elem, &mut next));
                            }
                        } else {
                            values.push(value(op, &mut next));
                        }
                    }
                }
                // Codes fit in 32 bits (the rest is another test's business).
                values[0] &= 0xf_ffff;
                w.record(index, &values).unwrap();
            }
            w.exit_block().unwrap();
        }
        w.exit_block().unwrap();
        w.finish().unwrap()
    }

    /// The record fast path (whole buffer) and the careful path (streaming
    /// byte by byte, where the fast path rarely has 8 bytes to spare) give
    /// the same events.
    #[test]
    fn fast_and_careful_paths_agree() {
        let bytes = many_shapes();
        let mut whole = Vec::new();
        let mut p = Parser::new(&bytes);
        loop {
            let e = p.next_event().unwrap();
            whole.push(owned(&e));
            if let Event::End = e {
                break;
            }
        }
        assert!(whole.len() > 900);
        let mut streamed = Vec::new();
        let mut p = Parser::streaming();
        let mut fed = 0;
        loop {
            match p.next().unwrap() {
                Step::Event(e) => {
                    streamed.push(owned(&e));
                    if let Event::End = e {
                        break;
                    }
                }
                Step::NeedMoreData if fed < bytes.len() => {
                    p.feed(&bytes[fed..fed + 1]).unwrap();
                    fed += 1;
                }
                Step::NeedMoreData => p.finish(),
            }
        }
        assert_eq!(whole, streamed);
    }

    /// Reads all of `bytes` by record runs into `sink`, the records the
    /// runs leave to `next_event` pushed onto `seen(sink)` as `Collect`
    /// writes them.
    fn read_all<S: RecordSink<Error = BitPos>>(bytes: &[u8], sink: &mut S, seen: fn(&mut S) -> &mut Vec<String>) {
        let mut p = Parser::new(bytes);
        loop {
            p.fast_records(sink).unwrap();
            match p.next_event().unwrap() {
                Event::Record { pos, code, ops, .. } => seen(sink).push(format!("{pos:?} {code} {ops:?}")),
                Event::End => break,
                _ => {}
            }
        }
    }

    /// A run of records through `fast_records` (as the decoders read
    /// bodies) hands over the same records, in order, as `next_event`, and
    /// an error from the sink stops the run after the record it refused.
    #[test]
    fn record_runs_agree_with_events() {
        struct Collect(Vec<String>, usize);
        impl RecordSink for Collect {
            type Error = BitPos;
            fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Result<(), BitPos> {
                self.0.push(format!("{pos:?} {code} {ops:?}"));
                if self.0.len() == self.1 {
                    return Err(pos);
                }
                Ok(())
            }
        }
        /// `Collect` taking byte arrays as bytes.
        struct Bytes(Collect, usize);
        impl RecordSink for Bytes {
            type Error = BitPos;
            fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Result<(), BitPos> {
                self.0.record(pos, code, ops)
            }
            const BYTES: bool = true;
            fn bytes_record(&mut self, pos: BitPos, code: u32, ops: &[u64], bytes: &[u8]) -> Result<(), BitPos> {
                self.1 += 1;
                as_values(&mut self.0, pos, code, ops, bytes)
            }
        }
        let bytes = many_shapes();
        let mut expected = Vec::new();
        let mut p = Parser::new(&bytes);
        loop {
            match p.next_event().unwrap() {
                Event::Record { pos, code, ops, .. } => expected.push(format!("{pos:?} {code} {ops:?}")),
                Event::End => break,
                _ => {}
            }
        }
        let mut sink = Collect(Vec::new(), usize::MAX);
        let mut p = Parser::new(&bytes);
        let mut runs = 0;
        loop {
            let before = sink.0.len();
            p.fast_records(&mut sink).unwrap();
            runs += (sink.0.len() > before) as usize;
            match p.next_event().unwrap() {
                Event::Record { pos, code, ops, .. } => sink.0.push(format!("{pos:?} {code} {ops:?}")),
                Event::End => break,
                _ => {}
            }
        }
        assert_eq!(sink.0, expected);
        assert!(runs > 3 && expected.len() > 900);
        // The same with the byte arrays taken as bytes.
        let mut sink = Bytes(Collect(Vec::new(), usize::MAX), 0);
        read_all(&bytes, &mut sink, |s| &mut s.0 .0);
        assert_eq!(sink.0 .0, expected);
        assert!(sink.1 > 20, "{} records as bytes", sink.1);
        // The same with code 4's one-value records (vbr8 of one, two and
        // more chunks, and a literal 0) taken by the value run.
        struct Values(Collect, usize);
        impl RecordSink for Values {
            type Error = BitPos;
            fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Result<(), BitPos> {
                self.0.record(pos, code, ops)
            }
            const VALUE_RUN: Option<u32> = Some(4);
            fn run_value(&mut self, pos: BitPos, value: u64) -> Result<(), BitPos> {
                self.1 += 1;
                self.0.record(pos, 4, &[value])
            }
        }
        let mut sink = Values(Collect(Vec::new(), usize::MAX), 0);
        read_all(&bytes, &mut sink, |s| &mut s.0 .0);
        assert_eq!(sink.0 .0, expected);
        assert!(sink.1 > 20, "{} records by the value run", sink.1);
        // The same with the toolchain's records taken by value (`known`,
        // one arm per `KNOWN_RECORDS` entry, its code a constant there),
        // every other of them handed back to `record` instead.
        struct Known(Collect, usize);
        impl RecordSink for Known {
            type Error = BitPos;
            fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Result<(), BitPos> {
                self.0.record(pos, code, ops)
            }
            const TAKES: u16 = (1 << KNOWN_RECORDS.len()) - 1;
            fn known<const R: u8>(&mut self, pos: BitPos, fields: [u64; 3]) -> Option<Result<(), BitPos>> {
                // Each entry's field count (abbrev.rs asserts them).
                const FIELDS: [usize; 9] = [3, 3, 3, 3, 2, 1, 1, 1, 1];
                self.1 += 1;
                if self.1 % 2 == 0 {
                    return None;
                }
                Some(self.0.record(pos, KNOWN_RECORDS[R as usize].1, &fields[..FIELDS[R as usize]]))
            }
        }
        let mut sink = Known(Collect(Vec::new(), usize::MAX), 0);
        read_all(&bytes, &mut sink, |s| &mut s.0 .0);
        assert_eq!(sink.0 .0, expected);
        assert!(sink.1 > 100, "{} records by their known abbreviation", sink.1);
        // The same through the loop's copy for a usual width, for each
        // width the module's blocks have (3 and 5; a block of another
        // width takes the general loop).
        struct OfWidth<const W: u32>(Collect);
        impl<const W: u32> RecordSink for OfWidth<W> {
            type Error = BitPos;
            fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Result<(), BitPos> {
                self.0.record(pos, code, ops)
            }
            const USUAL_WIDTH: u32 = W;
        }
        fn of_width<const W: u32>(bytes: &[u8]) -> Vec<String> {
            let mut sink = OfWidth::<W>(Collect(Vec::new(), usize::MAX));
            read_all(bytes, &mut sink, |s| &mut s.0 .0);
            sink.0 .0
        }
        assert_eq!(of_width::<3>(&bytes), expected);
        assert_eq!(of_width::<5>(&bytes), expected);
        // The same copy over bytes held from a later start (`base` > 0, as
        // the parallel translators and the package resume a body's block),
        // where it adds the base to each position: each block in the
        // module resumed from its own bytes, against the events of a
        // whole read inside it.
        fn resumed<const W: u32>(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
            let mut ranges = Vec::new();
            let mut p = Parser::new(bytes);
            loop {
                match p.next_event().unwrap() {
                    Event::EnterBlock { block_id, .. } if block_id != MODULE_BLOCK_ID && block_id != BLOCKINFO_BLOCK_ID => {
                        ranges.push(p.skip_block().unwrap().unwrap())
                    }
                    Event::End => break,
                    _ => {}
                }
            }
            let mut expected = Vec::new();
            let mut p = Parser::new(bytes);
            loop {
                match p.next_event().unwrap() {
                    Event::Record { pos, code, ops, .. } if ranges.iter().any(|r| r.body <= pos && pos < r.end) => {
                        expected.push(format!("{pos:?} {code} {ops:?}"))
                    }
                    Event::End => break,
                    _ => {}
                }
            }
            let mut sink = OfWidth::<W>(Collect(Vec::new(), usize::MAX));
            for range in ranges {
                let base = range.enter.0 / 32 * 4;
                assert!(base > 0);
                let mut p = Parser::resume_block_at(&bytes[base as usize..], base, range, p.blockinfo());
                loop {
                    p.fast_records(&mut sink).unwrap();
                    match p.next_event().unwrap() {
                        Event::Record { pos, code, ops, .. } => sink.0 .0.push(format!("{pos:?} {code} {ops:?}")),
                        Event::End => break,
                        _ => {}
                    }
                }
            }
            (sink.0 .0, expected)
        }
        for (got, expected) in [resumed::<3>(&bytes), resumed::<5>(&bytes)] {
            assert!(expected.len() >= 900, "{}", expected.len());
            assert_eq!(got, expected);
        }
        // Refusing the 100th record (or the first after it that a run
        // reads): the run stops there, and the parser goes on after it.
        // Both loops end at the input's end, so a run that never refuses
        // fails the test instead of spinning.
        let mut sink = Collect(Vec::new(), 100);
        let mut p = Parser::new(&bytes);
        let refused = loop {
            if let Err(pos) = p.fast_records(&mut sink) {
                break pos;
            }
            match p.next_event().unwrap() {
                Event::Record { pos, code, ops, .. } => {
                    sink.0.push(format!("{pos:?} {code} {ops:?}"));
                    if sink.0.len() == sink.1 {
                        sink.1 += 1;
                    }
                }
                Event::End => panic!("no record run met a record from the 100th on ({} records seen)", sink.0.len()),
                _ => {}
            }
        };
        let n = sink.1;
        assert!(n < 200);
        assert_eq!(sink.0[..], expected[..n]);
        assert!(expected[n - 1].starts_with(&format!("{refused:?} ")));
        let next = loop {
            match p.next_event().unwrap() {
                Event::Record { pos, code, ops, .. } => break format!("{pos:?} {code} {ops:?}"),
                Event::End => panic!("the input ended after the refused record"),
                _ => {}
            }
        };
        assert_eq!(next, expected[n]);
    }

    /// Errors found on the fast path's ground are the careful path's: a
    /// truncated file fails at the same position either way.
    #[test]
    fn truncation_errors_do_not_depend_on_the_path() {
        let bytes = many_shapes();
        for cut in [bytes.len() - 1, bytes.len() - 9, bytes.len() / 2, 700] {
            let data = &bytes[..cut];
            let mut p = Parser::new(data);
            let err = loop {
                match p.next_event() {
                    Ok(Event::End) => panic!("a cut file must fail"),
                    Ok(_) => {}
                    Err(e) => break e,
                }
            };
            let mut s = Parser::streaming();
            s.feed(data).unwrap();
            s.finish();
            let err2 = loop {
                match s.next() {
                    Ok(Step::Event(Event::End)) => panic!("a cut file must fail"),
                    Ok(_) => {}
                    Err(e) => break e,
                }
            };
            assert_eq!(err, err2);
        }
    }

    /// `cross_block` crosses only the boundary asked for, reads nothing
    /// otherwise, and leaves a boundary that fails a check to `next_event`.
    #[test]
    fn cross_block_crosses_only_what_it_is_asked() {
        use crate::bitstream::{CONSTANTS_BLOCK_ID, FUNCTION_BLOCK_ID};
        let mut w = Writer::new(&STANDARD_HEADER);
        w.enter_block(MODULE_BLOCK_ID, 3).unwrap();
        w.enter_block(FUNCTION_BLOCK_ID, 4).unwrap();
        w.record(3, &[1, 2]).unwrap();
        w.enter_block(CONSTANTS_BLOCK_ID, 4).unwrap();
        w.record(3, &[1, 3]).unwrap();
        w.exit_block().unwrap();
        w.record(3, &[10]).unwrap();
        w.exit_block().unwrap();
        w.exit_block().unwrap();
        let bytes = w.finish().unwrap();
        let mut p = Parser::new(&bytes);
        let mut events = 0;
        let mut crossed = 0;
        loop {
            let pos = p.pos();
            // Never into a block that is not next.
            assert!(!p.cross_block(crate::bitstream::VALUE_SYMTAB_BLOCK_ID, true));
            assert_eq!(p.pos(), pos);
            let entered = p.block_path().last() == Some(FUNCTION_BLOCK_ID) && p.cross_block(CONSTANTS_BLOCK_ID, true);
            let left = !entered && p.cross_block(CONSTANTS_BLOCK_ID, false);
            if entered || left {
                crossed += 1;
                continue;
            }
            assert_eq!(p.pos(), pos);
            match p.next_event().unwrap() {
                Event::End => break,
                Event::EnterBlock { block_id, .. } | Event::ExitBlock { block_id, .. } => {
                    assert_ne!(block_id, CONSTANTS_BLOCK_ID);
                }
                _ => {}
            }
            events += 1;
        }
        assert_eq!(crossed, 2);
        assert!(events > 3);

        // Entered where the careful path enters: the same place, end and
        // contents.
        let mut careful = Parser::new(&bytes);
        let (enter, end) = loop {
            if let Event::EnterBlock { pos, block_id: CONSTANTS_BLOCK_ID, end, .. } = careful.next_event().unwrap() {
                break (pos, end);
            }
        };
        let mut fast = Parser::new(&bytes);
        while !(fast.block_path().last() == Some(FUNCTION_BLOCK_ID) && fast.cross_block(CONSTANTS_BLOCK_ID, true)) {
            fast.next_event().unwrap();
        }
        assert_eq!(fast.entered_block(), (enter, end));
        assert_eq!(fast.pos(), careful.pos());
        assert_eq!(owned(&fast.next_event().unwrap()), owned(&careful.next_event().unwrap()));

        // A constants block longer than its function block: not crossed,
        // and `next_event` reports it as it would have anyway.
        let mut bad = bytes.clone();
        let mut p = Parser::new(&bytes);
        while !matches!(p.next_event().unwrap(), Event::Record { code: 1, .. }) {}
        // The length word follows the abbreviation id, block id and width
        // (4 + 8 + 4 bits), aligned to 32 bits.
        let word = ((p.pos().0 + 16).div_ceil(32) * 4) as usize;
        bad[word..word + 4].copy_from_slice(&1000u32.to_le_bytes());
        let want = {
            let mut p = Parser::new(&bad);
            while !matches!(p.next_event().unwrap(), Event::Record { code: 1, .. }) {}
            p.next_event().unwrap_err()
        };
        let mut p = Parser::new(&bad);
        while !matches!(p.next_event().unwrap(), Event::Record { code: 1, .. }) {}
        let pos = p.pos();
        assert!(!p.cross_block(CONSTANTS_BLOCK_ID, true));
        assert_eq!(p.pos(), pos);
        assert_eq!(p.next_event().unwrap_err(), want);
    }
}
