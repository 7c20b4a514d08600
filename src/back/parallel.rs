//! Function bodies translated independently: on several threads, or in
//! several translator instances (a page's pool of Workers).
//!
//! Everything a body needs is in the module block before the first
//! function block (types, declarations, globals, the module symbol table,
//! BLOCKINFO). [`ModuleContext`] is that part, decoded and verified; each
//! function block is a [`BodyJob`] (where its bits lie); a [`BodyWorker`]
//! decodes, verifies and translates one job into a [`BodyCode`]; and
//! [`WasmBackend::define_body`] stitches the results in order.
//!
//! ```text
//! whole pexe ─ split ─▶ ModuleContext + [BodyJob]
//!                         │   BodyWorker (thread/Worker 1) ─▶ BodyCode ─┐
//!                         ├── BodyWorker (thread/Worker 2) ─▶ BodyCode ─┼─ WasmBackend::define_body, in order ─▶ module
//!                         └── …                                         ┘
//! ```
//!
//! The output is byte-identical to the one-thread [`super::Pipeline`]:
//! every body goes through the same translator against the same frozen
//! context, and signatures that context lacks are interned as the bodies
//! are stitched, in body order. Only valid input takes this path:
//! [`translate`] answers `None` for anything unusual (a decode error, a
//! diagnostic, records between function blocks) and the caller runs the
//! pipeline, whose reports are the reference.
//!
//! For a page: the main thread streams the pexe through a pipeline that
//! skips function blocks ([`ModuleContext::from_prefix`] needs the bytes up
//! to the first one, [`BodyJob`] each block's bytes), each Worker builds a
//! [`ModuleContext`] from the prefix once and a [`BodyWorker`], and sends
//! back [`BodyCode::to_bytes`].

use super::wasm::{BackendStart, BodyCode, BodyContext, BodyTranslator, Options, WasmBackend};
use super::{Backend, TranslateError};
use crate::bitstream::{
    BlockInfo, BlockRange, Event, Parser, ParserBuffers, Step, BLOCKINFO_BLOCK_ID, FUNCTION_BLOCK_ID, MODULE_BLOCK_ID,
};
use crate::decode::{BodyDecoder, DecodeError, Decoder, RecordRun};
use crate::ir::{FuncId, Module};
use crate::verify::{self, Diagnostic, FunctionVerifier, Verified};
use crate::BitPos;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One function block: the `index`th body of the module (so the body of
/// the `index`th defined function) and where its bits lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyJob {
    pub index: u32,
    pub range: BlockRange,
}

impl BodyJob {
    /// The block's size in bits: a guide to how long it takes.
    fn bits(&self) -> u64 {
        self.range.end.0.saturating_sub(self.range.body.0)
    }

    /// The bytes of the file the block's contents take (from its first
    /// word after the length word to its end): what a Worker needs.
    pub fn byte_range(&self) -> std::ops::Range<usize> {
        (self.range.body.0 / 8) as usize..self.range.end.0.div_ceil(8) as usize
    }
}

