// PPB_TCPSocket, PPB_UDPSocket and PPB_HostResolver against real sockets
// on 127.0.0.1: through the socket relay (internal/node/relay.mjs, the
// client in pepper/net/relay-client.js) and through Node's sockets
// directly (internal/node/net.js, `pexe run --net`). Echo servers, the
// relay and the "plugin" (a Browser over a fake process, as in
// pepper.test.mjs) all live in this process; names resolve through a
// fake resolver, so no query leaves the machine.

import assert from 'node:assert/strict';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { after, before, test } from 'node:test';
import { GuestMemory } from '../src/internal/runtime/memory.js';
import { PageAllocator } from '../src/internal/runtime/irt/memory.js';
import { Browser } from '../src/internal/pepper/browser.js';
import { MAIN_TID, PP, VAR } from '../src/internal/pepper/defs.js';
import { relayNetwork } from '../src/internal/pepper/net/relay-client.js';
import { ERR, HEADER, LIMITS, OP, SUBPROTOCOL, frame, parseHost, ppErrorOfSystem } from '../src/internal/pepper/net/protocol.js';
import { allowList, nodeNetwork } from '../src/internal/node/net.js';
import { startRelay } from '../src/internal/node/relay.mjs';
import { NodeWebSocket } from '../src/internal/node/websocket.js';

/** A background guest thread: its blocking calls answer with the result. */
const T = 5;

/** Names the fake resolver knows. */
const NAMES = { 'echo.test': ['127.0.0.1'], 'both.test': ['127.0.0.1', '::1'] };
async function fakeLookup(host) {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}
const ALLOW = ['127.0.0.1:*', 'echo.test', 'both.test', 'nowhere.test'];

let tcpEcho;
let udpEcho;
let relay;
const logs = [];

before(async () => {
  tcpEcho = net.createServer((s) => s.pipe(s));
  await new Promise((resolve) => tcpEcho.listen(0, '127.0.0.1', resolve));
  udpEcho = dgram.createSocket('udp4');
  udpEcho.on('message', (msg, r) => udpEcho.send(msg, r.port, r.address));
  await new Promise((resolve) => udpEcho.bind(0, '127.0.0.1', resolve));
  relay = await startRelay({ allow: ALLOW, lookup: fakeLookup, log: (t) => logs.push(t) });
});

after(async () => {
  await relay.close();
  tcpEcho.close();
  udpEcho.close();
});

/** A Browser over fresh memory whose network is `network`; `logged` collects the embedder's log. */
function plugin(network) {
  const memory = new WebAssembly.Memory({ initial: 512, maximum: 1024, shared: true });
  const mem = new GuestMemory(memory);
  const pages = new PageAllocator(mem, 0x10000);
  const scratch = pages.map(16 << 20);
  const logged = [];
  const main = [];
  const b = new Browser({
    proc: { mem, pages },
    embedder: { log: (level, source, text) => logged.push(text) },
    transport: { toMain: (item) => main.push(item) },
    network,
  });
  // Blocking callback (all zero) at +0, hint at +16, addresses from +64, out words at +128, buffers from +4096.
  const call = (key, ...args) => b.call(key, T, args);
  const wait = (key, ...args) => Promise.resolve(call(key, ...args));
  let nextAddr = scratch + 64;
  const ipv4 = (port, bytes = [127, 0, 0, 1]) => {
    const at = nextAddr;
    nextAddr += 8;
    mem.write(at, Uint8Array.of(port >> 8, port & 0xff, ...bytes));
    return call('PPB_NetAddress;1.0:CreateFromIPv4Address', 1, at);
  };
  const describe = (addr) => {
    call('PPB_NetAddress;1.0:DescribeAsString', scratch + 200, addr, 1);
    return b.vars.stringOf(b.vars.read(scratch + 200));
  };
  const text = (at, n) => new TextDecoder().decode(mem.read(at, n));
  const put = (at, s) => {
    const bytes = new TextEncoder().encode(s);
    mem.write(at, bytes);
    return bytes.length;
  };
  return { b, mem, scratch, call, wait, ipv4, describe, text, put, logged, main, cb: scratch, buf: scratch + 4096 };
}

