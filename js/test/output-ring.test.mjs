// The output ring (threads/output-ring.js): records of both streams come
// out in the order they went in, across the wrap-around, and writes larger
// than a record are split and joined again.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOutputRing, OutputRingReader, OutputRingWriter } from '../src/internal/runtime/threads/output-ring.js';

const enc = (s) => new TextEncoder().encode(s);
const dec = (b) => new TextDecoder().decode(b);

test('stdout and stderr keep their interleaving, runs of one stream are joined', () => {
  const ring = createOutputRing(64);
  const w = new OutputRingWriter(ring);
  const got = [];
  const r = new OutputRingReader(ring, (stream, bytes) => got.push([stream, dec(bytes)]));
  w.write(0, enc('a1'));
  w.write(0, enc('a2'));
  w.write(1, enc('e1'));
  w.write(0, enc('a3'));
  r.drain();
  assert.deepEqual(got, [
    [0, 'a1a2'],
    [1, 'e1'],
    [0, 'a3'],
  ]);
});

test('records wrap around the end of the ring', () => {
  const ring = createOutputRing(32);
  const w = new OutputRingWriter(ring);
  let out = '';
  const r = new OutputRingReader(ring, (_, bytes) => (out += dec(bytes)));
  for (let i = 0; i < 20; i++) {
    w.write(0, enc(`line ${i}\n`));
    r.drain();
  }
  assert.equal(out, Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(''));
});

test('positions are totals mod 2^32: records cross 2^31 and 2^32 intact', () => {
  for (const start of [2 ** 31 - 20, 2 ** 32 - 20]) {
    const ring = createOutputRing(64);
    // Words [0] written and [1] drained, as after `start` bytes went through.
    const words = new Int32Array(ring, 0, 2);
    words[0] = start | 0;
    words[1] = start | 0;
    const w = new OutputRingWriter(ring);
    let out = '';
    const r = new OutputRingReader(ring, (_, bytes) => (out += dec(bytes)));
    for (let i = 0; i < 12; i++) {
      w.write(0, enc(`line ${i}\n`));
      if (i % 3 === 2) r.drain();
    }
    r.drain();
    assert.equal(out, Array.from({ length: 12 }, (_, i) => `line ${i}\n`).join(''), `from ${start}`);
  }
});

test('a write larger than a record is split and joined; an empty write is kept', () => {
  const ring = createOutputRing(1 << 20);
  const w = new OutputRingWriter(ring);
  const chunks = [];
  const r = new OutputRingReader(ring, (_, bytes) => chunks.push(bytes));
  const big = new Uint8Array(700_000).map((_, i) => i & 0xff);
  w.write(1, big);
  w.write(1, new Uint8Array(0));
  r.drain();
  assert.equal(chunks.length, 1);
  assert.deepEqual(chunks[0], big);
});

test('a write larger than a small ring goes through in pieces as the host drains', async () => {
  const { Worker } = await import('node:worker_threads');
  const ring = createOutputRing(64);
  let out = '';
  const r = new OutputRingReader(ring, (_, bytes) => (out += dec(bytes)));
  r.start();
  const text = 'x'.repeat(1000);
  const url = new URL('../src/internal/runtime/threads/output-ring.js', import.meta.url).href;
  const worker = new Worker(
    `import(${JSON.stringify(url)}).then(({ OutputRingWriter }) => { const { workerData } = require('node:worker_threads'); new OutputRingWriter(workerData.ring).write(0, new TextEncoder().encode(workerData.text)); });`,
    { eval: true, workerData: { ring, text } },
  );
  await new Promise((resolve, reject) => worker.on('exit', resolve).on('error', reject));
  r.stop();
  assert.equal(out, text);
});

