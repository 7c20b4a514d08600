// The browser side of Pepper (src/runtime/pepper/) against a fake process
// and embedder: no pexe, no browser. Var reference counts, conversions,
// completion-callback modes, message loops, interface tables, the
// instance's message queue, and a leak check over 100k messages.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PPB_FUNCTIONS, PPB_INTERFACES, ppbAddress, PPB_INDEX } from '../src/internal/runtime/abi.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { PageAllocator } from '../src/internal/runtime/irt/memory.js';
import { Browser } from '../src/internal/pepper/browser.js';
import { ITEM, MAIN_TID, PP, VAR } from '../src/internal/pepper/defs.js';
import { mergeImplementations } from '../src/internal/pepper/ppb/index.js';
import { GuestFault } from '../src/internal/runtime/faults.js';

/** A browser over a fresh memory; `sent` collects page messages, `main` main-thread items. */
function fake({ attributes = [] } = {}) {
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const scratch = pages.map(0x10000);
  const sent = [];
  const main = [];
  const logs = [];
  const events = [];
  const b = new Browser({
    proc: { mem, pages },
    attributes,
    embedder: {
      postMessage: (v) => sent.push(v),
      log: (...a) => logs.push(a),
      loaded: () => events.push('loaded'),
      loadFailed: (m) => events.push(`failed: ${m}`),
      missingInterface: (n) => events.push(`missing: ${n}`),
    },
    transport: { toMain: (item) => main.push(item) },
  });
  // Guest-side scratch: a PP_Var at +0, +16, +32; a callback at +64; strings at +256.
  const call = (key, ...args) => b.call(key, MAIN_TID, args);
  const callOn = (tid, key, ...args) => b.call(key, tid, args);
  const str = (at, s) => {
    const bytes = new TextEncoder().encode(s);
    mem.write(at, bytes);
    return bytes.length;
  };
  const cb = (at, func, userData, flags = 0) => {
    mem.setU32(at, func);
    mem.setU32(at + 4, userData);
    mem.setI32(at + 8, flags);
    return at;
  };
  return { b, mem, pages, scratch, sent, main, logs, events, call, callOn, str, cb };
}

test('strings: VarFromUtf8 gives one reference; VarToUtf8 points into guest memory while it lives', () => {
  const { b, mem, scratch, call, str } = fake();
  const n = str(scratch + 256, 'héllo');
  call('PPB_Var;1.1:VarFromUtf8', scratch, scratch + 256, n);
  const v = b.vars.read(scratch);
  assert.equal(v.type, VAR.STRING);
  assert.equal(b.vars.size, 1);
  const ptr = call('PPB_Var;1.0:VarToUtf8', scratch, scratch + 100);
  assert.equal(mem.getU32(scratch + 100), n);
  assert.equal(new TextDecoder().decode(mem.read(ptr, n)), 'héllo');
  call('PPB_Var;1.0:AddRef', scratch);
  call('PPB_Var;1.0:Release', scratch);
  assert.equal(b.vars.size, 1, 'still one reference');
  const before = b.heap.liveBytes;
  call('PPB_Var;1.0:Release', scratch);
  assert.equal(b.vars.size, 0);
  assert.ok(b.heap.liveBytes < before, 'the guest copy is freed');
  // A released var is no string any more: NULL and length 0.
  mem.setU32(scratch + 100, 77);
  assert.equal(call('PPB_Var;1.0:VarToUtf8', scratch, scratch + 100), 0);
  assert.equal(mem.getU32(scratch + 100), 0);
});

test('VarFromUtf8 rejects invalid UTF-8 with a null var; 1.0 takes a module argument', () => {
  const { b, mem, scratch, call } = fake();
  mem.write(scratch + 256, Uint8Array.of(0x66, 0xff, 0x67));
  call('PPB_Var;1.1:VarFromUtf8', scratch, scratch + 256, 3);
  assert.equal(b.vars.read(scratch).type, VAR.NULL);
  mem.write(scratch + 256, new TextEncoder().encode('ok'));
  call('PPB_Var;1.0:VarFromUtf8', scratch, 1, scratch + 256, 2);
  assert.equal(b.vars.stringOf(b.vars.read(scratch)), 'ok');
  // An empty string still has a non-null pointer.
  call('PPB_Var;1.1:VarFromUtf8', scratch + 16, 0, 0);
  assert.notEqual(call('PPB_Var;1.0:VarToUtf8', scratch + 16, 0), 0);
});