/// Why a body could not be translated on its own.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("{0}")]
    Decode(#[from] DecodeError),
    #[error("the pexe is not valid PNaCl ({} problems)", .0.len())]
    Invalid(Vec<Diagnostic>),
    #[error("{0}")]
    Translate(#[from] TranslateError),
    /// The job does not belong to this module.
    #[error("body {index} is not one of the module's {count} bodies")]
    NoSuchBody { index: u32, count: usize },
}

/// The module block up to the first function body, decoded and verified.
/// See the module docs.
pub struct ModuleContext {
    module: Module,
    blockinfo: Arc<BlockInfo>,
    /// Functions with bodies, in body order.
    bodies: Vec<FuncId>,
    wasm: Arc<BodyContext>,
    /// Bytes of the file up to the first function block's contents.
    prefix_len: usize,
}

impl ModuleContext {
    fn new(module: Module, blockinfo: Arc<BlockInfo>, first_body: BlockRange) -> Result<Self, BodyError> {
        Self::checked(&module)?;
        let wasm = Arc::new(BodyContext::new(Verified::checked(&module))?);
        Ok(Self::with_wasm(module, blockinfo, first_body, wasm))
    }

    /// The module checks a context needs passed.
    fn checked(module: &Module) -> Result<(), BodyError> {
        let diagnostics = verify::verify_module(module);
        if diagnostics.is_empty() {
            Ok(())
        } else {
            Err(BodyError::Invalid(diagnostics))
        }
    }

    fn with_wasm(module: Module, blockinfo: Arc<BlockInfo>, first_body: BlockRange, wasm: Arc<BodyContext>) -> Self {
        let bodies = module.defined_functions().collect();
        ModuleContext { module, blockinfo, bodies, wasm, prefix_len: (first_body.body.0 / 8) as usize }
    }

    /// The context from the first bytes of a pexe: at least up to the
    /// length word of its first function block (more is ignored). The
    /// answer for a module with no bodies, or a prefix too short, is a
    /// decode error.
    pub fn from_prefix(prefix: &[u8]) -> Result<Self, BodyError> {
        let (module, blockinfo, first_body) = Self::decode_prefix(prefix)?;
        ModuleContext::new(module, blockinfo, first_body)
    }

    /// The module block before the first function block, decoded (not
    /// verified), and that block's place.
    fn decode_prefix(prefix: &[u8]) -> Result<(Module, Arc<BlockInfo>, BlockRange), BodyError> {
        let mut parser = Parser::streaming();
        parser.feed(prefix).map_err(DecodeError::from_bitstream)?;
        let mut decoder = Decoder::new();
        loop {
            // The globals' records in one run, as the pipeline reads them,
            // not an event each: the run took a third of the time an event
            // each did, most of a Worker's start-up. (The run reads only
            // records whole in the bytes fed; the rest is left to `next`.)
            record_run(&mut decoder, &mut parser)?;
            let range = match parser.next().map_err(DecodeError::from_bitstream)? {
                Step::NeedMoreData | Step::Event(Event::End) => {
                    return Err(DecodeError::new(parser.pos(), "the prefix ends before the first function block").into())
                }
                Step::Event(Event::EnterBlock { pos, block_id: FUNCTION_BLOCK_ID, abbrev_width, end, .. }) => BlockRange {
                    block_id: FUNCTION_BLOCK_ID,
                    abbrev_width,
                    enter: pos,
                    body: BitPos(0),
                    end,
                },
                Step::Event(event) => {
                    decoder.event(&event)?;
                    continue;
                }
            };
            let range = BlockRange { body: parser.pos(), ..range };
            return Ok((decoder.into_module(), parser.blockinfo(), range));
        }
    }

    /// How many bytes of the file [`ModuleContext::from_prefix`] needs.
    pub fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    /// How many bodies the module has.
    pub fn num_bodies(&self) -> usize {
        self.bodies.len()
    }
}

/// [`Decoder::record_run`] for a module's prefix: one copy of the run for
/// both callers here (the package's size budget).
#[inline(never)]
fn record_run(decoder: &mut Decoder, parser: &mut Parser<'_>) -> Result<RecordRun, DecodeError> {
    decoder.record_run(parser)
}

/// Splits a whole pexe into its module context and its function blocks,
/// without decoding the bodies. `None` when the file is not of the plain
/// shape (module records, then only function blocks) or has an error: the
/// pipeline then says what is wrong.
pub fn split(pexe: &[u8]) -> Option<(Arc<ModuleContext>, Vec<BodyJob>)> {
    let (mut jobs_source, context, _) = WholeSplit::start(pexe, None)?;
    let mut jobs = Vec::new();
    while let Some(job) = jobs_source.next_job()? {
        jobs.push(job);
    }
    (jobs.len() == context.bodies.len()).then_some((context, jobs))
}

/// [`split`] one job at a time, so work can start on the first bodies
/// while the rest are still being found.
struct WholeSplit<'a> {
    parser: Parser<'a>,
    /// The first body, found by `start`, not handed out yet.
    first: Option<BlockRange>,
    count: u32,
}

