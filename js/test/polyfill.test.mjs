// The polyfill's parts that need no browser: the manifest reader with
// Chrome's error texts (JSON as base::JSONReader read it, the .nmf schema
// for the portable ISA), page → plugin value conversion as
// V8VarConverter did it, SHA-256, the options and the URL rewrite map.
// The element itself is tested in Chromium (tests/browser/polyfill-*.test.mjs).

import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import vm from 'node:vm';
import fs from 'node:fs';
import { describe, parseJson, toJs } from '../src/internal/polyfill/json.js';
import { MAX_MANIFEST_BYTES, ManifestError, fetchManifest, parseManifest } from '../src/internal/polyfill/manifest.js';
import { CONVERSION_FAILED, ConversionError, convertForPlugin } from '../src/internal/polyfill/convert.js';
import { sha256Hex, sha256Sync } from '../src/internal/polyfill/sha256.js';
import { normalizeConfig, rewriteUrl } from '../src/internal/polyfill/config.js';

const bytes = (s) => new TextEncoder().encode(s);
const jsonError = (s) => {
  try {
    parseJson(bytes(s));
  } catch (e) {
    return e.message;
  }
  return null;
};

test('JSON: values, ints apart from doubles, comments, the last duplicate key, a BOM', () => {
  const n = parseJson(bytes('\ufeff// top\n{"b": [1, 2.0, -3e1, "x\\u00e9\\ud83d\\ude00"], /* c */ "a": {"k": null, "k": true}}'));
  assert.deepEqual(toJs(n), { a: { k: true }, b: [1, 2, -30, 'xé😀'] });
  assert.deepEqual(n.value.get('b').value.map((v) => v.type), ['int', 'double', 'double', 'string']);
  assert.deepEqual([...n.value.keys()], ['a', 'b'], 'keys in std::map order');
  assert.equal(parseJson(bytes('2147483648')).type, 'double');
  assert.equal(parseJson(bytes('-2147483648')).type, 'int');
});

test('JSON: errors as base::JSONReader reported them (line, column, text)', () => {
  assert.equal(jsonError(''), 'Line: 1, column: 1, Unexpected token.');
  assert.equal(jsonError('{"a":1,}'), 'Line: 1, column: 8, Trailing comma not allowed.');
  assert.equal(jsonError('[1,]'), 'Line: 1, column: 4, Trailing comma not allowed.');
  assert.equal(jsonError('{a:1}'), 'Line: 1, column: 2, Dictionary keys must be quoted.');
  assert.equal(jsonError('{"a" 1}'), 'Line: 1, column: 6, Syntax error.');
  assert.equal(jsonError('[1 2]'), 'Line: 1, column: 4, Syntax error.');
  assert.equal(jsonError('{"a":1}x'), 'Line: 1, column: 8, Unexpected data after root element.');
  assert.equal(jsonError('"\\q"'), 'Line: 1, column: 3, Invalid escape sequence.');
  assert.equal(jsonError('"abc'), 'Line: 1, column: 4, Syntax error.');
  assert.equal(jsonError('01'), 'Line: 1, column: 3, Syntax error.');
  // After a line break, columns count from the break itself (as the original did).
  assert.equal(jsonError('{\n"a": tru}'), 'Line: 2, column: 7, Syntax error.');
  assert.equal(jsonError('{\r\n  "a": 01}'), 'Line: 2, column: 11, Syntax error.');
  assert.equal(jsonError('['.repeat(200)), 'Line: 1, column: 200, Too much nesting.');
  assert.equal(
    (() => {
      try {
        parseJson(new Uint8Array([0x22, 0xff, 0x22]));
      } catch (e) {
        return e.message;
      }
    })(),
    'Line: 1, column: 2, Unsupported encoding. JSON must be UTF-8.',
  );
});

test('JSON: values printed as base::Value printed them in manifest messages', () => {
  assert.equal(describe(parseJson(bytes('"a<b"'))), '"a\\u003Cb"\n');
  assert.equal(describe(parseJson(bytes('[1, 2.0, true]'))), '[ 1, 2.0, true ]\n');
  assert.equal(describe(parseJson(bytes('{"b": {"c": null}, "a": 1}'))), '{\n   "a": 1,\n   "b": {\n      "c": null\n   }\n}\n');
});

const nmf = (program) => bytes(JSON.stringify({ program }));
const manifestError = (text, base = 'https://example.com/app/app.nmf') => {
  try {
    parseManifest(typeof text === 'string' ? bytes(text) : text, base);
  } catch (e) {
    assert.ok(e instanceof ManifestError, e);
    return e.message;
  }
  return null;
};

