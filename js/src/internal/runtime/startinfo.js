// The startup info block `_start` receives (NaCl nacl_startup.h; abi.md,
// "Startup info"): 32-bit little-endian words
//
//   [0] 0 (fini)  [1] envc  [2] argc  argv[0..argc) 0  envp[0..envc) 0
//   32 (AT_SYSINFO)  1 (the table address of `query`)  0 0 (AT_NULL)
//
// followed by the argv and envp strings, NUL-terminated, packed.

import { irtAddress } from './abi.js';
import { AT } from './defs.js';
import { utf8 } from './memory.js';

/** The environment as "K=V" strings (an object's entries, or an array as is). */
export function envStrings(env) {
  return Array.isArray(env) ? env.map(String) : Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

/** Bytes the block needs for `args` and `env` (strings). */
export function startInfoSize(args, env) {
  const words = 3 + args.length + 1 + env.length + 1 + 4;
  const strings = [...args, ...env].reduce((n, s) => n + utf8(s).length + 1, 0);
  return 4 * words + strings;
}

/**
 * Writes the block at `addr` for `args` and `env` (arrays of strings);
 * returns its size in bytes.
 */
export function writeStartInfo(mem, addr, args, env) {
  const size = startInfoSize(args, env);
  mem.check(addr, size);
  const words = [0, env.length, args.length];
  const argBytes = args.map(utf8);
  const envBytes = env.map(utf8);
  let str = addr + 4 * (3 + args.length + 1 + env.length + 1 + 4);
  const place = (bytes) => {
    const at = str;
    mem.writeCBytes(at, bytes);
    str += bytes.length + 1;
    return at;
  };
  for (const b of argBytes) words.push(place(b));
  words.push(0);
  for (const b of envBytes) words.push(place(b));
  words.push(0);
  words.push(AT.SYSINFO, irtAddress(0), AT.NULL, 0);
  words.forEach((w, i) => mem.setU32(addr + 4 * i, w));
  return size;
}
