// PP_ArrayOutput (ppapi/c/pp_array_output.h): how the browser hands the
// plugin an array whose size only it knows.
//
//   struct PP_ArrayOutput {
//     void* (*GetDataBuffer)(void* user_data, uint32_t element_count, uint32_t element_size);
//     void* user_data;
//   };
//
// GetDataBuffer is plugin code, which only the plugin's own thread can
// run. A call that fills an output (defs.js ARRAY_OUTPUT_FUNCTIONS) keeps
// its data in `b.outputs` (Browser.completeWithOutput); the calling
// thread runs GetDataBuffer when the data is there — before its callback
// runs, or before its blocking call returns, where Chrome ran it too — and
// gives the buffer to `$ArrayOutput.fill`, which copies the data in. A
// NULL buffer for a non-empty array stores nothing (the call's result
// stands, as with Chrome's ArrayWriter) and releases the resources the
// data held.

import { PP } from '../defs.js';

export default (b) => ({
  /** Stores output `id` at `ptr` (the plugin's buffer); answers the call's result. */
  '$ArrayOutput.fill'(cx, id, ptr) {
    const o = b.outputs.get(id);
    if (!o) return PP.ERROR_FAILED;
    b.outputs.delete(id);
    if (o.count > 0) {
      if (ptr === 0) {
        o.drop?.();
        return o.result;
      }
      b.mem.write(ptr, o.bytes);
    }
    return o.result;
  },
});
