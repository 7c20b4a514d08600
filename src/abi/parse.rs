//! Reads the declaration files (`irt.h`, `ppapi.h`): `interface NAME`
//! lines, each followed by one C prototype per line.

use super::ctype::{named, CType, Named};
use super::{Abi, Availability, Family, Function, Interface, Param};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// A line of a declaration file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub file: &'static str,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The group whose members declare function-pointer typedefs.
const CALLBACKS: &str = "@callbacks";
/// The group of browser functions that belong to no interface (the
/// lookup function handed to PPP_InitializeModule).
pub(crate) const BROWSER: &str = "@browser";

struct Line<'a> {
    file: &'static str,
    number: usize,
    text: &'a str,
}

pub(crate) fn parse(files: &[(&'static str, &str)]) -> Result<Abi, ParseError> {
    let lines: Vec<Line> = files
        .iter()
        .flat_map(|&(file, src)| {
            src.lines().enumerate().filter_map(move |(i, raw)| {
                let text = raw.split("//").next().unwrap_or("").trim();
                (!text.is_empty()).then_some(Line { file, number: i + 1, text })
            })
        })
        .collect();

    // Pass 1: the names `@callbacks` declares become function-pointer types.
    let mut callbacks = HashSet::new();
    let mut in_callbacks = false;
    for line in &lines {
        if let Some(rest) = line.text.strip_prefix("interface ") {
            in_callbacks = rest.split_whitespace().next() == Some(CALLBACKS);
        } else if in_callbacks {
            let (_, name, _) = split_decl(line)?;
            callbacks.insert(name.to_string());
        }
    }

    let mut abi = Abi { functions: Vec::new(), interfaces: Vec::new() };
    let mut by_name: HashMap<(String, String), usize> = HashMap::new();
    let mut seen_interfaces = HashSet::new();
    let mut current: Option<(Interface, HashSet<String>, usize, &'static str)> = None;

    let finish = |cur: Option<(Interface, HashSet<String>, usize, &'static str)>,
                  abi: &mut Abi|
     -> Result<(), ParseError> {
        if let Some((iface, _, line, file)) = cur {
            if iface.functions.is_empty() {
                return Err(ParseError { file, line, message: format!("interface {} has no members", iface.name) });
            }
            abi.interfaces.push(iface);
        }
        Ok(())
    };

    for line in &lines {
        let err = |message: String| ParseError { file: line.file, line: line.number, message };
        if let Some(rest) = line.text.strip_prefix("interface ") {
            let mut words = rest.split_whitespace();
            let name = words.next().unwrap_or("");
            let availability = match words.next() {
                None => Availability::Everywhere,
                Some("page") => Availability::Page,
                Some("nowhere") => Availability::Nowhere,
                Some(w) => return Err(err(format!("unknown availability {w:?} (page or nowhere)"))),
            };
            if name.is_empty() || words.next().is_some() {
                return Err(err(format!("bad interface line {rest:?}")));
            }
            if !seen_interfaces.insert(name.to_string()) {
                return Err(err(format!("interface {name} declared twice")));
            }
            let family = family_of(line.file, name).ok_or_else(|| err(format!("interface {name} in the wrong file")))?;
            if family != Family::Ppb && availability != Availability::Everywhere {
                return Err(err(format!("only browser interfaces have an availability ({name})")));
            }
            finish(current.take(), &mut abi)?;
            current = Some((
                Interface { name: name.to_string(), family, functions: Vec::new(), availability },
                HashSet::new(),
                line.number,
                line.file,
            ));
            continue;
        }
        let Some((iface, members, _, _)) = current.as_mut() else {
            return Err(err("declaration outside an interface".into()));
        };
        let (ret_text, name, params_text) = split_decl(line)?;
        if !members.insert(name.to_string()) {
            return Err(err(format!("{} declares {name} twice", iface.name)));
        }
        let ret = parse_type(ret_text, &callbacks).map_err(&err)?;
        let params = parse_params(params_text, &callbacks).map_err(&err)?;
        if iface.family == Family::Irt && matches!(ret, CType::Struct(_)) {
            return Err(err("IRT functions do not return structs".into()));
        }
        let base = match iface.family {
            Family::Irt => String::new(),
            _ => iface.name.split(';').next().unwrap_or(&iface.name).to_string(),
        };
        let decl = line.text.to_string();
        let lookup = (base, name.to_string());
        let index = match by_name.get(&lookup) {
            Some(&i) if same_signature(&abi.functions[i], &ret, &params) => i,
            Some(&i) if iface.family == Family::Irt => {
                return Err(err(format!("{name} differs from its declaration {:?}", abi.functions[i].decl)));
            }
            _ => {
                let key = match iface.family {
                    Family::Irt => name.to_string(),
                    _ => format!("{}:{}", iface.name, name),
                };
                abi.functions.push(Function {
                    key,
                    name: name.to_string(),
                    family: iface.family,
                    ret,
                    params,
                    decl,
                });
                let i = abi.functions.len() - 1;
                by_name.insert(lookup, i);
                i
            }
        };
        iface.functions.push(index);
    }
    finish(current.take(), &mut abi)?;
    // Import order: IRT, then PPB, then PPP (stable within each).
    let mut order: Vec<usize> = (0..abi.functions.len()).collect();
    order.sort_by_key(|&i| family_rank(abi.functions[i].family));
    let mut remap = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let mut functions: Vec<Option<Function>> = abi.functions.into_iter().map(Some).collect();
    abi.functions = order.iter().map(|&old| functions[old].take().expect("each once")).collect();
    for iface in &mut abi.interfaces {
        for f in &mut iface.functions {
            *f = remap[*f];
        }
    }
    Ok(abi)
}

fn family_rank(f: Family) -> u8 {
    match f {
        Family::Irt => 0,
        Family::Ppb => 1,
        Family::Ppp => 2,
    }
}

fn family_of(file: &str, name: &str) -> Option<Family> {
    match file {
        "irt.h" => (name.starts_with("nacl-irt-") || name == "@query").then_some(Family::Irt),
        _ if name.starts_with("PPB_") || name == BROWSER => Some(Family::Ppb),
        _ if name.starts_with("PPP_") || name.starts_with('@') => Some(Family::Ppp),
        _ => None,
    }
}

fn same_signature(f: &Function, ret: &CType, params: &[Param]) -> bool {
    f.ret == *ret && f.params.len() == params.len() && f.params.iter().zip(params).all(|(a, b)| a.ty == b.ty)
}

/// `RET NAME(PARAMS)` → (RET, NAME, PARAMS).
fn split_decl<'a>(line: &Line<'a>) -> Result<(&'a str, &'a str, &'a str), ParseError> {
    let err = |m: &str| ParseError { file: line.file, line: line.number, message: m.to_string() };
    let text = line.text;
    let open = text.find('(').ok_or_else(|| err("expected `RET NAME(PARAMS)`"))?;
    let params = text[open + 1..].strip_suffix(')').ok_or_else(|| err("a declaration ends with `)`"))?;
    if params.contains('(') || params.contains(')') {
        return Err(err("write function-pointer parameters with a typedef from @callbacks"));
    }
    let head = text[..open].trim_end();
    let name_start = head.rfind(|c: char| !is_ident_char(c)).map_or(0, |i| i + 1);
    let name = &head[name_start..];
    let ret = head[..name_start].trim();
    if name.is_empty() || ret.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(err("expected `RET NAME(PARAMS)`"));
    }
    Ok((ret, name, params.trim()))
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn parse_params(text: &str, callbacks: &HashSet<String>) -> Result<Vec<Param>, String> {
    if text == "void" || text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|p| {
            let mut p = p.trim().to_string();
            // `const char* argn[]` is a pointer.
            if let Some(stripped) = p.strip_suffix("[]") {
                p = stripped.trim_end().to_string();
                let at = p.rfind(|c: char| !is_ident_char(c)).map_or(0, |i| i + 1);
                p.insert(at, '*');
            }
            let at = p.rfind(|c: char| !is_ident_char(c)).map_or(0, |i| i + 1);
            let (ty, name) = p.split_at(at);
            if name.is_empty() || ty.trim().is_empty() {
                return Err(format!("parameter {p:?} needs a type and a name"));
            }
            Ok(Param { name: name.to_string(), ty: parse_type(ty, callbacks)? })
        })
        .collect()
}

/// A type's text (`const struct PP_Var*`, `uint32_t`, `GLvoid**`).
fn parse_type(text: &str, callbacks: &HashSet<String>) -> Result<CType, String> {
    let stars = text.matches('*').count();
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '*')
        .filter(|w| !w.is_empty() && *w != "const" && *w != "volatile")
        .collect();
    let pointee = text.trim().strip_suffix('*').map(|s| s.trim_end().to_string());
    let base = match words.as_slice() {
        ["struct" | "union", name] => CType::Struct((*name).to_string()),
        ["enum", _] => CType::Int { bits: 32, signed: true, name: words.join(" ") },
        ["void"] | ["GLvoid"] => CType::Void,
        [] => return Err(format!("no type in {text:?}")),
        words => {
            let name = words.join(" ");
            match named(canonical(&name)) {
                Some(Named::Int(bits, signed)) => CType::Int { bits, signed, name },
                Some(Named::Float) => CType::Float { name },
                Some(Named::Double) => CType::Double { name },
                Some(Named::FuncPtr) => CType::FuncPtr { name },
                None if callbacks.contains(&name) => CType::FuncPtr { name },
                None => return Err(format!("unknown type {name:?} (add it to src/abi/ctype.rs or @callbacks)")),
            }
        }
    };
    if stars == 0 {
        return Ok(base);
    }
    let cstring = stars == 1 && matches!(&base, CType::Int { bits: 8, name, .. } if name == "char" || name == "GLchar");
    Ok(CType::Pointer { pointee: pointee.unwrap_or_default(), cstring })
}

/// Multi-word builtin spellings → the one-word names `named` knows.
fn canonical(name: &str) -> &str {
    match name {
        "unsigned int" | "unsigned long" => "unsigned",
        "signed char" => "int8_t",
        "unsigned char" => "uint8_t",
        "unsigned short" => "uint16_t",
        "long long" => "int64_t",
        "unsigned long long" => "uint64_t",
        other => other,
    }
}