test('a pointer outside guest memory is the guest\'s fault, not the runtime\'s', () => {
  const { call, scratch } = fake();
  assert.throws(() => call('PPB_Var;1.1:VarFromUtf8', scratch, 0x7fff0000, 10), GuestFault);
  assert.throws(() => call('PPB_Var;1.0:AddRef', 0xfffffff0), GuestFault);
});

test('containers hold a reference to each element and release them with themselves', () => {
  const { b, scratch, call, str } = fake();
  call('PPB_VarDictionary;1.0:Create', scratch);
  call('PPB_Var;1.1:VarFromUtf8', scratch + 16, scratch + 256, str(scratch + 256, 'key'));
  call('PPB_Var;1.1:VarFromUtf8', scratch + 32, scratch + 300, str(scratch + 300, 'value'));
  assert.equal(call('PPB_VarDictionary;1.0:Set', scratch, scratch + 16, scratch + 32), 1);
  call('PPB_Var;1.0:Release', scratch + 32); // the dictionary still holds 'value'
  assert.equal(b.vars.size, 3);
  call('PPB_VarDictionary;1.0:Get', scratch + 48, scratch, scratch + 16);
  assert.equal(b.vars.stringOf(b.vars.read(scratch + 48)), 'value');
  call('PPB_Var;1.0:Release', scratch + 48);
  call('PPB_VarDictionary;1.0:GetKeys', scratch + 48, scratch);
  assert.deepEqual(b.vars.toJs(b.vars.read(scratch + 48)), ['key']);
  call('PPB_Var;1.0:Release', scratch + 48);
  call('PPB_Var;1.0:Release', scratch + 16);
  call('PPB_Var;1.0:Release', scratch);
  assert.equal(b.vars.size, 0, 'the dictionary took its value with it');

  call('PPB_VarArray;1.0:Create', scratch);
  assert.equal(call('PPB_VarArray;1.0:SetLength', scratch, 3), 1);
  assert.equal(call('PPB_VarArray;1.0:GetLength', scratch), 3);
  call('PPB_VarArray;1.0:Get', scratch + 16, scratch, 7);
  assert.equal(b.vars.read(scratch + 16).type, VAR.UNDEFINED, 'out of range is undefined');
  call('PPB_Var;1.0:Release', scratch);
  assert.equal(b.vars.size, 0);
});

test('array buffers live in guest memory: Map returns a pointer the plugin writes through', () => {
  const { b, mem, scratch, call, sent } = fake();
  call('PPB_VarArrayBuffer;1.0:Create', scratch, 4);
  const ptr = call('PPB_VarArrayBuffer;1.0:Map', scratch);
  assert.notEqual(ptr, 0);
  mem.write(ptr, Uint8Array.of(1, 2, 3, 4));
  assert.equal(call('PPB_VarArrayBuffer;1.0:ByteLength', scratch, scratch + 100), 1);
  assert.equal(mem.getU32(scratch + 100), 4);
  b.state = 'created';
  call('PPB_Messaging;1.0:PostMessage', 1, scratch);
  assert.deepEqual([...new Uint8Array(sent[0])], [1, 2, 3, 4]);
  call('PPB_Var;1.0:Release', scratch);
  assert.equal(b.vars.size, 0);
});

test('JS values convert as Chrome converted them', () => {
  const { b } = fake();
  const t = (x) => b.vars.fromJs(x);
  assert.equal(t(5).type, VAR.INT32);
  assert.equal(t(2 ** 31).type, VAR.DOUBLE);
  assert.equal(t(-0).type, VAR.DOUBLE);
  assert.equal(t(1.5).type, VAR.DOUBLE);
  assert.equal(t(true).type, VAR.BOOL);
  assert.equal(t(null).type, VAR.NULL);
  assert.equal(t(undefined).type, VAR.UNDEFINED);
  const nested = { a: [1, 'two', { b: new Uint8Array([9]).buffer }], c: 3.25 };
  const v = t(nested);
  assert.equal(v.type, VAR.DICTIONARY);
  const back = b.vars.toJs(v);
  assert.equal(back.a[1], 'two');
  assert.equal(new Uint8Array(back.a[2].b)[0], 9);
  assert.equal(back.c, 3.25);
  b.vars.release(v);
  const cyclic = { x: 1 };
  cyclic.self = cyclic;
  const before = b.vars.size;
  assert.throws(() => t(cyclic), /cycle/);
  assert.equal(b.vars.size, before, 'a failed conversion leaves nothing behind');
});

