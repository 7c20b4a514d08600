// The in-memory file system, descriptors, host mounts and stdio hooks,
// through the FileSystem API and through the IRT fdio/filename functions.

import test from 'node:test';
import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import * as nodePath from 'node:path';
import * as os from 'node:os';
import { FileSystem, FsError } from '../src/internal/runtime/fs/index.js';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { fdio } from '../src/internal/runtime/irt/fdio.js';
import { filename } from '../src/internal/runtime/irt/filename.js';
import { O, S, STAT, DIRENT, errno } from '../src/internal/runtime/defs.js';

const enc = (s) => new TextEncoder().encode(s);
const dec = (b) => new TextDecoder().decode(b);

function throwsErrno(fn, code) {
  assert.throws(fn, (e) => e instanceof FsError && e.errno === code, `expected errno ${code}`);
}

/** A process-like object for the IRT functions: memory + fs. */
function proc(fs) {
  const mem = new GuestMemory(new WebAssembly.Memory({ initial: 2, maximum: 4, shared: true }));
  const p = { mem, fs };
  return { p, mem, ...fdio(p), ...filename(p) };
}

function cstr(mem, addr, s) {
  mem.writeCBytes(addr, enc(s));
  return addr;
}

test('files given by the embedder can be read, with parents created', () => {
  const fs = new FileSystem({ files: { '/data/in.txt': 'hello', 'top.bin': new Uint8Array([1, 2, 3]) } });
  const fd = fs.open('/data/in.txt', O.RDONLY);
  assert.equal(fd, 3);
  assert.equal(dec(fs.get(fd).read(100)), 'hello');
  assert.equal(fs.get(fd).read(100).length, 0, 'EOF');
  assert.deepEqual([...fs.get(fs.open('/top.bin', O.RDONLY)).read(2)], [1, 2]);
  assert.equal(fs.stat('/data').mode & S.IFMT, S.IFDIR);
  assert.equal(fs.stat('/data/in.txt').size, 5);
});

test('open flags: O_CREAT, O_EXCL, O_TRUNC, O_APPEND, access modes', () => {
  const fs = new FileSystem({ files: { '/f': 'abc' } });
  throwsErrno(() => fs.open('/missing', O.RDONLY), errno.ENOENT);
  throwsErrno(() => fs.open('/f', O.CREAT | O.EXCL | O.WRONLY), errno.EEXIST);
  throwsErrno(() => fs.open('/f', 3), errno.EINVAL);
  const ro = fs.open('/f', O.RDONLY);
  throwsErrno(() => fs.get(ro).write(enc('x')), errno.EBADF);
  const ap = fs.open('/f', O.WRONLY | O.APPEND);
  fs.get(ap).write(enc('de'));
  assert.equal(dec(fs.memFile('/f').contents()), 'abcde');
  const tr = fs.open('/f', O.RDWR | O.TRUNC);
  assert.equal(fs.stat('/f').size, 0);
  fs.get(tr).write(enc('xyz'));
  const nf = fs.open('/new', O.CREAT | O.WRONLY, 0o600);
  fs.get(nf).write(enc('made'));
  assert.equal(dec(fs.memFile('/new').contents()), 'made');
  assert.equal(fs.stat('/new').mode, S.IFREG | 0o600);
  throwsErrno(() => fs.open('/', O.WRONLY), errno.EISDIR);
  throwsErrno(() => fs.open('/f/x', O.RDONLY), errno.ENOTDIR);
});

test('seek, sparse writes and the shared offset of dup', () => {
  const fs = new FileSystem();
  const fd = fs.open('/s', O.CREAT | O.RDWR);
  const d = fs.get(fd);
  assert.equal(d.seek(4n, 0), 4);
  d.write(enc('Z'));
  assert.deepEqual([...fs.memFile('/s').contents()], [0, 0, 0, 0, 90]);
  assert.equal(d.seek(-2n, 2), 3);
  assert.equal(d.seek(1n, 1), 4);
  throwsErrno(() => d.seek(-10n, 1), errno.EINVAL);
  throwsErrno(() => d.seek(0n, 7), errno.EINVAL);
  const dup = fs.dup(fd);
  d.seek(0n, 0);
  fs.get(dup).read(2);
  assert.equal(d.seek(0n, 1), 2, 'dup shares the offset');
  fs.close(fd);
  assert.equal(fs.get(dup).read(10).length, 3, 'still open through the dup');
  throwsErrno(() => fs.get(fd), errno.EBADF);
  throwsErrno(() => fs.get(1).seek(0n, 0), errno.ESPIPE);
});

test('dup2 replaces the target and stdio change notifications fire', () => {
  const changed = [];
  const out = [];
  const fs = new FileSystem({ files: { '/f': '' }, stdout: (c) => out.push(dec(c)), onStdioChange: (fd) => changed.push(fd) });
  const fd = fs.open('/f', O.WRONLY);
  fs.dup2(fd, 1);
  fs.get(1).write(enc('to file'));
  assert.equal(dec(fs.memFile('/f').contents()), 'to file');
  assert.deepEqual(out, []);
  assert.deepEqual(changed, [1]);
  throwsErrno(() => fs.dup2(99, 5), errno.EBADF);
  throwsErrno(() => fs.dup2(fd, -1), errno.EBADF);
  assert.equal(fs.dup2(fd, 40), 40);
  assert.equal(fs.get(40), fs.get(fd));
});

