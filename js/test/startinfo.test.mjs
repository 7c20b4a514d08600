// The startup info block `_start` receives.

import test from 'node:test';
import assert from 'node:assert/strict';
import { envStrings, startInfoSize, writeStartInfo } from '../src/internal/runtime/startinfo.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';

test('layout: fini, envc, argc, argv, envp, auxv, then the strings', () => {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
  const args = ['res/printf.pexe', 'one', 'dé'];
  const env = envStrings({ HOME: '/', LANG: 'C' });
  const at = 0x1000;
  const size = writeStartInfo(mem, at, args, env);
  assert.equal(size, startInfoSize(args, env));
  const w = (i) => mem.getU32(at + 4 * i);
  assert.equal(w(0), 0, 'fini');
  assert.equal(w(1), 2, 'envc');
  assert.equal(w(2), 3, 'argc');
  assert.deepEqual([0, 1, 2].map((i) => mem.readCString(w(3 + i))), args);
  assert.equal(w(6), 0, 'argv terminator');
  assert.deepEqual([0, 1].map((i) => mem.readCString(w(7 + i))), ['HOME=/', 'LANG=C']);
  assert.equal(w(9), 0, 'envp terminator');
  assert.deepEqual([w(10), w(11), w(12), w(13)], [32, 1, 0, 0], 'AT_SYSINFO = query (address 1), AT_NULL');
  assert.equal(w(3), at + 4 * 14, 'strings right after the words');
  // newlib computes envp = startinfo + 4 * (argc + 4).
  assert.equal(at + 4 * (3 + 4), at + 4 * 7);
  // Strings are packed: 'dé' is 3 UTF-8 bytes.
  const end = w(8) + 'LANG=C'.length + 1;
  assert.equal(end - at, size);
});

test('no arguments and no environment', () => {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
  const size = writeStartInfo(mem, 0x100, [], []);
  assert.equal(size, 4 * 9);
  assert.deepEqual([...Array(9)].map((_, i) => mem.getU32(0x100 + 4 * i)), [0, 0, 0, 0, 0, 32, 1, 0, 0]);
});

test('an environment given as an array is kept as is', () => {
  assert.deepEqual(envStrings(['A=1', 'B=2']), ['A=1', 'B=2']);
  assert.deepEqual(envStrings({}), []);
});
