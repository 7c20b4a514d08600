// The Workers' synchronous legacy FileSystem API across its bridge:
// src/internal/pepper/html5fs-sync-worker.js in a worker_threads Worker
// (blocking in Atomics.wait), html5fs-sync.js on the main thread over the
// memory stores — what kichikuou's installer Worker does, Blink's errors,
// answers longer than the shared buffer, and the bridge's refusals.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, Worker } from 'node:worker_threads';
import { LIMITS, syncFileSystemServer } from '../src/internal/pepper/html5fs-sync.js';
import { memoryStorage } from '../src/internal/pepper/storage/index.js';

const ORIGIN = 'http://127.0.0.1:8123';
const WORKER = new URL('./helpers/html5fs-sync-worker.mjs', import.meta.url);
const { HEADER, ANSWER } = globalThis[Symbol.for('pexe.html5fsSync')];

/** A page stand-in: memory stores (persistent quota `quota`) and a server of bridges over them. */
function page({ quota = 1 << 20 } = {}) {
  const storage = memoryStorage({ persistentQuota: 1 << 30 });
  storage.stores.persistent.quota = quota;
  const win = { location: { origin: ORIGIN }, navigator: {}, console };
  return { storage, server: syncFileSystemServer(win, storage) };
}

/** Runs `scenario` in a Worker whose bridge is `port`; resolves with its result. */
function runWorker(scenario, port, limits = {}) {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { workerData: { port, scenario, limits }, transferList: [port] });
    w.once('message', (m) => {
      w.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve(m.result);
    });
    w.once('error', reject);
  });
}

const readAll = async (store, path) => {
  const h = await store.open(path, { read: true });
  try {
    return await store.read(h, 0, (await store.fstat(h)).size);
  } finally {
    await store.close(h);
  }
};

test("kichikuou's installer Worker: its calls, Blink's errors, answers in pieces (a 4 KiB shared buffer)", { timeout: 60_000 }, async () => {
  const { storage, server } = page();
  const persistent = await storage.get('persistent');
  // Something from an earlier install, which the installer clears first.
  await persistent.mkdir('/old');
  await persistent.close(await persistent.open('/old/file', { write: true, create: true }));
  const { port1, port2 } = new MessageChannel();
  server.serve(port1);
  const r = await runWorker('installer', port2, { sharedBytes: 4096 });

  assert.equal(r.name, 'http_127_0_0_1_8123:Persistent');
  assert.equal(r.rootPath, '/');
  assert.equal(r.same, true, 'one DOMFileSystemSync per type');
  assert.deepEqual(r.before, ['old/']);
  assert.equal(r.cleared, 0);
  assert.equal(r.sizeBefore, 0);
  assert.deepEqual(r.writer, [300_000, 300_000]);
  assert.deepEqual(r.file, { name: 'testsa.ald', size: 300_000, type: '', lastModified: true });
  assert.deepEqual(new Uint8Array(await r.fileBlob.arrayBuffer()), r.expected, 'file() read back in 4 KiB pieces');
  assert.deepEqual(r.after, ['fonts/', 'save/', 'testsa.ald', 'xsystem35.gr']);
  assert.deepEqual(r.readerTwice, [4, 0], 'everything, then the end');
  assert.deepEqual(r.fresh, [0, 300_000]);
  assert.deepEqual(r.seek, [300_001, 300_001], 'seek(-4) from the end, then five bytes');
  assert.equal(r.seekPast, 300_001, 'seek past the end stops at the end');
  assert.deepEqual(r.truncated, [10, 10, 10]);
  assert.equal(r.metadata, true);
  assert.deepEqual(r.parent, ['/', '/', true]);
  assert.deepEqual(r.moved, ['/save/copy.ald', '/fonts/copy.ald', true, 'NotFoundError']);
  assert.equal(r.url, `filesystem:${ORIGIN}/persistent/save`);
  assert.deepEqual(r.resolved, ['/fonts/copy.ald', true, true]);
  assert.equal(r.lexical, '/x.txt', '".." clamped at the root');
  assert.deepEqual(r.errors, {
    writerOfDirectory: 'TypeMismatchError',
    fileOfDirectory: 'TypeMismatchError',
    missing: 'NotFoundError',
    missingDir: 'NotFoundError',
    notADirectory: 'TypeMismatchError',
    notAFile: 'TypeMismatchError',
    exclusive: 'InvalidModificationError',
    removeRoot: 'InvalidModificationError',
    notEmpty: 'InvalidModificationError',
    moveIntoItself: 'InvalidModificationError',
    badName: 'InvalidModificationError',
    badType: 'InvalidModificationError',
    tooFew: "TypeError: Failed to execute 'webkitRequestFileSystemSync' on 'DedicatedWorkerGlobalScope': 2 arguments required, but only 1 present.",
    negative: 'InvalidStateError',
    notBlob: "TypeError: Failed to execute 'write' on 'FileWriterSync': parameter 1 is not of type 'Blob'.",
    illegal: 'TypeError: Illegal constructor',
    otherOrigin: 'SecurityError',
    badUrl: 'EncodingError',
    backslash: 'EncodingError',
    quota: 'QuotaExceededError',
  });
  assert.deepEqual(r.bigAfter, [0, 0], 'a refused write moves nothing');
  assert.deepEqual(r.many, [120, 'entry-with-a-long-name-000.dat', 'entry-with-a-long-name-119.dat'], 'a listing of ~6 KiB through a 4 KiB buffer');

  // The page's stores have what the Worker wrote.
  assert.deepEqual(
    (await persistent.readdir('/')).map((e) => e.name),
    ['big', 'fonts', 'ghost', 'save', 'testsa.ald', 'x.txt', 'xsystem35.gr'],
  );
  assert.equal(new TextDecoder().decode(await readAll(persistent, '/xsystem35.gr')), 'ScenarioA gamedata/testsa.ald\nSaveA gamedata/save/testsa.asd\n');
  assert.equal((await persistent.stat('/fonts/MTLc3m.ttf')).size, 5000);
  assert.equal((await persistent.stat('/testsa.ald')).size, 10);
  port1.close();
});

