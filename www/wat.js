// The text form of one function of a WebAssembly module, for the
// inspector's "WebAssembly text" pane, in the layout of wasmprinter (what
// `pexe translate --wat` prints): flat instructions, two spaces per block
// level, `;; label = @N` on block starts, `(;@N;)` after branch depths,
// hex floats with their decimal value, `align=` only when not natural.
//
// Used when the package has no per-function WAT of its own: the page
// translates the whole pexe once (pkg.translate) and prints the function it
// is asked for. Covers what WebAssembly 2.0 defines plus the threads
// (atomics) and legacy exception-handling proposals, which is everything
// the pexe back end emits; an opcode it does not know ends the text with a
// `;; unknown opcode` line instead of a wrong listing.
//
//   const m = new WasmModule(bytes);
//   m.functionIndexOfSlot(53 + pexeFunctionId)   // the table maps pexe ids (runtime ABI)
//   m.functionText(index)

const VALTYPES = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128', 0x70: 'funcref', 0x6f: 'externref', 0x69: 'exnref' };

class Reader {
  constructor(bytes, pos = 0, end = bytes.length) {
    this.b = bytes;
    this.p = pos;
    this.end = end;
  }
  byte() {
    if (this.p >= this.end) throw new Error('unexpected end of module');
    return this.b[this.p++];
  }
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const x = this.byte();
      result += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) return result;
      shift += 7;
      if (shift > 35) throw new Error('bad LEB128');
    }
  }
  s32() {
    let result = 0;
    let shift = 0;
    let x;
    do {
      x = this.byte();
      result |= (x & 0x7f) << shift;
      shift += 7;
    } while (x & 0x80 && shift < 35);
    if (shift < 32 && x & 0x40) result |= -1 << shift;
    return result | 0;
  }
  s64() {
    let result = 0n;
    let shift = 0n;
    let x;
    do {
      x = this.byte();
      result |= BigInt(x & 0x7f) << shift;
      shift += 7n;
    } while (x & 0x80 && shift < 70n);
    if (shift < 64n && x & 0x40) result |= -1n << shift;
    return BigInt.asIntN(64, result);
  }
  /** Signed 33-bit block type index (always non-negative when it is a type index). */
  s33() {
    return this.s32();
  }
  bytes(n) {
    if (this.p + n > this.end) throw new Error('unexpected end of module');
    const out = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return out;
  }
  name() {
    return new TextDecoder().decode(this.bytes(this.u32()));
  }
  valtype() {
    const t = this.byte();
    if (t === 0x64 || t === 0x63) {
      // (ref ht) / (ref null ht)
      const ht = this.s32();
      return `(ref ${t === 0x63 ? 'null ' : ''}${ht < 0 ? { '-16': 'func', '-17': 'extern' }[ht] ?? ht : ht})`;
    }
    return VALTYPES[t] ?? `<0x${t.toString(16)}>`;
  }
}

// ------------------------------------------------------------------ opcodes