impl<'a> WholeSplit<'a> {
    /// Reads the module block up to its first function block. With
    /// `options`, also begins the back end the bodies will be stitched
    /// into, whose context the workers then share (made once, not twice);
    /// the rest of it ([`Stitcher::from_start`]) can wait until they have
    /// started.
    fn start(pexe: &'a [u8], options: Option<&Options>) -> Option<(Self, Arc<ModuleContext>, Option<BackendStart>)> {
        let mut parser = Parser::new(pexe);
        let mut decoder = Decoder::new();
        let first = loop {
            // The globals' records in one run (as in `decode_prefix`).
            let declined = record_run(&mut decoder, &mut parser).ok()?.fast_declined;
            let event = if declined { parser.next_event_careful() } else { parser.next_event() };
            match event.ok()? {
                Event::EnterBlock { block_id: FUNCTION_BLOCK_ID, .. } => break parser.skip_block().ok()??,
                // No bodies: nothing to share out.
                Event::End => return None,
                Event::Record { pos, code, ops, .. } => {
                    decoder.record_event(pos, code, ops).ok()?;
                }
                event => {
                    decoder.event(&event).ok()?;
                }
            }
        };
        let module = decoder.into_module();
        let (context, stitcher) = match options {
            Some(options) => {
                ModuleContext::checked(&module).ok()?;
                let start = WasmBackend::start(Verified::checked(&module), options).ok()?;
                let context = ModuleContext::with_wasm(module, parser.blockinfo(), first, start.context());
                (context, Some(start))
            }
            None => (ModuleContext::new(module, parser.blockinfo(), first).ok()?, None),
        };
        Some((WholeSplit { parser, first: Some(first), count: 0 }, Arc::new(context), stitcher))
    }

    /// The next function block; `Ok(None)` at the end of the module,
    /// `None` (outer) if the file is not of the plain shape or is broken.
    fn next_job(&mut self) -> Option<Option<BodyJob>> {
        let range = match self.first.take() {
            Some(r) => r,
            None => loop {
                match self.parser.next_event().ok()? {
                    Event::EnterBlock { block_id: FUNCTION_BLOCK_ID, .. } => break self.parser.skip_block().ok()??,
                    Event::ExitBlock { block_id: MODULE_BLOCK_ID, .. } => continue,
                    Event::End => return Some(None),
                    _ => return None,
                }
            },
        };
        let job = BodyJob { index: self.count, range };
        self.count += 1;
        Some(Some(job))
    }
}

/// [`split`] for bytes arriving in chunks (a page's main thread): `feed`
/// answers the function blocks each chunk completes, with their bytes, and
/// [`Splitter::prefix`] the bytes a [`ModuleContext`] is made from, once
/// the first function block has begun. Nothing is decoded here: the
/// module block's records are only read past and its other blocks but
/// BLOCKINFO skipped by their length words (what the prefix holds is
/// decoded where a [`ModuleContext`] or [`Stitcher`] is made from it, and
/// a bad record is reported there), bodies are left to the workers. This
/// runs on a page's main thread, before any Worker can start and beside
/// the Workers' stitching: decoding the globals here as well took half of
/// its time.
pub struct Splitter {
    parser: Parser<'static>,
    /// Every byte fed, until the prefix is complete.
    kept: Vec<u8>,
    prefix: Option<usize>,
    /// The id of a block entered and not skipped yet.
    pending: Option<u32>,
    bodies: u32,
    ended: bool,
    error: Option<DecodeError>,
}

/// A function block found by a [`Splitter`], with its bytes
/// ([`BodyJob::byte_range`] of the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitBody {
    pub job: BodyJob,
    pub bytes: Vec<u8>,
}

impl Default for Splitter {
    fn default() -> Self {
        Self::new()
    }
}

impl Splitter {
    pub fn new() -> Self {
        Splitter {
            parser: Parser::streaming(),
            kept: Vec::new(),
            prefix: None,
            pending: None,
            bodies: 0,
            ended: false,
            error: None,
        }
    }

    /// The bytes before the first function block's contents, once known.
    pub fn prefix(&self) -> Option<&[u8]> {
        self.prefix.map(|n| &self.kept[..n])
    }

    /// Function blocks found so far.
    pub fn bodies(&self) -> u32 {
        self.bodies
    }

