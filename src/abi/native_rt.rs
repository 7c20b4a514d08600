//! The native runtime's copy of the IRT list: one generated Rust module
//! (`runtime/src/irt_gen.rs`) with the list, the interfaces `query`
//! answers, and the exported `__pexe_irt_<name>` functions the objects of
//! the native back end put in their function tables.
//!
//! Each exported function takes the thread context and the lowered pexe
//! arguments, and calls `crate::irt::<name>` with typed arguments (guest
//! pointers and unsigned C types as `u32`, signed ones as `i32`, 64-bit as
//! `i64`/`u64`), so an implementation whose signature drifts from the list
//! does not compile. `tests/abi.rs` compares [`module`] with the checked-in
//! file and rewrites it under `BLESS=1`.

use super::{Abi, CType, Family, ValKind};
use std::fmt::Write;

/// The Rust type an implementation receives for a C parameter.
fn rust_type(ty: &CType) -> &'static str {
    match ty {
        CType::Int { bits: 64, signed: true, .. } => "i64",
        CType::Int { bits: 64, signed: false, .. } => "u64",
        CType::Int { signed: true, .. } => "i32",
        CType::Int { signed: false, .. } => "u32",
        CType::Float { .. } => "f32",
        CType::Double { .. } => "f64",
        // Pointers (and by-value structs, which travel as pointers).
        CType::Pointer { .. } | CType::FuncPtr { .. } | CType::Struct(_) | CType::Void => "u32",
    }
}

/// The ABI type of a lowered value kind.
fn abi_type(k: ValKind) -> &'static str {
    match k {
        ValKind::I32 => "i32",
        ValKind::I64 => "i64",
        ValKind::F32 => "f32",
        ValKind::F64 => "f64",
    }
}

/// A parameter name that is not a Rust keyword.
fn ident(name: &str, i: usize) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
        "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super",
        "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "box", "try", "yield",
    ];
    if name.is_empty() {
        format!("a{i}")
    } else if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// The generated module's text.
pub fn module(abi: &Abi) -> String {
    let mut out = String::new();
    out.push_str(
        "// GENERATED from src/abi/irt.h by `BLESS=1 cargo test --test abi` (src/abi/native_rt.rs).\n\
         // Do not edit: change the declarations and re-bless (tests/abi.rs fails on drift).\n\n\
         use crate::ctx::Ctx;\n\n",
    );
    let irt: Vec<_> = abi.irt_imports().collect();
    let _ = writeln!(
        out,
        "/// The IRT functions in ABI order (table address 1 + index): name and\n\
         /// lowered kinds (`params>results`; i i32, l i64, f f32, d f64).\n\
         pub const IRT: [(&str, &str); {}] = [",
        irt.len()
    );
    for f in &irt {
        let l = f.lower();
        let p: String = l.params.iter().map(|k| k.letter()).collect();
        let r: String = l.results.iter().map(|k| k.letter()).collect();
        let _ = writeln!(out, "    ({:?}, \"{p}>{r}\"),", f.name);
    }
    out.push_str("];\n\n");

    out.push_str(
        "/// IRT interfaces and their functions (indices into [`IRT`]) in table order.\n\
         pub const INTERFACES: &[(&str, &[u16])] = &[\n",
    );
    for iface in abi.interfaces.iter().filter(|i| i.family == Family::Irt && !i.name.starts_with('@')) {
        let idx: Vec<String> = iface
            .functions
            .iter()
            .map(|&k| {
                let key = &abi.functions[k].key;
                irt.iter().position(|f| &f.key == key).map_or_else(|| "u16::MAX".into(), |p| p.to_string())
            })
            .collect();
        let _ = writeln!(out, "    ({:?}, &[{}]),", iface.name, idx.join(", "));
    }
    out.push_str("];\n\n");
    let _ = writeln!(
        out,
        "/// The interface only Pepper plugins are answered.\npub const PPAPI_HOOK: &str = {:?};\n",
        super::PPAPI_HOOK
    );

    for f in &irt {
        let l = f.lower();
        let _ = writeln!(
            out,
            "/// `{}`\n///\n/// # Safety\n/// Called by generated code with its thread's live context.",
            f.decl
        );
        let params: Vec<String> = f
            .params
            .iter()
            .zip(&l.params)
            .enumerate()
            .map(|(i, (p, &k))| format!("{}: {}", ident(&p.name, i), abi_type(k)))
            .collect();
        let ret = match l.results.first() {
            Some(&k) => format!(" -> {}", abi_type(k)),
            None => String::new(),
        };
        let args: Vec<String> = f
            .params
            .iter()
            .zip(&l.params)
            .enumerate()
            .map(|(i, (p, &k))| {
                let name = ident(&p.name, i);
                let want = rust_type(&p.ty);
                if want == abi_type(k) {
                    name
                } else {
                    format!("{name} as {want}")
                }
            })
            .collect();
        let call = format!("crate::irt::{}(ctx, {})", f.name, args.join(", "));
        let body = match (&f.ret, l.results.first()) {
            (_, None) => format!("{call};"),
            (ret, Some(&k)) if rust_type(ret) == abi_type(k) => call,
            (_, Some(&k)) => format!("{call} as {}", abi_type(k)),
        };
        let _ = writeln!(
            out,
            "#[no_mangle]\npub unsafe extern \"C\" fn __pexe_irt_{}(ctx: *mut Ctx, {}){ret} {{\n    // SAFETY: generated code passes its thread's live context.\n    let ctx = unsafe {{ &mut *ctx }};\n    {body}\n}}\n",
            f.name,
            params.join(", "),
        );
    }
    out
}
