// IRT interface "nacl-irt-random-0.1". Thread side.
//
//   get_random_bytes(void *buf, size_t count, size_t *nread)
//
// crypto.getRandomValues refuses views on a SharedArrayBuffer (and takes at
// most 65536 bytes at a time), so it fills a private buffer that is then
// copied into the guest's shared memory.

import { guardAll } from './guard.js';

const CHUNK = 65536;

/** The random functions for one thread ({ mem }). */
export function random(thread) {
  const { mem } = thread;
  return guardAll({
    get_random_bytes(buf, count, nreadPtr) {
      count >>>= 0;
      mem.check(buf, count);
      mem.check(nreadPtr, 4);
      const chunk = new Uint8Array(Math.min(count, CHUNK));
      for (let done = 0; done < count; done += chunk.length) {
        const part = chunk.subarray(0, Math.min(chunk.length, count - done));
        globalThis.crypto.getRandomValues(part);
        mem.write(buf + done, part);
      }
      mem.setU32(nreadPtr, count);
      return 0;
    },
  });
}