    /// Reads what `chunk` completes; the function blocks now complete, in
    /// order. A file that is not of the plain shape (module records, then
    /// only function blocks) is an error here: translate it with the
    /// pipeline instead.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SplitBody>, DecodeError> {
        let mut out = Vec::new();
        self.feed_each(chunk, |job, bytes| out.push(SplitBody { job, bytes: bytes.to_vec() }))?;
        Ok(out)
    }

    /// [`Splitter::feed`] for a Worker pool: only each job's header
    /// ([`SplitBody::write_header`]) goes to the end of `out`, its bytes
    /// staying where the caller has them already (the page holds every
    /// chunk; it sends a Worker a batch's file bytes in one piece, which
    /// [`BodyWorker::translate`] reads from with a `base`): the bodies are
    /// not copied out of the parser and then again out of the translator.
    pub fn feed_headers(&mut self, chunk: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        self.feed_each(chunk, |job, _| SplitBody::write_header(&job, out))
    }

    fn feed_each(&mut self, chunk: &[u8], each: impl FnMut(BodyJob, &[u8])) -> Result<(), DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.prefix.is_none() {
            self.kept.extend_from_slice(chunk);
        }
        if let Err(e) = self.parser.feed(chunk) {
            return Err(self.fail(DecodeError::from_bitstream(e)));
        }
        match self.pump(each) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Ends the input: an error unless the module block closed.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.parser.finish();
        let mut found = false;
        if let Err(e) = self.pump(|_, _| found = true) {
            return Err(self.fail(e));
        }
        if !self.ended || found {
            return Err(self.fail(DecodeError::new(self.parser.pos(), "unexpected end of file")));
        }
        Ok(())
    }

    fn fail(&mut self, e: DecodeError) -> DecodeError {
        self.error = Some(e.clone());
        e
    }

    /// Reads on as far as the bytes go, handing `each` every function
    /// block completed, with its bytes.
    fn pump(&mut self, mut each: impl FnMut(BodyJob, &[u8])) -> Result<(), DecodeError> {
        let unusual = |pos| DecodeError::new(pos, "only function blocks may follow the first function block here");
        while !self.ended {
            if let Some(block_id) = self.pending {
                let Some(range) = self.parser.skip_block().map_err(DecodeError::from_bitstream)? else {
                    return Ok(());
                };
                self.pending = None;
                if block_id != FUNCTION_BLOCK_ID {
                    continue;
                }
                if self.prefix.is_none() {
                    self.prefix = Some((range.body.0 / 8) as usize);
                    self.kept.truncate((range.body.0 / 8) as usize);
                    self.kept.shrink_to_fit();
                }
                let (base, window) = self.parser.window();
                let job = BodyJob { index: self.bodies, range };
                let r = job.byte_range();
                let bytes = window
                    .get(r.start - base as usize..r.end - base as usize)
                    .ok_or_else(|| DecodeError::new(range.body, "a function block outside the bytes held"))?;
                self.bodies += 1;
                each(job, bytes);
                continue;
            }
            let pos = self.parser.pos();
            match self.parser.next().map_err(DecodeError::from_bitstream)? {
                Step::NeedMoreData => return Ok(()),
                Step::Event(Event::End) => self.ended = true,
                Step::Event(Event::EnterBlock { block_id: FUNCTION_BLOCK_ID, .. }) => self.pending = Some(FUNCTION_BLOCK_ID),
                Step::Event(Event::ExitBlock { block_id: MODULE_BLOCK_ID, .. }) if self.bodies > 0 => {}
                Step::Event(_) if self.bodies > 0 => return Err(unusual(pos)),
                // BLOCKINFO is read by the parser itself (its abbreviations
                // are for the blocks after it); the module block is where
                // the bodies are.
                Step::Event(Event::EnterBlock { block_id, .. }) if block_id != BLOCKINFO_BLOCK_ID && block_id != MODULE_BLOCK_ID => {
                    self.pending = Some(block_id)
                }
                Step::Event(_) => {}
            }
        }
        Ok(())
    }
}

impl SplitBody {
    /// The bytes [`SplitBody::to_bytes`] puts before the block's.
    pub const HEADER: usize = 32;

