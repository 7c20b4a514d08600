// Raw network access: PPB_NetAddress;1.0, PPB_HostResolver;1.0,
// PPB_TCPSocket;1.0/1.1/1.2, PPB_UDPSocket;1.0/1.1/1.2.
//
//   PP_Resource NetAddress.CreateFromIPv4Address(PP_Instance, const struct PP_NetAddress_IPv4*)
//   PP_Resource CreateFromIPv6Address(PP_Instance, const struct PP_NetAddress_IPv6*)
//   PP_Bool IsNetAddress(PP_Resource)   PP_NetAddress_Family GetFamily(PP_Resource)
//   struct PP_Var DescribeAsString(PP_Resource addr, PP_Bool include_port)
//   PP_Bool DescribeAsIPv4Address(PP_Resource, struct PP_NetAddress_IPv4*)
//   PP_Bool DescribeAsIPv6Address(PP_Resource, struct PP_NetAddress_IPv6*)
//   HostResolver: Create, IsHostResolver, Resolve(res, host, port, hint, cb),
//       GetCanonicalName, GetNetAddressCount, GetNetAddress
//   TCPSocket: Create, IsTCPSocket, Bind, Connect, GetLocalAddress, GetRemoteAddress,
//       Read, Write, Listen, Accept, Close, SetOption (1.0 has no Bind/Listen/Accept)
//   UDPSocket: Create, IsUDPSocket, Bind, GetBoundAddress, RecvFrom, SendTo, Close,
//       SetOption, JoinGroup/LeaveGroup (1.2)
//
// Chrome gave these interfaces to every plugin but let only apps with the
// socket permission use them: on a web page each network operation failed
// with PP_ERROR_NOACCESS. So it is here by default — resources are made,
// addresses are real values (they are only data), every operation that
// would touch the network completes with NOACCESS; nacl_io apps probe
// these at start-up and carry on without a network. An embedder may give
// the browser a network (`b.network`: a socket relay for pages,
// pepper/net/relay-client.js, or Node's sockets, ../../node/net.js); then
// the operations do what Chrome's did for a packaged app, with its rules
// (ppapi/proxy/tcp_socket_resource_base.cc, udp_socket_resource_base.cc,
// udp_socket_filter.cc, host_resolver_resource_base.cc,
// ppapi/shared_impl/ppb_tcp_socket_shared.cc):
//
// - TCP: INITIAL → (Bind) BOUND → (Listen) LISTENING, or → (Connect)
//   CONNECTED; a failed Connect leaves the socket CLOSED, a failed Bind or
//   Listen leaves it as it was; one transition at a time (INPROGRESS), an
//   invalid one is FAILED. Read and Write need a connection, one of each
//   at a time, at most 1 MiB each; Read answers 0 at the end. Close (or
//   the last release) aborts everything under way (PP_ERROR_ABORTED,
//   nothing written to plugin memory).
// - UDP: Bind once; SendTo (at most 8 under way, 128 KiB each) and
//   RecvFrom need it; a datagram larger than RecvFrom's buffer is
//   MESSAGE_TOO_BIG and stays for a larger read.
// - Resolve: one at a time; the results (canonical name when
//   PP_HOSTRESOLVER_FLAG_CANONNAME is asked, addresses) are there only
//   after a success.
// - Errors are Chrome's: CONNECTION_REFUSED, _RESET, _CLOSED, _ABORTED,
//   TIMEDOUT, ADDRESS_UNREACHABLE, _IN_USE, _INVALID, NAME_NOT_RESOLVED,
//   MESSAGE_TOO_BIG (protocol.js ppErrorOfSystem).
//
// The versions of each interface share their functions (src/abi/ppapi.h
// makes one import of members declared alike), so every version behaves
// as the newest: SetOption may come before Connect/Bind (TCP 1.2, UDP
// 1.2), and a failed Connect closes a 1.0 socket too.

import { INSTANCE_ID, PP, PP_FALSE, PP_TRUE, VAR } from '../defs.js';
import { FAMILY, LIMITS, NetError, hostOf } from '../net/protocol.js';

export { FAMILY };
/** struct PP_NetAddress_IPv4: port (network order), 4 address bytes. */
const IPV4 = 6;
/** struct PP_NetAddress_IPv6: port (network order), 16 address bytes. */
const IPV6 = 18;
/** struct PP_HostResolver_Hint: { PP_NetAddress_Family family; int32_t flags; }. */
const HINT = 8;
const FLAG_CANONNAME = 1;

