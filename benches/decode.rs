//! Throughput of the reading pipeline on the two largest corpus pexes.
//!
//! Three measurements per file, all reported in MB/s of input:
//! - `bitstream`: the event parser alone, every event of the file;
//! - `decode`: `decode::decode_with`, events to IR with each body dropped
//!   as it completes (no verification), to tell the stages apart;
//! - `decode_verify`: `verify::verify_bytes`, i.e. decode to IR and run the
//!   ABI verifier (what `pexe verify` does).
//!
//! The goal is at least 150 MB/s for `decode_verify`. Sample counts are kept
//! low so `cargo bench --bench decode` finishes in well under a minute on a
//! noisy two-core machine. The goal table's rows come from
//! `examples/bench.rs` (`scripts/bench.sh`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pexe::bitstream::{Event, Parser};
use std::hint::black_box;
use std::time::Duration;

const FILES: [&str; 2] = [
    "ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe",
    "ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe",
];

fn load(rel: &str) -> Vec<u8> {
    let path = format!("{}/../shared/corpus/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e} (the shared corpus must sit beside the repository)"))
}

/// Parses every event; returns how many there were.
fn parse_all(bytes: &[u8]) -> usize {
    let mut parser = Parser::new(bytes);
    let mut events = 0;
    loop {
        match parser.next_event() {
            Ok(Event::End) => return events,
            Ok(_) => events += 1,
            Err(e) => panic!("bitstream error at {e:?}"),
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("pexe");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for rel in FILES {
        let bytes = load(rel);
        let name = rel.rsplit('/').next().unwrap();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("bitstream", name), &bytes, |b, bytes| {
            b.iter(|| parse_all(black_box(bytes)))
        });
        group.bench_with_input(BenchmarkId::new("decode", name), &bytes, |b, bytes| {
            b.iter(|| {
                pexe::decode::decode_with(black_box(bytes), |_, f| {
                    black_box(f);
                    Ok(())
                })
                .unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("decode_verify", name), &bytes, |b, bytes| {
            b.iter(|| pexe::verify::verify_bytes(black_box(bytes)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
