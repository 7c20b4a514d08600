// The scenarios both Workers run (sync-classic.js imports this with
// importScripts, sync-module.mjs with import): what the test asks, answered
// with what the Worker saw.

self.scenarios = {
  /** Where the Worker thinks it is, and its relative URLs. */
  whereAmI: async function () {
    var xhr = new XMLHttpRequest();
    xhr.open('GET', 'data.txt', false);
    xhr.send();
    return {
      href: location.href,
      search: location.search,
      hash: location.hash,
      pathname: location.pathname,
      string: String(location),
      fetched: await (await fetch('data.txt')).text(),
      request: new Request('data.txt').url,
      xhr: xhr.responseText,
      lib: self.libLoaded || null,
      name: self.name,
    };
  },

  /** The calls kichikuou's installer makes, and what they leave. */
  install: function () {
    var fs = webkitRequestFileSystemSync(PERSISTENT, 650 * 1024 * 1024);
    var entries = fs.root.createReader().readEntries();
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].isDirectory) entries[i].removeRecursively();
      else entries[i].remove();
    }
    var f = fs.root.getFile('game.ald', { create: true });
    var w = f.createWriter();
    w.truncate(0);
    w.write(new Blob(['0123456789']));
    w.write(new Blob([new Uint8Array(3 << 20).fill(65)]));
    fs.root.getDirectory('fonts', { create: true }).getFile('font.ttf', { create: true }).createWriter().write(new Blob(['font']));
    fs.root.getDirectory('save', { create: true });
    var file = f.file();
    var head = new FileReaderSync().readAsText(file.slice(0, 12));
    var errors = {};
    try {
      fs.root.getFile('missing');
    } catch (e) {
      errors.missing = e.name + ': ' + e.message;
    }
    try {
      fs.root.getDirectory('game.ald');
    } catch (e) {
      errors.mismatch = e.name;
    }
    return {
      name: fs.name,
      list: fs.root.createReader().readEntries().map(function (e) { return e.fullPath; }),
      size: f.getMetadata().size,
      writer: [w.position, w.length],
      file: [file.name, file.size, head],
      url: f.toURL(),
      errors: errors,
      isFileEntrySync: f instanceof FileEntrySync,
    };
  },

  /** Writes `mb` MiB in 1 MiB Blobs, then reads the file back with file(): the times. */
  throughput: function (args) {
    var fs = webkitRequestFileSystemSync(PERSISTENT, 0);
    var chunk = new Blob([new Uint8Array(1 << 20).fill(7)]);
    var f = fs.root.getFile('big.bin', { create: true });
    var w = f.createWriter();
    w.truncate(0);
    var t0 = performance.now();
    for (var i = 0; i < args.mb; i++) w.write(chunk);
    var t1 = performance.now();
    var file = f.file();
    var t2 = performance.now();
    var last = new Uint8Array(new FileReaderSync().readAsArrayBuffer(file.slice(file.size - 4)));
    f.remove();
    return { writeMs: t1 - t0, readMs: t2 - t1, size: file.size, last: Array.from(last) };
  },

  /** The calls, where the page is not cross-origin isolated. */
  notIsolated: function () {
    try {
      webkitRequestFileSystemSync(PERSISTENT, 0);
      return 'no error';
    } catch (e) {
      return e.name + ': ' + e.message;
    }
  },
};

self.onmessage = async function (e) {
  try {
    postMessage({ result: await self.scenarios[e.data.scenario](e.data.args) });
  } catch (err) {
    postMessage({ error: String(err && err.stack ? err.stack : err) });
  }
};