const relayed = () => plugin(relayNetwork(relay.url, { WebSocket: NodeWebSocket, log: (t) => logs.push(t) }));
const port = (server) => server.address().port;

/** Connects a new TCP socket to `to`; resolves its resource. */
async function connected(p, to) {
  const s = p.call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, to, p.cb), PP.OK);
  return s;
}

async function echoesOverTcp(p) {
  const s = await connected(p, p.ipv4(port(tcpEcho)));
  assert.equal(p.describe(p.call('PPB_TCPSocket;1.0:GetRemoteAddress', s)), `127.0.0.1:${port(tcpEcho)}`);
  assert.match(p.describe(p.call('PPB_TCPSocket;1.0:GetLocalAddress', s)), /^127\.0\.0\.1:\d+$/);
  const n = p.put(p.buf, 'hello, relay');
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Write', s, p.buf, n, p.cb), n);
  let got = '';
  while (got.length < n) {
    const r = await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf + 1000, 64, p.cb);
    assert.ok(r > 0, `read ${r}`);
    got += p.text(p.buf + 1000, r);
  }
  assert.equal(got, 'hello, relay');
  p.call('PPB_TCPSocket;1.0:Close', s);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 4, p.cb), PP.ERROR_FAILED, 'closed');
  p.call('PPB_Core;1.0:ReleaseResource', s);
}

test('TCP through the relay: connect, write, read the echo, addresses, close', async () => {
  const p = relayed();
  await echoesOverTcp(p);
  // A megabyte in, a megabyte back: writes and reads of at most 1 MiB each.
  const s = await connected(p, p.ipv4(port(tcpEcho)));
  const big = new Uint8Array(3 << 20).map((_, i) => (i * 7) & 0xff);
  p.mem.write(p.buf, big);
  let sent = 0;
  let received = 0;
  const readAll = (async () => {
    while (received < big.length) {
      const r = await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf + (4 << 20) + received, big.length - received, p.cb);
      assert.ok(r > 0 && r <= LIMITS.maxTcpIo, `read ${r}`);
      received += r;
    }
  })();
  while (sent < big.length) {
    const w = await p.wait('PPB_TCPSocket;1.0:Write', s, p.buf + sent, big.length - sent, p.cb);
    assert.ok(w > 0 && w <= LIMITS.maxTcpIo, `wrote ${w}`);
    sent += w;
  }
  await readAll;
  assert.deepEqual(p.mem.read(p.buf + (4 << 20), big.length), big);
  p.b.shutdown();
});

test('TCP with Node\'s sockets directly (pexe run --net)', async () => {
  const p = plugin(nodeNetwork({ allow: allowList(['127.0.0.1:*']), lookup: fakeLookup }));
  await echoesOverTcp(p);
  p.b.shutdown();
});

test('TCP: a closed port is CONNECTION_REFUSED, and the socket is closed after it', async () => {
  const gone = net.createServer();
  await new Promise((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const closedPort = port(gone);
  await new Promise((resolve) => gone.close(resolve));
  for (const p of [relayed(), plugin(nodeNetwork({ allow: allowList(['*']) }))]) {
    const s = p.call('PPB_TCPSocket;1.0:Create', 1);
    assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(closedPort), p.cb), PP.ERROR_CONNECTION_REFUSED);
    assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(port(tcpEcho)), p.cb), PP.ERROR_FAILED, 'a failed connect closes the socket');
    p.b.shutdown();
  }
});

