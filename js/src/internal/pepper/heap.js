// Memory the browser side owns inside the guest's address space: the
// bytes a pexe reads through pointers Pepper returns (VarToUtf8's string,
// VarArrayBuffer.Map's buffer, interface tables, DidCreate's argn/argv).
//
// Blocks come from the process's page allocator (the one IRT mmap uses),
// so they never overlap the guest's own mappings. Small blocks are carved
// from 64 KiB pages in power-of-two size classes; large ones get their own
// mapping. All bookkeeping stays in JavaScript: nothing the guest can
// overwrite decides what is freed.

import { PAGE_SIZE } from '../runtime/defs.js';

const MIN_CLASS = 16;
/** Blocks above this get their own mapping. */
const MAX_SMALL = PAGE_SIZE / 2;

function sizeClass(n) {
  let c = MIN_CLASS;
  while (c < n) c *= 2;
  return c;
}

export class GuestHeap {
  /** @param {import('../runtime/irt/memory.js').PageAllocator} pages */
  constructor(pages, mem) {
    this.pages = pages;
    this.mem = mem;
    /** size class → free block addresses */
    this.free = new Map();
    /** live block address → its size (class size, or the mapping's length) */
    this.live = new Map();
    this.liveBytes = 0;
  }

  /**
   * A block of at least `n` bytes (n ≥ 1), 16-byte aligned and zeroed, or
   * 0 when the address space is exhausted.
   */
  alloc(n) {
    n = Math.max(1, n >>> 0);
    let addr;
    let size;
    if (n > MAX_SMALL) {
      size = Math.ceil(n / PAGE_SIZE) * PAGE_SIZE;
      addr = this.pages.map(size);
      if (addr === 0) return 0;
    } else {
      size = sizeClass(n);
      const list = this.free.get(size);
      if (list?.length) {
        addr = list.pop();
        this.mem.fill0(addr, size);
      } else {
        const page = this.pages.map(PAGE_SIZE);
        if (page === 0) return 0;
        const blocks = [];
        for (let at = page + PAGE_SIZE - size; at > page; at -= size) blocks.push(at);
        addr = page;
        if (!this.free.has(size)) this.free.set(size, []);
        this.free.get(size).push(...blocks);
      }
    }
    this.live.set(addr, size);
    this.liveBytes += size;
    return addr;
  }

  /** A block holding a copy of `bytes` (plus `extra` zero bytes), or 0. */
  allocBytes(bytes, extra = 0) {
    const addr = this.alloc(bytes.length + extra);
    if (addr !== 0 && bytes.length > 0) this.mem.write(addr, bytes);
    return addr;
  }

  /** Frees a block `alloc` returned; other addresses are ignored. */
  release(addr) {
    const size = this.live.get(addr);
    if (size === undefined) return;
    this.live.delete(addr);
    this.liveBytes -= size;
    if (size > MAX_SMALL) this.pages.unmap(addr, size);
    else this.free.get(size).push(addr);
  }
}
