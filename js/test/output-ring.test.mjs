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
