//! The functions a translated module imports, read straight from the
//! table (`table.rs`) without building the [`Abi`](super::Abi): what every
//! translator needs of the list, each Worker of a page's pool included.
//! Decoding the whole list for it took a quarter of a Worker's start-up
//! on a Pepper plugin; this reads the table's bytes a vector at a time
//! (memchr) and allocates nothing per function.

use super::{Family, ValKind};

/// The IRT functions, then (for a Pepper plugin) the PPB functions, in
/// import order.
#[derive(Debug)]
pub struct Imports {
    pub functions: Vec<Import>,
    /// The lowered parameters of every function, end to end.
    params: Vec<ValKind>,
}

/// One imported function (see [`Imports`]).
#[derive(Clone, Copy, Debug)]
pub struct Import {
    /// [`Function::key`](super::Function::key), a slice of the table.
    pub key: &'static str,
    /// [`Function::name`](super::Function::name).
    pub name: &'static str,
    pub family: Family,
    /// Where its lowered parameters lie in [`Imports`]' run of them.
    params: (u32, u32),
    /// Its lowered result, if any.
    pub result: Option<ValKind>,
}

impl Imports {
    /// `f`'s parameters as [`Function::lower`](super::Function::lower)
    /// gives them (the sret pointer first when there is one).
    pub fn params(&self, f: &Import) -> &[ValKind] {
        &self.params[f.params.0 as usize..f.params.1 as usize]
    }
}

/// The IRT functions of `table` (as `table::encode` wrote it), then with
/// `pepper` the PPB functions. The table is the build's own, so a
/// malformed record is a bug (it panics).
pub(super) fn decode(table: &'static str, pepper: bool) -> Imports {
    let mut imports = Imports { functions: Vec::new(), params: Vec::new() };
    let mut rest = table;
    while !rest.is_empty() {
        let end = memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len());
        let record = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or("");
        let family = match record.as_bytes().get(2) {
            Some(b'i') => Family::Irt,
            Some(b'b') if pepper => Family::Ppb,
            // The IRT's records come first: the rest is not needed.
            _ if !pepper => break,
            _ => continue,
        };
        if !record.starts_with("f\t") {
            continue;
        }
        let mut fields = Fields(&record[4..]);
        let (key, name, _decl, ret) = (fields.next(), fields.next(), fields.next(), fields.next());
        let start = imports.params.len() as u32;
        let result = if ret.starts_with('S') {
            // A struct result comes back through a pointer passed first.
            imports.params.push(ValKind::I32);
            None
        } else {
            kind(ret)
        };
        // Parameter names and types alternate; a by-value struct travels
        // as a pointer to a copy.
        while !fields.0.is_empty() {
            fields.next();
            imports.params.push(kind(fields.next()).unwrap_or(ValKind::I32));
        }
        let params = (start, imports.params.len() as u32);
        imports.functions.push(Import { key, name, family, params, result });
    }
    imports
}

/// A record's tab-separated fields.
struct Fields(&'static str);

impl Fields {
    fn next(&mut self) -> &'static str {
        let s = self.0;
        let end = memchr::memchr(b'\t', s.as_bytes()).unwrap_or(s.len());
        self.0 = s.get(end + 1..).unwrap_or("");
        &s[..end]
    }
}

/// [`CType::val_kind`](super::CType::val_kind) of a type field, without
/// decoding the type.
fn kind(field: &str) -> Option<ValKind> {
    match field.as_bytes().first() {
        Some(b'i') if field.get(2..).is_some_and(|bits| bits.starts_with("64:")) => Some(ValKind::I64),
        Some(b'i' | b'p' | b'F') => Some(ValKind::I32),
        Some(b'f') => Some(ValKind::F32),
        Some(b'd') => Some(ValKind::F64),
        Some(b'v' | b'S') => None,
        _ => panic!("src/abi table: type {field:?}"),
    }
}
