//! Putting values on the stack: locals, constants, frame addresses, folded
//! trees with their pre-pushes and fix-ups.
#[allow(unused_imports)]
use super::*;

impl<'a> Fx<'a> {
    // ----------------------------------------------------------------
    // Emission of values
    // ----------------------------------------------------------------

    /// Pushes value `v` (which must not be folded).
    pub(super) fn get(&mut self, v: ValueId) {
        let v = self.resolve(v);
        self.get_resolved(v);
    }

    /// [`Fx::get`] of a value already resolved through aliases.
    fn get_resolved(&mut self, v: ValueId) {
        let Some(i) = self.local_index(v) else {
            self.push_module_value(v.0);
            return;
        };
        let val = self.b.vals[i];
        match val.kind {
            Kind::Local(l) => self.push_local(l),
            Kind::Const => self.emit_const(i),
            Kind::Frame(off) => self.push_frame_address(off),
            Kind::Folded | Kind::None => {
                // Unused values read only by dead code: any value will do.
                if val.uses == 0 {
                    self.zero(val.ty);
                } else {
                    self.bug(format!("value %v{} read out of order", v.0))
                }
            }
        }
    }

    /// Pushes module-level value `x`: a function's table index or a
    /// global's address (inlined natively, as `emit_const`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn push_module_value(&mut self, x: u32) {
        let cx = self.cx;
        if x < cx.num_funcs {
            self.i32_const((cx.pexe_table_base + x) as i32);
        } else {
            match cx.global_addrs.get((x - cx.num_funcs) as usize) {
                Some(&a) => self.i32_const(a as i32),
                None => self.undefined_value(x),
            }
        }
    }

    #[cold]
    fn undefined_value(&mut self, x: u32) {
        self.bug(format!("value %{x} is not defined"));
    }

    /// Pushes a static alloca's address: the frame base plus `off`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn push_frame_address(&mut self, off: u32) {
        let fl = self.frame_local;
        self.local_op(0x20, fl); // local.get
        if off != 0 {
            self.i32_const(off as i32);
            self.b.code.push(0x6A); // i32.add
        }
    }

    /// Pushes constant value `i`. Inlined natively into the push loop (a
    /// call's register saves were a third of its cost); called in the
    /// package.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn emit_const(&mut self, i: usize) {
        let c = self.f.consts[i - self.num_params as usize];
        match (c.value, c.ty) {
            // i32 first (most constants): a test, not the jump table of
            // the match on the type.
            (ConstValue::Int(x), IrType::Scalar(Scalar::I32)) => self.i32_const(x as i32),
            (ConstValue::Int(x), IrType::Scalar(s)) => match s {
                Scalar::I64 => {
                    self.w().i64_const(x);
                }
                _ => {
                    let x = match int_mask(s) {
                        Some(m) => (x as i32) & m,
                        None => x as i32,
                    };
                    self.i32_const(x);
                }
            },
            // Floats written directly (opcode, then the bits little-endian),
            // not through the encoder's sink: a call each.
            (ConstValue::Float(bits), IrType::Scalar(Scalar::F32)) => {
                let b = (bits as u32).to_le_bytes();
                self.b.code.extend_from_slice(&[0x43, b[0], b[1], b[2], b[3]]); // f32.const
            }
            (ConstValue::Float(bits), IrType::Scalar(Scalar::F64)) => {
                self.b.code.push(0x44); // f64.const
                self.b.code.extend_from_slice(&bits.to_le_bytes());
            }
            (_, t) => self.zero(t),
        }
    }

    pub(super) fn zero(&mut self, t: IrType) {
        self.zero_w(wasm_type(t));
    }

    pub(super) fn zero_w(&mut self, t: W) {
        match t {
            W::I32 => self.w().i32_const(0),
            W::I64 => self.w().i64_const(0),
            W::F32 => self.w().f32_const(Ieee32::new(0)),
            W::F64 => self.w().f64_const(Ieee64::new(0)),
            _ => self.w().v128_const(0),
        };
    }

    pub(super) fn fixup(&mut self, fix: Fixup) {
        match fix {
            Fixup::None => {}
            Fixup::Sext8 => {
                self.w().i32_extend8_s();
            }
            Fixup::Sext16 => {
                self.w().i32_extend16_s();
            }
            Fixup::NegI1 => {
                self.w().i32_const(-1).i32_mul();
            }
            Fixup::Promote => {
                self.w().f64_promote_f32();
            }
        }
    }

    #[inline(always)]
    pub(super) fn push_range(&mut self, from: u32, to: u32) {
        // Read once, not per push through `self.f` (a write of code could
        // have changed it as far as the compiler knows).
        let first = self.f.first_local;
        for p in from..to {
            let Some(&Push { value, fixup }) = self.b.pushes.get(p as usize) else { break };
            self.push_value_after(value, first);
            if fixup != Fixup::None {
                self.fixup(fixup);
            }
        }
    }

    /// [`Fx::get`] with its common cases inline: a local (or the tee of
    /// one just set), a constant, a frame or module-level address,
    /// without a call. Most pushes are resolved through aliases already
    /// (`Fx::push`, `copy_source`); an alias (an intrinsic's argument as
    /// planned) is none of those, so `get` resolves it off the hot path.
    #[inline(always)]
    pub(super) fn push_value(&mut self, v: ValueId) {
        self.push_value_after(v, self.f.first_local);
    }

    /// [`Fx::push_value`] with the body's first local value `first`.
    #[inline(always)]
    fn push_value_after(&mut self, v: ValueId, first: u32) {
        let i = v.0.wrapping_sub(first) as usize;
        match self.b.vals.get(i).map(|val| val.kind) {
            Some(Kind::Local(l)) => self.push_local(l),
            Some(Kind::Const) => self.emit_const(i),
            Some(Kind::Frame(off)) => self.push_frame_address(off),
            Some(_) => self.get(v),
            None => self.push_module_value(v.0),
        }
    }

    /// `local.get l`, or the `local.set l` just written turned into a
    /// `local.tee`.
    #[inline(always)]
    fn push_local(&mut self, l: u32) {
        // One test of the index's kind for the touch and the write (two
        // otherwise: `local_op` tests it again).
        if l >= super::locals::VIRTUAL {
            self.touch_value(l ^ super::locals::VIRTUAL);
            if !self.tee_last_set(l) {
                self.virtual_op(0x20, l); // local.get
            }
        } else if !self.tee_last_set(l) {
            self.op_u32(0x20, l); // local.get
        }
    }

    /// Turns the `local.set l` just written into a `local.tee`, if it is
    /// the last code; says whether it did.
    #[inline(always)]
    fn tee_last_set(&mut self, l: u32) -> bool {
        let (at, set, end) = self.last_set;
        // Virtual indices name values: two values with one local never
        // meet here (the one set is live on, the other read).
        if set == l && end == self.b.code.len() {
            self.b.code[at] = 0x22; // local.set → local.tee
            self.last_set.1 = NONE;
            return true;
        }
        false
    }

    /// Emits the pre-pushes that start at the instruction of `info` and its
    /// own pushes.
    #[inline(always)]
    pub(super) fn emit_pushes(&mut self, info: &InstInfo) {
        let mut e = info.prepush_head;
        while e != NONE {
            let PrePush { from, to, next } = self.b.prepush[e as usize];
            self.push_range(from, to);
            if self.virtual_locals {
                self.note_prepushed(from, to);
            }
            e = next;
        }
        let InstInfo { push_start, own_from, push_end, .. } = *info;
        // Only an instruction with folded or pre-pushed operands can be
        // the user of a pre-push.
        if own_from > push_start && self.has_prepushed(push_start, own_from) {
            self.touch_prepushed(push_start, own_from);
        }
        self.push_range(own_from, push_end);
    }

    /// Emits non-terminator instruction `inst` (`k`, with analysis record
    /// `info`, read once by the caller) in full.
    #[inline(always)]
    pub(super) fn emit_inst(&mut self, k: usize, inst: &'a Inst, info: &InstInfo) {
        self.emit_pushes(info);
        let pushed = self.lower(k, inst, info);
        self.terminal = false;
        if let Some((v, _)) = inst.result {
            // One bounds check (a module-level value wraps past the end),
            // and only the fields an arm reads.
            let i = v.0.wrapping_sub(self.f.first_local);
            let Some(val) = self.b.vals.get(i as usize) else { return };
            match val.kind {
                Kind::Local(l) => {
                    if l >= super::locals::VIRTUAL {
                        self.touch_def(i);
                    }
                    if pushed {
                        let at = self.b.code.len();
                        self.local_op(0x21, l);
                        self.last_set = (at, l, self.b.code.len());
                    }
                }
                Kind::Folded => {
                    let fix = val.fold_fixup;
                    self.fixup(fix)
                }
                _ if pushed => {
                    self.b.code.push(0x1A); // drop
                }
                _ => {}
            }
        }
    }
}