test('directories: mkdir, rmdir, unlink, rename, link, symlink, chdir', () => {
  const fs = new FileSystem({ files: { '/a/b/c.txt': 'c' } });
  fs.mkdir('/d', 0o700);
  throwsErrno(() => fs.mkdir('/d'), errno.EEXIST);
  throwsErrno(() => fs.mkdir('/no/such'), errno.ENOENT);
  throwsErrno(() => fs.rmdir('/a'), errno.ENOTEMPTY);
  throwsErrno(() => fs.rmdir('/a/b/c.txt'), errno.ENOTDIR);
  throwsErrno(() => fs.unlink('/a'), errno.EISDIR);
  fs.rename('/a/b/c.txt', '/d/c2.txt');
  throwsErrno(() => fs.stat('/a/b/c.txt'), errno.ENOENT);
  assert.equal(fs.stat('/d/c2.txt').size, 1);
  throwsErrno(() => fs.rename('/a', '/a/b/inside'), errno.EINVAL);
  fs.link('/d/c2.txt', '/hard');
  assert.equal(fs.stat('/hard').nlink, 2);
  fs.symlink('/d/c2.txt', '/soft');
  assert.equal(dec(fs.readlink('/soft')), '/d/c2.txt');
  assert.equal(fs.stat('/soft').size, 1);
  assert.equal(fs.stat('/soft', { follow: false }).mode & S.IFMT, S.IFLNK);
  throwsErrno(() => fs.readlink('/hard'), errno.EINVAL);
  fs.symlink('loop', '/loop');
  throwsErrno(() => fs.stat('/loop'), errno.ELOOP);
  fs.chdir('/d');
  assert.equal(fs.getcwd(), '/d');
  assert.equal(fs.stat('c2.txt').size, 1, 'relative to the cwd');
  assert.equal(fs.stat('../a/b').mode & S.IFMT, S.IFDIR);
  throwsErrno(() => fs.chdir('/hard'), errno.ENOTDIR);
  fs.unlink('/hard');
  fs.rmdir('/a/b');
  fs.chmod('/d/c2.txt', 0o400);
  throwsErrno(() => fs.access('/d/c2.txt', 2), errno.EACCES);
  fs.access('/d/c2.txt', 4);
});

test('IRT fdio/filename calls read and write guest memory', () => {
  const out = [];
  const fs = new FileSystem({ files: { '/dir/x': 'xx', '/dir/yy': 'y' }, stdout: (c) => out.push(dec(c)) });
  const { mem, ...irt } = proc(fs);
  const PATH = 0x100, FD = 0x200, N = 0x204, BUF = 0x300, ST = 0x400, OFF = 0x500;
  assert.equal(irt.open(cstr(mem, PATH, '/dir/x'), O.RDONLY, 0, FD), 0);
  const fd = mem.getI32(FD);
  assert.equal(irt.read(fd, BUF, 100, N), 0);
  assert.equal(mem.getU32(N), 2);
  assert.equal(dec(mem.read(BUF, 2)), 'xx');
  assert.equal(irt.seek(fd, 1n, 0, OFF), 0);
  assert.equal(mem.getI64(OFF), 1n);
  assert.equal(irt.fstat(fd, ST), 0);
  assert.equal(mem.getI64(ST + STAT.size), 2n);
  assert.equal(mem.getI32(ST + STAT.mode), S.IFREG | 0o644);
  assert.equal(irt.stat(cstr(mem, PATH, '/dir'), ST), 0);
  assert.equal(mem.getI32(ST + STAT.mode) & S.IFMT, S.IFDIR);
  mem.write(BUF, enc('out!'));
  assert.equal(irt.write(1, BUF, 4, N), 0);
  assert.equal(mem.getU32(N), 4);
  assert.deepEqual(out, ['out!']);
  // getcwd: ERANGE when too small.
  assert.equal(irt.getcwd(BUF, 1), errno.ERANGE);
  assert.equal(irt.getcwd(BUF, 2), 0);
  assert.equal(mem.readCString(BUF), '/');
  assert.equal(irt.open(cstr(mem, PATH, '/nope'), O.RDONLY, 0, FD), errno.ENOENT);
  assert.equal(irt.close(fd), 0);
  assert.equal(irt.close(fd), errno.EBADF);
});

