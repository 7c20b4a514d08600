//! The native runtime ABI: what an object from [`super`] (the Cranelift
//! back end) and the native runtime (`runtime/`, linked into every
//! executable `pexe build` makes) agree on.
//!
//! Both sides compile this one file — the runtime through `#[path]` — so
//! it holds only constants and `#[repr(C)]` layouts, and nothing that
//! depends on either side. Every layout uses fixed-width fields (addresses
//! are `u64`), so it is the same whatever the translator itself runs on
//! (x86-64, AArch64, or wasm32 in the page).
//!
//! # The guest's memory
//!
//! A guest address is a 32-bit offset from the **memory base**, the start
//! of a [`RESERVATION`]-byte region the runtime reserves (inaccessible)
//! when it starts: [`GUEST_SIZE`] bytes the guest can name, then
//! [`GUARD_SIZE`] bytes that are never accessible. Generated code computes
//! `base + zext(addr) + offset` with `offset < 2^31`, so every access lands
//! inside the reservation: in a page the runtime mapped for the guest, or
//! in an inaccessible one (a fault, reported as "memory access out of
//! bounds"). No guest address reaches anything else.
//!
//! # The thread context
//!
//! Every generated function takes a pointer to its thread's context as a
//! hidden first argument (an `i64`), and passes it on. The context lives
//! in host memory, outside the reservation; generated code reads and
//! writes only the fields in [`ctx`].
//!
//! # The module descriptor
//!
//! An object exports one symbol, [`MODULE_SYMBOL`], a [`ModuleDesc`] that
//! points at everything else: the function table, per-function code
//! ranges, names and trap sites (for fault messages), the data image and
//! the entry trampolines.

/// The descriptor every object exports.
pub const MODULE_SYMBOL: &str = "__pexe_module";
/// `ModuleDesc::magic`: "PXNT".
pub const MODULE_MAGIC: u32 = u32::from_le_bytes(*b"PXNT");
/// `ModuleDesc::version`: bumped whenever anything in this file changes
/// meaning.
pub const MODULE_VERSION: u32 = 2;

/// Bytes a guest can address (32-bit pointers).
pub const GUEST_SIZE: u64 = 1 << 32;
/// Inaccessible bytes after the guest window: covers the largest folded
/// constant offset (below 2^31) plus the widest access (16 bytes).
pub const GUARD_SIZE: u64 = 1 << 32;
/// The whole reservation.
pub const RESERVATION: u64 = GUEST_SIZE + GUARD_SIZE;
/// Largest constant the back end folds into an access's address.
pub const MAX_FOLDED_OFFSET: i64 = (1 << 31) - 1;
/// NaCl's page size: the granularity of guest mappings (and what
/// `sysconf(_SC_PAGESIZE)` answers), the same as the wasm runtime's.
pub const PAGE_SIZE: u64 = 0x1_0000;
/// The first guest address ever mapped (globals start here); below it is
/// the guard page that makes null pointers fault.
pub const GLOBAL_BASE: u64 = 0x1_0000;

/// Offsets of the context fields generated code uses.
pub mod ctx {
    /// `u64`: the memory base (the same in every thread).
    pub const MEM_BASE: i32 = 0;
    /// `u32`: the guest stack pointer (allocas grow down from it).
    pub const STACK_POINTER: i32 = 8;
    /// `u32`: the lowest address an alloca may reach.
    pub const STACK_LIMIT: i32 = 12;
    /// `u32`: the thread pointer (`llvm.nacl.read.tp`, IRT `tls_init`).
    pub const THREAD_POINTER: i32 = 16;
    /// `i32`: the value a longjmp delivers to the setjmp it returns to.
    pub const LONGJMP_VALUE: i32 = 20;
    /// `u8`: nonzero once this thread may share memory with another guest
    /// thread. The runtime sets it in the creating thread's context and the
    /// new one's when a thread is created; while it is zero no other guest
    /// thread exists, so generated code does atomic read-modify-writes,
    /// sequentially consistent stores and fences as plain memory accesses
    /// (as glibc skips its locks in a single-threaded process).
    pub const THREADS: i32 = 24;
    /// A native jump buffer ([`super::JMPBUF_SIZE`] bytes) the entry
    /// trampolines set, so IRT `thread_exit` can leave every guest frame.
    pub const EXIT_JMPBUF: i32 = 64;
    /// Bytes of the part of the context laid out here.
    pub const SIZE: i32 = EXIT_JMPBUF + super::JMPBUF_SIZE as i32;
}

