// Guest programs shared by the Node tests (run.test.mjs) and the browser
// test (browser.test.mjs): modules built to the runtime ABI with their
// expected outcome. Options and expectations are plain data, so a page can
// receive them.

import { abiModule, op, callIrt, text, I32, FIRST_FUNC, G } from './wasm.mjs';

/** write(fd, addr, len, scratch); drop */
export const write = (fd, addr, len, scratch = 0x10f00) => [
  ...op.i32_const(fd), ...op.i32_const(addr), ...op.i32_const(len), ...op.i32_const(scratch),
  ...callIrt('write'), ...op.drop(),
];

/** exit(status) */
export const exit = (status) => [...op.i32_const(status), ...callIrt('exit')];

/** thread_create(table address 54 = the second function, stack, tp); drop */
export const createThread = (tp = 0) => [
  ...op.i32_const(54), ...op.i32_const(0x18000), ...op.i32_const(tp), ...callIrt('thread_create'), ...op.drop(),
];

export const HELLO = abiModule({
  data: [text(0x10000, 'Hello, World!\n')],
  funcs: [{ name: '_start', params: [I32], body: [...write(1, 0x10000, 14), ...exit(0)] }],
});

// Threads: main starts a thread, waits on FLAG with futexes, then waits for
// thread_exit to clear STACKFLAG; the thread prints, records its __tp in
// TPOUT, sets FLAG and wakes main, which exits with TPOUT.
const MSG_T = 0x10000, MSG_M = 0x10010, FLAG = 0x10100, STACKFLAG = 0x10104, TPOUT = 0x10110;

/** loop { if (cond(load(addr))) break; futex_wait_abs(addr, load(addr), NULL) } */
function waitWhile(addr, cond) {
  return [
    ...op.block(), ...op.loop(),
    ...op.i32_const(addr), ...op.i32_atomic_load(), ...cond, ...op.br_if(1),
    ...op.i32_const(addr), ...op.i32_const(addr), ...op.i32_atomic_load(), ...op.i32_const(0),
    ...callIrt('futex_wait_abs'), ...op.drop(),
    ...op.br(0), ...op.end(), ...op.end(),
  ];
}

export const THREADS = abiModule({
  data: [text(MSG_T, 'thread\n'), text(MSG_M, 'main\n'), { at: STACKFLAG, bytes: new Uint8Array([1, 0, 0, 0]) }],
  funcs: [
    {
      name: '_start', params: [I32], body: [
        ...createThread(0x77),
        ...waitWhile(FLAG, []),
        ...waitWhile(STACKFLAG, [...op.i32_eqz()]),
        ...write(1, MSG_M, 5),
        ...op.i32_const(TPOUT), ...op.i32_load(), ...callIrt('exit'),
      ],
    },
    {
      name: 'worker', body: [
        ...write(1, MSG_T, 7, 0x10f20),
        ...op.i32_const(TPOUT), ...op.global_get(G.tp), ...op.i32_store(),
        ...op.i32_const(FLAG), ...op.i32_const(1), ...op.i32_atomic_store(),
        ...op.i32_const(FLAG), ...op.i32_const(1), ...op.i32_const(0x10f30), ...callIrt('futex_wake'), ...op.drop(),
        ...op.i32_const(STACKFLAG), ...callIrt('thread_exit'),
      ],
    },
  ],
});

/** `_start` calls `boom(0)`, whose body is `body`. */
export function faulting(body) {
  return abiModule({
    funcs: [
      { name: '_start', params: [I32], body: [...op.i32_const(0), ...op.call(FIRST_FUNC + 1), ...exit(0)] },
      { name: 'boom', params: [I32], body },
    ],
  });
}

/** Each kind of guest fault: [what, body of boom, expected message (regex source)]. */
export const FAULTS = [
  ['unreachable', [...op.unreachable()], '^guest fault: unreachable in function boom$'],
  ['out-of-bounds load', [...op.i32_const(-16), ...op.i32_load(), ...op.drop()],
    '^guest fault: memory access out of bounds in function boom$'],
  ['divide by zero', [...op.i32_const(1), ...op.local_get(0), ...op.i32_div_s(), ...op.drop()],
    '^guest fault: divide by zero in function boom$'],
  // call_indirect(0): type 0 is env.fault's (i32, i32) -> ().
  ['bad indirect call', [...op.i32_const(0), ...op.i32_const(0), ...op.i32_const(9999), ...op.call_indirect(0)],
    '^guest fault: (table index is out of bounds|null function( or function signature mismatch)?) in function boom$'],
  ['null function pointer', [...op.i32_const(0), ...op.i32_const(0), ...op.i32_const(0), ...op.call_indirect(0)],
    '^guest fault: null function( or function signature mismatch)? in function boom$'],
  ['alloca stack overflow', [...op.i32_const(1), ...op.i32_const(0), ...op.call(0)],
    '^guest fault: stack overflow \\(alloca below the stack limit\\) in function boom$'],
  ['deep recursion', [...op.local_get(0), ...op.i32_const(1), ...op.i32_add(), ...op.call(FIRST_FUNC + 1)],
    '^guest fault: call stack exhausted \\(Maximum call stack size exceeded\\) in function boom$'],
];

