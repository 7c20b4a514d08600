//! The IRT interfaces over Linux, one file per group, with the semantics
//! of the JavaScript runtime (`js/src/internal/runtime/irt/`): every function
//! answers 0 or a positive NaCl errno, checks each guest pointer it is
//! handed (EFAULT), and writes the NaCl layouts (`js/src/internal/runtime/defs.js`).
//!
//! `irt_gen.rs` (generated from the ABI's one list) exports them as the
//! `__pexe_irt_<name>` symbols the objects' function tables point at, with
//! these exact signatures.

mod basic;
mod clock;
mod fdio;
mod filename;
mod memory;
mod thread;

pub use basic::*;
pub use clock::*;
pub use fdio::*;
pub use filename::*;
pub use memory::*;
pub use thread::*;

use crate::ctx::Ctx;
use crate::irt_gen::{INTERFACES, PPAPI_HOOK};
use crate::mem::Errno;
use crate::process;

/// 0 for `Ok`, the errno otherwise.
pub(crate) fn errno(r: Result<(), Errno>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => e,
    }
}

/// The most bytes of an interface name `query` reads.
const MAX_NAME: usize = 256;

/// `size_t query(const char *interface_ident, void *table, size_t tablesize)`:
/// fills `table` with the function addresses (1 + IRT index) of a known
/// interface whose table fits and answers the bytes written; 0 otherwise.
/// Pepper's hook interface is not answered: this runtime has no Pepper.
pub fn query(_ctx: &mut Ctx, name: u32, table: u32, size: u32) -> u32 {
    let m = &process().mem;
    let Ok(name) = m.read_cstr(name, MAX_NAME, libc::ENAMETOOLONG) else { return 0 };
    let Some((_, funcs)) = INTERFACES.iter().find(|(n, _)| n.as_bytes() == name.as_slice()) else { return 0 };
    if name == PPAPI_HOOK.as_bytes() {
        return 0;
    }
    let bytes = 4 * funcs.len() as u32;
    if size < bytes || m.check_write(table, u64::from(bytes)).is_err() {
        return 0;
    }
    for (i, &k) in funcs.iter().enumerate() {
        let _ = m.write_u32(table + 4 * i as u32, 1 + u32::from(k));
    }
    bytes
}

/// `ppapi_start`: no Pepper here.
pub fn ppapi_start(_ctx: &mut Ctx, _funcs: u32) -> i32 {
    libc::ENOSYS
}

/// `ppapi_register_thread_creator`: nothing to register with.
pub fn ppapi_register_thread_creator(_ctx: &mut Ctx, _funcs: u32) {}
