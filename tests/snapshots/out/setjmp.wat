;; setjmp.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f3 (;55;) (type 0) (param i32 i32)
    local.get 0
    local.get 1
    throw 0
    return
  )
  (func $f4 (;56;) (type 4) (param i32) (result i32)
    (local i32 i32 i32 i32 i32 i32 i32 i32)
    global.get 0
    local.tee 3
    i32.const 64
    i32.sub
    i32.const -8
    i32.and
    local.tee 2
    global.get 1
    i32.lt_u
    if ;; label = @1
      i32.const 1
      i32.const 0
      call $env.fault
    end
    local.get 2
    global.set 0
    loop ;; label = @1
      try ;; label = @2
        block ;; label = @3
          block ;; label = @4
            local.get 4
            br_table 0 (;@4;) 1 (;@3;)
          end
          global.get 4
          i32.const 2
          i32.add
          local.tee 5
          global.set 4
          local.get 2
          local.get 5
          i32.store
          local.get 2
          global.get 0
          i32.store offset=4
          i32.const 0
          local.set 1
        end
        local.get 1
        i32.eqz
        if ;; label = @3
          local.get 2
          local.get 0
          call $f3
          i32.const 0
          local.get 3
          global.set 0
          return
        else
          local.get 1
          i32.const 10
          i32.mul
          local.get 3
          global.set 0
          return
        end
      catch 0
        local.set 7
        local.tee 6
        i32.load
        local.tee 8
        i32.eqz
        if ;; label = @3
          rethrow 1 (;@2;)
        end
        local.get 8
        local.get 5
        i32.eq
        if ;; label = @3
          local.get 6
          i32.load offset=4
          global.set 0
          local.get 7
          i32.const 1
          local.get 7
          select
          local.set 1
          i32.const 1
          local.set 4
          br 2 (;@1;)
        end
        rethrow 0 (;@2;)
      end
    end
    unreachable
  )
  (func $f5 (;57;) (type 6) (result i32)
    (local i32 i32)
    global.get 0
    local.tee 1
    i32.const 64
    i32.sub
    i32.const -8
    i32.and
    local.tee 0
    global.get 1
    i32.lt_u
    if ;; label = @1
      i32.const 1
      i32.const 0
      call $env.fault
    end
    local.get 0
    global.set 0
    local.get 0
    i32.const 5
    call $f3
    i32.const 5
    local.get 1
    global.set 0
    return
  )
