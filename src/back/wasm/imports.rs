//! What a translated module imports, and the fixed indices that follow from
//! it: the one place the Rust side writes down the import list of the
//! runtime ABI ("Imports"; the JavaScript runtime in `js/src/runtime/`
//! provides the same list).
//!
//! Function index space: `env.fault` (0), `env.fmod_f64` (1), then the 52
//! IRT functions `irt.<name>` in table order (2..=53), then the pexe's
//! defined functions, then the module's own helpers. Table index space:
//! 0 is null, `1 + k` is IRT function `k`, `53 + i` is pexe function `i`.

use wasm_encoder::ValType;

/// Module name of the imports the back end itself relies on.
pub const ENV: &str = "env";
/// Module name of the IRT functions.
pub const IRT: &str = "irt";

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
/// Imported functions: fault, fmod and the IRT.
pub const NUM_IMPORTED_FUNCS: u32 = IRT_FUNC_BASE + IRT_FUNCS.len() as u32;

/// Table index of IRT function 0; IRT function `k` is at `IRT_TABLE_BASE + k`.
pub const IRT_TABLE_BASE: u32 = 1;
/// Table index of pexe function 0 (value id 0); function `i` is at
/// `PEXE_TABLE_BASE + i`, which is also its address as a pexe value.
pub const PEXE_TABLE_BASE: u32 = IRT_TABLE_BASE + IRT_FUNCS.len() as u32;

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

use ValType::{I32, I64};

/// One IRT import: its field name, parameters and results.
pub struct IrtFunc {
    pub name: &'static str,
    pub params: &'static [ValType],
    pub results: &'static [ValType],
}

const fn f(name: &'static str, params: &'static [ValType], results: &'static [ValType]) -> IrtFunc {
    IrtFunc { name, params, results }
}

const R: &[ValType] = &[I32];
const NONE: &[ValType] = &[];

/// The IRT functions in ABI order: entry `k` is import `irt.<name>` and
/// table element `1 + k`. Types follow the C prototypes under ILP32
/// (`nacl_irt_off_t` is i64).
pub const IRT_FUNCS: [IrtFunc; 52] = [
    f("query", &[I32, I32, I32], R),
    f("exit", &[I32], NONE),
    f("gettod", &[I32], R),
    f("clock", &[I32], R),
    f("nanosleep", &[I32, I32], R),
    f("sched_yield", &[], R),
    f("sysconf", &[I32, I32], R),
    f("close", &[I32], R),
    f("dup", &[I32, I32], R),
    f("dup2", &[I32, I32], R),
    f("read", &[I32, I32, I32, I32], R),
    f("write", &[I32, I32, I32, I32], R),
    f("seek", &[I32, I64, I32, I32], R),
    f("fstat", &[I32, I32], R),
    f("getdents", &[I32, I32, I32, I32], R),
    f("fchdir", &[I32], R),
    f("fchmod", &[I32, I32], R),
    f("fsync", &[I32], R),
    f("fdatasync", &[I32], R),
    f("ftruncate", &[I32, I64], R),
    f("isatty", &[I32, I32], R),
    f("open", &[I32, I32, I32, I32], R),
    f("stat", &[I32, I32], R),
    f("mkdir", &[I32, I32], R),
    f("rmdir", &[I32], R),
    f("chdir", &[I32], R),
    f("getcwd", &[I32, I32], R),
    f("unlink", &[I32], R),
    f("truncate", &[I32, I64], R),
    f("lstat", &[I32, I32], R),
    f("link", &[I32, I32], R),
    f("rename", &[I32, I32], R),
    f("symlink", &[I32, I32], R),
    f("chmod", &[I32, I32], R),
    f("access", &[I32, I32], R),
    f("readlink", &[I32, I32, I32, I32], R),
    f("utimes", &[I32, I32], R),
    f("mmap", &[I32, I32, I32, I32, I32, I64], R),
    f("munmap", &[I32, I32], R),
    f("mprotect", &[I32, I32, I32], R),
    f("tls_init", &[I32], R),
    f("tls_get", &[], R),
    f("thread_create", &[I32, I32, I32], R),
    f("thread_exit", &[I32], NONE),
    f("thread_nice", &[I32], R),
    f("futex_wait_abs", &[I32, I32, I32], R),
    f("futex_wake", &[I32, I32, I32], R),
    f("clock_getres", &[I32, I32], R),
    f("clock_gettime", &[I32, I32], R),
    f("get_random_bytes", &[I32, I32, I32], R),
    f("ppapi_start", &[I32], R),
    f("ppapi_register_thread_creator", &[I32], NONE),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_the_abi() {
        assert_eq!(NUM_IMPORTED_FUNCS, 54);
        assert_eq!(PEXE_TABLE_BASE, 53);
        assert_eq!(IRT_FUNCS[0].name, "query");
        assert_eq!(IRT_FUNCS[12].name, "seek");
        assert_eq!(IRT_FUNCS[37].params.len(), 6);
        assert_eq!(IRT_FUNCS[51].name, "ppapi_register_thread_creator");
        let mut names: Vec<_> = IRT_FUNCS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 52);
    }
}
