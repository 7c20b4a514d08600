// PPB_FileSystem, PPB_FileRef and PPB_FileIO (src/internal/pepper/ppb/
// file-*.js) against the memory store and a fake process: every function
// of every version, Chrome's error codes, the three callback modes,
// PP_ArrayOutput (the browser half and the thread half), aborts on Close,
// quotas, and hostile arguments.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Browser } from '../src/internal/pepper/browser.js';
import {
  FILE_SYSTEM,
  FILE_TYPE,
  ITEM,
  MAIN_TID,
  MKDIR,
  OPEN,
  OUTPUT_WORDS,
  PP,
  PP_FILE_INFO,
  VAR,
} from '../src/internal/pepper/defs.js';
import { fillOutput, pepperImports, runItem } from '../src/internal/pepper/plugin.js';
import { memoryStorage } from '../src/internal/pepper/storage/index.js';
import { GuestFault } from '../src/internal/runtime/faults.js';
import { PageAllocator } from '../src/internal/runtime/irt/memory.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { DirectLink } from '../src/internal/runtime/threads/rpc.js';

const T = 5; // a background thread (blocking calls are allowed there)
const LOOP_T = 6; // a background thread with a message loop

/** A browser over a fresh memory with small quotas. */
function fake({ temporaryQuota = 1 << 20, persistentQuota = 1 << 20 } = {}) {
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const scratch = pages.map(0x10000);
  const main = [];
  const logs = [];
  const storage = memoryStorage({ temporaryQuota, persistentQuota });
  const b = new Browser({
    proc: { mem, pages },
    embedder: { log: (...a) => logs.push(a) },
    transport: { toMain: (item) => main.push(item) },
    storage,
  });
  const call = (key, ...args) => b.call(key, MAIN_TID, args);
  const callOn = (tid, key, ...args) => b.call(key, tid, args);
  let cbAt = scratch + 0x8000;
  /** A fresh PP_CompletionCallback in guest memory. */
  const cb = (func, userData = 0, flags = 0) => {
    const at = cbAt;
    cbAt += 16;
    mem.setU32(at, func);
    mem.setU32(at + 4, userData);
    mem.setI32(at + 8, flags);
    return at;
  };
  let strAt = scratch + 0x9000;
  const str = (s) => {
    const bytes = typeof s === 'string' ? new TextEncoder().encode(s) : s;
    const at = strAt;
    strAt += bytes.length + 16;
    mem.writeCBytes(at, bytes);
    return at;
  };
  /** Runs a main-thread call with a required callback; resolves with the callback's result. */
  const done = async (key, ...args) => {
    const n = main.length;
    const r = call(key, ...args, cb(77, 1));
    assert.equal(r, PP.OK_COMPLETIONPENDING, `${key} answers COMPLETIONPENDING`);
    for (let i = 0; i < 200 && main.length === n; i++) await tick();
    const item = main.pop();
    assert.ok(Array.isArray(item), `${key} called back`);
    return item[0] === ITEM.OUTPUT_CALLBACK ? item : item[3];
  };
  /** A blocking call on a background thread: its answer. */
  const blocking = async (key, ...args) => callOn(T, key, ...args, cb(0));
  // A loop on LOOP_T, so required callbacks there are allowed.
  const loop = call('PPB_MessageLoop;1.0:Create', 1);
  callOn(LOOP_T, 'PPB_MessageLoop;1.0:AttachToCurrentThread', loop);
  return { b, mem, pages, scratch, main, logs, storage, call, callOn, cb, str, done, blocking, loop };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/** An open file system of `type` and a ref to `path` in it. */
async function openFs(f, type = FILE_SYSTEM.LOCALTEMPORARY) {
  const fs = f.call('PPB_FileSystem;1.0:Create', 1, type);
  assert.ok(fs > 0);
  assert.equal(await f.done('PPB_FileSystem;1.0:Open', fs, 0n), PP.OK);
  return fs;
}

const ref = (f, fs, path) => f.call('PPB_FileRef;1.0:Create', fs, f.str(path));

/** An open FileIO on `path` with `flags`. */
async function openFile(f, fs, path, flags) {
  const io = f.call('PPB_FileIO;1.0:Create', 1);
  const r = ref(f, fs, path);
  const result = await f.done('PPB_FileIO;1.0:Open', io, r, flags);
  f.call('PPB_Core;1.0:ReleaseResource', r);
  return { io, result };
}

const bytesOf = (s) => new TextEncoder().encode(s);

test('FileSystem: create, type, open once; only temporary and persistent open', async () => {
  const f = fake();
  assert.equal(f.call('PPB_FileSystem;1.0:Create', 2, FILE_SYSTEM.LOCALTEMPORARY), 0, 'no such instance');
  assert.equal(f.call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.INVALID), 0);
  assert.equal(f.call('PPB_FileSystem;1.0:Create', 1, 9), 0);
  const fs = f.call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.LOCALPERSISTENT);
  assert.equal(f.call('PPB_FileSystem;1.0:IsFileSystem', fs), 1);
  assert.equal(f.call('PPB_FileSystem;1.0:IsFileSystem', 9999), 0);
  assert.equal(f.call('PPB_FileSystem;1.0:GetType', fs), FILE_SYSTEM.LOCALPERSISTENT);
  assert.equal(f.call('PPB_FileSystem;1.0:GetType', 9999), FILE_SYSTEM.INVALID);
  assert.equal(await f.done('PPB_FileSystem;1.0:Open', fs, 1024n), PP.OK);
  assert.equal(await f.done('PPB_FileSystem;1.0:Open', fs, 1024n), PP.ERROR_FAILED, 'a second Open fails');
  const ext = f.call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.EXTERNAL);
  assert.ok(ext > 0, 'EXTERNAL can be created');
  assert.equal(await f.done('PPB_FileSystem;1.0:Open', ext, 0n), PP.ERROR_FAILED, 'but not opened');
});

