//! The JavaScript runtime's copy of the list: one generated ES module.
//!
//! `tests/abi.rs` compares [`module`] with the checked-in file and rewrites
//! it under `BLESS=1`, so the runtime can never drift from the declarations.

use super::{Abi, CType, Family, Function};
use std::fmt::Write;

/// Trace letter of an IRT parameter: `s` C string, `p` pointer, `f` file
/// descriptor, `o` octal mode, `x` hex flags, `l` 64-bit, `i` int.
fn trace_kind(name: &str, ty: &CType) -> char {
    match ty {
        CType::Pointer { cstring: true, pointee } if pointee.starts_with("const") => 's',
        CType::Pointer { .. } | CType::FuncPtr { .. } => 'p',
        CType::Int { bits: 64, .. } => 'l',
        CType::Int { name: t, .. } if t == "mode_t" => 'o',
        _ if matches!(name, "fd" | "newfd") => 'f',
        _ if matches!(name, "oflag" | "prot" | "flags") => 'x',
        _ => 'i',
    }
}

/// Trace letter of an IRT result: `e` errno, `b` bytes (query), `p`
/// pointer, `n` none.
fn result_kind(f: &Function) -> char {
    match &f.ret {
        CType::Void => 'n',
        CType::Pointer { .. } => 'p',
        _ if f.name == "query" => 'b',
        _ => 'e',
    }
}

fn letters(kinds: &[super::ValKind]) -> String {
    kinds.iter().map(|k| k.letter()).collect()
}

fn js_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn function_entry(out: &mut String, f: &Function, index: usize) {
    let l = f.lower();
    let _ = write!(
        out,
        "  {{ index: {index}, key: {}, name: {}, params: '{}', results: '{}', sret: {}",
        js_string(&f.key),
        js_string(&f.name),
        letters(&l.params),
        letters(&l.results),
        l.sret,
    );
    if f.family == Family::Irt {
        let trace: String = f.params.iter().map(|p| trace_kind(&p.name, &p.ty)).collect();
        let _ = write!(out, ", trace: '{trace}', result: '{}'", result_kind(f));
    }
    let _ = writeln!(out, ", decl: {} }},", js_string(&f.decl));
}

/// The generated module's text.
pub fn module(abi: &Abi) -> String {
    let mut out = String::new();
    out.push_str(
        "// GENERATED from src/abi/irt.h and src/abi/ppapi.h by `BLESS=1 cargo test --test all abi::`.\n\
         // Do not edit: change the declarations and re-bless (tests/abi.rs fails on drift).\n\
         //\n\
         // Value kinds: i i32, l i64, f f32, d f64. `params` is the pexe (PNaCl)\n\
         // calling convention: a struct passed by value is a pointer (i) to a\n\
         // caller-owned copy; `sret` means params[0] points to the struct result.\n\n",
    );
    for (title, family, doc) in [
        ("IRT_FUNCTIONS", Family::Irt, "IRT functions in import order: `irt.<name>`, table element 1 + index."),
        (
            "PPB_FUNCTIONS",
            Family::Ppb,
            "PPB functions in import order (Pepper modules only): `ppapi.<key>`, table element 1 + IRT_FUNCTIONS.length + index.",
        ),
        ("PPP_FUNCTIONS", Family::Ppp, "Plugin functions the runtime calls through pointers the pexe gives it."),
    ] {
        let _ = writeln!(out, "/** {doc} */\nexport const {title} = Object.freeze([");
        for (i, f) in abi.functions.iter().filter(|f| f.family == family).enumerate() {
            function_entry(&mut out, f, i);
        }
        out.push_str("].map(Object.freeze));\n\n");
    }
    for (title, family, doc) in [
        ("IRT_INTERFACES", Family::Irt, "IRT interface → its functions' names, in table order."),
        ("PPB_INTERFACES", Family::Ppb, "Pepper browser interface → its functions' keys, in vtable order."),
        ("PPP_INTERFACES", Family::Ppp, "Plugin interface (or `@` group) → its functions' keys, in vtable order."),
    ] {
        let _ = writeln!(out, "/** {doc} */\nexport const {title} = Object.freeze({{");
        // `@` groups (`@query`, `@browser`) are functions, not interfaces a
        // lookup answers; PPP groups are listed (the runtime calls them).
        let listed = |i: &&super::Interface| i.family == family && (family == Family::Ppp || !i.name.starts_with('@'));
        for iface in abi.interfaces.iter().filter(listed) {
            let keys: Vec<String> = iface.functions.iter().map(|&i| js_string(&abi.functions[i].key)).collect();
            let _ = writeln!(out, "  {}: Object.freeze([{}]),", js_string(&iface.name), keys.join(", "));
        }
        out.push_str("});\n\n");
    }
    out.push_str("/** Where the runtime offers each browser interface: 'everywhere', 'page' (needs a page) or 'nowhere'. */\n");
    out.push_str("export const PPB_AVAILABILITY = Object.freeze({\n");
    for iface in abi.interfaces.iter().filter(|i| i.family == Family::Ppb && !i.name.starts_with('@')) {
        let _ = writeln!(out, "  {}: '{}',", js_string(&iface.name), iface.availability.as_str());
    }
    out.push_str("});\n\n");
    let _ = writeln!(out, "/** The interface string that makes a pexe a Pepper plugin. */");
    let _ = writeln!(out, "export const PPAPI_HOOK = {};", js_string(super::PPAPI_HOOK));
    out
}