test('getdents lists a directory in nacl_abi_dirent records', () => {
  const fs = new FileSystem({ files: { '/dir/alpha': 'a', '/dir/b': 'b' } });
  const { mem, ...irt } = proc(fs);
  const PATH = 0x100, FD = 0x200, N = 0x204, BUF = 0x1000;
  assert.equal(irt.open(cstr(mem, PATH, '/dir'), O.RDONLY, 0, FD), 0);
  const fd = mem.getI32(FD);
  assert.equal(irt.getdents(fd, BUF, 10, N), errno.EINVAL, 'buffer too small for one entry');
  const names = [];
  for (;;) {
    assert.equal(irt.getdents(fd, BUF, 48, N), 0);
    const n = mem.getU32(N);
    if (n === 0) break;
    for (let at = BUF; at < BUF + n; ) {
      const reclen = mem.view().getUint16(at + DIRENT.reclen, true);
      assert.equal(reclen % 8, 0);
      assert.ok(mem.getI64(at + DIRENT.ino) > 0n);
      names.push(mem.readCString(at + DIRENT.name));
      at += reclen;
    }
  }
  assert.deepEqual(names, ['.', '..', 'alpha', 'b']);
  const FILE = cstr(mem, PATH, '/dir/b');
  assert.equal(irt.open(FILE, O.RDONLY, 0, FD), 0);
  assert.equal(irt.getdents(mem.getI32(FD), BUF, 100, N), errno.ENOTDIR);
});

test('stdio hooks: stdin bytes, a stdin function, FIFO or tty stat', () => {
  const chunks = ['ab', 'c'];
  const fs = new FileSystem({ stdin: () => (chunks.length ? enc(chunks.shift()) : null), tty: [false, true, false] });
  assert.equal(dec(fs.get(0).read(1)), 'a');
  assert.equal(dec(fs.get(0).read(5)), 'b');
  assert.equal(dec(fs.get(0).read(5)), 'c');
  assert.equal(fs.get(0).read(5).length, 0);
  assert.equal(fs.get(0).stat().mode & S.IFMT, S.IFIFO);
  assert.equal(fs.get(1).stat().mode & S.IFMT, S.IFCHR);
  assert.equal(fs.get(1).isatty(), true);
  assert.equal(fs.get(2).isatty(), false);
  const fs2 = new FileSystem({ stdin: 'line\n' });
  assert.equal(dec(fs2.get(0).read(100)), 'line\n');
  // Discarded output still reports every byte written.
  assert.equal(fs2.get(1).write(enc('gone')), 4);
  const { mem, ...irt } = proc(fs);
  assert.equal(irt.isatty(1, 0x10), 0);
  assert.equal(mem.getI32(0x10), 1);
  assert.equal(irt.isatty(2, 0x10), errno.ENOTTY);
  assert.equal(irt.isatty(77, 0x10), errno.EBADF);
});

test('descriptor table limit: EMFILE', () => {
  const fs = new FileSystem({ files: { '/f': '' } });
  let last;
  assert.throws(() => {
    for (let i = 0; i < 2000; i++) last = fs.open('/f', O.RDONLY);
  }, (e) => e.errno === errno.EMFILE);
  assert.equal(last, 1023);
});

test('host directories: paths are host paths, confined to the mount', (t) => {
  const root = nodeFs.realpathSync(nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'pexe-fs-')));
  t.after(() => nodeFs.rmSync(root, { recursive: true, force: true }));
  const inside = nodePath.join(root, 'inside');
  nodeFs.mkdirSync(inside);
  nodeFs.writeFileSync(nodePath.join(inside, 'hello.txt'), 'hi there');
  nodeFs.writeFileSync(nodePath.join(root, 'secret.txt'), 'secret');
  nodeFs.symlinkSync(nodePath.join(root, 'secret.txt'), nodePath.join(inside, 'escape'));
  const fs = new FileSystem({ hostDirs: [inside], nodeFs, nodePath, cwd: inside });
  assert.equal(fs.getcwd(), inside);
  const fd = fs.open('hello.txt', O.RDONLY);
  assert.equal(dec(fs.get(fd).read(100)), 'hi there');
  assert.equal(fs.get(fd).seek(-5n, 2), 3);
  assert.equal(dec(fs.get(fd).read(100)), 'there');
  throwsErrno(() => fs.open('../secret.txt', O.RDONLY), errno.ENOENT);
  throwsErrno(() => fs.open(nodePath.join(root, 'secret.txt'), O.RDONLY), errno.ENOENT);
  throwsErrno(() => fs.open('escape', O.RDONLY), errno.EACCES);
  const w = fs.open('new.txt', O.CREAT | O.WRONLY | O.TRUNC, 0o644);
  fs.get(w).write(enc('written'));
  fs.close(w);
  assert.equal(nodeFs.readFileSync(nodePath.join(inside, 'new.txt'), 'utf8'), 'written');
  fs.mkdir('sub');
  fs.rename('new.txt', 'sub/moved.txt');
  assert.equal(fs.stat('sub/moved.txt').size, 7);
  const dir = fs.open('.', O.RDONLY);
  const names = [];
  fs.get(dir).getdents((e) => names.push(e.name));
  assert.deepEqual(names.sort(), ['.', '..', 'escape', 'hello.txt', 'sub']);
  throwsErrno(() => fs.rmdir(inside), errno.EBUSY);
  throwsErrno(() => fs.stat('missing'), errno.ENOENT);
  fs.unlink('sub/moved.txt');
  fs.rmdir('sub');
  assert.equal(nodeFs.existsSync(nodePath.join(inside, 'sub')), false);
});
