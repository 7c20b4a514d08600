;; float.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 1) (param f64 f64) (result f64)
    local.get 0
    local.get 1
    f64.add
    return
  )
  (func $f2 (;56;) (type 1) (param f64 f64) (result f64)
    local.get 0
    local.get 1
    f64.sub
    return
  )
  (func $f3 (;57;) (type 1) (param f64 f64) (result f64)
    local.get 0
    local.get 1
    f64.mul
    return
  )
  (func $f4 (;58;) (type 1) (param f64 f64) (result f64)
    local.get 0
    local.get 1
    f64.div
    return
  )
  (func $f5 (;59;) (type 1) (param f64 f64) (result f64)
    local.get 0
    local.get 1
    call $env.fmod_f64
    return
  )
  (func $f6 (;60;) (type 12) (param f32 f32) (result f32)
    local.get 0
    f64.promote_f32
    local.get 1
    f64.promote_f32
    call $env.fmod_f64
    f32.demote_f64
    return
  )
  (func $f7 (;61;) (type 13) (param f64) (result i32)
    local.get 0
    f32.demote_f64
    f64.promote_f32
    i32.trunc_sat_f64_s
    return
  )
  (func $f8 (;62;) (type 14) (param f32) (result i32)
    local.get 0
    i32.trunc_sat_f32_u
    i32.const 255
    i32.and
    return
  )
  (func $f9 (;63;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 1
    f64.eq
    return
  )
  (func $f10 (;64;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 1
    f64.lt
    return
  )
  (func $f11 (;65;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 1
    f64.lt
    local.get 0
    local.get 1
    f64.gt
    i32.or
    return
  )
  (func $f12 (;66;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 0
    f64.eq
    local.get 1
    local.get 1
    f64.eq
    i32.and
    return
  )
  (func $f13 (;67;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 0
    f64.ne
    local.get 1
    local.get 1
    f64.ne
    i32.or
    return
  )
  (func $f14 (;68;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 1
    f64.lt
    local.get 0
    local.get 1
    f64.gt
    i32.or
    i32.eqz
    return
  )
  (func $f15 (;69;) (type 15) (param f64 f64) (result i32)
    local.get 0
    local.get 1
    f64.le
    i32.eqz
    return
  )
  (func $f16 (;70;) (type 16) (param i32 f64 f64) (result f64)
    local.get 1
    local.get 2
    local.get 0
    select
    return
  )
  (func $f17 (;71;) (type 17) (param i32) (result f64)
    (local f64 f64)
    local.get 0
    i32.const 255
    i32.and
    i32.extend8_s
    f64.convert_i32_s
    local.set 1
    local.get 0
    i32.const 0
    i32.lt_s
    f64.convert_i32_u
    local.set 2
    local.get 1
    i64.reinterpret_f64
    f64.reinterpret_i64
    local.get 2
    f64.add
    return
  )