    /// A byte form for sending to a Worker: index (u32 LE), abbreviation
    /// width (u32 LE), the ENTER_SUBBLOCK, contents and end positions in
    /// bits (u64 LE each), then the bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::HEADER + self.bytes.len());
        self.write_to(&mut out);
        out
    }

    /// [`SplitBody::to_bytes`] at the end of `out` (the jobs of a chunk go
    /// end to end, without a copy each).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        Self::write_job(&self.job, &self.bytes, out);
    }

    /// [`SplitBody::write_to`] of `job` with its block's `bytes`.
    pub fn write_job(job: &BodyJob, bytes: &[u8], out: &mut Vec<u8>) {
        out.reserve(Self::HEADER + bytes.len());
        Self::write_header(job, out);
        out.extend_from_slice(bytes);
    }

    /// The first [`SplitBody::HEADER`] bytes of [`SplitBody::write_job`]'s
    /// form: the job without its bytes.
    pub fn write_header(job: &BodyJob, out: &mut Vec<u8>) {
        let mut header = [0u8; Self::HEADER];
        header[..4].copy_from_slice(&job.index.to_le_bytes());
        header[4..8].copy_from_slice(&job.range.abbrev_width.to_le_bytes());
        for (k, p) in [job.range.enter, job.range.body, job.range.end].into_iter().enumerate() {
            header[8 + 8 * k..16 + 8 * k].copy_from_slice(&p.0.to_le_bytes());
        }
        out.extend_from_slice(&header);
    }

    /// Reads [`SplitBody::to_bytes`]' form back; `None` if it is not one
    /// (positions out of order or not word-aligned, a width over the
    /// bitstream's cap, bytes not exactly the block's).
    pub fn from_bytes(data: &[u8]) -> Option<SplitBody> {
        let (job, bytes) = Self::parse(data)?;
        Some(SplitBody { job, bytes: bytes.to_vec() })
    }

    /// [`SplitBody::from_bytes`] without copying the block's bytes: the job
    /// and its bytes within `data` (what a Worker translates from).
    pub fn parse(data: &[u8]) -> Option<(BodyJob, &[u8])> {
        let job = Self::parse_header(data)?;
        let bytes = data.get(Self::HEADER..)?;
        (bytes.len() as u64 == (job.range.end.0 - job.range.body.0) / 8).then_some((job, bytes))
    }

    /// The job of a [`SplitBody::write_header`] at the start of `data`;
    /// `None` if it is not one (positions out of order or not
    /// word-aligned, a width over the bitstream's cap).
    pub fn parse_header(data: &[u8]) -> Option<BodyJob> {
        let u32_at = |at: usize| Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?));
        let u64_at = |at: usize| Some(u64::from_le_bytes(data.get(at..at + 8)?.try_into().ok()?));
        let (index, abbrev_width) = (u32_at(0)?, u32_at(4)?);
        let (enter, body, end) = (u64_at(8)?, u64_at(16)?, u64_at(24)?);
        let ok = (1..=crate::limits::MAX_ABBREV_ID_WIDTH).contains(&abbrev_width)
            && enter < body
            && body <= end
            && body % 32 == 0
            && end % 32 == 0;
        let range = BlockRange {
            block_id: FUNCTION_BLOCK_ID,
            abbrev_width,
            enter: BitPos(enter),
            body: BitPos(body),
            end: BitPos(end),
        };
        ok.then_some(BodyJob { index, range })
    }
}

/// Decodes, verifies and translates bodies of one module, reusing its
/// buffers. One per thread or Worker.
pub struct BodyWorker {
    context: Arc<ModuleContext>,
    /// The last body's parser's buffers, for the next one.
    parser: Option<ParserBuffers>,
    decoder: BodyDecoder,
    verifier: FunctionVerifier,
    translator: BodyTranslator,
    diagnostics: Vec<Diagnostic>,
}

impl BodyWorker {
    pub fn new(context: &Arc<ModuleContext>) -> Self {
        BodyWorker {
            context: context.clone(),
            parser: None,
            decoder: BodyDecoder::new(),
            verifier: FunctionVerifier::new(),
            translator: BodyTranslator::new(context.wasm.clone()),
            diagnostics: Vec::new(),
        }
    }

    /// Translates `job`'s body. `bytes` holds the file from byte `base`
    /// on, at least through the job's [`BodyJob::byte_range`] (the whole
    /// file with `base` 0, or just that range with `base` its start).
    pub fn translate(&mut self, job: &BodyJob, bytes: &[u8], base: u64) -> Result<BodyCode, BodyError> {
        if job.range.block_id != FUNCTION_BLOCK_ID {
            return Err(DecodeError::new(job.range.enter, "not a function block").into());
        }
        let count = self.context.bodies.len();
        let Some(&id) = self.context.bodies.get(job.index as usize) else {
            return Err(BodyError::NoSuchBody { index: job.index, count });
        };
        let m = &self.context.module;
        let buffers = self.parser.take().unwrap_or_default();
        let mut parser = Parser::resume_block_reusing(bytes, base, job.range, self.context.blockinfo.clone(), buffers);
        let decoded = self.decoder.decode(m, id, job.range.enter, job.range.end, &mut parser);
        self.parser = Some(parser.into_buffers());
        decoded?;
        let f = self.decoder.body();
        self.diagnostics.clear();
        // The body is the decoder's own, as in the pipeline: its results
        // numbered and typed by the decoder (see verify_decoded).
        self.verifier.verify_decoded(m, f, self.decoder.last_body_types(), &mut self.diagnostics);
        if self.diagnostics.is_empty() {
            self.translator.translate(f, Some(self.verifier.analysis())).map_err(BodyError::from)
        } else {
            Err(BodyError::Invalid(std::mem::take(&mut self.diagnostics)))
        }
    }
}

