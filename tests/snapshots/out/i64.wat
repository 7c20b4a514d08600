;; i64.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.add
    return
  )
  (func $f2 (;56;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.sub
    return
  )
  (func $f3 (;57;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.mul
    return
  )
  (func $f4 (;58;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.div_s
    return
  )
  (func $f5 (;59;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.rem_u
    return
  )
  (func $f6 (;60;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.shl
    return
  )
  (func $f7 (;61;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.shr_s
    return
  )
  (func $f8 (;62;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.shr_u
    return
  )
  (func $f9 (;63;) (type 12) (param i64 i64) (result i64)
    local.get 0
    local.get 1
    i64.xor
    return
  )
  (func $f10 (;64;) (type 13) (param i64 i64) (result i32)
    local.get 0
    local.get 1
    i64.lt_u
    return
  )
  (func $f11 (;65;) (type 14) (param i32) (result i64)
    (local i64)
    local.get 0
    i64.extend_i32_s
    local.tee 1
    local.get 1
    i32.wrap_i64
    i32.const 65535
    i32.and
    i32.extend16_s
    i64.extend_i32_s
    i64.add
    return
  )
