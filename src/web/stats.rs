//! `stats(bytes)`: `pexe stats` as plain data (`Stats` in index.d.ts), the
//! structs of [`crate::stats`] with camelCase names and positions as
//! `byte:bit`.

use super::error::DiagnosticSummary;
use crate::decode::DecodeError;
use crate::stats::{BlockStats, FunctionSize, RecordStats, Stats};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordStatsJs {
    code: u32,
    name: &'static str,
    count: u64,
    bits: u64,
    abbreviated: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockStatsJs {
    block_id: u32,
    name: &'static str,
    count: u64,
    bits: u64,
    own_bits: u64,
    subblocks: u64,
    abbrev_defs: u64,
    abbrev_def_bits: u64,
    records: Vec<RecordStatsJs>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionSizeJs {
    index: u32,
    func: Option<u32>,
    name: Option<String>,
    bits: u64,
    records: u64,
    pos: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatsJs {
    file_bits: u64,
    header_bits: u64,
    end: String,
    blocks: Vec<BlockStatsJs>,
    functions: Vec<FunctionSizeJs>,
    error: Option<DiagnosticSummary>,
}

fn record(r: &RecordStats) -> RecordStatsJs {
    RecordStatsJs { code: r.code, name: r.name, count: r.count, bits: r.bits, abbreviated: r.abbreviated }
}

fn block(b: &BlockStats) -> BlockStatsJs {
    BlockStatsJs {
        block_id: b.block_id,
        name: b.name,
        count: b.count,
        bits: b.bits,
        own_bits: b.own_bits,
        subblocks: b.subblocks,
        abbrev_defs: b.abbrev_defs,
        abbrev_def_bits: b.abbrev_def_bits,
        records: b.records.iter().map(record).collect(),
    }
}

fn function(f: &FunctionSize) -> FunctionSizeJs {
    FunctionSizeJs { index: f.index, func: f.func, name: f.name.clone(), bits: f.bits, records: f.records, pos: f.pos.to_string() }
}

/// Statistics up to the first bitstream error (and that error).
pub fn stats(bytes: &[u8]) -> StatsJs {
    let (s, error): (Stats, _) = Stats::compute_partial(bytes);
    StatsJs {
        file_bits: s.file_bits,
        header_bits: s.header_bits,
        end: s.end.to_string(),
        blocks: s.blocks.iter().map(block).collect(),
        functions: s.functions.iter().map(function).collect(),
        error: error.map(|e| DiagnosticSummary::from(&DecodeError::from_bitstream(e))),
    }
}
