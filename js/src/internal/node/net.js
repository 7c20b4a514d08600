// A network for Pepper's sockets over Node's own (node:net, node:dgram,
// node:dns): what the socket relay (relay.mjs) does for its clients, and
// what `pexe run --net` gives a plugin directly. Every address a plugin
// names — to connect, bind, send to, join — and every name it resolves
// goes through an allow-list first (`allowList`, PP_ERROR_NOACCESS
// otherwise, as Chrome answered plugins without the socket permission).
//
// The interface (the same one relay-client.js speaks over the relay):
//
//   network.resolve(host, port, { family, canonical }) → { name, addrs }
//   network.tcp() → { connect(addr) → { local, remote }, bind(addr) → { local },
//                     listen(backlog), accept() → { socket, local, remote },
//                     read(max) → Uint8Array (empty at the end), write(bytes) → n,
//                     setOption(name, value), close() }
//   network.udp() → { bind(addr) → { local }, sendTo(bytes, addr) → n,
//                     recvFrom(max) → { bytes, addr }, setOption(name, value),
//                     join(addr), leave(addr), close() }
//   network.close()
//
// Addresses are `{ family, port, bytes }` (pepper/net/protocol.js); every
// failure is a NetError carrying a PP_Error. Reads are pulled: a TCP
// socket is paused unless a Read waits, so nothing piles up here; a UDP
// socket keeps at most LIMITS.maxDatagrams datagrams (more are dropped,
// as a full socket buffer would).

import * as dgram from 'node:dgram';
import * as dns from 'node:dns';
import * as nodeNet from 'node:net';
import { ERR, FAMILY, LIMITS, NetError, hostOf, parseHost, ppErrorOfSystem } from '../pepper/net/protocol.js';

/** PP_TCPSocket_Option. */
export const TCP_OPTION = Object.freeze({ NO_DELAY: 0, SEND_BUFFER_SIZE: 1, RECV_BUFFER_SIZE: 2 });
/** PP_UDPSocket_Option. */
export const UDP_OPTION = Object.freeze({
  ADDRESS_REUSE: 0,
  BROADCAST: 1,
  SEND_BUFFER_SIZE: 2,
  RECV_BUFFER_SIZE: 3,
  MULTICAST_LOOP: 4,
  MULTICAST_TTL: 5,
});

const fail = (code, message) => new NetError(code, message);
const systemError = (e) => (e instanceof NetError ? e : fail(ppErrorOfSystem(e?.code), e?.message));

/** `{ family, port, bytes }` of Node's `{ address, port }`. */
function addrOf(address, port) {
  const parsed = parseHost(address ?? '');
  if (!parsed) return { family: FAMILY.IPV4, port: port ?? 0, bytes: new Uint8Array(4) };
  return { ...parsed, port: port ?? 0 };
}

// ---------------------------------------------------------------- allow-list

/**
 * An allow-list: entries `*` (everything), or `HOST[:PORTS]` — HOST an
 * IPv4 address or `[IPv6]` (optionally `/PREFIX`), a name, or `*`; PORTS
 * a port, `LOW-HIGH` or `*` (all when omitted). A name entry allows
 * resolving that name and the addresses it resolved to (in that network),
 * on its ports. Returns `{ allowsName(name), allowsAddress(addr, resolved),
 * describe }`; throws on an entry it cannot read.
 */
export function allowList(entries) {
  const rules = entries.map((e) => parseRule(String(e)));
  const portOk = (r, port) => port >= r.lo && port <= r.hi;
  return {
    describe: entries.join(', ') || '(nothing)',
    allowsName(name) {
      const n = name.toLowerCase().replace(/\.$/, '');
      return rules.some((r) => r.any || r.name === n || (r.net && parseHost(n) && inNet(r.net, parseHost(n))));
    },
    /**
     * `addr` (`{ family, port, bytes }`); port 0 (bind to any port) asks
     * only for the host. `resolved`: name → addresses this network resolved.
     */
    allowsAddress(addr, resolved) {
      const wildPort = addr.port === 0;
      return rules.some((r) => {
        if (!wildPort && !portOk(r, addr.port)) return false;
        if (r.any) return true;
        if (r.net) return inNet(r.net, addr);
        const got = resolved?.get(r.name);
        return !!got?.some((a) => a.family === addr.family && a.bytes.every((b, i) => b === addr.bytes[i]));
      });
    },
  };
}

