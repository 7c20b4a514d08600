//! Instruction selection: each IR instruction as wasm instructions
//! (integers, floats, vectors, casts, compares, memory, calls).
#[allow(unused_imports)]
use super::analyze::ResultFix;
use super::*;

impl<'a> Fx<'a> {
    // ----------------------------------------------------------------
    // Instructions
    // ----------------------------------------------------------------

    /// Emits instruction `k` (`info` its analysis record) after its
    /// pushes; answers whether it left its result on the stack (false for
    /// void and for results already stored).
    #[inline(always)]
    pub(super) fn lower(&mut self, k: usize, inst: &'a Inst, info: &InstInfo) -> bool {
        use InstKind::*;
        match &inst.kind {
            Binop { op, lhs, rhs, .. } => {
                let t = self.binop_type(inst, *lhs);
                self.lower_binop(*op, t, *lhs, *rhs, info.lowering, info.shift)
            }
            Cast { op, value, to } => self.lower_cast(*op, self.ty(*value), *to),
            Cmp { pred, lhs, rhs } => self.lower_cmp(*pred, *lhs, *rhs, info.lowering),
            Select { cond, .. } => {
                if self.ty(*cond).is_vector() {
                    self.w().v128_bitselect();
                } else {
                    self.b.code.push(0x1B); // select, written directly
                }
            }
            ExtractElement { vector, index } => {
                let lane = self.const_int(*index).unwrap_or(0) as u8;
                match self.ty(*vector) {
                    IrType::Vector { elem, lanes } => self.extract_lane(elem, lanes, lane, false),
                    _ => self.bug("extractelement of a scalar"),
                }
                if self.ty(*vector).elem() == Scalar::I1 {
                    self.and_mask(1);
                }
            }
            InsertElement { vector, index, .. } => {
                let lane = self.const_int(*index).unwrap_or(0) as u8;
                match self.ty(*vector) {
                    IrType::Vector { elem, lanes } => self.replace_lane(elem, lanes, lane),
                    _ => self.bug("insertelement into a scalar"),
                }
            }
            Alloca { size, align } => self.lower_dynamic_alloca(*size, *align),
            Load { ty, align, .. } => {
                let (a, offset) = (capped_align(*align), info.offset);
                match ty {
                    // One byte: the hint is always 0.
                    IrType::Scalar(Scalar::I8) => self.mem_op(0x2D, 0, offset), // i32.load8_u
                    IrType::Scalar(Scalar::I16) => self.mem_op(0x2F, a(1), offset), // i32.load16_u
                    IrType::Scalar(Scalar::I1) => {
                        self.mem_op(0x28, 0, offset);
                        self.and_mask(1);
                    }
                    IrType::Scalar(Scalar::I32) => self.mem_op(0x28, a(2), offset),
                    IrType::Scalar(Scalar::I64) => self.mem_op(0x29, a(3), offset),
                    IrType::Scalar(Scalar::F32) => self.mem_op(0x2A, a(2), offset),
                    IrType::Scalar(Scalar::F64) => self.mem_op(0x2B, a(3), offset),
                    IrType::Vector { .. } => {
                        self.w().v128_load(memarg(offset, a(4)));
                    }
                };
            }
            Store { value, align, .. } => {
                let ty = self.ty(*value);
                let (a, offset) = (capped_align(*align), info.offset);
                match ty {
                    IrType::Scalar(Scalar::I1 | Scalar::I8) => self.mem_op(0x3A, 0, offset), // i32.store8
                    IrType::Scalar(Scalar::I16) => self.mem_op(0x3B, a(1), offset),
                    IrType::Scalar(Scalar::I32) => self.mem_op(0x36, a(2), offset),
                    IrType::Scalar(Scalar::I64) => self.mem_op(0x37, a(3), offset),
                    IrType::Scalar(Scalar::F32) => self.mem_op(0x38, a(2), offset),
                    IrType::Scalar(Scalar::F64) => self.mem_op(0x39, a(3), offset),
                    IrType::Vector { .. } => {
                        self.w().v128_store(memarg(offset, a(4)));
                    }
                };
                return false;
            }
            Call { callee, args, ret, .. } => {
                // The arguments are looked up only by the arms that read
                // them (a plain call does not).
                return match self.cx.callee(*callee) {
                    Some(Callee::Defined { index, .. }) if callee.0 == self.cx.fast_sqrt && args.len == 1 => {
                        let args = self.f.args(*args);
                        if crate::back::wasm::libm::never_negative(self.f, self.cx, args[0]) {
                            self.sqrt_site(index, callee.0, true);
                        } else {
                            self.sqrt_call(index, callee.0);
                        }
                        ret.is_some()
                    }
                    Some(Callee::Defined { index, .. }) => {
                        self.op_u32(0x10, index); // call
                        ret.is_some()
                    }
                    Some(Callee::Intrinsic(i)) => self.lower_intrinsic(k, i, self.f.args(*args), *ret),
                    _ => {
                        self.w()
                            .i32_const(crate::back::wasm::imports::fault::MISSING_FUNCTION)
                            .i32_const(callee.0 as i32)
                            .call(FAULT_FUNC)
                            .unreachable();
                        self.terminal = true;
                        ret.is_some()
                    }
                };
            }
            CallIndirect { callee, args, ret, .. } => {
                let args = self.f.args(*args);
                let direct = match info.lowering {
                    Lowering::Direct => self.direct_target(*callee, args, inst),
                    _ => None,
                };
                if let Some(d) = direct {
                    for _ in 0..d.drop {
                        self.b.code.push(0x1A); // drop
                    }
                    for &t in &d.pad {
                        self.zero_w(t);
                    }
                    self.op_u32(0x10, d.index); // call
                    match d.result {
                        ResultFix::Same => {}
                        ResultFix::Drop => {
                            self.b.code.push(0x1A); // drop
                        }
                        ResultFix::Zero(t) => self.zero_w(t),
                    }
                } else {
                    let ty = self.indirect_type(args, *ret);
                    match ty {
                        Ok(ty) => {
                            // call_indirect ty, table 0 (written directly).
                            self.op_u32(0x11, ty);
                            self.b.code.push(0x00);
                        }
                        Err(key) => {
                            // call_indirect, a type index to patch, table 0.
                            self.b.code.push(0x11);
                            self.b.sig_fixups.push((self.b.code.len(), key));
                            self.b.code.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x00, 0x00]);
                        }
                    }
                }
                return ret.is_some();
            }
            Phi { .. } | Ret { .. } | Br { .. } | CondBr { .. } | Switch { .. } | Unreachable => {
                self.bug("a terminator or phi in the middle of a block");
                return false;
            }
        }
        true
    }

    /// The type index of an indirect call with `args` and `ret`, or the
    /// key of a signature the module lacks. Remembered by a packed key:
    /// the lookup hashes a byte key, and a body's indirect calls share a
    /// few signatures.
    #[inline(never)]
    fn indirect_type(&mut self, args: &[ValueId], ret: Option<IrType>) -> Result<u32, Box<[u8]>> {
        let vals = &self.b.vals;
        let first = self.f.first_local;
        let ty_of = |a: &ValueId| match a.0.checked_sub(first) {
            Some(i) if (i as usize) < vals.len() => vals[i as usize].ty,
            _ => IrType::I32,
        };
        let key = SigMemo::key(args.iter().map(ty_of), ret);
        let memo = &mut self.b.sig_memo;
        memo.hold(self.sigs);
        if let Some(i) = key.and_then(|k| memo.get(k)) {
            return Ok(i);
        }
        let found = self.sigs.lookup_pnacl(args.iter().map(ty_of), ret);
        if let (Some(k), Ok(i)) = (key, &found) {
            self.b.sig_memo.put(k, *i);
        }
        found
    }

    /// A call of the pexe's `sqrt` in the form `libm.rs` describes: the
    /// same call on both arms, the first of which the module may turn into
    /// `f64.sqrt`.
    pub(super) fn sqrt_call(&mut self, index: u32, callee: u32) {
        let t = self.scratch(W::F64, 0);
        self.local_op(0x21, t); // local.set
        self.local_op(0x20, t); // local.get
        self.w().f64_const(Ieee64::from(-0.0f64)).f64_ge().if_(BlockType::Result(W::F64));
        self.local_op(0x20, t);
        self.sqrt_site(index, callee, false);
        self.w().else_();
        self.local_op(0x20, t);
        self.w().call(index).end();
    }

    /// `call $sqrt`, noted as a site the module may turn into `f64.sqrt`.
    pub(super) fn sqrt_site(&mut self, index: u32, callee: u32, unguarded: bool) {
        let at = self.b.code.len();
        self.op_u32(0x10, index); // call
        let len = (self.b.code.len() - at) as u8;
        self.b.call_sites.push((at, len, callee, unguarded));
    }

    /// Binop `op` on `t`; `how` as `plan` chose, with the shift `k` of an
    /// exact division.
    pub(super) fn lower_binop(&mut self, op: BinOp, t: IrType, lhs: ValueId, rhs: ValueId, how: Lowering, k: u8) {
        match t {
            // The full-width integers first (most binops): one opcode byte,
            // no mask.
            IrType::Scalar(s @ (Scalar::I32 | Scalar::I64)) if how != Lowering::ExactShift => {
                self.int_binop(op, s == Scalar::I64);
            }
            IrType::Scalar(s) if s.is_float() => self.float_binop(op, s),
            IrType::Scalar(Scalar::I32) if how == Lowering::ExactShift => {
                self.w().i32_const(i32::from(k)).i32_shr_s();
            }
            IrType::Scalar(Scalar::I64) if how == Lowering::ExactShift => {
                self.w().i64_const(i64::from(k)).i64_shr_s();
            }
            IrType::Scalar(s) => {
                self.int_binop(op, s == Scalar::I64);
                if let Some(m) = int_mask(s) {
                    if matches!(
                        op,
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::AShr | BinOp::SDiv | BinOp::SRem
                    ) {
                        self.and_mask(m);
                    }
                }
            }
            IrType::Vector { elem, lanes } => match vector_binop(op, t) {
                Some(simd) => self.emit_simd(simd),
                None => self.scalarize_binop(op, elem, lanes, lhs, rhs),
            },
        }
    }

    /// For `sdiv x, 2^k` (i32 or i64, k ≥ 1) where `x` is known to be a
    /// multiple of 2^k: k. The division is then exact, and an arithmetic
    /// shift computes it in one instruction where `div_s` by a power of two
    /// takes engines three or four (rounding toward zero needs the sign).
    /// PNaCl's IR has no `nsw`/`exact` flags, so `(i+j)*(i+j+1)/2` reaches us
    /// as a plain `sdiv` (spectralnorm's inner loops).
    #[inline(never)]
    pub(super) fn exact_sdiv_shift(&self, op: BinOp, lhs: ValueId, rhs: ValueId) -> Option<u32> {
        if op != BinOp::SDiv || !matches!(self.ty(lhs), IrType::Scalar(Scalar::I32 | Scalar::I64)) {
            return None;
        }
        let d = self.const_int(rhs)? as u64;
        let bits = if self.ty(lhs) == IrType::I64 { 64 } else { 32 };
        let d = if bits == 32 { d & 0xffff_ffff } else { d };
        if !d.is_power_of_two() || d == 1 {
            return None;
        }
        let k = d.trailing_zeros();
        // 2^31 (or 2^63) as a divisor is negative: not a shift.
        if k >= bits - 1 {
            return None;
        }
        (self.known_trailing_zeros(lhs, bits, 4) >= k).then_some(k)
    }

    /// How many low bits of integer `v` are known to be zero (a lower
    /// bound), looking through at most `depth` defining instructions.
    fn known_trailing_zeros(&self, v: ValueId, bits: u32, depth: u32) -> u32 {
        let v = self.resolve(v);
        if let Some(c) = self.const_int(v) {
            let c = if bits == 32 { c as u64 & 0xffff_ffff } else { c as u64 };
            return c.trailing_zeros().min(bits);
        }
        if depth == 0 {
            return 0;
        }
        let Some(d) = self.def_inst(v) else { return 0 };
        let InstKind::Binop { op, lhs, rhs, .. } = self.f.insts[d].kind else { return 0 };
        let tz = |x: ValueId| self.known_trailing_zeros(x, bits, depth - 1);
        match op {
            BinOp::Mul => {
                // x * (x ± odd): one of two numbers of different parity.
                let even = self.differs_by_odd(lhs, rhs) || self.differs_by_odd(rhs, lhs);
                (tz(lhs) + tz(rhs)).max(even as u32).min(bits)
            }
            BinOp::Shl => match self.const_int(rhs) {
                Some(c) if (0..bits as i64).contains(&c) => (tz(lhs) + c as u32).min(bits),
                _ => 0,
            },
            BinOp::And => tz(lhs).max(tz(rhs)),
            BinOp::Add | BinOp::Sub | BinOp::Or | BinOp::Xor => tz(lhs).min(tz(rhs)),
            _ => 0,
        }
    }

    /// Whether `a` is `b ± C` or `C - b` for an odd constant C: `a` and `b`
    /// then differ in parity, so their product is even.
    fn differs_by_odd(&self, a: ValueId, b: ValueId) -> bool {
        let Some(d) = self.def_inst(self.resolve(a)) else { return false };
        let InstKind::Binop { op: BinOp::Add | BinOp::Sub, lhs, rhs, .. } = self.f.insts[d].kind else {
            return false;
        };
        let b = self.resolve(b);
        let odd = |c: ValueId| self.const_int(c).is_some_and(|c| c & 1 == 1);
        (self.resolve(lhs) == b && odd(rhs)) || (self.resolve(rhs) == b && odd(lhs))
    }

    /// The integer binop `op` on i32 (or, `wide`, i64): its opcode byte
    /// written directly (one byte, no call through the sink per op).
    pub(super) fn int_binop(&mut self, op: BinOp, wide: bool) {
        use BinOp::*;
        let code = match op {
            Add => 0x6A,
            Sub => 0x6B,
            Mul => 0x6C,
            SDiv => 0x6D,
            UDiv => 0x6E,
            SRem => 0x6F,
            URem => 0x70,
            And => 0x71,
            Or => 0x72,
            Xor => 0x73,
            Shl => 0x74,
            AShr => 0x75,
            LShr => 0x76,
        };
        // The i64 forms are in the same order, 0x12 further on.
        self.b.code.push(if wide { code + 0x12 } else { code });
    }

    #[allow(clippy::needless_return)] // a bug arm must match the sink type of the others
    pub(super) fn float_binop(&mut self, op: BinOp, s: Scalar) {
        let f64_ = s == Scalar::F64;
        let mut w = self.w();
        match (op, f64_) {
            (BinOp::Add, false) => w.f32_add(),
            (BinOp::Sub, false) => w.f32_sub(),
            (BinOp::Mul, false) => w.f32_mul(),
            (BinOp::SDiv, false) => w.f32_div(),
            (BinOp::Add, true) => w.f64_add(),
            (BinOp::Sub, true) => w.f64_sub(),
            (BinOp::Mul, true) => w.f64_mul(),
            (BinOp::SDiv, true) => w.f64_div(),
            (BinOp::SRem, true) => w.call(FMOD_FUNC),
            (BinOp::SRem, false) => w.call(FMOD_FUNC).f32_demote_f64(),
            _ => return self.bug(format!("{} on floating point", op.name(true))),
        };
    }

    /// A lane-wise binop SIMD has no instruction for: lane by lane.
    // Out of line: rare, and inlined it crowds the registers of the
    // instruction loop it would land in (`emit_basic`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn scalarize_binop(&mut self, op: BinOp, elem: Scalar, lanes: u32, lhs: ValueId, rhs: ValueId) {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem | BinOp::AShr);
        self.get(lhs);
        for lane in 0..lanes as u8 {
            self.get(lhs);
            self.extract_lane(elem, lanes, lane, signed);
            if elem == Scalar::F32 {
                self.w().f64_promote_f32();
            }
            self.get(rhs);
            self.extract_lane(elem, lanes, lane, signed);
            if elem == Scalar::F32 {
                self.w().f64_promote_f32();
            }
            if elem.is_float() {
                self.float_binop(op, Scalar::F64);
                self.w().f32_demote_f64();
            } else {
                self.int_binop(op, false);
            }
            self.replace_lane(elem, lanes, lane);
        }
    }

    pub(super) fn extract_lane(&mut self, elem: Scalar, lanes: u32, lane: u8, signed: bool) {
        let mut w = self.w();
        match (elem, lanes) {
            (Scalar::F32, _) => w.f32x4_extract_lane(lane),
            (_, 4) => w.i32x4_extract_lane(lane),
            (_, 8) if signed => w.i16x8_extract_lane_s(lane),
            (_, 8) => w.i16x8_extract_lane_u(lane),
            (_, _) if signed => w.i8x16_extract_lane_s(lane),
            (_, _) => w.i8x16_extract_lane_u(lane),
        };
    }

    pub(super) fn replace_lane(&mut self, elem: Scalar, lanes: u32, lane: u8) {
        let mut w = self.w();
        match (elem, lanes) {
            (Scalar::F32, _) => w.f32x4_replace_lane(lane),
            (_, 4) => w.i32x4_replace_lane(lane),
            (_, 8) => w.i16x8_replace_lane(lane),
            (_, _) => w.i8x16_replace_lane(lane),
        };
    }

    pub(super) fn emit_simd(&mut self, op: Simd) {
        let mut w = self.w();
        use Simd::*;
        match op {
            And => w.v128_and(),
            Or => w.v128_or(),
            Xor => w.v128_xor(),
            I8Add => w.i8x16_add(),
            I8Sub => w.i8x16_sub(),
            I16Add => w.i16x8_add(),
            I16Sub => w.i16x8_sub(),
            I16Mul => w.i16x8_mul(),
            I32Add => w.i32x4_add(),
            I32Sub => w.i32x4_sub(),
            I32Mul => w.i32x4_mul(),
            F32Add => w.f32x4_add(),
            F32Sub => w.f32x4_sub(),
            F32Mul => w.f32x4_mul(),
            F32Div => w.f32x4_div(),
        };
    }

    pub(super) fn lower_cast(&mut self, op: CastOp, from: IrType, to: IrType) {
        match (from, to) {
            (IrType::Scalar(a), IrType::Scalar(b)) => self.scalar_cast(op, a, b),
            (IrType::Vector { elem: a, lanes }, IrType::Vector { elem: b, .. }) => self.vector_cast(op, a, b, lanes),
            (IrType::Vector { elem: Scalar::I1, lanes: 16 }, IrType::Scalar(Scalar::I16)) if op == CastOp::Bitcast => {
                self.w().i8x16_bitmask();
            }
            (IrType::Vector { elem: Scalar::I1, lanes: 8 }, IrType::Scalar(Scalar::I8)) if op == CastOp::Bitcast => {
                self.w().i16x8_bitmask();
            }
            (IrType::Scalar(Scalar::I16), IrType::Vector { elem: Scalar::I1, lanes: 16 }) if op == CastOp::Bitcast => {
                // Byte 0 to lanes 0-7, byte 1 to lanes 8-15, then test bit i % 8.
                let bits = i128::from_le_bytes([1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]);
                let pick = i128::from_le_bytes([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
                self.w()
                    .i16x8_splat()
                    .v128_const(pick)
                    .i8x16_swizzle()
                    .v128_const(bits)
                    .v128_and()
                    .v128_const(bits)
                    .i8x16_eq();
            }
            (IrType::Scalar(Scalar::I8), IrType::Vector { elem: Scalar::I1, lanes: 8 }) if op == CastOp::Bitcast => {
                let bits = (0..8).rev().fold(0i128, |acc, i| (acc << 16) | (1i128 << i));
                self.w().i16x8_splat().v128_const(bits).v128_and().v128_const(bits).i16x8_eq();
            }
            _ => self.bug(format!("cast {} {from} to {to}", op.name())),
        }
    }

    #[allow(clippy::needless_return)] // a bug arm must match the sink type of the others
    pub(super) fn scalar_cast(&mut self, op: CastOp, a: Scalar, b: Scalar) {
        use Scalar::*;
        let mut w = self.w();
        match op {
            CastOp::Trunc => {
                if a == I64 {
                    w.i32_wrap_i64();
                }
                if let Some(m) = int_mask(b) {
                    self.and_mask(m);
                }
            }
            CastOp::ZExt => {
                if b == I64 {
                    w.i64_extend_i32_u();
                }
            }
            CastOp::SExt => {
                match a {
                    I1 => w.i32_const(-1).i32_mul(),
                    I8 => w.i32_extend8_s(),
                    I16 => w.i32_extend16_s(),
                    _ => &mut w,
                };
                if b == I64 {
                    w.i64_extend_i32_s();
                } else if let Some(m) = int_mask(b) {
                    self.and_mask(m);
                }
            }
            CastOp::FpToSi | CastOp::FpToUi => {
                let signed = op == CastOp::FpToSi;
                match (a, b == I64, signed) {
                    (F32, false, true) => w.i32_trunc_sat_f32_s(),
                    (F32, false, false) => w.i32_trunc_sat_f32_u(),
                    (F64, false, true) => w.i32_trunc_sat_f64_s(),
                    (F64, false, false) => w.i32_trunc_sat_f64_u(),
                    (F32, true, true) => w.i64_trunc_sat_f32_s(),
                    (F32, true, false) => w.i64_trunc_sat_f32_u(),
                    (F64, true, true) => w.i64_trunc_sat_f64_s(),
                    (F64, true, false) => w.i64_trunc_sat_f64_u(),
                    _ => return self.bug("fptoi from an integer"),
                };
                if let Some(m) = int_mask(b) {
                    self.and_mask(m);
                }
            }
            CastOp::SiToFp | CastOp::UiToFp => {
                // i1/i8/i16 operands were sign-extended by the push fix-up
                // for sitofp; zero-extended is their normal form.
                let signed = op == CastOp::SiToFp;
                match (a == I64, b, signed) {
                    (false, F32, true) => w.f32_convert_i32_s(),
                    (false, F32, false) => w.f32_convert_i32_u(),
                    (false, F64, true) => w.f64_convert_i32_s(),
                    (false, F64, false) => w.f64_convert_i32_u(),
                    (true, F32, true) => w.f32_convert_i64_s(),
                    (true, F32, false) => w.f32_convert_i64_u(),
                    (true, F64, true) => w.f64_convert_i64_s(),
                    (true, F64, false) => w.f64_convert_i64_u(),
                    _ => return self.bug("itofp to an integer"),
                };
            }
            CastOp::FpTrunc => {
                w.f32_demote_f64();
            }
            CastOp::FpExt => {
                w.f64_promote_f32();
            }
            CastOp::Bitcast => {
                match (a, b) {
                    (I32, F32) => w.f32_reinterpret_i32(),
                    (F32, I32) => w.i32_reinterpret_f32(),
                    (I64, F64) => w.f64_reinterpret_i64(),
                    (F64, I64) => w.i64_reinterpret_f64(),
                    (x, y) if x == y => &mut w,
                    _ => return self.bug(format!("bitcast {a} to {b}")),
                };
            }
        }
    }

    // Out of line: rare, and inlined it crowds the registers of the
    // instruction loop it would land in (`emit_basic`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn vector_cast(&mut self, op: CastOp, a: Scalar, b: Scalar, lanes: u32) {
        use Scalar::*;
        let width = 128 / lanes;
        // Lane shifts for masks: `shl` then arithmetic `shr` by width - 1.
        let mask_from_low_bit = |fx: &mut Self| {
            let s = (width - 1) as i32;
            let mut w = fx.w();
            match lanes {
                4 => w.i32_const(s).i32x4_shl().i32_const(s).i32x4_shr_s(),
                8 => w.i32_const(s).i16x8_shl().i32_const(s).i16x8_shr_s(),
                _ => w.i32_const(s).i8x16_shl().i32_const(s).i8x16_shr_s(),
            };
        };
        let mask_to_one = |fx: &mut Self| {
            let s = (width - 1) as i32;
            let mut w = fx.w();
            match lanes {
                4 => w.i32_const(s).i32x4_shr_u(),
                8 => w.i32_const(s).i16x8_shr_u(),
                _ => w.i32_const(s).i8x16_shr_u(),
            };
        };
        match op {
            CastOp::Trunc if b == I1 => mask_from_low_bit(self),
            CastOp::ZExt if a == I1 => mask_to_one(self),
            CastOp::SExt if a == I1 => {}
            CastOp::FpToSi | CastOp::FpToUi if a == F32 && lanes == 4 => {
                if op == CastOp::FpToSi {
                    self.w().i32x4_trunc_sat_f32x4_s();
                } else {
                    self.w().i32x4_trunc_sat_f32x4_u();
                }
                if b == I1 {
                    mask_from_low_bit(self);
                }
            }
            CastOp::SiToFp | CastOp::UiToFp if b == F32 && lanes == 4 => {
                if a == I1 && op == CastOp::UiToFp {
                    mask_to_one(self);
                }
                if op == CastOp::SiToFp {
                    self.w().f32x4_convert_i32x4_s();
                } else {
                    self.w().f32x4_convert_i32x4_u();
                }
            }
            CastOp::Bitcast => {}
            _ => self.bug(format!("vector cast {} <{lanes} x {a}> to <{lanes} x {b}>", op.name())),
        }
    }

    /// `icmp eq x, 0` (either side): the `x` to test with `eqz`.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub(super) fn eqz_operand(&self, pred: CmpPred, lhs: ValueId, rhs: ValueId) -> Option<ValueId> {
        if pred != CmpPred::IEq || !matches!(self.ty(lhs), IrType::Scalar(s) if s.is_int()) {
            return None;
        }
        if self.const_int(rhs) == Some(0) {
            Some(lhs)
        } else if self.const_int(lhs) == Some(0) {
            Some(rhs)
        } else {
            None
        }
    }

    /// `icmp ne x, 0` on at most 32 bits whose only use is the condition of
    /// a `br` or `select`, which test for non-zero anyway: just `x`.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub(super) fn truthy_operand(&self, k: usize) -> Option<ValueId> {
        let inst = &self.f.insts[k];
        let InstKind::Cmp { pred: CmpPred::INe, lhs, rhs } = inst.kind else { return None };
        if wasm_type(self.ty(lhs)) != W::I32 || self.ty(lhs).is_vector() {
            return None;
        }
        let x = match (self.const_int(lhs), self.const_int(rhs)) {
            (_, Some(0)) => lhs,
            (Some(0), _) => rhs,
            _ => return None,
        };
        let (v, _) = inst.result?;
        let val = &self.b.vals[self.local_index(v)?];
        if val.uses != 1 || val.user == NONE {
            return None;
        }
        match self.f.insts[val.user as usize].kind {
            InstKind::CondBr { cond, .. } if cond == v => Some(x),
            InstKind::Select { cond, if_true, if_false } if cond == v && if_true != v && if_false != v => Some(x),
            _ => None,
        }
    }

    #[allow(clippy::needless_return)] // a bug arm must match the sink type of the others
    pub(super) fn lower_cmp(&mut self, pred: CmpPred, lhs: ValueId, rhs: ValueId, how: Lowering) {
        let t = self.ty(lhs);
        match how {
            Lowering::Truthy => return,
            Lowering::Eqz => {
                // i64.eqz or i32.eqz
                self.b.code.push(if t == IrType::I64 { 0x50 } else { 0x45 });
                return;
            }
            _ => {}
        }
        match t {
            IrType::Scalar(s) if s.is_int() => {
                use CmpPred::*;
                // The i32 compares' opcodes, written directly.
                let code = match pred {
                    IEq => 0x46,
                    INe => 0x47,
                    ISlt => 0x48,
                    IUlt => 0x49,
                    ISgt => 0x4A,
                    IUgt => 0x4B,
                    ISle => 0x4C,
                    IUle => 0x4D,
                    ISge => 0x4E,
                    IUge => 0x4F,
                    _ => return self.bug("fcmp on integers"),
                };
                // The i64 forms are in the same order, 0x0B further on.
                self.b.code.push(if s == Scalar::I64 { code + 0x0B } else { code });
            }
            IrType::Scalar(s) => self.float_cmp(pred, s == Scalar::F64, lhs, rhs),
            IrType::Vector { elem, lanes } => self.vector_cmp(pred, elem, lanes, lhs, rhs),
        }
    }

    /// One scalar float comparison `which` on the two values on the stack.
    pub(super) fn fcmp_op(&mut self, f64_: bool, which: FCmp) {
        let mut w = self.w();
        match (which, f64_) {
            (FCmp::Eq, false) => w.f32_eq(),
            (FCmp::Ne, false) => w.f32_ne(),
            (FCmp::Lt, false) => w.f32_lt(),
            (FCmp::Gt, false) => w.f32_gt(),
            (FCmp::Le, false) => w.f32_le(),
            (FCmp::Ge, false) => w.f32_ge(),
            (FCmp::Eq, true) => w.f64_eq(),
            (FCmp::Ne, true) => w.f64_ne(),
            (FCmp::Lt, true) => w.f64_lt(),
            (FCmp::Gt, true) => w.f64_gt(),
            (FCmp::Le, true) => w.f64_le(),
            (FCmp::Ge, true) => w.f64_ge(),
        };
    }

    pub(super) fn float_cmp(&mut self, pred: CmpPred, f64_: bool, lhs: ValueId, rhs: ValueId) {
        use CmpPred::*;
        // Simple predicates have their operands pushed; `u` ones are the
        // negation of the opposite ordered compare.
        let (simple, negate) = match pred {
            FOeq => (Some(FCmp::Eq), false),
            FOgt => (Some(FCmp::Gt), false),
            FOge => (Some(FCmp::Ge), false),
            FOlt => (Some(FCmp::Lt), false),
            FOle => (Some(FCmp::Le), false),
            FUne => (Some(FCmp::Ne), false),
            FUgt => (Some(FCmp::Le), true),
            FUge => (Some(FCmp::Lt), true),
            FUlt => (Some(FCmp::Ge), true),
            FUle => (Some(FCmp::Gt), true),
            _ => (None, false),
        };
        if let Some(op) = simple {
            self.fcmp_op(f64_, op);
            if negate {
                self.w().i32_eqz();
            }
            return;
        }
        match pred {
            FFalse => {
                self.w().i32_const(0);
            }
            FTrue => {
                self.w().i32_const(1);
            }
            FOne | FUeq => {
                self.get(lhs);
                self.get(rhs);
                self.fcmp_op(f64_, FCmp::Lt);
                self.get(lhs);
                self.get(rhs);
                self.fcmp_op(f64_, FCmp::Gt);
                self.w().i32_or();
                if pred == FUeq {
                    self.w().i32_eqz();
                }
            }
            FOrd | FUno => {
                let (op, join) = if pred == FOrd { (FCmp::Eq, true) } else { (FCmp::Ne, false) };
                self.get(lhs);
                self.get(lhs);
                self.fcmp_op(f64_, op);
                self.get(rhs);
                self.get(rhs);
                self.fcmp_op(f64_, op);
                if join {
                    self.w().i32_and();
                } else {
                    self.w().i32_or();
                }
            }
            _ => self.bug("icmp on floating point"),
        }
    }

    // Out of line natively: vector code is rare, and inlined into
    // `emit_basic` it crowded the instruction loop's registers.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn vector_cmp(&mut self, pred: CmpPred, elem: Scalar, lanes: u32, lhs: ValueId, rhs: ValueId) {
        use CmpPred::*;
        if elem.is_int() {
            let mut w = self.w();
            macro_rules! cmp {
                ($eq:ident, $ne:ident, $gtu:ident, $geu:ident, $ltu:ident, $leu:ident, $gts:ident, $ges:ident, $lts:ident, $les:ident) => {
                    match pred {
                        IEq => w.$eq(),
                        INe => w.$ne(),
                        IUgt => w.$gtu(),
                        IUge => w.$geu(),
                        IUlt => w.$ltu(),
                        IUle => w.$leu(),
                        ISgt => w.$gts(),
                        ISge => w.$ges(),
                        ISlt => w.$lts(),
                        ISle => w.$les(),
                        _ => return self.bug("fcmp on an integer vector"),
                    }
                };
            }
            match lanes {
                4 => cmp!(
                    i32x4_eq, i32x4_ne, i32x4_gt_u, i32x4_ge_u, i32x4_lt_u, i32x4_le_u, i32x4_gt_s, i32x4_ge_s,
                    i32x4_lt_s, i32x4_le_s
                ),
                8 => cmp!(
                    i16x8_eq, i16x8_ne, i16x8_gt_u, i16x8_ge_u, i16x8_lt_u, i16x8_le_u, i16x8_gt_s, i16x8_ge_s,
                    i16x8_lt_s, i16x8_le_s
                ),
                _ => cmp!(
                    i8x16_eq, i8x16_ne, i8x16_gt_u, i8x16_ge_u, i8x16_lt_u, i8x16_le_u, i8x16_gt_s, i8x16_ge_s,
                    i8x16_lt_s, i8x16_le_s
                ),
            };
            return;
        }
        match pred {
            FOeq => {
                self.w().f32x4_eq();
            }
            FOgt => {
                self.w().f32x4_gt();
            }
            FOge => {
                self.w().f32x4_ge();
            }
            FOlt => {
                self.w().f32x4_lt();
            }
            FOle => {
                self.w().f32x4_le();
            }
            FUne => {
                self.w().f32x4_ne();
            }
            FUgt => {
                self.w().f32x4_le().v128_not();
            }
            FUge => {
                self.w().f32x4_lt().v128_not();
            }
            FUlt => {
                self.w().f32x4_ge().v128_not();
            }
            FUle => {
                self.w().f32x4_gt().v128_not();
            }
            FFalse => {
                self.w().v128_const(0);
            }
            FTrue => {
                self.w().v128_const(-1);
            }
            FOne | FUeq => {
                self.get(lhs);
                self.get(rhs);
                self.w().f32x4_lt();
                self.get(lhs);
                self.get(rhs);
                self.w().f32x4_gt().v128_or();
                if pred == FUeq {
                    self.w().v128_not();
                }
            }
            FOrd | FUno => {
                let ord = pred == FOrd;
                self.get(lhs);
                self.get(lhs);
                if ord {
                    self.w().f32x4_eq();
                } else {
                    self.w().f32x4_ne();
                }
                self.get(rhs);
                self.get(rhs);
                if ord {
                    self.w().f32x4_eq().v128_and();
                } else {
                    self.w().f32x4_ne().v128_or();
                }
            }
            _ => self.bug("icmp on a float vector"),
        }
    }

    /// `sp = (sp - size) & -align`, checked against the stack limit.
    // Out of line: rare, and inlined it crowds the registers of the
    // instruction loop it would land in (`emit_basic`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn lower_dynamic_alloca(&mut self, size: ValueId, align: u32) {
        let tmp = self.scratch(W::I32, 0);
        self.w().global_get(global::STACK_POINTER);
        self.get(size);
        self.w().i32_sub();
        if align > 1 {
            self.w().i32_const(-(align as i32)).i32_and();
        }
        self.local_tee(tmp);
        self.w().global_get(global::STACK_LIMIT).i32_lt_u();
        self.local_get(tmp);
        self.w()
            .global_get(global::STACK_POINTER)
            .i32_gt_u()
            .i32_or()
            .if_(BlockType::Empty)
            .i32_const(crate::back::wasm::imports::fault::STACK_OVERFLOW)
            .i32_const(0)
            .call(FAULT_FUNC)
            .end();
        self.local_get(tmp);
        self.w().global_set(global::STACK_POINTER);
        self.local_get(tmp);
    }
}