test('writes of one stream go into the open record; the reader takes it once it closes it', () => {
  const ring = createOutputRing(1024);
  const words = new Int32Array(ring, 0, 8);
  const w = new OutputRingWriter(ring);
  const got = [];
  const r = new OutputRingReader(ring, (stream, bytes) => got.push([stream, dec(bytes)]));
  for (let i = 0; i < 10; i++) w.write(0, enc(`${i}\n`));
  // One header for the ten writes.
  assert.equal(words[0], 4 + 20);
  w.write(1, enc('err\n'));
  assert.equal(words[0], 4 + 20 + 4 + 4);
  r.drain();
  assert.deepEqual(got, [
    [0, '0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n'],
    [1, 'err\n'],
  ]);
  // Closed by the reader: the next write starts a record of its own.
  w.write(1, enc('more\n'));
  assert.equal(words[0], 4 + 20 + 4 + 4 + 4 + 5);
  r.drain();
  assert.deepEqual(got.at(-1), [1, 'more\n']);
});

test('a writer holding the lock keeps the open record from the reader until it is done, or has ended', () => {
  const ring = createOutputRing(1024);
  const words = new Int32Array(ring, 0, 8);
  const w = new OutputRingWriter(ring);
  let out = '';
  const r = new OutputRingReader(ring, (stream, bytes) => (out += `${stream}:${dec(bytes)}`));
  w.write(0, enc('a'));
  w.write(1, enc('b'));
  w.write(1, enc('c'));
  words[3] = 1; // a writer in the middle of a write
  assert.equal(r.drain(), 1);
  assert.equal(out, '0:a');
  words[3] = 0;
  assert.equal(r.drain(), 2);
  assert.equal(out, '0:a1:bc');
  w.write(0, enc('d'));
  words[3] = 1; // a writer that was terminated holding the lock
  assert.equal(r.drain(true), 1);
  assert.equal(out, '0:a1:bc0:d');
});

test('a record that grew past the written total the reader saw waits for the next drain', () => {
  const ring = createOutputRing(1024);
  const words = new Int32Array(ring, 0, 8);
  const view = new DataView(ring, 32);
  const w = new OutputRingWriter(ring);
  let out = '';
  const r = new OutputRingReader(ring, (_, bytes) => (out += dec(bytes)));
  w.write(0, enc('x'));
  w.write(1, enc('yy'));
  // As if a writer had grown the open record (at 5) after WRITTEN was read.
  words[6] = 0;
  view.setInt32(5, (1 << 24) | 5, true);
  assert.equal(r.drain(), 1);
  assert.equal(out, 'x');
  // Taken as far as it was written once the writers have ended.
  assert.equal(r.drain(true), 2);
  assert.equal(out, 'xyy');
});

test('threads writing both streams at once while the reader drains lose and reorder nothing', async () => {
  const { Worker } = await import('node:worker_threads');
  const ring = createOutputRing(4096);
  const text = ['', ''];
  const r = new OutputRingReader(ring, (stream, bytes) => (text[stream] += dec(bytes)));
  const url = new URL('../src/internal/runtime/threads/output-ring.js', import.meta.url).href;
  const THREADS = 4;
  const LINES = 3000;
  const workers = Array.from(
    { length: THREADS },
    (_, id) =>
      new Worker(
        `import(${JSON.stringify(url)}).then(({ OutputRingWriter }) => {
          const { workerData: { ring, id, lines } } = require('node:worker_threads');
          const w = new OutputRingWriter(ring);
          const e = new TextEncoder();
          for (let i = 0; i < lines; i++) w.write((id + i) & 1, e.encode('t' + id + ' ' + i + (i % 7 === 0 ? ' '.repeat(i % 300) : '') + '\\n'));
        });`,
        { eval: true, workerData: { ring, id, lines: LINES } },
      ),
  );
  const ended = Promise.all(workers.map((wk) => new Promise((resolve, reject) => wk.on('exit', resolve).on('error', reject))));
  let done = false;
  ended.then(() => (done = true));
  while (!done) {
    r.drain();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await ended;
  r.drain(true);
  for (let id = 0; id < THREADS; id++) {
    for (const stream of [0, 1]) {
      const mine = (text[stream].match(new RegExp(`^t${id} \\d+`, 'gm')) ?? []).map((l) => Number(l.split(' ')[1]));
      const want = Array.from({ length: LINES }, (_, i) => i).filter((i) => ((id + i) & 1) === stream);
      assert.deepEqual(mine, want, `thread ${id}, stream ${stream}`);
    }
  }
  assert.equal(text.join('').split('\n').length - 1, THREADS * LINES);
});
