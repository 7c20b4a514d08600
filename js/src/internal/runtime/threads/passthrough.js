// In Node, a guest thread in a Worker writes stdout/stderr (and reads
// stdin) straight to the host's fds 1/2 (0) with fs.writeSync / readSync
// when the guest fd still refers to the inherited stream: byte for byte,
// in the order the guest threads make the calls, without a round trip to
// the host thread. Anywhere, writes to the output ring go into it here,
// and writes to a discarded output (no sink) end here. The control block's STDIO slots say which guest fds
// pass through (the host updates them on close/dup2); every other call
// goes to the host as usual.

import { STDIO, STDIO_DISCARD } from '../control.js';
import { hostReadSync, hostWriteSync } from '../fs/index.js';
import { MAX_IO } from '../irt/fdio.js';
import { guardAll } from '../irt/guard.js';

/**
 * Wraps the host calls `read` and `write` with the fast paths: Node's
 * inherited fds (`nodeFs`), the output ring (`ring`, an OutputRingWriter)
 * for stdout/stderr function sinks, and discarded outputs.
 */
export function withPassthrough(hostCalls, { mem, control, nodeFs = null, ring = null }) {
  const slow = { read: hostCalls.read, write: hostCalls.write };
  const hostFd = (fd) => (fd >= 0 && fd <= 2 ? Atomics.load(control, STDIO + fd) : -1);
  // Views of guest memory for the ring's path, made again only when an
  // access goes past them (memory only grows, so older views stay valid):
  // asking the memory for its buffer on every write costs more than the
  // copy of a line.
  let u8 = mem.u8();
  let dv = mem.view();
  const covers = (addr, len) => {
    if (addr + len <= u8.length) return true;
    u8 = mem.u8();
    dv = mem.view();
    return addr + len <= u8.length;
  };
  const fast = guardAll({
    read(fd, buf, count, nreadPtr) {
      const h = hostFd(fd);
      if (h < 0 || !nodeFs) return slow.read(fd, buf, count, nreadPtr);
      const len = Math.min(count >>> 0, MAX_IO);
      mem.check(buf, len);
      mem.check(nreadPtr, 4);
      const bytes = hostReadSync(nodeFs, h, len);
      mem.write(buf, bytes);
      mem.setU32(nreadPtr, bytes.length);
      return 0;
    },
    write(fd, buf, count, nwrotePtr) {
      const h = hostFd(fd);
      if (h === STDIO_DISCARD) {
        // Nobody receives it: what the host would do (check, count), here.
        const len = Math.min(count >>> 0, MAX_IO);
        mem.check(buf, len);
        mem.check(nwrotePtr, 4);
        mem.setU32(nwrotePtr, len);
        return 0;
      }
      if ((h === -2 || h === -3) && ring) {
        const len = Math.min(count >>> 0, MAX_IO);
        const at = buf >>> 0;
        const out = nwrotePtr >>> 0;
        if (!covers(out, 4)) mem.check(nwrotePtr, 4);
        if (!covers(at, len)) mem.check(buf, len);
        // Straight from guest memory into the ring: no copy in between.
        ring.write(-2 - h, u8.subarray(at, at + len));
        dv.setUint32(out, len, true);
        return 0;
      }
      if (h < 0 || !nodeFs) return slow.write(fd, buf, count, nwrotePtr);
      const len = Math.min(count >>> 0, MAX_IO);
      mem.check(nwrotePtr, 4);
      hostWriteSync(nodeFs, h, mem.read(buf, len));
      mem.setU32(nwrotePtr, len);
      return 0;
    },
  });
  return { ...hostCalls, ...fast };
}
