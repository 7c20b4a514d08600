//! `pexe as`: records text back into a pexe.

use crate::{binary_output_ok, display_name, fail, read_input, write_output};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
The input is the records column of a `pexe dis` listing (with or without the
bit positions and the PNaClAsm column). Errors are printed as
`IN:LINE: error: message` and nothing is written (exit code 1).

Examples:

    # Round trip: listing to pexe
    pexe dis --records app.pexe -o app.rec
    pexe as app.rec -o app2.pexe
    cmp app.pexe app2.pexe

    # From standard input
    pexe dis --records app.pexe | pexe as - -o app2.pexe";

/// Assemble a records listing into a pexe.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Asm {
    /// The records text (`-` reads standard input).
    #[arg(value_name = "IN")]
    input: PathBuf,

    /// The pexe to write (standard output if it is not a terminal).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

impl Asm {
    pub fn run(self) -> ExitCode {
        let name = display_name(&self.input);
        let bytes = match read_input(&self.input) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return fail(format_args!("{name}: the input is not UTF-8 text"));
        };
        if !binary_output_ok(self.output.as_ref()) {
            return fail("refusing to write a pexe to a terminal; use -o OUT");
        }
        match pexe::asm::assemble(&text) {
            Ok(pexe) => match write_output(self.output.as_ref(), &pexe) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(format_args!("writing the pexe: {e}")),
            },
            Err(e) => {
                eprintln!("{name}:{}: error: {}", e.line, e.message);
                ExitCode::FAILURE
            }
        }
    }
}
