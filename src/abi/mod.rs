//! The runtime ABI's function list: every function that crosses between a
//! translated pexe and the runtime that runs it, written once.
//!
//! Three families, all declared in C in this folder. The build script reads
//! them (a build whose declarations do not parse fails) and leaves a table
//! that [`abi`] decodes at first use, with no parsing of C at run time
//! (`table.rs`):
//!
//! | family | declared in | served by | called by |
//! |---|---|---|---|
//! | IRT (`nacl-irt-*`) | `irt.h` | the runtime (JS, native) | the pexe, through `query` tables |
//! | PPB (`PPB_*`) | `ppapi.h` | the runtime (the "browser") | the pexe, through `PPB_GetInterface` tables |
//! | PPP (`PPP_*`, `@…`) | `ppapi.h` | the pexe (the plugin) | the runtime, through pointers the pexe hands it |
//!
//! Everything that must agree on these lists comes from here: the wasm back
//! end's imports ([`imports`], which are [`Abi::irt_imports`] and [`Abi::ppb_imports`]), the
//! JavaScript runtime's tables (`js.rs` generates them; a test fails when
//! the checked-in copy drifts), the native runtime's exported IRT functions
//! and `query` tables (`native_rt.rs`, likewise) and the documentation
//! (`doc.rs`). The list is
//! target neutral: a declaration carries C types ([`CType`]); what a
//! particular calling convention makes of them is [`Function::lower`] (the
//! PNaCl pexe convention: by-value structs as pointers, sret for struct
//! results, small integers widened).
//!
//! Identity: an IRT function is its name (`irt.<name>`). A PPB function is
//! `<interface>:<member>` of the first interface version that declared it
//! ([`Function::key`]); a later version whose member has the same C
//! prototype reuses it, so `PPB_Var;1.1` and `PPB_Var;1.2` share `AddRef`.
//! Import order is the order of first declaration in the files.

mod ctype;
pub mod doc;
mod import_list;
pub mod js;
mod list;
pub mod native_rt;
mod parse;
mod requested;
// `encode` is the build script's (and the tests').
#[cfg_attr(not(test), allow(dead_code))]
mod table;

pub use ctype::{CType, ValKind};
pub use list::{Abi, Availability, Family, Function, Interface, Lowered, Param, Side};
pub use parse::ParseError;
pub use requested::{requested_interfaces, Requested};
pub use import_list::{Import, Imports};

use std::sync::OnceLock;

/// The IRT declarations (`irt.h`).
pub const IRT_SOURCE: &str = include_str!("irt.h");
/// The Pepper declarations (`ppapi.h`).
pub const PPAPI_SOURCE: &str = include_str!("ppapi.h");

/// The interface string a Pepper plugin's IRT lookup asks for; a pexe that
/// contains it is a plugin and gets the Pepper imports.
pub const PPAPI_HOOK: &str = "nacl-irt-ppapihook-0.1";

/// The table build.rs wrote from `irt.h` and `ppapi.h` (`table.rs`).
const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/abi_table.txt"));

/// The list of this build (decoded once from the table build.rs parsed;
/// a test checks it equals what parsing the sources gives).
pub fn abi() -> &'static Abi {
    static ABI: OnceLock<Abi> = OnceLock::new();
    ABI.get_or_init(|| table::decode(TABLE))
}

/// The functions a translated module imports: the IRT's, then with
/// `pepper` the PPB's (decoded once each, without the rest of the list).
/// They equal [`abi`]'s [`Abi::irt_imports`] and [`Abi::ppb_imports`]
/// (tested).
pub fn imports(pepper: bool) -> &'static Imports {
    static IRT: OnceLock<Imports> = OnceLock::new();
    static PEPPER: OnceLock<Imports> = OnceLock::new();
    let list = if pepper { &PEPPER } else { &IRT };
    list.get_or_init(|| import_list::decode(TABLE, pepper))
}

#[cfg(test)]
mod tests;