test('callbacks: blocking refused on the main thread, allowed elsewhere; optional and bad resources', async () => {
  const f = fake();
  const fs = f.call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.LOCALTEMPORARY);
  assert.equal(f.call('PPB_FileSystem;1.0:Open', fs, 0n, f.cb(0)), PP.ERROR_BLOCKS_MAIN_THREAD);
  // No loop on this background thread: a required callback cannot be called.
  assert.equal(f.callOn(9, 'PPB_FileSystem;1.0:Open', fs, 0n, f.cb(5)), PP.ERROR_NO_MESSAGE_LOOP);
  // Blocking on a background thread: the answer is the result.
  assert.equal(await f.blocking('PPB_FileSystem;1.0:Open', fs, 0n), PP.OK);
  // A required callback with a bad resource still runs (Chrome's EnterBase::SetResult).
  assert.equal(await f.done('PPB_FileSystem;1.0:Open', 4242, 0n), PP.ERROR_BADRESOURCE);
  // An optional one does not: the call answers the error.
  assert.equal(f.call('PPB_FileSystem;1.0:Open', 4242, 0n, f.cb(5, 0, 1)), PP.ERROR_BADRESOURCE);
  // A callback for a loop thread goes to that loop.
  const r = ref(f, fs, '/x');
  assert.equal(f.callOn(LOOP_T, 'PPB_FileRef;1.0:MakeDirectory', r, 0, f.cb(31, 32)), PP.OK_COMPLETIONPENDING);
  for (let i = 0; i < 20; i++) await tick();
  const l = f.b.resources.get(f.loop);
  assert.deepEqual(l.queue.pop(), [ITEM.CALLBACK, 31, 32, PP.OK]);
});

test('FileRef: paths as Chrome checked them, names, parents, types', async () => {
  const f = fake();
  const fs = f.call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.LOCALPERSISTENT);
  const name = (id) => {
    f.call('PPB_FileRef;1.0:GetName', f.scratch, id);
    const v = f.b.vars.read(f.scratch);
    return v.type === VAR.STRING ? f.b.vars.stringOf(v) : v.type;
  };
  const path = (id) => {
    f.call('PPB_FileRef;1.0:GetPath', f.scratch, id);
    const v = f.b.vars.read(f.scratch);
    return v.type === VAR.STRING ? f.b.vars.stringOf(v) : v.type;
  };
  for (const bad of ['relative', '', '/a/../b', '/..', '/a/..', '..']) assert.equal(ref(f, fs, bad), 0, JSON.stringify(bad));
  assert.equal(f.call('PPB_FileRef;1.0:Create', fs, f.str(Uint8Array.of(0x2f, 0xff, 0x61))), 0, 'not UTF-8');
  assert.equal(f.call('PPB_FileRef;1.0:Create', 9999, f.str('/a')), 0, 'not a file system');
  assert.equal(ref(f, fs, `/${'x'.repeat(5000)}`), 0, 'too long');
  const a = ref(f, fs, '/dir/sub/file.txt');
  assert.equal(f.call('PPB_FileRef;1.0:IsFileRef', a), 1);
  assert.equal(f.call('PPB_FileRef;1.0:IsFileRef', fs), 0);
  assert.equal(f.call('PPB_FileRef;1.0:GetFileSystemType', a), FILE_SYSTEM.LOCALPERSISTENT);
  assert.equal(f.call('PPB_FileRef;1.0:GetFileSystemType', fs), FILE_SYSTEM.INVALID);
  assert.equal(name(a), 'file.txt');
  assert.equal(path(a), '/dir/sub/file.txt');
  assert.equal(name(9999), VAR.UNDEFINED);
  const parent = f.call('PPB_FileRef;1.0:GetParent', a);
  assert.equal(path(parent), '/dir/sub');
  assert.equal(path(f.call('PPB_FileRef;1.0:GetParent', ref(f, fs, '/top'))), '/');
  const root = ref(f, fs, '/');
  assert.equal(name(root), '/');
  assert.equal(path(f.call('PPB_FileRef;1.0:GetParent', root)), '/', 'the root is its own parent');
  assert.equal(path(ref(f, fs, '/trailing/')), '/trailing', 'a trailing slash is dropped');
  assert.equal(path(ref(f, fs, '/a/.../b')), '/a/.../b', '"..." is a name');
  // A ref keeps its file system alive.
  f.call('PPB_Core;1.0:ReleaseResource', fs);
  assert.equal(f.call('PPB_FileSystem;1.0:IsFileSystem', fs), 1);
  assert.equal(f.call('PPB_FileSystem;1.0:GetType', fs), FILE_SYSTEM.LOCALPERSISTENT);
});

