// The socket relay's wire protocol (docs/relay.md is its description):
// frames, their fields, the limits both ends enforce, and the error
// numbers. Shared by the client (relay-client.js, in a page's host Worker
// or in Node) and the relay (../../node/relay.mjs); nothing here touches
// the network.
//
// One WebSocket (subprotocol `pexe-relay.1`) per plugin carries every
// socket and name resolution of that plugin. Each WebSocket message is one
// binary frame, little-endian:
//
//   0  u8  op        request op (client → relay), op | REPLY (relay → client)
//   1  u8  flags     0
//   2  u16 reserved  0
//   4  u32 req       request number chosen by the client, echoed by the reply
//   8  u32 sock      socket number chosen by the client (0: none)
//  12  ...           the op's body
//
// Every request gets exactly one reply, whose body starts with an i32
// result: a count (≥ 0) or a PP_Error (ppapi/c/pp_errors.h). The relay
// speaks first: HELLO, with its version and limits.

/** The WebSocket subprotocol, which is also the protocol's version. */
export const SUBPROTOCOL = 'pexe-relay.1';
export const VERSION = 1;

/** Request ops; a reply is `op | REPLY`. */
export const OP = Object.freeze({
  RESOLVE: 0x01,
  OPEN: 0x02,
  CLOSE: 0x03,
  CONNECT: 0x04,
  BIND: 0x05,
  LISTEN: 0x06,
  ACCEPT: 0x07,
  READ: 0x08,
  WRITE: 0x09,
  SET_OPTION: 0x0a,
  SEND_TO: 0x0b,
  RECV_FROM: 0x0c,
  JOIN: 0x0d,
  LEAVE: 0x0e,
  HELLO: 0x40,
});
export const REPLY = 0x80;

/** OPEN's socket kinds. */
export const KIND = Object.freeze({ TCP: 1, UDP: 2 });

/** Bytes of the frame header, and of an address (ADDR). */
export const HEADER = 12;
export const ADDR_SIZE = 20;

/**
 * Every cap, in one place. The relay announces its own in HELLO; the
 * client never sends more than these (Chrome's sizes: one TCP read or
 * write moves at most 1 MiB, one datagram at most 128 KiB).
 */
export const LIMITS = Object.freeze({
  /** The largest frame either end takes (a 1 MiB write plus its header). */
  maxFrame: (1 << 20) + 64,
  /** One TCP Read or Write (Chrome's kMaxReadSize/kMaxWriteSize). */
  maxTcpIo: 1 << 20,
  /** One datagram (Chrome's UDP kMaxReadSize/kMaxWriteSize). */
  maxDatagram: 128 << 10,
  /** Sockets open at once on one WebSocket (accepted ones included). */
  maxSockets: 64,
  /** WebSockets (plugins) a relay serves at once. */
  maxSessions: 16,
  /** Accepted connections a listening socket keeps until Accept takes them. */
  maxBacklog: 16,
  /** Datagrams a UDP socket keeps until RecvFrom takes them (Chrome's receive slots). */
  maxDatagrams: 32,
  /** SendTo calls under way on one UDP socket (Chrome's send slots). */
  maxSends: 8,
  /** Name resolutions under way on one WebSocket. */
  maxResolves: 8,
  /** The longest host name (bytes). */
  maxHost: 255,
  /** Addresses one resolution answers. */
  maxAddresses: 32,
  /** A TCP connect that has not completed by then fails (PP_ERROR_TIMEDOUT). */
  connectTimeoutMs: 20_000,
});

/** PP_NetAddress_Family. */
export const FAMILY = Object.freeze({ UNSPECIFIED: 0, IPV4: 1, IPV6: 2 });

/** The PP_Error numbers the network uses (ppapi/c/pp_errors.h). */
export const ERR = Object.freeze({
  OK: 0,
  FAILED: -2,
  ABORTED: -3,
  BADARGUMENT: -4,
  BADRESOURCE: -5,
  NOACCESS: -7,
  INPROGRESS: -11,
  NOTSUPPORTED: -12,
  TIMEDOUT: -30,
  CONNECTION_CLOSED: -100,
  CONNECTION_RESET: -101,
  CONNECTION_REFUSED: -102,
  CONNECTION_ABORTED: -103,
  CONNECTION_FAILED: -104,
  ADDRESS_INVALID: -106,
  ADDRESS_UNREACHABLE: -107,
  ADDRESS_IN_USE: -108,
  MESSAGE_TOO_BIG: -109,
  NAME_NOT_RESOLVED: -110,
});

/** A network failure carrying its PP_Error (`code`). */
export class NetError extends Error {
  constructor(code, message) {
    super(message ?? `network error ${code}`);
    this.name = 'NetError';
    this.code = code;
  }
}

/**
 * A system error code (Node's `err.code`, getaddrinfo's EAI_*) as a
 * PP_Error, the way Chrome's net::MapSystemError and
 * ppapi/host/error_conversion.cc did it.
 */