test('TCP: Chrome\'s checks before anything reaches the network', async () => {
  const p = relayed();
  const s = p.call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 10, p.cb), PP.ERROR_FAILED, 'not connected');
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Write', s, p.buf, 10, p.cb), PP.ERROR_FAILED);
  assert.equal(await p.wait('PPB_TCPSocket;1.1:Listen', s, 5, p.cb), PP.ERROR_FAILED, 'listen needs a bound socket');
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, 12345, p.cb), PP.ERROR_BADARGUMENT, 'not an address');
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', 999, p.ipv4(1), p.cb), PP.ERROR_BADRESOURCE);
  assert.equal(p.call('PPB_TCPSocket;1.0:GetLocalAddress', s), 0);
  // Two connects at once: the second is INPROGRESS.
  const first = p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(port(tcpEcho)), p.cb);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(port(tcpEcho)), p.cb), PP.ERROR_INPROGRESS);
  assert.equal(await first, PP.OK);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 0, p.cb), PP.ERROR_BADARGUMENT);
  // A read waits for data; a second read meanwhile is INPROGRESS; Close aborts the first.
  p.mem.write(p.buf, Uint8Array.of(0xee));
  const reading = p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 1, p.cb);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 1, p.cb), PP.ERROR_INPROGRESS);
  // SetOption: NO_DELAY takes a bool, the buffer sizes an int.
  const v = p.scratch + 300;
  p.b.vars.write(v, { type: VAR.INT32, value: 1 });
  assert.equal(await p.wait('PPB_TCPSocket;1.0:SetOption', s, 0, v, p.cb), PP.ERROR_BADARGUMENT);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:SetOption', s, 1, v, p.cb), PP.OK);
  p.b.vars.write(v, { type: VAR.BOOL, value: 1 });
  assert.equal(await p.wait('PPB_TCPSocket;1.0:SetOption', s, 0, v, p.cb), PP.OK);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:SetOption', s, 9, v, p.cb), PP.ERROR_BADARGUMENT);
  p.call('PPB_TCPSocket;1.0:Close', s);
  assert.equal(await reading, PP.ERROR_ABORTED);
  assert.equal(p.mem.getU8(p.buf), 0xee, 'an aborted read writes nothing');
  p.b.shutdown();
});