test('manifest: the program URL, resolved against the manifest; optlevel', () => {
  const m = parseManifest(nmf({ portable: { 'pnacl-translate': { url: 'stockfish.pexe?v=19' } } }), 'https://example.com/nacl/stockfish.nmf');
  assert.deepEqual(m, { programUrl: 'https://example.com/nacl/stockfish.pexe?v=19', optLevel: 2, debugUrl: null });
  const d = parseManifest(
    nmf({ portable: { 'pnacl-translate': { url: '/a.pexe', optlevel: 0 }, 'pnacl-debug': { url: 'a.bc' } } }),
    'https://example.com/x/a.nmf',
  );
  assert.deepEqual(d, { programUrl: 'https://example.com/a.pexe', optLevel: 0, debugUrl: 'https://example.com/x/a.bc' });
  // Unknown keys are ignored; unknown ISAs must still be URL specs.
  assert.equal(parseManifest(bytes(JSON.stringify({ extra: 1, program: { 'x86-64': { url: 'a.nexe' }, portable: { 'pnacl-translate': { url: 'b.pexe' } } } })), 'https://e.com/').programUrl, 'https://e.com/b.pexe');
});

test('manifest: Chrome\'s error texts', () => {
  assert.equal(manifestError('[]'), 'manifest: is not a json dictionary.');
  assert.equal(manifestError('{}'), "manifest: missing 'program' section.");
  assert.equal(manifestError('{"program": 3}'), 'manifest: program property is not an ISA to URL dictionary');
  assert.equal(manifestError(nmf({ 'x86-64': { url: 'a.nexe' } })), 'manifest: no version of program given for portable.');
  assert.equal(manifestError(nmf({ portable: 'x' })), "manifest: program property 'portable' is non-dictionary value '\"x\"\n'.");
  assert.equal(manifestError(nmf({ portable: {} })), "manifest: program property 'portable' does not have required key: 'pnacl-translate'.");
  assert.equal(manifestError(nmf({ portable: { 'pnacl-translate': [] } })), "manifest: portable property 'pnacl-translate' is non-dictionary value '[  ]\n'.");
  assert.equal(manifestError(nmf({ portable: { 'pnacl-translate': {} } })), "manifest: portable property 'pnacl-translate' does not have required key: 'url'.");
  assert.equal(manifestError(nmf({ portable: { 'pnacl-translate': { url: 5 } } })), "manifest: portable property 'pnacl-translate' has non-string value '5\n' for key 'url'.");
  assert.equal(
    manifestError('{"program": {"portable": {"pnacl-translate": {"url": "a", "optlevel": 2.0}}}}'),
    "manifest: portable property 'pnacl-translate' has non-numeric value '2.0\n' for key 'optlevel'.",
  );
  assert.equal(manifestError(nmf({ 'x86-64': 'a.nexe', portable: { 'pnacl-translate': { url: 'a' } } })), "manifest: program property 'x86-64' is non-dictionary value '\"a.nexe\"\n'.");
  assert.equal(manifestError('{"program": {"portable": {"pnacl-translate": {"url": "x"}}}, "files": 1}'), "manifest: 'files' is not a dictionary.");
  assert.equal(manifestError(nmf({ portable: { 'pnacl-translate': { url: 'http://[' } } })), "could not resolve url 'http://[' relative to manifest base url 'https://example.com/app/app.nmf'.");
  assert.equal(manifestError('{"program": '), 'manifest JSON parsing failed: Line: 1, column: 13, Unexpected token.');
});

test('manifest: fetched with Chrome\'s texts for what fails, at most 1 MiB', async () => {
  const ok = await fetchManifest('data:application/json,{"a":1}');
  assert.equal(new TextDecoder().decode(ok), '{"a":1}');
  const fail = async (url, fetchFn) => {
    try {
      await fetchManifest(url, { fetchFn });
    } catch (e) {
      return e.message;
    }
    return null;
  };
  assert.equal(await fail('javascript:1'), 'access to manifest url was denied.');
  assert.equal(await fail('https://example.com/a.nmf', async () => new Response('nope', { status: 404 })), 'could not load manifest url.');
  assert.equal(
    await fail('https://example.com/a.nmf', async () => {
      throw new TypeError('network');
    }),
    'could not load manifest url.',
  );
  const big = new Uint8Array(MAX_MANIFEST_BYTES + 1).fill(0x20);
  assert.equal(await fail('https://example.com/a.nmf', async () => new Response(big)), 'manifest file too large.');
  assert.equal(await fail('https://example.com/a.nmf', async () => new Response('{}', { headers: { 'Content-Length': String(2 << 20) } })), 'manifest file too large.');
});

