;; sparse.records, translated (pexe's functions only)
  (func $_start (;54;) (type 3) (param i32)
    return
  )
  (func $f1 (;55;) (type 4) (param i32) (result i32)
    block ;; label = @1
      block ;; label = @2
        block ;; label = @3
          block ;; label = @4
            block ;; label = @5
              block ;; label = @6
                block ;; label = @7
                  block ;; label = @8
                    local.get 0
                    i32.const 700
                    i32.lt_u
                    if ;; label = @9
                      local.get 0
                      i32.const 300
                      i32.lt_u
                      if ;; label = @10
                        block ;; label = @11
                          local.get 0
                          br_table 10 (;@1;) 9 (;@2;) 8 (;@3;) 7 (;@4;) 6 (;@5;) 5 (;@6;) 0 (;@11;)
                        end
                        local.get 0
                        i32.const 100
                        i32.eq
                        br_if 3 (;@7;)
                        local.get 0
                        i32.const 200
                        i32.eq
                        br_if 9 (;@1;)
                        br 2 (;@8;)
                      else
                        local.get 0
                        i32.const 500
                        i32.lt_u
                        if ;; label = @11
                          local.get 0
                          i32.const 300
                          i32.eq
                          br_if 9 (;@2;)
                          local.get 0
                          i32.const 400
                          i32.eq
                          br_if 8 (;@3;)
                          br 3 (;@8;)
                        else
                          local.get 0
                          i32.const 500
                          i32.eq
                          br_if 7 (;@4;)
                          local.get 0
                          i32.const 600
                          i32.eq
                          br_if 6 (;@5;)
                          br 3 (;@8;)
                        end
                      end
                    else
                      local.get 0
                      i32.const 5000
                      i32.lt_u
                      if ;; label = @10
                        local.get 0
                        i32.const 900
                        i32.lt_u
                        if ;; label = @11
                          local.get 0
                          i32.const 700
                          i32.eq
                          br_if 5 (;@6;)
                          local.get 0
                          i32.const 800
                          i32.eq
                          br_if 4 (;@7;)
                          br 3 (;@8;)
                        else
                          local.get 0
                          i32.const 900
                          i32.eq
                          br_if 10 (;@1;)
                          local.get 0
                          i32.const 1000
                          i32.eq
                          br_if 9 (;@2;)
                          br 3 (;@8;)
                        end
                      else
                        local.get 0
                        i32.const -1000000
                        i32.lt_u
                        if ;; label = @11
                          block ;; label = @12
                            local.get 0
                            i32.const 5000
                            i32.sub
                            br_table 9 (;@3;) 8 (;@4;) 7 (;@5;) 6 (;@6;) 5 (;@7;) 11 (;@1;) 10 (;@2;) 0 (;@12;)
                          end
                          local.get 0
                          i32.const 1073741824
                          i32.eq
                          br_if 6 (;@5;)
                          br 3 (;@8;)
                        else
                          local.get 0
                          i32.const -1000000
                          i32.eq
                          br_if 7 (;@4;)
                          local.get 0
                          i32.const -7
                          i32.eq
                          br_if 8 (;@3;)
                          br 3 (;@8;)
                        end
                      end
                    end
                  end
                  i32.const -1
                  return
                end
                i32.const 60
                return
              end
              i32.const 50
              return
            end
            i32.const 40
            return
          end
          i32.const 30
          return
        end
        i32.const 20
        return
      end
      i32.const 10
      return
    end
    i32.const 0
    return
  )
  (func $f2 (;56;) (type 12) (param i64) (result i32)
    (local i64)
    block ;; label = @1
      block ;; label = @2
        block ;; label = @3
          block ;; label = @4
            block ;; label = @5
              block ;; label = @6
                block ;; label = @7
                  block ;; label = @8
                    local.get 0
                    i64.const 1099511629276
                    i64.lt_u
                    if ;; label = @9
                      local.get 0
                      i64.const 1099511628076
                      i64.lt_u
                      if ;; label = @10
                        local.get 0
                        i64.const 1099508627776
                        i64.eq
                        br_if 6 (;@4;)
                        local.get 0
                        i64.const 1099511627755
                        i64.eq
                        br_if 7 (;@3;)
                        block ;; label = @11
                          local.get 0
                          i64.const 1099511627776
                          i64.sub
                          local.tee 1
                          i64.const 16
                          i64.ge_u
                          br_if 0 (;@11;)
                          local.get 1
                          i32.wrap_i64
                          br_table 10 (;@1;) 0 (;@11;) 0 (;@11;) 9 (;@2;) 0 (;@11;) 0 (;@11;) 8 (;@3;) 0 (;@11;) 0 (;@11;) 7 (;@4;) 0 (;@11;) 0 (;@11;) 6 (;@5;) 0 (;@11;) 0 (;@11;) 5 (;@6;) 0 (;@11;)
                        end
                        br 2 (;@8;)
                      else
                        local.get 0
                        i64.const 1099511628676
                        i64.lt_u
                        if ;; label = @11
                          local.get 0
                          i64.const 1099511628076
                          i64.eq
                          br_if 4 (;@7;)
                          local.get 0
                          i64.const 1099511628376
                          i64.eq
                          br_if 10 (;@1;)
                          br 3 (;@8;)
                        else
                          local.get 0
                          i64.const 1099511628676
                          i64.eq
                          br_if 9 (;@2;)
                          local.get 0
                          i64.const 1099511628976
                          i64.eq
                          br_if 8 (;@3;)
                          br 3 (;@8;)
                        end
                      end
                    else
                      local.get 0
                      i64.const 1099511630476
                      i64.lt_u
                      if ;; label = @10
                        local.get 0
                        i64.const 1099511629876
                        i64.lt_u
                        if ;; label = @11
                          local.get 0
                          i64.const 1099511629276
                          i64.eq
                          br_if 7 (;@4;)
                          local.get 0
                          i64.const 1099511629576
                          i64.eq
                          br_if 6 (;@5;)
                          br 3 (;@8;)
                        else
                          local.get 0
                          i64.const 1099511629876
                          i64.eq
                          br_if 5 (;@6;)
                          local.get 0
                          i64.const 1099511630176
                          i64.eq
                          br_if 4 (;@7;)
                          br 3 (;@8;)
                        end
                      else
                        local.get 0
                        i64.const 1099511642776
                        i64.lt_u
                        if ;; label = @11
                          local.get 0
                          i64.const 1099511630476
                          i64.eq
                          br_if 10 (;@1;)
                          local.get 0
                          i64.const 1099511630776
                          i64.eq
                          br_if 9 (;@2;)
                          br 3 (;@8;)
                        else
                          block ;; label = @12
                            local.get 0
                            i64.const 1099511642776
                            i64.sub
                            local.tee 1
                            i64.const 19
                            i64.ge_u
                            br_if 0 (;@12;)
                            local.get 1
                            i32.wrap_i64
                            br_table 9 (;@3;) 0 (;@12;) 0 (;@12;) 8 (;@4;) 0 (;@12;) 0 (;@12;) 7 (;@5;) 0 (;@12;) 0 (;@12;) 6 (;@6;) 0 (;@12;) 0 (;@12;) 5 (;@7;) 0 (;@12;) 0 (;@12;) 11 (;@1;) 0 (;@12;) 0 (;@12;) 10 (;@2;) 0 (;@12;)
                          end
                          local.get 0
                          i64.const 1102732853248
                          i64.eq
                          br_if 6 (;@5;)
                          br 3 (;@8;)
                        end
                      end
                    end
                  end
                  i32.const -1
                  return
                end
                i32.const 60
                return
              end
              i32.const 50
              return
            end
            i32.const 40
            return
          end
          i32.const 30
          return
        end
        i32.const 20
        return
      end
      i32.const 10
      return
    end
    i32.const 0
    return
  )
