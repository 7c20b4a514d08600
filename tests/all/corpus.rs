//! Every real pexe of the shared corpus, through the whole reading pipeline.
//!
//! The corpus lives beside the repository (`../shared/corpus`, see its
//! README) and is never copied in. Three properties are checked:
//!
//! - every valid file decodes and passes the ABI verifier with no diagnostic;
//! - the fuzzer-mutated regressions `1, 2, 4, 5, 6` are rejected, each
//!   diagnostic naming its position (`BYTE:BIT: message`), and `3` is accepted;
//! - the streaming parser, fed a file in chunks of 1, 7, 4096 and random
//!   sizes, yields exactly the events (kinds, positions, operands) of the
//!   whole-buffer parser, and the same error if there is one (except that
//!   only the whole-buffer parser can see at once that a block's length word
//!   points past the end of the file; streamed, such a file must fail by
//!   running out of data instead).

use pexe::bitstream::{Abbrev, ErrorKind, Event, Header, Parser, Step};
use crate::support::{corpus_root, for_each_file, is_invalid, random_chunks, report, VALID_REGRESSION};
use pexe::BitPos;
use std::time::Instant;

use crate::support::{corpus, INVALID};

/// Whether a diagnostic's text starts with a position, `BYTE:BIT:`.
fn names_position(text: &str) -> bool {
    let Some((byte, rest)) = text.split_once(':') else { return false };
    let Some((bit, _)) = rest.split_once(':') else { return false };
    !byte.is_empty() && byte.bytes().all(|b| b.is_ascii_digit()) && bit.len() == 1 && matches!(bit.as_bytes()[0], b'0'..=b'7')
}

#[test]
fn names_position_accepts_only_byte_colon_bit() {
    assert!(names_position("156:0: missing _start"));
    assert!(names_position("0:7: x"));
    assert!(!names_position("156:8: x"));
    assert!(!names_position("x:0: y"));
    assert!(!names_position("missing _start"));
    assert!(!names_position("12: x"));
}

#[test]
fn corpus_has_every_file() {
    let files = corpus();
    let names: Vec<&str> = files.iter().map(|(r, _)| r.as_str()).collect();
    for want in INVALID.iter().chain([&VALID_REGRESSION]) {
        assert!(names.contains(want), "{want} missing from the corpus");
    }
}

#[test]
fn every_valid_pexe_decodes_and_verifies_clean() {
    let files = corpus();
    let valid: Vec<_> = files.iter().filter(|(rel, _)| !is_invalid(rel)).cloned().collect();
    let started = Instant::now();
    let failures = for_each_file(&valid, |_, bytes| {
        let diagnostics = pexe::verify::verify_bytes(bytes);
        if diagnostics.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = diagnostics.iter().take(3).map(|d| d.to_string()).collect();
        Err(format!("{} diagnostic(s), first: {}", diagnostics.len(), shown.join(" | ")))
    });
    let bytes: usize = valid.iter().map(|(_, b)| b.len()).sum();
    eprintln!("verified {} files, {bytes} bytes, in {:?}", valid.len(), started.elapsed());
    report("valid corpus files must verify with no diagnostics", &failures);
}

#[test]
fn invalid_regressions_are_rejected_with_positions() {
    let root = corpus_root();
    let mut failures = Vec::new();
    for rel in INVALID {
        let bytes = std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"));
        let diagnostics = pexe::verify::verify_bytes(&bytes);
        if diagnostics.is_empty() {
            failures.push(format!("{rel}: accepted, expected at least one diagnostic"));
        }
        for d in &diagnostics {
            let text = d.to_string();
            if !names_position(&text) {
                failures.push(format!("{rel}: diagnostic does not start with BYTE:BIT: {text:?}"));
            }
        }
    }
    report("invalid regressions", &failures);
}

#[test]
fn valid_regression_is_accepted() {
    let bytes = std::fs::read(corpus_root().join(VALID_REGRESSION)).unwrap();
    let diagnostics: Vec<String> = pexe::verify::verify_bytes(&bytes).iter().map(|d| d.to_string()).collect();
    assert!(diagnostics.is_empty(), "{VALID_REGRESSION}: {diagnostics:?}");
}

// ---- streaming ----