/** One-byte opcodes → [name, immediate kind]. */
const OPS = new Map();
const op = (code, name, imm = null) => OPS.set(code, [name, imm]);
op(0x00, 'unreachable'); op(0x01, 'nop');
op(0x02, 'block', 'block'); op(0x03, 'loop', 'block'); op(0x04, 'if', 'block');
op(0x05, 'else', 'else'); op(0x06, 'try', 'block'); op(0x07, 'catch', 'catch');
op(0x08, 'throw', 'tag'); op(0x09, 'rethrow', 'label'); op(0x0b, 'end', 'end');
op(0x0c, 'br', 'label'); op(0x0d, 'br_if', 'label'); op(0x0e, 'br_table', 'br_table');
op(0x0f, 'return'); op(0x10, 'call', 'func'); op(0x11, 'call_indirect', 'call_indirect');
op(0x12, 'return_call', 'func'); op(0x13, 'return_call_indirect', 'call_indirect');
op(0x18, 'delegate', 'delegate'); op(0x19, 'catch_all', 'catch');
op(0x1a, 'drop'); op(0x1b, 'select'); op(0x1c, 'select', 'select_t');
op(0x20, 'local.get', 'local'); op(0x21, 'local.set', 'local'); op(0x22, 'local.tee', 'local');
op(0x23, 'global.get', 'global'); op(0x24, 'global.set', 'global');
op(0x25, 'table.get', 'table'); op(0x26, 'table.set', 'table');
const LOADS = [
  [0x28, 'i32.load', 2], [0x29, 'i64.load', 3], [0x2a, 'f32.load', 2], [0x2b, 'f64.load', 3],
  [0x2c, 'i32.load8_s', 0], [0x2d, 'i32.load8_u', 0], [0x2e, 'i32.load16_s', 1], [0x2f, 'i32.load16_u', 1],
  [0x30, 'i64.load8_s', 0], [0x31, 'i64.load8_u', 0], [0x32, 'i64.load16_s', 1], [0x33, 'i64.load16_u', 1],
  [0x34, 'i64.load32_s', 2], [0x35, 'i64.load32_u', 2], [0x36, 'i32.store', 2], [0x37, 'i64.store', 3],
  [0x38, 'f32.store', 2], [0x39, 'f64.store', 3], [0x3a, 'i32.store8', 0], [0x3b, 'i32.store16', 1],
  [0x3c, 'i64.store8', 0], [0x3d, 'i64.store16', 1], [0x3e, 'i64.store32', 2],
];
for (const [c, n, a] of LOADS) op(c, n, `mem${a}`);
op(0x3f, 'memory.size', 'memidx'); op(0x40, 'memory.grow', 'memidx');
op(0x41, 'i32.const', 'i32'); op(0x42, 'i64.const', 'i64'); op(0x43, 'f32.const', 'f32'); op(0x44, 'f64.const', 'f64');
[
  'i32.eqz i32.eq i32.ne i32.lt_s i32.lt_u i32.gt_s i32.gt_u i32.le_s i32.le_u i32.ge_s i32.ge_u',
  'i64.eqz i64.eq i64.ne i64.lt_s i64.lt_u i64.gt_s i64.gt_u i64.le_s i64.le_u i64.ge_s i64.ge_u',
  'f32.eq f32.ne f32.lt f32.gt f32.le f32.ge f64.eq f64.ne f64.lt f64.gt f64.le f64.ge',
  'i32.clz i32.ctz i32.popcnt i32.add i32.sub i32.mul i32.div_s i32.div_u i32.rem_s i32.rem_u',
  'i32.and i32.or i32.xor i32.shl i32.shr_s i32.shr_u i32.rotl i32.rotr',
  'i64.clz i64.ctz i64.popcnt i64.add i64.sub i64.mul i64.div_s i64.div_u i64.rem_s i64.rem_u',
  'i64.and i64.or i64.xor i64.shl i64.shr_s i64.shr_u i64.rotl i64.rotr',
  'f32.abs f32.neg f32.ceil f32.floor f32.trunc f32.nearest f32.sqrt f32.add f32.sub f32.mul f32.div f32.min f32.max f32.copysign',
  'f64.abs f64.neg f64.ceil f64.floor f64.trunc f64.nearest f64.sqrt f64.add f64.sub f64.mul f64.div f64.min f64.max f64.copysign',
  'i32.wrap_i64 i32.trunc_f32_s i32.trunc_f32_u i32.trunc_f64_s i32.trunc_f64_u i64.extend_i32_s i64.extend_i32_u',
  'i64.trunc_f32_s i64.trunc_f32_u i64.trunc_f64_s i64.trunc_f64_u f32.convert_i32_s f32.convert_i32_u',
  'f32.convert_i64_s f32.convert_i64_u f32.demote_f64 f64.convert_i32_s f64.convert_i32_u f64.convert_i64_s',
  'f64.convert_i64_u f64.promote_f32 i32.reinterpret_f32 i64.reinterpret_f64 f32.reinterpret_i32 f64.reinterpret_i64',
  'i32.extend8_s i32.extend16_s i64.extend8_s i64.extend16_s i64.extend32_s',
]
  .join(' ')
  .split(' ')
  .forEach((name, i) => op(0x45 + i, name));
op(0xd0, 'ref.null', 'heaptype'); op(0xd1, 'ref.is_null'); op(0xd2, 'ref.func', 'func');

/** 0xFC prefix. */
const FC = new Map();
'i32.trunc_sat_f32_s i32.trunc_sat_f32_u i32.trunc_sat_f64_s i32.trunc_sat_f64_u i64.trunc_sat_f32_s i64.trunc_sat_f32_u i64.trunc_sat_f64_s i64.trunc_sat_f64_u'
  .split(' ')
  .forEach((n, i) => FC.set(i, [n, null]));
FC.set(8, ['memory.init', 'memory.init']); FC.set(9, ['data.drop', 'index']);
FC.set(10, ['memory.copy', 'memory.copy']); FC.set(11, ['memory.fill', 'memidx']);
FC.set(12, ['table.init', 'table.init']); FC.set(13, ['elem.drop', 'index']);
FC.set(14, ['table.copy', 'table.copy']); FC.set(15, ['table.grow', 'table']);
FC.set(16, ['table.size', 'table']); FC.set(17, ['table.fill', 'table']);