function parseRule(text) {
  if (text === '*') return { any: true, lo: 0, hi: 65535 };
  let host = text;
  let ports = '*';
  const v6 = /^\[([^\]]+)\](\/\d+)?(?::(.+))?$/.exec(text);
  if (v6) {
    host = `${v6[1]}${v6[2] ?? ''}`;
    ports = v6[3] ?? '*';
  } else if (text.includes(':')) {
    const i = text.lastIndexOf(':');
    host = text.slice(0, i);
    ports = text.slice(i + 1);
  }
  let lo = 0;
  let hi = 65535;
  if (ports !== '*') {
    const m = /^(\d+)(?:-(\d+))?$/.exec(ports);
    if (!m) throw new Error(`allow-list entry ${JSON.stringify(text)}: bad port ${JSON.stringify(ports)}`);
    lo = Number(m[1]);
    hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi > 65535 || lo > hi) throw new Error(`allow-list entry ${JSON.stringify(text)}: bad port range`);
  }
  if (host === '*') return { any: true, lo, hi };
  const [ip, prefixText] = host.split('/');
  const parsed = parseHost(ip);
  if (parsed) {
    const max = parsed.family === FAMILY.IPV4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`allow-list entry ${JSON.stringify(text)}: bad prefix`);
    return { net: { ...parsed, prefix }, lo, hi };
  }
  if (prefixText !== undefined || !/^[A-Za-z0-9.-]+$/.test(host)) throw new Error(`allow-list entry ${JSON.stringify(text)}: not an address or a name`);
  return { name: host.toLowerCase().replace(/\.$/, ''), lo, hi };
}

function inNet(net, addr) {
  if (net.family !== addr.family) return false;
  let bits = net.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((net.bytes[i] & mask) !== (addr.bytes[i] & mask)) return false;
  }
  return true;
}

// ------------------------------------------------------------------ network

/**
 * A network over Node's sockets. `allow`: an allowList (required);
 * `lookup(host, family)`: resolves a name to `[{ address, family }]`
 * (default: node:dns lookup, the system resolver); `limits`: LIMITS.
 */
export function nodeNetwork({ allow, lookup = systemLookup, limits = LIMITS } = {}) {
  if (!allow) throw new TypeError('nodeNetwork needs an allow-list');
  /** Names this network resolved → their addresses (name entries of the allow-list). */
  const resolved = new Map();
  const handles = new Set();
  const check = (addr) => {
    if (!addr || (addr.family !== FAMILY.IPV4 && addr.family !== FAMILY.IPV6)) throw fail(ERR.ADDRESS_INVALID);
    if (!allow.allowsAddress(addr, resolved)) throw fail(ERR.NOACCESS, `${hostOf(addr)}:${addr.port} is not on the allow-list`);
  };
  const track = (h) => {
    handles.add(h);
    const close = h.close;
    h.close = () => {
      handles.delete(h);
      close();
    };
    return h;
  };

  return {
    async resolve(host, port, { family = FAMILY.UNSPECIFIED, canonical = false } = {}) {
      if (typeof host !== 'string' || host.length === 0 || new TextEncoder().encode(host).length > limits.maxHost) throw fail(ERR.BADARGUMENT);
      if (!allow.allowsName(host)) throw fail(ERR.NOACCESS, `${host} is not on the allow-list`);
      const literal = parseHost(host);
      let addrs;
      if (literal) {
        addrs = [{ ...literal, port }];
      } else {
        let answers;
        try {
          answers = await lookup(host, family === FAMILY.IPV4 ? 4 : family === FAMILY.IPV6 ? 6 : 0);
        } catch (e) {
          throw fail(ppErrorOfSystem(e?.code ?? 'ENOTFOUND'), e?.message);
        }
        addrs = [];
        for (const a of answers.slice(0, limits.maxAddresses)) {
          const p = parseHost(a.address);
          if (p) addrs.push({ ...p, port });
        }
        if (addrs.length === 0) throw fail(ERR.NAME_NOT_RESOLVED);
        resolved.set(host.toLowerCase().replace(/\.$/, ''), addrs);
      }
      if (family !== FAMILY.UNSPECIFIED) addrs = addrs.filter((a) => a.family === family);
      if (addrs.length === 0) throw fail(ERR.NAME_NOT_RESOLVED);
      return { name: canonical ? host : '', addrs };
    },
    tcp: () => track(tcpSocket({ check, limits })),
    udp: () => track(udpSocket({ check, limits })),
    close() {
      for (const h of [...handles]) h.close();
    },
  };
}

async function systemLookup(host, family) {
  return dns.promises.lookup(host, { all: true, family, verbatim: true });
}

