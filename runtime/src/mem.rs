//! The guest's memory: a reservation of [`rtabi::RESERVATION`] bytes, all
//! inaccessible until the runtime maps guest pages in it, and a table of
//! what each 64 KiB guest page allows — so the runtime checks every guest
//! pointer it is handed (EFAULT) without touching memory that would fault.
//!
//! Generated code reaches only this reservation (32-bit offsets from its
//! base); the runtime reaches guest memory only through [`Memory`].

use crate::rtabi;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU8, Ordering};

/// Guest pages of [`rtabi::PAGE_SIZE`] bytes in the 4 GiB window.
pub const NUM_PAGES: usize = (rtabi::GUEST_SIZE / rtabi::PAGE_SIZE) as usize;

/// Page permission bits of the page table.
pub const READ: u8 = 1;
pub const WRITE: u8 = 2;

pub struct Memory {
    base: *mut u8,
    pages: Box<[AtomicU8]>,
    /// Self-test mode: host sentinels right around the reservation.
    sentinels: bool,
}

/// Bytes of host memory on each side of the reservation that the sandbox
/// self-test fills and checks.
pub const SENTINEL: usize = 64 << 10;

fn sentinel_byte(i: usize) -> u8 {
    (i.wrapping_mul(131) ^ 0xa5) as u8
}

// The base pointer is shared by every thread; access is through raw
// pointers and the atomic page table.
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

/// An errno (positive).
pub type Errno = i32;