test('messages posted before DidCreate are queued, then delivered in order, each with one reference', () => {
  const { b, main, events } = fake();
  b.postMessage('uci');
  b.postMessage({ n: 1 });
  assert.equal(main.length, 0, 'nothing reaches the plugin before DidCreate');
  b.created(true);
  assert.deepEqual(events, ['loaded']);
  const kinds = main.map((i) => i.ppp);
  assert.deepEqual(kinds, ['DidChangeView', 'HandleMessage', 'HandleMessage']);
  assert.equal(b.vars.stringOf(main[1].var), 'uci');
  assert.equal(b.vars.entry(main[1].var).refs, 1);
  assert.equal(b.vars.entry(main[2].var).type, VAR.DICTIONARY);
});

test('a DidCreate that says no fails the load and drops queued messages', () => {
  const { b, main, events } = fake();
  b.postMessage('early');
  b.created(false);
  assert.deepEqual(events, ['failed: could not create instance.']);
  assert.equal(main.length, 0);
});

test('DidCreate gets every attribute as argn/argv, in order', () => {
  const { b, mem } = fake({ attributes: [['id', 'x'], ['src', 'a.nmf'], ['ARG1', '-v']] });
  const { argc, argn, argv } = b.createArgs();
  assert.equal(argc, 3);
  const s = (p) => mem.readCString(p);
  assert.deepEqual([0, 1, 2].map((i) => s(mem.getU32(argn + 4 * i))), ['id', 'src', 'ARG1']);
  assert.deepEqual([0, 1, 2].map((i) => s(mem.getU32(argv + 4 * i))), ['x', 'a.nmf', '-v']);
});

test('completion callbacks: blocking, required and optional on the main and other threads', async () => {
  const { b, scratch, cb, main, call, callOn } = fake();
  // Blocking on the main thread is refused.
  assert.deepEqual(b.completion(MAIN_TID, cb(scratch + 64, 0, 0)), { error: PP.ERROR_BLOCKS_MAIN_THREAD });
  // Required on a thread without a loop: no loop.
  assert.deepEqual(b.completion(5, cb(scratch + 64, 42, 7)), { error: PP.ERROR_NO_MESSAGE_LOOP });
  // Required on the main thread: pending, then an item on the main loop.
  const c = b.completion(MAIN_TID, cb(scratch + 64, 42, 7));
  assert.equal(c.finish(Promise.resolve(99)), PP.OK_COMPLETIONPENDING);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(main.pop(), [ITEM.CALLBACK, 42, 7, 99]);
  // Optional with the result at hand: no callback.
  const o = b.completion(MAIN_TID, cb(scratch + 64, 42, 7, 1));
  assert.equal(o.finish(12), 12);
  assert.equal(main.length, 0);
  // Blocking on another thread: the answer is the result itself.
  const k = b.completion(5, cb(scratch + 64, 0, 0));
  assert.equal(await k.finish(Promise.resolve(3)), 3);
  // CallOnMainThread never runs synchronously.
  call('PPB_Core;1.0:CallOnMainThread', 0, cb(scratch + 64, 50, 8), 5);
  assert.equal(main.length, 0);
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(main.pop(), [ITEM.CALLBACK, 50, 8, 5]);
  assert.equal(callOn(5, 'PPB_Core;1.0:IsMainThread'), 0);
  assert.equal(call('PPB_Core;1.0:IsMainThread'), 1);
});