/** A readable Node socket read by pulls: read(max) resolves with the next bytes. */
function puller(socket) {
  let chunks = [];
  let ended = false;
  let error = null;
  let wait = null;
  socket.pause();
  const wake = () => {
    const w = wait;
    wait = null;
    w?.();
  };
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    socket.pause();
    wake();
  });
  socket.on('end', () => {
    ended = true;
    wake();
  });
  socket.on('error', (e) => {
    error = systemError(e);
    wake();
  });
  socket.on('close', () => {
    ended = true;
    wake();
  });
  return {
    async read(max) {
      while (chunks.length === 0 && !ended && !error) {
        if (wait) throw fail(ERR.INPROGRESS);
        socket.resume();
        await new Promise((resolve) => (wait = resolve));
      }
      if (chunks.length) {
        const first = chunks[0];
        if (first.length <= max) {
          chunks.shift();
          return new Uint8Array(first.buffer, first.byteOffset, first.length);
        }
        chunks[0] = first.subarray(max);
        return new Uint8Array(first.buffer, first.byteOffset, max);
      }
      if (error) throw error;
      return new Uint8Array(0);
    },
    abort() {
      chunks = [];
      error = fail(ERR.ABORTED);
      wake();
    },
  };
}

function tcpSocket({ check, limits, socket: accepted = null }) {
  let socket = accepted;
  let server = null;
  let bound = null;
  let listening = false;
  let backlog = 0;
  let queue = [];
  let acceptWait = null;
  let reader = accepted ? puller(accepted) : null;
  let closed = false;
  const options = new Map();

  const applyOptions = () => {
    if (!socket) return;
    for (const [name, value] of options) {
      if (name === TCP_OPTION.NO_DELAY) socket.setNoDelay(!!value);
      // Node sets no socket buffer sizes on TCP: accepted and ignored.
    }
  };

  const local = () => addrOf(socket.localAddress, socket.localPort);
  const remote = () => addrOf(socket.remoteAddress, socket.remotePort);

  return {
    async connect(addr) {
      check(addr);
      if (server) {
        await new Promise((resolve) => server.close(resolve));
        server = null;
      }
      socket = nodeNet.connect({
        host: hostOf(addr),
        port: addr.port,
        family: addr.family === FAMILY.IPV6 ? 6 : 4,
        ...(bound ? { localAddress: hostOf(bound), localPort: bound.port } : {}),
      });
      reader = puller(socket);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          socket.destroy();
          reject(fail(ERR.TIMEDOUT, 'connect timed out'));
        }, limits.connectTimeoutMs);
        socket.once('connect', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.once('error', (e) => {
          clearTimeout(timer);
          reject(systemError(e));
        });
        socket.once('close', () => {
          clearTimeout(timer);
          reject(fail(ERR.ABORTED));
        });
      });
      if (closed) throw fail(ERR.ABORTED);
      applyOptions();
      return { local: local(), remote: remote() };
    },
    async bind(addr) {
      check(addr);
      // Node binds a TCP socket only by listening: the socket listens from
      // here on, and connections that come before Listen are refused
      // (closed at once), as an unlistened socket's would be.
      server = nodeNet.createServer({ pauseOnConnect: true });
      server.on('connection', (s) => {
        if (!listening || closed || queue.length >= backlog) {
          s.destroy();
          return;
        }
        queue.push(s);
        const w = acceptWait;
        acceptWait = null;
        w?.();
      });
      await new Promise((resolve, reject) => {
        server.once('error', (e) => reject(systemError(e)));
        server.listen({ host: hostOf(addr), port: addr.port, backlog: limits.maxBacklog, ipv6Only: addr.family === FAMILY.IPV6 }, resolve);
      });
      server.on('error', () => {});
      const a = server.address();
      bound = addrOf(a.address, a.port);
      return { local: bound };
    },
    async listen(n) {
      if (!server) throw fail(ERR.FAILED);
      backlog = Math.max(1, Math.min(n, limits.maxBacklog));
      listening = true;
    },
    async accept() {
      if (!listening) throw fail(ERR.FAILED);
      if (acceptWait) throw fail(ERR.INPROGRESS);
      while (queue.length === 0) {
        if (closed) throw fail(ERR.ABORTED);
        await new Promise((resolve) => (acceptWait = resolve));
      }
      const s = queue.shift();
      const handle = tcpSocket({ check, limits, socket: s });
      return { socket: handle, local: addrOf(s.localAddress, s.localPort), remote: addrOf(s.remoteAddress, s.remotePort) };
    },
    async read(max) {
      if (!reader) throw fail(ERR.FAILED);
      return reader.read(Math.min(max, limits.maxTcpIo));
    },
    async write(bytes) {
      if (!socket || socket.destroyed) throw fail(ERR.CONNECTION_CLOSED);
      const n = Math.min(bytes.length, limits.maxTcpIo);
      await new Promise((resolve, reject) => {
        socket.write(bytes.subarray(0, n), (e) => (e ? reject(systemError(e)) : resolve()));
      });
      return n;
    },
    async setOption(name, value) {
      if (name !== TCP_OPTION.NO_DELAY && name !== TCP_OPTION.SEND_BUFFER_SIZE && name !== TCP_OPTION.RECV_BUFFER_SIZE) {
        throw fail(ERR.BADARGUMENT);
      }
      options.set(name, value);
      applyOptions();
    },
    close() {
      if (closed) return;
      closed = true;
      reader?.abort();
      socket?.destroy();
      server?.close();
      for (const s of queue) s.destroy();
      queue = [];
      const w = acceptWait;
      acceptWait = null;
      w?.();
    },
  };
}