/** 0xFE prefix (threads): [name, natural alignment log2] — null align for fence/notify handled. */
const FE = new Map();
FE.set(0x00, ['memory.atomic.notify', 2]); FE.set(0x01, ['memory.atomic.wait32', 2]); FE.set(0x02, ['memory.atomic.wait64', 3]);
FE.set(0x03, ['atomic.fence', null]);
[
  ['i32.atomic.load', 2], ['i64.atomic.load', 3], ['i32.atomic.load8_u', 0], ['i32.atomic.load16_u', 1],
  ['i64.atomic.load8_u', 0], ['i64.atomic.load16_u', 1], ['i64.atomic.load32_u', 2],
  ['i32.atomic.store', 2], ['i64.atomic.store', 3], ['i32.atomic.store8', 0], ['i32.atomic.store16', 1],
  ['i64.atomic.store8', 0], ['i64.atomic.store16', 1], ['i64.atomic.store32', 2],
].forEach(([n, a], i) => FE.set(0x10 + i, [n, a]));
['add', 'sub', 'and', 'or', 'xor', 'xchg', 'cmpxchg'].forEach((rmw, k) => {
  const base = 0x1e + k * 7;
  FE.set(base, [`i32.atomic.rmw.${rmw}`, 2]);
  FE.set(base + 1, [`i64.atomic.rmw.${rmw}`, 3]);
  FE.set(base + 2, [`i32.atomic.rmw8.${rmw}_u`, 0]);
  FE.set(base + 3, [`i32.atomic.rmw16.${rmw}_u`, 1]);
  FE.set(base + 4, [`i64.atomic.rmw8.${rmw}_u`, 0]);
  FE.set(base + 5, [`i64.atomic.rmw16.${rmw}_u`, 1]);
  FE.set(base + 6, [`i64.atomic.rmw32.${rmw}_u`, 2]);
});

/** 0xFD prefix (SIMD): [name, immediate kind]. */
const FD = new Map();
const simd = (code, name, imm = null) => FD.set(code, [name, imm]);
[
  ['v128.load', 4], ['v128.load8x8_s', 3], ['v128.load8x8_u', 3], ['v128.load16x4_s', 3], ['v128.load16x4_u', 3],
  ['v128.load32x2_s', 3], ['v128.load32x2_u', 3], ['v128.load8_splat', 0], ['v128.load16_splat', 1],
  ['v128.load32_splat', 2], ['v128.load64_splat', 3], ['v128.store', 4],
].forEach(([n, a], i) => simd(i, n, `mem${a}`));
simd(0x0c, 'v128.const', 'v128'); simd(0x0d, 'i8x16.shuffle', 'shuffle'); simd(0x0e, 'i8x16.swizzle');
'i8x16.splat i16x8.splat i32x4.splat i64x2.splat f32x4.splat f64x2.splat'.split(' ').forEach((n, i) => simd(0x0f + i, n));
[
  'i8x16.extract_lane_s', 'i8x16.extract_lane_u', 'i8x16.replace_lane', 'i16x8.extract_lane_s', 'i16x8.extract_lane_u',
  'i16x8.replace_lane', 'i32x4.extract_lane', 'i32x4.replace_lane', 'i64x2.extract_lane', 'i64x2.replace_lane',
  'f32x4.extract_lane', 'f32x4.replace_lane', 'f64x2.extract_lane', 'f64x2.replace_lane',
].forEach((n, i) => simd(0x15 + i, n, 'lane'));
const cmp10 = 'eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u'.split(' ');
cmp10.forEach((c, i) => simd(0x23 + i, `i8x16.${c}`));
cmp10.forEach((c, i) => simd(0x2d + i, `i16x8.${c}`));
cmp10.forEach((c, i) => simd(0x37 + i, `i32x4.${c}`));
'eq ne lt gt le ge'.split(' ').forEach((c, i) => simd(0x41 + i, `f32x4.${c}`));
'eq ne lt gt le ge'.split(' ').forEach((c, i) => simd(0x47 + i, `f64x2.${c}`));
'v128.not v128.and v128.andnot v128.or v128.xor v128.bitselect v128.any_true'.split(' ').forEach((n, i) => simd(0x4d + i, n));
[['v128.load8_lane', 0], ['v128.load16_lane', 1], ['v128.load32_lane', 2], ['v128.load64_lane', 3],
 ['v128.store8_lane', 0], ['v128.store16_lane', 1], ['v128.store32_lane', 2], ['v128.store64_lane', 3]]
  .forEach(([n, a], i) => simd(0x54 + i, n, `memlane${a}`));
