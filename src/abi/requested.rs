//! Which interfaces a pexe asks for: the NUL-terminated interface names in
//! its global data (`nacl-irt-basic-0.1`, `PPB_Var;1.1`, `PPP_Instance;1.1`),
//! as libnacl and libppapi pass them to `query` and `get_interface`. What
//! an inspector shows before running anything.

use crate::ir::Module;
use std::collections::BTreeSet;

/// Longest interface name taken from global data; real ones are < 48.
const MAX_NAME: usize = 96;

/// The interface names a pexe contains, sorted, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requested {
    /// `nacl-irt-*`.
    pub irt: Vec<String>,
    /// `PPB_*;version`: browser interfaces.
    pub ppb: Vec<String>,
    /// `PPP_*;version`: plugin interfaces the pexe offers.
    pub ppp: Vec<String>,
}

/// The interfaces `m` asks for (or offers), read from its global data.
pub fn requested_interfaces(m: &Module) -> Requested {
    let (mut irt, mut ppb, mut ppp) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for g in &m.globals {
        for part in &g.init {
            let Some(data) = part.data(m) else { continue };
            for (start, end) in strings(data) {
                let s = &data[start..end];
                let Ok(text) = std::str::from_utf8(s) else { continue };
                if text.starts_with("nacl-irt-") && is_irt_name(text) {
                    irt.insert(text.to_string());
                } else if let Some(set) = match &text.get(..4) {
                    Some("PPB_") => Some(&mut ppb),
                    Some("PPP_") => Some(&mut ppp),
                    _ => None,
                } {
                    if is_pepper_name(text) {
                        set.insert(text.to_string());
                    }
                }
            }
        }
    }
    Requested { irt: irt.into_iter().collect(), ppb: ppb.into_iter().collect(), ppp: ppp.into_iter().collect() }
}

/// Ranges of the NUL-terminated runs of printable ASCII in `data` that
/// start with `nacl-irt-`, `PPB_` or `PPP_` (a string may start anywhere:
/// merged constants put several in one global).
fn strings(data: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < data.len() {
            let i = at;
            at += 1;
            let rest = &data[i..];
            if !(rest.starts_with(b"nacl-irt-") || rest.starts_with(b"PPB_") || rest.starts_with(b"PPP_")) {
                continue;
            }
            let len = rest.iter().take(MAX_NAME + 1).position(|&b| b == 0)?;
            if len > MAX_NAME {
                continue;
            }
            at = i + len + 1;
            return Some((i, i + len));
        }
        None
    })
}

fn is_irt_name(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `PPB_Name;1.2` or `PPB_Name(Dev);1.0`: a name, `;`, a dotted version.
fn is_pepper_name(s: &str) -> bool {
    let Some((name, version)) = s.split_once(';') else { return false };
    name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'(' | b')'))
        && !version.is_empty()
        && version.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::GlobalVar;
    use crate::BitPos;

    fn module_with(data: &[u8]) -> Module {
        let mut m = Module::default();
        let data = m.push_data(data);
        m.globals.push(GlobalVar {
            align: 1,
            is_const: true,
            compound: false,
            init: crate::ir::Inits::One(data),
            name: None,
            pos: BitPos(0),
        });
        m
    }

    #[test]
    fn finds_names_anywhere_in_merged_strings() {
        let m = module_with(b"xx\0PPB_Var;1.2\0PPP_Instance;1.1\0nacl-irt-basic-0.1\0PPB_OpenGLES2DrawBuffers(Dev);1.0\0");
        let r = requested_interfaces(&m);
        assert_eq!(r.irt, ["nacl-irt-basic-0.1"]);
        assert_eq!(r.ppb, ["PPB_OpenGLES2DrawBuffers(Dev);1.0", "PPB_Var;1.2"]);
        assert_eq!(r.ppp, ["PPP_Instance;1.1"]);
    }

    #[test]
    fn log_messages_are_not_interface_names() {
        let m = module_with(b"PPB_FileIO::Read failed: %d\0PPB_Core\0PPB_X;1.0 \0");
        assert_eq!(requested_interfaces(&m), Requested::default());
    }
}
