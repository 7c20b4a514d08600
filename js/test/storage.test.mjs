// The file-system stores (src/internal/pepper/storage/): one battery of
// cases run against every backend Node has (memory, host directory), the
// host directory's confinement (no "..", no symlink escape), and paths.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { CODE } from '../src/internal/pepper/storage/errors.js';
import { MemoryStore } from '../src/internal/pepper/storage/memory.js';
import { NodeDirStore } from '../src/internal/pepper/storage/node-dir.js';
import { components, normalize, resolveLexically } from '../src/internal/pepper/storage/paths.js';

const enc = (s) => new TextEncoder().encode(s);
const dec = (b) => new TextDecoder().decode(b);

/** Expects `p` to reject with StoreError `code`. */
async function rejects(p, code, what) {
  await assert.rejects(p, (e) => e?.name === 'StoreError' && e.code === code, `${what ?? ''} should fail with ${code}`);
}

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-store-'));
}

const BACKENDS = {
  memory: (quota) => new MemoryStore({ type: 'persistent', quota, maxQuota: quota }),
  'host directory': (quota) => new NodeDirStore({ type: 'persistent', quota, maxQuota: quota, dir: tempDir(), node: { fs, path } }),
};

for (const [name, make] of Object.entries(BACKENDS)) {
  test(`${name}: directories, files, listing, times`, async () => {
    const s = make(1 << 20);
    await s.ready();
    await s.mkdir('/a/b/c', { recursive: true });
    await rejects(s.mkdir('/x/y'), CODE.NOT_FOUND, 'a missing parent');
    await rejects(s.mkdir('/a', { exclusive: true }), CODE.EXISTS);
    await s.mkdir('/a');
    const h = await s.open('/a/f.txt', { write: true, read: true, create: true });
    assert.equal(await s.write(h, 0, enc('hello world')), 11);
    assert.equal(dec(await s.read(h, 6, 100)), 'world');
    assert.equal((await s.fstat(h)).size, 11);
    await s.close(h);
    await rejects(s.read(h, 0, 1), CODE.BAD_HANDLE, 'a closed handle');
    await rejects(s.mkdir('/a/f.txt'), CODE.NOT_A_DIRECTORY, 'a file in the way');
    await rejects(s.mkdir('/a/f.txt/z', { recursive: true }), CODE.NOT_A_DIRECTORY);
    await rejects(s.open('/a/f.txt/z', { read: true }), CODE.NOT_A_DIRECTORY);
    assert.deepEqual(await s.readdir('/a'), [
      { name: 'b', type: 'directory' },
      { name: 'f.txt', type: 'file' },
    ]);
    await rejects(s.readdir('/a/f.txt'), CODE.NOT_A_DIRECTORY);
    await rejects(s.readdir('/none'), CODE.NOT_FOUND);
    const st = await s.stat('/a/f.txt');
    assert.equal(st.type, 'file');
    assert.equal(st.size, 11);
    assert.equal((await s.stat('/')).type, 'directory');
    await s.touch('/a/f.txt', 1_000_000, 2_000_000);
    const t = await s.stat('/a/f.txt');
    assert.equal(Math.round(t.atime), 1_000_000);
    assert.equal(Math.round(t.mtime), 2_000_000);
    await rejects(s.touch('/nope', 1, 1), CODE.NOT_FOUND);
  });

  test(`${name}: open flags`, async () => {
    const s = make(1 << 20);
    await s.ready();
    await rejects(s.open('/f', { read: true }), CODE.NOT_FOUND);
    const h = await s.open('/f', { write: true, create: true, exclusive: true });
    await s.write(h, 0, enc('abcdef'));
    await s.close(h);
    await rejects(s.open('/f', { write: true, create: true, exclusive: true }), CODE.EXISTS);
    await rejects(s.open('/', { read: true }), CODE.NOT_A_FILE);
    await s.mkdir('/d');
    await rejects(s.open('/d', { read: true }), CODE.NOT_A_FILE);
    await rejects(s.open('/f', { read: true, truncate: true }), CODE.INVALID_OPERATION, 'truncate needs write');
    const ro = await s.open('/f', { read: true });
    await rejects(s.write(ro, 0, enc('x')), CODE.ACCESS);
    await rejects(s.setLength(ro, 0), CODE.ACCESS);
    await s.close(ro);
    const wo = await s.open('/f', { write: true });
    await rejects(s.read(wo, 0, 1), CODE.ACCESS);
    await s.close(wo);
    const ap = await s.open('/f', { append: true });
    await s.write(ap, 0, enc('GH'));
    await s.close(ap);
    const rd = await s.open('/f', { read: true });
    assert.equal(dec(await s.read(rd, 0, 100)), 'abcdefGH', 'append writes at the end');
    await s.close(rd);
    const tr = await s.open('/f', { write: true, truncate: true });
    assert.equal((await s.fstat(tr)).size, 0);
    await s.setLength(tr, 3);
    await s.close(tr);
    const z = await s.open('/f', { read: true });
    assert.deepEqual([...(await s.read(z, 0, 10))], [0, 0, 0]);
    await rejects(s.read(z, -1, 1), CODE.INVALID_OPERATION);
    await rejects(s.read(z, 0, -1), CODE.INVALID_OPERATION);
    assert.equal((await s.read(z, 2 ** 50, 1)).length, 0);
    await s.close(z);
  });

  test(`${name}: remove, rename and copy by Chrome's rules`, async () => {
    const s = make(1 << 20);
    await s.ready();
    await s.mkdir('/d/e', { recursive: true });
    const h = await s.open('/d/e/f', { write: true, create: true });
    await s.write(h, 0, enc('12345'));
    await s.close(h);
    await rejects(s.remove('/d'), CODE.NOT_EMPTY);
    await rejects(s.remove('/'), CODE.INVALID_OPERATION);
    await rejects(s.remove('/', { recursive: true }), CODE.INVALID_OPERATION);
    await rejects(s.remove('/zz'), CODE.NOT_FOUND);
    await rejects(s.rename('/d', '/d/e/x'), CODE.INVALID_OPERATION, 'into itself');
    await rejects(s.rename('/', '/x'), CODE.INVALID_OPERATION);
    await rejects(s.rename('/nope', '/x'), CODE.NOT_FOUND);
    await rejects(s.rename('/d/e/f', '/no/x'), CODE.NOT_FOUND);
    await s.rename('/d/e/f', '/d/e/f');
    await s.copy('/d', '/c');
    assert.equal(dec(await readAll(s, '/c/e/f')), '12345');
    assert.equal(s.usage, 10);
    await rejects(s.copy('/c', '/c'), CODE.INVALID_OPERATION);
    await rejects(s.rename('/c/e/f', '/d'), CODE.INVALID_OPERATION, 'a file over a directory');
    await rejects(s.rename('/c', '/d/e/f'), CODE.INVALID_OPERATION, 'a directory over a file');
    await rejects(s.rename('/c', '/d'), CODE.NOT_EMPTY, 'over a directory with entries');
    await s.mkdir('/empty');
    await s.rename('/c', '/empty');
    assert.equal(dec(await readAll(s, '/empty/e/f')), '12345', 'over an empty directory');
    const g = await s.open('/g', { write: true, create: true });
    await s.write(g, 0, enc('xy'));
    await s.close(g);
    await s.rename('/g', '/empty/e/f');
    assert.equal(dec(await readAll(s, '/empty/e/f')), 'xy', 'a file over a file');
    assert.equal(s.usage, 7);
    await s.remove('/empty', { recursive: true });
    await s.remove('/d/e/f');
    assert.deepEqual(await s.readdir('/d'), [{ name: 'e', type: 'directory' }]);
    assert.equal(s.usage, 0);
  });

  test(`${name}: an open file follows a rename`, async () => {
    const s = make(1 << 20);
    await s.ready();
    const h = await s.open('/a', { write: true, read: true, create: true });
    await s.write(h, 0, enc('one'));
    await s.rename('/a', '/b');
    await s.write(h, 3, enc('two'));
    await s.close(h);
    assert.equal(dec(await readAll(s, '/b')), 'onetwo');
  });

  test(`${name}: quota`, async () => {
    const s = make(10);
    await s.ready();
    const h = await s.open('/q', { write: true, read: true, create: true });
    assert.equal(await s.write(h, 0, enc('12345678')), 8);
    await rejects(s.write(h, 8, enc('abc')), CODE.QUOTA);
    assert.equal((await s.fstat(h)).size, 8, 'nothing written');
    await s.write(h, 0, enc('abcdefgh'));
    await rejects(s.setLength(h, 11), CODE.QUOTA);
    await s.setLength(h, 10);
    await rejects(s.write(h, 2 ** 40, enc('x')), CODE.QUOTA);
    await rejects(s.write(h, 2 ** 53, enc('x')), CODE.NO_SPACE);
    await rejects(s.copy('/q', '/r'), CODE.QUOTA);
    assert.deepEqual(await s.usageAndQuota(), { usage: 10, quota: 10 });
    await s.close(h);
    assert.equal(await s.requestQuota(20), 10, 'no more than the store allows');
    await s.remove('/q');
    assert.equal(s.usage, 0);
  });
}

