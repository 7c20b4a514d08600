;; irreducible.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 2) (param i32 i32 i32) (result i32)
    (local i32 i32 i32 i32 i32)
    block ;; label = @1
      local.get 0
      if ;; label = @2
        local.get 1
        local.set 3
        i32.const 0
        local.set 7
      else
        local.get 2
        local.set 4
        i32.const 1
        local.set 7
      end
    end
    block ;; label = @1
      loop ;; label = @2
        block ;; label = @3
          block ;; label = @4
            local.get 7
            br_table 0 (;@4;) 1 (;@3;)
          end
          local.get 3
          i32.const 3
          i32.add
          local.tee 5
          i32.const 50
          i32.lt_s
          if ;; label = @4
            local.get 5
            local.set 4
            i32.const 1
            local.set 7
            br 2 (;@2;)
          else
            local.get 5
            local.set 6
            br 3 (;@1;)
          end
        end
        local.get 4
        i32.const 2
        i32.mul
        local.tee 5
        i32.const 60
        i32.lt_s
        if ;; label = @3
          local.get 5
          local.set 3
          i32.const 0
          local.set 7
          br 1 (;@2;)
        else
          local.get 5
          local.set 6
        end
      end
    end
    local.get 6
    return
  )
