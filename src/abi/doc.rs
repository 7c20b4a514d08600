//! `docs/abi.md`: the list as a document (generated; `tests/abi.rs` keeps
//! the checked-in copy current).

use super::{Abi, Family};
use std::fmt::Write;

/// The generated document's text.
pub fn markdown(abi: &Abi) -> String {
    let mut out = String::new();
    out.push_str(
        "# The runtime ABI's function list\n\n\
         Generated from `src/abi/irt.h` and `src/abi/ppapi.h` by `BLESS=1 cargo test --test all abi::`;\n\
         do not edit. `docs/ARCHITECTURE.md` (\"Runtime ABI\", \"Pepper\") explains how these are\n\
         imported, placed in the function table and called.\n\n\
         The **pexe form** is what the translated program passes (value kinds `i` i32, `l` i64,\n\
         `f` f32, `d` f64; PNaCl's calling convention: a struct passed by value is a pointer to a\n\
         caller-owned copy, a struct result is returned through a leading pointer, marked `sret`).\n\
         A function shared by several versions of an interface is listed under the first.\n\n",
    );
    let irt = abi.irt_imports().count();
    let ppb = abi.ppb_imports().count();
    let _ = writeln!(
        out,
        "Counts: {irt} IRT functions, {ppb} PPB functions ({} interfaces), {} plugin functions.\n",
        abi.interfaces.iter().filter(|i| i.family == Family::Ppb).count(),
        abi.functions.iter().filter(|f| f.family == Family::Ppp).count(),
    );
    for (title, family) in [
        ("IRT interfaces (served by the runtime)", Family::Irt),
        ("Pepper browser interfaces (PPB, served by the runtime)", Family::Ppb),
        ("Plugin interfaces and callbacks (PPP, served by the pexe)", Family::Ppp),
    ] {
        let _ = writeln!(out, "## {title}\n");
        for iface in abi.interfaces.iter().filter(|i| i.family == family) {
            let offered = match (family, iface.availability) {
                (Family::Ppb, a) if !iface.name.starts_with('@') => format!(" — offered: {}", a.as_str()),
                _ => String::new(),
            };
            let _ = writeln!(out, "### `{}`{offered}\n\n| # | C prototype | pexe form | import |\n|---|---|---|---|", iface.name);
            for (slot, &fi) in iface.functions.iter().enumerate() {
                let f = &abi.functions[fi];
                let l = f.lower();
                let params: String = l.params.iter().map(|k| k.letter()).collect();
                let results: String = l.results.iter().map(|k| k.letter()).collect();
                let form = format!("({params}) → ({results}){}", if l.sret { " sret" } else { "" });
                let import = match family {
                    Family::Irt => format!("`irt.{}`", f.key),
                    Family::Ppb => format!("`ppapi.{}`", f.key),
                    Family::Ppp => "—".to_string(),
                };
                let _ = writeln!(out, "| {slot} | `{}` | {form} | {import} |", f.decl.replace('|', "\\|"));
            }
            out.push('\n');
        }
    }
    out
}