test('FileRef operations fail until the file system is open', async () => {
  const f = fake();
  const fs = f.call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.LOCALTEMPORARY);
  const r = ref(f, fs, '/d');
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', r, 0), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileRef;1.1:Query', r, f.scratch), PP.ERROR_FAILED);
  const io = f.call('PPB_FileIO;1.0:Create', 1);
  assert.equal(await f.done('PPB_FileIO;1.0:Open', io, r, OPEN.READ), PP.ERROR_BADARGUMENT);
});

test('MakeDirectory: make_ancestors (1.0/1.1) and flags (1.2)', async () => {
  const f = fake();
  const fs = await openFs(f);
  assert.equal(await f.done('PPB_FileRef;1.0:MakeDirectory', ref(f, fs, '/a/b/c'), 0), PP.ERROR_FILENOTFOUND);
  assert.equal(await f.done('PPB_FileRef;1.0:MakeDirectory', ref(f, fs, '/a/b/c'), 1), PP.OK);
  assert.equal(await f.done('PPB_FileRef;1.0:MakeDirectory', ref(f, fs, '/a/b'), 0), PP.OK, '1.0 is never exclusive');
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/a/b'), MKDIR.EXCLUSIVE), PP.ERROR_FILEEXISTS);
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/x/y'), MKDIR.NONE), PP.ERROR_FILENOTFOUND);
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/x/y'), MKDIR.WITH_ANCESTORS | MKDIR.EXCLUSIVE), PP.OK);
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/'), MKDIR.EXCLUSIVE), PP.ERROR_FILEEXISTS);
  const { io } = await openFile(f, fs, '/file', OPEN.WRITE | OPEN.CREATE);
  f.call('PPB_FileIO;1.0:Close', io);
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/file'), 0), PP.ERROR_FAILED, 'a file is in the way');
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/file/sub'), 1), PP.ERROR_FAILED);
  assert.deepEqual((await f.storage.get('temporary').then((s) => s.readdir('/'))).map((e) => e.name), ['a', 'file', 'x']);
});

test('Query and Touch: PP_FileInfo as Chrome filled it', async () => {
  const f = fake();
  const fs = await openFs(f, FILE_SYSTEM.LOCALPERSISTENT);
  const { io } = await openFile(f, fs, '/f.bin', OPEN.WRITE | OPEN.CREATE);
  f.mem.write(f.scratch + 512, bytesOf('0123456789'));
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 0n, f.scratch + 512, 10), 10);
  const info = f.scratch + 1024;
  const r = ref(f, fs, '/f.bin');
  assert.equal(await f.done('PPB_FileRef;1.1:Query', r, info), PP.OK);
  assert.equal(f.mem.getI64(info + PP_FILE_INFO.size), 10n);
  assert.equal(f.mem.getI32(info + PP_FILE_INFO.type), FILE_TYPE.REGULAR);
  assert.equal(f.mem.getI32(info + PP_FILE_INFO.system_type), FILE_SYSTEM.LOCALPERSISTENT);
  const mtime = f.mem.view().getFloat64(info + PP_FILE_INFO.last_modified_time, true);
  assert.ok(Math.abs(mtime - Date.now() / 1000) < 60, `mtime ${mtime} is in seconds`);
  assert.equal(await f.done('PPB_FileRef;1.0:Touch', r, 1000.5, 2000.25), PP.OK);
  assert.equal(await f.done('PPB_FileRef;1.1:Query', r, info), PP.OK);
  assert.equal(f.mem.view().getFloat64(info + PP_FILE_INFO.last_access_time, true), 1000.5);
  assert.equal(f.mem.view().getFloat64(info + PP_FILE_INFO.last_modified_time, true), 2000.25);
  assert.equal(await f.done('PPB_FileRef;1.1:Query', ref(f, fs, '/'), info), PP.OK);
  assert.equal(f.mem.getI32(info + PP_FILE_INFO.type), FILE_TYPE.DIRECTORY);
  assert.equal(await f.done('PPB_FileRef;1.1:Query', ref(f, fs, '/nope'), info), PP.ERROR_FILENOTFOUND);
  assert.equal(await f.done('PPB_FileRef;1.1:Query', r, 0), PP.ERROR_BADARGUMENT);
  assert.equal(await f.done('PPB_FileRef;1.0:Touch', ref(f, fs, '/nope'), 1, 1), PP.ERROR_FILENOTFOUND);
  // FileIO.Query and Touch on the open file.
  assert.equal(await f.done('PPB_FileIO;1.0:Touch', io, 5, 6), PP.OK);
  assert.equal(await f.done('PPB_FileIO;1.0:Query', io, info), PP.OK);
  assert.equal(f.mem.view().getFloat64(info + PP_FILE_INFO.last_modified_time, true), 6);
  assert.equal(f.mem.getI64(info + PP_FILE_INFO.size), 10n);
  assert.equal(await f.done('PPB_FileIO;1.0:Query', io, 0), PP.ERROR_BADARGUMENT);
});