test('without a SharedArrayBuffer (no cross-origin isolation): NotSupportedError saying why, and nothing posted', () => {
  const api = globalThis[Symbol.for('pexe.html5fsSync')];
  const errors = [];
  let opened = 0;
  const scope = {
    SharedArrayBuffer: undefined,
    crossOriginIsolated: false,
    DOMException,
    Blob,
    File,
    console: { error: (m) => errors.push(m) },
  };
  api.install(scope, {
    openBridge: () => {
      opened++;
      return null;
    },
  });
  for (let i = 0; i < 2; i++) {
    assert.throws(
      () => scope.webkitRequestFileSystemSync(scope.PERSISTENT, 0),
      (e) => e instanceof DOMException && e.name === 'NotSupportedError' && /not cross-origin isolated/.test(e.message) && /serviceWorker/.test(e.message),
    );
  }
  assert.equal(opened, 0);
  assert.equal(errors.length, 1, 'said once in the console');
});

test('a Worker whose bridge nobody answers gives up after LIMITS.silenceMs, saying so', { timeout: 30_000 }, async () => {
  const { port2 } = new MessageChannel();
  const said = await runWorker('silence', port2, { silenceMs: 300 });
  assert.match(said, /^InvalidStateError: pexe: the page did not answer this Worker’s file system call \(fileSystem\) for 0.3 s/);
});

test('the server: a shared buffer outside the limits is refused; bad calls get errors; reads are cut to the buffer', { timeout: 30_000 }, async () => {
  const { storage, server } = page();
  const persistent = await storage.get('persistent');
  const h = await persistent.open('/f', { write: true, create: true });
  await persistent.write(h, 0, new Uint8Array(10_000).fill(7));
  await persistent.close(h);
  const st = await persistent.stat('/f');

  // Refused: too small a buffer closes the port (the server answers nothing).
  {
    const { port1, port2 } = new MessageChannel();
    server.serve(port1);
    const sab = new SharedArrayBuffer(HEADER.BYTES + 16);
    port2.postMessage({ op: 'attach', sab });
    port2.postMessage({ seq: 1, op: 'fileSystem', args: [1] });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(Atomics.load(new Int32Array(sab, 0, HEADER.SLOTS), HEADER.STATE), 0, 'no answer');
    assert.ok(LIMITS.minSharedBytes > 16);
  }

  // A raw client with a 1 KiB data area.
  const { port1, port2 } = new MessageChannel();
  server.serve(port1);
  const sab = new SharedArrayBuffer(HEADER.BYTES + 1024);
  const header = new Int32Array(sab, 0, HEADER.SLOTS);
  const data = new Uint8Array(sab, HEADER.BYTES);
  port2.postMessage({ op: 'attach', sab });
  let seq = 0;
  const ask = async (message) => {
    Atomics.store(header, HEADER.STATE, 0);
    message.seq = ++seq;
    port2.postMessage(message);
    const { async, value } = Atomics.waitAsync(header, HEADER.STATE, 0, 5000);
    if (async) assert.equal(await value, 'ok');
    assert.equal(header[HEADER.SEQ], seq);
    const bytes = data.slice(0, header[HEADER.LENGTH]);
    const kind = header[HEADER.KIND];
    return { kind, more: header[HEADER.MORE], bytes, value: kind === ANSWER.BYTES ? null : JSON.parse(new TextDecoder().decode(bytes)) };
  };
  const errorOf = async (message) => {
    const a = await ask(message);
    assert.equal(a.kind, ANSWER.ERROR, JSON.stringify(message));
    return a.value.name;
  };
  assert.equal(await errorOf({ op: 'nope', args: [] }), 'InvalidStateError');
  assert.equal(await errorOf({ op: 'list', args: 'not an array' }), 'InvalidStateError');
  assert.equal(await errorOf({ op: 'list', args: ['elsewhere', '/'] }), 'InvalidStateError');
  assert.equal(await errorOf({ op: 'write', args: ['persistent', '/f', 0] }), 'InvalidStateError', 'a write without a Blob');
  assert.equal(await errorOf({ op: 'truncate', args: ['persistent', '/f', '5'] }), 'InvalidStateError', 'a length that is not a number');
  assert.equal(await errorOf({ op: 'truncate', args: ['persistent', '/f', 2 ** 60] }), 'InvalidStateError', 'past the safe integers');
  assert.equal(await errorOf({ op: 'lookup', args: ['persistent', '/', '../../etc/passwd', {}, 'file'] }), 'NotFoundError', 'clamped to the root, not found there');
  assert.equal(await errorOf({ op: 'more', of: 99 }), 'InvalidStateError', 'no answer to continue');
  // A read asking for far more than the buffer holds gets the buffer's worth.
  const read = await ask({ op: 'read', args: ['persistent', '/f', 0, 2 ** 40, st.size, st.mtime] });
  assert.equal(read.kind, ANSWER.BYTES);
  assert.equal(read.bytes.length, 1024);
  // A read of a file that changed since fileInfo: InvalidStateError.
  assert.equal(await errorOf({ op: 'read', args: ['persistent', '/f', 0, 10, st.size + 1, st.mtime] }), 'InvalidStateError');
  port1.close();
  port2.close();
});