function udpSocket({ check, limits }) {
  let socket = null;
  let closed = false;
  let datagrams = [];
  let wait = null;
  let sends = 0;
  const options = new Map();

  const apply = (name, value) => {
    if (!socket) return;
    switch (name) {
      case UDP_OPTION.BROADCAST:
        socket.setBroadcast(!!value);
        break;
      case UDP_OPTION.SEND_BUFFER_SIZE:
        socket.setSendBufferSize(value);
        break;
      case UDP_OPTION.RECV_BUFFER_SIZE:
        socket.setRecvBufferSize(value);
        break;
      case UDP_OPTION.MULTICAST_LOOP:
        socket.setMulticastLoopback(!!value);
        break;
      case UDP_OPTION.MULTICAST_TTL:
        socket.setMulticastTTL(value);
        break;
      default:
        break;
    }
  };

  return {
    async bind(addr) {
      check(addr);
      socket = dgram.createSocket({
        type: addr.family === FAMILY.IPV6 ? 'udp6' : 'udp4',
        reuseAddr: !!options.get(UDP_OPTION.ADDRESS_REUSE),
        ipv6Only: addr.family === FAMILY.IPV6,
      });
      socket.on('message', (msg, rinfo) => {
        const from = addrOf(rinfo.address, rinfo.port);
        try {
          check(from);
        } catch {
          return; // not from an allowed address: dropped
        }
        if (datagrams.length >= limits.maxDatagrams || msg.length > limits.maxDatagram) return;
        datagrams.push({ bytes: new Uint8Array(msg.buffer, msg.byteOffset, msg.length), addr: from });
        const w = wait;
        wait = null;
        w?.();
      });
      await new Promise((resolve, reject) => {
        socket.once('error', (e) => reject(systemError(e)));
        socket.bind({ address: hostOf(addr), port: addr.port }, resolve);
      });
      socket.on('error', () => {});
      try {
        for (const [name, value] of options) apply(name, value);
      } catch (e) {
        throw systemError(e);
      }
      const a = socket.address();
      return { local: addrOf(a.address, a.port) };
    },
    async sendTo(bytes, addr) {
      if (!socket) throw fail(ERR.FAILED);
      check(addr);
      if (sends >= limits.maxSends) throw fail(ERR.INPROGRESS);
      const n = Math.min(bytes.length, limits.maxDatagram);
      sends++;
      try {
        await new Promise((resolve, reject) => {
          socket.send(bytes.subarray(0, n), addr.port, hostOf(addr), (e) => (e ? reject(systemError(e)) : resolve()));
        });
      } finally {
        sends--;
      }
      return n;
    },
    async recvFrom(max) {
      if (!socket) throw fail(ERR.FAILED);
      if (wait) throw fail(ERR.INPROGRESS);
      while (datagrams.length === 0) {
        if (closed) throw fail(ERR.ABORTED);
        await new Promise((resolve) => (wait = resolve));
        if (closed) throw fail(ERR.ABORTED);
      }
      // A datagram larger than the buffer stays for a larger read (Chrome).
      if (datagrams[0].bytes.length > max) throw fail(ERR.MESSAGE_TOO_BIG);
      return datagrams.shift();
    },
    async setOption(name, value) {
      if (!(name in UDP_OPTION_NAMES)) throw fail(ERR.BADARGUMENT);
      options.set(name, value);
      try {
        apply(name, value);
      } catch (e) {
        throw systemError(e);
      }
    },
    async join(addr) {
      if (!socket) throw fail(ERR.FAILED);
      check(addr);
      try {
        socket.addMembership(hostOf(addr));
      } catch (e) {
        throw systemError(e);
      }
    },
    async leave(addr) {
      if (!socket) throw fail(ERR.FAILED);
      check(addr);
      try {
        socket.dropMembership(hostOf(addr));
      } catch (e) {
        throw systemError(e);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      datagrams = [];
      try {
        socket?.close();
      } catch {
        // already closed
      }
      const w = wait;
      wait = null;
      w?.();
    },
  };
}

const UDP_OPTION_NAMES = Object.fromEntries(Object.values(UDP_OPTION).map((v) => [v, true]));
