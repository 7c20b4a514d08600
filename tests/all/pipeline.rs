//! The push pipeline and parallel translation: every way of translating a
//! corpus pexe gives the same bytes, and bodies are translated while the
//! rest of the file is still arriving.

use crate::support::{for_each_file, random_chunks, report, valid_corpus};
use pexe::back::parallel::{self, BodyJob, BodyWorker, ModuleContext, Stitcher};
use pexe::back::wasm::{BodyCode, Options, WasmBackend};
use pexe::back::{NoBackend, Pipeline};

fn serial_options() -> Options {
    Options { parallel: false, ..Options::default() }
}

/// The one-thread, whole-buffer translation: the reference.
fn serial(bytes: &[u8]) -> Result<Vec<u8>, String> {
    Pipeline::<WasmBackend>::whole(bytes, serial_options()).finish().into_output().map_err(|e| e.to_string())
}

fn valid_files() -> Vec<(String, Vec<u8>)> {
    valid_corpus().cloned().collect()
}

/// Feeds `bytes` in chunks of the sizes `chunk` gives, then finishes.
fn streamed(bytes: &[u8], mut chunk: impl FnMut() -> usize) -> Result<Vec<u8>, String> {
    let mut p = Pipeline::<WasmBackend>::streaming(serial_options());
    let mut fed = 0;
    while fed < bytes.len() {
        let n = chunk().clamp(1, bytes.len() - fed);
        p.feed(&bytes[fed..fed + n]).map_err(|e| format!("feeding bytes {fed}..{}: {e}", fed + n))?;
        fed += n;
    }
    p.finish().into_output().map_err(|e| e.to_string())
}

fn streaming_matches_whole(label: &str, chunker: impl Fn(&str) -> Box<dyn FnMut() -> usize> + Sync) {
    let files = valid_files();
    let failures = for_each_file(&files, |rel, bytes| {
        let want = serial(bytes)?;
        let got = streamed(bytes, chunker(rel))?;
        if got != want {
            return Err(format!("{label}: {} bytes streamed, {} whole, first difference at {:?}", got.len(), want.len(), first_difference(&got, &want)));
        }
        Ok(())
    });
    report(&format!("streaming translation ({label}) must equal the whole-buffer one"), &failures);
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then_some(a.len().min(b.len())))
}

#[test]
fn streaming_translation_in_1_byte_chunks_equals_whole() {
    streaming_matches_whole("1-byte chunks", |_| Box::new(|| 1));
}

#[test]
fn streaming_translation_in_7_byte_chunks_equals_whole() {
    streaming_matches_whole("7-byte chunks", |_| Box::new(|| 7));
}

#[test]
fn streaming_translation_in_4096_byte_chunks_equals_whole() {
    streaming_matches_whole("4096-byte chunks", |_| Box::new(|| 4096));
}

#[test]
fn streaming_translation_in_random_chunks_equals_whole() {
    streaming_matches_whole("random chunks", |rel| Box::new(random_chunks(rel)));
}

/// Each body is translated as soon as the last byte of its function block
/// has arrived: after every chunk, the bodies given to the back end are
/// exactly those whose blocks lie wholly in the bytes fed so far.
#[test]
fn bodies_are_translated_as_soon_as_their_bytes_arrive() {
    let files = valid_files();
    let mut checked = 0;
    for (rel, bytes) in &files {
        let Some((_, jobs)) = parallel::split(bytes) else { continue };
        if jobs.len() < 10 {
            continue;
        }
        checked += 1;
        let mut p = Pipeline::<WasmBackend>::streaming(serial_options());
        let mut seen_partial = false;
        for (k, chunk) in bytes.chunks(4096).enumerate() {
            p.feed(chunk).unwrap_or_else(|e| panic!("{rel}: {e}"));
            let fed_bits = ((k * 4096 + chunk.len()) * 8) as u64;
            let complete = jobs.iter().filter(|j| j.range.end.0 <= fed_bits).count() as u32;
            let progress = p.progress();
            assert_eq!(
                progress.functions_defined, complete,
                "{rel}: after {} bytes, {} bodies were translated but {complete} were complete",
                fed_bits / 8, progress.functions_defined
            );
            seen_partial |= complete > 0 && (fed_bits as usize) < bytes.len() * 8;
        }
        assert!(seen_partial, "{rel}: no body was translated before the last chunk");
        let defined = p.progress().functions_defined;
        assert_eq!(defined as usize, jobs.len(), "{rel}");
        assert_eq!(p.finish().into_output().unwrap(), serial(bytes).unwrap(), "{rel}");
    }
    assert!(checked >= 10, "only {checked} corpus files have 10 bodies or more");
}

