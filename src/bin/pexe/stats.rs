//! `pexe stats`: where the bits of a pexe go (pnacl-bcanalyzer style).

use crate::{display_name, fail, read_input, write_output};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Prints one table of block kinds (count, bits with and without nested blocks,
share of the file, records, abbreviation use), one table of record codes per
block kind (count, bits, share of the file, % abbreviated, average size), and
the largest function blocks with their value ids and names. Only the
bitstream is read, so files the decoder rejects still get statistics; after a
bitstream error the tables cover what came before it, and the error follows on
standard error as `FILE:BYTE:BIT: error: message` (exit code 1).

Examples:

    # The whole report
    pexe stats app.pexe

    # The 30 largest functions
    pexe stats --functions 30 app.pexe

    # Only the table of block kinds
    pexe stats app.pexe | sed -n '/^Blocks/,/^$/p'";

/// Show size statistics: per block kind, per record code, per function.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Stats {
    /// The pexe to measure (`-` reads standard input).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// How many of the largest functions to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    functions: usize,
}

impl Stats {
    pub fn run(self) -> ExitCode {
        let name = display_name(&self.file);
        let bytes = match read_input(&self.file) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        let (stats, error) = pexe::stats::Stats::compute_partial(&bytes);
        let report = stats.report(self.functions).to_string();
        if let Err(e) = write_output(None, report.as_bytes()) {
            return fail(format_args!("writing the report: {e}"));
        }
        match error {
            None => ExitCode::SUCCESS,
            Some(e) => {
                eprintln!("{name}:{}: error: {e}", e.pos());
                ExitCode::FAILURE
            }
        }
    }
}
