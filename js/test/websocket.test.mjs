// PPB_WebSocket against a WebSocket echo server on 127.0.0.1 (the `ws`
// package: an implementation independent of ours), with the plugin's
// WebSocket being the one `pexe run` gives it on Node 20
// (internal/node/websocket.js) and, as a second client, `ws`'s own. Then
// our server side (what the socket relay accepts with) against `ws`'s
// client. Text and binary frames, close codes and reasons, clean and
// unclean closes, bufferedAmount, messages over the limits.

import assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, before, test } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { PageAllocator } from '../src/internal/runtime/irt/memory.js';
import { Browser } from '../src/internal/pepper/browser.js';
import { PP, VAR } from '../src/internal/pepper/defs.js';
import { MAX_MESSAGE } from '../src/internal/pepper/ppb/websocket.js';
import { acceptWebSocket, NodeWebSocket } from '../src/internal/node/websocket.js';

/** A background thread: blocking calls answer with their result. */
const T = 5;

let server;
let url;
/** What the server saw close each connection with. */
const closes = [];

before(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 80 << 20, handleProtocols: (set) => (set.has('echo') ? 'echo' : false) });
  server.on('connection', (ws, req) => {
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      if (text === 'close me') ws.close(4002, 'server says bye');
      else if (text === 'big') ws.send(Buffer.alloc(MAX_MESSAGE + 1));
      else if (text === 'fragments') {
        ws.send('frag', { fin: false });
        ws.send('ment', { fin: false });
        ws.send('ed', { fin: true });
      } else if (text === 'drop') ws.terminate();
      else ws.send(data, { binary: isBinary });
    });
    ws.on('close', (code, reason) => closes.push({ code, reason: reason.toString(), path: req.url }));
  });
  await new Promise((resolve) => server.once('listening', resolve));
  url = `ws://127.0.0.1:${server.address().port}`;
});

after(() => new Promise((resolve) => server.close(resolve)));

function plugin(WS) {
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 2048, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const scratch = pages.map(0x100000);
  const b = new Browser({ proc: { mem, pages }, embedder: { WebSocket: WS }, transport: { toMain() {} } });
  const call = (key, ...args) => b.call(key, T, args);
  const wait = (key, ...args) => Promise.resolve(call(key, ...args));
  const cb = scratch; // blocking: all zero
  const v = (at, value) => {
    b.vars.write(at, typeof value === 'string' ? b.vars.string(value) : value);
    return at;
  };
  const read = (at) => b.vars.toJs(b.vars.read(at));
  return { b, mem, scratch, call, wait, cb, v, read };
}

async function open(p, path = '/', protocols = ['echo']) {
  const ws = p.call('PPB_WebSocket;1.0:Create', 1);
  const u = p.v(p.scratch + 64, `${url}${path}`);
  protocols.forEach((name, i) => p.v(p.scratch + 128 + 16 * i, name));
  assert.equal(await p.wait('PPB_WebSocket;1.0:Connect', ws, u, p.scratch + 128, protocols.length, p.cb), PP.OK);
  return ws;
}

const receive = async (p, ws) => {
  const r = await p.wait('PPB_WebSocket;1.0:ReceiveMessage', ws, p.scratch + 256, p.cb);
  if (r !== PP.OK) return r;
  const value = p.read(p.scratch + 256);
  p.b.vars.release(p.b.vars.read(p.scratch + 256));
  return value;
};