test('required callbacks on the main thread complete later with the result', async () => {
  const p = relayed();
  const s = p.call('PPB_TCPSocket;1.0:Create', 1);
  const cb = p.scratch + 32;
  p.mem.setU32(cb, 0x1234);
  p.mem.setU32(cb + 4, 77);
  p.mem.setI32(cb + 8, 0);
  assert.equal(p.b.call('PPB_TCPSocket;1.0:Connect', MAIN_TID, [s, p.ipv4(port(tcpEcho)), cb]), PP.OK_COMPLETIONPENDING);
  for (let i = 0; i < 200 && p.main.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(p.main[0], [1, 0x1234, 77, PP.OK]);
  // Blocking on the main thread is refused, as always.
  assert.equal(p.b.call('PPB_TCPSocket;1.0:Read', MAIN_TID, [s, p.buf, 4, p.cb]), PP.ERROR_BLOCKS_MAIN_THREAD);
  p.b.shutdown();
});

test('listen and accept: a server socket in the plugin, a client in Node', async () => {
  for (const p of [relayed(), plugin(nodeNetwork({ allow: allowList(['127.0.0.1']) }))]) {
    const server = p.call('PPB_TCPSocket;1.0:Create', 1);
    assert.equal(await p.wait('PPB_TCPSocket;1.1:Bind', server, p.ipv4(0), p.cb), PP.OK);
    const local = p.describe(p.call('PPB_TCPSocket;1.0:GetLocalAddress', server));
    const listenPort = Number(local.split(':')[1]);
    assert.ok(listenPort > 0, local);
    assert.equal(await p.wait('PPB_TCPSocket;1.1:Listen', server, 4, p.cb), PP.OK);
    const out = p.scratch + 128;
    const accepting = p.wait('PPB_TCPSocket;1.1:Accept', server, out, p.cb);
    const client = net.connect(listenPort, '127.0.0.1');
    client.write('from node');
    assert.equal(await accepting, PP.OK);
    const conn = p.mem.getU32(out);
    assert.equal(p.call('PPB_TCPSocket;1.0:IsTCPSocket', conn), 1);
    let got = '';
    while (got.length < 9) {
      const r = await p.wait('PPB_TCPSocket;1.0:Read', conn, p.buf, 64, p.cb);
      assert.ok(r > 0);
      got += p.text(p.buf, r);
    }
    assert.equal(got, 'from node');
    const back = new Promise((resolve) => client.once('data', (d) => resolve(String(d))));
    const n = p.put(p.buf, 'from the plugin');
    assert.equal(await p.wait('PPB_TCPSocket;1.0:Write', conn, p.buf, n, p.cb), n);
    assert.equal(await back, 'from the plugin');
    // The peer closes: the plugin reads 0, the end.
    client.end();
    assert.equal(await p.wait('PPB_TCPSocket;1.0:Read', conn, p.buf, 64, p.cb), 0);
    client.destroy();
    p.b.shutdown();
  }
});

test('UDP: bind, send to the echo, receive it with its sender; a short buffer is MESSAGE_TOO_BIG', async () => {
  for (const p of [relayed(), plugin(nodeNetwork({ allow: allowList(['127.0.0.1']) }))]) {
    const s = p.call('PPB_UDPSocket;1.0:Create', 1);
    const echo = p.ipv4(port(udpEcho));
    assert.equal(await p.wait('PPB_UDPSocket;1.0:SendTo', s, p.buf, 4, echo, p.cb), PP.ERROR_FAILED, 'not bound');
    assert.equal(await p.wait('PPB_UDPSocket;1.0:Bind', s, p.ipv4(0), p.cb), PP.OK);
    assert.match(p.describe(p.call('PPB_UDPSocket;1.0:GetBoundAddress', s)), /^127\.0\.0\.1:\d+$/);
    assert.equal(await p.wait('PPB_UDPSocket;1.0:Bind', s, p.ipv4(0), p.cb), PP.ERROR_FAILED, 'bound once');
    const n = p.put(p.buf, 'datagram!');
    assert.equal(await p.wait('PPB_UDPSocket;1.0:SendTo', s, p.buf, n, echo, p.cb), n);
    const from = p.scratch + 128;
    assert.equal(await p.wait('PPB_UDPSocket;1.0:RecvFrom', s, p.buf + 100, 4, from, p.cb), PP.ERROR_MESSAGE_TOO_BIG);
    assert.equal(await p.wait('PPB_UDPSocket;1.0:RecvFrom', s, p.buf + 100, 100, from, p.cb), n);
    assert.equal(p.text(p.buf + 100, n), 'datagram!');
    assert.equal(p.describe(p.mem.getU32(from)), `127.0.0.1:${port(udpEcho)}`);
    // Options: reuse only before Bind; TTL 0-255.
    const v = p.scratch + 300;
    p.b.vars.write(v, { type: VAR.BOOL, value: 1 });
    assert.equal(await p.wait('PPB_UDPSocket;1.0:SetOption', s, 0, v, p.cb), PP.ERROR_FAILED);
    assert.equal(await p.wait('PPB_UDPSocket;1.0:SetOption', s, 1, v, p.cb), PP.OK);
    p.b.vars.write(v, { type: VAR.INT32, value: 300 });
    assert.equal(await p.wait('PPB_UDPSocket;1.0:SetOption', s, 5, v, p.cb), PP.ERROR_BADARGUMENT);
    // A pending RecvFrom ends with Close.
    const waiting = p.wait('PPB_UDPSocket;1.0:RecvFrom', s, p.buf, 100, from, p.cb);
    p.call('PPB_UDPSocket;1.0:Close', s);
    assert.equal(await waiting, PP.ERROR_ABORTED);
    p.b.shutdown();
  }
});

test('host resolution: addresses and canonical name; unknown names, names off the list, bad arguments', async () => {
  const p = relayed();
  const r = p.call('PPB_HostResolver;1.0:Create', 1);
  const host = p.scratch + 400;
  const hint = p.scratch + 16;
  p.mem.setI32(hint, 0);
  p.mem.setI32(hint + 4, 1); // PP_HOSTRESOLVER_FLAG_CANONNAME
  p.mem.writeCBytes(host, new TextEncoder().encode('both.test'));
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, host, 8080, hint, p.cb), PP.OK);
  assert.equal(p.call('PPB_HostResolver;1.0:GetNetAddressCount', r), 2);
  assert.equal(p.describe(p.call('PPB_HostResolver;1.0:GetNetAddress', r, 0)), '127.0.0.1:8080');
  assert.equal(p.describe(p.call('PPB_HostResolver;1.0:GetNetAddress', r, 1)), '[::1]:8080');
  assert.equal(p.call('PPB_HostResolver;1.0:GetNetAddress', r, 2), 0);
  p.call('PPB_HostResolver;1.0:GetCanonicalName', p.scratch + 200, r);
  assert.equal(p.b.vars.stringOf(p.b.vars.read(p.scratch + 200)), 'both.test');
  // IPv4 only.
  p.mem.setI32(hint, 1);
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, host, 80, hint, p.cb), PP.OK);
  assert.equal(p.call('PPB_HostResolver;1.0:GetNetAddressCount', r), 1);
  // A name that resolves to nothing: NAME_NOT_RESOLVED, and no results.
  p.mem.writeCBytes(host, new TextEncoder().encode('nowhere.test'));
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, host, 80, hint, p.cb), PP.ERROR_NAME_NOT_RESOLVED);
  assert.equal(p.call('PPB_HostResolver;1.0:GetNetAddressCount', r), 0);
  p.call('PPB_HostResolver;1.0:GetCanonicalName', p.scratch + 200, r);
  assert.equal(p.b.vars.read(p.scratch + 200).type, VAR.UNDEFINED);
  // A name the relay's allow-list does not name: NOACCESS, and the log says why.
  p.mem.writeCBytes(host, new TextEncoder().encode('elsewhere.example'));
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, host, 80, hint, p.cb), PP.ERROR_NOACCESS);
  assert.ok(logs.some((l) => l.includes('elsewhere.example is not on the allow-list')), logs.join('\n'));
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, host, 80, 0, p.cb), PP.ERROR_BADARGUMENT, 'no hint');
  // The resolved address connects.
  p.mem.writeCBytes(host, new TextEncoder().encode('echo.test'));
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, host, port(tcpEcho), hint, p.cb), PP.OK);
  await connected(p, p.call('PPB_HostResolver;1.0:GetNetAddress', r, 0));
  p.b.shutdown();
});

