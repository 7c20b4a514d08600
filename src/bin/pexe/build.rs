//! `pexe build`: a pexe to a static Linux executable — the native object
//! linked with the native runtime compiled into this binary.

use crate::{display_name, fail, read_input};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
The executable runs the pexe sandboxed: guest code reaches only its own
4 GiB window, and every fault ends it with `pexe: guest fault: <what> in
function <name>` and exit status 134. It takes the pexe's arguments (argv[0]
is the executable's own name) and passes its environment to the guest,
except variables starting with PEXE_, which configure it:

    PEXE_DIRS=dir1:dir2    host directories the guest may use (none by default)
    PEXE_STACK_SIZE=N      bytes of the main thread's guest stack (default 8 MiB)

Linking uses `cc` on a machine of the target's architecture and Debian's
cross compilers otherwise (`aarch64-linux-gnu-gcc`, `x86_64-linux-gnu-gcc`;
override with PEXE_CC_AARCH64 / PEXE_CC_X86_64). Pepper (PPAPI) plugins
translate but do not link: the native runtime has no Pepper.

Examples:

    # An executable for this machine
    pexe build --target x86_64-linux fannkuchredux.pexe -o fannkuchredux
    ./fannkuchredux 9

    # For AArch64, run here through QEMU
    pexe build --target aarch64-linux app.pexe -o app-arm64
    qemu-aarch64-static ./app-arm64";

/// Translate a pexe and link it into a static executable.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Build {
    /// The pexe (`-` reads standard input).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The executable to write.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,

    /// `x86_64-linux` or `aarch64-linux` (default: this machine's).
    #[arg(long, value_name = "TARGET")]
    target: Option<String>,

    /// Threads compiling native code (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Also write the object here.
    #[arg(long, value_name = "OBJ")]
    keep_object: Option<PathBuf>,

    /// Add the entry the runtime's test driver calls functions through
    /// (PEXE_TEST_CALLS; used by the project's tests).
    #[arg(long, hide = true)]
    test_entry: bool,
}

impl Build {
    pub fn run(self) -> ExitCode {
        let target = match crate::native::target_or_host(self.target.as_deref()) {
            Ok(t) => t,
            Err(code) => return code,
        };
        let name = display_name(&self.file);
        let bytes = match read_input(&self.file) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format_args!("{name}: {e}")),
        };
        let obj = match crate::native::translate_with(&name, &bytes, target, self.threads.unwrap_or(0), self.test_entry) {
            Ok(obj) => obj,
            Err(code) => return code,
        };
        if let Some(path) = &self.keep_object {
            if let Err(e) = std::fs::write(path, &obj) {
                return fail(format_args!("writing {}: {e}", path.display()));
            }
        }
        if pexe::back::native::object_is_pepper_plugin(&obj) {
            return fail(format_args!(
                "{name} is a Pepper (PPAPI) plugin: it translates (pexe translate --target {target}) but cannot be \
                 linked, the native runtime has no Pepper"
            ));
        }
        match crate::native::link(target, &obj, &self.output) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        }
    }
}