impl Memory {
    /// Reserves the whole window, inaccessible. With `self_test`, the
    /// [`SENTINEL`] bytes of host memory just below and just above it are
    /// made ordinary writable memory holding a pattern, for
    /// [`Memory::sentinels_intact`] to check: a guest store that escaped
    /// the reservation would land there first.
    pub fn reserve(self_test: bool) -> Result<Memory, String> {
        let total = rtabi::RESERVATION as usize + 2 * SENTINEL;
        // SAFETY: an anonymous PROT_NONE mapping touches nothing.
        let p = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                total,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!(
                "cannot reserve the guest's {} GiB address space (errno {})",
                rtabi::RESERVATION >> 30,
                crate::sys::errno()
            ));
        }
        let pages = (0..NUM_PAGES).map(|_| AtomicU8::new(0)).collect();
        let base: *mut u8 = p.cast();
        // SAFETY: both sentinels lie inside the mapping just made.
        let mem = Memory { base: unsafe { base.add(SENTINEL) }, pages, sentinels: self_test };
        if self_test {
            for s in mem.sentinel_ranges() {
                // SAFETY: our own mapping.
                unsafe {
                    libc::mprotect(s.cast(), SENTINEL, libc::PROT_READ | libc::PROT_WRITE);
                    for i in 0..SENTINEL {
                        *s.add(i) = sentinel_byte(i);
                    }
                }
            }
        }
        Ok(mem)
    }

    fn sentinel_ranges(&self) -> [*mut u8; 2] {
        // SAFETY: both are inside the reservation mapping.
        unsafe { [self.base.sub(SENTINEL), self.base.add(rtabi::RESERVATION as usize)] }
    }

    /// Self-test mode: whether both sentinels still hold their pattern
    /// (async-signal-safe); `None` otherwise.
    pub fn sentinels_intact(&self) -> Option<bool> {
        if !self.sentinels {
            return None;
        }
        Some(self.sentinel_ranges().iter().all(|&s| {
            // SAFETY: readable sentinel memory.
            (0..SENTINEL).all(|i| unsafe { core::ptr::read_volatile(s.add(i)) } == sentinel_byte(i))
        }))
    }

    pub fn base(&self) -> u64 {
        self.base as u64
    }

    /// Whether host address `a` lies in the reservation.
    pub fn contains(&self, a: usize) -> bool {
        let b = self.base as usize;
        a >= b && a - b < rtabi::RESERVATION as usize
    }

    fn page_range(addr: u64, len: u64) -> core::ops::Range<usize> {
        let first = (addr / rtabi::PAGE_SIZE) as usize;
        let end = (addr + len).div_ceil(rtabi::PAGE_SIZE) as usize;
        first..end.min(NUM_PAGES)
    }

    /// Makes `[addr, addr + len)` (whole pages) fresh zeroed memory with
    /// `prot` ([`READ`]/[`WRITE`]).
    pub fn map(&self, addr: u64, len: u64, prot: u8) -> Result<(), Errno> {
        if !addr.is_multiple_of(rtabi::PAGE_SIZE) || addr + len > rtabi::GUEST_SIZE {
            return Err(libc::EINVAL);
        }
        // SAFETY: the range is inside our reservation (checked above).
        let p = unsafe {
            libc::mmap(
                self.base.add(addr as usize).cast(),
                len as usize,
                host_prot(prot),
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(libc::ENOMEM);
        }
        for i in Self::page_range(addr, len) {
            self.pages[i].store(prot, Ordering::Release);
        }
        Ok(())
    }

    /// Makes the pages inaccessible again and drops their contents.
    pub fn unmap(&self, addr: u64, len: u64) {
        for i in Self::page_range(addr, len) {
            self.pages[i].store(0, Ordering::Release);
        }
        // SAFETY: inside the reservation; replaces the pages with PROT_NONE.
        unsafe {
            libc::mmap(
                self.base.add(addr as usize).cast(),
                len as usize,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED | libc::MAP_NORESERVE,
                -1,
                0,
            );
        }
    }

    /// Changes the protection of mapped pages.
    pub fn protect(&self, addr: u64, len: u64, prot: u8) -> Result<(), Errno> {
        // SAFETY: inside the reservation.
        let r = unsafe { libc::mprotect(self.base.add(addr as usize).cast(), len as usize, host_prot(prot)) };
        if r != 0 {
            return Err(libc::ENOMEM);
        }
        for i in Self::page_range(addr, len) {
            self.pages[i].store(prot, Ordering::Release);
        }
        Ok(())
    }

    /// Whether every byte of `[addr, addr + len)` is in pages that allow
    /// `need` (an empty range always is).
    pub fn allows(&self, addr: u32, len: u64, need: u8) -> bool {
        if len == 0 {
            return true;
        }
        let end = u64::from(addr) + len;
        if end > rtabi::GUEST_SIZE {
            return false;
        }
        Self::page_range(u64::from(addr), len).all(|i| self.pages[i].load(Ordering::Acquire) & need == need)
    }

    /// EFAULT unless the range is readable.
    pub fn check_read(&self, addr: u32, len: u64) -> Result<(), Errno> {
        if self.allows(addr, len, READ) {
            Ok(())
        } else {
            Err(libc::EFAULT)
        }
    }

    /// EFAULT unless the range is writable.
    pub fn check_write(&self, addr: u32, len: u64) -> Result<(), Errno> {
        if self.allows(addr, len, READ | WRITE) {
            Ok(())
        } else {
            Err(libc::EFAULT)
        }
    }

    /// The host address of guest address `addr`.
    pub fn host(&self, addr: u32) -> *mut u8 {
        // SAFETY: any 32-bit offset stays inside the reservation.
        unsafe { self.base.add(addr as usize) }
    }

    pub fn read_bytes(&self, addr: u32, len: usize) -> Result<Vec<u8>, Errno> {
        self.check_read(addr, len as u64)?;
        let mut v = vec![0u8; len];
        // SAFETY: checked readable; guest memory may change under us, which
        // a byte copy tolerates.
        unsafe { core::ptr::copy(self.host(addr), v.as_mut_ptr(), len) };
        Ok(v)
    }

    pub fn write_bytes(&self, addr: u32, bytes: &[u8]) -> Result<(), Errno> {
        self.check_write(addr, bytes.len() as u64)?;
        // SAFETY: checked writable.
        unsafe { core::ptr::copy(bytes.as_ptr(), self.host(addr), bytes.len()) };
        Ok(())
    }

    pub fn read_u32(&self, addr: u32) -> Result<u32, Errno> {
        let b = self.read_bytes(addr, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn read_i64(&self, addr: u32) -> Result<i64, Errno> {
        let b = self.read_bytes(addr, 8)?;
        Ok(i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    }

    pub fn write_u32(&self, addr: u32, x: u32) -> Result<(), Errno> {
        self.write_bytes(addr, &x.to_le_bytes())
    }

    pub fn write_i32(&self, addr: u32, x: i32) -> Result<(), Errno> {
        self.write_bytes(addr, &x.to_le_bytes())
    }

    pub fn write_i64(&self, addr: u32, x: i64) -> Result<(), Errno> {
        self.write_bytes(addr, &x.to_le_bytes())
    }

    /// A NUL-terminated string of at most `max` bytes (`too_long` past
    /// that, EFAULT if it runs into memory the guest cannot read).
    pub fn read_cstr(&self, addr: u32, max: usize, too_long: Errno) -> Result<Vec<u8>, Errno> {
        let mut out = Vec::new();
        let mut a = addr;
        loop {
            if !self.allows(a, 1, READ) {
                return Err(libc::EFAULT);
            }
            // Read up to the end of this page at once.
            let page_end = (u64::from(a) / rtabi::PAGE_SIZE + 1) * rtabi::PAGE_SIZE;
            let n = (page_end - u64::from(a)) as usize;
            // SAFETY: the page is readable.
            let chunk = unsafe { core::slice::from_raw_parts(self.host(a), n) };
            match chunk.iter().position(|&b| b == 0) {
                Some(i) => {
                    out.extend_from_slice(&chunk[..i]);
                    if out.len() > max {
                        return Err(too_long);
                    }
                    return Ok(out);
                }
                None => {
                    out.extend_from_slice(chunk);
                    if out.len() > max {
                        return Err(too_long);
                    }
                    if page_end >= rtabi::GUEST_SIZE {
                        return Err(libc::EFAULT);
                    }
                    a = page_end as u32;
                }
            }
        }
    }
}

fn host_prot(prot: u8) -> libc::c_int {
    let mut p = libc::PROT_NONE;
    if prot & READ != 0 {
        p |= libc::PROT_READ;
    }
    if prot & WRITE != 0 {
        p |= libc::PROT_WRITE | libc::PROT_READ;
    }
    p
}

/// The page allocator behind IRT `mmap`: the same policy as the
/// JavaScript runtime's (`js/src/internal/runtime/irt/memory.js`), so guest
/// addresses come out the same on both: first fit in the free list of
/// unmapped pages below the break, else the break moves up.
pub struct PageAllocator {
    pub base: u64,
    /// Everything from here up is unmapped and never used.
    pub top: u64,
    /// Unmapped ranges below the break, sorted, merged.
    free: Vec<(u64, u64)>,
    /// Mapped ranges (one per mmap call, split by munmap), sorted.
    regions: Vec<(u64, u64)>,
}

fn cut(ranges: &[(u64, u64)], start: u64, end: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    for &(s, e) in ranges {
        if e <= start || s >= end {
            out.push((s, e));
        } else {
            if s < start {
                out.push((s, start));
            }
            if e > end {
                out.push((end, e));
            }
        }
    }
    out
}

fn paste(ranges: &[(u64, u64)], start: u64, end: u64, merge: bool) -> Vec<(u64, u64)> {
    let mut out = cut(ranges, start, end);
    let at = out.iter().position(|&(s, _)| s > start).unwrap_or(out.len());
    out.insert(at, (start, end));
    if !merge {
        return out;
    }
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(out.len());
    for r in out {
        match merged.last_mut() {
            Some(last) if last.1 == r.0 => last.1 = r.1,
            _ => merged.push(r),
        }
    }
    merged
}

impl PageAllocator {
    pub fn new(base: u64) -> Self {
        let base = base.div_ceil(rtabi::PAGE_SIZE) * rtabi::PAGE_SIZE;
        PageAllocator { base, top: base, free: Vec::new(), regions: Vec::new() }
    }

    /// Maps `len` bytes (whole pages) anywhere; the address, or None.
    pub fn map(&mut self, mem: &Memory, len: u64) -> Option<u64> {
        if len == 0 {
            return None;
        }
        let size = len.div_ceil(rtabi::PAGE_SIZE) * rtabi::PAGE_SIZE;
        let start = match self.free.iter().find(|&&(s, e)| e - s >= size) {
            Some(&(s, _)) => s,
            None => {
                let start = match self.free.last() {
                    Some(&(s, e)) if e == self.top => s,
                    _ => self.top,
                };
                if start + size > rtabi::GUEST_SIZE {
                    return None;
                }
                if !self.claim(mem, start, start + size) {
                    return None;
                }
                self.top = self.top.max(start + size);
                return Some(start);
            }
        };
        self.claim(mem, start, start + size).then_some(start)
    }

    /// Maps exactly `[addr, addr + len)` (MAP_FIXED).
    pub fn map_fixed(&mut self, mem: &Memory, addr: u64, len: u64) -> bool {
        let size = len.div_ceil(rtabi::PAGE_SIZE) * rtabi::PAGE_SIZE;
        if !addr.is_multiple_of(rtabi::PAGE_SIZE) || addr < self.base || size == 0 {
            return false;
        }
        let end = addr + size;
        if end > rtabi::GUEST_SIZE {
            return false;
        }
        if !self.claim(mem, addr, end) {
            return false;
        }
        if addr > self.top {
            self.free = paste(&self.free, self.top, addr, true);
        }
        self.top = self.top.max(end);
        true
    }

    fn claim(&mut self, mem: &Memory, start: u64, end: u64) -> bool {
        if mem.map(start, end - start, READ | WRITE).is_err() {
            return false;
        }
        self.free = cut(&self.free, start, end);
        self.regions = paste(&cut(&self.regions, start, end), start, end, false);
        true
    }

    /// Unmaps the pages of `[addr, addr + len)`; false if `addr` is not
    /// page-aligned or `len` is 0.
    pub fn unmap(&mut self, mem: &Memory, addr: u64, len: u64) -> bool {
        if !addr.is_multiple_of(rtabi::PAGE_SIZE) || len == 0 {
            return false;
        }
        let start = addr.max(self.base);
        let end = (addr + len.div_ceil(rtabi::PAGE_SIZE) * rtabi::PAGE_SIZE).min(self.top);
        if start >= end {
            return true;
        }
        mem.unmap(start, end - start);
        self.regions = cut(&self.regions, start, end);
        self.free = paste(&self.free, start, end, true);
        if let Some(&(s, e)) = self.free.last() {
            if e == self.top {
                self.top = s;
                self.free.pop();
            }
        }
        true
    }

    /// The mapping holding the byte just below `addr` (a stack top points
    /// one past its mapping).
    pub fn region_below(&self, addr: u64) -> Option<(u64, u64)> {
        let a = addr.checked_sub(1)?;
        self.regions.iter().copied().find(|&(s, e)| s <= a && a < e)
    }

    /// Whether every page of `[addr, addr + len)` is mapped.
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        let mut at = addr;
        let end = addr + len;
        for &(s, e) in &self.regions {
            if e <= at {
                continue;
            }
            if s > at {
                return false;
            }
            at = e;
            if at >= end {
                return true;
            }
        }
        at >= end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cut_and_paste() {
        let r = paste(&[(0, 10), (20, 30)], 10, 20, true);
        assert_eq!(r, vec![(0, 30)]);
        assert_eq!(cut(&r, 5, 25), vec![(0, 5), (25, 30)]);
    }
}
