// The page allocator behind IRT mmap/munmap, and the IRT memory calls.

import test from 'node:test';
import assert from 'node:assert/strict';
import { PageAllocator, memory } from '../src/internal/runtime/irt/memory.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { FileSystem } from '../src/internal/runtime/fs/index.js';
import { MAP, PAGE_SIZE, errno } from '../src/internal/runtime/defs.js';

const P = PAGE_SIZE;

function setup({ initial = 3, maximum = 64, base = 0x20000 } = {}) {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial, maximum, shared: true }));
  return { mem, pages: new PageAllocator(mem, base) };
}

test('mappings are page-aligned, above the base, and grow the memory', () => {
  const { mem, pages } = setup();
  const a = pages.map(1);
  assert.equal(a, 0x20000);
  const b = pages.map(P + 1);
  assert.equal(b, 0x30000);
  assert.equal(pages.top, 0x50000);
  assert.ok(mem.byteLength >= 0x50000, 'memory grew to cover the mapping');
  assert.equal(pages.map(0), 0);
});

test('the base is rounded up to a page', () => {
  const { pages } = setup({ base: 0x20001 });
  assert.equal(pages.map(10), 0x30000);
});

test('unmapped pages are reused first-fit and come back zeroed', () => {
  const { mem, pages } = setup();
  const a = pages.map(P);
  const b = pages.map(2 * P);
  const c = pages.map(P);
  mem.u8().fill(0xaa, b, b + 2 * P);
  assert.equal(pages.unmap(b, 2 * P), true);
  const d = pages.map(P);
  assert.equal(d, b, 'first fit');
  assert.ok(mem.u8().subarray(d, d + P).every((x) => x === 0), 'zeroed');
  const e = pages.map(P);
  assert.equal(e, b + P);
  assert.ok(mem.u8().subarray(e, e + P).every((x) => x === 0), 'zeroed');
  assert.equal(pages.map(P), c + P, 'no hole left: bump');
  void a;
});

test('unmapping the top lowers the break; misaligned unmaps fail', () => {
  const { pages } = setup();
  const a = pages.map(P);
  const b = pages.map(3 * P);
  assert.equal(pages.unmap(b + 1, P), false);
  assert.equal(pages.unmap(b, 3 * P), true);
  assert.equal(pages.top, b);
  assert.equal(pages.unmap(a, P), true);
  assert.equal(pages.top, a);
  assert.deepEqual(pages.free, []);
  assert.equal(pages.unmap(0x10000, P), true, 'below the base: ignored');
});

test('a request that cannot fit fails with 0 instead of throwing', () => {
  const { pages } = setup({ maximum: 8 });
  assert.equal(pages.map(16 * P), 0);
  assert.ok(pages.map(P) !== 0, 'smaller ones still work');
});

test('MAP_FIXED claims exact pages; regionBelow finds a stack mapping', () => {
  const { pages } = setup();
  assert.equal(pages.mapFixed(0x60000, P), true);
  assert.equal(pages.top, 0x70000);
  assert.equal(pages.map(P), 0x20000, 'the gap below the fixed mapping is free');
  assert.equal(pages.mapFixed(0x60001, P), false);
  assert.equal(pages.mapFixed(0x10000, P), false, 'below the base');
  const stack = pages.map(8 * P);
  assert.deepEqual(pages.regionBelow(stack + 8 * P), { start: stack, end: stack + 8 * P });
  assert.equal(pages.regionBelow(0x10000), null);
  assert.equal(pages.isMapped(stack, 8 * P), true);
  assert.equal(pages.isMapped(stack, 20 * P), false);
});

test('IRT mmap/munmap/mprotect', () => {
  const { mem, pages } = setup();
  const fs = new FileSystem({ files: { '/f': 'file contents' } });
  const irt = memory({ mem, pages, fs });
  const OUT = 0x100;
  const anon = MAP.PRIVATE | MAP.ANONYMOUS;
  assert.equal(irt.mmap(OUT, 100, 3, anon, -1, 0n), 0);
  const addr = mem.getU32(OUT);
  assert.equal(addr % P, 0);
  assert.equal(irt.mmap(OUT, 0, 3, anon, -1, 0n), errno.EINVAL);
  assert.equal(irt.mmap(OUT, 100, 3, MAP.ANONYMOUS, -1, 0n), errno.EINVAL, 'neither shared nor private');
  assert.equal(irt.mmap(OUT, 1 << 30, 3, anon, -1, 0n), errno.ENOMEM);
  assert.equal(irt.mmap(0xfffffff0, 100, 3, anon, -1, 0n), errno.EFAULT);
  assert.equal(irt.mmap(OUT, 100, 3, MAP.PRIVATE, 42, 0n), errno.EBADF);
  const fd = fs.open('/f', 0);
  assert.equal(irt.mmap(OUT, 100, 1, MAP.PRIVATE, fd, 0n), 0);
  const fileAddr = mem.getU32(OUT);
  assert.equal(mem.readCString(fileAddr), 'file contents');
  assert.equal(irt.mprotect(addr, P, 3), 0);
  assert.equal(irt.mprotect(addr, P, 0), errno.ENOSYS, 'cannot take access away');
  assert.equal(irt.mprotect(addr + 1, P, 3), errno.EINVAL);
  assert.equal(irt.munmap(addr, 100), 0);
  assert.equal(irt.munmap(addr + 4, 100), errno.EINVAL);
  assert.equal(irt.mprotect(addr, P, 3), errno.ENOMEM, 'no longer mapped');
});
