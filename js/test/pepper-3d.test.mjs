// The 3D interfaces' place in the Pepper host (no WebGL here: the GL layer
// itself is tested in Chromium, tests/browser/gl-layer.test.mjs): which
// functions the surface's thread serves, when the browser offers them, the
// fault when a thread without the surface calls one, and the browser's
// half of Graphics3D resources.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PPB_INTERFACES } from '../src/internal/runtime/abi.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { PageAllocator } from '../src/internal/runtime/irt/memory.js';
import { GuestFault } from '../src/internal/runtime/faults.js';
import { Browser } from '../src/internal/pepper/browser.js';
import { INSTANCE_ID, MAIN_TID } from '../src/internal/pepper/defs.js';
import { PluginMain } from '../src/internal/pepper/plugin.js';
import { THREAD_SERVED_INTERFACES, THREAD_SERVED_KEYS, localImplementations } from '../src/internal/pepper/local.js';

const GL_INTERFACES = [
  'PPB_Graphics3D;1.0',
  'PPB_OpenGLES2;1.0',
  'PPB_OpenGLES2InstancedArrays;1.0',
  'PPB_OpenGLES2FramebufferBlit;1.0',
  'PPB_OpenGLES2FramebufferMultisample;1.0',
  'PPB_OpenGLES2ChromiumEnableFeature;1.0',
  'PPB_OpenGLES2ChromiumMapSub;1.0',
  'PPB_OpenGLES2Query;1.0',
  'PPB_OpenGLES2VertexArrayObject;1.0',
  'PPB_OpenGLES2DrawBuffers(Dev);1.0',
  // Its pictures are textures of the plugin's GL context (gl/video-decoder.js).
  'PPB_VideoDecoder;0.1',
  'PPB_VideoDecoder;0.2',
  'PPB_VideoDecoder;1.0',
  'PPB_VideoDecoder;1.1',
];

function browser({ has3d }) {
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const main = [];
  const events = [];
  const bound = [];
  const b = new Browser({
    proc: { mem, pages },
    has3d,
    embedder: {
      missingInterface: (n) => events.push(`missing: ${n}`),
      bindGraphics: (r) => bound.push(r?.kind ?? null),
      log: (level, source, text) => events.push(`${level} ${source}: ${text}`),
    },
    transport: { toMain: (item) => main.push(item) },
  });
  return { b, mem, memory, main, events, bound, call: (key, ...args) => b.call(key, MAIN_TID, args) };
}

test('the surface thread serves every function of the 3D interfaces, and only those', () => {
  assert.deepEqual([...THREAD_SERVED_INTERFACES].sort(), [...GL_INTERFACES].sort());
  const keys = GL_INTERFACES.flatMap((n) => PPB_INTERFACES[n]);
  assert.equal(THREAD_SERVED_KEYS.size, new Set(keys).size);
  assert.equal(PPB_INTERFACES['PPB_OpenGLES2;1.0'].length, 142, 'the ES 2.0 table');
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 16, shared: true });
  const thread = { tid: 0, memory, canvas3d: null, queueItem() {} };
  const impl = localImplementations(thread, { call: () => 0 });
  for (const k of THREAD_SERVED_KEYS) assert.equal(typeof impl[k], 'function', k);
  assert.equal(Object.keys(impl).length, THREAD_SERVED_KEYS.size);
  assert.equal(typeof thread.local.handle, 'function', 'the thread can take local items');
});

test('without a 3D surface (Node) the 3D interfaces are NULL; with one, they have tables', () => {
  const none = browser({ has3d: false });
  for (const name of GL_INTERFACES) {
    assert.equal(none.b.supports(name), false, name);
    assert.equal(none.b.getInterface(name), 0, name);
  }
  assert.ok(none.events.includes('missing: PPB_OpenGLES2;1.0'), 'reported to the embedder');
  const page = browser({ has3d: true });
  for (const name of GL_INTERFACES) {
    assert.equal(page.b.supports(name), true, name);
    assert.notEqual(page.b.getInterface(name), 0, name);
  }
});