#[test]
fn parallel_translation_equals_serial() {
    let files = valid_files();
    let failures = for_each_file(&files, |rel, bytes| {
        let want = serial(bytes)?;
        for threads in [2, 3] {
            match parallel::translate(bytes, &serial_options(), threads) {
                Some(got) if got == want => {}
                Some(got) => {
                    return Err(format!("{threads} threads: differs at {:?}", first_difference(&got, &want)));
                }
                // Only a module without bodies has nothing to share out.
                None if parallel::split(bytes).is_none() && pexe::decode::decode(bytes).is_ok_and(|(_, f)| f.is_empty()) => {}
                None => return Err(format!("{threads} threads: the parallel path declined ({rel})")),
            }
        }
        // And through the public entry point, on every core.
        let got = pexe::back::wasm::translate_bytes(bytes, &Options::default()).map_err(|e| e.to_string())?;
        if got != want {
            return Err("translate_bytes (parallel) differs from the serial pipeline".into());
        }
        Ok(())
    });
    report("parallel translation must equal one thread", &failures);
}

/// What a pool of Workers does: each gets the module prefix and one body's
/// bytes only, translates it on its own (here in reverse order, each with a
/// fresh worker), sends back bytes; the main side stitches in order.
#[test]
fn bodies_translated_independently_stitch_into_the_whole_module() {
    let files = valid_files();
    let failures = for_each_file(&files, |rel, bytes| {
        let Some((whole_context, jobs)) = parallel::split(bytes) else { return Ok(()) };
        let prefix = &bytes[..whole_context.prefix_len()];
        let context = std::sync::Arc::new(ModuleContext::from_prefix(prefix).map_err(|e| format!("context from the prefix: {e}"))?);
        if context.num_bodies() != jobs.len() {
            return Err(format!("{} bodies from the prefix, {} blocks", context.num_bodies(), jobs.len()));
        }
        let mut results: Vec<Option<Vec<u8>>> = vec![None; jobs.len()];
        for job in jobs.iter().rev() {
            // What crosses to the Worker and back is bytes.
            let sent = parallel::SplitBody { job: *job, bytes: bytes[job.byte_range()].to_vec() }.to_bytes();
            let got = parallel::SplitBody::from_bytes(&sent).ok_or("a job does not read back")?;
            let mut worker = BodyWorker::new(&context);
            let code = worker
                .translate(&got.job, &got.bytes, job.byte_range().start as u64)
                .map_err(|e| format!("body {}: {e}", job.index))?;
            let back = code.to_bytes();
            // Every fact crosses (the stitcher below uses only some).
            if BodyCode::from_bytes(&back).as_ref() != Some(&code) {
                return Err(format!("body {} does not read back as it was", job.index));
            }
            results[job.index as usize] = Some(back);
        }
        let mut stitcher = Stitcher::new(&context, &serial_options()).map_err(|e| e.to_string())?;
        for (k, sent) in results.iter().enumerate() {
            let body = BodyCode::from_bytes(sent.as_ref().unwrap()).ok_or(format!("body {k} does not read back"))?;
            stitcher.define_body(&body).map_err(|e| format!("body {k}: {e}"))?;
        }
        let got = stitcher.finish(&context).map_err(|e| e.to_string())?;
        if got != serial(bytes)? {
            return Err(format!("{rel}: stitched module differs from the serial one"));
        }
        Ok(())
    });
    report("independent bodies, stitched", &failures);
}

/// Bodies out of order, bodies of another module, broken transfer bytes:
/// errors, never a panic or a wrong module.
#[test]
fn stitching_rejects_what_does_not_fit() {
    let (rel, bytes) = valid_files().into_iter().find(|(_, b)| parallel::split(b).is_some_and(|(_, j)| j.len() > 3)).unwrap();
    let (context, jobs) = parallel::split(&bytes).unwrap();
    let mut worker = BodyWorker::new(&context);
    let bodies: Vec<BodyCode> = jobs.iter().map(|j| worker.translate(j, &bytes, 0).unwrap()).collect();
    let mut stitcher = Stitcher::new(&context, &serial_options()).unwrap();
    assert!(stitcher.define_body(&bodies[1]).is_err(), "{rel}: body 1 accepted first");
    stitcher.define_body(&bodies[0]).unwrap();
    assert!(stitcher.finish(&context).is_err(), "{rel}: finished with bodies missing");
    // A job beyond the module's bodies.
    let bad = BodyJob { index: jobs.len() as u32, range: jobs[0].range };
    assert!(worker.translate(&bad, &bytes, 0).is_err());
    // A window that does not hold the body.
    let range = jobs[1].byte_range();
    assert!(worker.translate(&jobs[1], &bytes[range.start + 4..range.end], range.start as u64 + 4).is_err());
    assert!(worker.translate(&jobs[1], &bytes[range.start..range.end - 4], range.start as u64).is_err());
    // Transfer bytes cut short or with a fixup past the entry.
    let sent = bodies[2].to_bytes();
    for cut in 0..sent.len().min(12) {
        assert!(BodyCode::from_bytes(&sent[..cut]).map_or(true, |b| b != bodies[2]));
    }
    let mut forged = Vec::new();
    forged.extend_from_slice(&bodies[2].id.0.to_le_bytes());
    forged.extend_from_slice(&1u32.to_le_bytes());
    forged.extend_from_slice(&1000u32.to_le_bytes());
    forged.extend_from_slice(&[3, 0x7F, 0, 0x7F]);
    forged.extend_from_slice(bodies[2].entry());
    assert!(BodyCode::from_bytes(&forged).is_none(), "a fixup past the entry was accepted");
    // Jobs as bytes: cut short, misaligned, or with too few bytes.
    let job = parallel::SplitBody { job: jobs[1], bytes: bytes[jobs[1].byte_range()].to_vec() };
    let sent = job.to_bytes();
    assert_eq!(parallel::SplitBody::from_bytes(&sent), Some(job.clone()));
    assert!(parallel::SplitBody::from_bytes(&sent[..sent.len() - 4]).is_none());
    assert!(parallel::SplitBody::from_bytes(&sent[..20]).is_none());
    let mut skewed = sent.clone();
    skewed[16] ^= 8; // the contents' position off the word grid
    assert!(parallel::SplitBody::from_bytes(&skewed).is_none());
    let mut wide = sent.clone();
    wide[4..8].copy_from_slice(&64u32.to_le_bytes());
    assert!(parallel::SplitBody::from_bytes(&wide).is_none());
    // A prefix that stops short of the first body.
    let short = &bytes[..context.prefix_len() - 8];
    assert!(ModuleContext::from_prefix(short).is_err());
}

