// PPB_Var;1.0, 1.1, 1.2: strings and reference counts of every var.
//
//   void AddRef(struct PP_Var var)
//   void Release(struct PP_Var var)
//   struct PP_Var VarFromUtf8(PP_Module module, const char* data, uint32_t len)   (1.0)
//   struct PP_Var VarFromUtf8(const char* data, uint32_t len)                     (1.1, 1.2)
//   const char* VarToUtf8(struct PP_Var var, uint32_t* len)
//   PP_Resource VarToResource(struct PP_Var var)                                  (1.2)
//   struct PP_Var VarFromResource(PP_Resource resource)                           (1.2)
//
// Structs by value arrive as pointers to the caller's copy; struct results
// are written through the leading `ret` pointer (pepper-facts.md §1-2).

import { VAR } from '../defs.js';
import { makeVar } from '../vars.js';

/** Most bytes one VarFromUtf8 takes (a string var is a message, not a file). */
export const MAX_STRING = 256 << 20;

export default (b) => {
  const { vars, mem } = b;
  const fromUtf8 = (ret, data, len) => {
    len >>>= 0;
    const v = len > MAX_STRING ? makeVar(VAR.NULL) : vars.stringFromUtf8(len === 0 ? new Uint8Array(0) : mem.read(data, len));
    vars.write(ret, v);
  };
  return {
    'PPB_Var;1.0:AddRef'(cx, v) {
      vars.addRef(vars.read(v));
    },
    'PPB_Var;1.0:Release'(cx, v) {
      vars.release(vars.read(v));
    },
    'PPB_Var;1.0:VarFromUtf8'(cx, ret, module, data, len) {
      fromUtf8(ret, data, len);
    },
    'PPB_Var;1.1:VarFromUtf8'(cx, ret, data, len) {
      fromUtf8(ret, data, len);
    },
    'PPB_Var;1.0:VarToUtf8'(cx, v, lenPtr) {
      const s = vars.utf8In(vars.read(v));
      if (lenPtr !== 0) mem.setU32(lenPtr, s ? s.len : 0);
      return s ? s.ptr : 0;
    },
    'PPB_Var;1.2:VarToResource'(cx, v) {
      const e = vars.entry(vars.read(v), VAR.RESOURCE);
      if (!e || !b.resources.addRef(e.resource)) return 0;
      return e.resource;
    },
    'PPB_Var;1.2:VarFromResource'(cx, ret, resource) {
      vars.write(ret, b.resources.get(resource) ? vars.resource(resource) : makeVar(VAR.NULL));
    },
  };
};