test('message loops: attach, post work, quit, and the main loop\'s rules', async () => {
  const { b, scratch, cb, call, callOn } = fake();
  const T = 3;
  const loop = call('PPB_MessageLoop;1.0:Create', 1);
  assert.ok(loop > 0);
  assert.equal(callOn(T, 'PPB_MessageLoop;1.0:GetCurrent'), 0);
  assert.equal(callOn(T, 'PPB_MessageLoop;1.0:AttachToCurrentThread', loop), PP.OK);
  assert.equal(callOn(T, 'PPB_MessageLoop;1.0:AttachToCurrentThread', loop), PP.ERROR_INPROGRESS);
  assert.equal(call('PPB_MessageLoop;1.0:AttachToCurrentThread', loop), PP.ERROR_INPROGRESS, 'the main thread has its loop');
  const current = callOn(T, 'PPB_MessageLoop;1.0:GetCurrent');
  assert.equal(current, loop);
  call('PPB_Core;1.0:ReleaseResource', current);
  const mainLoop = call('PPB_MessageLoop;1.0:GetForMainThread');
  assert.equal(call('PPB_MessageLoop;1.0:PostQuit', mainLoop, 0), PP.ERROR_WRONG_THREAD);
  assert.equal(call('$MessageLoop.enter', mainLoop), PP.ERROR_INPROGRESS);
  assert.equal(call('$MessageLoop.enter', loop), PP.ERROR_WRONG_THREAD, 'Run only on the attached thread');
  // Work posted before Run waits in the queue; Run takes it in order.
  assert.equal(call('PPB_MessageLoop;1.0:PostWork', loop, cb(scratch + 64, 11, 1), 0n), PP.OK);
  assert.equal(call('PPB_MessageLoop;1.0:PostWork', loop, cb(scratch + 64, 0, 1), 0n), PP.ERROR_BADARGUMENT);
  assert.equal(callOn(T, '$MessageLoop.enter', loop), PP.OK);
  assert.equal(callOn(T, '$MessageLoop.enter', loop), PP.ERROR_INPROGRESS, 'no nested Run');
  assert.deepEqual((await callOn(T, '$MessageLoop.next', loop)).payload, [ITEM.CALLBACK, 11, 1, PP.OK]);
  // An empty loop's next waits until work arrives.
  const waiting = callOn(T, '$MessageLoop.next', loop);
  assert.ok(waiting instanceof Promise);
  call('PPB_MessageLoop;1.0:PostWork', loop, cb(scratch + 64, 12, 2), 0n);
  assert.deepEqual((await waiting).payload, [ITEM.CALLBACK, 12, 2, PP.OK]);
  assert.equal(call('PPB_MessageLoop;1.0:PostQuit', loop, 1), PP.OK);
  assert.deepEqual((await callOn(T, '$MessageLoop.next', loop)).payload, [ITEM.QUIT]);
  callOn(T, '$MessageLoop.exit', loop);
  assert.equal(b.threadLoops.has(T), false, 'PostQuit(destroy) detached the loop');
  assert.equal(call('PPB_MessageLoop;1.0:PostWork', loop, cb(scratch + 64, 13, 3), 0n), PP.ERROR_FAILED);
});

test('a registered message handler takes page messages on its loop, not the main thread', () => {
  const { b, call, callOn, main } = fake();
  const loop = call('PPB_MessageLoop;1.0:Create', 1);
  assert.equal(call('PPB_Messaging;1.2:RegisterMessageHandler', 1, 77, 0x5000, call('PPB_MessageLoop;1.0:GetForMainThread')), PP.ERROR_WRONG_THREAD);
  assert.equal(call('PPB_Messaging;1.2:RegisterMessageHandler', 1, 77, 0x5000, loop), PP.OK);
  b.created(true);
  main.length = 0;
  b.postMessage('to the handler');
  assert.equal(main.length, 0);
  const l = b.resources.get(loop);
  assert.equal(l.queue.length, 1);
  const [kind, handler, userData] = l.queue[0];
  assert.deepEqual([kind, handler, userData], [ITEM.HANDLER_MESSAGE, 0x5000, 77]);
  call('PPB_Messaging;1.2:UnregisterMessageHandler', 1);
  assert.equal(l.queue[1][0], ITEM.HANDLER_DESTROY);
  b.postMessage('back to PPP_Messaging');
  assert.equal(main[0].ppp, 'HandleMessage');
  void callOn;
});

test('interface tables: supported interfaces get their function addresses, others NULL (reported once)', () => {
  const { b, mem, events, call, scratch, str } = fake();
  const get = (name) => {
    str(scratch + 512, `${name}\0`);
    return call('@browser:PPB_GetInterface', scratch + 512);
  };
  const table = get('PPB_Var;1.2');
  assert.notEqual(table, 0);
  PPB_INTERFACES['PPB_Var;1.2'].forEach((key, i) => assert.equal(mem.getU32(table + 4 * i), ppbAddress(PPB_INDEX.get(key))));
  assert.equal(get('PPB_Var;1.2'), table, 'built once');
  assert.equal(get('PPB_NoSuchThing;9.9'), 0);
  assert.equal(get('PPB_NoSuchThing;9.9'), 0);
  assert.deepEqual(events, ['missing: PPB_NoSuchThing;9.9']);
  assert.equal(get('@browser'), 0, 'groups are not interfaces');
});