/// Stitches translated bodies into the module, in body order.
pub struct Stitcher {
    backend: WasmBackend,
}

impl Stitcher {
    pub fn new(context: &ModuleContext, options: &Options) -> Result<Self, TranslateError> {
        Ok(Stitcher { backend: WasmBackend::new(Verified::checked(&context.module), options)? })
    }

    /// The stitcher and the context from a prefix (as
    /// [`ModuleContext::from_prefix`]), the context sharing the back end's
    /// [`BodyContext`]: one made, not two (as `WholeSplit::start` does). For
    /// a page's main thread, which translates no body itself.
    pub fn from_prefix(prefix: &[u8], options: &Options) -> Result<(Arc<ModuleContext>, Self), BodyError> {
        let (module, blockinfo, first_body) = ModuleContext::decode_prefix(prefix)?;
        ModuleContext::checked(&module)?;
        let backend = WasmBackend::new(Verified::checked(&module), options)?;
        let context = ModuleContext::with_wasm(module, blockinfo, first_body, backend.context());
        Ok((Arc::new(context), Stitcher { backend }))
    }

    /// The stitcher of a back end begun with `context`'s module and
    /// `options` (`WholeSplit::start`).
    fn from_start(context: &ModuleContext, options: &Options, start: BackendStart) -> Self {
        Stitcher { backend: WasmBackend::from_start(Verified::checked(&context.module), options, start) }
    }

    /// Adds the next body.
    pub fn define_body(&mut self, body: &BodyCode) -> Result<(), TranslateError> {
        self.backend.define_body(body)
    }

    /// Adds the next body, [`BodyCode::parse`]d from a Worker's bytes:
    /// its entry copied once, into the code.
    pub fn define_parsed_body(&mut self, body: BodyCode, entry: &[u8]) -> Result<(), TranslateError> {
        self.backend.define_parsed_body(body, entry)
    }

    /// The module, once every body is in.
    pub fn finish(self, context: &ModuleContext) -> Result<Vec<u8>, TranslateError> {
        self.backend.finish(Verified::checked(&context.module))
    }
}

/// The jobs not taken yet, shared by the threads. Jobs are queued in body
/// order as the split finds them (the threads start on the first at
/// once); once it is done, the large ones left go first, largest first,
/// so that the run does not end with one thread on a large body and the
/// others idle. (Stitching is in body order whatever the order here.)
#[derive(Default)]
struct JobQueue {
    state: Mutex<QueueState>,
    ready: std::sync::Condvar,
}

#[derive(Default)]
struct QueueState {
    jobs: std::collections::VecDeque<BodyJob>,
    closed: bool,
    /// Threads waiting in [`JobQueue::take`]: a push wakes one only when
    /// there is one, since a wake is a system call and the split pushes
    /// thousands of jobs while the others are busy.
    waiting: u32,
}

impl JobQueue {
    fn push(&self, job: BodyJob) {
        let wake = match self.state.lock() {
            Ok(mut state) => {
                state.jobs.push_back(job);
                state.waiting > 0
            }
            Err(_) => true,
        };
        if wake {
            self.ready.notify_one();
        }
    }

    /// No more jobs: those of more than 1/[`LARGE_BODY_SHARE`] of the
    /// module's `total_bits` of bodies move to the front.
    fn close(&self, total_bits: u64) {
        if let Ok(mut state) = self.state.lock() {
            if state.closed {
                return;
            }
            let large = |job: &BodyJob| job.bits() > total_bits / LARGE_BODY_SHARE;
            let (mut first, rest): (Vec<BodyJob>, Vec<BodyJob>) = state.jobs.drain(..).partition(large);
            first.sort_by_key(|job| std::cmp::Reverse(job.bits()));
            state.jobs.extend(first.into_iter().chain(rest));
            state.closed = true;
        }
        self.ready.notify_all();
    }

    /// The next job; `None` once there are no more (or a thread panicked
    /// holding the lock).
    fn take(&self) -> Option<BodyJob> {
        let mut state = self.state.lock().ok()?;
        loop {
            if let Some(job) = state.jobs.pop_front() {
                return Some(job);
            }
            if state.closed {
                return None;
            }
            state.waiting += 1;
            state = self.ready.wait(state).ok()?;
            state.waiting -= 1;
        }
    }
}