async function readAll(s, p) {
  const h = await s.open(p, { read: true });
  const bytes = await s.read(h, 0, 1 << 20);
  await s.close(h);
  return bytes;
}

test('host directory: confined to its directory; symbolic links are refused, never followed', async () => {
  const outside = tempDir();
  fs.writeFileSync(path.join(outside, 'secret'), 'do not read');
  const dir = tempDir();
  fs.symlinkSync(outside, path.join(dir, 'escape'));
  fs.symlinkSync(path.join(outside, 'secret'), path.join(dir, 'link'));
  fs.mkdirSync(path.join(dir, 'inside'));
  fs.symlinkSync('../escape', path.join(dir, 'inside', 'up'));
  const s = new NodeDirStore({ type: 'persistent', quota: 1 << 20, dir, node: { fs, path } });
  await s.ready();
  await rejects(s.stat('/escape'), CODE.ACCESS);
  await rejects(s.stat('/escape/secret'), CODE.ACCESS);
  await rejects(s.open('/link', { read: true }), CODE.ACCESS);
  await rejects(s.open('/link', { write: true, truncate: true }), CODE.ACCESS);
  await rejects(s.open('/escape/new', { write: true, create: true }), CODE.ACCESS);
  await rejects(s.readdir('/escape'), CODE.ACCESS);
  await rejects(s.remove('/escape/secret'), CODE.ACCESS);
  await rejects(s.rename('/link', '/mine'), CODE.ACCESS);
  await rejects(s.copy('/escape', '/mine'), CODE.ACCESS);
  await rejects(s.mkdir('/escape/sub'), CODE.ACCESS);
  await rejects(s.stat('/inside/up/secret'), CODE.ACCESS);
  await rejects(s.touch('/link', 1, 1), CODE.ACCESS);
  // The listing shows only files and directories.
  assert.deepEqual(await s.readdir('/'), [{ name: 'inside', type: 'directory' }]);
  for (const p of ['/../x', '/a/../../x', '../x', 'relative', '/a\\..\\b']) {
    await rejects(s.stat(p), CODE.INVALID_PATH, p);
    await rejects(s.open(p, { write: true, create: true }), CODE.INVALID_PATH, p);
  }
  assert.equal(fs.readFileSync(path.join(outside, 'secret'), 'utf8'), 'do not read');
  assert.deepEqual(fs.readdirSync(outside), ['secret'], 'nothing was created outside');
  // Removing a directory that holds a link removes the link, not its target.
  fs.symlinkSync(outside, path.join(dir, 'inside', 'again'));
  await s.remove('/inside', { recursive: true });
  assert.deepEqual(fs.readdirSync(outside), ['secret']);
});