test('Delete and Rename', async () => {
  const f = fake();
  const fs = await openFs(f);
  const tmp = await f.storage.get('temporary');
  await tmp.mkdir('/d/e', { recursive: true });
  const h = await tmp.open('/d/e/f', { write: true, create: true });
  await tmp.write(h, 0, bytesOf('abc'));
  await tmp.close(h);
  assert.equal(await f.done('PPB_FileRef;1.0:Delete', ref(f, fs, '/d')), PP.ERROR_FAILED, 'not empty');
  assert.equal(await f.done('PPB_FileRef;1.0:Delete', ref(f, fs, '/zz')), PP.ERROR_FILENOTFOUND);
  assert.equal(await f.done('PPB_FileRef;1.0:Delete', ref(f, fs, '/')), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/d/e/f'), ref(f, fs, '/g')), PP.OK);
  assert.equal((await tmp.stat('/g')).size, 3);
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/g'), ref(f, fs, '/g')), PP.OK, 'same path: nothing to do');
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/d'), ref(f, fs, '/d/e/inside')), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/g'), ref(f, fs, '/d')), PP.ERROR_FAILED, 'a file over a directory');
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/nope'), ref(f, fs, '/x')), PP.ERROR_FILENOTFOUND);
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/g'), ref(f, fs, '/no/dir/x')), PP.ERROR_FILENOTFOUND);
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/g'), 9999), PP.ERROR_BADRESOURCE);
  const other = await openFs(f, FILE_SYSTEM.LOCALPERSISTENT);
  assert.equal(await f.done('PPB_FileRef;1.0:Rename', ref(f, fs, '/g'), ref(f, other, '/g')), PP.ERROR_FAILED, 'another file system');
  assert.equal(await f.done('PPB_FileRef;1.0:Delete', ref(f, fs, '/d/e')), PP.OK);
  assert.equal(await f.done('PPB_FileRef;1.0:Delete', ref(f, fs, '/g')), PP.OK);
  assert.deepEqual((await tmp.readdir('/')).map((e) => e.name), ['d']);
});

/** A fake guest thread whose "function table" holds JS functions, and a link to `b`. */
function fakeThread(f, tid, fns) {
  const thread = {
    tid,
    mem: f.mem,
    exports: {
      table: { get: (i) => fns[i] },
      __stack_pointer: { value: f.scratch + 0x7000 },
      __stack_limit: { value: f.scratch + 0x6000 },
    },
  };
  const link = new DirectLink((name, args, t) => f.b.call(name, t, args), tid);
  return { thread, link };
}

test('ReadDirectoryEntries: PP_DirectoryEntry records through the PP_ArrayOutput, on the calling thread', async () => {
  const f = fake();
  const fs = await openFs(f);
  const tmp = await f.storage.get('temporary');
  await tmp.mkdir('/dir/sub', { recursive: true });
  await tmp.close(await tmp.open('/dir/b.txt', { write: true, create: true }));
  const out = f.scratch + 2048;
  f.mem.setU32(out, 91); // GetDataBuffer
  f.mem.setU32(out + 4, 92); // user_data
  const item = await f.done('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/dir'), out);
  assert.equal(item[0], ITEM.OUTPUT_CALLBACK);
  const [, func, userData, result, id, gdb, ud, count, size] = item;
  assert.deepEqual([func, userData, result, gdb, ud, count, size], [77, 1, PP.OK, 91, 92, 2, 8]);
  // The thread's half: GetDataBuffer, then the browser stores the entries, then the callback.
  const buffer = f.scratch + 3072;
  const calls = [];
  const { thread, link } = fakeThread(f, MAIN_TID, {
    91: (u, n, s) => {
      calls.push(['GetDataBuffer', u, n, s]);
      return buffer;
    },
    77: (u, r) => calls.push(['callback', u, r]),
  });
  runItem(thread, link, item, (fn, args) => fn(...args));
  assert.deepEqual(calls, [
    ['GetDataBuffer', 92, 2, 8],
    ['callback', 1, PP.OK],
  ]);
  assert.equal(f.b.outputs.has(id), false, 'the output is gone once stored');
  const entries = [0, 1].map((i) => [f.mem.getI32(buffer + 8 * i), f.mem.getI32(buffer + 8 * i + 4)]);
  const pathOf = (r) => {
    f.call('PPB_FileRef;1.0:GetPath', f.scratch, r);
    return f.b.vars.stringOf(f.b.vars.read(f.scratch));
  };
  assert.deepEqual(entries.map(([r, t]) => [pathOf(r), t]), [
    ['/dir/b.txt', FILE_TYPE.REGULAR],
    ['/dir/sub', FILE_TYPE.DIRECTORY],
  ]);
  // Of the root: "/name", not "//name".
  const rootItem = await f.done('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/'), out);
  const before = f.b.resources.size;
  runItem(thread, link, rootItem, (fn, args) => fn(...args));
  assert.equal(pathOf(f.mem.getI32(buffer)), '/dir');
  // A NULL buffer stores nothing and drops the refs made for it.
  const nullItem = await f.done('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/dir'), out);
  const made = f.b.resources.size;
  const { thread: t2, link: l2 } = fakeThread(f, MAIN_TID, { 91: () => 0, 77: () => {} });
  runItem(t2, l2, nullItem, (fn, args) => fn(...args));
  assert.equal(f.b.resources.size, made - 2);
  assert.ok(before > 0);
  // Errors: a file, a missing directory, no GetDataBuffer.
  assert.equal(await f.done('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/dir/b.txt'), out), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/none'), out), PP.ERROR_FILENOTFOUND);
  f.mem.setU32(out, 0);
  assert.equal(await f.done('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/dir'), out), PP.ERROR_BADARGUMENT);
});

