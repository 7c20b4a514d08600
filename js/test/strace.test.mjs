// The strace Proxy: one line per IRT call with arguments and result,
// results and exceptions passed through untouched.

import test from 'node:test';
import assert from 'node:assert/strict';
import { strace } from '../src/internal/runtime/strace.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { ExitError } from '../src/internal/runtime/faults.js';

test('calls are logged with formatted arguments and results', () => {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
  mem.writeCBytes(0x100, new TextEncoder().encode('/data/x.txt'));
  const lines = [];
  const calls = [];
  const irt = {
    open: (...a) => (calls.push(a), 2),
    write: () => 0,
    tls_get: () => 0x1230,
    exit: (s) => {
      throw new ExitError(s);
    },
    notIrt: () => 5,
  };
  const traced = strace(irt, { sink: (l) => lines.push(l), mem, tid: 3 });
  assert.equal(traced.open(0x100, 0x241, 0o644, 0x200), 2);
  assert.deepEqual(calls, [[0x100, 0x241, 0o644, 0x200]], 'arguments passed through');
  assert.equal(traced.write(1, 0x10a20, 14, 0x1ff8c), 0);
  assert.equal(traced.tls_get(), 0x1230);
  assert.throws(() => traced.exit(4), ExitError);
  assert.equal(traced.notIrt(), 5, 'non-IRT members are not wrapped');
  assert.equal(traced.open, traced.open, 'one wrapper per function');
  assert.deepEqual(lines, [
    '[pexe 3] open("/data/x.txt", 0x241, 0o644, 0x200) = 2 (ENOENT)',
    '[pexe 3] write(1, 0x10a20, 14, 0x1ff8c) = 0',
    '[pexe 3] tls_get() = 0x1230',
    '[pexe 3] exit(4) -> exit',
  ]);
});

test('string arguments that cannot be read print as pointers', () => {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
  const lines = [];
  const traced = strace({ stat: () => 14 }, { sink: (l) => lines.push(l), mem });
  traced.stat(0xfffff000, 0);
  traced.stat(0, 0);
  assert.deepEqual(lines, [
    '[pexe 0] stat(0xfffff000, 0x0) = 14 (EFAULT)',
    '[pexe 0] stat(NULL, 0x0) = 14 (EFAULT)',
  ]);
});
