// The plugin's end of the socket relay (protocol.js; docs/relay.md): the
// network interface ppb/sockets.js uses (the same one ../../node/net.js
// gives directly), over one WebSocket to a relay.
//
// The WebSocket opens at the plugin's first network operation, not
// before (plugins that only probe the interfaces cost nothing), and the
// relay's HELLO must come before anything is sent. A socket lives on the
// WebSocket it was opened on: when that connection is lost — the relay
// stopped, or closed it for a protocol violation — every operation under
// way fails (PP_ERROR_CONNECTION_ABORTED for sockets, PP_ERROR_FAILED for
// resolutions), so do later ones on those sockets, the embedder's log
// says why once, and the next new socket or resolution opens a new
// WebSocket. A relay that answers nonsense (a reply to nothing, a read
// longer than asked, a bad address) is dropped the same way.

import {
  ADDR_SIZE,
  ERR,
  HEADER,
  KIND,
  LIMITS,
  NetError,
  OP,
  REPLY,
  SUBPROTOCOL,
  VERSION,
  frame,
  parseFrame,
  readAddr,
  writeAddr,
} from './protocol.js';

/** How long the relay has to answer the WebSocket with its HELLO (ms). */
export const HELLO_TIMEOUT_MS = 10_000;

/**
 * A network through the relay at `url`. `WebSocket`: the constructor to
 * use (default: the global one); `log(text)`: where connection trouble
 * and the relay's reasons for refusals are reported.
 */
