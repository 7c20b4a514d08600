;; fact.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 4) (param i32) (result i32)
    local.get 0
    i32.const 1
    i32.eq
    if ;; label = @1
      i32.const 1
      return
    else
      local.get 0
      local.get 0
      i32.const 1
      i32.sub
      call $f1
      i32.mul
      return
    end
    unreachable
  )
  (func $f2 (;56;) (type 4) (param i32) (result i32)
    (local i32 i32 i32 i32)
    i32.const 1
    i32.const 1
    local.set 2
    local.set 1
    loop ;; label = @1
      local.get 2
      local.get 1
      i32.mul
      local.set 3
      local.get 1
      i32.const 1
      i32.add
      local.tee 4
      local.get 0
      i32.le_s
      if ;; label = @2
        local.get 4
        local.set 1
        local.get 3
        local.set 2
        br 1 (;@1;)
      else
        local.get 3
        return
      end
    end
    unreachable
  )