/// The six ordered scalar float compares wasm has.
#[derive(Clone, Copy, Debug)]
pub(super) enum FCmp {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

/// A lane-wise operation SIMD128 has as one instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Simd {
    And,
    Or,
    Xor,
    I8Add,
    I8Sub,
    I16Add,
    I16Sub,
    I16Mul,
    I32Add,
    I32Sub,
    I32Mul,
    F32Add,
    F32Sub,
    F32Mul,
    F32Div,
}

pub(super) fn vector_binop(op: BinOp, t: IrType) -> Option<Simd> {
    let IrType::Vector { elem, lanes } = t else { return None };
    use BinOp::*;
    Some(match (op, elem, lanes) {
        (And, e, _) if e.is_int() => Simd::And,
        (Or, e, _) if e.is_int() => Simd::Or,
        (Xor, e, _) if e.is_int() => Simd::Xor,
        (_, Scalar::I1, _) => return None,
        (Add, Scalar::F32, _) => Simd::F32Add,
        (Sub, Scalar::F32, _) => Simd::F32Sub,
        (Mul, Scalar::F32, _) => Simd::F32Mul,
        (SDiv, Scalar::F32, _) => Simd::F32Div,
        (Add, _, 16) => Simd::I8Add,
        (Sub, _, 16) => Simd::I8Sub,
        (Add, _, 8) => Simd::I16Add,
        (Sub, _, 8) => Simd::I16Sub,
        (Mul, _, 8) => Simd::I16Mul,
        (Add, _, 4) => Simd::I32Add,
        (Sub, _, 4) => Simd::I32Sub,
        (Mul, _, 4) => Simd::I32Mul,
        _ => return None,
    })
}

