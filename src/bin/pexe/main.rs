//! `pexe`: the command line over the library, one subcommand per file.
//!
//! Each subcommand is a clap `Args` struct with a `run` method in its own
//! file (`dis.rs`, `verify.rs`, ...); this file only lists them and holds the
//! input/output helpers they share. The CLI stays thin: it reads files,
//! calls one library function and prints what it returns. To add a
//! subcommand, write `foo.rs` with `pub struct Foo` + `fn run(self) ->
//! ExitCode`, then add a `mod foo;`, a variant and its match arm below.
//!
//! Exit codes: 0 success, 1 the input was rejected (or could not be read or
//! written), 2 bad command-line usage (clap's own).

use clap::{Parser, Subcommand};
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod asm;
mod build;
mod dis;
mod inspect;
mod relay;
mod native;
mod run;
mod stats;
mod translate;
mod translation_cache;
mod verify;

const EXAMPLES: &str = "\
Examples:

    # Check a pexe against the PNaCl ABI rules
    pexe verify app.pexe

    # Disassemble it, records and PNaClAsm side by side (pnacl-bcdis style)
    pexe dis app.pexe -o app.txt

    # Edit the records column, then assemble it back into a pexe
    pexe dis --records app.pexe -o app.rec
    pexe as app.rec -o app2.pexe

    # Where do the bits go?
    pexe stats app.pexe

    # What will it ask of its runtime (IRT and Pepper interfaces)?
    pexe inspect app.pexe

    # Translate to WebAssembly, or translate and run under Node
    pexe translate app.pexe -o app.wasm
    pexe run app.pexe -- arg1 arg2

    # Give plugins in pages TCP/UDP through a local socket relay
    pexe relay --allow 127.0.0.1:7000

    # Native: an ELF object, a static executable, or run one right away
    pexe translate --target x86_64-linux app.pexe -o app.o
    pexe build --target aarch64-linux app.pexe -o app
    pexe run --target native app.pexe -- arg1 arg2

Run `pexe help <command>` for each command's options and examples.";

/// Read, check and take apart PNaCl programs (.pexe files).
#[derive(Parser)]
#[command(name = "pexe", version, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Verify(verify::Verify),
    Dis(dis::Dis),
    #[command(name = "as")]
    Asm(asm::Asm),
    Stats(stats::Stats),
    Inspect(inspect::Inspect),
    Translate(translate::Translate),
    Build(build::Build),
    Run(run::Run),
    Relay(relay::Relay),
}

impl Command {
    fn run(self) -> ExitCode {
        match self {
            Command::Verify(c) => c.run(),
            Command::Dis(c) => c.run(),
            Command::Asm(c) => c.run(),
            Command::Stats(c) => c.run(),
            Command::Inspect(c) => c.run(),
            Command::Translate(c) => c.run(),
            Command::Build(c) => c.run(),
            Command::Run(c) => c.run(),
            Command::Relay(c) => c.run(),
        }
    }
}

fn main() -> ExitCode {
    Cli::parse().command.run()
}

/// Reads the input file, or standard input for `-`.
fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes)?;
        Ok(bytes)
    } else {
        std::fs::read(path)
    }
}

/// How an input is named in diagnostics (`<stdin>` for `-`).
fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Where output goes: the `-o` file, or standard output.
fn write_output(out: Option<&PathBuf>, bytes: &[u8]) -> io::Result<()> {
    match out {
        Some(path) if path.as_os_str() != "-" => std::fs::write(path, bytes),
        _ => {
            let mut stdout = io::stdout().lock();
            // A closed pipe (`pexe dis x.pexe | head`) is not a failure.
            match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                r => r,
            }
        }
    }
}

/// Refuses to print binary output on a terminal.
fn binary_output_ok(out: Option<&PathBuf>) -> bool {
    out.is_some_and(|p| p.as_os_str() != "-") || !io::stdout().is_terminal()
}

/// Translates `bytes` to WebAssembly; on failure prints what went wrong
/// ([`report`]) and answers the exit code.
fn translate_or_report(name: &str, bytes: &[u8], opts: &pexe::back::wasm::Options) -> Result<Vec<u8>, ExitCode> {
    pexe::back::wasm::translate_bytes(bytes, opts).map_err(|e| report(name, e))
}

/// Prints why a translation failed as `pexe verify` would (each problem as
/// `name:position: ...`) and answers the exit code.
fn report(name: &str, e: pexe::back::TranslateError) -> ExitCode {
    use pexe::back::TranslateError;
    match e {
        TranslateError::Invalid(diagnostics) => {
            for d in &diagnostics {
                eprintln!("{name}:{d}");
            }
            ExitCode::FAILURE
        }
        TranslateError::Decode(e) => {
            eprintln!("{name}:{}: error: {e}", e.pos());
            ExitCode::FAILURE
        }
        e => fail(format_args!("{name}: {e}")),
    }
}

/// Prints `error: message` on standard error and answers exit code 1.
fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}
