// filesystem: URLs given to media elements (src/internal/polyfill/file-urls.js)
// on a stand-in window: kichikuou's play.html sets an <audio>'s src to
// `fs.root.toURL() + 'track2.wav'`, then calls load() and play() at once.
// The element must get a blob: URL of the file's bytes, play() must wait
// for it, and what is not a file of this origin must pass through as it was.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installLegacyFileSystem } from '../src/internal/pepper/html5fs-page.js';
import { memoryStorage } from '../src/internal/pepper/storage/index.js';
import { installFileSystemUrls } from '../src/internal/polyfill/file-urls.js';

const ORIGIN = 'http://127.0.0.1:8123';

/** Media elements as the browser has them, recording what reaches them. */
function domClasses() {
  class Element {
    constructor() {
      this.attributes = new Map();
      this.calls = [];
    }
    setAttribute(name, value) {
      this.attributes.set(String(name).toLowerCase(), String(value));
    }
    getAttribute(name) {
      return this.attributes.get(String(name).toLowerCase()) ?? null;
    }
  }
  class HTMLMediaElement extends Element {
    get src() {
      return this.attributes.get('src') ?? '';
    }
    set src(value) {
      this.attributes.set('src', String(value));
    }
    load() {
      this.calls.push(['load', this.src]);
    }
    play() {
      this.calls.push(['play', this.src]);
      return Promise.resolve();
    }
  }
  class HTMLAudioElement extends HTMLMediaElement {}
  function Audio(src) {
    const el = new HTMLAudioElement();
    if (src !== undefined) el.attributes.set('src', String(src));
    return el;
  }
  return { Element, HTMLMediaElement, HTMLAudioElement, Audio };
}

/** A window with the legacy API over memory stores and the media rewrite; a file `name` holding `bytes`. */
async function page(name, bytes) {
  const dom = domClasses();
  const warnings = [];
  const win = { location: { origin: ORIGIN }, navigator: {}, console: { warn: (m) => warnings.push(m), error() {} }, URL, Blob, ...dom };
  const installed = installLegacyFileSystem(win, memoryStorage({ temporaryQuota: 1 << 20 }));
  const urls = installFileSystemUrls(win, installed.api.ops);
  const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
  const fs = await cb((ok, ko) => win.webkitRequestFileSystem(0, 1 << 20, ok, ko));
  const entry = await cb((ok, ko) => fs.root.getFile(name, { create: true }, ok, ko));
  const writer = await cb((ok, ko) => entry.createWriter(ok, ko));
  await new Promise((ok, ko) => {
    writer.onwriteend = () => (writer.error ? ko(writer.error) : ok());
    writer.write(new Blob([bytes]));
  });
  return { win, dom, fs, urls, warnings };
}

const bytesAt = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());

test("play.html's <audio>: setAttribute('src', filesystem: URL), load(), play() at once", async () => {
  const wav = new Uint8Array([82, 73, 70, 70, 1, 2, 3, 4]);
  const { win, fs, urls } = await page('track2.wav', wav);
  const audio = new win.HTMLAudioElement();
  const url = fs.root.toURL() + 'track2.wav';
  assert.equal(url, `filesystem:${ORIGIN}/temporary/track2.wav`);
  audio.setAttribute('src', url);
  audio.load();
  const played = audio.play();
  // Nothing reached the element yet: the file is being read.
  assert.deepEqual(audio.calls, []);
  await played;
  assert.match(audio.getAttribute('src'), /^blob:/);
  assert.deepEqual(audio.calls, [['play', audio.src]]);
  assert.deepEqual(await bytesAt(audio.src), wav);
  // The same unchanged file again: the same blob: URL.
  const again = new win.HTMLAudioElement();
  again.src = url;
  await again.play();
  assert.equal(again.src, audio.src);
  urls.uninstall();
});

test('new Audio(url); a later plain source wins over one still being read; other URLs pass through', async () => {
  const { win, fs, urls, warnings } = await page('a.ogg', new Uint8Array([1, 2, 3]));
  const a = new win.Audio(fs.root.toURL() + 'a.ogg');
  await a.play();
  assert.match(a.src, /^blob:/);
  assert.deepEqual(await bytesAt(a.src), new Uint8Array([1, 2, 3]));

  const b = new win.HTMLAudioElement();
  b.src = fs.root.toURL() + 'a.ogg';
  b.src = 'https://example.com/plain.ogg';
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(b.src, 'https://example.com/plain.ogg');

  // A missing file, another origin's file system, a non-media element: as they were.
  const missing = `filesystem:${ORIGIN}/temporary/missing.wav`;
  const c = new win.HTMLAudioElement();
  c.src = missing;
  await c.play();
  assert.equal(c.src, missing);
  const foreign = 'filesystem:http://evil.example/temporary/a.ogg';
  c.src = foreign;
  assert.equal(c.src, foreign);
  const div = new win.Element();
  div.setAttribute('src', fs.root.toURL() + 'a.ogg');
  assert.equal(div.getAttribute('src'), `filesystem:${ORIGIN}/temporary/a.ogg`);
  assert.deepEqual(warnings, []);

  // uninstall puts the window's own back.
  const nativeSrc = Object.getOwnPropertyDescriptor(win.HTMLMediaElement.prototype, 'src');
  urls.uninstall();
  assert.notEqual(Object.getOwnPropertyDescriptor(win.HTMLMediaElement.prototype, 'src').set, nativeSrc.set);
  const d = new win.HTMLAudioElement();
  d.src = fs.root.toURL() + 'a.ogg';
  assert.equal(d.src, `filesystem:${ORIGIN}/temporary/a.ogg`);
});
