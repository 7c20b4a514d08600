// A worker_threads Worker for html5fs-sync.test.mjs: installs the
// synchronous FileSystem API (src/internal/pepper/html5fs-sync-worker.js)
// on its global scope with the bridge port it was given, runs one of the
// scenarios below, and posts what it saw: { result } or { error }. Does
// nothing when loaded as a main module (the test runner loads every file
// under test/).

import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import '../../src/internal/pepper/html5fs-sync-worker.js';

/** The DOMException name `fn` throws (or 'ok', or the TypeError's message). */
function thrown(fn) {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof DOMException) return e.name;
    return `${e.constructor.name}: ${e.message}`;
  }
}

const bytesOf = (n, seed) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};

const scenarios = {
  /**
   * What kichikuou's installer Worker does (js/installer-worker.js: clear
   * the PERSISTENT file system, copy archives with a FileWriterSync after
   * checking their size, write the generated xsystem35.gr, fonts/, save/),
   * then the rest of the API, its errors, and answers longer than the
   * shared buffer.
   */
  installer() {
    const r = {};
    const fs = self.webkitRequestFileSystemSync(self.PERSISTENT, 650 * 1024 * 1024);
    r.name = fs.name;
    r.rootPath = fs.root.fullPath;
    r.same = self.webkitRequestFileSystemSync(1, 0) === fs;
    // clearFileSystem()
    const before = fs.root.createReader().readEntries();
    r.before = before.map((e) => `${e.name}${e.isDirectory ? '/' : ''}`);
    for (const e of before) {
      if (e.isDirectory) e.removeRecursively();
      else e.remove();
    }
    r.cleared = fs.root.createReader().readEntries().length;
    // copyFile(): an archive bigger than the shared buffer, in two writes.
    const ald = bytesOf(300_000, 7);
    const entry = fs.root.getFile('testsa.ald', { create: true });
    const writer = entry.createWriter();
    r.sizeBefore = entry.getMetadata().size;
    writer.truncate(0);
    writer.write(new Blob([ald.subarray(0, 100_000)]));
    writer.write(new Blob([ald.subarray(100_000)]));
    r.writer = [writer.position, writer.length];
    const file = entry.file();
    r.file = { name: file.name, size: file.size, type: file.type, lastModified: file.lastModified > 0 };
    // Read back on the other side (Node has no FileReaderSync).
    r.fileBlob = file;
    r.expected = ald;
    // GameResourceGenerator.generate() and installFont()
    const gr = fs.root.getFile('xsystem35.gr', { create: true }).createWriter();
    gr.truncate(0);
    gr.write(new Blob(['ScenarioA gamedata/testsa.ald\nSaveA gamedata/save/testsa.asd\n']));
    fs.root
      .getDirectory('fonts', { create: true })
      .getFile('MTLc3m.ttf', { create: true })
      .createWriter()
      .write(new Blob([bytesOf(5000, 1)]));
    fs.root.getDirectory('save', { create: true });
    r.after = fs.root
      .createReader()
      .readEntries()
      .map((e) => `${e.name}${e.isDirectory ? '/' : ''}`);
    const reader = fs.root.createReader();
    r.readerTwice = [reader.readEntries().length, reader.readEntries().length];

    // The writer's position: seek from the end, overwrite, extend.
    const w = entry.createWriter();
    r.fresh = [w.position, w.length];
    w.seek(-4);
    w.write(new Blob(['WXYZ!']));
    r.seek = [w.position, w.length];
    w.seek(10 ** 9);
    r.seekPast = w.position;
    w.truncate(10);
    r.truncated = [w.position, w.length, entry.getMetadata().size];
    r.metadata = entry.getMetadata() instanceof Object && entry.getMetadata().modificationTime instanceof Date;

    // Entries: parent, move, copy, URLs.
    const save = fs.root.getDirectory('save');
    r.parent = [save.getParent().fullPath, fs.root.getParent().fullPath, entry.getParent().isDirectory];
    const copied = entry.copyTo(save, 'copy.ald');
    const moved = copied.moveTo(fs.root.getDirectory('fonts'));
    r.moved = [copied.fullPath, moved.fullPath, moved.isFile, thrown(() => copied.getMetadata())];
    r.url = save.toURL();
    const back = self.webkitResolveLocalFileSystemSyncURL(`${fs.root.toURL()}fonts/copy.ald`);
    r.resolved = [back.fullPath, back.isFile, back.filesystem === fs];
    r.lexical = fs.root.getDirectory('save').getFile('../../x.txt', { create: true }).fullPath;

    // An entry whose file was replaced by a directory.
    const ghost = fs.root.getFile('ghost', { create: true });
    ghost.remove();
    fs.root.getDirectory('ghost', { create: true });

    // Blink's errors.
    r.errors = {
      writerOfDirectory: thrown(() => ghost.createWriter()),
      fileOfDirectory: thrown(() => ghost.file()),
      missing: thrown(() => fs.root.getFile('missing')),
      missingDir: thrown(() => fs.root.getDirectory('missing/deeper', { create: true })),
      notADirectory: thrown(() => fs.root.getDirectory('testsa.ald')),
      notAFile: thrown(() => fs.root.getFile('save')),
      exclusive: thrown(() => fs.root.getFile('testsa.ald', { create: true, exclusive: true })),
      removeRoot: thrown(() => fs.root.remove()),
      notEmpty: thrown(() => fs.root.getDirectory('fonts').remove()),
      moveIntoItself: thrown(() => save.moveTo(save, 'inner')),
      badName: thrown(() => entry.copyTo(save, 'a/b')),
      badType: thrown(() => self.webkitRequestFileSystemSync(7, 0)),
      tooFew: thrown(() => self.webkitRequestFileSystemSync(1)),
      negative: thrown(() => entry.createWriter().truncate(-1)),
      notBlob: thrown(() => entry.createWriter().write('text')),
      illegal: thrown(() => new self.FileEntrySync()),
      otherOrigin: thrown(() => self.webkitResolveLocalFileSystemSyncURL('filesystem:http://elsewhere.example/persistent/x')),
      badUrl: thrown(() => self.webkitResolveLocalFileSystemSyncURL('http://127.0.0.1/x')),
      backslash: thrown(() => fs.root.getFile('a\\b', { create: true })),
    };
    // Over the quota (1 MiB, set by the test): nothing written.
    const big = fs.root.getFile('big', { create: true }).createWriter();
    r.errors.quota = thrown(() => big.write(new Blob([new Uint8Array(2 << 20)])));
    r.bigAfter = [big.position, big.length];

    // A listing longer than the shared buffer comes in pieces.
    const many = fs.root.getDirectory('many', { create: true });
    for (let i = 0; i < 120; i++) many.getFile(`entry-with-a-long-name-${String(i).padStart(3, '0')}.dat`, { create: true });
    const listed = many.createReader().readEntries();
    r.many = [listed.length, listed[0].name, listed[119].name];
    many.removeRecursively();
    return r;
  },

  /** A Worker whose bridge nobody serves: the call gives up, saying why. */
  silence() {
    try {
      self.webkitRequestFileSystemSync(1, 0);
      return 'answered';
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
  },
};

if (!isMainThread) {
  const { port, scenario, limits } = workerData;
  try {
    globalThis[Symbol.for('pexe.html5fsSync')].install(globalThis, { openBridge: () => port, limits });
    globalThis.self = globalThis;
    parentPort.postMessage({ result: scenarios[scenario]() });
  } catch (e) {
    parentPort.postMessage({ error: String(e?.stack ?? e) });
  }
}