simd(0x5c, 'v128.load32_zero', 'mem2'); simd(0x5d, 'v128.load64_zero', 'mem3');
const SIMD_REST = {
  0x5e: 'f32x4.demote_f64x2_zero', 0x5f: 'f64x2.promote_low_f32x4',
  0x60: 'i8x16.abs', 0x61: 'i8x16.neg', 0x62: 'i8x16.popcnt', 0x63: 'i8x16.all_true', 0x64: 'i8x16.bitmask',
  0x65: 'i8x16.narrow_i16x8_s', 0x66: 'i8x16.narrow_i16x8_u', 0x67: 'f32x4.ceil', 0x68: 'f32x4.floor',
  0x69: 'f32x4.trunc', 0x6a: 'f32x4.nearest', 0x6b: 'i8x16.shl', 0x6c: 'i8x16.shr_s', 0x6d: 'i8x16.shr_u',
  0x6e: 'i8x16.add', 0x6f: 'i8x16.add_sat_s', 0x70: 'i8x16.add_sat_u', 0x71: 'i8x16.sub', 0x72: 'i8x16.sub_sat_s',
  0x73: 'i8x16.sub_sat_u', 0x74: 'f64x2.ceil', 0x75: 'f64x2.floor', 0x76: 'i8x16.min_s', 0x77: 'i8x16.min_u',
  0x78: 'i8x16.max_s', 0x79: 'i8x16.max_u', 0x7a: 'f64x2.trunc', 0x7b: 'i8x16.avgr_u',
  0x7c: 'i16x8.extadd_pairwise_i8x16_s', 0x7d: 'i16x8.extadd_pairwise_i8x16_u',
  0x7e: 'i32x4.extadd_pairwise_i16x8_s', 0x7f: 'i32x4.extadd_pairwise_i16x8_u',
  0x80: 'i16x8.abs', 0x81: 'i16x8.neg', 0x82: 'i16x8.q15mulr_sat_s', 0x83: 'i16x8.all_true', 0x84: 'i16x8.bitmask',
  0x85: 'i16x8.narrow_i32x4_s', 0x86: 'i16x8.narrow_i32x4_u', 0x87: 'i16x8.extend_low_i8x16_s',
  0x88: 'i16x8.extend_high_i8x16_s', 0x89: 'i16x8.extend_low_i8x16_u', 0x8a: 'i16x8.extend_high_i8x16_u',
  0x8b: 'i16x8.shl', 0x8c: 'i16x8.shr_s', 0x8d: 'i16x8.shr_u', 0x8e: 'i16x8.add', 0x8f: 'i16x8.add_sat_s',
  0x90: 'i16x8.add_sat_u', 0x91: 'i16x8.sub', 0x92: 'i16x8.sub_sat_s', 0x93: 'i16x8.sub_sat_u',
  0x94: 'f64x2.nearest', 0x95: 'i16x8.mul', 0x96: 'i16x8.min_s', 0x97: 'i16x8.min_u', 0x98: 'i16x8.max_s',
  0x99: 'i16x8.max_u', 0x9b: 'i16x8.avgr_u', 0x9c: 'i16x8.extmul_low_i8x16_s', 0x9d: 'i16x8.extmul_high_i8x16_s',
  0x9e: 'i16x8.extmul_low_i8x16_u', 0x9f: 'i16x8.extmul_high_i8x16_u',
  0xa0: 'i32x4.abs', 0xa1: 'i32x4.neg', 0xa3: 'i32x4.all_true', 0xa4: 'i32x4.bitmask',
  0xa7: 'i32x4.extend_low_i16x8_s', 0xa8: 'i32x4.extend_high_i16x8_s', 0xa9: 'i32x4.extend_low_i16x8_u',
  0xaa: 'i32x4.extend_high_i16x8_u', 0xab: 'i32x4.shl', 0xac: 'i32x4.shr_s', 0xad: 'i32x4.shr_u', 0xae: 'i32x4.add',
  0xb1: 'i32x4.sub', 0xb5: 'i32x4.mul', 0xb6: 'i32x4.min_s', 0xb7: 'i32x4.min_u', 0xb8: 'i32x4.max_s',
  0xb9: 'i32x4.max_u', 0xba: 'i32x4.dot_i16x8_s', 0xbc: 'i32x4.extmul_low_i16x8_s', 0xbd: 'i32x4.extmul_high_i16x8_s',
  0xbe: 'i32x4.extmul_low_i16x8_u', 0xbf: 'i32x4.extmul_high_i16x8_u',
  0xc0: 'i64x2.abs', 0xc1: 'i64x2.neg', 0xc3: 'i64x2.all_true', 0xc4: 'i64x2.bitmask',
  0xc7: 'i64x2.extend_low_i32x4_s', 0xc8: 'i64x2.extend_high_i32x4_s', 0xc9: 'i64x2.extend_low_i32x4_u',
  0xca: 'i64x2.extend_high_i32x4_u', 0xcb: 'i64x2.shl', 0xcc: 'i64x2.shr_s', 0xcd: 'i64x2.shr_u', 0xce: 'i64x2.add',
  0xd1: 'i64x2.sub', 0xd5: 'i64x2.mul', 0xd6: 'i64x2.eq', 0xd7: 'i64x2.ne', 0xd8: 'i64x2.lt_s', 0xd9: 'i64x2.gt_s',
  0xda: 'i64x2.le_s', 0xdb: 'i64x2.ge_s', 0xdc: 'i64x2.extmul_low_i32x4_s', 0xdd: 'i64x2.extmul_high_i32x4_s',
  0xde: 'i64x2.extmul_low_i32x4_u', 0xdf: 'i64x2.extmul_high_i32x4_u',
  0xe0: 'f32x4.abs', 0xe1: 'f32x4.neg', 0xe3: 'f32x4.sqrt', 0xe4: 'f32x4.add', 0xe5: 'f32x4.sub', 0xe6: 'f32x4.mul',
  0xe7: 'f32x4.div', 0xe8: 'f32x4.min', 0xe9: 'f32x4.max', 0xea: 'f32x4.pmin', 0xeb: 'f32x4.pmax',
  0xec: 'f64x2.abs', 0xed: 'f64x2.neg', 0xef: 'f64x2.sqrt', 0xf0: 'f64x2.add', 0xf1: 'f64x2.sub', 0xf2: 'f64x2.mul',
  0xf3: 'f64x2.div', 0xf4: 'f64x2.min', 0xf5: 'f64x2.max', 0xf6: 'f64x2.pmin', 0xf7: 'f64x2.pmax',
  0xf8: 'i32x4.trunc_sat_f32x4_s', 0xf9: 'i32x4.trunc_sat_f32x4_u', 0xfa: 'f32x4.convert_i32x4_s',
  0xfb: 'f32x4.convert_i32x4_u', 0xfc: 'i32x4.trunc_sat_f64x2_s_zero', 0xfd: 'i32x4.trunc_sat_f64x2_u_zero',
  0xfe: 'f64x2.convert_low_i32x4_s', 0xff: 'f64x2.convert_low_i32x4_u',
};
for (const [c, n] of Object.entries(SIMD_REST)) simd(Number(c), n);

