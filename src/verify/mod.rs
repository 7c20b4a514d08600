//! The PNaCl ABI verifier: checks a decoded module and its function bodies
//! against the PNaCl bitcode reference (the ABI), the constraints of each
//! record in "Contents of PNaCl bitcode files", and the rules of
//! pnacl-abicheck, whose message texts it reuses where one exists.
//!
//! The verifier never stops at the first problem: every check runs and each
//! problem becomes a [`Diagnostic`] carrying the bit position of the record
//! at fault (a function declaration, global variable, constant or
//! instruction; `0:0` for problems of the module as a whole). Back ends take
//! a [`Verified`] module, which only [`verify`] hands out, so unverified IR
//! cannot reach them.
//!
//! Bodies are checked one at a time ([`verify_function`], or a reused
//! [`FunctionVerifier`]); [`verify_bytes`] decodes and checks a whole pexe
//! while keeping only one body in memory.
//!
//! ```no_run
//! let bytes = std::fs::read("app.pexe").unwrap();
//! for d in pexe::verify::verify_bytes(&bytes) {
//!     eprintln!("app.pexe:{d}");
//! }
//! ```
//!
//! # Rules checked
//!
//! **Module** (`module.rs`)
//! - The module version is 1.
//! - Exactly one entry point: an external function named `_start`
//!   ("Module has no entry point (disallowed)", "… multiple entry points …").
//! - Only `_start` and intrinsics may be external
//!   ("<name> is not a valid external symbol (disallowed)"); linkage is
//!   external or internal; calling convention is 0 (C).
//! - A prototype (no body) must be an allowed intrinsic ("Function <name> is
//!   declared but not defined (disallowed)"); a function named `llvm.*` must
//!   be an allowed intrinsic declared with its exact overload ("Function
//!   <name> is a disallowed LLVM intrinsic"), external, and not defined.
//! - Every other function type has no varargs and only parameters and
//!   returns of i32, i64, float, double or an allowed vector ("Function
//!   <name> has disallowed type: <type>"); the declared type id names that
//!   signature.
//! - Globals: alignment is 0 or a power of 2; an initializer exists; a
//!   compound initializer has more than one element; relocations name an
//!   existing function or global (not an intrinsic) with a 32-bit addend;
//!   all globals fit in the 32-bit address space.
//!
//! **Function structure** (`function.rs`, `cfg.rs`)
//! - The body belongs to a defined function; parameters match its
//!   signature; value numbering (`first_local`, results) is consistent.
//! - Blocks tile the instruction list; each block is non-empty and ends
//!   with its only terminator. A body with no blocks and no instructions (an
//!   empty function block) is accepted, as the reference interpreter does
//!   (corpus `regression/3.pexe`); back ends must expect it.
//! - Branch targets exist and are never the entry block; phis come first in
//!   their block, have at least one entry, one incoming block per
//!   predecessor (identical duplicate entries are merged as LLVM does; one
//!   block with two different values is an error) and no other blocks.
//! - Every operand names a defined value; no instruction but a phi uses its
//!   own result; definitions dominate their uses (a phi operand must
//!   dominate the end of its incoming block). Uses in unreachable blocks are
//!   exempt, as in LLVM.
//! - Forward type declarations name instruction results of the declared
//!   type; symbol-table entries name existing values and blocks.
//!
//! **Constants**: an allowed type; integers fit their width, floats their
//!   format; vector constants are only `undef`.
//!
//! **Instructions** (`function.rs`), with pnacl-abicheck's reasons
//! ("Function <name> disallowed: <reason>")
//! - Every type named or produced is an allowed type; the recorded result
//!   type is the one the instruction produces.
//! - Binary operators: operands of one type; integer ops on integers, float
//!   ops on floats; no i1 arithmetic except and/or/xor ("arithmetic on
//!   i1"); no nuw/nsw/exact/fast-math flags.
//! - Casts: legal source/destination classes and widths per opcode, equal
//!   lane counts, bitcast only between equal bit sizes.
//! - Compares: operand types equal; icmp on integers (not i1), fcmp on
//!   floats.
//! - Select: condition i1, or a vector of i1 with the operands' lane count.
//! - extractelement/insertelement: a vector operand, the element type, and
//!   an i32 constant index in range ("non-constant vector insert/extract
//!   index", "out of range vector insert/extract index").
//! - alloca: i32 size, alignment 0 or a power of 2.
//! - load/store: an i32 pointer ("bad pointer"; in PNaCl records every i32
//!   is a normalized pointer), no i1 types, alignment 1 for integers, 1/4
//!   for float, 1/8 for double, the element size for vectors ("bad
//!   alignment").
//! - ret matches the function's return type; br conditions are i1; switch
//!   on an integer type other than i1 ("switch on i1"), case values that
//!   fit it and are distinct.
//! - Calls: calling convention 0; a direct callee is a function, the
//!   argument count and types match its signature, and so does the result;
//!   an indirect callee is an i32 and the call's type is a valid function
//!   type; intrinsics are only called directly, never used as values.
//!   (The record constraints also say an indirect callee is never a
//!   function address, but real pexes call functions through casts that
//!   way, so that one is not enforced.)
//! - Intrinsic calls: memcpy/memmove/memset alignment is the constant 1;
//!   atomic memory orders are constants other than relaxed/consume and fit
//!   the operation (a cmpxchg failure order is not release/acq_rel nor
//!   numerically stronger than the success order); the RMW operation is a
//!   constant 1..=6; is.lock.free's byte size is a constant 1, 2, 4 or 8.
//!
//! Not checked (not representable in PNaCl records, so the decoder cannot
//! produce them): attributes, sections, visibility, TLS, aliases, metadata,
//! inline assembly, volatile or atomic loads and stores, undef in global
//! initializers, pointer types and inttoptr/ptrtoint/bitcast of pointers
//! (all implicit in i32), and GEP/vaarg/invoke and the other banned opcodes.
//!
//! # Cost
//!
//! Linear in the size of each body apart from the dominators (near-linear;
//! see `crate::cfg`) and sorting switch cases and phi entries. Nothing is
//! allocated per instruction; [`FunctionVerifier`] keeps its buffers between
//! bodies.

