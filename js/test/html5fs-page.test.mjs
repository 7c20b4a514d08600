// The page's legacy HTML5 FileSystem API (src/internal/pepper/html5fs-page.js)
// on a stand-in window over the memory stores: the calls the corpus pages
// make (Maelstrom's, kichikuou's, nsg's), Blink's errors, the FileWriter's
// events, quotas, filesystem: URLs — and the plugin's PPB_FileIO seeing what
// the page wrote, and the page seeing what the plugin wrote.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Browser } from '../src/internal/pepper/browser.js';
import { FILE_SYSTEM, ITEM, MAIN_TID, OPEN, PP } from '../src/internal/pepper/defs.js';
import { fileSystemUrl, installLegacyFileSystem, parseFileSystemUrl } from '../src/internal/pepper/html5fs-page.js';
import { memoryStorage } from '../src/internal/pepper/storage/index.js';
import { PageAllocator } from '../src/internal/runtime/irt/memory.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';

const ORIGIN = 'http://127.0.0.1:8123';

/** A window with what the API needs, the API installed over fresh memory stores. */
function page({ temporaryQuota = 1 << 20, persistentQuota = 0 } = {}) {
  const storage = memoryStorage({ temporaryQuota, persistentQuota: 1 << 30 });
  // A page's persistent quota starts at what Chrome gave a page.
  storage.stores.persistent.quota = persistentQuota;
  const errors = [];
  const win = { location: { origin: ORIGIN }, navigator: {}, console: { error: (...a) => errors.push(a) } };
  const installed = installLegacyFileSystem(win, storage);
  return { win, storage, installed, errors };
}

/** Promise wrapper for the callback style: resolves with the success value, rejects with the DOMException. */
const p = (fn) =>
  new Promise((resolve, reject) => {
    fn(resolve, reject);
  });

const requestFs = (win, type, size = 0) => p((ok, ko) => win.webkitRequestFileSystem(type, size, ok, ko));
const getDir = (dir, path, opts) => p((ok, ko) => dir.getDirectory(path, opts, ok, ko));
const getFile = (dir, path, opts) => p((ok, ko) => dir.getFile(path, opts, ok, ko));

/** Writes `blob` with a FileWriter the way Maelstrom's page does; resolves with the events seen. */
async function writeBlob(entry, blob) {
  const writer = await p((ok, ko) => entry.createWriter(ok, ko));
  const events = [];
  for (const t of ['writestart', 'progress', 'write', 'error', 'abort']) writer.addEventListener(t, () => events.push(t));
  return new Promise((resolve, reject) => {
    writer.onwriteend = () => {
      events.push('writeend');
      if (writer.error) reject(Object.assign(writer.error, { events }));
      else resolve({ events, writer });
    };
    writer.write(blob);
  });
}

const text = async (entry) => (await p((ok, ko) => entry.file(ok, ko))).text();

async function rejectsWith(promise, name) {
  await assert.rejects(promise, (e) => e instanceof DOMException && e.name === name, `expected ${name}`);
}

test("Maelstrom's page: directories, files written with FileWriter, DirExists", async () => {
  const { win } = page();
  assert.equal(win.TEMPORARY, 0);
  assert.equal(win.PERSISTENT, 1);
  const fs = await requestFs(win, win.TEMPORARY, 5 * 1024 * 1024);
  assert.equal(fs.root.fullPath, '/');
  assert.equal(fs.root.name, '');
  assert.equal(fs.root.isDirectory, true);
  assert.match(fs.name, /:Temporary$/);
  // DirExists: not yet.
  await rejectsWith(getDir(fs.root, 'Maelstrom', { create: false }), 'NotFoundError');
  const dir = await getDir(fs.root, 'Maelstrom', { create: true });
  const images = await getDir(fs.root, 'Maelstrom/Images', { create: true });
  assert.equal(images.fullPath, '/Maelstrom/Images');
  const entry = await getFile(images, 'Maelstrom_Icon#100.cicn', { create: true });
  assert.equal(entry.fullPath, '/Maelstrom/Images/Maelstrom_Icon#100.cicn');
  assert.equal(entry.isFile, true);
  const { events, writer } = await writeBlob(entry, new Blob(['icon bytes']));
  assert.deepEqual(events, ['writestart', 'progress', 'write', 'writeend']);
  assert.equal(writer.length, 10);
  assert.equal(writer.position, 10);
  assert.equal(writer.readyState, 2);
  assert.equal(await text(entry), 'icon bytes');
  assert.ok(await getDir(fs.root, 'Maelstrom', { create: false }));
  // A second request gives the same file system.
  assert.equal((await requestFs(win, 0)).root.filesystem, fs);
  void dir;
});