test('values for the plugin: V8VarConverter\'s rules, converted at once', () => {
  const buf = new Uint8Array([1, 2, 3]).buffer;
  const sparse = [1, , 3, , ,]; // eslint-disable-line no-sparse-arrays
  sparse.length = 5;
  const fn = () => 1;
  fn.extra = 'kept';
  const getter = { a: 1 };
  Object.defineProperty(getter, 'b', { get: () => 2, enumerable: true });
  const out = convertForPlugin({
    n: new Number(2),
    s: new String('x'),
    b: new Boolean(false),
    buf,
    typed: new Uint8Array([7, 8]),
    sparse,
    date: new Date(0),
    fn,
    getter,
    sym: Symbol('no var'),
    big: 1n,
    nested: [undefined, null, 1.5],
  });
  assert.equal(out.ok, true);
  const v = out.value;
  assert.deepEqual({ ...v, buf: undefined }, {
    n: 2,
    s: 'x',
    b: false,
    buf: undefined,
    typed: { 0: 7, 1: 8 },
    sparse: [1, undefined, 3],
    date: {},
    fn: { extra: 'kept' },
    getter: { a: 1 },
    nested: [undefined, null, 1.5],
  });
  assert.ok(v.buf instanceof ArrayBuffer && v.buf !== buf, 'the ArrayBuffer is copied');
  assert.deepEqual(convertForPlugin(Symbol('x')), { ok: false });
  const cycle = { a: [] };
  cycle.a.push(cycle);
  assert.throws(() => convertForPlugin(cycle), (e) => e instanceof ConversionError && e.message === CONVERSION_FAILED);
  // A shared value that is not a cycle is fine.
  const shared = { k: 1 };
  assert.deepEqual(convertForPlugin([shared, shared]).value, [{ k: 1 }, { k: 1 }]);
});

test('SHA-256: the plain implementation agrees with Node\'s', async () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 1000, 100_000]) {
    const data = crypto.randomBytes(n);
    const want = crypto.createHash('sha256').update(data).digest('hex');
    assert.equal(Buffer.from(sha256Sync(data)).toString('hex'), want, `${n} bytes`);
    assert.equal(await sha256Hex(data), want);
  }
});

test('options: defaults, checks, and the URL rewrite map (longest prefix wins)', () => {
  const warnings = [];
  const c = normalizeConfig({ logLevel: 'debug', cache: false, nonsense: 1, urlMap: { 'http://a/': 'http://b/', 'http://a/x/': 'http://c/' } }, (w) => warnings.push(w));
  assert.deepEqual([c.logLevel, c.cache, c.ui, c.cooperativeThreads, c.serviceWorker], ['debug', false, true, true, false]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /nonsense is not an option/);
  assert.equal(rewriteUrl(c.urlMap, 'http://a/x/y.pexe'), 'http://c/y.pexe');
  assert.equal(rewriteUrl(c.urlMap, 'http://a/z'), 'http://b/z');
  assert.equal(rewriteUrl(c.urlMap, 'http://other/z'), 'http://other/z');
  assert.deepEqual(normalizeConfig(undefined).urlMap, {});
  // A socket relay: a ws:// or wss:// URL, nothing else.
  assert.equal(normalizeConfig(undefined).socketRelay, null);
  assert.equal(normalizeConfig({ socketRelay: 'ws://127.0.0.1:8787/' }).socketRelay, 'ws://127.0.0.1:8787/');
  const relayWarnings = [];
  assert.equal(normalizeConfig({ socketRelay: 'http://x/' }, (w) => relayWarnings.push(w)).socketRelay, null);
  assert.match(relayWarnings[0], /socketRelay must be a ws:\/\/ or wss:\/\/ URL/);
});

test('polyfill.js is a classic script as well as a module (no import/export statements)', async () => {
  const source = fs.readFileSync(new URL('../src/polyfill.js', import.meta.url), 'utf8');
  assert.doesNotThrow(() => new vm.Script(source, { filename: 'polyfill.js' }));
  // As a module (it returns at once outside a page).
  await import(`data:text/javascript,${encodeURIComponent(source)}`);
  assert.doesNotThrow(() => vm.runInNewContext(source, {}));
});
