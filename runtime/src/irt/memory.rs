//! "nacl-irt-memory-0.3": mmap, munmap, mprotect over the page allocator
//! ([`crate::mem::PageAllocator`], the JavaScript runtime's policy), so
//! mappings land at the same guest addresses on both. Fresh pages are
//! zero; a file mapping is a private copy of the file's bytes.

use super::errno;
use crate::ctx::Ctx;
use crate::fs::last_errno;
use crate::mem::{Errno, READ, WRITE};
use crate::{process, rtabi};

const PROT_READ: i32 = 1;
const PROT_WRITE: i32 = 2;
const MAP_SHARED: i32 = 0x1;
const MAP_PRIVATE: i32 = 0x2;
const MAP_FIXED: i32 = 0x10;
const MAP_ANONYMOUS: i32 = 0x20;

pub fn mmap(_ctx: &mut Ctx, addr: u32, len: u32, _prot: i32, flags: i32, fd: i32, off: i64) -> i32 {
    errno((|| -> Result<(), Errno> {
        let p = process();
        if len == 0 {
            return Err(libc::EINVAL);
        }
        let hint = p.mem.read_u32(addr)?;
        p.mem.check_write(addr, 4)?;
        let anonymous = flags & MAP_ANONYMOUS != 0;
        let host = if anonymous {
            None
        } else {
            Some(p.fs.lock().host(fd)?)
        };
        if !anonymous && (off < 0 || off % rtabi::PAGE_SIZE as i64 != 0) {
            return Err(libc::EINVAL);
        }
        if flags & (MAP_SHARED | MAP_PRIVATE) == 0 {
            return Err(libc::EINVAL);
        }
        let mut pages = p.pages.lock();
        let at = if flags & MAP_FIXED != 0 {
            if !pages.map_fixed(&p.mem, u64::from(hint), u64::from(len)) {
                return Err(if u64::from(hint) % rtabi::PAGE_SIZE != 0 { libc::EINVAL } else { libc::ENOMEM });
            }
            u64::from(hint)
        } else {
            pages.map(&p.mem, u64::from(len)).ok_or(libc::ENOMEM)?
        };
        if let Some(h) = host {
            if let Err(e) = copy_from_file(h, at as u32, len, off) {
                pages.unmap(&p.mem, at, u64::from(len));
                return Err(e);
            }
        }
        drop(pages);
        p.mem.write_u32(addr, at as u32)
    })())
}

/// Reads the file's bytes at `off` into the new mapping (pread: the
/// descriptor's offset does not move).
fn copy_from_file(h: libc::c_int, at: u32, len: u32, off: i64) -> Result<(), Errno> {
    let m = &process().mem;
    let mut done = 0u32;
    while done < len {
        let chunk = (len - done).min(1 << 20);
        // SAFETY: the kernel writes into the mapping we just made.
        let n = unsafe { libc::pread(h, m.host(at + done).cast(), chunk as usize, off + i64::from(done)) };
        if n < 0 {
            return Err(last_errno());
        }
        if n == 0 {
            break;
        }
        done += n as u32;
    }
    Ok(())
}

pub fn munmap(_ctx: &mut Ctx, addr: u32, len: u32) -> i32 {
    let p = process();
    let ok = p.pages.lock().unmap(&p.mem, u64::from(addr), u64::from(len));
    if ok {
        0
    } else {
        libc::EINVAL
    }
}

/// Real protection changes (a guest that drops write access to a page
/// faults when it writes there). Execution is never granted: guest memory
/// holds data only.
pub fn mprotect(_ctx: &mut Ctx, addr: u32, len: u32, prot: i32) -> i32 {
    errno((|| {
        let p = process();
        if u64::from(addr) % rtabi::PAGE_SIZE != 0 {
            return Err(libc::EINVAL);
        }
        let size = u64::from(len).div_ceil(rtabi::PAGE_SIZE) * rtabi::PAGE_SIZE;
        let pages = p.pages.lock();
        if !pages.is_mapped(u64::from(addr), size) {
            return Err(libc::ENOMEM);
        }
        let mut bits = 0;
        if prot & PROT_READ != 0 {
            bits |= READ;
        }
        if prot & PROT_WRITE != 0 {
            bits |= READ | WRITE;
        }
        if size == 0 {
            return Ok(());
        }
        p.mem.protect(u64::from(addr), size, bits)
    })())
}
