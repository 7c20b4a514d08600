//! The push pipeline behind `Inspector` and `Translator`: chunks in, events
//! decoded and bodies verified as soon as their bytes are there.
//!
//! Bodies are not kept: each is verified, counted and dropped. A translator
//! keeps the input bytes instead (one file's worth, far less than the IR of
//! every body) and translates in `finish` by decoding them a second time
//! ([`Bodies`]): the back end takes bodies from an iterator, which a push
//! source cannot drive, and the second decode costs little next to
//! translation.

use crate::bitstream::{Event, Parser, Step, FUNCTION_BLOCK_ID};
use crate::decode::{DecodeError, Decoded, Decoder};
use crate::ir::{Function, Module};
use crate::verify::{self, Diagnostic, FunctionVerifier};

/// What one body was like, for the summary.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyStats {
    /// Value id of the function.
    pub id: u32,
    /// Bits of the function block, from its ENTER_SUBBLOCK to its end.
    pub bits: u64,
    pub instructions: u32,
    pub blocks: u32,
    pub constants: u32,
}

/// How far a stream has got (the `Progress` object of the JS API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Decode,
    Translate,
    Done,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Decode => "decode",
            Phase::Translate => "translate",
            Phase::Done => "done",
        }
    }
}

/// The outcome of a finished stream.
pub(crate) struct Finished {
    /// The module as far as it was decoded (all of it when `error` is None).
    pub module: Module,
    /// Verifier diagnostics in file order, the decode error (if any) among them.
    pub diagnostics: Vec<Diagnostic>,
    /// The error that stopped decoding.
    pub error: Option<DecodeError>,
}

/// Decodes and verifies a pexe pushed chunk by chunk (or given whole).
pub(crate) struct Stream<'a> {
    parser: Parser<'a>,
    decoder: Decoder,
    verifier: FunctionVerifier,
    /// Verifier diagnostics of the bodies so far (module checks run at the end).
    diagnostics: Vec<Diagnostic>,
    /// The first decode error; the stream accepts nothing after it.
    error: Option<DecodeError>,
    /// Seen `Event::End`: the module block closed.
    ended: bool,
    finished: bool,
    pub bytes_read: u64,
    pub functions_decoded: u32,
    /// Bodies the module declares, once its declarations are complete.
    pub functions_total: Option<u32>,
    pub bodies: Vec<BodyStats>,
    /// Size of the function block being decoded.
    body_bits: u64,
    /// The whole input, when the caller needs it after `finish`.
    kept: Option<Vec<u8>>,
}

impl Stream<'static> {
    /// A stream; `keep_input` keeps every byte fed (for a second pass).
    pub fn new(keep_input: bool) -> Self {
        Stream::with(Parser::streaming(), 0, keep_input)
    }
}

impl<'a> Stream<'a> {
    /// The whole input at once. Not the same as feeding it as one chunk:
    /// the whole-buffer parser sees a block length pointing past the end
    /// at once, as `pexe verify` does, where a stream finds out only when
    /// the data runs out.
    pub fn whole(bytes: &'a [u8]) -> Self {
        let mut s = Stream::with(Parser::new(bytes), bytes.len() as u64, false);
        let _ = s.pump();
        s
    }

    fn with(parser: Parser<'a>, bytes_read: u64, keep_input: bool) -> Self {
        Stream {
            parser,
            decoder: Decoder::new(),
            verifier: FunctionVerifier::new(),
            diagnostics: Vec::new(),
            error: None,
            ended: false,
            finished: false,
            bytes_read,
            functions_decoded: 0,
            functions_total: None,
            bodies: Vec::new(),
            body_bits: 0,
            kept: keep_input.then(Vec::new),
        }
    }

    /// Diagnostics found so far (body problems only until `finish`).
    pub fn diagnostic_count(&self) -> usize {
        self.diagnostics.len()
    }

