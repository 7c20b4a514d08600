//! The one loop: bytes → events → IR → verified bodies → a [`Backend`].
//!
//! A [`Pipeline`] is fed the input whole ([`Pipeline::whole`]) or chunk by
//! chunk ([`Pipeline::streaming`], [`Pipeline::feed`]); either way it runs
//! the parser and decoder as far as the bytes go, verifies each body as
//! soon as its block closes and hands it to the back end, reading it where
//! the decoder keeps it (the next body is decoded into its buffers).
//! [`Pipeline::finish`] ends the
//! input and returns an [`Outcome`]: the module, every problem in file
//! order (as `pexe verify` prints them) and the back end's output.
//!
//! Module checks run twice at most: when the first body arrives (the back
//! end may start only on a clean module) and, only if a module-level record
//! came after that, again at the end; their diagnostics are reported once.

use super::{Backend, TranslateError};
use crate::bitstream::{Event, Header, Parser, Step, FUNCTION_BLOCK_ID};
use crate::decode::{DecodeError, Decoded, Decoder};
use crate::ir::Module;
use crate::verify::{self, Diagnostic, FunctionVerifier, Verified};

/// What one body was like (for summaries; kept only when asked for with
/// [`Pipeline::keep_body_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BodyStats {
    /// Value id of the function.
    pub id: u32,
    /// Bits of the function block, from its ENTER_SUBBLOCK to its end.
    pub bits: u64,
    pub instructions: u32,
    pub blocks: u32,
    pub constants: u32,
}

/// How far a pipeline has got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub bytes_read: u64,
    /// Bodies the module declares, known once its declarations are complete.
    pub functions_total: Option<u32>,
    /// Bodies decoded (and verified) so far.
    pub functions_decoded: u32,
    /// Bodies the back end has been given so far.
    pub functions_defined: u32,
    /// Verifier diagnostics of the bodies so far.
    pub diagnostics: usize,
}

/// Everything a finished pipeline knows.
pub struct Outcome<O> {
    /// The module as far as it was decoded (all of it when `error` is None).
    pub module: Module,
    /// Every problem in file order: body and module diagnostics, and the
    /// decode error (if any) as one more.
    pub diagnostics: Vec<Diagnostic>,
    /// The error that stopped decoding.
    pub error: Option<DecodeError>,
    /// The header, once read.
    pub header: Option<Header>,
    /// Per body, when kept.
    pub bodies: Vec<BodyStats>,
    pub progress: Progress,
    /// The back end's output or error; `None` when it never finished.
    output: Option<Result<O, TranslateError>>,
}

impl<O> Outcome<O> {
    /// The back end's output, or why there is none: the decode error first,
    /// then the verifier's diagnostics, then the back end's own error.
    pub fn into_output(self) -> Result<O, TranslateError> {
        if let Some(e) = self.error {
            return Err(TranslateError::Decode(e));
        }
        if !self.diagnostics.is_empty() {
            return Err(TranslateError::Invalid(self.diagnostics));
        }
        self.output.unwrap_or(Err(TranslateError::MissingBodies { missing: 0 }))
    }
}

/// The push pipeline. See the module docs.
pub struct Pipeline<'a, B: Backend> {
    parser: Parser<'a>,
    /// Input given whole: the parser's fast path applies.
    whole: bool,
    decoder: Decoder,
    verifier: FunctionVerifier,
    options: B::Options,
    backend: Option<B>,
    /// Whether the module has been checked and the back end begun (or not).
    started: bool,
    /// Module diagnostics of that check.
    early: Vec<Diagnostic>,
    /// A module-level record came after the check.
    module_changed: bool,
    /// The back end's first error.
    failed: Option<TranslateError>,
    /// Body diagnostics so far.
    diagnostics: Vec<Diagnostic>,
    /// The first decode error; nothing is accepted after it.
    error: Option<DecodeError>,
    /// Seen `Event::End`: the module block closed.
    ended: bool,
    finished: bool,
    progress: Progress,
    bodies: Option<Vec<BodyStats>>,
    /// Size of the function block being decoded.
    body_bits: u64,
}

impl<B: Backend> Pipeline<'static, B> {
    /// A pipeline fed chunk by chunk.
    pub fn streaming(options: B::Options) -> Self {
        Pipeline::with(Parser::streaming(), false, 0, options)
    }
}

impl<'a, B: Backend> Pipeline<'a, B> {
    /// The whole input at once, processed by [`Pipeline::end_input`] or
    /// [`Pipeline::finish`]. Not quite the same as feeding it as one chunk:
    /// the whole-buffer parser sees a block length pointing past the end at
    /// once, where a stream finds out only when the data runs out.
    pub fn whole(bytes: &'a [u8], options: B::Options) -> Self {
        Pipeline::with(Parser::new(bytes), true, bytes.len() as u64, options)
    }

