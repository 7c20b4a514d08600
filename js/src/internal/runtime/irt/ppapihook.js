// IRT interface "nacl-irt-ppapihook-0.1". `query` only answers it when the
// embedder provides Pepper, which this runtime does not (yet): a guest
// that calls these anyway gets ENOSYS, and registering a thread creator
// does nothing.
//
//   ppapi_start(const struct PP_StartFunctions *)
//   ppapi_register_thread_creator(const struct PP_ThreadFunctions *)

import { errno } from '../defs.js';

export function ppapihook() {
  return {
    ppapi_start() {
      return errno.ENOSYS;
    },
    ppapi_register_thread_creator() {},
  };
}
