// WebSocket (RFC 6455) for Node, both ends, without dependencies:
//
// - `acceptWebSocket(req, socket, head, options)`: the server side of an
//   HTTP upgrade (node:http's 'upgrade' event); the socket relay
//   (relay.mjs) serves its clients with it.
// - `NodeWebSocket`: a client with the browser's `WebSocket` API (the
//   subset PPB_WebSocket and the relay client use: binaryType
//   'arraybuffer', send, close, bufferedAmount, protocol, extensions,
//   onopen/onmessage/onerror/onclose and addEventListener). Node 22 has a
//   global WebSocket; Node 20, which the package supports, has none, so
//   `pexe run` gives plugins this one.
//
// Both ends share one frame reader (`FrameReader`): fragments are
// reassembled up to `maxMessage` bytes (beyond it the connection closes
// with 1009 before the payload is read in), control frames are at most
// 125 bytes and never fragmented, a text message must be valid UTF-8
// (1007), a server needs masked frames and a client unmasked ones (1002).
// No extensions are offered or accepted.

import { createHash, randomBytes } from 'node:crypto';
import * as net from 'node:net';
import * as tls from 'node:tls';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = Object.freeze({ CONTINUATION: 0, TEXT: 1, BINARY: 2, CLOSE: 8, PING: 9, PONG: 10 });

/** Close codes this file sends. */
export const CLOSE = Object.freeze({
  NORMAL: 1000,
  GOING_AWAY: 1001,
  PROTOCOL: 1002,
  NO_STATUS: 1005,
  ABNORMAL: 1006,
  INVALID_DATA: 1007,
  TOO_BIG: 1009,
});

/** The default largest message (bytes) either end takes in. */
export const DEFAULT_MAX_MESSAGE = 64 << 20;
/** The largest HTTP handshake response a client reads. */
const MAX_HANDSHAKE = 16 << 10;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Sec-WebSocket-Accept for a key. */
export function acceptKey(key) {
  return createHash('sha1').update(key + GUID).digest('base64');
}

/** One frame's bytes: `mask` true for client → server frames. */
function encodeFrame(opcode, payload, mask) {
  const n = payload.length;
  const lenBytes = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + lenBytes + (mask ? 4 : 0));
  head[0] = 0x80 | opcode;
  head[1] = (mask ? 0x80 : 0) | (n < 126 ? n : n < 65536 ? 126 : 127);
  if (lenBytes === 2) head.writeUInt16BE(n, 2);
  else if (lenBytes === 8) head.writeBigUInt64BE(BigInt(n), 2);
  if (!mask) return [head, payload];
  const key = randomBytes(4);
  key.copy(head, 2 + lenBytes);
  const masked = Buffer.alloc(n);
  for (let i = 0; i < n; i++) masked[i] = payload[i] ^ key[i & 3];
  return [head, masked];
}

/**
 * Reads frames from a byte stream and reports whole messages:
 * `onMessage(isText, Buffer)`, `onControl(opcode, Buffer)`, and
 * `onError(code, reason)` once, after which it reads nothing more.
 */
class FrameReader {
  constructor({ expectMasked, maxMessage, onMessage, onControl, onError }) {
    this.expectMasked = expectMasked;
    this.maxMessage = maxMessage;
    this.onMessage = onMessage;
    this.onControl = onControl;
    this.onError = onError;
    this.chunks = [];
    this.buffered = 0;
    /** The message being reassembled: { text, parts, size } or null. */
    this.message = null;
    this.failed = false;
  }

  fail(code, reason) {
    if (this.failed) return;
    this.failed = true;
    this.chunks = [];
    this.message = null;
    this.onError(code, reason);
  }

  push(chunk) {
    if (this.failed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.failed && this.parseOne());
  }

  /** Bytes [0, n) of what is buffered, without consuming them. */
  peek(n) {
    if (this.chunks[0].length >= n) return this.chunks[0];
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    return all;
  }

  take(n) {
    const all = this.peek(n);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered -= n;
    return out;
  }

