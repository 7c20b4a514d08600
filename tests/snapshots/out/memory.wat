;; memory.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f8 (;55;) (type 5) (param i32 i32) (result i32)
    (local i32 i32 i32 i32 i32 i32 i32)
    global.get 0
    local.tee 7
    i32.const 16
    i32.sub
    i32.const -4
    i32.and
    local.tee 6
    global.get 1
    i32.lt_u
    if ;; label = @1
      i32.const 1
      i32.const 0
      call $env.fault
    end
    local.get 6
    global.set 0
    local.get 6
    local.get 0
    i32.store align=1
    local.get 6
    i32.const 4
    i32.add
    local.tee 2
    local.get 6
    i32.const 4
    memory.copy
    local.get 6
    i32.const 8
    i32.add
    i32.const 171
    i32.const 8
    memory.fill
    local.get 2
    i32.load align=1
    local.set 3
    local.get 6
    i32.load8_u offset=9
    local.set 2
    local.get 6
    i32.load16_u offset=2 align=1
    i32.extend16_s
    local.set 4
    global.get 0
    local.get 1
    i32.sub
    i32.const -8
    i32.and
    local.tee 8
    global.get 1
    i32.lt_u
    local.get 8
    global.get 0
    i32.gt_u
    i32.or
    if ;; label = @1
      i32.const 1
      i32.const 0
      call $env.fault
    end
    local.get 8
    global.set 0
    local.get 8
    local.tee 5
    local.get 3
    i32.store align=1
    local.get 5
    i32.load align=1
    local.get 2
    i32.add
    local.get 4
    i32.add
    local.get 7
    global.set 0
    return
  )
  (func $f9 (;56;) (type 4) (param i32) (result i32)
    (local i32)
    local.get 0
    local.tee 1
    i32.const 8
    i32.rotr
    i32.const -16711936
    i32.and
    local.get 1
    i32.const 8
    i32.rotl
    i32.const 16711935
    i32.and
    i32.or
    local.get 0
    i32.clz
    i32.xor
    return
  )
  (func $f10 (;57;) (type 12) (param i64) (result i64)
    (local i64)
    local.get 0
    local.tee 1
    i64.const 8
    i64.shr_u
    i64.const 71777214294589695
    i64.and
    local.get 1
    i64.const 71777214294589695
    i64.and
    i64.const 8
    i64.shl
    i64.or
    local.tee 1
    i64.const 16
    i64.shr_u
    i64.const 281470681808895
    i64.and
    local.get 1
    i64.const 281470681808895
    i64.and
    i64.const 16
    i64.shl
    i64.or
    i64.const 32
    i64.rotl
    local.get 0
    i64.popcnt
    i64.add
    return
  )
  (func $f11 (;58;) (type 4) (param i32) (result i32)
    (local i32)
    global.get 0
    local.set 1
    i32.const 1
    local.get 0
    call $f8
    drop
    global.get 0
    local.get 1
    i32.sub
    return
  )
  (func $f12 (;59;) (type 4) (param i32) (result i32)
    local.get 0
    call $f9
    return
  )