/// Closes a [`JobQueue`] however the split ends, a panic included: no
/// thread is left waiting for jobs.
struct CloseOnDrop<'q> {
    queue: &'q JobQueue,
    total_bits: u64,
}

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.queue.close(self.total_bits);
    }
}

/// A body of more than this fraction of all the module's (in bits) is
/// handed out before the others: the last one to start bounds the time a
/// thread may wait for the others at the end.
const LARGE_BODY_SHARE: u64 = 128;

/// Translates a whole pexe on `threads` threads (the calling one among
/// them). `None` when the input is not valid or not of the plain shape, or
/// a thread cannot be started: then run the pipeline instead.
///
/// The calling thread finds the function blocks (cheap: their length words
/// say where each ends) and queues them; the others start on the first
/// bodies at once, and the calling thread joins them when the file is
/// split. It builds the rest of the back end (the globals' data image)
/// only then, while the others translate. Results are kept by body index;
/// the calling thread stitches them in order as they become ready, between
/// its own jobs and while the others finish their last ones, so little is
/// left to do after the join.
pub fn translate(pexe: &[u8], options: &Options, threads: usize) -> Option<Vec<u8>> {
    let (mut source, context, start) = WholeSplit::start(pexe, Some(options))?;
    let start = start?;
    let failed = AtomicBool::new(false);
    let queue = JobQueue::default();
    // Translated bodies by index, until stitched.
    let results: Mutex<Vec<Option<BodyCode>>> = Mutex::new(Vec::new());
    let work = |worker: &mut BodyWorker, mut after_each: Option<&mut dyn FnMut()>| loop {
        let Some(job) = queue.take() else { return };
        if failed.load(Ordering::Relaxed) {
            continue;
        }
        match worker.translate(&job, pexe, 0) {
            Ok(body) => match results.lock() {
                Ok(mut r) => {
                    let i = job.index as usize;
                    if r.len() <= i {
                        r.resize_with(i + 1, || None);
                    }
                    r[i] = Some(body);
                }
                Err(_) => failed.store(true, Ordering::Relaxed),
            },
            // Stop everyone: the pipeline will report.
            Err(_) => failed.store(true, Ordering::Relaxed),
        }
        if let Some(f) = after_each.as_mut() {
            f();
        }
    };
    // Stitches the bodies ready from `*next` on, in order.
    let stitch_ready = |stitcher: &mut Stitcher, next: &mut usize| {
        let mut ready = Vec::new();
        match results.lock() {
            Ok(mut r) => {
                while let Some(body) = r.get_mut(*next + ready.len()).and_then(Option::take) {
                    ready.push(body);
                }
            }
            Err(_) => failed.store(true, Ordering::Relaxed),
        }
        for body in &ready {
            if stitcher.define_body(body).is_err() {
                failed.store(true, Ordering::Relaxed);
            }
        }
        *next += ready.len();
    };
    let (count, stitcher, next) = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for k in 1..threads.max(1) {
            let handle = std::thread::Builder::new()
                .name(format!("pexe-wasm-{k}"))
                .spawn_scoped(scope, || work(&mut BodyWorker::new(&context), None));
            match handle {
                Ok(h) => handles.push(h),
                Err(_) => break,
            }
        }
        let mut count = 0usize;
        let mut close = CloseOnDrop { queue: &queue, total_bits: 0 };
        loop {
            match source.next_job() {
                Some(Some(job)) => {
                    count += 1;
                    close.total_bits += job.bits();
                    queue.push(job);
                }
                Some(None) => break,
                None => {
                    failed.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        drop(close);
        let mut stitcher = Stitcher::from_start(&context, options, start);
        let mut next = 0usize;
        let mut stitch_some = || stitch_ready(&mut stitcher, &mut next);
        work(&mut BodyWorker::new(&context), Some(&mut stitch_some));
        // The queue is empty: what the others have done so far, while they
        // finish their last jobs.
        stitch_ready(&mut stitcher, &mut next);
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
        stitch_ready(&mut stitcher, &mut next);
        (count, stitcher, next)
    });
    if failed.into_inner() || count != context.bodies.len() || next != count {
        return None;
    }
    stitcher.finish(&context).ok()
}