test('the implementation registry rejects a function defined twice or unknown to the ABI list', () => {
  const key = PPB_FUNCTIONS[1].key;
  assert.throws(() => mergeImplementations({ a: () => ({ [key]() {} }), b: () => ({ [key]() {} }) }, null), /twice/);
  assert.throws(() => mergeImplementations({ a: () => ({ 'PPB_Made;1.0:Up'() {} }) }, null), /does not declare/);
});

test('100k messages each way leave no var and no guest memory behind', () => {
  const { b, scratch, call, sent, main, str } = fake();
  b.created(true);
  main.length = 0;
  const heapBefore = b.heap.liveBytes;
  const n = str(scratch + 256, 'info depth 10 seldepth 14 multipv 1 score cp 35 nodes 41009');
  for (let i = 0; i < 100_000; i++) {
    // page → plugin: the plugin reads the string, then releases it
    b.postMessage(`position startpos moves e2e4 ${i}`);
    const item = main.pop();
    b.vars.write(scratch + 32, item.var);
    call('PPB_Var;1.0:VarToUtf8', scratch + 32, scratch + 100);
    call('PPB_Var;1.0:Release', scratch + 32);
    // plugin → page: make a string, post it, release it
    call('PPB_Var;1.1:VarFromUtf8', scratch, scratch + 256, n);
    call('PPB_Messaging;1.0:PostMessage', 1, scratch);
    call('PPB_Var;1.0:Release', scratch);
    sent.length = 0;
  }
  assert.equal(b.vars.size, 0);
  assert.equal(b.heap.liveBytes, heapBefore);
  assert.ok(b.heap.free.size <= 2, 'freed blocks are reused, not piled up');
});