/** main waits forever on a futex nobody wakes. */
export const DEADLOCK = abiModule({
  funcs: [{
    name: '_start', params: [I32], body: [
      ...op.i32_const(0x10100), ...op.i32_const(0), ...op.i32_const(0), ...callIrt('futex_wait_abs'), ...op.drop(),
      ...exit(0),
    ],
  }],
});

/** main spins forever after starting a thread that calls exit(7). */
export const EXIT_FROM_THREAD = abiModule({
  funcs: [
    { name: '_start', params: [I32], body: [...createThread(), ...op.loop(), ...op.br(0), ...op.end()] },
    { name: 'worker', body: [...exit(7)] },
  ],
});

/** _start returns thread_create's result (EAGAIN = 11 without threads). */
export const TRY_THREAD = abiModule({
  funcs: [
    { name: '_start', params: [I32], results: [I32], body: [...op.i32_const(54), ...op.i32_const(0x18000), ...op.i32_const(0), ...callIrt('thread_create')] },
    { name: 'worker', body: [] },
  ],
});

/**
 * Portable cases: { name, wasm, options, expect: { exitCode, stdout?, fault? (regex source) } }.
 * `needsWorkers` cases only hold where guest threads run in Workers.
 */
export function portableCases() {
  const cases = [
    { name: 'hello', wasm: HELLO, options: {}, expect: { exitCode: 0, stdout: 'Hello, World!\n' } },
    { name: 'deadlock', wasm: DEADLOCK, options: {}, expect: { exitCode: 134, fault: '^guest fault: deadlock: every thread is waiting on a futex in function _start$' } },
    { name: 'threads', wasm: THREADS, options: {}, needsWorkers: true, expect: { exitCode: 0x77, stdout: 'thread\nmain\n' } },
    { name: 'exit from a thread', wasm: EXIT_FROM_THREAD, options: {}, needsWorkers: true, expect: { exitCode: 7 } },
    { name: 'thread_create without Workers', wasm: TRY_THREAD, options: { threads: false }, expect: { exitCode: 11 } },
  ];
  for (const [what, body, fault] of FAULTS) {
    cases.push({ name: `fault: ${what}`, wasm: faulting(body), options: {}, expect: { exitCode: 134, fault } });
  }
  return cases;
}

/**
 * Output of both streams, interleaved, then a last line without its
 * newline: `rounds` times "out X\n" on stdout (X a letter that changes
 * every round) and "err\n" on stderr, then "tail" on stdout, then `end`:
 * exit(0), or a guest fault (unreachable). What it writes is
 * `interleavedText(rounds)`.
 */
export function interleaved(rounds, end = 'exit') {
  const OUT = 0x10000, ERR = 0x10010, TAIL = 0x10020, I = 0x10f40;
  return abiModule({
    data: [text(OUT, 'out ?\n'), text(ERR, 'err\n'), text(TAIL, 'tail')],
    funcs: [{
      name: '_start', params: [I32], body: [
        ...op.i32_const(I), ...op.i32_const(rounds), ...op.i32_store(),
        ...op.block(), ...op.loop(),
        ...op.i32_const(I), ...op.i32_load(), ...op.i32_eqz(), ...op.br_if(1),
        // "out " + ('a' + i % 26) + "\n"
        ...op.i32_const(OUT + 4),
        ...op.i32_const(I), ...op.i32_load(), ...op.i32_const(26), ...op.i32_rem_u(), ...op.i32_const(97), ...op.i32_add(),
        ...op.i32_store8(),
        ...write(1, OUT, 6),
        ...write(2, ERR, 4),
        ...op.i32_const(I), ...op.i32_const(I), ...op.i32_load(), ...op.i32_const(1), ...op.i32_sub(), ...op.i32_store(),
        ...op.br(0), ...op.end(), ...op.end(),
        ...write(1, TAIL, 4),
        ...(end === 'fault' ? op.unreachable() : exit(0)),
      ],
    }],
  });
}

/** What `interleaved(rounds)` writes: [stdout, stderr, both in the order written]. */
export function interleavedText(rounds) {
  let out = '';
  let err = '';
  let both = '';
  for (let i = rounds; i > 0; i--) {
    const line = `out ${String.fromCharCode(97 + (i % 26))}\n`;
    out += line;
    err += 'err\n';
    both += `${line}err\n`;
  }
  return [out + 'tail', err, both + 'tail'];
}