test('host directory: a directory that is not there fails to open, cleanly', async () => {
  const s = new NodeDirStore({ type: 'persistent', quota: 1, dir: path.join(tempDir(), 'missing'), node: { fs, path } });
  await rejects(s.ready(), CODE.NOT_FOUND);
  await rejects(s.stat('/'), CODE.NOT_FOUND);
});

test('host directory: usage counts the files already there', async () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'd'));
  fs.writeFileSync(path.join(dir, 'd', 'x'), 'abcd');
  fs.writeFileSync(path.join(dir, 'y'), 'ef');
  const s = new NodeDirStore({ type: 'persistent', quota: 100, dir, node: { fs, path } });
  await s.ready();
  assert.equal(s.usage, 6);
});

test('paths: normal forms and refusals', () => {
  assert.deepEqual(components('/'), []);
  assert.deepEqual(components('//a/./b/'), ['a', 'b']);
  assert.equal(normalize('/a//b/.'), '/a/b');
  for (const bad of ['', 'a', '/..', '/a/../b', '/a\\b', '/a\0b', `/${'x'.repeat(256)}`, `/${'a/'.repeat(300)}`]) {
    assert.throws(() => components(bad), (e) => e.code === CODE.INVALID_PATH, JSON.stringify(bad).slice(0, 40));
  }
  assert.equal(resolveLexically('/a/b', '../c'), '/a/c');
  assert.equal(resolveLexically('/a', '../../../../etc'), '/etc', 'clamped at the root');
  assert.equal(resolveLexically('/a', '/x/./y/..'), '/x');
  assert.equal(resolveLexically('/', 'a\\b'), null);
});

test('a page in memory serves its stores to a host Worker over a port (storage/page.js)', async () => {
  const { pageStorage, connectStorage } = await import('../src/internal/pepper/storage/page.js');
  const page = pageStorage({ backend: 'memory', persistentQuota: 1000 });
  const { port } = page.link();
  const worker = await connectStorage(port);
  const remote = await worker.get('persistent');
  assert.equal(remote.kind, 'remote');
  assert.deepEqual(await remote.usageAndQuota(), { usage: 0, quota: 1000 });
  await remote.mkdir('/save');
  const h = await remote.open('/save/a', { write: true, create: true });
  assert.equal(await remote.write(h, 0, enc('via the port')), 12);
  await remote.close(h);
  const local = await page.get('persistent');
  assert.equal(dec(await readAll(local, '/save/a')), 'via the port', 'the page sees what the Worker wrote');
  await rejects(remote.stat('/nope'), CODE.NOT_FOUND, 'errors cross the port with their codes');
  await rejects(remote.open('/../x', { read: true }), CODE.INVALID_PATH);
  assert.equal(await remote.requestQuota(5000), 5000, 'no browser limit known here: granted');
  assert.equal((await local.usageAndQuota()).quota, 5000);
  port.close();
});