test("kichikuou's page: the PERSISTENT save directory, quotas asked and kept", async () => {
  const { win, storage } = page();
  const fs = await requestFs(win, win.PERSISTENT, 0);
  await rejectsWith(getDir(fs.root, 'save', {}), 'NotFoundError');
  const [usage, quota] = await new Promise((resolve, reject) => win.navigator.webkitPersistentStorage.queryUsageAndQuota((u, q) => resolve([u, q]), reject));
  assert.deepEqual([usage, quota], [0, 0], 'a page has no persistent quota until it asks');
  // Without quota, file data cannot be written (Chrome: QuotaExceededError).
  const f = await getFile(fs.root, 'font.ttf', { create: true });
  const err = await writeBlob(f, new Blob(['x'])).catch((e) => e);
  assert.equal(err.name, 'QuotaExceededError');
  assert.deepEqual(err.events, ['writestart', 'error', 'writeend']);
  const granted = await p((ok, ko) => win.navigator.webkitPersistentStorage.requestQuota(650 * 1024 * 1024, ok, ko));
  assert.equal(granted, 650 * 1024 * 1024);
  assert.equal(storage.stores.persistent.quota, granted, 'kept with the store');
  await writeBlob(f, new Blob(['font']));
  await getDir(fs.root, 'save', { create: true });
  assert.ok(await getDir(fs.root, 'save', {}));
  // The deprecated webkitStorageInfo answers too.
  const [u2, q2] = await new Promise((resolve, reject) => win.webkitStorageInfo.queryUsageAndQuota(win.PERSISTENT, (u, q) => resolve([u, q]), reject));
  assert.deepEqual([u2, q2], [4, granted]);
  const t = await p((ok, ko) => win.navigator.webkitTemporaryStorage.requestQuota(1e15, ok, ko));
  assert.equal(t, 1 << 20, 'a temporary request gets no more than the temporary quota');
});