test('the allow-list: addresses off it are NOACCESS; entries of every form parse', async () => {
  const p = relayed();
  const s = p.call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(port(tcpEcho), [127, 0, 0, 2]), p.cb), PP.ERROR_NOACCESS);
  p.b.shutdown();
  const list = allowList(['10.0.0.0/8:80-90', '[::1]:22', 'example.org:443']);
  const a = (host, port) => ({ ...parseHost(host), port });
  assert.equal(list.allowsAddress(a('10.1.2.3', 85)), true);
  assert.equal(list.allowsAddress(a('10.1.2.3', 91)), false);
  assert.equal(list.allowsAddress(a('11.1.2.3', 85)), false);
  assert.equal(list.allowsAddress(a('::1', 22)), true);
  assert.equal(list.allowsAddress(a('::1', 0)), true, 'binding any port asks for the host only');
  assert.equal(list.allowsName('example.org'), true);
  assert.equal(list.allowsName('example.com'), false);
  assert.equal(list.allowsAddress(a('93.184.216.34', 443), new Map([['example.org', [a('93.184.216.34', 0)]]])), true);
  assert.throws(() => allowList(['1.2.3.4:99999']), /bad port/);
  assert.throws(() => allowList(['bad host!']), /not an address/);
});

test('without a network every operation is NOACCESS, through the callback as Chrome did', async () => {
  const p = plugin(null);
  const s = p.call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(80), p.cb), PP.ERROR_NOACCESS);
  const u = p.call('PPB_UDPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_UDPSocket;1.0:Bind', u, p.ipv4(0), p.cb), PP.ERROR_NOACCESS);
  const r = p.call('PPB_HostResolver;1.0:Create', 1);
  p.mem.writeCBytes(p.scratch + 400, new TextEncoder().encode('echo.test'));
  assert.equal(await p.wait('PPB_HostResolver;1.0:Resolve', r, p.scratch + 400, 80, p.scratch + 16, p.cb), PP.ERROR_NOACCESS);
});

