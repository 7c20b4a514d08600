//! The list as the build script leaves it: [`encode`] writes a parsed
//! [`Abi`] as plain text (build.rs, at build time), [`decode`] reads it
//! back (the library, at first use). Reading the table takes no parsing of
//! C, no hashing and no checks: the build already did them, and a build
//! whose declarations do not parse fails.
//!
//! One record a line, fields separated by tabs:
//!
//! ```text
//! f FAMILY KEY NAME [DECL] RET [PARAM-NAME PARAM-TYPE]…  a function
//! n FAMILY AVAILABILITY NAME [FUNCTION-INDEX]…           an interface
//! ```
//!
//! Families are `i`, `b`, `p` (IRT, PPB, PPP); availabilities `e`, `g`,
//! `x` (everywhere, page, nowhere). A type is a tag and its fields:
//! `v`, `i{s|u}BITS:NAME`, `fNAME`, `dNAME`, `p{c|n}POINTEE`, `FNAME`,
//! `SNAME`. The IRT's functions and interfaces come first, so the IRT part
//! alone is the table up to the first other record. DECL is empty when the
//! declaration is as [`Function::spelled`] spells it (most are).

use super::ctype::CType;
use super::{Abi, Availability, Family, Function, Interface, Param};

/// `abi` as table text. Panics on a field holding a tab or a line break
/// (no declaration line can: lines are split on breaks, and the build
/// checks for tabs here).
pub(crate) fn encode(abi: &Abi) -> String {
    let mut out = String::new();
    let irt = |family: Family| family == Family::Irt;
    for first in [true, false] {
        for f in abi.functions.iter().filter(|f| irt(f.family) == first) {
            let mut fields = vec!["f".to_string(), family(f.family).into(), f.key.clone(), f.name.clone()];
            let decl = if f.decl == f.spelled() { String::new() } else { f.decl.clone() };
            fields.extend([decl, ctype(&f.ret)]);
            for p in &f.params {
                fields.extend([p.name.clone(), ctype(&p.ty)]);
            }
            line(&mut out, &fields);
        }
        for i in abi.interfaces.iter().filter(|i| irt(i.family) == first) {
            let mut fields = vec!["n".to_string(), family(i.family).into(), availability(i.availability).into()];
            fields.push(i.name.clone());
            fields.extend(i.functions.iter().map(usize::to_string));
            line(&mut out, &fields);
        }
    }
    out
}

fn line(out: &mut String, fields: &[String]) {
    for (k, field) in fields.iter().enumerate() {
        assert!(!field.contains(['\t', '\n']), "src/abi: {field:?} holds a tab or a line break");
        if k > 0 {
            out.push('\t');
        }
        out.push_str(field);
    }
    out.push('\n');
}

fn family(f: Family) -> &'static str {
    match f {
        Family::Irt => "i",
        Family::Ppb => "b",
        Family::Ppp => "p",
    }
}

fn availability(a: Availability) -> &'static str {
    match a {
        Availability::Everywhere => "e",
        Availability::Page => "g",
        Availability::Nowhere => "x",
    }
}

fn ctype(t: &CType) -> String {
    match t {
        CType::Void => "v".into(),
        CType::Int { bits, signed, name } => format!("i{}{bits}:{name}", if *signed { 's' } else { 'u' }),
        CType::Float { name } => format!("f{name}"),
        CType::Double { name } => format!("d{name}"),
        CType::Pointer { pointee, cstring } => format!("p{}{pointee}", if *cstring { 'c' } else { 'n' }),
        CType::FuncPtr { name } => format!("F{name}"),
        CType::Struct(name) => format!("S{name}"),
    }
}

/// The list [`encode`] wrote. The text is the build's own, so a malformed
/// record is a bug (it panics).
pub(crate) fn decode(table: &str) -> Abi {
    let mut abi = Abi { functions: Vec::new(), interfaces: Vec::new() };
    for record in table.lines() {
        let mut fields = record.split('\t');
        let mut next = || fields.next().expect("src/abi table: a record lacks a field");
        let kind = next();
        let family = match next() {
            "i" => Family::Irt,
            "b" => Family::Ppb,
            "p" => Family::Ppp,
            other => panic!("src/abi table: family {other:?}"),
        };
        match kind {
            "f" => {
                let key = next().to_string();
                let name = next().to_string();
                let decl = next().to_string();
                let ret = parse_ctype(next());
                let mut params = Vec::new();
                while let Some(name) = fields.next() {
                    let ty = parse_ctype(fields.next().expect("src/abi table: a parameter lacks its type"));
                    params.push(Param { name: name.to_string(), ty });
                }
                let mut f = Function { key, name, family, ret, params, decl };
                if f.decl.is_empty() {
                    f.decl = f.spelled();
                }
                abi.functions.push(f);
            }
            "n" => {
                let availability = match next() {
                    "e" => Availability::Everywhere,
                    "g" => Availability::Page,
                    "x" => Availability::Nowhere,
                    other => panic!("src/abi table: availability {other:?}"),
                };
                let name = next().to_string();
                let functions = fields.map(|i| i.parse().expect("src/abi table: a function index")).collect();
                abi.interfaces.push(Interface { name, family, functions, availability });
            }
            other => panic!("src/abi table: record kind {other:?}"),
        }
    }
    abi
}

fn parse_ctype(field: &str) -> CType {
    let (tag, rest) = field.split_at(1);
    match tag {
        "v" => CType::Void,
        "i" => {
            let signed = rest.starts_with('s');
            let (bits, name) = rest[1..].split_once(':').expect("src/abi table: `i{s|u}BITS:NAME`");
            CType::Int { bits: bits.parse().expect("src/abi table: bits"), signed, name: name.to_string() }
        }
        "f" => CType::Float { name: rest.to_string() },
        "d" => CType::Double { name: rest.to_string() },
        "p" => CType::Pointer { cstring: rest.starts_with('c'), pointee: rest[1..].to_string() },
        "F" => CType::FuncPtr { name: rest.to_string() },
        "S" => CType::Struct(rest.to_string()),
        other => panic!("src/abi table: type tag {other:?}"),
    }
}
