//! The native runtime of `pexe`: the NaCl IRT over Linux, as a static
//! archive. Linked with an object from the native back end
//! (`src/back/native/`), it makes an ordinary executable that runs the
//! pexe sandboxed.
//!
//! The archive defines `main`. At start-up it:
//!
//! 1. checks the object's descriptor (`__pexe_module`, layout in
//!    `src/back/native/rtabi.rs`, shared with the translator): magic,
//!    version, architecture, and that both were built from the same IRT
//!    list;
//! 2. reserves the guest's address space (4 GiB + 4 GiB of guard, all
//!    inaccessible), maps the globals at `0x10000` and copies the data
//!    image there, then lays out memory as the JavaScript runtime does:
//!    above `__heap_base` its page allocator maps the main thread's stack
//!    (8 MiB, or `PEXE_STACK_SIZE`) and the start-up info block (NaCl's:
//!    argv, envp, auxv with `AT_SYSINFO` = 1, the address of `query`);
//! 3. installs the fault handler and runs `_start` on a guest thread.
//!
//! Configuration comes from the environment, and those variables are
//! removed from the guest's: `PEXE_DIRS` (host directories the guest may
//! use, colon-separated; none by default), `PEXE_STACK_SIZE` (bytes of
//! the main thread's guest stack), `PEXE_SANDBOX_SELFTEST=1` (host
//! sentinels around the reservation, checked and reported at the end), and
//! for the tests `PEXE_TEST_CALLS` and `PEXE_TEST_THREADS` ([`testing`]).
//! The guest's argv is the executable's; its environment the rest of the
//! executable's.

#![cfg_attr(not(test), no_std)]
// Unit tests build without `main`, so start-up code goes unused there.
#![cfg_attr(test, allow(dead_code))]

extern crate alloc;

#[path = "../../src/back/native/rtabi.rs"]
pub mod rtabi;

pub mod ctx;
pub mod fault;
pub mod fs;
pub mod helpers;
mod irt;
pub mod irt_gen;
pub mod mem;
pub mod sys;
pub mod testing;
pub mod threads;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU32};
use mem::{Memory, PageAllocator};
use sys::{Mutex, Once};

extern "C" {
    /// The translated pexe's descriptor.
    static __pexe_module: rtabi::ModuleDesc;
}

/// Everything process-wide.
pub struct Process {
    pub desc: &'static rtabi::ModuleDesc,
    /// `(code start, code end, index into the function-info table)`, by
    /// start address.
    funcs: Vec<(usize, usize, usize)>,
    pub mem: Memory,
    pub pages: Mutex<PageAllocator>,
    pub fs: Mutex<fs::FileSystem>,
    /// Live guest threads, threads in an untimed futex wait, and a count
    /// bumped by every wake (deadlock detection).
    pub live: AtomicI32,
    pub waiting: AtomicI32,
    pub wake_epoch: AtomicU32,
    pub next_tid: AtomicU32,
    pub exiting: AtomicBool,
    pub processors: u32,
    /// `PEXE_TEST_CALLS`: the calls for the test driver ([`testing`]).
    pub test_calls: Option<Vec<u8>>,
    /// `PEXE_TEST_THREADS=1`: the test driver runs its calls as if other
    /// guest threads existed (atomics as atomics, `rtabi::ctx::THREADS`).
    pub test_threads: bool,
}

static PROCESS: Once<Process> = Once::new();

/// The process (set up before any guest code runs).
pub fn process() -> &'static Process {
    PROCESS.get().expect("the runtime is started before guest code runs")
}

impl Process {
    fn info(&self, f: usize) -> Option<&'static rtabi::FuncInfo> {
        if f as u64 >= self.desc.num_funcs {
            return None;
        }
        // SAFETY: `funcs` points at `num_funcs` entries in the object.
        Some(unsafe { &*(self.desc.funcs as *const rtabi::FuncInfo).add(f) })
    }

    /// The guest function whose code holds `pc`.
    pub fn func_at(&self, pc: usize) -> Option<usize> {
        let at = self.funcs.partition_point(|&(start, _, _)| start <= pc);
        let &(start, end, f) = self.funcs.get(at.checked_sub(1)?)?;
        (pc >= start && pc < end).then_some(f)
    }

    /// The trap code of the instruction at `pc` in function `f`.
    pub fn trap_at(&self, f: usize, pc: usize) -> Option<u32> {
        let info = self.info(f)?;
        let offset = pc.checked_sub(info.code as usize)? as u32;
        // SAFETY: the function's trap entries, in the object.
        let traps = unsafe {
            core::slice::from_raw_parts(
                (self.desc.traps as *const rtabi::TrapEntry).add(info.traps_off as usize),
                info.traps_len as usize,
            )
        };
        let at = traps.partition_point(|t| t.offset < offset);
        traps.get(at).filter(|t| t.offset == offset).map(|t| t.code)
    }

    /// Function `f`'s name (async-signal-safe).
    pub fn func_name(&self, f: usize) -> Option<&'static [u8]> {
        let info = self.info(f)?;
        // SAFETY: the names blob in the object.
        Some(unsafe {
            core::slice::from_raw_parts((self.desc.names as *const u8).add(info.name_off as usize), info.name_len as usize)
        })
    }
}