test('a blocking call that fills an output: the answer carries it, the import wrapper stores it before returning', async () => {
  const f = fake();
  const fs = await openFs(f);
  const tmp = await f.storage.get('temporary');
  await tmp.mkdir('/one');
  const out = f.scratch + 2048;
  f.mem.setU32(out, 91);
  f.mem.setU32(out + 4, 92);
  const answer = await f.blocking('PPB_FileRef;1.1:ReadDirectoryEntries', ref(f, fs, '/'), out);
  assert.equal(answer.value, PP.OK);
  assert.equal(answer.payload.length, OUTPUT_WORDS);
  // The thread side as a Worker sees it: a link whose call answers at once with that payload.
  const buffer = f.scratch + 3072;
  const link = {
    last: null,
    call(name, args) {
      if (name === 'PPB_FileRef;1.1:ReadDirectoryEntries') {
        this.last = answer;
        return answer.value;
      }
      this.last = null;
      return f.b.call(name, T, args);
    },
    payload() {
      return this.last ? [...this.last.payload] : [];
    },
    f64: () => 0,
    i64: () => 0n,
  };
  const seen = [];
  const thread = {
    tid: T,
    mem: f.mem,
    exports: {
      table: { get: (i) => (i === 91 ? (u, n, s) => (seen.push([u, n, s]), buffer) : null) },
      __stack_pointer: { value: f.scratch + 0x7000 },
      __stack_limit: { value: f.scratch + 0x6000 },
    },
  };
  const imports = pepperImports(thread, link);
  assert.equal(imports['PPB_FileRef;1.1:ReadDirectoryEntries'](0, out, 0), PP.OK);
  assert.deepEqual(seen, [[92, 1, 8]]);
  assert.equal(f.mem.getI32(buffer + 4), FILE_TYPE.DIRECTORY);
  // fillOutput on its own: an unknown output fails.
  assert.equal(fillOutput(thread, { call: (n, a) => f.b.call(n, T, a) }, (fn, args) => fn(...args), [999, 91, 0, 0, 1]), PP.ERROR_FAILED);
});

test('FileIO.Open: flags as Chrome checked them', async () => {
  const f = fake();
  const fs = await openFs(f);
  assert.equal((await openFile(f, fs, '/a', OPEN.WRITE | OPEN.APPEND | OPEN.CREATE)).result, PP.ERROR_BADARGUMENT);
  assert.equal((await openFile(f, fs, '/a', OPEN.READ | OPEN.TRUNCATE | OPEN.CREATE)).result, PP.ERROR_BADARGUMENT);
  assert.equal((await openFile(f, fs, '/a', OPEN.READ)).result, PP.ERROR_FILENOTFOUND);
  assert.equal((await openFile(f, fs, '/a', OPEN.WRITE | OPEN.CREATE | OPEN.EXCLUSIVE)).result, PP.OK);
  assert.equal((await openFile(f, fs, '/a', OPEN.WRITE | OPEN.CREATE | OPEN.EXCLUSIVE)).result, PP.ERROR_FILEEXISTS);
  assert.equal((await openFile(f, fs, '/a', OPEN.READ | OPEN.EXCLUSIVE)).result, PP.OK, 'EXCLUSIVE without CREATE means nothing');
  assert.equal((await openFile(f, fs, '/', OPEN.READ)).result, PP.ERROR_NOTAFILE);
  assert.equal((await openFile(f, fs, '/no/such/dir', OPEN.WRITE | OPEN.CREATE)).result, PP.ERROR_FILENOTFOUND);
  const { io } = await openFile(f, fs, '/a', OPEN.READ);
  const r = ref(f, fs, '/a');
  assert.equal(await f.done('PPB_FileIO;1.0:Open', io, r, OPEN.READ), PP.ERROR_FAILED, 'one Open per FileIO');
  assert.equal(await f.done('PPB_FileIO;1.0:Open', io, 9999, OPEN.READ), PP.ERROR_BADRESOURCE);
  assert.equal(await f.done('PPB_FileIO;1.0:Open', 9999, r, OPEN.READ), PP.ERROR_BADRESOURCE);
  assert.equal(f.call('PPB_FileIO;1.0:IsFileIO', io), 1);
  assert.equal(f.call('PPB_FileIO;1.0:IsFileIO', r), 0);
  f.call('PPB_FileIO;1.0:Close', io);
  assert.equal(await f.done('PPB_FileIO;1.0:Open', io, r, OPEN.READ), PP.ERROR_FAILED, 'not after Close either');
});

