#!/usr/bin/env node
// The socket relay: gives Pepper plugins in pages TCP, UDP and name
// resolution, which a page cannot have, through a WebSocket to this
// process (docs/relay.md: the protocol; pepper/net/relay-client.js: the
// other end).
//
//   node relay.mjs --allow PATTERN... [--port N] [--host ADDR] [--origin ORIGIN]...
//   pexe relay --allow 127.0.0.1:7          (the Rust CLI; npx pexe relay likewise)
//
// It prints `pexe relay: listening on ws://127.0.0.1:8787/ (allow: …)` and
// serves until SIGINT/SIGTERM; --port 0 takes any free port.
//
// It listens on 127.0.0.1 unless told otherwise, and reaches only what
// the allow-list names (net.js allowList: `*`, `HOST[:PORTS]`, HOST an
// address, `[v6]`, a CIDR or a name): anything else is PP_ERROR_NOACCESS.
// With --origin, only pages of those origins may use it (the browser
// sends its page's origin with the WebSocket handshake). Each WebSocket is
// one plugin's session: its sockets close with it. Every cap is in
// pepper/net/protocol.js LIMITS.

import * as http from 'node:http';
import { pathToFileURL } from 'node:url';
import { writeSync } from 'node:fs';
import { ERR, HEADER, KIND, LIMITS, OP, NetError, SUBPROTOCOL, VERSION, ADDR_SIZE, frame, parseFrame, readAddr, reply, writeAddr } from '../pepper/net/protocol.js';
import { allowList, nodeNetwork } from './net.js';
import { acceptWebSocket, CLOSE } from './websocket.js';

const USAGE = 'usage: pexe relay --allow PATTERN [--allow PATTERN]... [--port N] [--host ADDR] [--origin ORIGIN]...';

/** The port `pexe relay` listens on unless told (0: any free port). */
export const DEFAULT_PORT = 8787;

/** The longest error text a reply carries. */
const MAX_REASON = 200;

/**
 * Starts a relay. `allow`: allow-list entries (required, may be empty:
 * then nothing is reachable); `origins`: page origins allowed to connect
 * (default: any); `lookup`, `limits`: for nodeNetwork; `log(text)`.
 * Resolves `{ url, port, sessions, close() }` once it listens.
 */
