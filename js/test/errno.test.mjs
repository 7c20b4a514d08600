// IRT error paths: every function answers with a number (0 or a positive
// errno, never undefined), bad pointers give EFAULT, unsupported calls
// ENOSYS, and the thread-side calls behave as documented.

import test from 'node:test';
import assert from 'node:assert/strict';
import { IRT_FUNCTIONS } from '../src/internal/runtime/abi.js';
import { buildImports, createThread } from '../src/internal/runtime/thread.js';
import { createControl } from '../src/internal/runtime/control.js';
import { FileSystem } from '../src/internal/runtime/fs/index.js';
import { PageAllocator, memory } from '../src/internal/runtime/irt/memory.js';
import { fdio } from '../src/internal/runtime/irt/fdio.js';
import { filename } from '../src/internal/runtime/irt/filename.js';
import { threadCreate } from '../src/internal/runtime/irt/thread.js';
import { ExitError, ThreadExit, GuestFault } from '../src/internal/runtime/faults.js';
import { CLOCK, TIME, errno } from '../src/internal/runtime/defs.js';

function world() {
  const wasmMemory = new WebAssembly.Memory({ initial: 4, maximum: 64, shared: true });
  const control = createControl();
  const thread = createThread({ memory: wasmMemory, control, tid: 0 });
  thread.exports = { __tp: { value: 0 } };
  const proc = { mem: thread.mem, fs: new FileSystem({ stdout: () => {} }), spawnThread: () => errno.EAGAIN };
  proc.pages = new PageAllocator(thread.mem, 0x20000);
  const host = { ...fdio(proc), ...filename(proc), ...memory(proc), ...threadCreate(proc) };
  const { irt } = buildImports(thread, host);
  return { irt, mem: thread.mem, thread };
}

const BAD = 0xfffffff0;

test('every IRT function returns a number for junk arguments (or unwinds, for exit)', () => {
  const { irt, mem } = world();
  mem.setI32(0x40, 7); // a futex word that differs from the value 0 passed
  for (const f of IRT_FUNCTIONS) {
    const args = [...f.args].map((k) => (k === 'l' ? 0n : k === 'p' || k === 's' ? 0x40 : 0));
    mem.fill0(0x40, 0x100);
    if (f.name === 'futex_wait_abs') {
      // Word 7, value 0, no deadline: EAGAIN (a deadline of junk could be years away).
      mem.setI32(0x40, 7);
      args[2] = 0;
    }
    if (f.name === 'exit') {
      assert.throws(() => irt.exit(3), (e) => e instanceof ExitError && e.status === 3);
      continue;
    }
    if (f.name === 'thread_exit') {
      assert.throws(() => irt.thread_exit(0x40), (e) => e instanceof ThreadExit && e.flag === 0x40);
      continue;
    }
    const r = irt[f.name](...args);
    if (f.result === 'n') assert.equal(r, undefined, f.name);
    else assert.equal(typeof r, 'number', `${f.name} returned ${r}`);
    assert.ok(Number.isInteger(r ?? 0) && (r ?? 0) >= 0, `${f.name}: ${r}`);
  }
});

test('bad pointers give EFAULT', () => {
  const { irt } = world();
  assert.equal(irt.gettod(BAD), errno.EFAULT);
  assert.equal(irt.clock_gettime(CLOCK.REALTIME, BAD), errno.EFAULT);
  assert.equal(irt.sysconf(2, BAD), errno.EFAULT);
  assert.equal(irt.write(1, BAD, 100, 0x40), errno.EFAULT);
  assert.equal(irt.read(0, BAD, 100, 0x40), errno.EFAULT);
  assert.equal(irt.fstat(1, BAD), errno.EFAULT);
  assert.equal(irt.open(BAD, 0, 0, 0x40), errno.EFAULT);
  assert.equal(irt.get_random_bytes(BAD, 64, 0x40), errno.EFAULT);
  assert.equal(irt.futex_wake(BAD & ~3, 1, 0x40), errno.EFAULT);
  assert.equal(irt.futex_wait_abs(0x41, 0, 0), errno.EINVAL, 'misaligned');
});

test('unsupported calls: ENOSYS', () => {
  const { irt } = world();
  assert.equal(irt.thread_nice(1), errno.ENOSYS);
  assert.equal(irt.ppapi_start(0x40), errno.ENOSYS);
  assert.equal(irt.thread_create(100, 0x30000, 0), errno.EAGAIN, 'no threads in this world');
});