test('error mapping: system errors become Chrome\'s PP_Errors', () => {
  assert.equal(ppErrorOfSystem('ECONNREFUSED'), ERR.CONNECTION_REFUSED);
  assert.equal(ppErrorOfSystem('ETIMEDOUT'), ERR.TIMEDOUT);
  assert.equal(ppErrorOfSystem('EHOSTUNREACH'), ERR.ADDRESS_UNREACHABLE);
  assert.equal(ppErrorOfSystem('ENETUNREACH'), ERR.ADDRESS_UNREACHABLE);
  assert.equal(ppErrorOfSystem('EADDRINUSE'), ERR.ADDRESS_IN_USE);
  assert.equal(ppErrorOfSystem('ENOTFOUND'), ERR.NAME_NOT_RESOLVED);
  assert.equal(ppErrorOfSystem('ECONNRESET'), ERR.CONNECTION_RESET);
  assert.equal(ppErrorOfSystem('EWHATEVER'), ERR.FAILED);
});

// ------------------------------------------------------------------ hostile

/** A raw WebSocket to the relay, speaking frames by hand. */
async function rawSession(url = relay.url) {
  const ws = new NodeWebSocket(url, [SUBPROTOCOL], { maxMessage: 8 << 20 });
  const frames = [];
  let wake = null;
  ws.onmessage = (e) => {
    frames.push(new Uint8Array(e.data));
    wake?.();
  };
  const closed = new Promise((resolve) => (ws.onclose = (e) => resolve(e)));
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const next = async () => {
    while (frames.length === 0) await new Promise((r) => (wake = r));
    return frames.shift();
  };
  assert.equal((await next())[0], OP.HELLO);
  return { ws, next, closed };
}

test('hostile client: an oversized frame ends that session (1009), the relay serves the others', async () => {
  const { ws, closed } = await rawSession();
  ws.send(new Uint8Array(LIMITS.maxFrame + 1));
  const e = await closed;
  assert.equal(e.code, 1009);
  // Another plugin still gets through.
  const p = relayed();
  await echoesOverTcp(p);
  p.b.shutdown();
});

