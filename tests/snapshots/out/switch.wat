;; switch.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 4) (param i32) (result i32)
    (local i32)
    block ;; label = @1
      local.get 0
      i32.const 1
      i32.sub
      block (type 3) (param i32) ;; label = @2
        block (type 3) (param i32) ;; label = @3
          block (type 3) (param i32) ;; label = @4
            block (type 3) (param i32) ;; label = @5
              block (type 3) (param i32) ;; label = @6
                block (type 3) (param i32) ;; label = @7
                  br_table 1 (;@6;) 2 (;@5;) 3 (;@4;) 0 (;@7;) 4 (;@3;) 5 (;@2;) 0 (;@7;)
                end
                i32.const -1
                local.set 1
                br 5 (;@1;)
              end
              i32.const 10
              local.set 1
              br 4 (;@1;)
            end
            i32.const 20
            local.set 1
            br 3 (;@1;)
          end
          i32.const 30
          local.set 1
          br 2 (;@1;)
        end
        i32.const 50
        local.set 1
        br 1 (;@1;)
      end
      i32.const 20
      local.set 1
    end
    local.get 1
    return
  )
  (func $f2 (;56;) (type 4) (param i32) (result i32)
    (local i32)
    block ;; label = @1
      block ;; label = @2
        block ;; label = @3
          block ;; label = @4
            block ;; label = @5
              local.get 0
              i32.const 7
              i32.eq
              br_if 2 (;@3;)
              local.get 0
              i32.const 1048576
              i32.eq
              br_if 3 (;@2;)
              local.get 0
              i32.const -1000
              i32.eq
              br_if 1 (;@4;)
              br 0 (;@5;)
            end
            i32.const -1
            local.set 1
            br 3 (;@1;)
          end
          i32.const 1
          local.set 1
          br 2 (;@1;)
        end
        i32.const 2
        local.set 1
        br 1 (;@1;)
      end
      i32.const 3
      local.set 1
    end
    local.get 1
    return
  )
  (func $f3 (;57;) (type 12) (param i64) (result i32)
    (local i32 i64)
    block ;; label = @1
      local.get 0
      i64.const 1099511627776
      i64.sub
      local.tee 2
      i64.const 6
      local.get 2
      i64.const 6
      i64.lt_u
      select
      i32.wrap_i64
      block (type 3) (param i32) ;; label = @2
        block (type 3) (param i32) ;; label = @3
          block (type 3) (param i32) ;; label = @4
            block (type 3) (param i32) ;; label = @5
              block (type 3) (param i32) ;; label = @6
                block (type 3) (param i32) ;; label = @7
                  br_table 1 (;@6;) 2 (;@5;) 3 (;@4;) 0 (;@7;) 4 (;@3;) 5 (;@2;) 0 (;@7;)
                end
                i32.const -1
                local.set 1
                br 5 (;@1;)
              end
              i32.const 1
              local.set 1
              br 4 (;@1;)
            end
            i32.const 2
            local.set 1
            br 3 (;@1;)
          end
          i32.const 3
          local.set 1
          br 2 (;@1;)
        end
        i32.const 4
        local.set 1
        br 1 (;@1;)
      end
      i32.const 5
      local.set 1
    end
    local.get 1
    return
  )
  (func $f4 (;58;) (type 4) (param i32) (result i32)
    (local i32)
    block ;; label = @1
      block ;; label = @2
        local.get 0
        i32.const 255
        i32.and
        local.set 1
        block ;; label = @3
          block ;; label = @4
            local.get 1
            br_table 2 (;@2;) 2 (;@2;) 2 (;@2;) 3 (;@1;) 0 (;@4;)
          end
          local.get 1
          i32.const 255
          i32.eq
          br_if 2 (;@1;)
          br 0 (;@3;)
        end
        i32.const 3
        return
      end
      i32.const 2
      return
    end
    i32.const 1
    return
  )