  parseOne() {
    if (this.buffered < 2) return false;
    const h = this.peek(2);
    const fin = (h[0] & 0x80) !== 0;
    const rsv = h[0] & 0x70;
    const opcode = h[0] & 0x0f;
    const masked = (h[1] & 0x80) !== 0;
    let len = h[1] & 0x7f;
    if (rsv) return this.fail(CLOSE.PROTOCOL, 'reserved bits set'), false;
    if (masked !== this.expectMasked) return this.fail(CLOSE.PROTOCOL, masked ? 'masked frame from the server' : 'unmasked frame from the client'), false;
    const control = opcode >= 8;
    if (control && (!fin || len > 125)) return this.fail(CLOSE.PROTOCOL, 'bad control frame'), false;
    if (![OP.CONTINUATION, OP.TEXT, OP.BINARY, OP.CLOSE, OP.PING, OP.PONG].includes(opcode)) {
      return this.fail(CLOSE.PROTOCOL, `unknown opcode ${opcode}`), false;
    }
    let at = 2;
    if (len === 126) {
      if (this.buffered < 4) return false;
      len = this.peek(4).readUInt16BE(2);
      at = 4;
    } else if (len === 127) {
      if (this.buffered < 10) return false;
      const big = this.peek(10).readBigUInt64BE(2);
      // Checked before anything of that size is read or allocated.
      if (big > BigInt(this.maxMessage)) return this.fail(CLOSE.TOO_BIG, 'message too big'), false;
      len = Number(big);
      at = 10;
    }
    if (!control) {
      const so_far = this.message ? this.message.size : 0;
      if (so_far + len > this.maxMessage) return this.fail(CLOSE.TOO_BIG, 'message too big'), false;
      if (opcode === OP.CONTINUATION && !this.message) return this.fail(CLOSE.PROTOCOL, 'continuation without a message'), false;
      if (opcode !== OP.CONTINUATION && this.message) return this.fail(CLOSE.PROTOCOL, 'new message inside a fragmented one'), false;
    }
    const need = at + (masked ? 4 : 0) + len;
    if (this.buffered < need) return false;
    const frame = this.take(need);
    let payload = frame.subarray(at + (masked ? 4 : 0));
    if (masked) {
      const key = frame.subarray(at, at + 4);
      const out = Buffer.allocUnsafe(len);
      for (let i = 0; i < len; i++) out[i] = payload[i] ^ key[i & 3];
      payload = out;
    } else {
      payload = Buffer.from(payload);
    }
    if (control) {
      this.onControl(opcode, payload);
      return true;
    }
    if (opcode !== OP.CONTINUATION) this.message = { text: opcode === OP.TEXT, parts: [], size: 0 };
    this.message.parts.push(payload);
    this.message.size += len;
    if (fin) {
      const { text, parts } = this.message;
      this.message = null;
      const data = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      if (text) {
        let s;
        try {
          s = strictUtf8.decode(data);
        } catch {
          this.fail(CLOSE.INVALID_DATA, 'text message is not UTF-8');
          return false;
        }
        this.onMessage(true, s);
      } else {
        this.onMessage(false, data);
      }
    }
    return true;
  }
}

/** A close frame's payload → { code, reason } (1005 when it has none). */
function parseClose(payload) {
  if (payload.length < 2) return { code: CLOSE.NO_STATUS, reason: '' };
  let reason = '';
  try {
    reason = strictUtf8.decode(payload.subarray(2));
  } catch {
    return { code: CLOSE.PROTOCOL, reason: '' };
  }
  return { code: payload.readUInt16BE(0), reason };
}

function closePayload(code, reason) {
  if (code === undefined || code === CLOSE.NO_STATUS) return Buffer.alloc(0);
  const r = Buffer.from(reason ?? '', 'utf8');
  const out = Buffer.alloc(2 + r.length);
  out.writeUInt16BE(code, 0);
  r.copy(out, 2);
  return out;
}

/**
 * One open connection over `socket`, either end. Calls `events.message(
 * data)` (a string, or a Buffer), `events.close(code, reason, wasClean)`
 * once.
 */