    /// Decodes what `chunk` completes. After a decode error every call
    /// answers that error again.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), DecodeError> {
        if self.finished {
            return Err(DecodeError::new(self.parser.pos(), "more input after the end of the stream was signalled"));
        }
        self.bytes_read += chunk.len() as u64;
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(chunk);
        }
        if let Err(e) = self.parser.feed(chunk) {
            return Err(self.fail(DecodeError::from_bitstream(e)));
        }
        self.pump()
    }

    /// Ends the input and decodes the rest. Idempotent.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
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
            let step = match self.parser.next() {
                Ok(step) => step,
                Err(e) => {
                    let e = DecodeError::from_bitstream(e);
                    return Err(self.fail(e));
                }
            };
            let event = match step {
                Step::NeedMoreData => return Ok(()),
                Step::Event(Event::End) => {
                    self.ended = true;
                    return Ok(());
                }
                Step::Event(event) => event,
            };
            let block_bits = match event {
                Event::EnterBlock { pos, block_id: FUNCTION_BLOCK_ID, end, .. } => Some(end.0.saturating_sub(pos.0)),
                _ => None,
            };
            let decoded = self.decoder.event(&event);
            match decoded {
                Err(e) => return Err(self.fail(e)),
                Ok(Decoded::FunctionBegin(_)) => {
                    self.body_bits = block_bits.unwrap_or(0);
                    if self.functions_total.is_none() {
                        // Declarations precede the first body: the count is final.
                        let m = self.decoder.module();
                        self.functions_total = Some(m.functions.iter().filter(|d| !d.is_proto).count() as u32);
                    }
                }
                Ok(Decoded::FunctionEnd(f)) => self.body_done(&f),
                Ok(_) => {}
            }
        }
        Ok(())
    }

    fn body_done(&mut self, f: &Function) {
        self.verifier.verify(self.decoder.module(), f, &mut self.diagnostics);
        self.functions_decoded += 1;
        self.bodies.push(BodyStats {
            id: f.id.0,
            bits: self.body_bits,
            instructions: f.insts.len() as u32,
            blocks: f.blocks.len() as u32,
            constants: f.consts.len() as u32,
        });
    }

    /// Ends the stream (if `finish` was not called) and hands out the
    /// module and every problem, as `verify_bytes` reports them: body
    /// diagnostics, then the module checks or the decode error, in file order.
    pub fn into_finished(mut self) -> (Finished, Option<Vec<u8>>) {
        let _ = self.finish();
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        let module;
        match self.error.clone() {
            None => match self.decoder.finish() {
                Ok(m) => {
                    diagnostics.extend(verify::verify_module(&m));
                    module = m;
                }
                Err(e) => {
                    // The module block is closed once `End` was seen, so
                    // this does not happen; report it all the same.
                    diagnostics.push(decode_diagnostic(&e));
                    self.error = Some(e);
                    module = Module::default();
                }
            },
            Some(e) => {
                diagnostics.push(decode_diagnostic(&e));
                module = self.decoder.module().clone();
            }
        }
        diagnostics.sort_by_key(|d| d.pos);
        (Finished { module, diagnostics, error: self.error }, self.kept)
    }

    /// The header, once read.
    pub fn header(&self) -> Option<&crate::bitstream::Header> {
        self.parser.header()
    }
}

/// A decode error as the one diagnostic `verify_bytes` makes of it.
pub(crate) fn decode_diagnostic(e: &DecodeError) -> Diagnostic {
    Diagnostic {
        pos: e.pos(),
        message: e.to_string(),
        function: None,
        function_name: None,
        block: None,
        inst: None,
    }
}

/// The bodies of a pexe already decoded once without error, decoded again
/// one at a time for the back end.
pub(crate) struct Bodies<'a> {
    parser: Parser<'a>,
    decoder: Decoder,
    /// Set if the second pass failed (it cannot, the first one passed).
    pub error: Option<DecodeError>,
    done: bool,
}

impl<'a> Bodies<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Bodies { parser: Parser::new(bytes), decoder: Decoder::new(), error: None, done: false }
    }
}

impl Iterator for Bodies<'_> {
    type Item = Function;

    fn next(&mut self) -> Option<Function> {
        while !self.done {
            let event = match self.parser.next_event() {
                Ok(Event::End) => break,
                Ok(event) => event,
                Err(e) => {
                    self.error = Some(DecodeError::from_bitstream(e));
                    break;
                }
            };
            match self.decoder.event(&event) {
                Ok(Decoded::FunctionEnd(f)) => return Some(*f),
                Ok(_) => {}
                Err(e) => {
                    self.error = Some(e);
                    break;
                }
            }
        }
        self.done = true;
        None
    }
}
