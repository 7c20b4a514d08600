// The polyfilled NaCl element against what Chrome's did
// (../shared/reference/nacl-embed-facts.md), on a test page written the
// way SDK pages were (polyfill/pages/element.html), in headless Chromium,
// cross-origin isolated:
//
// - the load sequence: events, their order, their fields, dispatched on
//   the element, not bubbling, seen by capturing ancestors, with the
//   legacy window.event set; readyState, lastError, exitStatus;
// - messages: queued before load, dropped with another argument count,
//   Chrome's postMessageAndAwaitResponse exceptions; argn/argv;
// - the DOM: src changes restart, removal ends the instance (its Workers
//   go), other embeds are untouched, navigator.mimeTypes/plugins answer;
// - the view: size, resizes, visibility and focus reach the plugin;
// - hostile input, on one page beside a plugin that keeps working: a
//   truncated pexe, a pexe the verifier rejects, a missing and a malformed
//   manifest, a manifest without a portable program, a missing pexe, a bad
//   src, a plugin that traps in HandleMessage, one that exits;
// - the loading and error panels over the element's box;
// - the package API embed(element, { src }).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS, SCREENSHOTS, launchChromium, testNeeding } from './helpers.mjs';
import { HERE, PPAPI, assemble, newPage, polyfillSkipReason } from './polyfill/helpers.mjs';
import { serveSite } from './polyfill/site-server.mjs';

const missing = polyfillSkipReason();
const HELLO = path.join(PPAPI, 'cptaffe_pnacl-test/hello_tutorial.pexe');
const INVALID = path.join(CORPUS, 'cli/binji_pnacl_c/test/regression/2.pexe');

const manifest = (url) => JSON.stringify({ program: { portable: { 'pnacl-translate': { url } } } });
const MALFORMED = '{\n  "program": {\n    "portable": {\n      "pnacl-translate": { "url": "x.pexe", }\n    }\n  }\n}\n';

/** A route answering `body` with `type`; `slow` sends it in pieces over about a second. */
function answer(body, type, { slow = false } = {}) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return (req, res, headers) => {
    res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': String(bytes.length), 'Cache-Control': 'no-store' });
    if (!slow) return res.end(bytes);
    const pieces = 20;
    const step = Math.ceil(bytes.length / pieces);
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i >= bytes.length) return res.end();
      res.write(bytes.subarray(i, i + step));
      i += step;
      setTimeout(next, 60);
    };
    next();
  };
}

function routes(trapPexe) {
  const hello = fs.readFileSync(HELLO);
  const nmf = (url) => answer(manifest(url), 'application/json');
  return {
    '/plugins/hello.pexe': HELLO,
    '/plugins/slow-hello.pexe': answer(hello, 'application/x-pnacl', { slow: true }),
    '/plugins/trap.pexe': trapPexe,
    '/plugins/truncated.pexe': answer(hello.subarray(0, Math.floor(hello.length * 0.6)), 'application/x-pnacl'),
    '/plugins/invalid.pexe': INVALID,
    '/nmf/hello.nmf': nmf('../plugins/hello.pexe'),
    '/nmf/hello-again.nmf': nmf('/plugins/hello.pexe'),
    '/nmf/slow-hello.nmf': nmf('/plugins/slow-hello.pexe'),
    '/nmf/trap.nmf': nmf('/plugins/trap.pexe'),
    '/nmf/truncated.nmf': nmf('/plugins/truncated.pexe'),
    '/nmf/invalid.nmf': nmf('/plugins/invalid.pexe'),
    '/nmf/missing-pexe.nmf': nmf('/plugins/nothing-here.pexe'),
    '/nmf/malformed.nmf': answer(MALFORMED, 'application/json'),
    '/nmf/native-only.nmf': answer(JSON.stringify({ program: { 'x86-64': { url: 'app.nexe' } } }), 'application/json'),
    '/nmf/number.nmf': answer('42', 'application/json'),
  };
}

/** Waits for `fn()` (run in the page) to be truthy. */
const until = (page, fn, arg, timeout = 120_000) => page.waitForFunction(fn, arg, { timeout, polling: 50 });

const typesOf = (page, id) => page.evaluate((i) => types(i), id);

/**
 * The page's own record of the Workers it made and terminated (an init
 * script wraps Worker), so that a Worker still listed after an instance
 * ended says whether terminate() was ever called on it.
 */