class Connection {
  constructor(socket, { client, maxMessage, events }) {
    this.socket = socket;
    this.client = client;
    this.events = events;
    this.closeSent = false;
    this.closed = false;
    this.remoteClose = null;
    this.reader = new FrameReader({
      expectMasked: !client,
      maxMessage,
      onMessage: (text, data) => {
        if (!this.closed) events.message(data);
      },
      onControl: (opcode, payload) => this.control(opcode, payload),
      onError: (code, reason) => {
        // Failing the connection (RFC 6455 §7.1.7): the peer learns why
        // (the close frame is flushed before the TCP connection ends),
        // this end reports an abnormal closure.
        this.sendClose(code, reason);
        this.socket.end();
        this.finish(CLOSE.ABNORMAL, reason, false, false);
      },
    });
    socket.setNoDelay?.(true);
    socket.on('data', (chunk) => this.reader.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.remoteClose && this.closeSent) this.finish(this.remoteClose.code, this.remoteClose.reason, true);
      else this.finish(CLOSE.ABNORMAL, '', false);
    });
  }

  get bufferedAmount() {
    return this.socket.writableLength ?? 0;
  }

  write(opcode, payload) {
    if (this.socket.destroyed || !this.socket.writable) return;
    const [head, body] = encodeFrame(opcode, payload, this.client);
    this.socket.cork();
    this.socket.write(head);
    if (body.length) this.socket.write(body);
    this.socket.uncork();
  }

  send(data) {
    if (this.closeSent) return;
    if (typeof data === 'string') this.write(OP.TEXT, Buffer.from(data, 'utf8'));
    else this.write(OP.BINARY, Buffer.from(data.buffer ?? data, data.byteOffset ?? 0, data.byteLength));
  }

  control(opcode, payload) {
    if (opcode === OP.PING) {
      if (!this.closeSent) this.write(OP.PONG, payload);
    } else if (opcode === OP.CLOSE) {
      this.remoteClose = parseClose(payload);
      if (!this.closeSent) {
        const { code, reason } = this.remoteClose;
        this.sendClose(code === CLOSE.NO_STATUS ? undefined : code, reason);
      }
      // The server ends the TCP connection first (RFC 6455 §7.1.1).
      if (!this.client) this.socket.end();
      else setTimeout(() => this.socket.destroy(), 1000).unref?.();
    }
  }

  sendClose(code, reason) {
    if (this.closeSent) return;
    this.closeSent = true;
    this.write(OP.CLOSE, closePayload(code, reason));
    // A peer that never answers does not keep the connection open.
    setTimeout(() => this.socket.destroy(), 5000).unref?.();
  }

  finish(code, reason, wasClean, destroy = true) {
    if (this.closed) return;
    this.closed = true;
    if (destroy) this.socket.destroy();
    this.events.close(code, reason, wasClean);
  }
}

/**
 * Answers a WebSocket upgrade request (node:http 'upgrade'): returns a
 * connection `{ send(data), close(code, reason), bufferedAmount, protocol,
 * onmessage, onclose }` or null after refusing the request (a 400, or a
 * 403 when `allowOrigin(origin)` says no). `protocols`: the subprotocols
 * this server speaks (the first the client offers wins; a client that
 * offers none of them is refused); `maxMessage`: the largest message taken in.
 */
