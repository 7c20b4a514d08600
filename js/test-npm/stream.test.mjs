// The streaming API: Translator / Inspector fed in chunks, and the
// fetch()-body helpers, must give exactly what the whole-buffer calls give,
// report progress as bytes arrive, and fail early on bad input.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pexe, corpusFile, corpusPexes, chunked, randomSizes, INVALID } from './helpers.mjs';

const { inspect, translate, Translator, Inspector, translateStreaming, inspectStreaming, PexeError } = pexe;

const TRANSLATED = [
  'cli/binji_pnacl_c/test/res/start.pexe',
  'cli/binji_pnacl_c/test/res/puts.pexe',
  'cli/binji_pnacl_c/test/res/thread.pexe',
  'cli/binji_pnacl_c/test/res/setjmp.pexe',
  'cli/binji_pnacl_c/test/benchmark/res/nbody.pexe',
  'ppapi/cptaffe_pnacl-test/hello_tutorial.pexe',
  'ppapi/mcanthony_webpenc-pnacl/webpenc.pexe',
];

/** Checks a sequence of progress reports: counters never go back, phases in order. */
function checkProgress(reports, { bytes, functions }) {
  const order = { decode: 0, translate: 1, done: 2 };
  for (let i = 1; i < reports.length; i++) {
    const [a, b] = [reports[i - 1], reports[i]];
    for (const k of ['bytesRead', 'functionsDecoded', 'functionsTranslated']) {
      assert.ok(a[k] <= b[k], `${k} went back: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`);
    }
    assert.ok(order[a.phase] <= order[b.phase], `phase ${a.phase} -> ${b.phase}`);
  }
  const last = reports.at(-1);
  assert.equal(last.phase, 'done');
  assert.equal(last.bytesRead, bytes);
  assert.equal(last.functionsDecoded, functions);
  assert.equal(last.functionsTotal, functions);
}

test('Translator in random chunks gives the bytes translate gives', () => {
  for (const [i, rel] of TRANSLATED.entries()) {
    const bytes = corpusFile(rel);
    const whole = translate(bytes);
    const functions = inspect(bytes).counts.definedFunctions;
    const reports = [];
    const t = new Translator({ target: 'wasm32', onProgress: (p) => reports.push(p) });
    let fed = 0;
    for (const chunk of chunked(bytes, randomSizes(i + 1))) {
      const p = t.feed(chunk);
      fed += chunk.length;
      assert.equal(p.bytesRead, fed);
      assert.equal(p.phase, 'decode');
      assert.deepEqual(t.progress, p);
    }
    const wasm = t.finish();
    assert.deepEqual(wasm, whole, rel);
    assert.deepEqual(
      [t.bytesRead, t.functionsDecoded, t.functionsTranslated, t.functionsTotal, t.progress.phase],
      [bytes.length, functions, functions, functions, 'done'],
      rel,
    );
    checkProgress(reports, { bytes: bytes.length, functions });
    assert.equal(reports.at(-1).functionsTranslated, functions, rel);
    assert.ok(reports.some((p) => p.phase === 'translate'), rel);
    // Bodies were decoded while bytes came in, not all at the end (for
    // files larger than the largest chunks).
    if (bytes.length > 4 * 65536) {
      const firstFull = reports.findIndex((p) => p.functionsDecoded === functions);
      assert.ok(reports[firstFull - 1]?.functionsDecoded > 0, `${rel}: decoding kept up with the input`);
    }
    t.free();
  }
});

test('Translator: a bad pexe fails at the first chunk that shows it', () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/puts.pexe').slice();
  bytes[1] = 0; // "P\0XE"
  const t = new Translator();
  assert.throws(() => t.feed(bytes.subarray(0, 4)), (e) => e instanceof PexeError && e.kind === 'decode' && e.diagnostics[0].pos === '0:0');
  // The error stays: later chunks answer it again.
  assert.throws(() => t.feed(bytes.subarray(4, 100)), (e) => e instanceof PexeError && e.kind === 'decode');
  t.free();
});

