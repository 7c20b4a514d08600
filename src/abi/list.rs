//! The list's types: functions, interfaces and the whole [`Abi`].
//!
//! Kept apart from `mod.rs` so the build script can include them with the
//! parser (`ctype.rs`, `parse.rs`, `table.rs`): it reads the declarations
//! at build time and the library decodes its table (see [`super::abi`]).
//! These files use nothing of the crate outside `src/abi/`.

use super::ctype::{CType, ValKind};
use super::parse::{self, ParseError};

/// Which list a function or interface belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// `nacl-irt-*` and the query function: served by the runtime.
    Irt,
    /// `PPB_*`: browser interfaces, served by the runtime.
    Ppb,
    /// `PPP_*` and the `@` groups: plugin functions the runtime calls.
    Ppp,
}

impl Family {
    /// Who implements functions of this family.
    pub fn served_by(self) -> Side {
        match self {
            Family::Irt | Family::Ppb => Side::Runtime,
            Family::Ppp => Side::Plugin,
        }
    }
}

/// Who implements a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The runtime (JavaScript in the page or Node, the native runtime).
    Runtime,
    /// The pexe.
    Plugin,
}

/// One parameter of a declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: CType,
}

/// One function (deduplicated across interface versions).
#[derive(Clone, Debug)]
pub struct Function {
    /// Unique name: `exit` (IRT), `PPB_Var;1.0:AddRef` (PPB, PPP).
    pub key: String,
    /// The C member name (`AddRef`).
    pub name: String,
    pub family: Family,
    /// The C result type.
    pub ret: CType,
    pub params: Vec<Param>,
    /// The declaration as written (one line).
    pub decl: String,
}

/// A function under a calling convention: value kinds in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    /// Parameters, the sret pointer first when there is one.
    pub params: Vec<ValKind>,
    /// At most one result.
    pub results: Vec<ValKind>,
    /// Whether `params[0]` is a pointer to the struct result.
    pub sret: bool,
}

impl Function {
    /// The pexe (PNaCl le32) form of this function: what the pexe's
    /// `call` instructions pass and expect.
    pub fn lower(&self) -> Lowered {
        let mut params = Vec::with_capacity(self.params.len() + 1);
        let mut results = Vec::new();
        let sret = matches!(self.ret, CType::Struct(_));
        if sret {
            params.push(ValKind::I32);
        } else if let Some(k) = self.ret.val_kind() {
            results.push(k);
        }
        for p in &self.params {
            // A by-value struct travels as a pointer to a copy.
            params.push(p.ty.val_kind().unwrap_or(ValKind::I32));
        }
        Lowered { params, results, sret }
    }

    /// The declaration as its parts spell it: `RET NAME(TYPE NAME, …)`,
    /// `RET NAME(void)` without parameters. All but a few declarations are
    /// written so (not those with arrays or `const` values), and the table
    /// keeps only those others' text (the rest was 5 KB of the package's
    /// translator module, gzipped, that no translation reads).
    pub(crate) fn spelled(&self) -> String {
        use std::fmt::Write;
        let mut s = format!("{} {}(", self.ret, self.name);
        for (k, p) in self.params.iter().enumerate() {
            let _ = write!(s, "{}{} {}", if k > 0 { ", " } else { "" }, p.ty, p.name);
        }
        if self.params.is_empty() {
            s.push_str("void");
        }
        s.push(')');
        s
    }
}

/// Where the runtime offers a browser interface (`ppapi.h` annotations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Availability {
    /// In Node and in pages.
    Everywhere,
    /// Only in a page: it needs a surface, an audio player, the page's APIs.
    Page,
    /// Not implemented: get_interface answers NULL.
    Nowhere,
}

impl Availability {
    /// `everywhere`, `page` or `nowhere`.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Everywhere => "everywhere",
            Availability::Page => "page",
            Availability::Nowhere => "nowhere",
        }
    }
}

/// One interface: a name and its functions in table order.
#[derive(Clone, Debug)]
pub struct Interface {
    /// The string a pexe asks for (`PPB_Var;1.1`), or `@group`.
    pub name: String,
    pub family: Family,
    /// Indices into [`Abi::functions`], in vtable order.
    pub functions: Vec<usize>,
    /// Where the runtime offers it (IRT and plugin interfaces: everywhere).
    pub availability: Availability,
}

/// The whole list.
#[derive(Debug)]
pub struct Abi {
    /// Every function once, IRT first, in import order.
    pub functions: Vec<Function>,
    /// Every interface, in file order.
    pub interfaces: Vec<Interface>,
}

impl Abi {
    /// Parses declaration sources (IRT first, then Pepper).
    pub fn parse(irt: &str, ppapi: &str) -> Result<Abi, ParseError> {
        parse::parse(&[("irt.h", irt), ("ppapi.h", ppapi)])
    }

    /// The IRT functions, in import order (`irt.<name>`; table element
    /// `1 + k` in the wasm ABI).
    pub fn irt_imports(&self) -> impl Iterator<Item = &Function> + '_ {
        self.functions.iter().filter(|f| f.family == Family::Irt)
    }

    /// The PPB functions, in import order (`ppapi.<key>`).
    pub fn ppb_imports(&self) -> impl Iterator<Item = &Function> + '_ {
        self.functions.iter().filter(|f| f.family == Family::Ppb)
    }

    /// The interface called `name`.
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
    }

    /// The function with key `key`.
    pub fn function(&self, key: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.key == key)
    }
}