/// `#define AT_SYSINFO 32`: the auxv key of the IRT query function.
const AT_SYSINFO: u32 = 32;
/// Default size of the main thread's guest stack.
const DEFAULT_STACK_SIZE: u64 = 8 << 20;

/// The C entry point.
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn main(argc: libc::c_int, argv: *const *const libc::c_char, envp: *const *const libc::c_char) -> libc::c_int {
    match start(argc, argv, envp) {
        Ok(()) => loop {
            // The guest threads end the process.
            // SAFETY: pause only waits.
            unsafe { libc::pause() };
        },
        Err(message) => {
            sys::complain(format_args!("{message}"));
            1
        }
    }
}

/// C strings of a NULL-terminated array.
unsafe fn c_strings(mut p: *const *const libc::c_char, limit: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while !p.is_null() && !(*p).is_null() && out.len() < limit {
        out.push(CStr::from_ptr(*p).to_bytes().to_vec());
        p = p.add(1);
    }
    out
}

fn start(argc: libc::c_int, argv: *const *const libc::c_char, envp: *const *const libc::c_char) -> Result<(), String> {
    // SAFETY: the linker resolved the descriptor of the translated object.
    let desc: &'static rtabi::ModuleDesc = unsafe { &*core::ptr::addr_of!(__pexe_module) };
    check_descriptor(desc)?;
    // SAFETY: the C runtime's argument and environment vectors.
    let args = unsafe { c_strings(argv, argc.max(0) as usize) };
    let host_env = unsafe { c_strings(envp, usize::MAX) };
    let mut dirs = Vec::new();
    let mut stack_size = DEFAULT_STACK_SIZE;
    let mut self_test = false;
    let mut test_calls = None;
    let mut test_threads = false;
    let mut env = Vec::new();
    for kv in host_env {
        if let Some(v) = kv.strip_prefix(b"PEXE_DIRS=") {
            dirs.extend(String::from_utf8_lossy(v).split(':').map(str::to_string));
        } else if let Some(v) = kv.strip_prefix(b"PEXE_STACK_SIZE=") {
            stack_size = core::str::from_utf8(v)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .filter(|&n| (1..=1 << 31).contains(&n))
                .ok_or("PEXE_STACK_SIZE must be a number of bytes between 1 and 2^31")?;
        } else if let Some(path) = kv.strip_prefix(b"PEXE_TEST_CALLS=") {
            let path = core::str::from_utf8(path).map_err(|_| "PEXE_TEST_CALLS is not UTF-8")?;
            test_calls = Some(sys::read_file(path).ok_or_else(|| format!("cannot read {path}"))?);
        } else if kv == b"PEXE_SANDBOX_SELFTEST=1" {
            self_test = true;
        } else if kv == b"PEXE_TEST_THREADS=1" {
            test_threads = true;
        } else if !kv.starts_with(b"PEXE_") {
            env.push(kv);
        }
    }

    let mem = Memory::reserve(self_test)?;
    // Globals, and the data image.
    let heap_base = desc.heap_base.max(rtabi::GLOBAL_BASE);
    if heap_base > rtabi::GUEST_SIZE - rtabi::PAGE_SIZE {
        return Err("the globals do not fit the 32-bit address space".into());
    }
    if heap_base > rtabi::GLOBAL_BASE {
        mem.map(rtabi::GLOBAL_BASE, heap_base - rtabi::GLOBAL_BASE, mem::READ | mem::WRITE)
            .map_err(|e| format!("cannot map the globals (errno {e})"))?;
    }
    for i in 0..desc.num_segments as usize {
        // SAFETY: the segment list and image in the object.
        let s = unsafe { &*(desc.segments as *const rtabi::Segment).add(i) };
        if s.addr < rtabi::GLOBAL_BASE || s.addr + s.len > heap_base {
            return Err("a data segment lies outside the globals".into());
        }
        // SAFETY: copies the image into the mapped globals.
        unsafe { core::ptr::copy_nonoverlapping(s.data as *const u8, mem.host(s.addr as u32), s.len as usize) };
    }
    let mut pages = PageAllocator::new(heap_base);
    let stack_size = stack_size.div_ceil(rtabi::PAGE_SIZE) * rtabi::PAGE_SIZE;
    let stack = pages.map(&mem, stack_size).ok_or("cannot map the main thread's stack")?;
    let info = startinfo(&args, &env);
    let at = pages.map(&mem, info.len() as u64).ok_or("cannot map the start-up info")?;

    let mut funcs: Vec<(usize, usize, usize)> = (0..desc.num_funcs as usize)
        .map(|i| {
            // SAFETY: the function-info table in the object.
            let f = unsafe { &*(desc.funcs as *const rtabi::FuncInfo).add(i) };
            (f.code as usize, f.code as usize + f.code_len as usize, i)
        })
        .collect();
    funcs.sort_unstable();
    let processors = sys::processors();
    let process = Process {
        desc,
        funcs,
        mem,
        pages: Mutex::new(pages),
        fs: Mutex::new(fs::FileSystem::new(&dirs)),
        live: AtomicI32::new(0),
        waiting: AtomicI32::new(0),
        wake_epoch: AtomicU32::new(0),
        next_tid: AtomicU32::new(1),
        exiting: AtomicBool::new(false),
        processors,
        test_calls,
        test_threads,
    };
    if !PROCESS.set(process) {
        return Err("started twice".into());
    }
    let p = self::process();
    let words = relocate(&info, at as u32);
    p.mem.write_bytes(at as u32, &words).map_err(|e| format!("cannot write the start-up info (errno {e})"))?;
    fault::install();
    threads::start_main(at as u32, (stack + stack_size) as u32, stack as u32)
}

