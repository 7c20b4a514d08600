;; phi.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 2) (param i32 i32 i32) (result i32)
    (local i32 i32 i32 i32)
    local.get 0
    local.get 1
    local.get 2
    local.set 5
    local.set 4
    local.set 3
    loop ;; label = @1
      local.get 5
      i32.const 1
      i32.sub
      local.tee 6
      i32.const 0
      i32.gt_s
      if ;; label = @2
        local.get 4
        local.get 3
        local.get 6
        local.set 5
        local.set 4
        local.set 3
        br 1 (;@1;)
      else
        local.get 3
        i32.const 1000
        i32.mul
        local.get 4
        i32.add
        return
      end
    end
    unreachable
  )