test('FileIO: read and write at offsets, append, set length, truncate, flush', async () => {
  const f = fake();
  const fs = await openFs(f);
  const { io } = await openFile(f, fs, '/f', OPEN.READ | OPEN.WRITE | OPEN.CREATE);
  const buf = f.scratch + 4096;
  f.mem.write(buf, bytesOf('hello'));
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 3n, buf, 5), 5);
  const read = async (offset, n) => {
    f.mem.fill0(buf + 512, 64);
    const r = await f.done('PPB_FileIO;1.0:Read', io, BigInt(offset), buf + 512, n);
    return r < 0 ? r : [...f.mem.read(buf + 512, r)];
  };
  assert.deepEqual(await read(0, 64), [0, 0, 0, ...bytesOf('hello')], 'the gap reads as zeros');
  assert.deepEqual(await read(6, 64), [...bytesOf('lo')]);
  assert.deepEqual(await read(8, 64), [], 'at the end: 0');
  assert.deepEqual(await read(1e12, 64), [], 'far beyond the end: 0');
  assert.equal(await read(-1, 4), PP.ERROR_FAILED);
  assert.equal(await read(0, -1), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', io, 4n), PP.OK);
  assert.deepEqual(await read(0, 64), [0, 0, 0, 104]);
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', io, 6n), PP.OK);
  assert.deepEqual(await read(0, 64), [0, 0, 0, 104, 0, 0], 'grown with zeros');
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', io, -1n), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileIO;1.0:Flush', io), PP.OK);
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, -5n, buf, 1), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 0n, buf, -1), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 0n, 0, 1), PP.ERROR_FAILED, 'NULL buffer');
  f.call('PPB_FileIO;1.0:Close', io);
  // APPEND writes at the end whatever the offset; it cannot read.
  const ap = (await openFile(f, fs, '/f', OPEN.APPEND)).io;
  f.mem.write(buf, bytesOf('XY'));
  assert.equal(await f.done('PPB_FileIO;1.0:Write', ap, 0n, buf, 2), 2);
  assert.equal(await f.done('PPB_FileIO;1.0:Read', ap, 0n, buf, 2), PP.ERROR_FAILED, 'not open for reading');
  f.call('PPB_FileIO;1.0:Close', ap);
  const tmp = await f.storage.get('temporary');
  const h = await tmp.open('/f', { read: true });
  assert.deepEqual([...(await tmp.read(h, 0, 100))], [0, 0, 0, 104, 0, 0, 88, 89]);
  await tmp.close(h);
  // Read-only: no writes. TRUNCATE empties.
  const ro = (await openFile(f, fs, '/f', OPEN.READ)).io;
  assert.equal(await f.done('PPB_FileIO;1.0:Write', ro, 0n, buf, 1), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', ro, 0n), PP.ERROR_FAILED);
  const tr = (await openFile(f, fs, '/f', OPEN.WRITE | OPEN.TRUNCATE)).io;
  assert.equal((await tmp.stat('/f')).size, 0);
  f.call('PPB_FileIO;1.0:Close', tr);
  f.call('PPB_FileIO;1.0:Close', ro);
});

