//! `pexe inspect`: what a pexe is and what it will ask of its runtime —
//! before running it.

use crate::{display_name, fail, read_input};
use clap::Args;
use pexe::abi::{self, Availability, Family};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
The interfaces are read from the pexe's own data: the names its libc and
libppapi pass to the IRT's query and to PPB_GetInterface. Each is marked
with what this runtime does with it: for IRT interfaces, answered or not
(libc asks for several versions and takes the first answered); for Pepper
browser interfaces, offered everywhere, only in a page (it needs a surface,
an audio player or the page's APIs), or not provided (get_interface
answers NULL, which most plugins check; some crash calling through it).

Examples:

    # Will this plugin work, and where?
    pexe inspect app.pexe

    # The Pepper interfaces it asks for that this runtime lacks
    pexe inspect app.pexe | grep 'not provided'";

/// Summarize a pexe: counts, entry point, and the IRT and Pepper interfaces it asks for.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Inspect {
    /// The pexe (`-` reads standard input).
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

impl Inspect {
    pub fn run(self) -> ExitCode {
        let name = display_name(&self.file);
        let bytes = match read_input(&self.file) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        let mut bodies = 0usize;
        let module = match pexe::decode::decode_with(&bytes, |_, _| {
            bodies += 1;
            Ok(())
        }) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{name}:{}: error: {e}", e.pos());
                return ExitCode::FAILURE;
            }
        };
        print!("{}", report(&name, bytes.len(), bodies, &module));
        ExitCode::SUCCESS
    }
}

/// The text `pexe inspect` prints.
fn report(name: &str, size: usize, bodies: usize, m: &pexe::ir::Module) -> String {
    let list = abi::abi();
    let requested = abi::requested_interfaces(m);
    let plugin = requested.irt.iter().any(|i| i == abi::PPAPI_HOOK);
    let mut out = String::new();
    let _ = writeln!(out, "{name}: {size} bytes, {}", if plugin { "a Pepper plugin" } else { "a command-line program" });
    let entry = m.functions.iter().position(|d| !d.is_proto && d.name.as_deref() == Some(b"_start"));
    let _ = writeln!(
        out,
        "functions: {} ({bodies} with bodies), globals: {}, entry: {}",
        m.functions.len(),
        m.globals.len(),
        entry.map_or("none (no _start)".to_string(), |i| format!("_start (@f{i})"))
    );
    let width = requested.irt.iter().chain(&requested.ppb).map(String::len).max().unwrap_or(0) + 2;

    let _ = writeln!(out, "\nIRT interfaces ({}):", requested.irt.len());
    for i in &requested.irt {
        let known = list.interface(i).is_some_and(|f| f.family == Family::Irt);
        let state = match () {
            _ if i == abi::PPAPI_HOOK => "answered (to Pepper plugins)",
            _ if known => "answered",
            _ => "not answered",
        };
        let _ = writeln!(out, "  {i:width$}{state}");
    }
    if plugin || !requested.ppb.is_empty() {
        let _ = writeln!(out, "\nPepper browser interfaces ({}):", requested.ppb.len());
        for i in &requested.ppb {
            let state = match list.interface(i).map(|f| f.availability) {
                Some(Availability::Everywhere) => "offered (in Node and in pages)",
                Some(Availability::Page) => "offered in pages",
                Some(Availability::Nowhere) => "not provided",
                None => "not provided (unknown to this runtime)",
            };
            let _ = writeln!(out, "  {i:width$}{state}");
        }
        let _ = writeln!(out, "\nPlugin interfaces it offers ({}):", requested.ppp.len());
        for i in &requested.ppp {
            let _ = writeln!(out, "  {i}");
        }
    }
    out
}