export function relayNetwork(url, { WebSocket: WS = globalThis.WebSocket, log = () => {}, limits = LIMITS } = {}) {
  if (typeof WS !== 'function') throw new TypeError('the socket relay needs a WebSocket implementation');
  let session = null;
  let nextReq = 1;
  let nextSock = 1;
  let closed = false;

  const newId = (n) => (n >= 0xffffffff ? 1 : n + 1);

  /** The live session, opened if need be; resolves once the relay said HELLO. */
  const current = () => {
    if (closed) return Promise.reject(new NetError(ERR.FAILED, 'the network is closed'));
    if (!session || session.dead) session = openSession();
    return session.ready.then(() => session);
  };

  function openSession() {
    const s = { dead: false, pending: new Map(), ignored: new Set(), ws: null, ready: null, maxFrame: limits.maxFrame };
    let hello;
    let refuse;
    s.ready = new Promise((resolve, reject) => {
      hello = resolve;
      refuse = reject;
    });
    s.ready.catch(() => {});
    /** Ends the session: everything under way fails. */
    s.die = (why) => {
      if (s.dead) return;
      s.dead = true;
      clearTimeout(s.timer);
      log(`socket relay ${url}: ${why}`);
      refuse(new NetError(ERR.FAILED, why));
      for (const p of s.pending.values()) p.reject(new NetError(p.lost, why));
      s.pending.clear();
      try {
        s.ws?.close();
      } catch {
        // already closing
      }
    };
    try {
      s.ws = new WS(url, [SUBPROTOCOL]);
    } catch (e) {
      s.die(`cannot connect (${e?.message ?? e})`);
      return s;
    }
    s.ws.binaryType = 'arraybuffer';
    s.timer = setTimeout(() => s.die('no answer from the relay'), HELLO_TIMEOUT_MS);
    let opened = false;
    s.ws.onopen = () => {
      opened = true;
    };
    s.ws.onerror = () => {};
    s.ws.onclose = (e) => {
      const why = opened
        ? `connection lost${e?.code ? ` (close code ${e.code}${e.reason ? `: ${e.reason}` : ''})` : ''}`
        : 'cannot connect (is the relay running?)';
      s.die(why);
    };
    s.ws.onmessage = (e) => {
      if (s.dead) return;
      if (typeof e.data === 'string') return s.die('the relay sent text');
      const f = parseFrame(e.data);
      if (!f) return s.die('the relay sent a short frame');
      if (f.op === OP.HELLO) {
        if (f.size < HEADER + 16 || f.view.getUint16(HEADER, true) !== VERSION) return s.die('the relay speaks another protocol version');
        s.maxFrame = Math.min(limits.maxFrame, f.view.getUint32(HEADER + 4, true));
        clearTimeout(s.timer);
        hello();
        return;
      }
      // The answer to a request of a socket closed since: nobody waits for it.
      if (s.ignored.delete(f.req)) return;
      const p = s.pending.get(f.req);
      if (!p || f.op !== (p.op | REPLY) || f.size < HEADER + 4) return s.die(`the relay sent a reply to nothing (op ${f.op}, request ${f.req})`);
      s.pending.delete(f.req);
      const result = f.view.getInt32(HEADER, true);
      if (result < 0) {
        const why = new TextDecoder().decode(f.bytes.subarray(HEADER + 4));
        if (why && (result === ERR.NOACCESS || result === ERR.FAILED)) log(`socket relay ${url}: ${why}`);
        p.reject(new NetError(result, why || undefined));
        return;
      }
      try {
        p.resolve(p.parse ? p.parse(f, result) : result);
      } catch (err) {
        p.reject(new NetError(p.lost, 'bad reply'));
        s.die(`the relay sent a bad reply: ${err.message}`);
      }
    };
    return s;
  }

  /**
   * Sends request `op` on session `s` and resolves with its reply,
   * `parse(frame, result)`'d; `fill(view, bytes)` writes the body.
   * `lost`: the error when the session ends first.
   */
  const request = (s, op, sock, size, fill, { parse = null, lost = ERR.CONNECTION_ABORTED } = {}) => {
    if (s.dead) return Promise.reject(new NetError(lost, 'the relay connection was lost'));
    if (HEADER + size > s.maxFrame) return Promise.reject(new NetError(ERR.MESSAGE_TOO_BIG));
    const req = nextReq;
    nextReq = newId(nextReq);
    const f = frame(op, req, sock, size);
    fill?.(f.view, f.bytes);
    return new Promise((resolve, reject) => {
      s.pending.set(req, { op, sock, resolve, reject, parse, lost });
      try {
        s.ws.send(f.buf);
      } catch (e) {
        s.die(`cannot send (${e?.message ?? e})`);
      }
    });
  };

  const addrsOf = (f, n) => {
    if (f.size !== HEADER + 4 + ADDR_SIZE * n) throw new Error('wrong size');
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = readAddr(f.view, HEADER + 4 + ADDR_SIZE * i);
      if (!a) throw new Error('not an address');
      out.push(a);
    }
    return out;
  };
  const addrBody = (a) => (view) => writeAddr(view, HEADER, a);

  /**
   * A socket of `kind` on the relay: opened (OPEN) at its first use, or
   * given (`given`: an accepted socket, `{ s, sock }`).
   */
  function relaySocket(kind, given = null) {
    let s = given?.s ?? null;
    let sock = given?.sock ?? 0;
    let opening = null;
    let gone = false;
    const open = () => {
      if (gone) return Promise.reject(new NetError(ERR.ABORTED));
      if (sock) return Promise.resolve();
      opening ??= current().then(async (live) => {
        const id = nextSock;
        nextSock = newId(nextSock);
        await request(live, OP.OPEN, id, 1, (view) => view.setUint8(HEADER, kind), { lost: ERR.FAILED });
        s = live;
        sock = id;
      });
      return opening;
    };
    const call = async (op, size, fill, parse) => {
      await open();
      return request(s, op, sock, size, fill, { parse });
    };
    const common = {
      async setOption(name, value) {
        await call(OP.SET_OPTION, 8, (view) => {
          view.setUint8(HEADER, name);
          view.setInt32(HEADER + 4, value, true);
        });
      },
      async bind(addr) {
        const [local] = await call(OP.BIND, ADDR_SIZE, addrBody(addr), (f) => addrsOf(f, 1));
        return { local };
      },
      close() {
        if (gone) return;
        gone = true;
        if (sock && s && !s.dead) {
          const f = frame(OP.CLOSE, 0, sock, 0);
          try {
            s.ws.send(f.buf);
          } catch {
            // the session is ending anyway
          }
          // Whatever was under way on this socket ends here.
          for (const [req, p] of s.pending) {
            if (p.sock === sock) {
              s.pending.delete(req);
              s.ignored.add(req);
              p.reject(new NetError(ERR.ABORTED));
            }
          }
        }
      },
    };
    if (kind === KIND.UDP) {
      return {
        ...common,
        async sendTo(bytes, addr) {
          const n = Math.min(bytes.length, limits.maxDatagram);
          return call(OP.SEND_TO, ADDR_SIZE + n, (view, out) => {
            writeAddr(view, HEADER, addr);
            out.set(bytes.subarray(0, n), HEADER + ADDR_SIZE);
          });
        },
        async recvFrom(max) {
          const want = Math.min(max, limits.maxDatagram);
          return call(OP.RECV_FROM, 4, (view) => view.setUint32(HEADER, want, true), (f, n) => {
            if (n > want || f.size !== HEADER + 4 + ADDR_SIZE + n) throw new Error('wrong datagram size');
            const addr = readAddr(f.view, HEADER + 4);
            if (!addr) throw new Error('not an address');
            return { bytes: f.bytes.slice(HEADER + 4 + ADDR_SIZE), addr };
          });
        },
        async join(addr) {
          await call(OP.JOIN, ADDR_SIZE, addrBody(addr));
        },
        async leave(addr) {
          await call(OP.LEAVE, ADDR_SIZE, addrBody(addr));
        },
      };
    }
    return {
      ...common,
      async connect(addr) {
        const [local, remote] = await call(OP.CONNECT, ADDR_SIZE, addrBody(addr), (f) => addrsOf(f, 2));
        return { local, remote };
      },
      async listen(backlog) {
        await call(OP.LISTEN, 4, (view) => view.setInt32(HEADER, backlog, true));
      },
      async accept() {
        await open();
        const id = nextSock;
        nextSock = newId(nextSock);
        const [local, remote] = await request(s, OP.ACCEPT, sock, 4, (view) => view.setUint32(HEADER, id, true), {
          parse: (f) => addrsOf(f, 2),
        });
        return { socket: relaySocket(KIND.TCP, { s, sock: id }), local, remote };
      },
      async read(max) {
        const want = Math.min(max, limits.maxTcpIo);
        return call(OP.READ, 4, (view) => view.setUint32(HEADER, want, true), (f, n) => {
          if (n > want || f.size !== HEADER + 4 + n) throw new Error('wrong read size');
          return f.bytes.slice(HEADER + 4);
        });
      },
      async write(bytes) {
        const n = Math.min(bytes.length, limits.maxTcpIo);
        return call(OP.WRITE, n, (view, out) => out.set(bytes.subarray(0, n), HEADER));
      },
    };
  }

  return {
    url,
    async resolve(host, port, { family = 0, canonical = false } = {}) {
      const name = new TextEncoder().encode(host);
      if (name.length === 0 || name.length > limits.maxHost) throw new NetError(ERR.BADARGUMENT);
      const live = await current();
      return request(
        live,
        OP.RESOLVE,
        0,
        4 + name.length,
        (view, out) => {
          view.setUint16(HEADER, port, true);
          view.setUint8(HEADER + 2, family);
          view.setUint8(HEADER + 3, canonical ? 1 : 0);
          out.set(name, HEADER + 4);
        },
        {
          lost: ERR.FAILED,
          parse: (f) => {
            let at = HEADER + 4;
            if (f.size < at + 2) throw new Error('short resolve reply');
            const n = f.view.getUint16(at, true);
            if (n > limits.maxHost || f.size < at + 2 + n + 2) throw new Error('bad name');
            const canonicalName = new TextDecoder().decode(f.bytes.subarray(at + 2, at + 2 + n));
            at += 2 + n;
            const count = f.view.getUint16(at, true);
            if (count > limits.maxAddresses || f.size !== at + 2 + ADDR_SIZE * count) throw new Error('bad address list');
            const addrs = [];
            for (let i = 0; i < count; i++) {
              const a = readAddr(f.view, at + 2 + ADDR_SIZE * i);
              if (!a) throw new Error('not an address');
              addrs.push(a);
            }
            return { name: canonicalName, addrs };
          },
        },
      );
    },
    tcp: () => relaySocket(KIND.TCP),
    udp: () => relaySocket(KIND.UDP),
    close() {
      closed = true;
      if (session && !session.dead) {
        session.dead = true;
        for (const p of session.pending.values()) p.reject(new NetError(ERR.ABORTED));
        session.pending.clear();
        clearTimeout(session.timer);
        try {
          session.ws.close();
        } catch {
          // already closing
        }
      }
    },
  };
}