/** TCP socket states (ppb_tcp_socket_shared.h TCPSocketState). */
const TCP = Object.freeze({ INITIAL: 0, BOUND: 1, CONNECTED: 2, LISTENING: 3, CLOSED: 4 });
/** PP_TCPSocket_Option and PP_UDPSocket_Option. */
const TCP_OPTION = Object.freeze({ NO_DELAY: 0, SEND_BUFFER_SIZE: 1, RECV_BUFFER_SIZE: 2 });
const UDP_OPTION = Object.freeze({ ADDRESS_REUSE: 0, BROADCAST: 1, SEND_BUFFER_SIZE: 2, RECV_BUFFER_SIZE: 3, MULTICAST_LOOP: 4, MULTICAST_TTL: 5 });
/** The largest buffer size SetOption takes (Chrome: 1024 × the largest read/write). */
const MAX_TCP_BUFFER = 1024 * LIMITS.maxTcpIo;
const MAX_UDP_BUFFER = 1024 * LIMITS.maxDatagram;

export default (b) => {
  const { mem, resources, vars } = b;
  const addr = (id) => resources.get(id, 'NetAddress');
  const is = (kind) => (cx, id) => (resources.get(id, kind) ? PP_TRUE : PP_FALSE);
  const newAddr = (a) => resources.add('NetAddress', { family: a.family, port: a.port, bytes: Uint8Array.from(a.bytes) });
  const plain = (a) => ({ family: a.family, port: a.port, bytes: a.bytes });

  const fromBytes = (family, ptr, n) => (cx, instance) => {
    if (instance !== INSTANCE_ID) return 0;
    mem.check(ptr, n);
    // The port is stored as the plugin wrote it (network byte order).
    const port = (mem.getU8(ptr) << 8) | mem.getU8(ptr + 1);
    return resources.add('NetAddress', { family, port, bytes: mem.read(ptr + 2, n - 2) });
  };

  /**
   * Runs `work(alive)` as an operation of resource `r` that Close aborts:
   * resolves with its result, a NetError's code, or PP_ERROR_ABORTED once
   * `r` is closed (`work` checks `alive()` before writing plugin memory).
   * Without a network the operation is NOACCESS, as in Chrome for pages.
   */
  const operation = (r, work) => {
    if (!b.network) return PP.ERROR_NOACCESS;
    let aborted = false;
    return new Promise((resolve) => {
      const entry = {
        abort() {
          aborted = true;
          resolve(PP.ERROR_ABORTED);
        },
      };
      r.ops.add(entry);
      const done = (v) => {
        if (aborted) return;
        r.ops.delete(entry);
        resolve(v);
      };
      Promise.resolve()
        .then(() => work(() => !aborted && !r.closed))
        .then(done, (e) => {
          if (e instanceof NetError) done(e.code);
          else {
            b.embedder.log?.('error', 'pexe', `runtime bug in a network operation: ${e?.stack ?? e}`);
            done(PP.ERROR_FAILED);
          }
        });
    });
  };
  const abortAll = (r) => {
    const all = [...r.ops];
    r.ops.clear();
    for (const op of all) op.abort();
  };

  /** The socket's handle in the network, made at its first use. */
  const handleOf = (r) => {
    if (!r.handle) {
      r.handle = r.kind === 'TCPSocket' ? b.network.tcp() : b.network.udp();
      // Options set before there was a socket (1.2 allows that).
      for (const [name, value] of r.options) r.handle.setOption(name, value).catch(() => {});
    }
    return r.handle;
  };

  // ------------------------------------------------------------- TCPSocket

  const tcp = (id) => resources.get(id, 'TCPSocket');
  const newTcp = (fields = {}) =>
    resources.add('TCPSocket', {
      state: TCP.INITIAL,
      transition: null,
      handle: null,
      local: null,
      remote: null,
      reading: false,
      writing: false,
      accepting: false,
      options: new Map(),
      ops: new Set(),
      closed: false,
      ...fields,
      destroy() {
        closeTcp(this);
      },
    });
  const closeTcp = (s) => {
    if (s.closed) return;
    s.closed = true;
    s.state = TCP.CLOSED;
    s.transition = null;
    abortAll(s);
    s.handle?.close();
  };

  /** Starts state transition `to` of `s` (Chrome's IsValidTransition), or an error. */
  const startTransition = (s, name) => {
    if (s.transition === name) return PP.ERROR_INPROGRESS;
    if (s.transition !== null) return PP.ERROR_FAILED;
    const from = { bind: [TCP.INITIAL], connect: [TCP.INITIAL, TCP.BOUND], listen: [TCP.BOUND] }[name];
    if (!from.includes(s.state)) return PP.ERROR_FAILED;
    s.transition = name;
    return PP.OK;
  };
  const endTransition = (s, result, success, failure = null) => {
    if (s.closed) return result;
    s.transition = null;
    if (result === PP.OK) s.state = success;
    else if (failure !== null) s.state = failure;
    return result;
  };

  const tcpFns = {
    'PPB_TCPSocket;1.0:Create': (cx, instance) => (instance === INSTANCE_ID ? newTcp() : 0),
    'PPB_TCPSocket;1.0:IsTCPSocket': is('TCPSocket'),
    'PPB_TCPSocket;1.1:Bind'(cx, id, addrId, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      const a = addr(addrId);
      if (!a) return c.finish(PP.ERROR_BADARGUMENT);
      const start = startTransition(s, 'bind');
      if (start !== PP.OK) return c.finish(start);
      const target = plain(a);
      const r = operation(s, async (alive) => {
        const { local } = await handleOf(s).bind(target);
        if (alive()) s.local = local;
        return PP.OK;
      });
      return c.finish(Promise.resolve(r).then((res) => endTransition(s, res, TCP.BOUND)));
    },
    'PPB_TCPSocket;1.0:Connect'(cx, id, addrId, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      const a = addr(addrId);
      if (!a) return c.finish(PP.ERROR_BADARGUMENT);
      const start = startTransition(s, 'connect');
      if (start !== PP.OK) return c.finish(start);
      const target = plain(a);
      const r = operation(s, async (alive) => {
        const { local, remote } = await handleOf(s).connect(target);
        if (alive()) {
          s.local = local;
          s.remote = remote;
        }
        return PP.OK;
      });
      return c.finish(Promise.resolve(r).then((res) => endTransition(s, res, TCP.CONNECTED, TCP.CLOSED)));
    },
    'PPB_TCPSocket;1.0:GetLocalAddress'(cx, id) {
      const s = tcp(id);
      if (!s || s.state === TCP.INITIAL || s.state === TCP.CLOSED || !s.local) return 0;
      return newAddr(s.local);
    },
    'PPB_TCPSocket;1.0:GetRemoteAddress'(cx, id) {
      const s = tcp(id);
      if (!s || s.state !== TCP.CONNECTED || !s.remote) return 0;
      return newAddr(s.remote);
    },
    'PPB_TCPSocket;1.0:Read'(cx, id, buffer, n, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      if (buffer === 0 || n <= 0) return c.finish(PP.ERROR_BADARGUMENT);
      if (s.state !== TCP.CONNECTED) return c.finish(PP.ERROR_FAILED);
      if (s.reading) return c.finish(PP.ERROR_INPROGRESS);
      const want = Math.min(n, LIMITS.maxTcpIo);
      mem.check(buffer, want);
      s.reading = true;
      const r = operation(s, async (alive) => {
        const bytes = await s.handle.read(want);
        if (!alive()) return PP.ERROR_ABORTED;
        mem.write(buffer, bytes);
        return bytes.length;
      });
      return c.finish(
        Promise.resolve(r).then((res) => {
          s.reading = false;
          return res;
        }),
      );
    },
    'PPB_TCPSocket;1.0:Write'(cx, id, buffer, n, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      if (buffer === 0 || n <= 0) return c.finish(PP.ERROR_BADARGUMENT);
      if (s.state !== TCP.CONNECTED) return c.finish(PP.ERROR_FAILED);
      if (s.writing) return c.finish(PP.ERROR_INPROGRESS);
      // The bytes are taken now, as Chrome copied them into its message.
      const bytes = mem.read(buffer, Math.min(n, LIMITS.maxTcpIo));
      s.writing = true;
      const r = operation(s, async () => s.handle.write(bytes));
      return c.finish(
        Promise.resolve(r).then((res) => {
          s.writing = false;
          return res;
        }),
      );
    },
    'PPB_TCPSocket;1.1:Listen'(cx, id, backlog, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      if (backlog <= 0) return c.finish(PP.ERROR_BADARGUMENT);
      const start = startTransition(s, 'listen');
      if (start !== PP.OK) return c.finish(start);
      const r = operation(s, async () => {
        await s.handle.listen(backlog);
        return PP.OK;
      });
      return c.finish(Promise.resolve(r).then((res) => endTransition(s, res, TCP.LISTENING)));
    },
    'PPB_TCPSocket;1.1:Accept'(cx, id, out, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      if (out === 0) return c.finish(PP.ERROR_BADARGUMENT);
      mem.check(out, 4);
      if (s.accepting) return c.finish(PP.ERROR_INPROGRESS);
      if (s.state !== TCP.LISTENING) return c.finish(PP.ERROR_FAILED);
      s.accepting = true;
      const r = operation(s, async (alive) => {
        const got = await s.handle.accept();
        if (!alive()) {
          got.socket.close();
          return PP.ERROR_ABORTED;
        }
        const id2 = newTcp({ state: TCP.CONNECTED, handle: got.socket, local: got.local, remote: got.remote });
        mem.setU32(out, id2);
        return PP.OK;
      });
      return c.finish(
        Promise.resolve(r).then((res) => {
          s.accepting = false;
          return res;
        }),
      );
    },
    'PPB_TCPSocket;1.0:Close'(cx, id) {
      const s = tcp(id);
      if (s) closeTcp(s);
    },
    'PPB_TCPSocket;1.0:SetOption'(cx, id, name, valuePtr, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = tcp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      const v = vars.read(valuePtr);
      let value;
      if (name === TCP_OPTION.NO_DELAY) {
        if (v.type !== VAR.BOOL) return c.finish(PP.ERROR_BADARGUMENT);
        value = v.value ? 1 : 0;
      } else if (name === TCP_OPTION.SEND_BUFFER_SIZE || name === TCP_OPTION.RECV_BUFFER_SIZE) {
        if (v.type !== VAR.INT32 || v.value <= 0 || v.value > MAX_TCP_BUFFER) return c.finish(PP.ERROR_BADARGUMENT);
        value = v.value;
      } else {
        return c.finish(PP.ERROR_BADARGUMENT);
      }
      if (s.closed) return c.finish(PP.ERROR_FAILED);
      s.options.set(name, value);
      // Kept until there is a socket (Chrome's browser side did the same).
      if (!s.handle) return c.finish(PP.OK);
      return c.finish(
        operation(s, async () => {
          await s.handle.setOption(name, value);
          return PP.OK;
        }),
      );
    },
  };

  // ------------------------------------------------------------- UDPSocket

  const udp = (id) => resources.get(id, 'UDPSocket');
  const closeUdp = (s) => {
    if (s.closed) return;
    s.closed = true;
    s.bound = false;
    abortAll(s);
    s.handle?.close();
  };
  const groupCall = (method) => (cx, id, groupId, callback) => {
    const c = b.completion(cx.tid, callback);
    if (c.error) return c.error;
    const s = udp(id);
    if (!s) return c.finish(PP.ERROR_BADRESOURCE);
    const g = addr(groupId);
    if (!g) return c.finish(PP.ERROR_BADARGUMENT);
    if (!s.bound || s.closed) return c.finish(b.network ? PP.ERROR_FAILED : PP.ERROR_NOACCESS);
    const target = plain(g);
    return c.finish(
      operation(s, async () => {
        await s.handle[method](target);
        return PP.OK;
      }),
    );
  };

  const udpFns = {
    'PPB_UDPSocket;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return resources.add('UDPSocket', {
        bindCalled: false,
        bound: false,
        binding: false,
        closed: false,
        handle: null,
        local: null,
        receiving: false,
        sends: 0,
        options: new Map(),
        ops: new Set(),
        destroy() {
          closeUdp(this);
        },
      });
    },
    'PPB_UDPSocket;1.0:IsUDPSocket': is('UDPSocket'),
    'PPB_UDPSocket;1.0:Bind'(cx, id, addrId, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = udp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      const a = addr(addrId);
      if (!a) return c.finish(PP.ERROR_BADARGUMENT);
      if (s.bound || s.closed) return c.finish(PP.ERROR_FAILED);
      if (s.binding) return c.finish(PP.ERROR_INPROGRESS);
      s.bindCalled = true;
      s.binding = true;
      const target = plain(a);
      const r = operation(s, async (alive) => {
        const { local } = await handleOf(s).bind(target);
        if (alive()) {
          s.local = local;
          s.bound = true;
        }
        return PP.OK;
      });
      return c.finish(
        Promise.resolve(r).then((res) => {
          s.binding = false;
          return res;
        }),
      );
    },
    'PPB_UDPSocket;1.0:GetBoundAddress'(cx, id) {
      const s = udp(id);
      if (!s || !s.bound || s.closed || !s.local) return 0;
      return newAddr(s.local);
    },
    'PPB_UDPSocket;1.0:RecvFrom'(cx, id, buffer, n, addrOut, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = udp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      if (!s.bound) return c.finish(PP.ERROR_FAILED);
      if (buffer === 0 || n <= 0) return c.finish(PP.ERROR_BADARGUMENT);
      if (s.receiving) return c.finish(PP.ERROR_INPROGRESS);
      const want = Math.min(n, LIMITS.maxDatagram);
      mem.check(buffer, want);
      if (addrOut !== 0) mem.check(addrOut, 4);
      s.receiving = true;
      const r = operation(s, async (alive) => {
        const got = await s.handle.recvFrom(want);
        if (!alive()) return PP.ERROR_ABORTED;
        mem.write(buffer, got.bytes);
        if (addrOut !== 0) mem.setU32(addrOut, newAddr(got.addr));
        return got.bytes.length;
      });
      return c.finish(
        Promise.resolve(r).then((res) => {
          s.receiving = false;
          return res;
        }),
      );
    },
    'PPB_UDPSocket;1.0:SendTo'(cx, id, buffer, n, addrId, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = udp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      const a = addr(addrId);
      if (buffer === 0 || n <= 0 || !a) return c.finish(PP.ERROR_BADARGUMENT);
      if (!s.bound) return c.finish(PP.ERROR_FAILED);
      if (s.sends >= LIMITS.maxSends) return c.finish(PP.ERROR_INPROGRESS);
      const bytes = mem.read(buffer, Math.min(n, LIMITS.maxDatagram));
      const target = plain(a);
      s.sends++;
      const r = operation(s, async () => s.handle.sendTo(bytes, target));
      return c.finish(
        Promise.resolve(r).then((res) => {
          s.sends--;
          return res;
        }),
      );
    },
    'PPB_UDPSocket;1.0:Close'(cx, id) {
      const s = udp(id);
      if (s) closeUdp(s);
    },
    'PPB_UDPSocket;1.0:SetOption'(cx, id, name, valuePtr, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const s = udp(id);
      if (!s) return c.finish(PP.ERROR_BADRESOURCE);
      if (s.closed) return c.finish(PP.ERROR_FAILED);
      const v = vars.read(valuePtr);
      let value;
      switch (name) {
        case UDP_OPTION.ADDRESS_REUSE:
        case UDP_OPTION.BROADCAST:
        case UDP_OPTION.MULTICAST_LOOP:
          // Reuse decides how the socket binds: not after Bind was called.
          if (name === UDP_OPTION.ADDRESS_REUSE && s.bindCalled) return c.finish(PP.ERROR_FAILED);
          if (v.type !== VAR.BOOL) return c.finish(PP.ERROR_BADARGUMENT);
          value = v.value ? 1 : 0;
          break;
        case UDP_OPTION.SEND_BUFFER_SIZE:
        case UDP_OPTION.RECV_BUFFER_SIZE:
          if (v.type !== VAR.INT32 || v.value <= 0 || v.value > MAX_UDP_BUFFER) return c.finish(PP.ERROR_BADARGUMENT);
          value = v.value;
          break;
        case UDP_OPTION.MULTICAST_TTL:
          if (v.type !== VAR.INT32 || v.value < 0 || v.value > 255) return c.finish(PP.ERROR_BADARGUMENT);
          value = v.value;
          break;
        default:
          return c.finish(PP.ERROR_BADARGUMENT);
      }
      s.options.set(name, value);
      if (!s.handle) return c.finish(PP.OK);
      return c.finish(
        operation(s, async () => {
          await s.handle.setOption(name, value);
          return PP.OK;
        }),
      );
    },
    'PPB_UDPSocket;1.2:JoinGroup': groupCall('join'),
    'PPB_UDPSocket;1.2:LeaveGroup': groupCall('leave'),
  };

  // ---------------------------------------------------------- HostResolver

  const resolver = (id) => resources.get(id, 'HostResolver');
  const dropResults = (h) => {
    for (const a of h.addrs) resources.release(a);
    h.addrs = [];
    h.name = '';
    h.ready = false;
  };
  const resolverFns = {
    'PPB_HostResolver;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return resources.add('HostResolver', {
        ready: false,
        resolving: false,
        name: '',
        addrs: [],
        ops: new Set(),
        closed: false,
        destroy() {
          this.closed = true;
          abortAll(this);
          dropResults(this);
        },
      });
    },
    'PPB_HostResolver;1.0:IsHostResolver': is('HostResolver'),
    'PPB_HostResolver;1.0:Resolve'(cx, id, hostPtr, port, hintPtr, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const h = resolver(id);
      if (!h) return c.finish(PP.ERROR_BADRESOURCE);
      h.ready = false;
      if (hostPtr === 0 || hintPtr === 0) return c.finish(PP.ERROR_BADARGUMENT);
      if (h.resolving) return c.finish(PP.ERROR_INPROGRESS);
      mem.check(hintPtr, HINT);
      const family = mem.getI32(hintPtr);
      const flags = mem.getI32(hintPtr + 4);
      let host;
      try {
        host = mem.readCString(hostPtr, LIMITS.maxHost);
      } catch {
        // Longer than any host name: no name resolves to it.
        return c.finish(PP.ERROR_NAME_NOT_RESOLVED);
      }
      port &= 0xffff;
      h.resolving = true;
      const r = operation(h, async (alive) => {
        const got = await b.network.resolve(host, port, { family, canonical: (flags & FLAG_CANONNAME) !== 0 });
        if (!alive()) return PP.ERROR_ABORTED;
        dropResults(h);
        h.name = got.name;
        h.addrs = got.addrs.map(newAddr);
        h.ready = true;
        return PP.OK;
      });
      return c.finish(
        Promise.resolve(r).then((res) => {
          h.resolving = false;
          if (res !== PP.OK && !h.closed) dropResults(h);
          return res;
        }),
      );
    },
    'PPB_HostResolver;1.0:GetCanonicalName'(cx, ret, id) {
      const h = resolver(id);
      vars.write(ret, h?.ready ? vars.string(h.name) : { type: VAR.UNDEFINED, value: 0 });
    },
    'PPB_HostResolver;1.0:GetNetAddressCount'(cx, id) {
      const h = resolver(id);
      return h?.ready ? h.addrs.length : 0;
    },
    'PPB_HostResolver;1.0:GetNetAddress'(cx, id, index) {
      const h = resolver(id);
      if (!h?.ready || index >>> 0 >= h.addrs.length) return 0;
      const a = h.addrs[index >>> 0];
      // The plugin gets a reference of its own.
      return resources.addRef(a) ? a : 0;
    },
  };

  // ------------------------------------------------------------ NetAddress

  const describe = (a, withPort) => {
    const host = hostOf(a);
    if (!withPort) return host;
    return a.family === FAMILY.IPV4 ? `${host}:${a.port}` : `[${host}]:${a.port}`;
  };
  const describeAs = (family, size) => (cx, id, out) => {
    const a = addr(id);
    if (!a || a.family !== family) return PP_FALSE;
    mem.check(out, size);
    mem.setU8(out, a.port >> 8);
    mem.setU8(out + 1, a.port & 0xff);
    mem.write(out + 2, a.bytes);
    return PP_TRUE;
  };

  return {
    'PPB_NetAddress;1.0:CreateFromIPv4Address': (cx, instance, ptr) => fromBytes(FAMILY.IPV4, ptr, IPV4)(cx, instance),
    'PPB_NetAddress;1.0:CreateFromIPv6Address': (cx, instance, ptr) => fromBytes(FAMILY.IPV6, ptr, IPV6)(cx, instance),
    'PPB_NetAddress;1.0:IsNetAddress': is('NetAddress'),
    'PPB_NetAddress;1.0:GetFamily'(cx, id) {
      return addr(id)?.family ?? FAMILY.UNSPECIFIED;
    },
    'PPB_NetAddress;1.0:DescribeAsString'(cx, ret, id, includePort) {
      const a = addr(id);
      vars.write(ret, a ? vars.string(describe(a, includePort !== 0)) : { type: VAR.UNDEFINED, value: 0 });
    },
    'PPB_NetAddress;1.0:DescribeAsIPv4Address': describeAs(FAMILY.IPV4, IPV4),
    'PPB_NetAddress;1.0:DescribeAsIPv6Address': describeAs(FAMILY.IPV6, IPV6),
    ...resolverFns,
    ...tcpFns,
    ...udpFns,
  };
};