/// An event without borrows, for comparing two parsers' output.
#[derive(Debug, PartialEq)]
enum Owned {
    Header(Header),
    Enter { pos: BitPos, block_id: u32, abbrev_width: u32, num_words: u32, end: BitPos },
    Exit { pos: BitPos, block_id: u32 },
    Define { pos: BitPos, abbrev: Abbrev, target: Option<u32>, index: u32 },
    Record { pos: BitPos, abbrev: u32, code: u32, ops: Vec<u64> },
    End,
}

impl Owned {
    fn of(e: &Event) -> Owned {
        match *e {
            Event::Header(h) => Owned::Header(h.clone()),
            Event::EnterBlock { pos, block_id, abbrev_width, num_words, end } => {
                Owned::Enter { pos, block_id, abbrev_width, num_words, end }
            }
            Event::ExitBlock { pos, block_id } => Owned::Exit { pos, block_id },
            Event::DefineAbbrev { pos, abbrev, target, index } => {
                Owned::Define { pos, abbrev: abbrev.clone(), target, index }
            }
            Event::Record { pos, abbrev, code, ops } => Owned::Record { pos, abbrev, code, ops: ops.to_vec() },
            Event::End => Owned::End,
        }
    }
}

/// Parses `data` whole and streamed (chunk sizes from `chunk`) in lockstep and
/// compares every event, then the final error if any. Returns the number of
/// events compared.
fn compare_streaming(data: &[u8], mut chunk: impl FnMut() -> usize) -> Result<usize, String> {
    let mut whole = Parser::new(data);
    let mut streamed = Parser::streaming();
    let mut fed = 0usize;
    let mut finished = false;
    let mut events = 0usize;
    loop {
        let got = match streamed.next() {
            Ok(Step::Event(e)) => Ok(Owned::of(&e)),
            Ok(Step::NeedMoreData) => {
                if finished {
                    return Err(format!("streaming parser wants more data after finish (event {events}, {fed} bytes fed)"));
                }
                if fed == data.len() {
                    streamed.finish();
                    finished = true;
                } else {
                    let n = chunk().clamp(1, data.len() - fed);
                    streamed.feed(&data[fed..fed + n]).map_err(|e| format!("feed failed: {e:?}"))?;
                    fed += n;
                }
                continue;
            }
            Err(e) => Err(e),
        };
        let want = whole.next_event().map(|e| Owned::of(&e));
        match (want, got) {
            (Ok(w), Ok(g)) if w == g => {
                events += 1;
                if w == Owned::End {
                    return Ok(events);
                }
            }
            (Err(w), Err(g)) if w == g => return Ok(events),
            // Only the whole-buffer parser knows where the file ends, so only
            // it can reject a block whose length word points past the end as
            // soon as the block opens. Streamed, the same file must still
            // fail, by running out of data inside that block.
            // Only the whole-buffer parser knows where the file ends, so only
            // it can reject a block whose length word points past the end as
            // soon as the block opens. Streamed, the same file must still be
            // rejected, later (by running out of data inside that block, or
            // by whatever the bytes there hold).
            (Err(w), g) if *w.kind() == ErrorKind::BlockPastEnd => {
                if g.is_err() {
                    return Ok(events);
                }
                return match finish_streaming(&mut streamed, &data[fed..]) {
                    Err(_) => Ok(events),
                    Ok(()) => Err(format!("event {events}: whole parse fails with {w:?}, streamed parse succeeds")),
                };
            }
            (w, g) => {
                return Err(format!(
                    "event {events} differs ({fed} of {} bytes fed):\n    whole:    {w:?}\n    streamed: {g:?}",
                    data.len()
                ))
            }
        }
    }
}

/// Feeds `rest` to a streaming parser and reads it to its end: `Ok(())` at
/// `End`, or the first error.
fn finish_streaming(p: &mut Parser, rest: &[u8]) -> Result<(), pexe::bitstream::Error> {
    p.feed(rest)?;
    p.finish();
    loop {
        match p.next()? {
            Step::Event(Event::End) => return Ok(()),
            Step::Event(_) => {}
            Step::NeedMoreData => panic!("streaming parser wants more data after finish"),
        }
    }
}