test('FileIO: operations before Open and after Close fail; Close aborts what is pending, writing nothing', async () => {
  const f = fake();
  const fs = await openFs(f);
  const io = f.call('PPB_FileIO;1.0:Create', 1);
  assert.equal(f.call('PPB_FileIO;1.0:Create', 7), 0, 'no such instance');
  const buf = f.scratch + 4096;
  for (const [key, ...args] of [
    ['PPB_FileIO;1.0:Read', 0n, buf, 4],
    ['PPB_FileIO;1.0:Write', 0n, buf, 4],
    ['PPB_FileIO;1.0:Query', buf],
    ['PPB_FileIO;1.0:Touch', 1, 1],
    ['PPB_FileIO;1.0:SetLength', 0n],
    ['PPB_FileIO;1.0:Flush'],
  ]) {
    assert.equal(await f.done(key, io, ...args), PP.ERROR_FAILED, `${key} before Open`);
  }
  const tmp = await f.storage.get('temporary');
  const h = await tmp.open('/big', { write: true, create: true });
  await tmp.write(h, 0, new Uint8Array(1000).fill(7));
  await tmp.close(h);
  const file = (await openFile(f, fs, '/big', OPEN.READ | OPEN.WRITE)).io;
  // Two reads may overlap; an exclusive operation may not meanwhile.
  f.mem.fill0(buf, 1000);
  const n = f.main.length;
  assert.equal(f.call('PPB_FileIO;1.0:Read', file, 0n, buf, 500, f.cb(60, 1)), PP.OK_COMPLETIONPENDING);
  assert.equal(f.call('PPB_FileIO;1.0:Read', file, 500n, buf + 500, 500, f.cb(60, 2)), PP.OK_COMPLETIONPENDING);
  assert.equal(f.call('PPB_FileIO;1.0:Flush', file, f.cb(60, 3, 1)), PP.ERROR_INPROGRESS);
  assert.equal(f.call('PPB_FileIO;1.0:Write', file, 0n, buf, 1, f.cb(60, 4, 1)), PP.ERROR_INPROGRESS);
  f.call('PPB_FileIO;1.0:Close', file);
  for (let i = 0; i < 20; i++) await tick();
  const items = f.main.slice(n);
  assert.deepEqual(items.map((it) => [it[2], it[3]]).sort(), [
    [1, PP.ERROR_ABORTED],
    [2, PP.ERROR_ABORTED],
  ]);
  assert.ok(f.mem.read(buf, 1000).every((x) => x === 0), 'aborted reads wrote nothing');
  assert.equal(await f.done('PPB_FileIO;1.0:Read', file, 0n, buf, 4), PP.ERROR_FAILED, 'after Close');
  // Releasing the last reference closes too.
  const other = (await openFile(f, fs, '/big', OPEN.READ)).io;
  const p = f.call('PPB_FileIO;1.0:Query', other, buf, f.cb(61, 9));
  assert.equal(p, PP.OK_COMPLETIONPENDING);
  f.call('PPB_Core;1.0:ReleaseResource', other);
  for (let i = 0; i < 20; i++) await tick();
  assert.deepEqual(f.main.pop(), [ITEM.CALLBACK, 61, 9, PP.ERROR_ABORTED]);
  for (let i = 0; i < 20; i++) await tick();
  assert.equal(tmp.handles.items.size, 0, 'every store handle was closed');
});

test('blocking reads and writes from a background thread', async () => {
  const f = fake();
  const fs = await openFs(f);
  const io = f.callOn(T, 'PPB_FileIO;1.0:Create', 1);
  const r = f.callOn(T, 'PPB_FileRef;1.0:Create', fs, f.str('/blk'));
  assert.equal(await f.blocking('PPB_FileIO;1.0:Open', io, r, OPEN.READ | OPEN.WRITE | OPEN.CREATE), PP.OK);
  const buf = f.scratch + 4096;
  f.mem.write(buf, bytesOf('block'));
  assert.equal(await f.blocking('PPB_FileIO;1.0:Write', io, 0n, buf, 5), 5);
  assert.equal(await f.blocking('PPB_FileIO;1.0:Read', io, 1n, buf + 100, 10), 4);
  assert.deepEqual([...f.mem.read(buf + 100, 4)], [...bytesOf('lock')]);
  // ReadToArray, blocking: the answer carries the output for the thread to store.
  const out = f.scratch + 2048;
  f.mem.setU32(out, 91);
  f.mem.setU32(out + 4, 0);
  const a = await f.blocking('PPB_FileIO;1.1:ReadToArray', io, 2n, 100, out);
  assert.equal(a.value, 3);
  const [id, , , count, size] = a.payload;
  assert.deepEqual([count, size], [3, 1]);
  assert.equal(f.callOn(T, '$ArrayOutput.fill', id, buf + 200), 3);
  assert.deepEqual([...f.mem.read(buf + 200, 3)], [...bytesOf('ock')]);
});

test('ReadToArray with a callback: the output travels with the callback item', async () => {
  const f = fake();
  const fs = await openFs(f);
  const { io } = await openFile(f, fs, '/r', OPEN.READ | OPEN.WRITE | OPEN.CREATE);
  const buf = f.scratch + 4096;
  f.mem.write(buf, bytesOf('0123456789'));
  await f.done('PPB_FileIO;1.0:Write', io, 0n, buf, 10);
  const out = f.scratch + 2048;
  f.mem.setU32(out, 91);
  f.mem.setU32(out + 4, 5);
  const item = await f.done('PPB_FileIO;1.1:ReadToArray', io, 4n, 3, out);
  assert.equal(item[0], ITEM.OUTPUT_CALLBACK);
  assert.equal(item[3], 3);
  const got = [];
  const { thread, link } = fakeThread(f, MAIN_TID, { 91: () => buf + 300, 77: (u, r2) => got.push(r2) });
  runItem(thread, link, item, (fn, args) => fn(...args));
  assert.deepEqual(got, [3]);
  assert.deepEqual([...f.mem.read(buf + 300, 3)], [...bytesOf('456')]);
  assert.equal(await f.done('PPB_FileIO;1.1:ReadToArray', io, 0n, 3, 0), PP.ERROR_BADARGUMENT, 'no output');
  f.mem.setU32(out, 0);
  assert.equal(await f.done('PPB_FileIO;1.1:ReadToArray', io, 0n, 3, out), PP.ERROR_FAILED, 'no GetDataBuffer');
  f.mem.setU32(out, 91);
  assert.equal(await f.done('PPB_FileIO;1.1:ReadToArray', io, 0n, -3, out), PP.ERROR_FAILED);
  // An empty read still asks for a buffer (of 0 elements), as Chrome's ArrayWriter did.
  const empty = await f.done('PPB_FileIO;1.1:ReadToArray', io, 100n, 3, out);
  const asked = [];
  const { thread: t2, link: l2 } = fakeThread(f, MAIN_TID, { 91: (u, n) => (asked.push(n), 0), 77: () => {} });
  runItem(t2, l2, empty, (fn, args) => fn(...args));
  assert.deepEqual(asked, [0]);
});

