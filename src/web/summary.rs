//! `inspect`'s answer: a plain serde struct that becomes a JS object with
//! camelCase keys (see `js/src/index.d.ts`, `ModuleSummary`, which this
//! mirrors field for field; the npm entry adds `irt.unsupported`).

use crate::back::{BodyStats, Outcome};
use crate::bitstream::header::FieldType;
use crate::bitstream::Header;
use crate::ir::{Initializer, Linkage, Module};
use super::error::DiagnosticSummary;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeaderFieldSummary {
    pub tag: u16,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub value: Option<u32>,
    pub data: Vec<u8>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeaderSummary {
    pub magic: &'static str,
    pub version: u32,
    pub size: usize,
    pub fields: Vec<HeaderFieldSummary>,
}

impl From<&Header> for HeaderSummary {
    fn from(h: &Header) -> Self {
        let fields = h
            .fields
            .iter()
            .map(|f| {
                let ty = match f.ftype {
                    FieldType::Buffer => "buffer",
                    FieldType::UInt32 => "uint32",
                    FieldType::Flag => "flag",
                };
                let value = match (f.ftype, f.data.as_slice()) {
                    (FieldType::UInt32, &[a, b, c, d]) => Some(u32::from_le_bytes([a, b, c, d])),
                    _ => None,
                };
                HeaderFieldSummary { tag: f.tag, ty, value, data: f.data.clone() }
            })
            .collect();
        HeaderSummary { magic: "PEXE", version: h.version, size: h.size, fields }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionSummary {
    pub id: u32,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub ty: String,
    pub linkage: &'static str,
    pub defined: bool,
    pub intrinsic: bool,
    pub pos: String,
    pub bits: Option<u64>,
    pub bytes: Option<u64>,
    pub instructions: Option<u32>,
    pub blocks: Option<u32>,
    pub constants: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GlobalSummary {
    pub id: u32,
    pub name: Option<String>,
    pub size: u64,
    pub align: u32,
    pub is_const: bool,
    pub relocations: u32,
    pub pos: String,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub types: usize,
    pub functions: usize,
    pub defined_functions: usize,
    pub intrinsics: usize,
    pub globals: usize,
    pub global_bytes: u64,
    pub instructions: u64,
    pub blocks: u64,
    pub constants: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IrtImports {
    pub intrinsics: Vec<String>,
    pub interfaces: Vec<String>,
}

/// A Pepper browser interface the pexe asks for, and where this runtime offers it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PepperInterface {
    pub name: String,
    /// `everywhere`, `page`, `nowhere`, or `unknown` (not in the ABI list).
    pub offered: &'static str,
}

/// The Pepper side of a pexe: empty for a command-line program.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PepperImports {
    /// Whether it is a plugin (asks for nacl-irt-ppapihook-0.1).
    pub plugin: bool,
    /// PPB interfaces it asks for.
    pub browser: Vec<PepperInterface>,
    /// PPP interfaces it offers.
    pub offers: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleSummary {
    pub size: u64,
    pub header: Option<HeaderSummary>,
    pub version: Option<u64>,
    pub counts: Counts,
    pub functions: Vec<FunctionSummary>,
    pub globals: Vec<GlobalSummary>,
    pub entry_point: Option<u32>,
    pub irt: IrtImports,
    pub pepper: PepperImports,
    pub valid: bool,
    pub diagnostics: Vec<DiagnosticSummary>,
    pub decode_error: Option<DiagnosticSummary>,
}


fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Builds the summary of a finished pipeline.
pub fn summarize(finished: &Outcome<()>) -> ModuleSummary {
    let size = finished.progress.bytes_read;
    let header: Option<&Header> = finished.header.as_ref();
    let bodies: &[BodyStats] = &finished.bodies;
    let m: &Module = &finished.module;
    let by_id: HashMap<u32, &BodyStats> = bodies.iter().map(|b| (b.id, b)).collect();
    let mut counts = Counts {
        types: m.types.len(),
        functions: m.functions.len(),
        globals: m.globals.len(),
        ..Counts::default()
    };
    for b in bodies {
        counts.instructions += u64::from(b.instructions);
        counts.blocks += u64::from(b.blocks);
        counts.constants += u64::from(b.constants);
    }

    let mut intrinsics = BTreeSet::new();
    let mut entry_point = None;
    let functions = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let id = i as u32;
            let intrinsic = d.is_proto && d.name.as_deref().is_some_and(|n| n.starts_with(b"llvm."));
            if intrinsic {
                counts.intrinsics += 1;
                intrinsics.insert(d.name_str().into_owned());
            }
            if !d.is_proto {
                counts.defined_functions += 1;
                if d.name.as_deref() == Some(b"_start") && d.linkage == Linkage::External {
                    entry_point = Some(id);
                }
            }
            let body = by_id.get(&id);
            FunctionSummary {
                id,
                name: d.name.as_deref().map(lossy),
                ty: d.sig.to_string(),
                linkage: match d.linkage {
                    Linkage::External => "external",
                    Linkage::Internal => "internal",
                    Linkage::Other(_) => "other",
                },
                defined: !d.is_proto,
                intrinsic,
                pos: d.pos.to_string(),
                bits: body.map(|b| b.bits),
                bytes: body.map(|b| b.bits.div_ceil(8)),
                instructions: body.map(|b| b.instructions),
                blocks: body.map(|b| b.blocks),
                constants: body.map(|b| b.constants),
            }
        })
        .collect();

    let globals = m
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let size = g.size();
            counts.global_bytes += size;
            let mut relocations = 0;
            for part in &g.init {
                match part {
                    Initializer::Reloc { .. } => relocations += 1,
                    Initializer::Data(_) | Initializer::ZeroFill(_) => {}
                }
            }
            GlobalSummary {
                id: i as u32,
                name: g.name.as_deref().map(lossy),
                size,
                align: g.align,
                is_const: g.is_const,
                relocations,
                pos: g.pos.to_string(),
            }
        })
        .collect();

    let requested = crate::abi::requested_interfaces(m);
    let list = crate::abi::abi();
    let pepper = PepperImports {
        plugin: requested.irt.iter().any(|i| i == crate::abi::PPAPI_HOOK),
        browser: requested
            .ppb
            .iter()
            .map(|name| PepperInterface {
                name: name.clone(),
                offered: list.interface(name).map_or("unknown", |i| i.availability.as_str()),
            })
            .collect(),
        offers: requested.ppp,
    };
    ModuleSummary {
        size,
        header: header.map(HeaderSummary::from),
        version: (m.version != 0).then_some(m.version),
        counts,
        functions,
        globals,
        entry_point,
        irt: IrtImports { intrinsics: intrinsics.into_iter().collect(), interfaces: requested.irt },
        pepper,
        valid: finished.diagnostics.is_empty(),
        diagnostics: finished.diagnostics.iter().map(DiagnosticSummary::from).collect(),
        decode_error: finished.error.as_ref().map(DiagnosticSummary::from),
    }
}