// ------------------------------------------------------------------ floats

const f32buf = new DataView(new ArrayBuffer(8));

/** wasmprinter-style hex float: `-0x1.3333333333333p-2`, `inf`, `nan`, `nan:0x200000`. */
function hexFloat(sign, exp, mant, mantBits, bias) {
  const s = sign ? '-' : '';
  const maxExp = bias * 2 + 1;
  if (exp === maxExp) {
    if (mant === 0n) return `${s}inf`;
    const canonical = 1n << BigInt(mantBits - 1);
    return mant === canonical ? `${s}nan` : `${s}nan:0x${mant.toString(16)}`;
  }
  if (exp === 0 && mant === 0n) return `${s}0x0p+0`;
  // Fraction as hex digits: pad to a whole number of nibbles, trim trailing zeros.
  const nibbles = Math.ceil(mantBits / 4);
  const hexDigits = (frac) => (frac << BigInt(nibbles * 4 - mantBits)).toString(16).padStart(nibbles, '0').replace(/0+$/, '');
  if (exp === 0) {
    // Subnormal: normalized to 0x1.<fraction>, written with the dot even when the fraction is empty.
    const k = mant.toString(2).length - 1;
    const frac = (mant - (1n << BigInt(k))) << BigInt(mantBits - k);
    const e = k + 1 - bias - mantBits;
    return `${s}0x1.${hexDigits(frac)}p${e >= 0 ? '+' : ''}${e}`;
  }
  const digits = hexDigits(mant);
  const e = exp - bias;
  return `${s}0x1${digits ? '.' + digits : ''}p${e >= 0 ? '+' : ''}${e}`;
}

function shortestF32(v) {
  if (!Number.isFinite(v)) return String(v);
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

function f32Text(bits) {
  f32buf.setUint32(0, bits, true);
  const v = f32buf.getFloat32(0, true);
  const hex = hexFloat(bits >>> 31, (bits >>> 23) & 0xff, BigInt(bits & 0x7fffff), 23, 127);
  return Number.isFinite(v) ? `${hex} (;=${Object.is(v, -0) ? '-0' : shortestF32(v)};)` : hex;
}

function f64Text(lo, hi) {
  f32buf.setUint32(0, lo, true);
  f32buf.setUint32(4, hi, true);
  const v = f32buf.getFloat64(0, true);
  const mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo >>> 0);
  const hex = hexFloat(hi >>> 31, (hi >>> 20) & 0x7ff, mant, 52, 1023);
  return Number.isFinite(v) ? `${hex} (;=${Object.is(v, -0) ? '-0' : String(v)};)` : hex;
}

