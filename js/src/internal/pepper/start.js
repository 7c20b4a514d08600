// What every guest thread links whether or not the module is a Pepper
// plugin (thread.js), kept apart from the plugin side (plugin.js) so that a
// command-line program never loads Pepper (load.js):
//
// - `ppapihook(thread)`: IRT `nacl-irt-ppapihook-0.1`. `ppapi_start` throws
//   `PepperStart` with the plugin's start functions (see plugin.js).

import { errno } from '../runtime/defs.js';
import { MAIN_TID, PP_START } from './defs.js';

/** Thrown by ppapi_start on the main thread: the plugin's start functions. */
export class PepperStart extends Error {
  constructor(funcs) {
    super('the plugin entered its Pepper message loop');
    this.name = 'PepperStart';
    this.funcs = funcs;
  }
}

/** IRT `nacl-irt-ppapihook-0.1` for one thread. */
export function ppapihook(thread) {
  return {
    ppapi_start(funcs) {
      if (thread.tid !== MAIN_TID || !thread.pepper) return errno.ENOSYS;
      const m = thread.mem;
      m.check(funcs, PP_START.SIZE);
      throw new PepperStart({
        initialize: m.getU32(funcs + PP_START.initialize),
        shutdown: m.getU32(funcs + PP_START.shutdown),
        getInterface: m.getU32(funcs + PP_START.getInterface),
      });
    },
    // The plugin's pthread_create/pthread_join (libppapi registers them
    // before ppapi_start): PPB_Audio starts its thread with them, so that
    // the thread has the plugin's TLS.
    ppapi_register_thread_creator(funcs) {
      const m = thread.mem;
      m.check(funcs, 8);
      thread.threadCreator = { create: m.getU32(funcs), join: m.getU32(funcs + 4) };
    },
  };
}