test('the plugin reads what the page wrote, and the page what the plugin wrote: one store', async () => {
  const { win, storage } = page({ persistentQuota: 1 << 20 });
  const fs = await requestFs(win, win.PERSISTENT);
  const save = await getDir(fs.root, 'save', { create: true });
  await writeBlob(await getFile(save, 'from-page.txt', { create: true }), new Blob(['page → plugin']));

  const memory = new WebAssembly.Memory({ initial: 32, maximum: 64, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const scratch = pages.map(0x10000);
  const main = [];
  const b = new Browser({ proc: { mem, pages }, embedder: {}, transport: { toMain: (i) => main.push(i) }, storage });
  const call = (key, ...args) => b.call(key, MAIN_TID, args);
  const cbAt = scratch + 0x800;
  mem.setU32(cbAt, 7);
  const done = async (key, ...args) => {
    assert.equal(call(key, ...args, cbAt), PP.OK_COMPLETIONPENDING);
    while (main.length === 0) await new Promise((r) => setTimeout(r, 0));
    const item = main.pop();
    assert.equal(item[0], ITEM.CALLBACK);
    return item[3];
  };
  const pfs = call('PPB_FileSystem;1.0:Create', 1, FILE_SYSTEM.LOCALPERSISTENT);
  assert.equal(await done('PPB_FileSystem;1.0:Open', pfs, 0n), PP.OK);
  const path = (s) => {
    mem.writeCBytes(scratch + 0x900, new TextEncoder().encode(s));
    return call('PPB_FileRef;1.0:Create', pfs, scratch + 0x900);
  };
  const io = call('PPB_FileIO;1.0:Create', 1);
  assert.equal(await done('PPB_FileIO;1.0:Open', io, path('/save/from-page.txt'), OPEN.READ), PP.OK);
  const n = await done('PPB_FileIO;1.0:Read', io, 0n, scratch, 100);
  assert.equal(new TextDecoder().decode(mem.read(scratch, n)), 'page → plugin');
  // The plugin writes a save; the page finds it.
  const out = call('PPB_FileIO;1.0:Create', 1);
  assert.equal(await done('PPB_FileIO;1.0:Open', out, path('/save/game.asd'), OPEN.WRITE | OPEN.CREATE), PP.OK);
  mem.write(scratch, new TextEncoder().encode('plugin → page'));
  assert.equal(await done('PPB_FileIO;1.0:Write', out, 0n, scratch, 15), 15);
  call('PPB_FileIO;1.0:Close', out);
  const entries = await p((ok, ko) => save.createReader().readEntries(ok, ko));
  assert.deepEqual(entries.map((e) => e.name), ['from-page.txt', 'game.asd']);
  assert.equal(await text(entries[1]), 'plugin → page');
});

test('getFile and getDirectory: Blink\'s errors', async () => {
  const { win } = page();
  const fs = await requestFs(win, 0);
  const d = await getDir(fs.root, 'd', { create: true });
  await getFile(d, 'f', { create: true });
  await rejectsWith(getFile(fs.root, 'd', {}), 'TypeMismatchError');
  await rejectsWith(getDir(fs.root, 'd/f', {}), 'TypeMismatchError');
  await rejectsWith(getFile(fs.root, 'd', { create: true }), 'TypeMismatchError');
  await rejectsWith(getDir(fs.root, 'd', { create: true, exclusive: true }), 'InvalidModificationError');
  await rejectsWith(getFile(d, 'f', { create: true, exclusive: true }), 'InvalidModificationError');
  await rejectsWith(getFile(fs.root, 'no/such/f', { create: true }), 'NotFoundError');
  await rejectsWith(getFile(fs.root, 'a\\b', { create: true }), 'EncodingError');
  await rejectsWith(getFile(fs.root, 'x'.repeat(300), { create: true }), 'EncodingError');
  // Relative to the entry, with ".." evaluated and clamped at the root.
  assert.equal((await getFile(d, '../d/./f', {})).fullPath, '/d/f');
  assert.equal((await getFile(d, '/d/f', {})).fullPath, '/d/f');
  assert.equal((await getDir(d, '../../../..', {})).fullPath, '/');
  assert.equal((await getFile(fs.root, '../../../d/f', {})).fullPath, '/d/f', 'no way above the root');
  // Exactly one error or success, and later: not inside the call.
  let called = false;
  fs.root.getFile('d/f', {}, () => (called = true));
  assert.equal(called, false);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(called, true);
});

test('the same entry made by many calls at once (Maelstrom\'s 31 downloads): each non-exclusive one succeeds, one exclusive one does', async () => {
  const { win } = page();
  const fs = await requestFs(win, 0);
  const dirs = await Promise.all(Array.from({ length: 31 }, () => getDir(fs.root, 'Maelstrom', { create: true })));
  assert.ok(dirs.every((d) => d.isDirectory && d.fullPath === '/Maelstrom'));
  const files = await Promise.all(Array.from({ length: 8 }, () => getFile(fs.root, 'Maelstrom/f', { create: true })));
  assert.ok(files.every((f) => f.isFile && f.fullPath === '/Maelstrom/f'));
  const exclusive = await Promise.allSettled(Array.from({ length: 8 }, () => getDir(fs.root, 'Maelstrom/x', { create: true, exclusive: true })));
  assert.equal(exclusive.filter((r) => r.status === 'fulfilled').length, 1);
  assert.ok(exclusive.filter((r) => r.status === 'rejected').every((r) => r.reason.name === 'InvalidModificationError'));
  // A file made at the same time as a directory of the same name: the loser is told the type is wrong.
  const mixed = await Promise.allSettled([getDir(fs.root, 'both', { create: true }), getFile(fs.root, 'both', { create: true })]);
  assert.equal(mixed.filter((r) => r.status === 'fulfilled').length, 1);
  assert.equal(mixed.find((r) => r.status === 'rejected').reason.name, 'TypeMismatchError');
});

test('readEntries, metadata, parent, remove, removeRecursively', async () => {
  const { win } = page();
  const fs = await requestFs(win, 0);
  const d = await getDir(fs.root, 'd', { create: true });
  await getDir(d, 'sub', { create: true });
  const f = await getFile(d, 'a.txt', { create: true });
  await writeBlob(f, new Blob(['12345']));
  const reader = d.createReader();
  const first = await p((ok, ko) => reader.readEntries(ok, ko));
  assert.deepEqual(first.map((e) => [e.name, e.isFile, e.isDirectory, e.fullPath]), [
    ['a.txt', true, false, '/d/a.txt'],
    ['sub', false, true, '/d/sub'],
  ]);
  assert.deepEqual(await p((ok, ko) => reader.readEntries(ok, ko)), [], 'then the end');
  const md = await p((ok, ko) => f.getMetadata(ok, ko));
  assert.equal(md.size, 5);
  assert.ok(md.modificationTime instanceof Date && Math.abs(md.modificationTime - Date.now()) < 60_000);
  assert.equal((await p((ok, ko) => f.getParent(ok, ko))).fullPath, '/d');
  assert.equal((await p((ok, ko) => fs.root.getParent(ok, ko))).fullPath, '/');
  const file = await p((ok, ko) => f.file(ok, ko));
  assert.equal(file.name, 'a.txt');
  assert.equal(file.type, 'text/plain');
  assert.equal(file.size, 5);
  await rejectsWith(p((ok, ko) => d.remove(ok, ko)), 'InvalidModificationError');
  await rejectsWith(p((ok, ko) => fs.root.remove(ok, ko)), 'InvalidModificationError');
  await rejectsWith(p((ok, ko) => fs.root.removeRecursively(ok, ko)), 'InvalidModificationError');
  await p((ok, ko) => d.removeRecursively(ok, ko));
  await rejectsWith(p((ok, ko) => f.getMetadata(ok, ko)), 'NotFoundError');
  await rejectsWith(p((ok, ko) => f.file(ok, ko)), 'NotFoundError');
  assert.deepEqual(await p((ok, ko) => fs.root.createReader().readEntries(ok, ko)), []);
});

test('moveTo and copyTo: Blink\'s rules, within and across file systems', async () => {
  const { win } = page({ persistentQuota: 1 << 20 });
  const tmp = await requestFs(win, 0);
  const per = await requestFs(win, 1);
  const a = await getDir(tmp.root, 'a', { create: true });
  const f = await getFile(a, 'f', { create: true });
  await writeBlob(f, new Blob(['data']));
  await rejectsWith(p((ok, ko) => a.moveTo(a, 'inside', ok, ko)), 'InvalidModificationError');
  await rejectsWith(p((ok, ko) => f.moveTo(a, null, ok, ko)), 'InvalidModificationError', 'onto itself');
  await rejectsWith(p((ok, ko) => f.moveTo(f, 'x', ok, ko)), 'InvalidModificationError', 'into a file');
  await rejectsWith(p((ok, ko) => f.moveTo(a, 'b/c', ok, ko)), 'InvalidModificationError', 'a bad name');
  await rejectsWith(p((ok, ko) => tmp.root.moveTo(a, 'r', ok, ko)), 'InvalidModificationError', 'the root');
  const g = await p((ok, ko) => f.copyTo(tmp.root, 'g', ok, ko));
  assert.equal(g.fullPath, '/g');
  assert.equal(await text(g), 'data');
  const moved = await p((ok, ko) => g.moveTo(a, 'h', ok, ko));
  assert.equal(moved.fullPath, '/a/h');
  await rejectsWith(p((ok, ko) => g.getMetadata(ok, ko)), 'NotFoundError');
  await rejectsWith(p((ok, ko) => f.moveTo(tmp.root, 'a', ok, ko)), 'InvalidModificationError', 'a file over a directory');
  // Across file systems: copied, then (moveTo) removed.
  const across = await p((ok, ko) => a.copyTo(per.root, 'saved', ok, ko));
  assert.equal(across.filesystem, per);
  assert.equal(await text(await getFile(per.root, 'saved/h', {})), 'data');
  const moved2 = await p((ok, ko) => a.moveTo(per.root, 'a2', ok, ko));
  assert.equal(moved2.fullPath, '/a2');
  await rejectsWith(getDir(tmp.root, 'a', {}), 'NotFoundError');
  assert.equal(await text(await getFile(per.root, 'a2/f', {})), 'data');
});

test('FileWriter: seek, truncate, overwrite in the middle, InvalidStateError while writing, abort', async () => {
  const { win } = page();
  const fs = await requestFs(win, 0);
  const f = await getFile(fs.root, 'w', { create: true });
  const { writer } = await writeBlob(f, new Blob(['0123456789']));
  writer.seek(-4);
  assert.equal(writer.position, 6);
  writer.seek(100);
  assert.equal(writer.position, 10);
  writer.seek(2);
  await new Promise((resolve) => {
    writer.onwriteend = resolve;
    writer.write(new Blob(['ab']));
    assert.throws(() => writer.write(new Blob(['x'])), (e) => e.name === 'InvalidStateError');
    assert.throws(() => writer.seek(0), (e) => e.name === 'InvalidStateError');
    assert.throws(() => writer.truncate(0), (e) => e.name === 'InvalidStateError');
  });
  assert.equal(await text(f), '01ab456789');
  await new Promise((resolve) => {
    writer.onwriteend = resolve;
    writer.truncate(3);
  });
  assert.equal(writer.length, 3);
  assert.equal(writer.position, 3);
  assert.equal(await text(f), '01a');
  assert.throws(() => writer.write('not a blob'), TypeError);
  assert.throws(() => writer.truncate(-1), (e) => e.name === 'InvalidStateError');
  // abort: AbortError, abort and writeend, and nothing more.
  const seen = [];
  writer.onwriteend = () => seen.push('writeend');
  writer.onabort = () => seen.push('abort');
  writer.onwrite = () => seen.push('write');
  writer.write(new Blob(['zzz']));
  writer.abort();
  assert.equal(writer.error.name, 'AbortError');
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, ['abort', 'writeend']);
  writer.abort(); // not writing: nothing happens
  assert.deepEqual(seen, ['abort', 'writeend']);
});

test('filesystem: URLs: made by toURL, resolved back, other origins refused', async () => {
  const { win } = page();
  const fs = await requestFs(win, 1);
  assert.equal(fs.root.toURL(), `filesystem:${ORIGIN}/persistent/`);
  const d = await getDir(fs.root, 'a dir', { create: true });
  assert.equal(d.toURL(), `filesystem:${ORIGIN}/persistent/a%20dir`);
  assert.deepEqual(parseFileSystemUrl(d.toURL()), { origin: ORIGIN, type: 'persistent', path: '/a dir' });
  assert.equal(fileSystemUrl(ORIGIN, 'temporary', '/#1'), `filesystem:${ORIGIN}/temporary/%231`);
  const back = await p((ok, ko) => win.webkitResolveLocalFileSystemURL(d.toURL(), ok, ko));
  assert.equal(back.isDirectory, true);
  assert.equal(back.fullPath, '/a dir');
  assert.equal(back.filesystem, fs);
  await rejectsWith(p((ok, ko) => win.resolveLocalFileSystemURL('filesystem:http://evil.example/persistent/', ok, ko)), 'SecurityError');
  await rejectsWith(p((ok, ko) => win.resolveLocalFileSystemURL('https://example.com/x', ok, ko)), 'EncodingError');
  await rejectsWith(p((ok, ko) => win.resolveLocalFileSystemURL(`filesystem:${ORIGIN}/persistent/missing`, ok, ko)), 'NotFoundError');
  assert.equal((await p((ok, ko) => win.resolveLocalFileSystemURL(`filesystem:${ORIGIN}/persistent/../../a%20dir`, ok, ko))).fullPath, '/a dir');
});

test('bad calls: an unknown type, too few arguments; uninstall restores the window', async () => {
  const { win, installed } = page();
  await rejectsWith(requestFs(win, 7), 'InvalidModificationError');
  assert.throws(() => win.webkitRequestFileSystem(0), TypeError);
  installed.uninstall();
  assert.equal(win.webkitRequestFileSystem, undefined);
  assert.equal(win.navigator.webkitPersistentStorage, undefined);
  // A window that had its own API gets it back.
  const native = () => 'native';
  const w2 = { location: { origin: ORIGIN }, navigator: {}, webkitRequestFileSystem: native };
  const i2 = installLegacyFileSystem(w2, memoryStorage());
  assert.notEqual(w2.webkitRequestFileSystem, native, 'replaced: the native store is not the plugin\'s');
  i2.uninstall();
  assert.equal(w2.webkitRequestFileSystem, native);
});
