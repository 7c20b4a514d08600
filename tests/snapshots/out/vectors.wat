;; vectors.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 7) (param i32 i32 i32 i32) (result i32)
    (local i32 i32 i32 i32 i32 v128 v128 v128 v128 v128)
    v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000
    local.get 0
    i32x4.replace_lane 0
    local.get 1
    i32x4.replace_lane 1
    local.get 2
    i32x4.replace_lane 2
    local.get 3
    i32x4.replace_lane 3
    local.set 9
    v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000
    i32.const 10
    i32x4.replace_lane 0
    local.get 0
    i32x4.replace_lane 1
    i32.const 10
    i32x4.replace_lane 2
    local.get 1
    i32x4.replace_lane 3
    local.set 10
    local.get 9
    local.get 10
    i32x4.add
    local.tee 11
    local.get 9
    i32x4.mul
    local.tee 12
    local.get 12
    i32x4.extract_lane 0
    local.get 10
    i32x4.extract_lane 0
    i32.div_s
    i32x4.replace_lane 0
    local.get 12
    i32x4.extract_lane 1
    local.get 10
    i32x4.extract_lane 1
    i32.div_s
    i32x4.replace_lane 1
    local.get 12
    i32x4.extract_lane 2
    local.get 10
    i32x4.extract_lane 2
    i32.div_s
    i32x4.replace_lane 2
    local.get 12
    i32x4.extract_lane 3
    local.get 10
    i32x4.extract_lane 3
    i32.div_s
    i32x4.replace_lane 3
    local.set 13
    local.get 9
    local.get 10
    i32x4.lt_s
    local.tee 12
    local.get 9
    local.get 10
    i32x4.gt_s
    v128.or
    local.set 10
    local.get 13
    local.get 11
    local.get 12
    v128.bitselect
    local.get 10
    i32.const 31
    i32x4.shr_u
    i32x4.add
    local.tee 10
    i32x4.extract_lane 0
    local.set 4
    local.get 10
    i32x4.extract_lane 1
    local.set 5
    local.get 10
    i32x4.extract_lane 2
    local.set 6
    local.get 10
    i32x4.extract_lane 3
    local.set 7
    local.get 12
    i32x4.extract_lane 3
    i32.const 1
    i32.and
    local.set 8
    local.get 4
    local.get 5
    i32.xor
    local.get 6
    local.get 7
    i32.mul
    i32.add
    local.get 8
    i32.add
    return
  )
  (func $f2 (;56;) (type 5) (param i32 i32) (result i32)
    (local i32 i32 i32 f32 f32 v128 v128)
    local.get 0
    f32.convert_i32_s
    local.set 5
    local.get 1
    f32.convert_i32_s
    local.set 6
    v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000
    local.get 5
    f32x4.replace_lane 0
    local.get 6
    f32x4.replace_lane 1
    local.get 5
    f32x4.replace_lane 2
    local.get 6
    f32x4.replace_lane 3
    local.set 7
    v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000
    f32.const 0x1.8p+0 (;=1.5;)
    f32x4.replace_lane 0
    f32.const 0x1.8p+0 (;=1.5;)
    f32x4.replace_lane 1
    f32.const 0x1.8p+0 (;=1.5;)
    f32x4.replace_lane 2
    f32.const 0x1.8p+0 (;=1.5;)
    f32x4.replace_lane 3
    local.set 8
    local.get 7
    local.get 8
    f32x4.mul
    i32x4.trunc_sat_f32x4_s
    local.get 7
    local.get 8
    f32x4.lt
    i32x4.add
    local.tee 8
    i32x4.extract_lane 0
    local.set 2
    local.get 8
    i32x4.extract_lane 1
    local.set 3
    local.get 8
    i32x4.extract_lane 3
    local.set 4
    local.get 2
    local.get 3
    i32.mul
    local.get 4
    i32.sub
    return
  )
  (func $f3 (;57;) (type 5) (param i32 i32) (result i32)
    (local i32 i32 v128 v128)
    local.get 0
    i32.const 255
    i32.and
    local.set 2
    local.get 1
    i32.const 255
    i32.and
    local.set 3
    v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000
    local.get 2
    i8x16.replace_lane 0
    local.get 3
    i8x16.replace_lane 15
    local.tee 4
    local.get 4
    i8x16.add
    local.tee 5
    local.get 4
    i8x16.eq
    i8x16.bitmask
    local.set 3
    local.get 5
    i8x16.extract_lane_u 15
    i32.const 15
    i32.shl
    local.get 3
    i32.xor
    return
  )
