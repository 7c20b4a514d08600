;; masks.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 4) (param i32) (result i32)
    (local i32 i32 i32 v128)
    local.get 0
    i32.const 65535
    i32.and
    i16x8.splat
    v128.const i32x4 0x00000000 0x00000000 0x01010101 0x01010101
    i8x16.swizzle
    v128.const i32x4 0x08040201 0x80402010 0x08040201 0x80402010
    v128.and
    v128.const i32x4 0x08040201 0x80402010 0x08040201 0x80402010
    i8x16.eq
    local.tee 4
    i8x16.extract_lane_u 3
    local.set 1
    local.get 4
    i8x16.extract_lane_u 9
    i32.const 256
    i32.mul
    local.set 2
    local.get 4
    i8x16.bitmask
    local.set 3
    local.get 1
    local.get 2
    i32.add
    local.get 3
    i32.xor
    return
  )
  (func $f2 (;56;) (type 4) (param i32) (result i32)
    (local v128)
    local.get 0
    i32.const 255
    i32.and
    i16x8.splat
    v128.const i32x4 0x00020001 0x00080004 0x00200010 0x00800040
    v128.and
    v128.const i32x4 0x00020001 0x00080004 0x00200010 0x00800040
    i16x8.eq
    i32.const 15
    i16x8.shr_u
    local.tee 1
    i16x8.extract_lane_u 2
    local.get 1
    i16x8.extract_lane_u 7
    i32.const 1
    i32.shl
    i32.or
    return
  )
