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
// A page cannot open sockets or resolve names. Chrome gave these
// interfaces to every plugin, but only apps with the socket permission could
// use them; on a web page each operation failed with PP_ERROR_NOACCESS,
// and so it does here: resources are made, addresses are real values (they
// are only data), every network operation answers NOACCESS. nacl_io apps
// probe these at start-up and carry on without a network.

import { INSTANCE_ID, PP, PP_FALSE, PP_TRUE } from '../defs.js';

/** PP_NetAddress_Family. */
export const FAMILY = Object.freeze({ UNSPECIFIED: 0, IPV4: 1, IPV6: 2 });
/** struct PP_NetAddress_IPv4: port (network order), 4 address bytes. */
const IPV4 = 6;
/** struct PP_NetAddress_IPv6: port (network order), 16 address bytes. */
const IPV6 = 18;

export default (b) => {
  const { mem, resources, vars } = b;
  const addr = (id) => resources.get(id, 'NetAddress');
  const make = (kind) => (cx, instance) => (instance === INSTANCE_ID ? resources.add(kind, {}) : 0);
  const denied = (kind) => (cx, id) => (resources.get(id, kind) ? PP.ERROR_NOACCESS : PP.ERROR_BADRESOURCE);
  const is = (kind) => (cx, id) => (resources.get(id, kind) ? PP_TRUE : PP_FALSE);
  const none = () => 0;
  const close = () => {};

  const fromBytes = (family, ptr, n) => (cx, instance) => {
    if (instance !== INSTANCE_ID) return 0;
    mem.check(ptr, n);
    // The port is stored as the plugin wrote it (network byte order).
    const port = (mem.getU8(ptr) << 8) | mem.getU8(ptr + 1);
    return resources.add('NetAddress', { family, port, bytes: mem.read(ptr + 2, n - 2) });
  };

  const describe = (a, withPort) => {
    if (a.family === FAMILY.IPV4) {
      const host = [...a.bytes].join('.');
      return withPort ? `${host}:${a.port}` : host;
    }
    const groups = [];
    for (let i = 0; i < 16; i += 2) groups.push(((a.bytes[i] << 8) | a.bytes[i + 1]).toString(16));
    // The longest run of zero groups becomes '::' (RFC 5952).
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
    let host = groups.join(':');
    if (best[0] >= 0) {
      host = `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
    }
    return withPort ? `[${host}]:${a.port}` : host;
  };

  const tcp = {
    'PPB_TCPSocket;1.0:Create': make('TCPSocket'),
    'PPB_TCPSocket;1.0:IsTCPSocket': is('TCPSocket'),
    'PPB_TCPSocket;1.0:Connect': denied('TCPSocket'),
    'PPB_TCPSocket;1.0:GetLocalAddress': none,
    'PPB_TCPSocket;1.0:GetRemoteAddress': none,
    'PPB_TCPSocket;1.0:Read': denied('TCPSocket'),
    'PPB_TCPSocket;1.0:Write': denied('TCPSocket'),
    'PPB_TCPSocket;1.0:Close': close,
    'PPB_TCPSocket;1.0:SetOption': denied('TCPSocket'),
    'PPB_TCPSocket;1.1:Bind': denied('TCPSocket'),
    'PPB_TCPSocket;1.1:Listen': denied('TCPSocket'),
    'PPB_TCPSocket;1.1:Accept': denied('TCPSocket'),
  };
  const udp = {
    'PPB_UDPSocket;1.0:Create': make('UDPSocket'),
    'PPB_UDPSocket;1.0:IsUDPSocket': is('UDPSocket'),
    'PPB_UDPSocket;1.0:Bind': denied('UDPSocket'),
    'PPB_UDPSocket;1.0:GetBoundAddress': none,
    'PPB_UDPSocket;1.0:RecvFrom': denied('UDPSocket'),
    'PPB_UDPSocket;1.0:SendTo': denied('UDPSocket'),
    'PPB_UDPSocket;1.0:Close': close,
    'PPB_UDPSocket;1.0:SetOption': denied('UDPSocket'),
    'PPB_UDPSocket;1.2:JoinGroup': denied('UDPSocket'),
    'PPB_UDPSocket;1.2:LeaveGroup': denied('UDPSocket'),
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
      vars.write(ret, a ? vars.string(describe(a, includePort !== 0)) : { type: 0, value: 0 });
    },
    'PPB_NetAddress;1.0:DescribeAsIPv4Address'(cx, id, out) {
      const a = addr(id);
      if (!a || a.family !== FAMILY.IPV4) return PP_FALSE;
      mem.check(out, IPV4);
      mem.setU8(out, a.port >> 8);
      mem.setU8(out + 1, a.port & 0xff);
      mem.write(out + 2, a.bytes);
      return PP_TRUE;
    },
    'PPB_NetAddress;1.0:DescribeAsIPv6Address'(cx, id, out) {
      const a = addr(id);
      if (!a || a.family !== FAMILY.IPV6) return PP_FALSE;
      mem.check(out, IPV6);
      mem.setU8(out, a.port >> 8);
      mem.setU8(out + 1, a.port & 0xff);
      mem.write(out + 2, a.bytes);
      return PP_TRUE;
    },
    'PPB_HostResolver;1.0:Create': make('HostResolver'),
    'PPB_HostResolver;1.0:IsHostResolver': is('HostResolver'),
    'PPB_HostResolver;1.0:Resolve': denied('HostResolver'),
    'PPB_HostResolver;1.0:GetCanonicalName'(cx, ret, id) {
      vars.write(ret, resources.get(id, 'HostResolver') ? vars.string('') : { type: 0, value: 0 });
    },
    'PPB_HostResolver;1.0:GetNetAddressCount': none,
    'PPB_HostResolver;1.0:GetNetAddress': none,
    ...tcp,
    ...udp,
  };
};