/// Whether a compare is one instruction on its two pushed operands.
pub(super) fn cmp_is_simple(pred: CmpPred, t: IrType) -> bool {
    use CmpPred::*;
    if t.elem().is_int() {
        return true;
    }
    !matches!(pred, FOne | FUeq | FOrd | FUno | FFalse | FTrue)
}

/// Type indices of signatures found in one [`Signatures`] (frozen for the
/// module; a translator serves one context, which outlives it): a small
/// direct-mapped table keyed by the signature's value types packed three
/// bits each.
#[derive(Default)]
pub(in crate::back::wasm) struct SigMemo {
    of: usize,
    slots: Vec<(u64, u32)>,
}

impl SigMemo {
    const SLOTS_LOG2: u32 = 6;

    /// The packed key of `(params) -> ret`: each type's code 1..=5, the
    /// result's at bits 60..63 and bit 63 set (so no key is 0, an empty
    /// slot); `None` past 20 parameters.
    fn key(params: impl Iterator<Item = IrType>, ret: Option<IrType>) -> Option<u64> {
        let code = |t: IrType| super::locals::type_slot(wasm_type(t)) as u64 + 1;
        let mut key = 1 << 63 | ret.map_or(0, code) << 60;
        for (n, t) in params.enumerate() {
            if n == 20 {
                return None;
            }
            key |= code(t) << (3 * n);
        }
        Some(key)
    }

    /// Empties the table unless it was filled from `sigs`.
    fn hold(&mut self, sigs: &Signatures) {
        let of = std::ptr::from_ref(sigs) as usize;
        if self.of != of {
            self.of = of;
            self.slots.clear();
            self.slots.resize(1 << Self::SLOTS_LOG2, (0, 0));
        }
    }

    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOTS_LOG2)) as usize
    }

    fn get(&self, key: u64) -> Option<u32> {
        self.slots.get(Self::slot(key)).filter(|s| s.0 == key).map(|s| s.1)
    }

    fn put(&mut self, key: u64, index: u32) {
        if let Some(s) = self.slots.get_mut(Self::slot(key)) {
            *s = (key, index);
        }
    }
}