test('Translator: a truncated pexe fails in finish, a spent one refuses more', () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/puts.pexe');
  const t = new Translator();
  t.feed(bytes.subarray(0, 20000));
  assert.throws(() => t.finish(), (e) => e instanceof PexeError && e.kind === 'decode');
  assert.throws(() => t.feed(bytes), (e) => e instanceof PexeError && e.kind === 'options');
  assert.throws(() => t.finish(), (e) => e instanceof PexeError && e.kind === 'options');
  assert.throws(() => new Translator({ target: 'arm' }), (e) => e instanceof PexeError && e.kind === 'options');
  assert.throws(() => new Translator({ onProgress: 'yes' }), (e) => e instanceof PexeError && e.kind === 'options');
});

test('Translator: an exception in onProgress propagates, nothing hangs', () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/puts.pexe');
  const boom = new Error('stop');
  const t = new Translator({ onProgress: () => { throw boom; } });
  assert.throws(() => t.feed(bytes), (e) => e === boom);
});

test('Inspector in chunks equals inspect, for every corpus pexe', () => {
  for (const [i, rel] of corpusPexes().entries()) {
    const bytes = corpusFile(rel);
    const want = inspect(bytes);
    const ins = new Inspector();
    // Small files byte by byte, the rest in random pieces.
    const sizes = bytes.length <= 4096 ? () => 1 : randomSizes(1000 + i);
    for (const chunk of chunked(bytes, sizes)) ins.feed(chunk);
    const got = ins.finish();
    if (INVALID.has(rel) && /points past the end/.test(want.decodeError.message)) {
      // The one documented difference: a stream cannot see that a block
      // length points past the end before the data runs out, and may meet
      // another error first. Both describe the file as broken.
      assert.equal(got.valid, false, rel);
      assert.ok(got.decodeError, rel);
      assert.deepEqual([got.size, got.header], [want.size, want.header], rel);
      continue;
    }
    assert.deepEqual(got, want, rel);
    if (INVALID.has(rel)) assert.equal(want.valid, false);
  }
});

/** A fetch() Response whose body arrives in chunks, one per macrotask (as from a network). */
function slowResponse(bytes, sizes, state = {}) {
  const chunks = [...chunked(bytes, sizes)];
  state.pulled = 0;
  const body = new ReadableStream({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 0));
      if (state.pulled === chunks.length) controller.close();
      else controller.enqueue(chunks[state.pulled++].slice());
    },
  });
  state.total = chunks.length;
  return new Response(body, { headers: { 'content-type': 'application/x-pnacl' } });
}

test('translateStreaming(fetch-like Response) equals translate, with progress during the download', async () => {
  const bytes = corpusFile('ppapi/mcanthony_webpenc-pnacl/webpenc.pexe');
  const functions = inspect(bytes).counts.definedFunctions;
  const reports = [];
  const state = {};
  // threads: 0, the one-thread Translator (the pool is tested below).
  const wasm = await translateStreaming(Promise.resolve(slowResponse(bytes, () => 4096, state)), {
    threads: 0,
    onProgress: (p) => reports.push({ ...p, pulled: state.pulled }),
  });
  assert.deepEqual(wasm, translate(bytes));
  checkProgress(reports, { bytes: bytes.length, functions });
  // Functions were decoded long before the last chunk arrived.
  const early = reports.find((p) => p.functionsDecoded > 0);
  assert.ok(early && early.pulled < state.total / 2 + 1, `first body decoded after ${early?.pulled} of ${state.total} chunks`);
});

test('translateStreaming stops reading a bad pexe at once', async () => {
  const bytes = corpusFile('ppapi/mcanthony_webpenc-pnacl/webpenc.pexe').slice();
  bytes[0] = 0x42;
  const state = {};
  await assert.rejects(translateStreaming(slowResponse(bytes, () => 1024, state)), (e) => e instanceof PexeError && e.kind === 'decode');
  assert.ok(state.pulled <= 2, `${state.pulled} of ${state.total} chunks read`);
});

test('the streaming helpers take ReadableStreams, (async) iterables, and refuse HTTP errors', async () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/printf.pexe');
  const want = inspect(bytes);
  assert.deepEqual(await inspectStreaming(slowResponse(bytes, randomSizes(7)).body), want);
  assert.deepEqual(await inspectStreaming([...chunked(bytes, () => 999)]), want);
  async function* gen() {
    for (const c of chunked(bytes, randomSizes(9))) yield c.buffer.slice(c.byteOffset, c.byteOffset + c.byteLength);
  }
  assert.deepEqual(await inspectStreaming(gen()), want);
  assert.deepEqual(await translateStreaming(gen(), { target: 'wasm32' }), translate(bytes));
  await assert.rejects(inspectStreaming(new Response('not found', { status: 404 })), /HTTP 404/);
  await assert.rejects(translateStreaming(42), TypeError);
});