export function acceptWebSocket(req, socket, head, { protocols = [], maxMessage = DEFAULT_MAX_MESSAGE, allowOrigin = () => true } = {}) {
  const refuse = (status, text) => {
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    return null;
  };
  const key = req.headers['sec-websocket-key'];
  if (
    req.method !== 'GET' ||
    String(req.headers.upgrade).toLowerCase() !== 'websocket' ||
    req.headers['sec-websocket-version'] !== '13' ||
    typeof key !== 'string' ||
    Buffer.from(key, 'base64').length !== 16
  ) {
    return refuse(400, 'Bad Request');
  }
  if (!allowOrigin(req.headers.origin ?? null)) return refuse(403, 'Forbidden');
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let protocol = '';
  if (protocols.length) {
    protocol = offered.find((p) => protocols.includes(p)) ?? '';
    if (!protocol) return refuse(400, 'Bad Request');
  }
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n` +
      (protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : '') +
      '\r\n',
  );
  const ws = {
    protocol,
    onmessage: null,
    onclose: null,
    get bufferedAmount() {
      return conn.bufferedAmount;
    },
    send: (data) => conn.send(data),
    close: (code = CLOSE.NORMAL, reason = '') => conn.sendClose(code, reason),
    /** Ends the TCP connection at once (no closing handshake). */
    terminate: () => conn.finish(CLOSE.ABNORMAL, '', false),
  };
  const conn = new Connection(socket, {
    client: false,
    maxMessage,
    events: {
      message: (data) => ws.onmessage?.(data),
      close: (code, reason, wasClean) => ws.onclose?.(code, reason, wasClean),
    },
  });
  if (head?.length) conn.reader.push(head);
  return ws;
}

/** A minimal EventTarget for the client (browser code sets `onX` or listens). */
class Events {
  constructor() {
    this.listeners = new Map();
  }
  addEventListener(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
  }
  removeEventListener(type, fn) {
    this.listeners.get(type)?.delete(fn);
  }
  dispatch(type, event) {
    event.type = type;
    this[`on${type}`]?.(event);
    for (const fn of this.listeners.get(type) ?? []) fn(event);
  }
}

/**
 * The browser's WebSocket API over node:net / node:tls (ws:// and wss://).
 * Errors the constructor throws are DOMException-like (`name`
 * 'SyntaxError' for a bad URL or protocol list, as browsers do).
 */
export class NodeWebSocket extends Events {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor(url, protocols = [], { maxMessage = DEFAULT_MAX_MESSAGE } = {}) {
    super();
    const syntax = (message) => Object.assign(new Error(message), { name: 'SyntaxError' });
    let u;
    try {
      u = new URL(url);
    } catch {
      throw syntax(`invalid URL ${url}`);
    }
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw syntax(`not a WebSocket URL: ${url}`);
    if (u.hash) throw syntax('a WebSocket URL has no fragment');
    const list = typeof protocols === 'string' ? [protocols] : [...protocols];
    if (new Set(list).size !== list.length || list.some((p) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(p))) {
      throw syntax('bad subprotocol list');
    }
    this.url = u.href;
    this.readyState = NodeWebSocket.CONNECTING;
    this.binaryType = 'arraybuffer';
    this.protocol = '';
    this.extensions = '';
    this.onopen = this.onmessage = this.onerror = this.onclose = null;
    this.conn = null;
    this.maxMessage = maxMessage;
    const secure = u.protocol === 'wss:';
    const port = Number(u.port) || (secure ? 443 : 80);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const socket = secure ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
    this.socket = socket;
    const key = randomBytes(16).toString('base64');
    let response = Buffer.alloc(0);
    const onData = (chunk) => {
      response = Buffer.concat([response, chunk]);
      const end = response.indexOf('\r\n\r\n');
      if (end < 0) {
        if (response.length > MAX_HANDSHAKE) this.fail();
        return;
      }
      socket.off('data', onData);
      const lines = response.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map();
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      const chosen = headers.get('sec-websocket-protocol') ?? '';
      if (
        !/^HTTP\/1\.1 101\b/.test(lines[0]) ||
        headers.get('upgrade')?.toLowerCase() !== 'websocket' ||
        headers.get('sec-websocket-accept') !== acceptKey(key) ||
        headers.has('sec-websocket-extensions') ||
        (chosen && !list.includes(chosen)) ||
        (!chosen && list.length > 0)
      ) {
        this.fail();
        return;
      }
      this.protocol = chosen;
      this.open(socket, response.subarray(end + 4));
    };
    socket.on('data', onData);
    socket.once('error', () => this.fail());
    socket.once('close', () => {
      if (this.readyState === NodeWebSocket.CONNECTING) this.fail();
    });
    const connectEvent = secure ? 'secureConnect' : 'connect';
    socket.once(connectEvent, () => {
      const path = (u.pathname || '/') + u.search;
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n` +
          (list.length ? `Sec-WebSocket-Protocol: ${list.join(', ')}\r\n` : '') +
          '\r\n',
      );
    });
  }

  get bufferedAmount() {
    return this.conn?.bufferedAmount ?? 0;
  }

  /** The opening handshake failed: error, then close 1006. */
  fail() {
    if (this.readyState === NodeWebSocket.CLOSED) return;
    this.readyState = NodeWebSocket.CLOSED;
    this.socket.destroy();
    this.dispatch('error', {});
    this.dispatch('close', { code: CLOSE.ABNORMAL, reason: '', wasClean: false });
  }

  open(socket, rest) {
    this.readyState = NodeWebSocket.OPEN;
    this.conn = new Connection(socket, {
      client: true,
      maxMessage: this.maxMessage,
      events: {
        message: (data) => {
          if (this.readyState !== NodeWebSocket.OPEN && this.readyState !== NodeWebSocket.CLOSING) return;
          const value = typeof data === 'string' ? data : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
          this.dispatch('message', { data: value });
        },
        close: (code, reason, wasClean) => {
          const was = this.readyState;
          this.readyState = NodeWebSocket.CLOSED;
          if (!wasClean && was !== NodeWebSocket.CLOSED) this.dispatch('error', {});
          this.dispatch('close', { code, reason, wasClean });
        },
      },
    });
    this.dispatch('open', {});
    if (rest.length) this.conn.reader.push(rest);
  }

  send(data) {
    if (this.readyState === NodeWebSocket.CONNECTING) {
      throw Object.assign(new Error('the WebSocket is not open yet'), { name: 'InvalidStateError' });
    }
    if (this.readyState !== NodeWebSocket.OPEN) return;
    if (typeof data === 'string') this.conn.send(data);
    else if (ArrayBuffer.isView(data)) this.conn.send(data);
    else if (data instanceof ArrayBuffer) this.conn.send(new Uint8Array(data));
    else this.conn.send(String(data));
  }

  close(code, reason = '') {
    if (code !== undefined && code !== CLOSE.NORMAL && !(code >= 3000 && code <= 4999)) {
      throw Object.assign(new Error(`close code ${code} is not allowed`), { name: 'InvalidAccessError' });
    }
    if (Buffer.byteLength(reason) > 123) throw Object.assign(new Error('close reason too long'), { name: 'SyntaxError' });
    if (this.readyState === NodeWebSocket.CLOSING || this.readyState === NodeWebSocket.CLOSED) return;
    if (this.readyState === NodeWebSocket.CONNECTING) {
      this.fail();
      return;
    }
    this.readyState = NodeWebSocket.CLOSING;
    this.conn.sendClose(code, reason);
  }
}
