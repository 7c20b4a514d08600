//! `pexe verify`: the PNaCl ABI verifier, one diagnostic per line.

use crate::{display_name, read_input};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Each problem is printed on standard output as `FILE:BYTE:BIT: error: message`,
where BYTE:BIT is the bit position of the record at fault (the first column of
`pexe dis`). The exit code is 0 when every file is valid, 1 otherwise.

Examples:

    # Check one file; no output means it is valid
    pexe verify app.pexe

    # Check many, keeping only the exit code
    pexe verify -q *.pexe && echo all valid

    # Find the record behind a diagnostic like `app.pexe:1234:5: error: ...`
    pexe dis app.pexe | grep -n '^ *1234:5'";

/// Check pexes against the PNaCl ABI (pnacl-abicheck's rules and messages).
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Verify {
    /// The files to check (`-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,

    /// Print nothing: only the exit code tells.
    #[arg(short, long)]
    quiet: bool,
}

impl Verify {
    pub fn run(self) -> ExitCode {
        let mut all_valid = true;
        for path in &self.files {
            let name = display_name(path);
            let bytes = match read_input(path) {
                Ok(bytes) => bytes,
                Err(e) => {
                    all_valid = false;
                    if !self.quiet {
                        println!("{name}: error: {e}");
                    }
                    continue;
                }
            };
            let diagnostics = pexe::verify::verify_bytes(&bytes);
            all_valid &= diagnostics.is_empty();
            if !self.quiet {
                for d in &diagnostics {
                    println!("{name}:{d}");
                }
            }
        }
        if all_valid {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}