test('translateStreaming on Workers: the same bytes as translate, bodies back while the download goes on', async () => {
  const bytes = corpusFile('ppapi/mcanthony_webpenc-pnacl/webpenc.pexe');
  const functions = inspect(bytes).counts.definedFunctions;
  const want = translate(bytes);
  for (const threads of [1, 2, 3]) {
    const reports = [];
    // The second half of the file waits until a translated body has come
    // back from a Worker (so they work while bytes still arrive).
    let bodyBack;
    const back = new Promise((resolve) => (bodyBack = resolve));
    async function* source() {
      const half = bytes.length >> 1;
      yield* chunked(bytes.subarray(0, half), () => 4096);
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no body back from a Worker in 60 s')), 60_000).unref());
      await Promise.race([back, timeout]);
      yield* chunked(bytes.subarray(half), () => 4096);
    }
    const wasm = await translateStreaming(source(), {
      threads,
      onProgress: (p) => {
        reports.push(p);
        if (p.functionsTranslated > 0) bodyBack();
      },
    });
    assert.deepEqual(wasm, want, `${threads} Workers`);
    checkProgress(reports, { bytes: bytes.length, functions });
    assert.ok(reports.some((p) => p.functionsTranslated > 0 && p.bytesRead < bytes.length), `${threads} Workers`);
  }
  // The whole buffer at once, and every corpus pexe that translates, on 2 Workers.
  assert.deepEqual(await translateStreaming(bytes, { threads: 2 }), want);
});

test('translateStreaming on Workers: every corpus pexe gives the one-thread answer, module or error', async () => {
  for (const rel of corpusPexes()) {
    const bytes = corpusFile(rel);
    let want;
    try {
      want = await translateStreaming(chunked(bytes, randomSizes(rel.length)), { threads: 0 });
    } catch (e) {
      want = e;
    }
    let got;
    try {
      got = await translateStreaming(chunked(bytes, randomSizes(rel.length)), { threads: 2 });
    } catch (e) {
      got = e;
    }
    if (want instanceof Error) {
      assert.ok(got instanceof PexeError, `${rel}: ${got}`);
      assert.deepEqual([got.kind, got.message, got.diagnostics], [want.kind, want.message, want.diagnostics], rel);
    } else {
      assert.deepEqual(got, want, rel);
    }
  }
});

test('translateStreaming on Workers: a source that reuses one buffer for every chunk', async () => {
  // The pool keeps what it was fed until the end (for batches handed out
  // later, and the fallback): a copy, not the caller's buffer.
  const bytes = corpusFile('ppapi/mcanthony_webpenc-pnacl/webpenc.pexe');
  const want = translate(bytes);
  async function* reused(size) {
    const buffer = new Uint8Array(size);
    for (let at = 0; at < bytes.length; at += size) {
      const n = Math.min(size, bytes.length - at);
      buffer.set(bytes.subarray(at, at + n));
      yield buffer.subarray(0, n);
      // feed has returned: the caller writes its next chunk over this one.
      buffer.fill(0xa5);
    }
  }
  for (const size of [4096, 256 * 1024]) assert.deepEqual(await translateStreaming(reused(size), { threads: 2 }), want, `chunks of ${size}`);
});

test('translateStreaming: the threads option', async () => {
  const bytes = corpusFile('cli/binji_pnacl_c/test/res/puts.pexe');
  const want = translate(bytes);
  for (const threads of [0, 1, 'auto', undefined, 100]) assert.deepEqual(await translateStreaming(bytes, { threads }), want, String(threads));
  for (const threads of [-1, 1.5, 'two', null]) {
    await assert.rejects(translateStreaming(bytes, { threads }), (e) => e instanceof PexeError && e.kind === 'options', String(threads));
  }
  await assert.rejects(translateStreaming(bytes, { threads: 2, target: 'x86' }), (e) => e instanceof PexeError && e.kind === 'options');
});
