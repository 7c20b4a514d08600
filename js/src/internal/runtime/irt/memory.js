// IRT interface "nacl-irt-memory-0.3": mmap, munmap, mprotect; and the page
// allocator behind them. Host side: one allocator per process.
//
// The runtime owns the memory from `__heap_base` up (abi.md, "Memory
// layout"). Mappings are whole 64 KiB pages (the NaCl page size that
// sysconf reports, and the wasm page size): first fit in the free list of
// unmapped pages below the break, else the break moves up, growing the
// wasm memory as needed. NaCl's mmap returns zeroed memory: pages never
// used before are fresh (zero) wasm pages; re-used ones are zeroed here.
//
//   mmap(void **addr_inout, len, prot, flags, fd, off64)
//   munmap(addr, len)      mprotect(addr, len, prot)

import { MAP, PAGE_SIZE, PROT, WASM_PAGE_SIZE, errno } from '../defs.js';
import { fail, guardAll } from './guard.js';

const alignUp = (n, a) => Math.ceil(n / a) * a;
const MAX_ADDRESS = 2 ** 32;

/** Removes [start, end) from a sorted list of disjoint ranges. */
function cut(ranges, start, end) {
  const out = [];
  for (const r of ranges) {
    if (r.end <= start || r.start >= end) out.push(r);
    else {
      if (r.start < start) out.push({ start: r.start, end: start });
      if (r.end > end) out.push({ start: end, end: r.end });
    }
  }
  return out;
}

/** Adds [start, end) to a sorted list of disjoint ranges, merging neighbours. */
function paste(ranges, start, end, merge) {
  const out = cut(ranges, start, end);
  let i = out.findIndex((r) => r.start > start);
  if (i < 0) i = out.length;
  out.splice(i, 0, { start, end });
  if (!merge) return out;
  const merged = [];
  for (const r of out) {
    const last = merged[merged.length - 1];
    if (last && last.end === r.start) last.end = r.end;
    else merged.push({ ...r });
  }
  return merged;
}

export class PageAllocator {
  /**
   * @param {import('../memory.js').GuestMemory} mem
   * @param {number} base first address the allocator owns (rounded up to a page)
   */
  constructor(mem, base) {
    this.mem = mem;
    this.base = alignUp(base >>> 0, PAGE_SIZE);
    /** The break: everything from here up is unmapped and never used. */
    this.top = this.base;
    /** Highest break so far: pages below it may be dirty. */
    this.highWater = this.base;
    /** Unmapped ranges below the break, sorted, merged. */
    this.free = [];
    /** Mapped ranges (one per mmap call, split by munmap), sorted. */
    this.regions = [];
  }

  /** Makes the wasm memory at least `end` bytes long. */
  ensure(end) {
    const have = this.mem.byteLength;
    if (end <= have) return true;
    return this.mem.grow(Math.ceil((end - have) / WASM_PAGE_SIZE));
  }

  /** Zeroes the part of [start, end) that may have been used before. */
  scrub(start, end) {
    const dirtyEnd = Math.min(end, this.highWater);
    if (dirtyEnd > start) this.mem.fill0(start, dirtyEnd - start);
  }

  /** Maps `len` bytes (rounded up to pages) anywhere; returns the address, or 0. */
  map(len) {
    if (len <= 0) return 0;
    const size = alignUp(len, PAGE_SIZE);
    let start = -1;
    const hole = this.free.find((r) => r.end - r.start >= size);
    if (hole) {
      start = hole.start;
    } else {
      // Extend from the last free range if it touches the break.
      const last = this.free[this.free.length - 1];
      start = last && last.end === this.top ? last.start : this.top;
      const end = start + size;
      if (end > MAX_ADDRESS || !this.ensure(end)) return 0;
      this.top = Math.max(this.top, end);
    }
    return this.claim(start, start + size);
  }

  /** Maps exactly [addr, addr+len) (MAP_FIXED); returns false if it cannot. */
  mapFixed(addr, len) {
    const size = alignUp(len, PAGE_SIZE);
    if (addr % PAGE_SIZE !== 0 || addr < this.base || size <= 0) return false;
    const end = addr + size;
    if (end > MAX_ADDRESS || !this.ensure(end)) return false;
    if (addr > this.top) this.free = paste(this.free, this.top, addr, true);
    this.top = Math.max(this.top, end);
    this.regions = cut(this.regions, addr, end);
    return this.claim(addr, end) !== 0;
  }

