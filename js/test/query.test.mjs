// The IRT query function and the ABI tables.

import test from 'node:test';
import assert from 'node:assert/strict';
import { IRT_FUNCTIONS, IRT_INTERFACES, HOST_CALLS, EXPECTED_IMPORTS } from '../src/internal/runtime/abi.js';
import { query, interfaceSlots } from '../src/internal/runtime/irt/query.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';

function q() {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
  const thread = { mem, pepper: false };
  const { query: fn } = query(thread);
  return {
    mem,
    thread,
    ask(name, size, table = 0x800) {
      mem.writeCBytes(0x100, new TextEncoder().encode(name));
      mem.u8().fill(0xee, table, table + 128);
      return fn(0x100, table, size);
    },
  };
}

const EXPECTED = {
  'nacl-irt-basic-0.1': ['exit', 'gettod', 'clock', 'nanosleep', 'sched_yield', 'sysconf'],
  'nacl-irt-fdio-0.1': ['close', 'dup', 'dup2', 'read', 'write', 'seek', 'fstat', 'getdents'],
  'nacl-irt-dev-fdio-0.3': ['close', 'dup', 'dup2', 'read', 'write', 'seek', 'fstat', 'getdents',
    'fchdir', 'fchmod', 'fsync', 'fdatasync', 'ftruncate', 'isatty'],
  'nacl-irt-dev-filename-0.3': ['open', 'stat', 'mkdir', 'rmdir', 'chdir', 'getcwd', 'unlink', 'truncate',
    'lstat', 'link', 'rename', 'symlink', 'chmod', 'access', 'readlink', 'utimes'],
  'nacl-irt-memory-0.3': ['mmap', 'munmap', 'mprotect'],
  'nacl-irt-tls-0.1': ['tls_init', 'tls_get'],
  'nacl-irt-thread-0.1': ['thread_create', 'thread_exit', 'thread_nice'],
  'nacl-irt-futex-0.1': ['futex_wait_abs', 'futex_wake'],
  'nacl-irt-clock_get-0.1': ['clock_getres', 'clock_gettime'],
  'nacl-irt-random-0.1': ['get_random_bytes'],
};

test('every interface writes its functions’ table addresses (1 + import index)', () => {
  const { mem, ask } = q();
  for (const [name, fns] of Object.entries(EXPECTED)) {
    const size = 4 * fns.length;
    assert.equal(ask(name, size), size, name);
    const addrs = fns.map((_, i) => mem.getU32(0x800 + 4 * i));
    const want = fns.map((f) => 1 + IRT_FUNCTIONS.findIndex((x) => x.name === f));
    assert.deepEqual(addrs, want, name);
    assert.equal(mem.getU32(0x800 + size), 0xeeeeeeee, `${name}: nothing written past the table`);
  }
  assert.equal(Object.keys(IRT_INTERFACES).length, Object.keys(EXPECTED).length + 1, 'plus dev-fdio-0.1');
  assert.equal(ask('nacl-irt-dev-fdio-0.1', 32), 32);
});

test('unknown names, small tables and Pepper (off) give 0', () => {
  const { ask, mem, thread } = q();
  for (const name of ['nacl-irt-basic-0.2', 'nacl-irt-memory-0.1', 'nacl-irt-filename-0.1',
    'nacl-irt-exception-handling-0.1', '', 'x'.repeat(300)]) {
    assert.equal(ask(name, 64), 0, JSON.stringify(name));
  }
  assert.equal(ask('nacl-irt-basic-0.1', 20), 0, 'one slot short');
  assert.equal(mem.getU32(0x800), 0xeeeeeeee, 'nothing written');
  assert.equal(ask('nacl-irt-basic-0.1', 100), 24, 'a larger table is fine');
  assert.equal(ask('nacl-irt-ppapihook-0.1', 8), 0);
  thread.pepper = true;
  assert.equal(ask('nacl-irt-ppapihook-0.1', 8), 8);
  assert.equal(ask('nacl-irt-basic-0.1', 24, 0xfffffff0), 0, 'bad table pointer');
  assert.deepEqual(interfaceSlots('nacl-irt-futex-0.1'), [45, 46]);
  assert.equal(interfaceSlots('toString'), null, 'no prototype names');
});

test('the import list: 3 env imports then the 52 IRT functions in ABI order', () => {
  assert.equal(IRT_FUNCTIONS.length, 52);
  assert.equal(EXPECTED_IMPORTS.length, 55);
  assert.deepEqual(EXPECTED_IMPORTS.slice(0, 3).map((i) => i[1]), ['memory', 'fault', 'fmod_f64']);
  assert.equal(IRT_FUNCTIONS[0].name, 'query');
  assert.equal(IRT_FUNCTIONS[37].name, 'mmap');
  assert.equal(IRT_FUNCTIONS[51].name, 'ppapi_register_thread_creator');
  assert.ok(HOST_CALLS.has('write') && HOST_CALLS.has('mmap') && HOST_CALLS.has('thread_create'));
  assert.ok(!HOST_CALLS.has('futex_wait_abs') && !HOST_CALLS.has('exit') && !HOST_CALLS.has('tls_init'));
  assert.equal(HOST_CALLS.size, 34);
});