test('basic: sysconf, gettod, clock, nanosleep, sched_yield', () => {
  const { irt, mem } = world();
  assert.equal(irt.sysconf(2, 0x40), 0);
  assert.equal(mem.getI32(0x40), 65536, '_SC_PAGESIZE is the 64 KiB NaCl page');
  assert.equal(irt.sysconf(1, 0x40), 0);
  assert.ok(mem.getI32(0x40) >= 1, '_SC_NPROCESSORS_ONLN');
  assert.equal(irt.sysconf(99, 0x40), errno.EINVAL);
  assert.equal(irt.gettod(0x80), 0);
  const sec = Number(mem.getI64(0x80));
  assert.ok(Math.abs(sec - Date.now() / 1000) < 5, 'seconds since the epoch, 64-bit');
  const usec = mem.getI32(0x80 + TIME.frac);
  assert.ok(usec >= 0 && usec < 1e6);
  assert.equal(irt.clock(0x40), 0);
  // nanosleep: 20 ms, rem zeroed.
  mem.setI64(0x100, 0n);
  mem.setI32(0x108, 20e6);
  mem.u8().fill(0xff, 0x120, 0x130);
  const t0 = performance.now();
  assert.equal(irt.nanosleep(0x100, 0x120), 0);
  assert.ok(performance.now() - t0 >= 19, 'slept');
  assert.equal(mem.getI64(0x120), 0n);
  mem.setI32(0x108, 2e9);
  assert.equal(irt.nanosleep(0x100, 0), errno.EINVAL, 'tv_nsec out of range');
  assert.equal(irt.sched_yield(), 0);
});

test('clock_get: realtime, monotonic, cputime; unknown clocks are EINVAL', () => {
  const { irt, mem } = world();
  const read = (id) => {
    assert.equal(irt.clock_gettime(id, 0x80), 0);
    return mem.getI64(0x80) * 1_000_000_000n + BigInt(mem.getI32(0x88));
  };
  const real = read(CLOCK.REALTIME);
  assert.ok(Math.abs(Number(real / 1_000_000n) - Date.now()) < 5000);
  const m1 = read(CLOCK.MONOTONIC);
  const m2 = read(CLOCK.MONOTONIC);
  assert.ok(m2 >= m1, 'monotonic');
  assert.ok(read(CLOCK.PROCESS_CPUTIME_ID) > 0n);
  assert.ok(read(CLOCK.THREAD_CPUTIME_ID) >= 0n);
  assert.equal(irt.clock_gettime(4, 0x80), errno.EINVAL);
  assert.equal(irt.clock_getres(CLOCK.MONOTONIC, 0x80), 0);
  assert.equal(mem.getI32(0x88), 1000);
  assert.equal(irt.clock_getres(9, 0x80), errno.EINVAL);
});

test('random bytes land in shared memory', () => {
  const { irt, mem } = world();
  assert.equal(irt.get_random_bytes(0x1000, 100000, 0x40), 0);
  assert.equal(mem.getU32(0x40), 100000);
  const bytes = mem.read(0x1000, 100000);
  assert.ok(new Set(bytes).size > 200, 'not all the same');
});

test('tls: tls_init sets __tp, tls_get reads it', () => {
  const { irt, thread } = world();
  assert.equal(irt.tls_init(0x12340), 0);
  assert.equal(thread.exports.__tp.value, 0x12340);
  assert.equal(irt.tls_get(), 0x12340);
});

test('futex: EAGAIN on a changed word, ETIMEDOUT at the deadline, wake counts', () => {
  const { irt, mem } = world();
  mem.setI32(0x200, 5);
  assert.equal(irt.futex_wait_abs(0x200, 4, 0), errno.EAGAIN);
  // Deadline 30 ms from now (realtime).
  const ns = BigInt(Date.now() + 30) * 1_000_000n;
  mem.setI64(0x300, ns / 1_000_000_000n);
  mem.setI32(0x308, Number(ns % 1_000_000_000n));
  const t0 = performance.now();
  assert.equal(irt.futex_wait_abs(0x200, 5, 0x300), errno.ETIMEDOUT);
  assert.ok(performance.now() - t0 >= 20);
  mem.setI64(0x300, 0n);
  mem.setI32(0x308, 0);
  assert.equal(irt.futex_wait_abs(0x200, 5, 0x300), errno.ETIMEDOUT, 'a deadline in the past');
  assert.equal(irt.futex_wake(0x200, 10, 0x40), 0);
  assert.equal(mem.getI32(0x40), 0, 'nobody waiting');
});

test('futex: an untimed wait with no other thread is a deadlock fault', () => {
  const { irt, mem } = world();
  mem.setI32(0x200, 0);
  const t0 = performance.now();
  assert.throws(() => irt.futex_wait_abs(0x200, 0, 0), (e) => e instanceof GuestFault && /deadlock/.test(e.message));
  assert.ok(performance.now() - t0 < 5000);
});