export function ppErrorOfSystem(code) {
  switch (code) {
    case 'ECONNREFUSED':
      return ERR.CONNECTION_REFUSED;
    case 'ECONNRESET':
    case 'EPIPE':
      return ERR.CONNECTION_RESET;
    case 'ECONNABORTED':
      return ERR.CONNECTION_ABORTED;
    case 'ETIMEDOUT':
      return ERR.TIMEDOUT;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return ERR.ADDRESS_UNREACHABLE;
    case 'EADDRINUSE':
      return ERR.ADDRESS_IN_USE;
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return ERR.ADDRESS_INVALID;
    case 'EMSGSIZE':
      return ERR.MESSAGE_TOO_BIG;
    case 'EACCES':
    case 'EPERM':
      return ERR.NOACCESS;
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_NODATA':
    case 'ENODATA':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'ESERVFAIL':
    case 'ENONAME':
      return ERR.NAME_NOT_RESOLVED;
    case 'EINVAL':
      return ERR.BADARGUMENT;
    default:
      return ERR.FAILED;
  }
}

// ---------------------------------------------------------------- addresses

/**
 * An address: `{ family, port, bytes }` (bytes: 4 for IPv4, 16 for IPv6),
 * as PPB_NetAddress keeps it. On the wire (ADDR, 20 bytes): u8 family,
 * u8 0, u16 port, 16 address bytes (IPv4 in the first 4).
 */
export function writeAddr(view, at, a) {
  view.setUint8(at, a.family);
  view.setUint8(at + 1, 0);
  view.setUint16(at + 2, a.port, true);
  for (let i = 0; i < 16; i++) view.setUint8(at + 4 + i, a.bytes[i] ?? 0);
}

/** The ADDR at `at`, or null when its family is not IPv4/IPv6. */
export function readAddr(view, at) {
  const family = view.getUint8(at);
  if (family !== FAMILY.IPV4 && family !== FAMILY.IPV6) return null;
  const n = family === FAMILY.IPV4 ? 4 : 16;
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = view.getUint8(at + 4 + i);
  return { family, port: view.getUint16(at + 2, true), bytes };
}

/** An address as text: `1.2.3.4` or `::1` (no port). */
export function hostOf(a) {
  if (a.family === FAMILY.IPV4) return [...a.bytes].join('.');
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((a.bytes[i] << 8) | a.bytes[i + 1]).toString(16));
  // The longest run of two or more zero groups becomes '::' (RFC 5952).
  let best = [-1, 0];
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best[1] && j - i > 1) best = [i, j - i];
    i = j;
  }
  if (best[0] < 0) return groups.join(':');
  return `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
}

/** `1.2.3.4` / `::ffff:1.2.3.4` / `fe80::1` → address bytes, or null. */
export function parseHost(text) {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const b = v4.slice(1).map(Number);
    return b.every((x) => x <= 255) ? { family: FAMILY.IPV4, bytes: Uint8Array.from(b) } : null;
  }
  if (!text.includes(':')) return null;
  let s = text.replace(/%.*$/, '');
  // An embedded IPv4 tail becomes two groups.
  const tail = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(s);
  if (tail) {
    const t = parseHost(tail[1]);
    if (!t) return null;
    s = s.slice(0, -tail[1].length) + `${((t.bytes[0] << 8) | t.bytes[1]).toString(16)}:${((t.bytes[2] << 8) | t.bytes[3]).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const part = (h) => (h === '' ? [] : h.split(':'));
  const head = part(halves[0]);
  const rest = halves.length === 2 ? part(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0 || (halves.length === 2 && fill < 1)) return null;
  const groups = [...head, ...Array(halves.length === 2 ? fill : 0).fill('0'), ...rest];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(groups[i])) return null;
    const g = parseInt(groups[i], 16);
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  }
  return { family: FAMILY.IPV6, bytes };
}

// ------------------------------------------------------------------- frames

/** A frame: header fields, then `size` body bytes to fill through `view`. */
export function frame(op, req, sock, size) {
  const buf = new ArrayBuffer(HEADER + size);
  const view = new DataView(buf);
  view.setUint8(0, op);
  view.setUint32(4, req, true);
  view.setUint32(8, sock, true);
  return { buf, view, bytes: new Uint8Array(buf) };
}

/**
 * Reads a frame's header: `{ op, req, sock, view, body }` (`body` the
 * bytes after the header, `view` over the whole frame), or null when it
 * is shorter than a header.
 */
export function parseFrame(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < HEADER) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { op: view.getUint8(0), req: view.getUint32(4, true), sock: view.getUint32(8, true), view, bytes, size: bytes.length };
}

/** A reply: result, then `size` more body bytes. */
export function reply(op, req, sock, result, size = 0) {
  const f = frame(op | REPLY, req, sock, 4 + size);
  f.view.setInt32(HEADER, result, true);
  return f;
}
