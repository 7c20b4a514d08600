// IRT interface "nacl-irt-ppapihook-0.1", answered only to Pepper plugins
// (query.js): how libppapi hands the runtime its start functions.
//
//   int ppapi_start(const struct PP_StartFunctions *funcs)
//   void ppapi_register_thread_creator(const struct PP_ThreadFunctions *new_funcs)
//
// ppapi_start never returns while the plugin lives: it throws PepperStart
// (pepper/start.js), which unwinds the main thread's frames and turns it
// into the plugin's event loop. Off the main thread, or in a process that
// is not a plugin, it answers ENOSYS.

export { ppapihook } from '../../pepper/start.js';
