// PPB_Console;1.0: messages for the developer console.
//
//   void Log(PP_Instance instance, PP_LogLevel level, struct PP_Var value)
//   void LogWithSource(PP_Instance instance, PP_LogLevel level, struct PP_Var source, struct PP_Var value)
//
// The embedder decides where they go (the page's console, stderr in Node).

import { INSTANCE_ID, LOG_NAMES, VAR } from '../defs.js';

export default (b) => {
  const text = (ptr) => {
    const v = b.vars.read(ptr);
    if (v.type === VAR.STRING) return b.vars.stringOf(v) ?? '';
    try {
      const js = b.vars.toJs(v);
      return typeof js === 'string' ? js : js instanceof ArrayBuffer ? `[ArrayBuffer ${js.byteLength}]` : JSON.stringify(js) ?? String(js);
    } catch {
      return '[unprintable var]';
    }
  };
  const level = (l) => LOG_NAMES[l] ?? 'log';
  return {
    'PPB_Console;1.0:Log'(cx, instance, lvl, value) {
      if (instance !== INSTANCE_ID) return;
      b.embedder.log?.(level(lvl), '', text(value));
    },
    'PPB_Console;1.0:LogWithSource'(cx, instance, lvl, source, value) {
      if (instance !== INSTANCE_ID) return;
      b.embedder.log?.(level(lvl), text(source), text(value));
    },
  };
};
