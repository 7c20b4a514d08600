//! `pexe translate`: a pexe to a WebAssembly module for the JS runtime, or
//! (`--target`) to a native ELF object for the native runtime.

use crate::{binary_output_ok, display_name, fail, read_input, translate_or_report, write_output};
use clap::Args;
use pexe::back::wasm::{to_wat, Options};
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
The module follows the pexe runtime ABI: it imports a shared `env.memory`,
`env.fault`, `env.fmod_f64` and the IRT functions (`irt.*`), and exports
`_start`, `__pexe_init_data`, `__pexe_thread_start`, the function table and
the per-thread globals. If the pexe is not valid PNaCl, the verifier's
diagnostics are printed as `FILE:BYTE:BIT: error: message` and nothing is
written (exit code 1).

With `--target x86_64-linux` or `--target aarch64-linux` the output is an
ELF relocatable object instead (sandboxed code for the native runtime;
`pexe build` links one into an executable). Functions are compiled on every
core (`--threads` to choose); the object is the same byte for byte either
way.

Examples:

    # Translate for the runtime
    pexe translate app.pexe -o app.wasm

    # On one thread (the bytes are the same as on many)
    pexe translate -j 1 app.pexe -o app.wasm

    # A native object; look at it with readelf or objdump
    pexe translate --target x86_64-linux app.pexe -o app.o
    readelf -h -S -s app.o

    # Read the result as text
    pexe translate --wat app.pexe -o app.wat
    pexe translate --wat app.pexe | less";

/// Translate a pexe into a WebAssembly module.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Translate {
    /// The pexe to translate (`-` reads standard input).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Write the module here (standard output if it is not a terminal).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,

    /// Write the text format (WAT) instead of the binary.
    #[arg(long)]
    wat: bool,

    /// Leave out the name section (function names in fault messages).
    #[arg(long)]
    strip_names: bool,

    /// What to produce: `wasm` (default), or a native object for
    /// `x86_64-linux` or `aarch64-linux`.
    #[arg(long, value_name = "TARGET", default_value = "wasm")]
    target: String,

    /// Translate function bodies on this many threads (default: one per
    /// core). The output is the same for any number.
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
}

impl Translate {
    pub fn run(self) -> ExitCode {
        let name = display_name(&self.file);
        let bytes = match read_input(&self.file) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        if self.target != "wasm" {
            let Some(target) = crate::native::parse_target(&self.target) else {
                return crate::native::bad_target(&self.target);
            };
            if self.wat {
                return fail("--wat describes wasm output; it cannot be combined with a native --target");
            }
            if !binary_output_ok(self.output.as_ref()) {
                return fail("refusing to write an object file to a terminal; use -o OUT");
            }
            let obj = match crate::native::translate(&name, &bytes, target, self.threads.unwrap_or(0)) {
                Ok(obj) => obj,
                Err(code) => return code,
            };
            return match write_output(self.output.as_ref(), &obj) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(format_args!("writing the object: {e}")),
            };
        }
        if !self.wat && !binary_output_ok(self.output.as_ref()) {
            return fail("refusing to write a wasm module to a terminal; use -o OUT or --wat");
        }
        let opts = Options {
            wat: self.wat,
            names: !self.strip_names,
            parallel: self.threads != Some(1),
            threads: self.threads.unwrap_or(0),
            ..Options::default()
        };
        let wasm = match translate_or_report(&name, &bytes, &opts) {
            Ok(wasm) => wasm,
            Err(code) => return code,
        };
        let out = if self.wat {
            match to_wat(&wasm) {
                Ok(text) => text.into_bytes(),
                Err(e) => return fail(format_args!("{name}: {e}")),
            }
        } else {
            wasm
        };
        match write_output(self.output.as_ref(), &out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(format_args!("writing the module: {e}")),
        }
    }
}