/// Bytes reserved for one native `jmp_buf` (glibc's is 200 bytes on
/// x86-64 and 312 on AArch64).
pub const JMPBUF_SIZE: u32 = 512;
/// Alignment of a native `jmp_buf`, as log2.
pub const JMPBUF_ALIGN_LOG2: u8 = 4;

/// Trap codes of the object's trap tables ([`TrapEntry::code`]): what a
/// faulting instruction was checking.
pub mod trap {
    pub const UNREACHABLE: u32 = 1;
    pub const TABLE_OUT_OF_BOUNDS: u32 = 2;
    pub const BAD_SIGNATURE: u32 = 3;
    pub const ALLOCA_OVERFLOW: u32 = 4;
    pub const UNALIGNED_ATOMIC: u32 = 5;
    pub const MEMORY_OUT_OF_BOUNDS: u32 = 6;
    pub const DIVIDE_BY_ZERO: u32 = 7;
    pub const DIVIDE_OVERFLOW: u32 = 8;
    pub const STACK_OVERFLOW: u32 = 9;
    pub const BAD_CONVERSION: u32 = 10;
}

/// The message of a trap code, worded as the wasm path's engine words it
/// (`tests/all/run.rs` checks both paths against the same texts).
pub fn trap_message(code: u32) -> &'static str {
    match code {
        trap::UNREACHABLE => "unreachable",
        trap::TABLE_OUT_OF_BOUNDS => "table index is out of bounds",
        trap::BAD_SIGNATURE => "null function or function signature mismatch",
        trap::ALLOCA_OVERFLOW => "stack overflow (alloca below the stack limit)",
        trap::UNALIGNED_ATOMIC => "operation does not support unaligned accesses",
        trap::MEMORY_OUT_OF_BOUNDS => "memory access out of bounds",
        trap::DIVIDE_BY_ZERO => "divide by zero",
        trap::DIVIDE_OVERFLOW => "divide result unrepresentable",
        trap::STACK_OVERFLOW => "call stack exhausted (Maximum call stack size exceeded)",
        trap::BAD_CONVERSION => "float unrepresentable in integer range",
        _ => "unknown trap",
    }
}

/// Kinds of `__pexe_rt_fault(ctx, kind, detail, func)`.
pub mod fault {
    /// A direct call of a declared function with no body; detail = its id.
    pub const MISSING_FUNCTION: i32 = 3;
}

/// Symbols of the runtime that generated code calls.
pub mod sym {
    /// `i32 (ctx, dst, src, len)`: 0, or 1 when a range is not mapped.
    pub const MEMCPY: &str = "__pexe_rt_memcpy";
    /// `i32 (ctx, dst, src, len)`, overlapping ranges allowed.
    pub const MEMMOVE: &str = "__pexe_rt_memmove";
    /// `i32 (ctx, dst, byte, len)`.
    pub const MEMSET: &str = "__pexe_rt_memset";
    /// `void (ctx, kind, detail, func)`: ends the process.
    pub const FAULT: &str = "__pexe_rt_fault";
    /// `i32 (ctx, guest_buf, native_buf)`: registers a setjmp; 0, or 1
    /// when the guest buffer is not mapped.
    pub const SETJMP: &str = "__pexe_rt_setjmp";
    /// `void (ctx, lo, hi)`: forgets the setjmps whose native buffers lie
    /// in `[lo, hi)` (a returning frame's).
    pub const SETJMP_LEAVE: &str = "__pexe_rt_setjmp_leave";
    /// `void (ctx, guest_buf, value, func)`: never returns.
    pub const LONGJMP: &str = "__pexe_rt_longjmp";
    /// Prefix of IRT function symbols: `__pexe_irt_<name>`.
    pub const IRT_PREFIX: &str = "__pexe_irt_";
    /// Prefix of Pepper browser functions (no runtime defines them yet).
    pub const PPB_PREFIX: &str = "__pexe_ppb.";
    /// `i32 (native_buf)`: libc's `_setjmp` (no signal mask) behind a
    /// tail jump, so the frame that calls it is the one that returns twice.
    pub const NATIVE_SETJMP: &str = "__pexe_rt_native_setjmp";
    /// `f64 (f64, f64)`: C `fmod`, for `frem`.
    pub const FMOD: &str = "__pexe_rt_fmod";
}