  claim(start, end) {
    this.free = cut(this.free, start, end);
    this.regions = paste(this.regions, start, end, false);
    this.scrub(start, end);
    this.highWater = Math.max(this.highWater, end);
    return start;
  }

  /** Unmaps the pages of [addr, addr+len); false if addr is not page-aligned. */
  unmap(addr, len) {
    if (addr % PAGE_SIZE !== 0 || len <= 0) return false;
    const start = Math.max(addr, this.base);
    const end = Math.min(addr + alignUp(len, PAGE_SIZE), this.top);
    if (start >= end) return true;
    this.regions = cut(this.regions, start, end);
    this.free = paste(this.free, start, end, true);
    // A free range that reaches the break gives its pages back to the break.
    const last = this.free[this.free.length - 1];
    if (last && last.end === this.top) {
      this.top = last.start;
      this.free.pop();
    }
    return true;
  }

  /**
   * The mapping [start, end) that holds the byte just below `addr` (a
   * stack top points one past its mapping), or null.
   */
  regionBelow(addr) {
    const a = (addr >>> 0) - 1;
    return this.regions.find((r) => r.start <= a && a < r.end) ?? null;
  }

  /** Whether every page of [addr, addr+len) is mapped. */
  isMapped(addr, len) {
    let at = addr;
    const end = addr + len;
    for (const r of this.regions) {
      if (r.end <= at) continue;
      if (r.start > at) return false;
      at = r.end;
      if (at >= end) return true;
    }
    return at >= end;
  }
}

/**
 * The memory functions over `proc` ({ mem, pages: PageAllocator, fs }).
 * File mappings (no MAP_ANONYMOUS) are private copies read from the file.
 */
export function memory(proc) {
  const { mem } = proc;
  return guardAll({
    mmap(addrPtr, len, prot, flags, fd, offset) {
      len >>>= 0;
      if (len === 0) fail(errno.EINVAL);
      const hint = mem.getU32(addrPtr);
      const anonymous = (flags & MAP.ANONYMOUS) !== 0;
      const desc = anonymous ? null : proc.fs.get(fd);
      const off = BigInt(offset);
      if (!anonymous && (off < 0n || off % BigInt(PAGE_SIZE) !== 0n)) fail(errno.EINVAL);
      if ((flags & (MAP.SHARED | MAP.PRIVATE)) === 0) fail(errno.EINVAL);
      let addr;
      if (flags & MAP.FIXED) {
        if (!proc.pages.mapFixed(hint, len)) fail(hint % PAGE_SIZE ? errno.EINVAL : errno.ENOMEM);
        addr = hint;
      } else {
        addr = proc.pages.map(len);
        if (addr === 0) fail(errno.ENOMEM);
      }
      if (desc) {
        try {
          copyFromFile(mem, desc, addr, len, off);
        } catch (e) {
          proc.pages.unmap(addr, len);
          throw e;
        }
      }
      mem.setU32(addrPtr, addr);
      return 0;
    },
    munmap(addr, len) {
      if (!proc.pages.unmap(addr >>> 0, len >>> 0)) fail(errno.EINVAL);
      return 0;
    },
    mprotect(addr, len, prot) {
      if ((addr >>> 0) % PAGE_SIZE !== 0) fail(errno.EINVAL);
      if (!proc.pages.isMapped(addr >>> 0, alignUp(len >>> 0, PAGE_SIZE))) fail(errno.ENOMEM);
      // Wasm memory is always readable and writable: granting that is a
      // no-op; taking it away cannot be done.
      if ((prot & (PROT.READ | PROT.WRITE)) !== (PROT.READ | PROT.WRITE)) fail(errno.ENOSYS);
      return 0;
    },
  });
}

/** Reads a file's bytes at `off` into [addr, addr+len) (a private mapping). */
function copyFromFile(mem, desc, addr, len, off) {
  const saved = desc.seek(0n, 1);
  try {
    desc.seek(off, 0);
    let at = 0;
    while (at < len) {
      const chunk = desc.read(Math.min(len - at, 1 << 20));
      if (chunk.length === 0) break;
      mem.write(addr + at, chunk);
      at += chunk.length;
    }
  } finally {
    desc.seek(BigInt(saved), 0);
  }
}