    fn with(parser: Parser<'a>, whole: bool, bytes_read: u64, options: B::Options) -> Self {
        Pipeline {
            parser,
            whole,
            decoder: Decoder::new(),
            verifier: if B::READS_ANALYSIS || cfg!(target_arch = "wasm32") {
                FunctionVerifier::new()
            } else {
                FunctionVerifier::dominance_only()
            },
            options,
            backend: None,
            started: false,
            early: Vec::new(),
            module_changed: false,
            failed: None,
            diagnostics: Vec::new(),
            error: None,
            ended: false,
            finished: false,
            progress: Progress { bytes_read, ..Progress::default() },
            bodies: None,
            body_bits: 0,
        }
    }

    /// Keep a [`BodyStats`] per body (for [`Outcome::bodies`]). Call before
    /// feeding.
    pub fn keep_body_stats(mut self) -> Self {
        self.bodies = Some(Vec::new());
        self
    }

    pub fn progress(&self) -> Progress {
        Progress { diagnostics: self.diagnostics.len(), ..self.progress }
    }

    /// The header, once read.
    pub fn header(&self) -> Option<&Header> {
        self.parser.header()
    }

    /// The back end, once begun.
    pub fn backend(&self) -> Option<&B> {
        self.backend.as_ref()
    }

    /// Decodes, verifies and translates what `chunk` completes. After a
    /// decode error every call answers that error again.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), DecodeError> {
        if self.finished || self.whole {
            return Err(DecodeError::new(self.parser.pos(), "more input after the end of the stream was signalled"));
        }
        self.progress.bytes_read += chunk.len() as u64;
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Err(e) = self.parser.feed(chunk) {
            return Err(self.fail(DecodeError::from_bitstream(e)));
        }
        self.pump()
    }

    /// Ends the input and processes the rest (idempotent): the decode
    /// error, if there is one.
    pub fn end_input(&mut self) -> Result<(), DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if !self.finished {
            self.finished = true;
            self.parser.finish();
            self.pump()?;
            if !self.ended {
                // The parser answers every truncation with an error once
                // finished; this only guards that promise.
                let e = DecodeError::new(self.parser.pos(), "unexpected end of file");
                return Err(self.fail(e));
            }
        }
        Ok(())
    }

    fn fail(&mut self, e: DecodeError) -> DecodeError {
        self.error = Some(e.clone());
        e
    }

    /// Runs the parser and decoder until they need more bytes.
    fn pump(&mut self) -> Result<(), DecodeError> {
        while !self.ended {
            let mut block_bits = None;
            // The records of bodies and globals, decoded in a run; then
            // whatever ended it, as an event. A stream takes the same runs:
            // they read only bytes held and turn away what is not all there
            // (or ask the careful path), so what has not arrived is left to
            // `next`, which answers NeedMoreData. (Event by event, a stream
            // cost 30% more than the whole buffer: 389M instructions to
            // translate xsystem35.pexe against 298M.)
            let declined = match self.decoder.record_run(&mut self.parser) {
                Ok(run) => {
                    self.module_changed |= run.module_changed && self.started;
                    if run.body_end {
                        self.body_done();
                        continue;
                    }
                    if let Some(bits) = run.body_begin {
                        self.body_begun(bits);
                        continue;
                    }
                    run.fast_declined
                }
                Err(e) => return Err(self.fail(e)),
            };
            let event = if !self.whole {
                match self.parser.next() {
                    Ok(Step::NeedMoreData) => return Ok(()),
                    Ok(Step::Event(event)) => Ok(event),
                    Err(e) => Err(e),
                }
            } else if declined {
                self.parser.next_event_careful()
            } else {
                self.parser.next_event()
            };
            let decoded = match event {
                // Records go in field by field: moving the whole event
                // first would copy it with loads wider than its stores.
                Ok(Event::Record { pos, code, ops, .. }) => self.decoder.record_event(pos, code, ops),
                Ok(Event::End) => {
                    self.ended = true;
                    return Ok(());
                }
                Ok(event) => {
                    if let Event::EnterBlock { pos, block_id: FUNCTION_BLOCK_ID, end, .. } = event {
                        block_bits = Some(end.0.saturating_sub(pos.0));
                    }
                    self.decoder.event(&event)
                }
                Err(e) => {
                    let e = DecodeError::from_bitstream(e);
                    return Err(self.fail(e));
                }
            };
            match decoded {
                Err(e) => return Err(self.fail(e)),
                Ok(Decoded::Inst(_) | Decoded::Const(_) | Decoded::Other) => {}
                Ok(Decoded::FunctionBegin(_)) => self.body_begun(block_bits.unwrap_or(0)),
                Ok(Decoded::FunctionEnd(_)) => self.body_done(),
                Ok(
                    Decoded::Version(_)
                    | Decoded::TypeCount(_)
                    | Decoded::Type(_)
                    | Decoded::FunctionDecl(_)
                    | Decoded::GlobalCount(_)
                    | Decoded::Global(_)
                    | Decoded::Compound(_)
                    | Decoded::Initializer { .. }
                    | Decoded::ModuleName(_),
                ) => self.module_changed |= self.started,
                Ok(_) => {}
            }
        }
        Ok(())
    }

    /// A function block `bits` long began.
    fn body_begun(&mut self, bits: u64) {
        self.body_bits = bits;
        if self.progress.functions_total.is_none() {
            // Declarations precede the first body: the count is final.
            let m = self.decoder.module();
            self.progress.functions_total = Some(m.functions.iter().filter(|d| !d.is_proto).count() as u32);
        }
        if !self.started {
            self.start();
        }
    }

    /// Checks the module and begins the back end if it is clean.
    fn start(&mut self) {
        self.started = true;
        let m = self.decoder.module();
        self.early = verify::verify_module(m);
        if self.early.is_empty() {
            match B::begin(Verified::checked(m), &self.options) {
                Ok(b) => self.backend = Some(b),
                Err(e) => self.failed = Some(e),
            }
        }
    }

    /// The body whose block closed, read where the decoder keeps it. Out
    /// of line: inlined into `pump`, it cost the record loop there more
    /// than the call.
    #[inline(never)]
    fn body_done(&mut self) {
        let m = self.decoder.module();
        let f = self.decoder.finished_body();
        // Straight from the decoder: its numbering need not be checked, and
        // it still holds the values' types.
        self.verifier.verify_decoded(m, f, self.decoder.last_body_types(), &mut self.diagnostics);
        self.progress.functions_decoded += 1;
        if let Some(bodies) = &mut self.bodies {
            bodies.push(BodyStats {
                id: f.id.0,
                bits: self.body_bits,
                instructions: f.insts.len() as u32,
                blocks: f.blocks.len() as u32,
                constants: f.consts.len() as u32,
            });
        }
        if self.diagnostics.is_empty() && self.failed.is_none() {
            if let Some(b) = &mut self.backend {
                match b.define_function(Verified::checked(m), f, self.verifier.analysis()) {
                    Ok(()) => self.progress.functions_defined += 1,
                    Err(e) => self.failed = Some(e),
                }
            }
        }
    }

    /// Ends the input (if [`Pipeline::end_input`] was not called) and hands
    /// out the module, every problem (body diagnostics, then the module
    /// checks or the decode error, in file order) and the back end's output.
    pub fn finish(mut self) -> Outcome<B::Output> {
        let _ = self.end_input();
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        let header = self.parser.header().cloned();
        let mut output = None;
        let module = match self.error.clone() {
            None => match self.decoder.finish() {
                Ok(m) => {
                    if self.started && !self.module_changed {
                        diagnostics.append(&mut self.early);
                    } else {
                        let module_diagnostics = verify::verify_module(&m);
                        if !self.started && module_diagnostics.is_empty() {
                            // A module without bodies.
                            match B::begin(Verified::checked(&m), &self.options) {
                                Ok(b) => self.backend = Some(b),
                                Err(e) => self.failed = Some(e),
                            }
                        }
                        diagnostics.extend(module_diagnostics);
                    }
                    if let Some(e) = self.failed.take() {
                        output = Some(Err(e));
                    } else if diagnostics.is_empty() {
                        output = self.backend.take().map(|b| b.finish(Verified::checked(&m)));
                    }
                    m
                }
                Err(e) => {
                    // The module block is closed once `End` was seen, so
                    // this does not happen; report it all the same.
                    diagnostics.push(decode_diagnostic(&e));
                    self.error = Some(e);
                    Module::default()
                }
            },
            Some(e) => {
                diagnostics.push(decode_diagnostic(&e));
                self.decoder.module().clone()
            }
        };
        // Module checks ran last; report in file order. The sort is
        // stable, so one record's problems keep theirs.
        diagnostics.sort_by_key(|d| d.pos);
        let progress = Progress { diagnostics: diagnostics.len(), ..self.progress };
        Outcome {
            module,
            diagnostics,
            error: self.error,
            header,
            bodies: self.bodies.unwrap_or_default(),
            progress,
            output,
        }
    }
}

/// A decode error as the one diagnostic `pexe verify` makes of it.
pub(crate) fn decode_diagnostic(e: &DecodeError) -> Diagnostic {
    Diagnostic { pos: e.pos(), message: e.to_string(), function: None, function_name: None, block: None, inst: None }
}