fn streaming_matches_whole(label: &str, make_chunker: impl Fn(&str) -> Box<dyn FnMut() -> usize> + Sync) {
    let files = corpus();
    let started = Instant::now();
    let total = std::sync::atomic::AtomicUsize::new(0);
    let failures = for_each_file(&files, |rel, bytes| {
        let n = compare_streaming(bytes, make_chunker(rel))?;
        total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    });
    eprintln!(
        "{label}: {} files, {} events compared in {:?}",
        files.len(),
        total.into_inner(),
        started.elapsed()
    );
    report(&format!("streaming ({label}) must match the whole-buffer parse"), &failures);
}

#[test]
fn streaming_in_1_byte_chunks_matches_whole_parse() {
    streaming_matches_whole("1-byte chunks", |_| Box::new(|| 1));
}

#[test]
fn streaming_in_7_byte_chunks_matches_whole_parse() {
    streaming_matches_whole("7-byte chunks", |_| Box::new(|| 7));
}

#[test]
fn streaming_in_4096_byte_chunks_matches_whole_parse() {
    streaming_matches_whole("4096-byte chunks", |_| Box::new(|| 4096));
}

#[test]
fn streaming_in_random_chunks_matches_whole_parse() {
    // Seeded from the path so each file gets its own, reproducible sizes.
    streaming_matches_whole("random chunks", |rel| Box::new(random_chunks(rel)));
}

/// Events of `data` fed in `chunk`-byte pieces, up to `End` or the first
/// error.
fn streamed_events(data: &[u8], chunk: usize) -> (Vec<Owned>, Option<pexe::bitstream::Error>) {
    let mut p = Parser::streaming();
    let mut fed = 0;
    let mut events = Vec::new();
    loop {
        match p.next() {
            Ok(Step::Event(e)) => {
                let e = Owned::of(&e);
                let end = e == Owned::End;
                events.push(e);
                if end {
                    return (events, None);
                }
            }
            Ok(Step::NeedMoreData) if fed < data.len() => {
                let n = chunk.min(data.len() - fed);
                if let Err(e) = p.feed(&data[fed..fed + n]) {
                    return (events, Some(e));
                }
                fed += n;
            }
            Ok(Step::NeedMoreData) => p.finish(),
            Err(e) => return (events, Some(e)),
        }
    }
}

impl Owned {
    /// Where the item starts (the header at 0, `End` nowhere).
    fn pos(&self) -> Option<BitPos> {
        match self {
            Owned::Header(_) => Some(BitPos(0)),
            Owned::Enter { pos, .. } | Owned::Exit { pos, .. } | Owned::Define { pos, .. } | Owned::Record { pos, .. } => {
                Some(*pos)
            }
            Owned::End => None,
        }
    }
}

/// A file cut short, streamed, must give exactly the events of the whole
/// file that lie before the cut (each one as soon as its bits are there:
/// an item is complete when the next one starts) and then an error at or
/// before the cut, never `End`.
#[test]
fn streaming_truncated_files_give_a_prefix_then_an_error() {
    let files = corpus();
    let failures = for_each_file(&files, |rel, bytes| {
        if bytes.len() > 100_000 || is_invalid(rel) {
            return Ok(());
        }
        let mut full = Vec::new();
        let mut p = Parser::new(bytes);
        loop {
            let e = Owned::of(&p.next_event().map_err(|e| format!("whole parse fails: {e:?}"))?);
            let end = e == Owned::End;
            full.push(e);
            if end {
                break;
            }
        }
        let step = (bytes.len() / 97).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let cut_bits = cut as u64 * 8;
            let (got, error) = streamed_events(&bytes[..cut], 13);
            let k = got.len();
            if let Some(i) = (0..k).find(|&i| got[i] != full[i]) {
                return Err(format!("cut at {cut}: event {i} is {:?}, the whole file has {:?}", got[i], full[i]));
            }
            let Some(error) = error else {
                return Err(format!("cut at {cut}: streaming parse reached End"));
            };
            if error.pos().0 > cut_bits {
                return Err(format!("cut at {cut}: error {error:?} is past the cut"));
            }
            // Event i is complete once event i + 1 starts before the cut.
            if let Some(missing) = (k..full.len().saturating_sub(1))
                .find(|&i| full[i + 1].pos().is_some_and(|next| next.0 <= cut_bits))
            {
                return Err(format!(
                    "cut at {cut}: stopped after {k} events with {error:?}, but event {missing} ({:?}) was complete",
                    full[missing]
                ));
            }
        }
        Ok(())
    });
    report("streaming of truncated files", &failures);
}
