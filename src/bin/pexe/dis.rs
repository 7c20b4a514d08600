//! `pexe dis`: the pnacl-bcdis listing of a pexe.

use crate::{display_name, fail, read_input, write_output};
use clap::Args;
use pexe::dis::{Mode, Options};
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
The listing is pnacl-bcdis's: each line starts with the bit position of its
record (BYTE:BIT), then the record as `<code, operands...>` with the
abbreviation it used, then the same record in PNaClAsm. If the file is
invalid, the listing stops at the record at fault and the error follows on
standard error as `FILE:BYTE:BIT: error: message` (exit code 1).

Examples:

    # Records and assembly side by side
    pexe dis app.pexe

    # Only the records column: the input `pexe as` reads back
    pexe dis --records app.pexe -o app.rec

    # Only PNaClAsm, for the body of function @f12
    pexe dis --asm --function 12 app.pexe";

/// Disassemble a pexe into the pnacl-bcdis listing.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Dis {
    /// The pexe to disassemble (`-` reads standard input).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Write the listing here instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,

    /// Print only the records column (bit positions and records).
    #[arg(long, conflicts_with = "asm")]
    records: bool,

    /// Print only the PNaClAsm column.
    #[arg(long)]
    asm: bool,

    /// Print only the function block of function N (`@fN`, its value id).
    #[arg(long, value_name = "N")]
    function: Option<u32>,
}

impl Dis {
    pub fn run(self) -> ExitCode {
        let name = display_name(&self.file);
        let bytes = match read_input(&self.file) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        let mode = match (self.records, self.asm) {
            (true, _) => Mode::Records,
            (_, true) => Mode::Asm,
            _ => Mode::Full,
        };
        let mut listing = String::new();
        let result = pexe::dis::disassemble(&bytes, &Options { mode, function: self.function }, &mut listing);
        // Even a failed run prints what it listed: the error points into it.
        if let Err(e) = write_output(self.output.as_ref(), listing.as_bytes()) {
            return fail(format_args!("writing the listing: {e}"));
        }
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{name}:{}: error: {e}", e.pos());
                ExitCode::FAILURE
            }
        }
    }
}
