// Browser functions that belong to no interface (`@browser` in ppapi.h).
//
//   const void* PPB_GetInterface(const char* interface_name)
//
// The lookup the plugin gets from PPP_InitializeModule: the address of the
// interface's function table in guest memory, or NULL for an interface
// this runtime does not provide (browser.js getInterface).

/** The longest interface name read. */
const MAX_NAME = 256;

export default (b) => ({
  '@browser:PPB_GetInterface'(cx, name) {
    let s;
    try {
      s = b.mem.readCString(name, MAX_NAME);
    } catch {
      return 0;
    }
    return b.getInterface(s);
  },
});