for (const [name, WS] of [
  ['our client (pexe run on Node 20)', NodeWebSocket],
  ['the ws package\'s client', WebSocket],
]) {
  test(`PPB_WebSocket with ${name}: text and binary echo, protocol, URL, bufferedAmount, a clean close with code and reason`, async () => {
    const p = plugin(WS);
    const ws = await open(p, '/a');
    assert.equal(p.call('PPB_WebSocket;1.0:GetReadyState', ws), 1);
    p.call('PPB_WebSocket;1.0:GetProtocol', p.scratch + 300, ws);
    assert.equal(p.read(p.scratch + 300), 'echo');
    p.call('PPB_WebSocket;1.0:GetURL', p.scratch + 300, ws);
    assert.equal(p.read(p.scratch + 300), `${url}/a`);
    assert.equal(p.call('PPB_WebSocket;1.0:SendMessage', ws, p.v(p.scratch + 80, 'héllo ✓')), PP.OK);
    assert.equal(await receive(p, ws), 'héllo ✓');
    const bin = p.b.vars.arrayBufferFrom(Uint8Array.of(0, 1, 2, 255));
    p.b.vars.write(p.scratch + 80, bin);
    assert.equal(p.call('PPB_WebSocket;1.0:SendMessage', ws, p.scratch + 80), PP.OK);
    const back = await receive(p, ws);
    assert.ok(back instanceof ArrayBuffer);
    assert.deepEqual([...new Uint8Array(back)], [0, 1, 2, 255]);
    p.b.vars.release(bin);
    // A fragmented message arrives whole.
    p.call('PPB_WebSocket;1.0:SendMessage', ws, p.v(p.scratch + 80, 'fragments'));
    assert.equal(await receive(p, ws), 'fragmented');
    // 16 MiB out: buffered at first, then drained as the echo comes back.
    const big = p.b.vars.arrayBufferFrom(new Uint8Array(16 << 20).fill(7));
    p.b.vars.write(p.scratch + 80, big);
    assert.equal(p.call('PPB_WebSocket;1.0:SendMessage', ws, p.scratch + 80), PP.OK);
    assert.ok(p.call('PPB_WebSocket;1.0:GetBufferedAmount', ws) > 0n, 'bytes wait to be sent');
    const echoed = await receive(p, ws);
    assert.equal(echoed.byteLength, 16 << 20);
    assert.equal(p.call('PPB_WebSocket;1.0:GetBufferedAmount', ws), 0n);
    p.b.vars.release(big);
    // Close: 4001 and a reason reach the server, which echoes them.
    assert.equal(await p.wait('PPB_WebSocket;1.0:Close', ws, 4001, p.v(p.scratch + 80, 'plugin says bye'), p.cb), PP.OK);
    assert.equal(p.call('PPB_WebSocket;1.0:GetReadyState', ws), 3);
    assert.equal(p.call('PPB_WebSocket;1.0:GetCloseCode', ws), 4001);
    p.call('PPB_WebSocket;1.0:GetCloseReason', p.scratch + 300, ws);
    assert.equal(p.read(p.scratch + 300), 'plugin says bye');
    assert.equal(p.call('PPB_WebSocket;1.0:GetCloseWasClean', ws), 1);
    for (let i = 0; i < 100 && !closes.some((c) => c.path === '/a'); i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(closes.find((c) => c.path === '/a'), { code: 4001, reason: 'plugin says bye', path: '/a' });
    assert.equal(p.call('PPB_WebSocket;1.0:SendMessage', ws, p.v(p.scratch + 80, 'late')), PP.ERROR_FAILED);
    closes.length = 0;
    p.b.shutdown();
  });

  test(`PPB_WebSocket with ${name}: the server closes (code, reason), messages before it are still read; a dropped connection is unclean`, async () => {
    const p = plugin(WS);
    const ws = await open(p);
    p.call('PPB_WebSocket;1.0:SendMessage', ws, p.v(p.scratch + 80, 'first'));
    p.call('PPB_WebSocket;1.0:SendMessage', ws, p.v(p.scratch + 80, 'close me'));
    for (let i = 0; i < 200 && p.call('PPB_WebSocket;1.0:GetReadyState', ws) !== 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await receive(p, ws), 'first', 'buffered before the close');
    assert.equal(await receive(p, ws), PP.ERROR_FAILED, 'then nothing');
    assert.equal(p.call('PPB_WebSocket;1.0:GetCloseCode', ws), 4002);
    p.call('PPB_WebSocket;1.0:GetCloseReason', p.scratch + 300, ws);
    assert.equal(p.read(p.scratch + 300), 'server says bye');
    assert.equal(p.call('PPB_WebSocket;1.0:GetCloseWasClean', ws), 1);

    const ws2 = await open(p);
    const pending = receive(p, ws2);
    p.call('PPB_WebSocket;1.0:SendMessage', ws2, p.v(p.scratch + 80, 'drop'));
    assert.equal(await pending, PP.ERROR_FAILED);
    assert.equal(p.call('PPB_WebSocket;1.0:GetCloseCode', ws2), 1006);
    assert.equal(p.call('PPB_WebSocket;1.0:GetCloseWasClean', ws2), 0);
    p.b.shutdown();
  });
}

test('PPB_WebSocket: a message over the limit ends the connection (1009) before any of it reaches the plugin', async () => {
  // ws's client takes messages far larger than the runtime's limit, so the
  // runtime's own check is what ends it.
  const p = plugin(class extends WebSocket {
    constructor(u, protocols) {
      super(u, protocols, { maxPayload: 80 << 20 });
    }
  });
  const ws = await open(p, '/big');
  const heap = p.b.heap.liveBytes;
  p.call('PPB_WebSocket;1.0:SendMessage', ws, p.v(p.scratch + 80, 'big'));
  assert.equal(await receive(p, ws), PP.ERROR_FAILED);
  assert.ok(p.b.heap.liveBytes - heap < 1 << 20, 'the message never went into guest memory');
  for (let i = 0; i < 100 && !closes.some((c) => c.path === '/big'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closes.find((c) => c.path === '/big')?.code, 1009);
  closes.length = 0;
  // Our client has a framing limit too: it fails the connection itself.
  const q = plugin(class extends NodeWebSocket {
    constructor(u, protocols) {
      super(u, protocols, { maxMessage: 1 << 20 });
    }
  });
  const ws2 = await open(q, '/big2');
  q.call('PPB_WebSocket;1.0:SendMessage', ws2, q.v(q.scratch + 80, 'big'));
  assert.equal(await receive(q, ws2), PP.ERROR_FAILED);
  assert.equal(q.call('PPB_WebSocket;1.0:GetCloseWasClean', ws2), 0);
  for (let i = 0; i < 100 && !closes.some((c) => c.path === '/big2'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closes.find((c) => c.path === '/big2')?.code, 1009);
  p.b.shutdown();
  q.b.shutdown();
});

test('PPB_WebSocket: Chrome\'s argument checks (URL, protocols, close codes)', async () => {
  const p = plugin(NodeWebSocket);
  const ws = p.call('PPB_WebSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_WebSocket;1.0:Connect', ws, p.v(p.scratch + 64, 'http://127.0.0.1/'), 0, 0, p.cb), PP.ERROR_BADARGUMENT);
  const ws2 = p.call('PPB_WebSocket;1.0:Create', 1);
  p.v(p.scratch + 128, 'a b');
  assert.equal(await p.wait('PPB_WebSocket;1.0:Connect', ws2, p.v(p.scratch + 64, url), p.scratch + 128, 1, p.cb), PP.ERROR_BADARGUMENT, 'a protocol with a space');
  // Nothing listens there: the connect fails.
  const ws3 = p.call('PPB_WebSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_WebSocket;1.0:Connect', ws3, p.v(p.scratch + 64, 'ws://127.0.0.1:1/'), 0, 0, p.cb), PP.ERROR_FAILED);
  const ok = await open(p);
  assert.equal(await p.wait('PPB_WebSocket;1.0:Close', ok, 1001, p.v(p.scratch + 80, ''), p.cb), PP.ERROR_NOACCESS, '1001 is the browser\'s');
  assert.equal(await p.wait('PPB_WebSocket;1.0:Close', ok, 1000, p.v(p.scratch + 80, 'x'.repeat(124)), p.cb), PP.ERROR_BADARGUMENT);
  p.b.vars.write(p.scratch + 80, { type: VAR.UNDEFINED, value: 0 });
  assert.equal(await p.wait('PPB_WebSocket;1.0:Close', ok, 1005, p.scratch + 80, p.cb), PP.OK, 'no code');
  p.b.shutdown();
});

test('our server side against ws\'s client: echo, close handshake, and a frame over the limit (1009)', async () => {
  const srv = http.createServer();
  srv.on('upgrade', (req, socket, head) => {
    const ws = acceptWebSocket(req, socket, head, { protocols: ['p1'], maxMessage: 1024 });
    if (!ws) return;
    ws.onmessage = (data) => ws.send(typeof data === 'string' ? `echo ${data}` : data);
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const base = `ws://127.0.0.1:${srv.address().port}/`;
  const c = new WebSocket(base, ['p0', 'p1']);
  await new Promise((resolve, reject) => {
    c.once('open', resolve);
    c.once('error', reject);
  });
  assert.equal(c.protocol, 'p1');
  const got = (n) =>
    new Promise((resolve) => {
      const all = [];
      c.on('message', function on(data, isBinary) {
        all.push(isBinary ? [...data] : data.toString());
        if (all.length === n) {
          c.off('message', on);
          resolve(all);
        }
      });
    });
  const two = got(2);
  c.send('hi');
  c.send(Buffer.from([9, 8, 7]));
  assert.deepEqual(await two, ['echo hi', [9, 8, 7]]);
  const closed = new Promise((resolve) => c.once('close', (code) => resolve(code)));
  c.send(Buffer.alloc(2000));
  assert.equal(await closed, 1009);
  // A client that offers none of the server's protocols is refused.
  const refused = new WebSocket(base, ['nope']);
  await new Promise((resolve) => refused.once('error', resolve));
  srv.close();
});
