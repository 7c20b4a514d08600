// The IRT query function: the AT_SYSINFO value (table address 1) that
// libnacl calls to look up each interface. Thread side.
//
//   size_t query(const char *interface_ident, void *table, size_t tablesize)
//
// For a known interface whose table fits, writes the table addresses of its
// functions (little-endian i32 each; IRT function k has address 1 + k) and
// returns the bytes written. Unknown names, Pepper's hook interface when
// Pepper is off, and tables too small all return 0.

import { IRT_INTERFACES, PEPPER_INTERFACES, irtAddress } from '../abi.js';

/** The most bytes of an interface name read before giving up (0). */
const MAX_NAME = 256;

/** The [first, last] IRT indices of interface `name`, or null. */
export function interfaceSlots(name, { pepper = false } = {}) {
  if (Object.hasOwn(IRT_INTERFACES, name)) return IRT_INTERFACES[name];
  if (pepper && Object.hasOwn(PEPPER_INTERFACES, name)) return PEPPER_INTERFACES[name];
  return null;
}

/** The query function for one thread ({ mem, pepper }). */
export function query(thread) {
  const { mem } = thread;
  return {
    query(namePtr, table, size) {
      let name;
      try {
        name = mem.readCString(namePtr, MAX_NAME);
      } catch {
        return 0;
      }
      const slots = interfaceSlots(name, { pepper: thread.pepper });
      if (!slots) return 0;
      const [first, last] = slots;
      const bytes = 4 * (last - first + 1);
      if ((size >>> 0) < bytes) return 0;
      try {
        mem.check(table, bytes);
      } catch {
        return 0;
      }
      for (let k = first; k <= last; k++) mem.setU32(table + 4 * (k - first), irtAddress(k));
      return bytes;
    },
  };
}