test('Graphics2D: paints queue until Flush, which reads the image then and calls back on the next frame', async () => {
  const { b, mem, scratch, cb, call, main } = fake();
  const size = (at, w, h) => {
    mem.setI32(at, w);
    mem.setI32(at + 4, h);
    return at;
  };
  const point = (at, x, y) => size(at, x, y);
  const g = call('PPB_Graphics2D;1.0:Create', 1, size(scratch + 128, 4, 2), 1);
  const img = call('PPB_ImageData;1.0:Create', 1, 0, size(scratch + 136, 2, 2), 1);
  assert.ok(g > 0 && img > 0);
  assert.equal(call('PPB_ImageData;1.0:Describe', img, scratch + 144), 1);
  assert.deepEqual([0, 4, 8, 12].map((o) => mem.getI32(scratch + 144 + o)), [0, 2, 2, 8]);
  const px = call('PPB_ImageData;1.0:Map', img);
  mem.write(px, Uint8Array.from({ length: 16 }, (_, i) => i + 1));
  call('PPB_Graphics2D;1.0:PaintImageData', g, img, point(scratch + 160, 2, 0), 0);
  // Changing the image before Flush changes what Flush paints (read at Flush).
  mem.setU8(px, 99);
  const dev = b.resources.get(g);
  assert.equal(dev.store[8], 0, 'nothing painted before Flush');
  b.state = 'created';
  assert.equal(call('PPB_Graphics2D;1.0:Flush', g, cb(scratch + 64, 0, 0)), PP.ERROR_BADARGUMENT, 'no blocking Flush on the main thread');
  assert.equal(call('PPB_Graphics2D;1.0:Flush', g, cb(scratch + 64, 21, 4)), PP.OK_COMPLETIONPENDING);
  assert.equal(call('PPB_Graphics2D;1.0:Flush', g, cb(scratch + 64, 21, 4)), PP.ERROR_INPROGRESS);
  assert.deepEqual([...dev.store.subarray(8, 16)], [99, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual([...dev.store.subarray(24, 32)], [9, 10, 11, 12, 13, 14, 15, 16]);
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual(main.pop(), [ITEM.CALLBACK, 21, 4, PP.OK]);
  // The device no longer holds the image once painted: releasing it frees it.
  const before = b.heap.liveBytes;
  call('PPB_Core;1.0:ReleaseResource', img);
  assert.ok(b.heap.liveBytes < before);
});

test('input events reach the plugin only in the classes it asked for, with the browser\'s reference during the call', async () => {
  const { b, main, call, mem, scratch } = fake();
  b.created(true);
  main.length = 0;
  const mouse = { type: 0, timeStamp: 12.5, modifiers: 64, button: 0, x: 10, y: 20, clickCount: 1 };
  assert.equal(await b.inputEvent(mouse), false, 'not asked for: not delivered');
  assert.equal(main.length, 0);
  assert.equal(call('PPB_InputEvent;1.0:RequestInputEvents', 1, 1), PP.OK);
  const done = b.inputEvent(mouse);
  const item = main.pop();
  assert.equal(item.member, 'HandleInputEvent');
  const [, id] = item.args;
  assert.equal(call('PPB_InputEvent;1.0:GetType', id), 0);
  assert.equal(call('PPB_InputEvent;1.0:GetModifiers', id), 64);
  call('PPB_MouseInputEvent;1.0:GetPosition', scratch + 400, id);
  assert.deepEqual([mem.getI32(scratch + 400), mem.getI32(scratch + 404)], [10, 20]);
  assert.equal(call('PPB_KeyboardInputEvent;1.0:IsKeyboardInputEvent', id), 0);
  b.call('$Pepper.reply', 0, [item.reply, 0]);
  assert.equal(await done, true, 'unfiltered events count as handled');
  assert.equal(b.resources.get(id), null, 'released after the call');
  // A key event with its character and DOM code (KeyboardInputEvent 1.2).
  call('PPB_InputEvent;1.0:RequestFilteringInputEvents', 1, 2);
  const key = b.inputEvent({ type: 9, timeStamp: 1, modifiers: 0, keyCode: 65, text: 'a', code: 'KeyA' });
  const k = main.pop();
  const kid = k.args[1];
  call('PPB_KeyboardInputEvent;1.0:GetCharacterText', scratch, kid);
  call('PPB_KeyboardInputEvent;1.2:GetCode', scratch + 16, kid);
  assert.equal(b.vars.stringOf(b.vars.read(scratch)), 'a');
  assert.equal(b.vars.stringOf(b.vars.read(scratch + 16)), 'KeyA');
  b.call('$Pepper.reply', 0, [k.reply, 0]);
  assert.equal(await key, false, 'a filtered event the plugin did not handle goes back to the page');
});

test('audio: configs as Chrome allowed them, and periods paced by the player\'s room', async () => {
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const written = [];
  let room = 2048;
  const b = new Browser({
    proc: { mem, pages },
    embedder: {
      audio: {
        sampleRate: 48000,
        open: ({ frames }) => ({
          waitForSpace: async (n, cancelled) => {
            while (room < n) {
              if (cancelled()) return false;
              await new Promise((r) => setTimeout(r, 5));
            }
            return true;
          },
          write: (s) => {
            written.push(s);
            room -= s.length / 2;
            return s.length / 2;
          },
          fill: () => frames - room,
          close() {},
        }),
      },
    },
    transport: { toMain() {} },
  });
  const call = (key, ...args) => b.call(key, MAIN_TID, args);
  assert.equal(b.supports('PPB_Audio;1.1'), true);
  assert.equal(call('PPB_AudioConfig;1.0:CreateStereo16Bit', 1, 22050, 1024), 0, 'only 44.1 and 48 kHz');
  assert.equal(call('PPB_AudioConfig;1.0:CreateStereo16Bit', 1, 48000, 32), 0, 'at least 64 frames');
  assert.equal(call('PPB_AudioConfig;1.1:RecommendSampleFrameCount', 1, 48000, 100), 512);
  assert.equal(call('PPB_AudioConfig;1.1:RecommendSampleRate', 1), 48000);
  const config = call('PPB_AudioConfig;1.0:CreateStereo16Bit', 1, 48000, 512);
  const audio = call('PPB_Audio;1.1:Create', 1, config, 77, 5);
  assert.ok(audio > 0);
  assert.equal(call('$Audio.start', audio), 0, 'no thread creator registered: no thread');
  b.threadCreator = { create: 90, join: 91 };
  const start = call('$Audio.start', audio);
  assert.deepEqual(start, { value: 1, payload: [90] });
  const first = await call('$Audio.wait', audio);
  const [go, callback, buffer, bytes, userData, withLatency] = first.payload;
  assert.deepEqual([go, callback, bytes, userData, withLatency], [1, 77, 2048, 5, 1]);
  new Int16Array(memory.buffer, buffer, 1024).fill(16384);
  call('$Audio.filled', audio);
  assert.equal(written[0][0], 0.5, '16-bit samples become floats');
  room = 0;
  const waiting = call('$Audio.wait', audio);
  const stopped = call('$Audio.stop', audio);
  assert.deepEqual(stopped, { value: 1, payload: [91, 0] });
  assert.deepEqual((await waiting).payload, [0], 'a waiting audio thread is told to stop');
});

test('the audio worklet reads the ring layout the writer writes', async () => {
  const { createRing, RingWriter } = await import('../src/internal/pepper/audio-ring.js');
  const { RingReader } = await import('../src/internal/pepper/audio-worklet.js');
  const ring = createRing(8, 2);
  const w = new RingWriter(ring);
  const r = new RingReader(ring);
  assert.equal(w.write(Float32Array.from([0.1, -0.2, 0.3, -0.4, 0.5, -0.6])), 3);
  const out = [new Float32Array(4), new Float32Array(4)];
  r.read(out);
  assert.deepEqual([...out[0]].map((v) => +v.toFixed(2)), [0.1, 0.3, 0.5, 0]);
  assert.deepEqual([...out[1]].map((v) => +v.toFixed(2)), [-0.2, -0.4, -0.6, 0]);
  assert.equal(w.underruns(), 1, 'a short quantum after data counts');
  assert.equal(w.space(), 8);
  assert.ok(Math.abs(w.peak() - 0.6) < 1e-6);
});

/** A WebSocket stand-in the test drives. */
class FakeSocket {
  static last = null;
  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.sent = [];
    this.bufferedAmount = 0;
    this.protocol = protocols[0] ?? '';
    this.extensions = '';
    FakeSocket.last = this;
  }
  send(x) {
    this.sent.push(x);
  }
  close(code, reason) {
    queueMicrotask(() => this.onclose?.({ code: code ?? 1005, reason: reason ?? '', wasClean: true }));
  }
}

test('WebSocket: connect, receive queued and awaited messages, send, close with Chrome\'s checks', async () => {
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const s = pages.map(0x10000);
  const main = [];
  const b = new Browser({
    proc: { mem, pages },
    embedder: { WebSocket: FakeSocket },
    baseUrl: 'http://127.0.0.1:8000/app/index.html',
    transport: { toMain: (item) => main.push(item) },
  });
  const call = (key, ...args) => b.call(key, MAIN_TID, args);
  const cb = (func) => {
    mem.setU32(s + 64, func);
    mem.setU32(s + 68, 0);
    mem.setI32(s + 72, 0);
    return s + 64;
  };
  const str = (at, text) => b.vars.write(at, b.vars.string(text));
  assert.equal(b.supports('PPB_WebSocket;1.0'), true);
  const ws = call('PPB_WebSocket;1.0:Create', 1);
  str(s, 'ws://127.0.0.1:9/echo');
  str(s + 16, 'chat');
  assert.equal(call('PPB_WebSocket;1.0:Connect', ws, s, s + 16, 1, cb(31)), PP.OK_COMPLETIONPENDING);
  assert.equal(call('PPB_WebSocket;1.0:Connect', ws, s, s + 16, 1, cb(31)), PP.ERROR_INPROGRESS);
  const sock = FakeSocket.last;
  assert.deepEqual([sock.url, sock.protocols], ['ws://127.0.0.1:9/echo', ['chat']]);
  assert.equal(call('PPB_WebSocket;1.0:SendMessage', ws, s), PP.ERROR_FAILED, 'not yet open');
  sock.onopen();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(main.pop(), [ITEM.CALLBACK, 31, 0, PP.OK]);
  // A message that is there completes at once, callback or not.
  sock.onmessage({ data: 'hello' });
  assert.equal(call('PPB_WebSocket;1.0:ReceiveMessage', ws, s + 32, cb(32)), PP.OK);
  assert.equal(b.vars.stringOf(b.vars.read(s + 32)), 'hello');
  // Otherwise when one arrives: a binary one is an array buffer var.
  assert.equal(call('PPB_WebSocket;1.0:ReceiveMessage', ws, s + 48, cb(33)), PP.OK_COMPLETIONPENDING);
  sock.onmessage({ data: Uint8Array.of(7, 8).buffer });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(main.pop(), [ITEM.CALLBACK, 33, 0, PP.OK]);
  assert.deepEqual([...new Uint8Array(b.vars.toJs(b.vars.read(s + 48)))], [7, 8]);
  assert.equal(call('PPB_WebSocket;1.0:SendMessage', ws, s), PP.OK);
  assert.equal(sock.sent[0], 'ws://127.0.0.1:9/echo');
  b.vars.write(s, { type: 0, value: 0 });
  assert.equal(call('PPB_WebSocket;1.0:Close', ws, 999, s, cb(34)), PP.ERROR_NOACCESS, 'only 1000 and 3000-4999');
  str(s, 'x'.repeat(124));
  assert.equal(call('PPB_WebSocket;1.0:Close', ws, 1000, s, cb(34)), PP.ERROR_BADARGUMENT, 'reason over 123 bytes');
  str(s, 'bye');
  assert.equal(call('PPB_WebSocket;1.0:Close', ws, 4000, s, cb(34)), PP.OK_COMPLETIONPENDING);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(main.pop(), [ITEM.CALLBACK, 34, 0, PP.OK]);
  assert.equal(call('PPB_WebSocket;1.0:GetCloseCode', ws), 4000);
  assert.equal(call('PPB_WebSocket;1.0:GetReadyState', ws), 3);
  assert.equal(call('PPB_WebSocket;1.0:ReceiveMessage', ws, s + 32, cb(35)), PP.ERROR_FAILED, 'closed and drained');
});

test('sockets and name resolution answer NOACCESS, as Chrome did for pages; addresses are values', async () => {
  const { b, mem, scratch, call, callOn, cb, main } = fake();
  const v4 = scratch + 500;
  mem.write(v4, Uint8Array.of(0x1f, 0x90, 127, 0, 0, 1));
  const a = call('PPB_NetAddress;1.0:CreateFromIPv4Address', 1, v4);
  assert.equal(call('PPB_NetAddress;1.0:GetFamily', a), 1);
  call('PPB_NetAddress;1.0:DescribeAsString', scratch, a, 1);
  assert.equal(b.vars.stringOf(b.vars.read(scratch)), '127.0.0.1:8080');
  const v6 = scratch + 520;
  mem.write(v6, Uint8Array.of(0, 80, 0x20, 0x01, 0x0d, 0xb8, ...new Array(11).fill(0), 1));
  const a6 = call('PPB_NetAddress;1.0:CreateFromIPv6Address', 1, v6);
  call('PPB_NetAddress;1.0:DescribeAsString', scratch, a6, 1);
  assert.equal(b.vars.stringOf(b.vars.read(scratch)), '[2001:db8::1]:80');
  // The browser answered NOACCESS: a required callback gets it later, a
  // blocking call from a background thread gets it as its answer.
  const tcp = call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(call('PPB_TCPSocket;1.0:Connect', tcp, a, cb(scratch + 64, 42, 7)), PP.OK_COMPLETIONPENDING);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(main.at(-1), [ITEM.CALLBACK, 42, 7, PP.ERROR_NOACCESS]);
  const res = call('PPB_HostResolver;1.0:Create', 1);
  mem.writeCBytes(scratch + 600, new TextEncoder().encode('example.org'));
  assert.equal(await callOn(5, 'PPB_HostResolver;1.0:Resolve', res, scratch + 600, 80, scratch + 620, cb(scratch + 64, 0, 0)), PP.ERROR_NOACCESS);
  const udp = call('PPB_UDPSocket;1.0:Create', 1);
  assert.equal(await callOn(5, 'PPB_UDPSocket;1.0:Bind', udp, a, cb(scratch + 64, 0, 0)), PP.ERROR_NOACCESS);
  assert.equal(b.network, null);
});

test('the runtime offers exactly the interfaces src/abi/ppapi.h says, in Node and in a page', async () => {
  const { PPB_AVAILABILITY } = await import('../src/internal/runtime/abi.js');
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const { nodeHost } = await import('../src/internal/node/host.js');
  await nodeHost.preparePepper();
  // Node: what `pexe run` and the Node entry give a plugin (the host's WebSocket).
  const node = new Browser({ proc: { mem, pages }, embedder: {}, webSocket: nodeHost.WebSocket, transport: { toMain() {} } });
  const page = new Browser({
    proc: { mem, pages },
    canvas2d: {},
    has3d: true,
    embedder: {
      audio: { sampleRate: 48000, open() {} },
      setCursor() {},
      lockMouse() {},
      setFullscreen() {},
      gamepads: () => [],
      WebSocket: class {},
    },
    transport: { toMain() {} },
  });
  const wrong = [];
  for (const [name, where] of Object.entries(PPB_AVAILABILITY)) {
    const inNode = node.supports(name);
    const inPage = page.supports(name);
    const expectNode = where === 'everywhere';
    const expectPage = where !== 'nowhere';
    if (inNode !== expectNode || inPage !== expectPage) wrong.push(`${name}: declared ${where}, offered in Node ${inNode}, in a page ${inPage}`);
  }
  assert.deepEqual(wrong, []);
});
