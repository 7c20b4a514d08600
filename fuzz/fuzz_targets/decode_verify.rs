//! Any byte string through decode + verify, the bitstream parser (whole and
//! streamed) and the statistics pass: none may panic, hang or allocate
//! without bound. Seed it with the corpus (see ../README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pexe::bitstream::{Event, Parser, Step};

fuzz_target!(|data: &[u8]| {
    let _ = pexe::verify::verify_bytes(data);

    let mut whole = Parser::new(data);
    while let Ok(event) = whole.next_event() {
        if let Event::End = event {
            break;
        }
    }

    // The same bytes fed in uneven chunks must not trip the streaming path.
    let mut streamed = Parser::streaming();
    let mut fed = 0;
    let mut chunk = 1;
    loop {
        match streamed.next() {
            Ok(Step::Event(Event::End)) | Err(_) => break,
            Ok(Step::Event(_)) => {}
            Ok(Step::NeedMoreData) if fed < data.len() => {
                let n = chunk.min(data.len() - fed);
                if streamed.feed(&data[fed..fed + n]).is_err() {
                    break;
                }
                fed += n;
                chunk = chunk * 3 % 61 + 1;
            }
            Ok(Step::NeedMoreData) => streamed.finish(),
        }
    }

    let _ = pexe::stats::Stats::compute(data);
});