test('a 3D call that reaches the browser (a thread without the surface) is the guest’s fault', () => {
  const { b } = browser({ has3d: true });
  assert.throws(
    () => b.call('PPB_OpenGLES2;1.0:Clear', 3, [1, 0x4000]),
    (e) => e instanceof GuestFault && /PPB_OpenGLES2;1\.0:Clear/.test(e.message) && /thread 3/.test(e.message),
  );
  assert.throws(() => b.call('PPB_Graphics3D;1.0:SwapBuffers', 2, [1, 0]), GuestFault);
});

test('Graphics3D resources: bind, reference counts, destruction told to the owning thread', () => {
  const { b, main, bound, call, events } = browser({ has3d: true });
  const id = call('$Graphics3D.create', 640, 480, 1);
  assert.equal(b.resources.kindOf(id), 'Graphics3D');
  assert.equal(call('$Graphics3D.alive', id), 1);
  assert.equal(call('PPB_Instance;1.0:BindGraphics', INSTANCE_ID, id), 1);
  assert.deepEqual(bound, ['Graphics3D']);
  call('PPB_Core;1.0:ReleaseResource', id);
  assert.equal(call('$Graphics3D.alive', id), 1, 'the instance still holds it');
  assert.deepEqual(main, []);
  call('PPB_Instance;1.0:BindGraphics', INSTANCE_ID, 0);
  assert.equal(call('$Graphics3D.alive', id), 0);
  assert.deepEqual(main, [{ local: 'Graphics3D.destroyed', id }], 'the owning thread is told');
  // A lost context is unbound, as Chrome did.
  const lost = call('$Graphics3D.create', 1, 1, 1);
  call('PPB_Instance;1.0:BindGraphics', INSTANCE_ID, lost);
  call('$Graphics3D.lost', lost);
  assert.equal(b.bound, 0);
  assert.deepEqual(bound.slice(-1), [null]);
  call('$Graphics3D.report', 'warning', 'hello', 'pexe-gl');
  assert.ok(events.includes('warning pexe-gl: hello'));
});

test('guest memory for the GL layer comes from the browser’s heap', () => {
  const { b, call } = browser({ has3d: true });
  const before = b.heap.liveBytes;
  const p = call('$GuestHeap.alloc', 100);
  assert.ok(p > 0 && b.heap.liveBytes > before);
  call('$GuestHeap.free', p);
  assert.equal(b.heap.liveBytes, before);
});

test('the main loop hands local items to the thread’s own state', async () => {
  const seen = [];
  const thread = { tid: 0, local: { handle: (item) => seen.push(item) || true } };
  const main = new PluginMain(thread, { call: () => 0 }, { initialize: 0, shutdown: 0, getInterface: 0 });
  await main.handle({ local: 'Graphics3D.destroyed', id: 9 });
  assert.deepEqual(seen, [{ local: 'Graphics3D.destroyed', id: 9 }]);
  await assert.rejects(() => new PluginMain({ tid: 0 }, { call: () => 0 }, {}).handle({ local: 'x' }), /unknown local item/);
});

test('the page’s visibility reaches the 3D thread (its frames stop while hidden)', () => {
  const { b, main } = browser({ has3d: true });
  b.setView({ pageVisible: false });
  b.setView({ pageVisible: false });
  b.setView({ pageVisible: true });
  assert.deepEqual(main.filter((i) => i.local), [
    { local: 'Graphics3D.pageVisible', visible: false },
    { local: 'Graphics3D.pageVisible', visible: true },
  ]);
  const none = browser({ has3d: false });
  none.b.setView({ pageVisible: false });
  assert.deepEqual(none.main.filter((i) => i.local), [], 'nothing without a 3D surface');
});