export async function startRelay({ port = 0, host = '127.0.0.1', allow, origins = null, lookup, limits = LIMITS, log = () => {} } = {}) {
  if (!Array.isArray(allow)) throw new TypeError('startRelay needs an allow-list (an array of entries)');
  const policy = allowList(allow);
  const sessions = new Set();
  const server = http.createServer((req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end(`pexe socket relay: connect with a WebSocket, subprotocol ${SUBPROTOCOL}\n`);
  });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {});
    if (sessions.size >= limits.maxSessions) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      log(`refused a session: ${limits.maxSessions} are open`);
      return;
    }
    const ws = acceptWebSocket(req, socket, head, {
      protocols: [SUBPROTOCOL],
      maxMessage: limits.maxFrame,
      allowOrigin: (origin) => origins === null || (origin !== null && origins.includes(origin)),
    });
    if (!ws) {
      log(`refused a WebSocket from ${req.headers.origin ?? 'no origin'}`);
      return;
    }
    const session = serve(ws, nodeNetwork({ allow: policy, lookup, limits }), limits, log);
    sessions.add(session);
    session.closed.then(() => sessions.delete(session));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, resolve);
  });
  const bound = server.address();
  const hostText = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `ws://${hostText}:${bound.port}/`,
    port: bound.port,
    sessions,
    allow: policy.describe,
    close() {
      for (const s of sessions) s.end();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serves one WebSocket: frames in, replies out, sockets in `network`. */
function serve(ws, network, limits, log) {
  /** sock number → { kind, handle, busy: Set of ops under way } */
  const sockets = new Map();
  let resolves = 0;
  let ended = false;
  let settle;
  const closed = new Promise((resolve) => (settle = resolve));

  const send = (f) => {
    if (!ended) ws.send(f.bytes);
  };
  const failReply = (op, req, sock, e) => {
    const code = e instanceof NetError ? e.code : ERR.FAILED;
    if (!(e instanceof NetError)) log(`relay bug: ${e?.stack ?? e}`);
    const text = new TextEncoder().encode(String(e?.message ?? '').slice(0, MAX_REASON));
    const f = reply(op, req, sock, code, text.length);
    f.bytes.set(text, HEADER + 4);
    send(f);
  };
  /** Ends the session: a protocol violation closes it (`code`, `why`). */
  const end = (code = CLOSE.NORMAL, why = '') => {
    if (ended) return;
    if (why) log(`closing a session: ${why}`);
    ended = true;
    network.close();
    sockets.clear();
    ws.close(code, why.slice(0, 120));
    settle();
  };
  ws.onclose = () => {
    if (!ended) {
      ended = true;
      network.close();
      sockets.clear();
      settle();
    }
  };

  /** Runs `work` for a request, one at a time per `lane` of the socket, and replies. */
  const run = (f, s, lane, work) => {
    if (s && lane) {
      if (s.busy.has(lane)) {
        failReply(f.op, f.req, f.sock, new NetError(ERR.INPROGRESS));
        return;
      }
      s.busy.add(lane);
    }
    Promise.resolve()
      .then(work)
      .then(
        (out) => send(out),
        (e) => failReply(f.op, f.req, f.sock, e),
      )
      .finally(() => s?.busy.delete(lane));
  };

  const addrReply = (f, ...addrs) => {
    const r = reply(f.op, f.req, f.sock, ERR.OK, ADDR_SIZE * addrs.length);
    addrs.forEach((a, i) => writeAddr(r.view, HEADER + 4 + ADDR_SIZE * i, a));
    return r;
  };
  const okReply = (f, result = ERR.OK) => reply(f.op, f.req, f.sock, result);
  const need = (f, n) => {
    if (f.size < HEADER + n) throw new Error(`op ${f.op}: frame too short`);
  };
  const addrAt = (f, at) => {
    const a = readAddr(f.view, at);
    if (!a) throw new NetError(ERR.ADDRESS_INVALID, 'not an IPv4 or IPv6 address');
    return a;
  };

  const handle = (f) => {
    const s = f.sock ? sockets.get(f.sock) : null;
    const wants = (kind) => {
      if (!s) throw new NetError(ERR.BADRESOURCE, `no socket ${f.sock}`);
      if (s.kind !== kind) throw new NetError(ERR.BADRESOURCE, `socket ${f.sock} is not ${kind === KIND.TCP ? 'TCP' : 'UDP'}`);
      return s.handle;
    };
    switch (f.op) {
      case OP.RESOLVE: {
        need(f, 4);
        const port = f.view.getUint16(HEADER, true);
        const family = f.view.getUint8(HEADER + 2);
        const flags = f.view.getUint8(HEADER + 3);
        const hostBytes = f.bytes.subarray(HEADER + 4);
        if (hostBytes.length > limits.maxHost) throw new NetError(ERR.BADARGUMENT, 'host name too long');
        if (resolves >= limits.maxResolves) throw new NetError(ERR.INPROGRESS, `${limits.maxResolves} resolutions are under way`);
        resolves++;
        const host = new TextDecoder().decode(hostBytes);
        run(f, null, null, async () => {
          try {
            const { name, addrs } = await network.resolve(host, port, { family, canonical: (flags & 1) !== 0 });
            const nameBytes = new TextEncoder().encode(name).subarray(0, limits.maxHost);
            const r = reply(f.op, f.req, 0, ERR.OK, 2 + nameBytes.length + 2 + ADDR_SIZE * addrs.length);
            let at = HEADER + 4;
            r.view.setUint16(at, nameBytes.length, true);
            r.bytes.set(nameBytes, at + 2);
            at += 2 + nameBytes.length;
            r.view.setUint16(at, addrs.length, true);
            addrs.forEach((a, i) => writeAddr(r.view, at + 2 + ADDR_SIZE * i, a));
            return r;
          } finally {
            resolves--;
          }
        });
        return;
      }
      case OP.OPEN: {
        need(f, 1);
        const kind = f.view.getUint8(HEADER);
        if (f.sock === 0 || sockets.has(f.sock)) throw new NetError(ERR.BADARGUMENT, `socket number ${f.sock} is in use`);
        if (kind !== KIND.TCP && kind !== KIND.UDP) throw new NetError(ERR.BADARGUMENT, 'unknown socket kind');
        if (sockets.size >= limits.maxSockets) throw new NetError(ERR.FAILED, `too many sockets (the relay's limit is ${limits.maxSockets})`);
        sockets.set(f.sock, { kind, handle: kind === KIND.TCP ? network.tcp() : network.udp(), busy: new Set() });
        send(okReply(f));
        return;
      }
      case OP.CLOSE: {
        if (s) {
          s.handle.close();
          sockets.delete(f.sock);
        }
        if (f.req) send(okReply(f));
        return;
      }
      case OP.CONNECT: {
        need(f, ADDR_SIZE);
        const h = wants(KIND.TCP);
        const addr = addrAt(f, HEADER);
        run(f, s, 'state', async () => {
          const { local, remote } = await h.connect(addr);
          return addrReply(f, local, remote);
        });
        return;
      }
      case OP.BIND: {
        need(f, ADDR_SIZE);
        if (!s) throw new NetError(ERR.BADRESOURCE, `no socket ${f.sock}`);
        const addr = addrAt(f, HEADER);
        run(f, s, 'state', async () => addrReply(f, (await s.handle.bind(addr)).local));
        return;
      }
      case OP.LISTEN: {
        need(f, 4);
        const h = wants(KIND.TCP);
        const backlog = f.view.getInt32(HEADER, true);
        run(f, s, 'state', async () => {
          await h.listen(backlog);
          return okReply(f);
        });
        return;
      }
      case OP.ACCEPT: {
        need(f, 4);
        const h = wants(KIND.TCP);
        const id = f.view.getUint32(HEADER, true);
        if (id === 0 || sockets.has(id)) throw new NetError(ERR.BADARGUMENT, `socket number ${id} is in use`);
        run(f, s, 'accept', async () => {
          const got = await h.accept();
          if (ended || sockets.has(id) || sockets.size >= limits.maxSockets) {
            got.socket.close();
            throw new NetError(ERR.FAILED, `too many sockets (the relay's limit is ${limits.maxSockets})`);
          }
          sockets.set(id, { kind: KIND.TCP, handle: got.socket, busy: new Set() });
          return addrReply(f, got.local, got.remote);
        });
        return;
      }
      case OP.READ: {
        need(f, 4);
        const h = wants(KIND.TCP);
        const max = Math.min(f.view.getUint32(HEADER, true), limits.maxTcpIo);
        if (max === 0) throw new NetError(ERR.BADARGUMENT, 'a read of 0 bytes');
        run(f, s, 'read', async () => {
          const bytes = await h.read(max);
          const r = reply(f.op, f.req, f.sock, bytes.length, bytes.length);
          r.bytes.set(bytes, HEADER + 4);
          return r;
        });
        return;
      }
      case OP.WRITE: {
        const h = wants(KIND.TCP);
        const bytes = f.bytes.slice(HEADER);
        if (bytes.length === 0 || bytes.length > limits.maxTcpIo) throw new NetError(ERR.BADARGUMENT, 'bad write size');
        run(f, s, 'write', async () => okReply(f, await h.write(bytes)));
        return;
      }
      case OP.SET_OPTION: {
        need(f, 8);
        if (!s) throw new NetError(ERR.BADRESOURCE, `no socket ${f.sock}`);
        const name = f.view.getUint8(HEADER);
        const value = f.view.getInt32(HEADER + 4, true);
        run(f, s, null, async () => {
          await s.handle.setOption(name, value);
          return okReply(f);
        });
        return;
      }
      case OP.SEND_TO: {
        need(f, ADDR_SIZE);
        const h = wants(KIND.UDP);
        const addr = addrAt(f, HEADER);
        const bytes = f.bytes.slice(HEADER + ADDR_SIZE);
        if (bytes.length === 0 || bytes.length > limits.maxDatagram) throw new NetError(ERR.BADARGUMENT, 'bad datagram size');
        run(f, s, null, async () => okReply(f, await h.sendTo(bytes, addr)));
        return;
      }
      case OP.RECV_FROM: {
        need(f, 4);
        const h = wants(KIND.UDP);
        const max = Math.min(f.view.getUint32(HEADER, true), limits.maxDatagram);
        if (max === 0) throw new NetError(ERR.BADARGUMENT, 'a read of 0 bytes');
        run(f, s, 'read', async () => {
          const { bytes, addr } = await h.recvFrom(max);
          const r = reply(f.op, f.req, f.sock, bytes.length, ADDR_SIZE + bytes.length);
          writeAddr(r.view, HEADER + 4, addr);
          r.bytes.set(bytes, HEADER + 4 + ADDR_SIZE);
          return r;
        });
        return;
      }
      case OP.JOIN:
      case OP.LEAVE: {
        need(f, ADDR_SIZE);
        const h = wants(KIND.UDP);
        const addr = addrAt(f, HEADER);
        run(f, s, null, async () => {
          await (f.op === OP.JOIN ? h.join(addr) : h.leave(addr));
          return okReply(f);
        });
        return;
      }
      default:
        throw new Error(`unknown op ${f.op}`);
    }
  };

  ws.onmessage = (data) => {
    if (ended) return;
    if (typeof data === 'string') {
      end(CLOSE.PROTOCOL, 'text message (the protocol is binary)');
      return;
    }
    const f = parseFrame(data);
    if (!f) {
      end(CLOSE.PROTOCOL, 'frame shorter than its header');
      return;
    }
    try {
      handle(f);
    } catch (e) {
      if (e instanceof NetError) failReply(f.op, f.req, f.sock, e);
      else end(CLOSE.PROTOCOL, e.message);
    }
  };

  // The relay speaks first: its version and limits.
  const hello = frame(OP.HELLO, 0, 0, 16);
  hello.view.setUint16(HEADER, VERSION, true);
  hello.view.setUint32(HEADER + 4, limits.maxFrame, true);
  hello.view.setUint32(HEADER + 8, limits.maxSockets, true);
  hello.view.setUint32(HEADER + 12, limits.maxTcpIo, true);
  send(hello);
  return { closed, end: () => end(CLOSE.GOING_AWAY, 'the relay is stopping') };
}

/** The command line: `relay.mjs --allow … [--port N] [--host H] [--origin O]…`. */
export async function main(argv) {
  const allow = [];
  const origins = [];
  let port = DEFAULT_PORT;
  let host = '127.0.0.1';
  const die = (text) => {
    writeSync(2, `pexe relay: ${text}\n${USAGE}\n`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : die(`${a} needs a value`));
    if (a === '--allow') allow.push(value());
    else if (a === '--origin') origins.push(value());
    else if (a === '--port') {
      port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) die('--port takes a port number');
    } else if (a === '--host') host = value();
    else if (a === '--help' || a === '-h') {
      writeSync(1, `${USAGE}\n`);
      process.exit(0);
    } else die(`unknown argument ${a}`);
  }
  if (allow.length === 0) die("say what plugins may reach with --allow (e.g. --allow 127.0.0.1:7, or --allow '*' for everything)");
  try {
    allowList(allow);
  } catch (e) {
    die(e.message);
  }
  let relay;
  try {
    relay = await startRelay({ port, host, allow, origins: origins.length ? origins : null, log: (t) => writeSync(2, `pexe relay: ${t}\n`) });
  } catch (e) {
    writeSync(2, `pexe relay: cannot listen on ${host}:${port}: ${e.message}\n`);
    process.exit(1);
  }
  writeSync(1, `pexe relay: listening on ${relay.url} (allow: ${relay.allow}${origins.length ? `; origins: ${origins.join(', ')}` : ''})\n`);
  const stop = () => relay.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
