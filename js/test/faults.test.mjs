// Fault messages: the innermost wasm frame of a stack, and what counts as
// a guest fault.

import test from 'node:test';
import assert from 'node:assert/strict';
import {
  GuestFault, ExitError, describeFault, envFaultMessage, faultMessage, innermostWasmFunction,
} from '../src/internal/runtime/faults.js';

test('the innermost wasm frame names the function', () => {
  const v8 = [
    'RuntimeError: unreachable',
    '    at boom (wasm://wasm/1a2b3c4d:wasm-function[60]:0x7e)',
    '    at _start (wasm://wasm/1a2b3c4d:wasm-function[54]:0x5e)',
    '    at runMain (file:///x/thread.js:120:20)',
  ].join('\n');
  assert.equal(innermostWasmFunction(v8), 'boom');
  const fromJs = [
    'GuestFault: stack overflow',
    '    at Object.fault (file:///x/thread.js:90:15)',
    '    at f12 (wasm://wasm/00ff:wasm-function[66]:0x1234)',
  ].join('\n');
  assert.equal(innermostWasmFunction(fromJs), 'f12', 'JS frames on top are skipped');
  assert.equal(innermostWasmFunction('    at wasm://wasm/1a2b3c4d:wasm-function[7]:0x10'), 'wasm-function[7]');
  assert.equal(innermostWasmFunction('boom@wasm://wasm/1a2b:wasm-function[3]:0x7e\n'), 'boom', 'SpiderMonkey');
  assert.equal(innermostWasmFunction('    at foo (file:///a.js:1:1)'), null);
  assert.equal(innermostWasmFunction(undefined), null);
});

test('what is a guest fault', () => {
  const trap = new WebAssembly.RuntimeError('divide by zero');
  trap.stack = 'RuntimeError: divide by zero\n    at div (wasm://wasm/ab:wasm-function[55]:0x40)';
  assert.equal(describeFault(trap), 'guest fault: divide by zero in function div');
  const deep = new RangeError('Maximum call stack size exceeded');
  deep.stack = 'RangeError: Maximum call stack size exceeded\n    at rec (wasm://wasm/ab:wasm-function[56]:0x41)';
  assert.equal(describeFault(deep), 'guest fault: call stack exhausted (Maximum call stack size exceeded) in function rec');
  assert.equal(faultMessage(new GuestFault('x')), 'x');
  assert.equal(describeFault(new ExitError(0)), null, 'exits are not faults');
  assert.equal(describeFault(new TypeError('bug')), null, 'host bugs are not faults');
  assert.equal(describeFault(new RangeError('Invalid array length')), null);
});

test('env.fault kinds have messages', () => {
  assert.match(envFaultMessage(1, 0), /stack overflow/);
  assert.equal(envFaultMessage(2, 0), 'longjmp to a jmp_buf with no live setjmp');
  assert.match(envFaultMessage(3, 17), /function 17/);
  assert.match(envFaultMessage(5, 0), /intrinsic/);
  assert.match(envFaultMessage(42, 1), /unknown fault kind 42/);
});

test('an uncaught longjmp exception is the longjmp fault', () => {
  const tag = new WebAssembly.Tag({ parameters: ['i32', 'i32'] });
  const other = new WebAssembly.Tag({ parameters: ['i32'] });
  const e = new WebAssembly.Exception(tag, [0x100, 1]);
  assert.equal(describeFault(e, tag), 'guest fault: longjmp to a jmp_buf with no live setjmp');
  assert.equal(describeFault(new WebAssembly.Exception(other, [1]), tag), null);
});