test('hostile client: garbage frames close the session; text is refused', async () => {
  const a = await rawSession();
  a.ws.send(new Uint8Array(3));
  assert.equal((await a.closed).code, 1002);
  const b = await rawSession();
  b.ws.send('hello');
  assert.equal((await b.closed).code, 1002);
  const c = await rawSession();
  const f = frame(0x33, 1, 0, 0);
  c.ws.send(f.bytes);
  assert.equal((await c.closed).code, 1002, 'unknown op');
  // Every session has ended (closing handshakes take a moment).
  for (let i = 0; i < 100 && relay.sessions.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(relay.sessions.size, 0);
});

test('hostile client: too many sockets is a clear error, and the relay holds no more than its limit', async () => {
  const { ws, next } = await rawSession();
  let refused = null;
  for (let i = 1; i <= LIMITS.maxSockets + 1; i++) {
    const f = frame(OP.OPEN, i, i, 1);
    f.view.setUint8(HEADER, 1);
    ws.send(f.bytes);
    const r = await next();
    const result = new DataView(r.buffer).getInt32(HEADER, true);
    if (result !== 0) {
      refused = { i, result, why: new TextDecoder().decode(r.subarray(HEADER + 4)) };
      break;
    }
  }
  assert.deepEqual(refused?.i, LIMITS.maxSockets + 1);
  assert.equal(refused.result, ERR.FAILED);
  assert.match(refused.why, /too many sockets/);
  // A read asking for more than the limit is clamped; reads on no socket are BADRESOURCE.
  const f = frame(OP.READ, 999, 4242, 4);
  f.view.setUint32(HEADER, 0xffffffff, true);
  ws.send(f.bytes);
  const r = await next();
  assert.equal(new DataView(r.buffer).getInt32(HEADER, true), ERR.BADRESOURCE);
  ws.close();
});

test('too many sockets through PPB: Connect fails with FAILED and the log names the limit', async () => {
  const p = relayed();
  const results = [];
  for (let i = 0; i <= LIMITS.maxSockets; i++) {
    const s = p.call('PPB_TCPSocket;1.0:Create', 1);
    results.push(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(port(tcpEcho)), p.cb));
  }
  assert.equal(results.filter((r) => r === PP.OK).length, LIMITS.maxSockets);
  assert.equal(results.at(-1), PP.ERROR_FAILED);
  assert.ok(logs.some((l) => /too many sockets \(the relay's limit is 64\)/.test(l)));
  p.b.shutdown();
});

test('the relay dies in the middle of a read: the read ends with CONNECTION_ABORTED, the plugin carries on', async () => {
  const own = await startRelay({ allow: ['127.0.0.1:*'] });
  const logged = [];
  const p = plugin(relayNetwork(own.url, { WebSocket: NodeWebSocket, log: (t) => logged.push(t) }));
  const s = await connected(p, p.ipv4(port(tcpEcho)));
  const reading = p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 10, p.cb);
  await own.close();
  assert.equal(await reading, PP.ERROR_CONNECTION_ABORTED);
  assert.ok(logged.some((l) => l.includes('connection lost')), logged.join('\n'));
  // Later calls on that socket fail the same way; a new socket finds no relay.
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Write', s, p.buf, 1, p.cb), PP.ERROR_CONNECTION_ABORTED);
  const again = p.call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', again, p.ipv4(port(tcpEcho)), p.cb), PP.ERROR_FAILED);
  assert.ok(logged.some((l) => l.includes('cannot connect')), logged.join('\n'));
  // The browser side is fine: vars still work.
  p.call('PPB_Var;1.1:VarFromUtf8', p.scratch + 200, p.buf, p.put(p.buf, 'alive'));
  assert.equal(p.b.vars.stringOf(p.b.vars.read(p.scratch + 200)), 'alive');
  p.b.shutdown();
});

test('hostile relay: a reply with more bytes than asked drops the connection, not the plugin', async () => {
  const http = await import('node:http');
  const { acceptWebSocket } = await import('../src/internal/node/websocket.js');
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => {
    const ws = acceptWebSocket(req, socket, head, { protocols: [SUBPROTOCOL] });
    const hello = frame(OP.HELLO, 0, 0, 16);
    hello.view.setUint16(HEADER, 1, true);
    hello.view.setUint32(HEADER + 4, LIMITS.maxFrame, true);
    ws.send(hello.bytes);
    ws.onmessage = (data) => {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const op = view.getUint8(0);
      const req = view.getUint32(4, true);
      const sock = view.getUint32(8, true);
      const answer = (result, extra = 0) => {
        const f = frame(op | 0x80, req, sock, 4 + extra);
        f.view.setInt32(HEADER, result, true);
        ws.send(f.bytes);
      };
      if (op === OP.OPEN) answer(0);
      else if (op === OP.CONNECT) {
        // Two IPv4 addresses (family 1, port 0, 127.0.0.1).
        const f = frame(op | 0x80, req, sock, 44);
        for (const at of [HEADER + 4, HEADER + 24]) {
          f.view.setUint8(at, 1);
          f.bytes.set([127, 0, 0, 1], at + 4);
        }
        ws.send(f.bytes);
      } else if (op === OP.READ) answer(100, 100); // asked for 10
    };
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const logged = [];
  const p = plugin(relayNetwork(`ws://127.0.0.1:${server.address().port}/`, { WebSocket: NodeWebSocket, log: (t) => logged.push(t) }));
  const s = p.call('PPB_TCPSocket;1.0:Create', 1);
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Connect', s, p.ipv4(1), p.cb), PP.OK);
  p.mem.write(p.buf, new Uint8Array(16).fill(0xee));
  assert.equal(await p.wait('PPB_TCPSocket;1.0:Read', s, p.buf, 10, p.cb), PP.ERROR_CONNECTION_ABORTED);
  assert.deepEqual(p.mem.read(p.buf, 16), new Uint8Array(16).fill(0xee), 'nothing of it reached plugin memory');
  assert.ok(logged.some((l) => l.includes('bad reply: wrong read size')), logged.join('\n'));
  p.b.shutdown();
  server.close();
  server.closeAllConnections?.();
});
