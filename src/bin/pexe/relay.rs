//! `pexe relay`: the socket relay that gives Pepper plugins in pages TCP,
//! UDP and name resolution (`js/src/internal/node/relay.mjs`, run with
//! Node like `pexe run`; the protocol is docs/relay.md).

use crate::fail;
use crate::run::{cache_roots, runtime_dir, NODE_ENV};
use clap::Args;
use std::process::{Command, ExitCode};

const EXAMPLES: &str = "\
A page's plugin reaches it with the socketRelay option of startPlugin /
startPluginInPage (`ws://127.0.0.1:PORT/`), `pexe run` with --socket-relay.
Plugins reach only what --allow names; anything else is PP_ERROR_NOACCESS.
PATTERN is `*` (everything), or HOST[:PORTS]: HOST an IPv4 address, [IPv6],
a CIDR block or a name (a name also allows the addresses it resolves to),
PORTS a port, LOW-HIGH or `*`. It listens on 127.0.0.1 unless --host says
otherwise; with --origin only pages of those origins may use it. It runs
until interrupted.

Needs Node.js 20 or newer: `node` on PATH, or the path in PEXE_NODE.

Examples:

    # An echo service on this machine, port 7
    pexe relay --allow 127.0.0.1:7

    # Any port of this machine, for pages served from one origin
    pexe relay --allow '127.0.0.1:*' --origin http://localhost:8000

    # Names too: example.org on 443 (and the addresses it resolves to)
    pexe relay --port 9000 --allow example.org:443";

/// Run the socket relay that gives plugins in pages TCP, UDP and name resolution.
#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct Relay {
    /// What plugins may reach (repeatable; at least one).
    #[arg(long = "allow", value_name = "PATTERN", required = true)]
    allow: Vec<String>,

    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8787)]
    port: u16,

    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    host: String,

    /// Only pages of this origin may connect (repeatable; default: any page).
    #[arg(long = "origin", value_name = "ORIGIN")]
    origins: Vec<String>,
}

/// The relay, relative to the runtime's folder.
const RELAY: &str = "internal/node/relay.mjs";

impl Relay {
    pub fn run(self) -> ExitCode {
        let runtime = match runtime_dir(&cache_roots()) {
            Ok(dir) => dir,
            Err(e) => return fail(format_args!("writing the JavaScript runtime: {e}")),
        };
        let node = std::env::var_os(NODE_ENV).unwrap_or_else(|| "node".into());
        let mut cmd = Command::new(&node);
        cmd.arg(runtime.join(RELAY));
        cmd.arg("--port").arg(self.port.to_string());
        cmd.arg("--host").arg(&self.host);
        for pattern in &self.allow {
            cmd.arg("--allow").arg(pattern);
        }
        for origin in &self.origins {
            cmd.arg("--origin").arg(origin);
        }
        // The relay runs until it is stopped: become Node, so a signal to
        // this process (a service manager's, a test's kill) stops the relay
        // and leaves no orphan behind.
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            let e = cmd.exec();
            fail(format_args!("cannot start Node.js ({}): {e}", node.to_string_lossy()))
        }
        #[cfg(not(unix))]
        match cmd.status() {
            Ok(status) => crate::run::exit_code(status),
            Err(e) => fail(format_args!("cannot start Node.js ({}): {e}", node.to_string_lossy())),
        }
    }
}