// ------------------------------------------------------------------ module

const ID_CHARS = /^[0-9A-Za-z!#$%&'*+\-./:<=>?@\\^_`|~]+$/;
const ident = (name) => (ID_CHARS.test(name) ? `$${name}` : `$"${name.replace(/["\\]/g, (c) => '\\' + c)}"`);

export class WasmModule {
  constructor(bytes) {
    this.bytes = bytes;
    this.types = []; // {params: [], results: []}
    this.funcTypes = []; // type index per function (imports first)
    this.importedFuncs = 0;
    this.funcNames = new Map();
    this.globalNames = new Map();
    this.tagNames = new Map();
    this.localNames = new Map(); // func → Map(local → name)
    this.bodies = []; // [start, end] per defined function
    this.tableSlots = new Map(); // table 0 slot → function index
    this.parse();
  }

  parse() {
    const r = new Reader(this.bytes);
    const b = this.bytes;
    if (b.length < 8 || b[0] !== 0 || b[1] !== 0x61 || b[2] !== 0x73 || b[3] !== 0x6d) throw new Error('not a WebAssembly module');
    r.p = 8;
    while (r.p < r.end) {
      const id = r.byte();
      const size = r.u32();
      const start = r.p;
      const s = new Reader(this.bytes, start, start + size);
      switch (id) {
        case 0: this.customSection(s); break;
        case 1: this.typeSection(s); break;
        case 2: this.importSection(s); break;
        case 3: {
          const n = s.u32();
          for (let i = 0; i < n; i++) this.funcTypes.push(s.u32());
          break;
        }
        case 9: this.elementSection(s); break;
        case 10: {
          const n = s.u32();
          for (let i = 0; i < n; i++) {
            const len = s.u32();
            this.bodies.push([s.p, s.p + len]);
            s.p += len;
          }
          break;
        }
        default:
      }
      r.p = start + size;
    }
  }

  typeSection(s) {
    const n = s.u32();
    for (let i = 0; i < n; i++) {
      const form = s.byte();
      if (form !== 0x60) throw new Error(`type ${i}: form 0x${form.toString(16)} is not a function type`);
      const params = [];
      const results = [];
      for (let k = s.u32(); k > 0; k--) params.push(s.valtype());
      for (let k = s.u32(); k > 0; k--) results.push(s.valtype());
      this.types.push({ params, results });
    }
  }

  importSection(s) {
    const n = s.u32();
    for (let i = 0; i < n; i++) {
      const module = s.name();
      const field = s.name();
      const kind = s.byte();
      if (kind === 0) {
        this.funcNames.set(this.funcTypes.length, `${module}.${field}`);
        this.funcTypes.push(s.u32());
        this.importedFuncs++;
      } else if (kind === 1) {
        s.byte();
        const flags = s.u32();
        s.u32();
        if (flags & 1) s.u32();
      } else if (kind === 2) {
        const flags = s.u32();
        s.u32();
        if (flags & 1) s.u32();
      } else if (kind === 3) {
        s.valtype();
        s.byte();
      } else if (kind === 4) {
        s.byte();
        s.u32();
      }
    }
  }

  elementSection(s) {
    const n = s.u32();
    for (let i = 0; i < n; i++) {
      const flags = s.u32();
      // Only the forms the back end writes are read: active, table 0, i32.const offset, function indices.
      if (flags !== 0 && flags !== 2) return;
      if (flags === 2) s.u32();
      if (s.byte() !== 0x41) return;
      const offset = s.s32();
      if (s.byte() !== 0x0b) return;
      if (flags === 2 && s.byte() !== 0x00) return;
      const count = s.u32();
      for (let k = 0; k < count; k++) this.tableSlots.set(offset + k, s.u32());
    }
  }

  customSection(s) {
    if (s.name() !== 'name') return;
    try {
      while (s.p < s.end) {
        const sub = s.byte();
        const size = s.u32();
        const end = s.p + size;
        const m = new Reader(this.bytes, s.p, end);
        const nameMap = (into) => {
          for (let n = m.u32(); n > 0; n--) {
            const idx = m.u32();
            into.set(idx, m.name());
          }
        };
        if (sub === 1) nameMap(this.funcNames);
        else if (sub === 2) {
          for (let n = m.u32(); n > 0; n--) {
            const f = m.u32();
            const map = new Map();
            for (let k = m.u32(); k > 0; k--) {
              const idx = m.u32();
              map.set(idx, m.name());
            }
            this.localNames.set(f, map);
          }
        } else if (sub === 7) nameMap(this.globalNames);
        else if (sub === 11) nameMap(this.tagNames);
        s.p = end;
      }
    } catch {
      // A malformed name section only costs the names.
    }
  }

  /** Function index held by table 0 at `slot`, or null. */
  functionIndexOfSlot(slot) {
    return this.tableSlots.get(slot) ?? null;
  }

  funcRef(i) {
    const n = this.funcNames.get(i);
    return n != null ? ident(n) : String(i);
  }

  /** The text of function `index` (an index in the function space, imports first). */
  functionText(index) {
    const body = this.bodies[index - this.importedFuncs];
    if (!body) throw new Error(`function ${index} has no body in this module`);
    const type = this.types[this.funcTypes[index]];
    const name = this.funcNames.get(index);
    const sig = [
      ...(type?.params.length ? [`(param ${type.params.join(' ')})`] : []),
      ...(type?.results.length ? [`(result ${type.results.join(' ')})`] : []),
    ];
    const out = [`(func ${name != null ? ident(name) + ' ' : ''}(;${index};) (type ${this.funcTypes[index]})${sig.length ? ' ' + sig.join(' ') : ''}`];
    const r = new Reader(this.bytes, body[0], body[1]);
    const locals = [];
    for (let groups = r.u32(); groups > 0; groups--) {
      const count = r.u32();
      const t = r.valtype();
      if (count > 100_000) throw new Error('too many locals');
      for (let k = 0; k < count; k++) locals.push(t);
    }
    if (locals.length) out.push(`  (local ${locals.join(' ')})`);
    const localNames = this.localNames.get(index);
    const local = (i) => (localNames?.has(i) ? ident(localNames.get(i)) : String(i));
    let depth = 0;
    // Indentation stops growing at 49 levels, as in wasmprinter.
    const line = (text, d = depth) => out.push('  '.repeat(Math.min(d + 1, 49)) + text);
    const label = (rel) => `${rel} (;@${depth - rel};)`;
    const blockType = () => {
      const b = r.byte();
      if (b === 0x40) return '';
      if (VALTYPES[b]) return ` (result ${VALTYPES[b]})`;
      r.p--;
      const t = r.s33();
      const ty = this.types[t];
      const parts = [`(type ${t})`];
      if (ty?.params.length) parts.push(`(param ${ty.params.join(' ')})`);
      if (ty?.results.length) parts.push(`(result ${ty.results.join(' ')})`);
      return ' ' + parts.join(' ');
    };
    const memarg = (natural) => {
      let align = r.u32();
      let mem = 0;
      if (align & 0x40) {
        align &= ~0x40;
        mem = r.u32();
      }
      const offset = r.u32();
      let s = mem ? ` ${mem}` : '';
      if (offset) s += ` offset=${offset}`;
      if (natural === null || align !== natural) s += ` align=${2 ** align}`;
      return s;
    };
    const limit = 2_000_000;
    try {
      while (r.p < r.end) {
        if (out.length > limit) {
          out.push('  ;; … (truncated)');
          break;
        }
        const code = r.byte();
        if (code === 0xfc || code === 0xfd || code === 0xfe) {
          const sub = r.u32();
          const table = code === 0xfc ? FC : code === 0xfd ? FD : FE;
          const entry = table.get(sub);
          if (!entry) {
            line(`;; unknown opcode 0x${code.toString(16)} ${sub}`);
            break;
          }
          const [name, imm] = entry;
          if (code === 0xfe) {
            if (imm === null) {
              r.byte();
              line(name);
            } else line(name + memarg(imm));
            continue;
          }
          line(name + this.prefixedImmediate(r, imm, memarg));
          continue;
        }
        const entry = OPS.get(code);
        if (!entry) {
          line(`;; unknown opcode 0x${code.toString(16)}`);
          break;
        }
        const [name, imm] = entry;
        switch (imm) {
          case null:
            line(name);
            break;
          case 'block':
            line(`${name}${blockType()} ;; label = @${depth + 1}`);
            depth++;
            break;
          case 'else':
            line(name, depth - 1);
            break;
          case 'catch':
            if (name === 'catch') {
              const t = r.u32();
              line(`catch ${this.tagNames.has(t) ? ident(this.tagNames.get(t)) : t}`, depth - 1);
            } else line(name, depth - 1);
            break;
          case 'delegate':
            depth--;
            line(`delegate ${label(r.u32())}`);
            break;
          case 'end':
            depth--;
            if (depth < 0) {
              // The function's own end closes the text.
              r.p = r.end;
              break;
            }
            line(name);
            break;
          case 'label':
            line(`${name} ${label(r.u32())}`);
            break;
          case 'br_table': {
            const n = r.u32();
            if (n > 1_000_000) throw new Error('br_table too large');
            const targets = [];
            for (let k = 0; k <= n; k++) targets.push(label(r.u32()));
            line(`${name} ${targets.join(' ')}`);
            break;
          }
          case 'tag': {
            const t = r.u32();
            line(`${name} ${this.tagNames.has(t) ? ident(this.tagNames.get(t)) : t}`);
            break;
          }
          case 'func':
            line(`${name} ${this.funcRef(r.u32())}`);
            break;
          case 'call_indirect': {
            const t = r.u32();
            const table = r.u32();
            line(`${name}${table ? ` ${table}` : ''} (type ${t})`);
            break;
          }
          case 'select_t': {
            const ts = [];
            for (let k = r.u32(); k > 0; k--) ts.push(r.valtype());
            line(`${name} (result ${ts.join(' ')})`);
            break;
          }
          case 'local':
            line(`${name} ${local(r.u32())}`);
            break;
          case 'global': {
            const g = r.u32();
            line(`${name} ${this.globalNames.has(g) ? ident(this.globalNames.get(g)) : g}`);
            break;
          }
          case 'table':
            line(`${name} ${r.u32()}`);
            break;
          case 'memidx': {
            const m = r.u32();
            line(m ? `${name} ${m}` : name);
            break;
          }
          case 'i32':
            line(`${name} ${r.s32()}`);
            break;
          case 'i64':
            line(`${name} ${r.s64()}`);
            break;
          case 'f32': {
            const b = r.bytes(4);
            line(`${name} ${f32Text((b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0)}`);
            break;
          }
          case 'f64': {
            const b = r.bytes(8);
            const lo = (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
            const hi = (b[4] | (b[5] << 8) | (b[6] << 16) | (b[7] << 24)) >>> 0;
            line(`${name} ${f64Text(lo, hi)}`);
            break;
          }
          case 'heaptype':
            line(`${name} ${({ 0x70: 'func', 0x6f: 'extern' })[r.byte()] ?? '?'}`);
            break;
          default:
            if (imm.startsWith('mem')) line(name + memarg(Number(imm.slice(3))));
            else throw new Error(`no printer for ${imm}`);
        }
      }
    } catch (e) {
      out.push(`  ;; cannot print further: ${e.message}`);
    }
    if (out.length === 1) return `${out[0]})\n`; // an empty body: one line, as wasmprinter writes it
    out.push(')');
    return out.join('\n') + '\n';
  }

  prefixedImmediate(r, imm, memarg) {
    if (imm === null) return '';
    if (imm === 'memory.init') {
      const d = r.u32();
      const m = r.u32();
      return `${m ? ` ${m}` : ''} ${d}`;
    }
    if (imm === 'memory.copy') {
      const a = r.u32();
      const b = r.u32();
      return a || b ? ` ${a} ${b}` : '';
    }
    if (imm === 'memidx') {
      const m = r.u32();
      return m ? ` ${m}` : '';
    }
    if (imm === 'index' || imm === 'table' || imm === 'lane') return ` ${imm === 'lane' ? r.byte() : r.u32()}`;
    if (imm === 'table.init') {
      const e = r.u32();
      const t = r.u32();
      return `${t ? ` ${t}` : ''} ${e}`;
    }
    if (imm === 'table.copy') {
      const a = r.u32();
      const b = r.u32();
      return a || b ? ` ${a} ${b}` : '';
    }
    if (imm === 'v128') {
      const b = r.bytes(16);
      const words = [];
      for (let k = 0; k < 16; k += 4) {
        words.push('0x' + ((b[k] | (b[k + 1] << 8) | (b[k + 2] << 16) | (b[k + 3] << 24)) >>> 0).toString(16).padStart(8, '0'));
      }
      return ` i32x4 ${words.join(' ')}`;
    }
    if (imm === 'shuffle') return ' ' + [...r.bytes(16)].join(' ');
    if (imm.startsWith('memlane')) {
      const m = memarg(Number(imm.slice(7)));
      return `${m} ${r.byte()}`;
    }
    if (imm.startsWith('mem')) return memarg(Number(imm.slice(3)));
    throw new Error(`no printer for ${imm}`);
  }
}

/** Slot of pexe function `id` in the module's table (runtime ABI: 1 + 52 IRT entries before them). */
export const PEXE_FUNCTION_SLOT_BASE = 53;