const recordWorkers = () => {
  const made = (window.workersMade = []);
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      this.record = { url: String(url), terminated: false };
      made.push(this.record);
    }
    terminate() {
      this.record.terminated = true;
      return super.terminate();
    }
  };
};

/** Waits up to 30 s for every Worker of the page to be gone. */
async function workersGone(page) {
  const deadline = Date.now() + 30_000;
  while (page.workers().length > 0 && Date.now() < deadline) await page.waitForTimeout(100);
  const left = page.workers().map((w) => w.url());
  if (left.length > 0) {
    const made = await page.evaluate(() => window.workersMade);
    // Whether a Worker still listed still runs script.
    const alive = await Promise.all(
      page.workers().map((w) =>
        Promise.race([
          w.evaluate(() => 'answers').catch((e) => `throws ${e.message.split('\n')[0]}`),
          new Promise((resolve) => setTimeout(() => resolve('no answer in 5 s'), 5000)),
        ]),
      ),
    );
    assert.fail(`Workers still there 30 s later: ${left.join(' ')} (${alive.join(', ')}); the page made ${JSON.stringify(made)}`);
  }
}

testNeeding(missing, 'polyfill: the NaCl element', { timeout: 900_000 }, async (t) => {
  const trapPexe = assemble('trap-on-message');
  const site = await serveSite({ root: path.join(HERE, 'pages'), tag: 'classic', routes: routes(trapPexe) });
  const browser = await launchChromium();
  const open = async () => {
    const page = await newPage(browser);
    await page.addInitScript(recordWorkers);
    await page.goto(site.url('/element.html'));
    await page.evaluate(() => window[Symbol.for('pexe.polyfill')].started);
    return page;
  };
  try {
    await t.test('a load: events in Chrome\'s order with its fields, on the element, seen by capturing ancestors', async () => {
      const page = await open();
      try {
        const sync = await page.evaluate(() => {
          const el = make('a', { src: '/nmf/hello.nmf' });
          // Reading a member instantiates the plugin at once, as in Chrome.
          return [el.readyState, el.lastError, el.exitStatus, typeof el.postMessage];
        });
        assert.deepEqual(sync, [1, '', -1, 'function']);
        await until(page, () => types('a').includes('loadend'));
        const log = await page.evaluate(() => log.a);
        const seq = log.map((e) => e.type);
        // loadstart, progress (manifest read), progress… (pexe bytes), the module's
        // greeting from its constructor, then load and loadend.
        assert.equal(seq[0], 'loadstart');
        assert.equal(seq[1], 'progress');
        assert.deepEqual(seq.slice(-3), ['message', 'load', 'loadend']);
        assert.ok(seq.slice(2, -3).every((x) => x === 'progress'), seq.join(' '));
        const size = fs.statSync(HELLO).size;
        const pexeUrl = site.url('/plugins/hello.pexe');
        const [loadstart, manifestRead] = log;
        assert.deepEqual([loadstart.hasUrl, loadstart.lengthComputable, loadstart.loaded, loadstart.total], [false, false, 0, 0]);
        assert.deepEqual([manifestRead.hasUrl, manifestRead.readyState], [false, 3]);
        const bytes = log.slice(2, -3);
        assert.ok(bytes.length >= 1);
        for (const e of bytes) assert.deepEqual([e.url, e.lengthComputable, e.total], [pexeUrl, true, size]);
        assert.deepEqual(bytes.map((e) => e.loaded), [...bytes.map((e) => e.loaded)].sort((x, y) => x - y));
        assert.equal(bytes.at(-1).loaded, size, 'the last progress is the whole pexe');
        const load = log.at(-2);
        assert.deepEqual([load.url, load.lengthComputable, load.loaded, load.total, load.readyState], [pexeUrl, true, size, size, 4]);
        assert.deepEqual(log.at(-1).url, pexeUrl);
        for (const e of log) {
          assert.deepEqual([e.bubbles, e.cancelable, e.phase, e.targetIsElement, e.globalEvent], [false, false, 1, true, true], JSON.stringify(e));
          assert.equal(e.type === 'message' ? e.isMessage : e.isProgress, true);
        }
        const message = log.at(-3);
        assert.deepEqual([message.origin, message.sourceIsNull], ['', true]);
        assert.deepEqual(await page.evaluate(() => messages.a), ['C++ program online.']);
        const el = await page.evaluate(() => {
          const e = document.getElementById('a');
          return [e.readyState, e.lastError, e.exitStatus];
        });
        assert.deepEqual(el, [4, '', -1]);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('messages: queued before load, one argument only, Chrome\'s synchronous-call exceptions', async () => {
      const page = await open();
      try {
        const early = await page.evaluate(() => {
          const el = make('b', { src: '/nmf/hello.nmf' });
          el.postMessage(30, 'two arguments'); // ignored, as Chrome did
          el.postMessage(); // ignored
          el.postMessage(20); // queued until DidCreate
          const thrown = [];
          for (const f of [() => el.postMessageAndAwaitResponse(), () => el.postMessageAndAwaitResponse(1), () => (el.postMessage = 1)]) {
            try {
              f();
              thrown.push(null);
            } catch (e) {
              thrown.push(e.message);
            }
          }
          return thrown;
        });
        assert.deepEqual(early, [
          'postMessageAndAwaitResponse requires one argument',
          'Attempted to call a synchronous method on a plugin that was not yet loaded.',
          'Cannot set properties with the name postMessageor postMessageAndAwaitResponse',
        ]);
        await until(page, () => messages.b.some((m) => m instanceof ArrayBuffer));
        await page.waitForTimeout(500);
        const got = await page.evaluate(() => messages.b.map((m) => (m instanceof ArrayBuffer ? Array.from(new Int32Array(m)) : m)));
        assert.equal(got[0], 'C++ program online.');
        assert.equal(got.length, 2, `exactly one reply (to the queued 20): ${JSON.stringify(got)}`);
        const primes = [2, 3, 5, 7, 11, 13, 17, 19];
        assert.deepEqual(got[1], primes.slice(0, got[1].length));
        // After load, a plugin with no PPP_MessageHandler: Chrome's text.
        const sync = await page.evaluate(() => {
          try {
            return document.getElementById('b').postMessageAndAwaitResponse('x');
          } catch (e) {
            return e.message;
          }
        });
        assert.equal(
          sync,
          'The plugin has not registered a handler for synchronous messages. See the documentation for PPB_Messaging::RegisterMessageHandler and PPP_MessageHandler.',
        );
        // A cycle cannot be converted: dropped, with Chrome's console line.
        await page.evaluate(() => {
          const o = {};
          o.self = o;
          document.getElementById('b').postMessage(o);
        });
        await page.waitForTimeout(200);
        assert.deepEqual(page.problems, [
          'console: Failed to convert a PostMessage argument from a JavaScript value to a PP_Var. It may have cycles or be of an unsupported type.',
        ]);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('argn/argv: <embed> attributes in order; <object> params, then attributes, then data as src', async () => {
      const page = await open();
      try {
        const r = await page.evaluate(async () => {
          const { pluginAttributes } = await import('/pexe/internal/polyfill/controller.js');
          const holder = document.createElement('div');
          holder.innerHTML =
            '<embed id="e1" WIDTH="10" src="x.nmf" type="application/x-pnacl" ARG1="-v" data-x="1">' +
            '<object id="o1" data="app.nmf" type="application/x-pnacl" width="5"><param name="ARG1" value="a"><param name="" value="skipped"><param name="Width" value="7"></object>';
          return [pluginAttributes(holder.querySelector('#e1')), pluginAttributes(holder.querySelector('#o1'))];
        });
        assert.deepEqual(r[0], [['id', 'e1'], ['width', '10'], ['src', 'x.nmf'], ['type', 'application/x-pnacl'], ['arg1', '-v'], ['data-x', '1']]);
        assert.deepEqual(r[1], [['ARG1', 'a'], ['Width', '7'], ['id', 'o1'], ['data', 'app.nmf'], ['type', 'application/x-pnacl'], ['src', 'app.nmf']]);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('<object data=…> runs; its fallback <embed> does not', async () => {
      const page = await open();
      try {
        await page.evaluate(() => {
          document.getElementById('area').insertAdjacentHTML(
            'beforeend',
            '<div id="obj-listener"><object id="obj" data="/nmf/hello.nmf" type="application/x-pnacl" width="0" height="0">' +
              '<embed id="fallback" src="/nmf/hello.nmf" type="application/x-pnacl"></object></div>',
          );
          window.objEvents = [];
          for (const type of ['load', 'message']) {
            document.getElementById('obj-listener').addEventListener(type, (e) => objEvents.push(`${e.target.id} ${type}`), true);
          }
        });
        await until(page, () => objEvents.includes('obj load'));
        await page.waitForTimeout(300);
        assert.deepEqual(await page.evaluate(() => objEvents), ['obj message', 'obj load']);
        assert.equal(await page.evaluate(() => document.getElementById('fallback').readyState), undefined);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('the DOM: a new src restarts, removal ends the instance and its Workers, other embeds are untouched', async () => {
      const page = await open();
      try {
        await page.evaluate(() => make('c', { src: '/nmf/hello.nmf' }));
        await until(page, () => types('c').includes('loadend'));
        assert.ok(page.workers().length >= 2, `Workers: ${page.workers().map((w) => w.url()).join(' ')}`);
        await page.evaluate(() => document.getElementById('c').setAttribute('src', '/nmf/hello-again.nmf'));
        await until(page, () => types('c').filter((x) => x === 'loadend').length === 2);
        const seq = await typesOf(page, 'c');
        const second = seq.slice(seq.indexOf('loadend') + 1);
        assert.equal(second[0], 'loadstart');
        assert.deepEqual(second.slice(-3), ['message', 'load', 'loadend']);
        // Removal: the instance ends silently and its Workers go.
        await page.evaluate(() => document.getElementById('c').remove());
        await workersGone(page);
        const after = await typesOf(page, 'c');
        assert.deepEqual(after, seq, 'no event after removal');
        // An embed of another type is left alone.
        const other = await page.evaluate(() => {
          const e = document.createElement('embed');
          e.type = 'image/svg+xml';
          document.body.appendChild(e);
          const before = [typeof e.postMessage, e.readyState, e.lastError];
          e.postMessage = 5;
          return [...before, e.postMessage];
        });
        assert.deepEqual(other, ['undefined', undefined, undefined, 5]);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('display: none: no instance until shown; hiding ends it, showing starts a new one', async () => {
      const page = await open();
      try {
        await page.evaluate(() => {
          make('h', { src: '/nmf/hello.nmf' });
          document.getElementById('h-listener').style.display = 'none';
        });
        await page.waitForTimeout(1500);
        assert.deepEqual(await typesOf(page, 'h'), [], 'no events while it has no layout box');
        assert.equal(await page.evaluate(() => document.getElementById('h').readyState), undefined, 'reading a member does not start it');
        await page.evaluate(() => (document.getElementById('h-listener').style.display = ''));
        await until(page, () => types('h').includes('loadend'));
        const first = await typesOf(page, 'h');
        assert.deepEqual(first.slice(-3), ['message', 'load', 'loadend']);
        // Hidden: the instance ends silently, its Workers go.
        await page.evaluate(() => (document.getElementById('h-listener').style.display = 'none'));
        await workersGone(page);
        assert.deepEqual(await typesOf(page, 'h'), first, 'no event when hidden');
        // Shown again: a new instance, from loadstart.
        await page.evaluate(() => (document.getElementById('h-listener').style.display = ''));
        await until(page, () => types('h').filter((x) => x === 'loadend').length === 2);
        const second = (await typesOf(page, 'h')).slice(first.length);
        assert.equal(second[0], 'loadstart');
        assert.deepEqual(second.slice(-3), ['message', 'load', 'loadend']);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('probes: navigator.mimeTypes and navigator.plugins answer as Chrome did', async () => {
      const page = await open();
      try {
        const p = await page.evaluate(() => {
          const m = navigator.mimeTypes['application/x-pnacl'];
          const plugin = navigator.plugins['Native Client'];
          return {
            type: m.type,
            description: m.description,
            suffixes: m.suffixes,
            enabled: m.enabledPlugin === plugin,
            named: navigator.mimeTypes.namedItem('application/x-pnacl') === m,
            plugin: [plugin.name, plugin.description, plugin.filename, plugin.length, plugin[0] === m, plugin.namedItem('application/x-pnacl') === m],
            inList: Array.from(navigator.plugins).includes(plugin) && navigator.plugins.item(navigator.plugins.length - 1) === plugin,
            nacl: navigator.mimeTypes['application/x-nacl'],
            sdk: navigator.mimeTypes['application/x-pnacl'] !== undefined,
          };
        });
        assert.deepEqual(p, {
          type: 'application/x-pnacl',
          description: 'Portable Native Client Executable',
          suffixes: '',
          enabled: true,
          named: true,
          plugin: ['Native Client', '', 'internal-nacl-plugin', 1, true, true],
          inList: true,
          nacl: undefined,
          sdk: true,
        });
      } finally {
        await page.closeAll();
      }
    });

    await t.test('the view: the box, resizes, visibility and focus reach the plugin', async () => {
      const page = await newPage(browser);
      // Watch what the page sends the plugin's host Worker (instrumentation of the test page only).
      await page.addInitScript(() => {
        window.sent = [];
        const post = Worker.prototype.postMessage;
        Worker.prototype.postMessage = function (msg, ...rest) {
          if (msg?.type === 'view' || msg?.type === 'focus') window.sent.push(structuredClone(msg));
          if (msg?.type === 'start') window.sent.push({ type: 'start', view: msg.options.view, attributes: msg.options.attributes });
          return post.call(this, msg, ...rest);
        };
      });
      try {
        await page.goto(site.url('/element.html'));
        await page.evaluate(() => make('v', { src: '/nmf/hello.nmf' }, { width: 320, height: 200 }));
        await until(page, () => types('v').includes('loadend'));
        const start = await page.evaluate(() => sent.find((m) => m.type === 'start'));
        assert.deepEqual([start.view.rect.width, start.view.rect.height, start.view.visible], [320, 200, true]);
        assert.deepEqual(start.attributes.map(([n]) => n), ['id', 'type', 'width', 'height', 'src']);
        // The plugin's box (its canvases, its input) lies over the element's.
        const boxes = () =>
          page.evaluate(() => {
            const r = (e) => {
              const b = e.getBoundingClientRect();
              return [b.x, b.y, b.width, b.height];
            };
            return [r(document.getElementById('v')), r(document.querySelector('[data-pexe-surface]'))];
          });
        let [element, surface] = await boxes();
        assert.deepEqual(surface, element);
        await page.evaluate(() => document.getElementById('v').setAttribute('width', '400'));
        await until(page, () => sent.some((m) => m.type === 'view' && m.view.rect.width === 400));
        [element, surface] = await boxes();
        assert.deepEqual([surface, element[2]], [element, 400]);
        await page.evaluate(() => (document.getElementById('v').style.visibility = 'hidden'));
        await until(page, () => sent.some((m) => m.type === 'view' && m.view.visible === false));
        await page.evaluate(() => (document.getElementById('v').style.visibility = ''));
        // (Playwright will not click an <embed> with nothing drawn: press where it is.)
        const box = await page.locator('#v').boundingBox();
        await page.mouse.click(box.x + 20, box.y + 20);
        await until(page, () => sent.some((m) => m.type === 'focus' && m.hasFocus === true));
        await page.click('h1');
        await until(page, () => sent.some((m) => m.type === 'focus' && m.hasFocus === false));
      } finally {
        await page.closeAll();
      }
    });

    await t.test('hostile input: each bad plugin fails or crashes with a useful lastError; the page and a good plugin go on', async () => {
      const page = await open();
      try {
        await page.evaluate(() => {
          make('good', { src: '/nmf/hello.nmf' });
          make('truncated', { src: '/nmf/truncated.nmf' }, { width: 400, height: 120 });
          make('invalid', { src: '/nmf/invalid.nmf' }, { width: 400, height: 160 });
          make('nonmf', { src: '/nmf/nothing-here.nmf' });
          make('malformed', { src: '/nmf/malformed.nmf' });
          make('native', { src: '/nmf/native-only.nmf' });
          make('number', { src: '/nmf/number.nmf' });
          make('nopexe', { src: '/nmf/missing-pexe.nmf' });
          make('badsrc', { src: 'http://[' });
          make('nosrc', {});
          make('trap', { src: '/nmf/trap.nmf' });
        });
        const failing = ['truncated', 'invalid', 'nonmf', 'malformed', 'native', 'number', 'nopexe', 'badsrc'];
        await until(page, (ids) => ids.every((id) => types(id).includes('loadend')), [...failing, 'good', 'trap']);
        const result = await page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, { types: types(id).filter((x) => x !== 'progress'), lastError: document.getElementById(id).lastError, readyState: document.getElementById(id).readyState }])), failing);
        const expect = {
          nonmf: 'NaCl module load failed: could not load manifest url.',
          malformed: 'NaCl module load failed: manifest JSON parsing failed: Line: 4, column: 46, Trailing comma not allowed.',
          native: 'NaCl module load failed: manifest: no version of program given for portable.',
          number: 'NaCl module load failed: manifest: is not a json dictionary.',
          nopexe: 'NaCl module load failed: PnaclCoordinator: pexe load failed (pp_error=-2).',
          badsrc: `NaCl module load failed: could not resolve URL "http://[" relative to "${site.url('/element.html')}".`,
        };
        for (const [id, text] of Object.entries(expect)) assert.equal(result[id].lastError, text, id);
        assert.match(result.truncated.lastError, /^NaCl module load failed: PnaclCoordinator: .*\d+:\d/);
        assert.match(result.invalid.lastError, /^NaCl module load failed: PnaclCoordinator: .*\b\d+:\d\b/);
        for (const id of failing) {
          assert.equal(result[id].readyState, 4, id);
          // A src that does not resolve fails before loadstart (Chrome's order).
          assert.deepEqual(result[id].types, id === 'badsrc' ? ['error', 'loadend'] : ['loadstart', 'error', 'loadend'], id);
        }
        console.log(`# RESULT invalid pexe: ${result.invalid.lastError}`);
        console.log(`# RESULT truncated pexe: ${result.truncated.lastError}`);
        // No src: Chrome never asked for a manifest; nothing happens.
        assert.deepEqual(await page.evaluate(() => [types('nosrc'), document.getElementById('nosrc').readyState]), [[], undefined]);
        // The error panel over the invalid pexe's box lists the verifier's findings with positions.
        const panel = await page.evaluate(() => {
          const el = document.getElementById('invalid').getBoundingClientRect();
          const host = [...document.querySelectorAll('[data-pexe-overlay]')].find((h) => h.shadowRoot.querySelector('.panel').textContent.includes('invalid.pexe'));
          const p = host.shadowRoot.querySelector('.panel').getBoundingClientRect();
          return { state: host.dataset.state, text: host.shadowRoot.querySelector('.panel').textContent, box: [el.x, el.y, el.width, el.height], panel: [p.x, p.y, p.width, p.height] };
        });
        assert.equal(panel.state, 'error');
        assert.match(panel.text, /\d+:\d+: error: /);
        assert.deepEqual(panel.panel, panel.box, 'the panel covers the element\'s box');
        fs.mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SCREENSHOTS, 'polyfill-errors.png'), fullPage: true });

        // The trap plugin loaded; a message makes it fault in HandleMessage.
        assert.deepEqual(await typesOf(page, 'trap').then((x) => x.filter((y) => y !== 'progress')), ['loadstart', 'load', 'loadend']);
        await page.waitForTimeout(300);
        assert.ok(!(await typesOf(page, 'trap')).includes('crash'), 'no crash before a message');
        await page.evaluate(() => document.getElementById('trap').postMessage('boom'));
        await until(page, () => types('trap').includes('crash'));
        const crash = await page.evaluate(() => {
          const el = document.getElementById('trap');
          const e = log.trap.at(-1);
          return [e.type, e.hasUrl, e.lengthComputable, e.loaded, e.total, e.readyState, el.lastError, el.exitStatus];
        });
        assert.deepEqual(crash, ['crash', false, false, 0, 0, 4, 'NaCl module crashed', -1]);
        assert.ok(page.logs.some((l) => /guest fault: unreachable in function/.test(l)), 'the fault is in the console');

        // The good plugin still answers, and a message to it now can make
        // it exit (its reply buffer cannot be allocated: abort → exit 1).
        await page.evaluate(() => document.getElementById('good').postMessage(20));
        await until(page, () => messages.good.some((m) => m instanceof ArrayBuffer));
        await page.evaluate(() => document.getElementById('good').postMessage(2147483647));
        await until(page, () => types('good').includes('crash'));
        assert.deepEqual(await page.evaluate(() => [document.getElementById('good').lastError, document.getElementById('good').exitStatus]), ['NaCl module crashed', 1]);
        // The page itself never saw an exception.
        assert.deepEqual(page.problems.filter((p) => !p.startsWith('console: ')), []);
        assert.equal(await page.evaluate(() => 1 + 1), 2);
      } finally {
        await page.closeAll();
      }
    });

    await t.test('loading: a progress bar over the element\'s box, gone once loaded', async () => {
      const page = await open();
      try {
        await page.evaluate(() => make('slow', { src: '/nmf/slow-hello.nmf' }, { width: 360, height: 140 }));
        const host = await page.waitForSelector('[data-pexe-overlay][data-state="loading"]', { state: 'attached', timeout: 30_000 });
        await page.waitForFunction(
          (h) => Number(h.shadowRoot.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow') ?? 0) > 0,
          host,
          { timeout: 30_000 },
        );
        const geometry = await page.evaluate((h) => {
          const el = document.getElementById('slow').getBoundingClientRect();
          const p = h.shadowRoot.querySelector('.panel').getBoundingClientRect();
          return [[el.x, el.y, el.width, el.height], [p.x, p.y, p.width, p.height], h.shadowRoot.querySelector('.panel').textContent];
        }, host);
        assert.deepEqual(geometry[1], geometry[0]);
        assert.match(geometry[2], /Loading slow-hello\.pexe…Downloading: \d+ KB of \d+ KB/);
        fs.mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SCREENSHOTS, 'polyfill-loading.png') });
        await until(page, () => types('slow').includes('loadend'));
        await page.waitForFunction(() => !document.querySelector('[data-pexe-overlay]'));
      } finally {
        await page.closeAll();
      }
    });

    await t.test('embed(element, { src }) from the package: a manifest, a pexe URL, bytes', async () => {
      const page = await open();
      try {
        const r = await page.evaluate(async () => {
          const { embed } = await import('/pexe/index.js');
          const box = document.createElement('div');
          box.style.cssText = 'width: 300px; height: 100px';
          document.body.appendChild(box);
          const out = {};
          const viaManifest = embed(box, { src: '/nmf/hello.nmf' });
          const got = [];
          viaManifest.addEventListener('message', (e) => got.push(e.data));
          viaManifest.postMessage(10);
          await viaManifest.ready;
          await new Promise((resolve) => {
            const check = () => (got.length >= 2 ? resolve() : setTimeout(check, 20));
            check();
          });
          out.manifest = [viaManifest.readyState, viaManifest.lastError, got[0], got[1] instanceof ArrayBuffer, viaManifest.element.parentElement === box];
          viaManifest.destroy();
          out.removed = box.children.length;
          const viaUrl = embed(box, { src: '/plugins/hello.pexe' });
          await viaUrl.ready;
          out.url = viaUrl.readyState;
          viaUrl.destroy();
          const bytes = await (await fetch('/plugins/hello.pexe')).arrayBuffer();
          const viaBytes = embed(box, { src: bytes });
          await viaBytes.ready;
          out.bytes = viaBytes.readyState;
          viaBytes.destroy();
          const lines = [];
          const bad = embed(box, { src: '/nmf/malformed.nmf', logLevel: 'none', onLog: (level, text) => lines.push(`${level}: ${text}`) });
          out.bad = await bad.ready.then(() => 'loaded', (e) => e.message);
          out.logged = lines.filter((l) => l.startsWith('info: NativeClient'));
          try {
            embed(box, { src: '/nmf/hello.nmf', colour: 'red' });
          } catch (e) {
            out.unknown = e.message;
          }
          return out;
        });
        assert.deepEqual(r, {
          manifest: [4, '', 'C++ program online.', true, true],
          removed: 0,
          url: 4,
          bytes: 4,
          bad: 'NaCl module load failed: manifest JSON parsing failed: Line: 4, column: 46, Trailing comma not allowed.',
          logged: ['info: NativeClient: NaCl module load failed: manifest JSON parsing failed: Line: 4, column: 46, Trailing comma not allowed.'],
          unknown: 'embed(): unknown option colour',
        });
      } finally {
        await page.closeAll();
      }
    });
  } finally {
    await browser.close();
    await site.close();
    fs.rmSync(path.dirname(trapPexe), { recursive: true, force: true });
  }
});
