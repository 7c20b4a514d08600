//! What a translated module imports, and the indices that follow from it.
//! The functions themselves come from the ABI's one list ([`crate::abi`]);
//! this module places them.
//!
//! Function index space: `env.fault` (0), `env.fmod_f64` (1), then the 52
//! IRT functions `irt.<name>` in list order, then — in Pepper plugins
//! only — every PPB function `ppapi.<key>`, then the pexe's defined
//! functions, then the module's own helpers. Table index space: 0 is null,
//! `1 + k` is IRT function `k`, then the PPB functions, then pexe function
//! `i` at [`ImportLayout::pexe_table_base`]` + i`.

use crate::abi;
use crate::ir::Module;
use wasm_encoder::ValType;

/// Module name of the imports the back end itself relies on.
pub const ENV: &str = "env";
/// Module name of the IRT functions.
pub const IRT: &str = "irt";
/// Module name of the Pepper browser (PPB) functions.
pub const PPAPI: &str = "ppapi";

/// `env.memory`: the shared linear memory.
pub const MEMORY: &str = "memory";
/// `env.fault(kind, detail)`: never returns.
pub const FAULT: &str = "fault";
/// `env.fmod_f64(a, b) -> f64`: C `fmod`.
pub const FMOD_F64: &str = "fmod_f64";

/// Function index of `env.fault`.
pub const FAULT_FUNC: u32 = 0;
/// Function index of `env.fmod_f64`.
pub const FMOD_FUNC: u32 = 1;
/// Function index of IRT function 0 (`irt.query`).
pub const IRT_FUNC_BASE: u32 = 2;

/// Table index of IRT function 0; IRT function `k` is at `IRT_TABLE_BASE + k`.
pub const IRT_TABLE_BASE: u32 = 1;

/// `env.fault` kinds (the runtime maps each to its message).
pub mod fault {
    /// An alloca went below the thread's stack limit.
    pub const STACK_OVERFLOW: i32 = 1;
    /// longjmp to a jmp_buf with no live setjmp (raised by the runtime).
    pub const BAD_LONGJMP: i32 = 2;
    /// A direct call of a declared function with no body; detail = its id.
    pub const MISSING_FUNCTION: i32 = 3;
    /// An intrinsic used in a way the back end cannot honor.
    pub const BAD_INTRINSIC: i32 = 5;
}

/// Exports of the ABI.
pub mod export {
    pub const START: &str = "_start";
    pub const THREAD_START: &str = "__pexe_thread_start";
    pub const INIT_DATA: &str = "__pexe_init_data";
    pub const TABLE: &str = "table";
    pub const HEAP_BASE: &str = "__heap_base";
    pub const STACK_POINTER: &str = "__stack_pointer";
    pub const STACK_LIMIT: &str = "__stack_limit";
    pub const THREAD_POINTER: &str = "__tp";
    pub const LONGJMP_TAG: &str = "__pexe_longjmp_tag";
}

/// What one module imports: the IRT always, the Pepper browser functions
/// when the pexe is a plugin. Index arithmetic of the ABI follows from it.
#[derive(Clone, Copy, Debug)]
pub struct ImportLayout {
    /// The IRT functions, then the PPB functions when the pexe is a plugin
    /// (`irt.<name>`, `ppapi.<key>`), in import order.
    list: &'static abi::Imports,
    /// How many of them are the IRT's.
    irt: usize,
}

impl ImportLayout {
    /// The layout for `m`: a module whose data contains the Pepper hook's
    /// interface string ([`abi::PPAPI_HOOK`], which only libppapi asks
    /// for) is a plugin and imports every PPB function.
    pub fn for_module(m: &Module) -> Self {
        Self::new(is_pepper_plugin(m))
    }

    /// The layout with or without the Pepper imports.
    pub fn new(pepper: bool) -> Self {
        let list = abi::imports(pepper);
        let irt = list.functions.iter().take_while(|f| f.family == abi::Family::Irt).count();
        ImportLayout { list, irt }
    }

    /// The IRT functions, in import order.
    pub fn irt(&self) -> &'static [abi::Import] {
        &self.list.functions[..self.irt]
    }

    /// The PPB functions; none unless the pexe is a plugin.
    pub fn ppb(&self) -> &'static [abi::Import] {
        &self.list.functions[self.irt..]
    }

    /// Whether the PPB functions are imported.
    pub fn pepper(&self) -> bool {
        self.list.functions.len() > self.irt
    }

    /// Imported functions: fault, fmod, the IRT, the PPB functions.
    pub fn num_imported_funcs(&self) -> u32 {
        IRT_FUNC_BASE + self.list.functions.len() as u32
    }

    /// Function index of PPB import `k`.
    pub fn ppb_func_base(&self) -> u32 {
        IRT_FUNC_BASE + self.irt as u32
    }

    /// Table index of PPB function 0 (right after the IRT's).
    pub fn ppb_table_base(&self) -> u32 {
        IRT_TABLE_BASE + self.irt as u32
    }

    /// Table index of pexe function 0 (value id 0); function `i` is at
    /// `pexe_table_base() + i`, which is also its address as a pexe value.
    pub fn pexe_table_base(&self) -> u32 {
        IRT_TABLE_BASE + self.list.functions.len() as u32
    }

    /// Every imported function in order: (module, field).
    pub fn names(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.list.functions.iter().map(|f| (if f.family == abi::Family::Irt { IRT } else { PPAPI }, f.key))
    }

    /// Every imported function in order: its lowered parameters and result.
    pub fn signatures(&self) -> impl Iterator<Item = (&'static [abi::ValKind], Option<abi::ValKind>)> + '_ {
        let list = self.list;
        list.functions.iter().map(move |f| (list.params(f), f.result))
    }
}