/// `pexe verify`'s loop is the same pipeline with no back end: fed in
/// chunks it reports what the whole-buffer run does, for every corpus
/// file (invalid ones included).
#[test]
fn verify_pipeline_streamed_reports_what_whole_does() {
    let files = crate::support::corpus();
    let failures = for_each_file(files, |rel, bytes| {
        let whole = Pipeline::<NoBackend>::whole(bytes, ()).keep_body_stats().finish();
        if whole.bodies.len() != whole.progress.functions_decoded as usize {
            return Err(format!("{} body stats for {} bodies", whole.bodies.len(), whole.progress.functions_decoded));
        }
        let mut p = Pipeline::<NoBackend>::streaming(()).keep_body_stats();
        let mut chunks = random_chunks(rel);
        let mut fed = 0;
        while fed < bytes.len() {
            let n = chunks().clamp(1, bytes.len() - fed);
            if p.feed(&bytes[fed..fed + n]).is_err() {
                break;
            }
            fed += n;
        }
        let streamed = p.finish();
        let text = |d: &[pexe::verify::Diagnostic]| d.iter().map(|d| d.to_string()).collect::<Vec<_>>();
        // Only the whole-buffer parser can reject a block length past the
        // end at once (see docs/ARCHITECTURE.md, Streaming).
        if whole.error.is_none() && text(&whole.diagnostics) != text(&streamed.diagnostics) {
            return Err(format!("whole: {:?}\nstreamed: {:?}", text(&whole.diagnostics), text(&streamed.diagnostics)));
        }
        if whole.error.is_some() != streamed.error.is_some() {
            return Err(format!("whole error {:?}, streamed error {:?}", whole.error, streamed.error));
        }
        if whole.error.is_none() && (whole.progress.functions_decoded != streamed.progress.functions_decoded || whole.bodies != streamed.bodies) {
            return Err("different bodies".into());
        }
        Ok(())
    });
    report("verify pipeline, streamed", &failures);
}

/// The page's main thread splits the file as it streams in: the same
/// bodies, bytes and prefix as the whole-buffer split, at any chunk size,
/// each body handed out by the chunk that completes it.
#[test]
fn streaming_splitter_finds_what_split_finds() {
    let files = valid_files();
    let failures = for_each_file(&files, |rel, bytes| {
        let Some((context, jobs)) = parallel::split(bytes) else { return Ok(()) };
        for (label, mut chunk) in [("7", Box::new(|| 7usize) as Box<dyn FnMut() -> usize>), ("random", Box::new(random_chunks(rel)))] {
            let mut s = parallel::Splitter::new();
            let mut found = Vec::new();
            let mut fed = 0;
            while fed < bytes.len() {
                let n = chunk().clamp(1, bytes.len() - fed);
                for body in s.feed(&bytes[fed..fed + n]).map_err(|e| format!("{label}: {e}"))? {
                    if body.job.range.end.0 > ((fed + n) * 8) as u64 {
                        return Err(format!("{label}: body {} handed out before its bytes arrived", body.job.index));
                    }
                    found.push(body);
                }
                fed += n;
            }
            s.finish().map_err(|e| format!("{label}: finish: {e}"))?;
            if s.prefix() != Some(&bytes[..context.prefix_len()]) {
                return Err(format!("{label}: prefix differs"));
            }
            let got: Vec<BodyJob> = found.iter().map(|b| b.job).collect();
            if got != jobs {
                return Err(format!("{label}: {} bodies found, split finds {}", got.len(), jobs.len()));
            }
            if let Some(b) = found.iter().find(|b| b.bytes[..] != bytes[b.job.byte_range()]) {
                return Err(format!("{label}: body {} has other bytes", b.job.index));
            }
        }
        Ok(())
    });
    report("streaming splitter", &failures);
}