fn check_descriptor(d: &rtabi::ModuleDesc) -> Result<(), String> {
    if d.magic != rtabi::MODULE_MAGIC {
        return Err("the linked object is not a pexe translation (bad descriptor)".into());
    }
    if d.version != rtabi::MODULE_VERSION {
        return Err(format!(
            "the object was translated for native runtime ABI version {}, this runtime speaks {}",
            d.version,
            rtabi::MODULE_VERSION
        ));
    }
    let want = if cfg!(target_arch = "x86_64") { rtabi::arch::X86_64 } else { rtabi::arch::AARCH64 };
    if d.arch != want {
        return Err("the object was translated for another architecture".into());
    }
    let hash = rtabi::abi_hash(irt_gen::IRT.iter().map(|&(n, k)| (n, k)));
    if d.abi_hash != hash || d.num_irt != irt_gen::IRT.len() as u64 {
        return Err("the object and this runtime were built from different IRT lists; translate it again".into());
    }
    if d.flags & rtabi::FLAG_PEPPER != 0 {
        return Err("this pexe is a Pepper (PPAPI) plugin; the native runtime has no Pepper".into());
    }
    Ok(())
}

/// The start-up info block (NaCl's `nacl_startup.h`, as the JavaScript
/// runtime writes it), laid out at address 0; [`relocate`] places it.
///
///   [0] 0 (fini)  [1] envc  [2] argc  argv[0..argc) 0  envp[0..envc) 0
///   32 (AT_SYSINFO)  1 (`query`'s address)  0 0 (AT_NULL)
///   then the strings, NUL-terminated.
struct StartInfo {
    /// Words; string pointers are offsets into the block.
    words: Vec<u32>,
    /// Which words are offsets to relocate.
    pointers: Vec<usize>,
    strings: Vec<u8>,
}

impl StartInfo {
    fn len(&self) -> usize {
        4 * self.words.len() + self.strings.len()
    }
}

fn startinfo(args: &[Vec<u8>], env: &[Vec<u8>]) -> StartInfo {
    let nwords = 3 + args.len() + 1 + env.len() + 1 + 4;
    let mut words = vec![0, env.len() as u32, args.len() as u32];
    let mut pointers = Vec::new();
    let mut strings = Vec::new();
    for list in [args, env] {
        for s in list {
            pointers.push(words.len());
            words.push((4 * nwords + strings.len()) as u32);
            strings.extend_from_slice(s);
            strings.push(0);
        }
        words.push(0);
    }
    words.extend([AT_SYSINFO, 1, 0, 0]);
    StartInfo { words, pointers, strings }
}

/// The block's bytes for address `at`.
fn relocate(info: &StartInfo, at: u32) -> Vec<u8> {
    let mut words = info.words.clone();
    for &i in &info.pointers {
        words[i] += at;
    }
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.extend_from_slice(&info.strings);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startinfo_has_the_nacl_layout() {
        let info = startinfo(&[b"prog".to_vec(), b"x".to_vec()], &[b"K=V".to_vec()]);
        let bytes = relocate(&info, 0x1_0000);
        let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
        // fini, envc, argc, argv[0..2], 0, envp[0], 0, AT_SYSINFO 1, AT_NULL 0
        let strings = 0x1_0000 + 4 * 12;
        let want = [0, 1, 2, strings, strings + 5, 0, strings + 7, 0, 32, 1, 0, 0];
        for (i, w) in want.iter().enumerate() {
            assert_eq!(word(i), *w, "word {i}");
        }
        assert_eq!(&bytes[48..], b"prog\0x\0K=V\0");
    }
}