/// Whether some global's data holds the Pepper hook's NUL-terminated name.
pub fn is_pepper_plugin(m: &Module) -> bool {
    let needle: Vec<u8> = abi::PPAPI_HOOK.bytes().chain([0]).collect();
    data_contains(m, &needle)
}

/// The name every version of the IRT thread interface starts with
/// (`nacl-irt-thread-0.1`): what libpthread asks `query` for.
pub const THREAD_INTERFACE_PREFIX: &[u8] = b"nacl-irt-thread";

/// Whether `m` may run on more than one thread: a Pepper plugin (the
/// browser's threads and the plugin's thread creator), or a module whose
/// data names the IRT thread interface. A module for which this is false
/// is translated single-threaded: its atomics become plain memory accesses
/// and its table's `thread_create` answers EAGAIN (see [`crate::back::wasm`]),
/// so the promise holds even for a program that built the name at run time.
pub fn may_start_threads(m: &Module) -> bool {
    may_start_threads_given(m, is_pepper_plugin(m))
}

/// [`may_start_threads`] for a module whose [`is_pepper_plugin`] answer is
/// `pepper` (known already: the data is searched once, not twice).
pub fn may_start_threads_given(m: &Module, pepper: bool) -> bool {
    pepper || data_contains(m, THREAD_INTERFACE_PREFIX)
}

/// Whether some global's data holds `needle` (within one initializer).
fn data_contains(m: &Module, needle: &[u8]) -> bool {
    let Some(rare) = rarest(needle) else { return true };
    for init in m.globals.iter().flat_map(|g| &g.init) {
        if let Some(bytes) = init.data(m) {
            if contains_at(bytes, needle, rare) {
                return true;
            }
        }
    }
    false
}

/// Index in `needle` of its rarest letter in English text (the first
/// byte if it has no letter); `None` if it is empty.
fn rarest(needle: &[u8]) -> Option<usize> {
    const BY_FREQUENCY: &[u8] = b"etaoinshrdlcumwfgypbvkjxqz";
    let rank = |b: &u8| BY_FREQUENCY.iter().position(|c| c == b).unwrap_or(0);
    needle.iter().enumerate().max_by_key(|&(k, b)| (rank(b), usize::MAX - k)).map(|(k, _)| k)
}

/// Whether `needle` occurs in `hay`, looking for its byte `needle[k]`
/// first (memchr, a word or vector at a time): one byte rules out almost
/// every place (a comparison per byte cost about as much as the module's
/// whole layout), and a rare one ([`rarest`]; the data is mostly text)
/// matches least often (the first, `n` of `nacl-…`, matched so often that
/// checking the matches cost more).
fn contains_at(hay: &[u8], needle: &[u8], k: usize) -> bool {
    let Some(&byte) = needle.get(k) else { return true };
    let mut at = k;
    while let Some(j) = hay.get(at..).and_then(|rest| memchr::memchr(byte, rest)) {
        let i = at + j;
        if hay[i - k..].starts_with(needle) {
            return true;
        }
        at = i + 1;
    }
    false
}

/// Index of IRT function `name` in the import order.
pub fn irt_index(layout: &ImportLayout, name: &str) -> Option<u32> {
    layout.irt().iter().position(|f| f.name == name).map(|k| k as u32)
}

/// The wasm value type of an ABI value kind.
pub fn val_type(k: abi::ValKind) -> ValType {
    match k {
        abi::ValKind::I32 => ValType::I32,
        abi::ValKind::I64 => ValType::I64,
        abi::ValKind::F32 => ValType::F32,
        abi::ValKind::F64 => ValType::F64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_the_abi() {
        let plain = ImportLayout::new(false);
        assert_eq!(plain.num_imported_funcs(), 54);
        assert_eq!(plain.pexe_table_base(), 53);
        assert_eq!(plain.irt()[0].name, "query");
        let pepper = ImportLayout::new(true);
        assert!(pepper.ppb().len() > 10);
        assert_eq!(pepper.ppb_table_base(), 53);
        assert_eq!(pepper.pexe_table_base(), 53 + pepper.ppb().len() as u32);
        assert_eq!(pepper.signatures().count(), 52 + pepper.ppb().len());
    }

    fn contains(hay: &[u8], needle: &[u8]) -> bool {
        rarest(needle).is_none_or(|k| contains_at(hay, needle, k))
    }

    #[test]
    fn contains_finds_what_windows_find() {
        let hay: Vec<u8> = (0..300u32).map(|i| (i * 7 % 13) as u8).collect();
        for start in 0..hay.len() {
            for len in 1..6 {
                let Some(needle) = hay.get(start..start + len) else { continue };
                assert!(contains(&hay, needle));
                let mut other = needle.to_vec();
                other.push(200);
                assert!(!contains(&hay, &other));
            }
        }
        let hook: Vec<u8> = abi::PPAPI_HOOK.bytes().chain([0]).collect();
        let mut data = b"kkkk nacl-irt-ppapihook-0.1 nacl-irt-ppapihook-0.1".to_vec();
        assert!(!contains(&data, &hook));
        data.extend_from_slice(&hook);
        assert!(contains(&data, &hook));
        assert!(contains(&hook, &hook));
        assert!(!contains(&hook[1..], &hook));
        assert!(contains(b"xnacl-irt-thread-0.1", THREAD_INTERFACE_PREFIX));
        assert!(!contains(b"nacl-irt-threa", THREAD_INTERFACE_PREFIX));
        assert!(!contains(b"abc", b"abcd"));
        assert!(contains(b"abc", b""));
    }
}