test('quota: growing past it is PP_ERROR_NOQUOTA and changes nothing; huge offsets fail cleanly', async () => {
  const f = fake({ temporaryQuota: 100 });
  const fs = await openFs(f);
  const { io } = await openFile(f, fs, '/q', OPEN.READ | OPEN.WRITE | OPEN.CREATE);
  const buf = f.scratch + 4096;
  f.mem.write(buf, new Uint8Array(80).fill(1));
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 0n, buf, 80), 80);
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 80n, buf, 30), PP.ERROR_NOQUOTA);
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 60n, buf, 30), 30, 'overwriting costs only the growth');
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', io, 101n), PP.ERROR_NOQUOTA);
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', io, 100n), PP.OK);
  const tmp = await f.storage.get('temporary');
  assert.deepEqual(await tmp.usageAndQuota(), { usage: 100, quota: 100 });
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 1n << 40n, buf, 1), PP.ERROR_NOQUOTA, 'a terabyte offset');
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, (1n << 62n), buf, 1), PP.ERROR_NOSPACE, 'beyond any file size');
  assert.equal(await f.done('PPB_FileIO;1.0:SetLength', io, 1n << 62n), PP.ERROR_NOSPACE);
  assert.equal((await tmp.stat('/q')).size, 100, 'the file is as it was');
  // Deleting gives the bytes back.
  f.call('PPB_FileIO;1.0:Close', io);
  assert.equal(await f.done('PPB_FileRef;1.0:Delete', ref(f, fs, '/q')), PP.OK);
  assert.equal((await tmp.usageAndQuota()).usage, 0);
});

test('hostile pointers fault the plugin, not the host; hostile paths are refused', async () => {
  const f = fake();
  const fs = await openFs(f);
  const { io } = await openFile(f, fs, '/h', OPEN.READ | OPEN.WRITE | OPEN.CREATE);
  const end = f.mem.memory.buffer.byteLength;
  assert.throws(() => f.call('PPB_FileIO;1.0:Read', io, 0n, end - 2, 16, f.cb(1)), GuestFault);
  assert.throws(() => f.call('PPB_FileIO;1.0:Write', io, 0n, end - 2, 16, f.cb(1)), GuestFault);
  assert.throws(() => f.call('PPB_FileRef;1.1:Query', ref(f, fs, '/h'), end - 8, f.cb(1)), GuestFault);
  assert.throws(() => f.call('PPB_FileRef;1.0:Create', fs, end + 100), GuestFault);
  // A path running to the end of memory without its NUL.
  f.mem.write(end - 3, bytesOf('/ab'));
  assert.throws(() => f.call('PPB_FileRef;1.0:Create', fs, end - 3), GuestFault);
  // Names that try to leave the file system never make a ref.
  for (const p of ['/../etc/passwd', '/a/../../b', '/./..', '../x']) assert.equal(ref(f, fs, p), 0, p);
  // Names a store refuses fail the operation (backslashes, over-long names).
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, '/a\\b'), 0), PP.ERROR_FAILED);
  assert.equal(await f.done('PPB_FileRef;1.2:MakeDirectory', ref(f, fs, `/${'n'.repeat(300)}`), 0), PP.ERROR_FAILED);
  // A huge read asks for at most 32 MiB: with room for that, a 2 GiB request is fine.
  assert.throws(() => f.call('PPB_FileIO;1.0:Read', io, 0n, f.scratch, 0x7fffffff, f.cb(1)), GuestFault, 'no room for 32 MiB yet');
  assert.ok(f.mem.grow(600));
  f.mem.write(f.scratch, bytesOf('xyz'));
  assert.equal(await f.done('PPB_FileIO;1.0:Write', io, 0n, f.scratch, 3), 3);
  assert.equal(await f.done('PPB_FileIO;1.0:Read', io, 0n, f.scratch, 0x7fffffff), 3);
  assert.equal(f.logs.length, 0, `no runtime bug reported: ${JSON.stringify(f.logs)}`);
});

test('every file interface is offered, every function implemented', () => {
  const f = fake();
  for (const name of ['PPB_FileSystem;1.0', 'PPB_FileRef;1.0', 'PPB_FileRef;1.1', 'PPB_FileRef;1.2', 'PPB_FileIO;1.0', 'PPB_FileIO;1.1']) {
    assert.ok(f.b.supports(name), name);
  }
});
