//! Module-level rules: function declarations (linkage, calling convention,
//! types, intrinsics, the entry point) and global variables.

use super::intrinsics::Intrinsic;
use super::types::{is_valid_function_type, is_valid_object_alignment};
use super::{function_label, global_label, Diagnostic};
use crate::ir::{FuncId, FunctionDecl, Initializer, Linkage, Module, Type};
use crate::BitPos;

/// The only symbol a pexe may export.
pub const ENTRY_POINT: &[u8] = b"_start";

/// Whether `decl` declares an LLVM intrinsic (by its name, as LLVM decides).
#[inline]
pub fn is_intrinsic_name(decl: &FunctionDecl) -> bool {
    decl.name.as_deref().is_some_and(|n| n.starts_with(b"llvm."))
}

/// LLVM's name for a calling convention code, as pnacl-abicheck prints it.
fn calling_conv_name(cc: u64) -> &'static str {
    match cc {
        0 => "ccc",
        8 => "fastcc",
        9 => "cold",
        _ => "unknown",
    }
}

/// LLVM's name for a bitcode linkage code.
fn linkage_name(l: Linkage) -> &'static str {
    match l.code() {
        0 | 5 | 6 => "external",
        1 => "weak",
        2 => "appending",
        3 => "internal",
        4 => "linkonce",
        7 => "extern_weak",
        8 => "common",
        9 | 13 | 14 => "private",
        10 => "weak_odr",
        11 | 15 => "linkonce_odr",
        12 => "available_externally",
        _ => "unknown",
    }
}

/// A name for messages, made only when a message is.
struct Label<F>(F);

impl<F: Fn() -> String> std::fmt::Display for Label<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&(self.0)())
    }
}

pub(super) fn check_module(m: &Module, out: &mut Vec<Diagnostic>) {
    if m.version != 1 {
        out.push(Diagnostic::module(
            BitPos::default(),
            format!("module version {} (only version 1 is defined)", m.version),
        ));
    }
    let mut entry_points = 0usize;
    for (i, decl) in m.functions.iter().enumerate() {
        let id = FuncId(i as u32);
        check_function_decl(m, id, decl, out);
        if decl.linkage == Linkage::External && decl.name.as_deref() == Some(ENTRY_POINT) {
            entry_points += 1;
        }
    }
    match entry_points {
        0 => out.push(Diagnostic::module(BitPos::default(), "Module has no entry point (disallowed)".into())),
        1 => {}
        _ => out.push(Diagnostic::module(BitPos::default(), "Module has multiple entry points (disallowed)".into())),
    }
    check_globals(m, out);
}

fn check_function_decl(m: &Module, id: FuncId, decl: &FunctionDecl, out: &mut Vec<Diagnostic>) {
    // Formatted only into messages: most declarations have none.
    let name = Label(|| function_label(m, id));
    let mut report = |message: String| out.push(Diagnostic::for_decl(m, id, decl.pos, message));

    // The declared type id must name the signature the decoder resolved.
    match m.types.get(decl.ty.0 as usize) {
        Some(Type::Function(sig)) if *sig == decl.sig => {}
        Some(_) => report(format!("Function {name} has type @t{} which is not its signature {}", decl.ty.0, decl.sig)),
        None => report(format!("Function {name} has undefined type @t{}", decl.ty.0)),
    }
    if decl.cc != 0 {
        report(format!(
            "Function {name} has disallowed calling convention: {} ({})",
            calling_conv_name(decl.cc),
            decl.cc
        ));
    }
    if let Linkage::Other(_) = decl.linkage {
        report(format!("Function {name} has disallowed linkage type: {}", linkage_name(decl.linkage)));
    }

    if is_intrinsic_name(decl) {
        // Intrinsics are external prototypes of one exact overload; the
        // ordinary parameter-type rules do not apply to them.
        if !decl.is_proto {
            report(format!("Function {name} is an LLVM intrinsic and cannot be defined (disallowed)"));
        }
        if decl.linkage == Linkage::Internal {
            report(format!("Function {name} is an LLVM intrinsic with internal linkage (disallowed)"));
        }
        match decl.name.as_deref().and_then(Intrinsic::lookup) {
            None => report(format!("Function {name} is a disallowed LLVM intrinsic")),
            Some(intrinsic) => {
                let allowed = intrinsic.signature();
                if *decl.sig != allowed {
                    report(format!(
                        "Function {name} is a disallowed LLVM intrinsic (type {} is not the allowed {allowed})",
                        decl.sig
                    ));
                }
            }
        }
        return;
    }

    if !is_valid_function_type(&decl.sig) {
        report(format!("Function {name} has disallowed type: {}", decl.sig));
    }
    if decl.is_proto {
        report(format!("Function {name} is declared but not defined (disallowed)"));
    }
    if decl.linkage == Linkage::External && decl.name.as_deref() != Some(ENTRY_POINT) {
        report(format!("{name} is not a valid external symbol (disallowed)"));
    }
}

fn check_globals(m: &Module, out: &mut Vec<Diagnostic>) {
    let n_values = m.num_global_values() as u64;
    let mut total_size: u64 = 0;
    for (i, g) in m.globals.iter().enumerate() {
        let name = Label(|| global_label(m, i as u32));
        let mut report = |message: String| out.push(Diagnostic::module(g.pos, message));
        if !is_valid_object_alignment(g.align) {
            report(format!("Global variable {name} has disallowed alignment: {} (not a power of 2)", g.align));
        }
        if g.init.is_empty() {
            report(format!("Global variable {name} has no initializer (disallowed)"));
        } else if g.compound && g.init.len() < 2 {
            // A compound initializer is a packed struct of more than one
            // simple element; one element must be written as itself.
            report(format!(
                "Global variable {name} has non-flattened initializer (disallowed): compound of {} element",
                g.init.len()
            ));
        } else if !g.compound && g.init.len() > 1 {
            report(format!(
                "Global variable {name} has non-flattened initializer (disallowed): {} elements without a compound record",
                g.init.len()
            ));
        }
        for init in &g.init {
            if let Initializer::Reloc { target, addend } = *init {
                if u64::from(target.0) >= n_values {
                    report(format!(
                        "Global variable {name} has a relocation to undefined value {} (only {n_values} functions and globals)",
                        target.0
                    ));
                } else if let Some(f) = m.func_of(target) {
                    let decl = m.function(f);
                    if is_intrinsic_name(decl) {
                        report(format!(
                            "Global variable {name} takes the address of LLVM intrinsic {} (disallowed)",
                            decl.name_str()
                        ));
                    }
                }
                if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&addend) {
                    report(format!("Global variable {name} has relocation addend {addend}, which is not 32-bit"));
                }
            }
        }
        total_size = total_size.saturating_add(g.size());
    }
    if total_size > u64::from(u32::MAX) {
        let pos = m.globals.last().map_or(BitPos::default(), |g| g.pos);
        out.push(Diagnostic::module(
            pos,
            format!("global variables take {total_size} bytes, more than the 32-bit address space"),
        ));
    }
}