mod function;
mod intrinsics;
mod module;
mod types;

#[cfg(test)]
mod tests;

pub use function::{FunctionAnalysis, FunctionVerifier};
pub use intrinsics::{Intrinsic, MemoryOrder, OrderUse, RmwOp};
pub use types::{is_valid_function_type, is_valid_memory_type, is_valid_param_type, is_valid_value_type};

use crate::ir::{BlockId, FuncId, Function, InstId, Module};
use crate::BitPos;
use std::fmt;

/// One problem found by the verifier. See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Position of the offending record (`0:0` for whole-module problems).
    pub pos: BitPos,
    pub message: String,
    pub function: Option<FuncId>,
    pub function_name: Option<String>,
    pub block: Option<BlockId>,
    pub inst: Option<InstId>,
}

impl Diagnostic {
    pub(crate) fn module(pos: BitPos, message: String) -> Self {
        Diagnostic { pos, message, function: None, function_name: None, block: None, inst: None }
    }

    /// A diagnostic about function `id`'s declaration.
    pub(crate) fn for_decl(m: &Module, id: FuncId, pos: BitPos, message: String) -> Self {
        let function_name = m.functions.get(id.0 as usize).and_then(|d| d.name.as_deref()).map(lossy);
        Diagnostic { pos, message, function: Some(id), function_name, block: None, inst: None }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.pos, self.message)?;
        let mut sep = " (in ";
        if let Some(id) = self.function {
            write!(f, "{sep}function @f{}", id.0)?;
            if let Some(name) = &self.function_name {
                write!(f, " {name:?}")?;
            }
            sep = ", ";
        }
        if let Some(b) = self.block {
            write!(f, "{sep}block %b{}", b.0)?;
            sep = ", ";
        }
        if let Some(i) = self.inst {
            write!(f, "{sep}instruction {}", i.0)?;
            sep = ", ";
        }
        if sep == ", " {
            f.write_str(")")?;
        }
        Ok(())
    }
}

fn lossy(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

/// How messages name function `id`: its symbol name, or `@fN`.
pub(crate) fn function_label(m: &Module, id: FuncId) -> String {
    match m.functions.get(id.0 as usize).and_then(|d| d.name.as_deref()) {
        Some(n) => lossy(n),
        None => format!("@f{}", id.0),
    }
}

/// How messages name global `index`: its symbol name, or `@gN`.
pub(crate) fn global_label(m: &Module, index: u32) -> String {
    match m.globals.get(index as usize).and_then(|g| g.name.as_deref()) {
        Some(n) => lossy(n),
        None => format!("@g{index}"),
    }
}

/// Checks the module-level rules (declarations, globals, entry point).
pub fn verify_module(m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    module::check_module(m, &mut out);
    out
}

/// Checks one function body of `m`.
pub fn verify_function(m: &Module, f: &Function) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    FunctionVerifier::new().verify(m, f, &mut out);
    out
}

/// Decodes and verifies a whole pexe. Each body is checked as soon as it is
/// decoded and then dropped. A decode error becomes one diagnostic (decoding
/// stops there; bodies checked before it keep their diagnostics). The result
/// is in file order.
pub fn verify_bytes(bytes: &[u8]) -> Vec<Diagnostic> {
    crate::back::Pipeline::<crate::back::NoBackend>::whole(bytes, ()).finish().diagnostics
}

/// A module that passed [`verify`]. Back ends take this, so unverified IR
/// cannot reach them.
#[derive(Clone, Copy, Debug)]
pub struct Verified<'m> {
    module: &'m Module,
}

impl<'m> Verified<'m> {
    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// A module the caller has just checked with [`verify_module`] and
    /// found clean (the push pipeline checks once, not per body).
    pub(crate) fn checked(module: &'m Module) -> Self {
        Verified { module }
    }
}

/// Module-level verification; function bodies are checked with
/// [`verify_function`] as they are decoded.
pub fn verify(m: &Module) -> Result<Verified<'_>, Vec<Diagnostic>> {
    let diagnostics = verify_module(m);
    if diagnostics.is_empty() {
        Ok(Verified { module: m })
    } else {
        Err(diagnostics)
    }
}