/// The descriptor ([`MODULE_SYMBOL`]). Addresses are `u64`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ModuleDesc {
    pub magic: u32,
    pub version: u32,
    /// [`abi_hash`] of the IRT list the object was translated against.
    pub abi_hash: u64,
    /// `[FuncInfo; num_funcs]`, in ascending code address.
    pub funcs: u64,
    pub num_funcs: u64,
    /// Function names, UTF-8, indexed by [`FuncInfo::name_off`].
    pub names: u64,
    /// `[TrapEntry]`, indexed by [`FuncInfo::traps_off`].
    pub traps: u64,
    /// `[TableEntry; table_len]`: what function address `i` calls.
    pub table: u64,
    pub table_len: u64,
    /// `[Segment; num_segments]`: the data image.
    pub segments: u64,
    pub num_segments: u64,
    /// First address above the globals, a multiple of [`PAGE_SIZE`].
    pub heap_base: u64,
    /// `i32 (ctx, startinfo)`: runs `_start`, answers its status.
    pub start: u64,
    /// `void (ctx, func)`: calls function address `func` (a new thread).
    pub thread_start: u64,
    /// Table index of pexe function 0.
    pub pexe_table_base: u64,
    /// IRT functions in the table (from index 1).
    pub num_irt: u64,
    /// [`arch`] of the code.
    pub arch: u32,
    pub flags: u32,
    /// Test objects only (0 otherwise): `i32 (ctx, id, args, ret)` calls
    /// pexe function `id` with arguments read from `args` (8 bytes each)
    /// and stores its result at `ret`; 0 when called, 1 when `id` cannot
    /// be called this way, 2 when the call faulted (the runtime's test
    /// driver jumps back to it).
    pub test_invoke: u64,
    /// Test objects only: `id:R:PPP\n` per callable function (value kinds
    /// `i`, `l`, `f`, `d`; `v` for no result).
    pub test_sigs: u64,
    pub test_sigs_len: u64,
}

/// `ModuleDesc::arch`.
pub mod arch {
    pub const X86_64: u32 = 1;
    pub const AARCH64: u32 = 2;
}

/// `ModuleDesc::flags`: the pexe is a Pepper plugin (its table has the
/// PPB functions after the IRT).
pub const FLAG_PEPPER: u32 = 1;

/// One function's code, name and trap sites.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FuncInfo {
    pub code: u64,
    pub code_len: u32,
    pub name_off: u32,
    pub name_len: u32,
    pub traps_off: u32,
    pub traps_len: u32,
    pub pad: u32,
}

/// A trapping instruction: its offset in the function's code and what it
/// checks ([`trap`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TrapEntry {
    pub offset: u32,
    pub code: u32,
}

/// One function-table slot: the code to call and its signature id (0 for
/// an empty slot, which no call site expects).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TableEntry {
    pub code: u64,
    pub sig: u32,
    pub pad: u32,
}

/// Bytes of the data image to place at guest address `addr`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub addr: u64,
    pub len: u64,
    pub data: u64,
}

/// FNV-1a over the IRT function names and their lowered signatures (value
/// kinds as letters): an object and a runtime built from different lists
/// disagree on it, and the runtime refuses to start.
pub fn abi_hash<'a>(irt: impl IntoIterator<Item = (&'a str, &'a str)>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&MODULE_VERSION.to_le_bytes());
    for (name, kinds) in irt {
        eat(name.as_bytes());
        eat(b":");
        eat(kinds.as_bytes());
        eat(b";");
    }
    h
}
