// PPB_VarArrayBuffer;1.0, PPB_VarArray;1.0, PPB_VarDictionary;1.0.
//
//   struct PP_Var VarArrayBuffer.Create(uint32_t size_in_bytes)
//   PP_Bool ByteLength(struct PP_Var array, uint32_t* byte_length)
//   void* Map(struct PP_Var array)
//   void Unmap(struct PP_Var array)
//
//   struct PP_Var VarArray.Create(void)
//   struct PP_Var Get(struct PP_Var array, uint32_t index)
//   PP_Bool Set(struct PP_Var array, uint32_t index, struct PP_Var value)
//   uint32_t GetLength(struct PP_Var array)
//   PP_Bool SetLength(struct PP_Var array, uint32_t length)
//
//   struct PP_Var VarDictionary.Create(void)
//   struct PP_Var Get(struct PP_Var dict, struct PP_Var key)
//   PP_Bool Set(struct PP_Var dict, struct PP_Var key, struct PP_Var value)
//   void Delete(struct PP_Var dict, struct PP_Var key)
//   PP_Bool HasKey(struct PP_Var dict, struct PP_Var key)
//   struct PP_Var GetKeys(struct PP_Var dict)
//
// An array buffer's bytes live in guest memory (vars.js), so Map returns
// a pointer the plugin reads and writes and Unmap has nothing to copy.
// Containers hold one reference to each element; Get returns a new
// reference for the caller.

import { VAR } from '../defs.js';
import { makeVar } from '../vars.js';

/** The most elements SetLength/Set may grow an array to. */
export const MAX_ARRAY_LENGTH = 1 << 24;
/** The largest array buffer a plugin may create (the page's limit is memory). */
export const MAX_ARRAY_BUFFER = 1 << 30;

export default (b) => {
  const { vars } = b;
  const undef = () => makeVar(VAR.UNDEFINED);
  const bool = (x) => (x ? 1 : 0);
  return {
    'PPB_VarArrayBuffer;1.0:Create'(cx, ret, size) {
      size >>>= 0;
      const v = size <= MAX_ARRAY_BUFFER ? vars.arrayBuffer(size) : null;
      vars.write(ret, v ?? makeVar(VAR.NULL));
    },
    'PPB_VarArrayBuffer;1.0:ByteLength'(cx, v, out) {
      const e = vars.entry(vars.read(v), VAR.ARRAY_BUFFER);
      if (!e) return 0;
      b.mem.setU32(out, e.length);
      return 1;
    },
    'PPB_VarArrayBuffer;1.0:Map'(cx, v) {
      return vars.entry(vars.read(v), VAR.ARRAY_BUFFER)?.ptr ?? 0;
    },
    'PPB_VarArrayBuffer;1.0:Unmap'() {},

    'PPB_VarArray;1.0:Create'(cx, ret) {
      vars.write(ret, vars.array());
    },
    'PPB_VarArray;1.0:Get'(cx, ret, array, index) {
      const e = vars.entry(vars.read(array), VAR.ARRAY);
      const item = e?.items[index >>> 0] ?? undef();
      vars.addRef(item);
      vars.write(ret, item);
    },
    'PPB_VarArray;1.0:Set'(cx, array, index, value) {
      const e = vars.entry(vars.read(array), VAR.ARRAY);
      index >>>= 0;
      if (!e || index >= MAX_ARRAY_LENGTH) return 0;
      const v = vars.read(value);
      vars.addRef(v);
      while (e.items.length <= index) e.items.push(undef());
      const old = e.items[index];
      e.items[index] = v;
      vars.release(old);
      return 1;
    },
    'PPB_VarArray;1.0:GetLength'(cx, array) {
      return vars.entry(vars.read(array), VAR.ARRAY)?.items.length ?? 0;
    },
    'PPB_VarArray;1.0:SetLength'(cx, array, length) {
      const e = vars.entry(vars.read(array), VAR.ARRAY);
      length >>>= 0;
      if (!e || length > MAX_ARRAY_LENGTH) return 0;
      while (e.items.length > length) vars.release(e.items.pop());
      while (e.items.length < length) e.items.push(undef());
      return 1;
    },

    'PPB_VarDictionary;1.0:Create'(cx, ret) {
      vars.write(ret, vars.dictionary());
    },
    'PPB_VarDictionary;1.0:Get'(cx, ret, dict, key) {
      const e = vars.entry(vars.read(dict), VAR.DICTIONARY);
      const k = vars.stringOf(vars.read(key));
      const item = (e && k !== null ? e.map.get(k) : undefined) ?? undef();
      vars.addRef(item);
      vars.write(ret, item);
    },
    'PPB_VarDictionary;1.0:Set'(cx, dict, key, value) {
      const e = vars.entry(vars.read(dict), VAR.DICTIONARY);
      const k = vars.stringOf(vars.read(key));
      if (!e || k === null) return 0;
      const v = vars.read(value);
      vars.addRef(v);
      const old = e.map.get(k);
      e.map.set(k, v);
      if (old) vars.release(old);
      return 1;
    },
    'PPB_VarDictionary;1.0:Delete'(cx, dict, key) {
      const e = vars.entry(vars.read(dict), VAR.DICTIONARY);
      const k = vars.stringOf(vars.read(key));
      if (!e || k === null) return;
      const old = e.map.get(k);
      if (old) {
        e.map.delete(k);
        vars.release(old);
      }
    },
    'PPB_VarDictionary;1.0:HasKey'(cx, dict, key) {
      const e = vars.entry(vars.read(dict), VAR.DICTIONARY);
      const k = vars.stringOf(vars.read(key));
      return bool(e && k !== null && e.map.has(k));
    },
    'PPB_VarDictionary;1.0:GetKeys'(cx, ret, dict) {
      const e = vars.entry(vars.read(dict), VAR.DICTIONARY);
      if (!e) {
        vars.write(ret, makeVar(VAR.NULL));
        return;
      }
      const arr = vars.array();
      const items = vars.entries.get(arr.value).items;
      for (const k of e.map.keys()) items.push(vars.string(k));
      vars.write(ret, arr);
    },
  };
};
