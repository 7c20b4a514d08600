;; small.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    local.get 1
    i32.const 255
    i32.and
    i32.add
    i32.const 255
    i32.and
    return
  )
  (func $f2 (;56;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    local.get 1
    i32.const 255
    i32.and
    i32.mul
    i32.const 255
    i32.and
    i32.extend8_s
    return
  )
  (func $f3 (;57;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    i32.extend8_s
    local.get 1
    i32.const 255
    i32.and
    i32.extend8_s
    i32.div_s
    i32.const 255
    i32.and
    i32.extend8_s
    return
  )
  (func $f4 (;58;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    i32.extend8_s
    local.get 1
    i32.const 255
    i32.and
    i32.extend8_s
    i32.rem_s
    i32.const 255
    i32.and
    i32.extend8_s
    return
  )
  (func $f5 (;59;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    local.get 1
    i32.const 255
    i32.and
    i32.div_u
    return
  )
  (func $f6 (;60;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    i32.extend8_s
    local.get 1
    i32.const 255
    i32.and
    i32.shr_s
    i32.const 255
    i32.and
    i32.extend8_s
    return
  )
  (func $f7 (;61;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    local.get 1
    i32.const 255
    i32.and
    i32.shr_u
    return
  )
  (func $f8 (;62;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 255
    i32.and
    local.get 1
    i32.const 255
    i32.and
    i32.shl
    i32.const 255
    i32.and
    return
  )
  (func $f9 (;63;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 65535
    i32.and
    local.get 1
    i32.const 65535
    i32.and
    i32.sub
    i32.const 65535
    i32.and
    i32.extend16_s
    return
  )
  (func $f10 (;64;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 65535
    i32.and
    local.get 1
    i32.const 65535
    i32.and
    i32.mul
    i32.const 65535
    i32.and
    return
  )
  (func $f11 (;65;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 65535
    i32.and
    i32.extend16_s
    local.get 1
    i32.const 65535
    i32.and
    i32.extend16_s
    i32.div_s
    i32.const 65535
    i32.and
    i32.extend16_s
    return
  )
  (func $f12 (;66;) (type 5) (param i32 i32) (result i32)
    local.get 0
    i32.const 65535
    i32.and
    i32.extend16_s
    local.get 1
    i32.const 65535
    i32.and
    i32.shr_s
    i32.const 65535
    i32.and
    return
  )
  (func $f13 (;67;) (type 5) (param i32 i32) (result i32)
    (local i32 i32)
    local.get 0
    i32.const 255
    i32.and
    local.set 2
    local.get 1
    i32.const 255
    i32.and
    local.set 3
    local.get 2
    i32.extend8_s
    local.get 3
    i32.extend8_s
    i32.lt_s
    local.get 2
    local.get 3
    i32.gt_u
    i32.const -1
    i32.mul
    i32.sub
    return
  )
