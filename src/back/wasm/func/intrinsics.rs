//! Calls of the LLVM/NaCl intrinsics a pexe may use, as inline wasm.
//!
//! Memory intrinsics use bulk memory (`memory.copy`/`memory.fill`); the
//! NaCl atomics use the threads proposal's atomic instructions, which are
//! all sequentially consistent (the strongest order PNaCl can ask for), on
//! naturally aligned addresses; bit tricks use wasm's own `clz`/`ctz`/
//! `popcnt`/rotates. setjmp and longjmp are in `setjmp.rs`.
//!
//! # Single-threaded modules
//!
//! In a module that can never have a second thread
//! ([`ModuleCx::single_threaded`](crate::back::wasm::ModuleCx): not a
//! Pepper plugin, no mention of the IRT thread interface, and its table's
//! `thread_create` answers EAGAIN) nothing can observe memory between two
//! instructions of the guest but the guest itself: the runtime reads and
//! writes guest memory only inside the IRT calls the guest makes. There an
//! atomic is a plain access, an RMW a load, the operation and a store, a
//! cmpxchg a load and a store of `old == expected ? new : old`, a fence
//! nothing: the same values in the same order, without the locked
//! instructions (an `xchg` per lock and unlock in newlib's malloc was a
//! third of binarytrees' time). One difference remains: a misaligned
//! address, which a wasm atomic traps on, is accessed like any other.

use super::{memarg, Fixup, Fx, NONE};
use crate::back::wasm::types::wasm_type;
use crate::back::wasm::global;
use crate::ir::{Scalar, ValType as IrType, ValueId};
use crate::verify::{Intrinsic, RmwOp};
use wasm_encoder::{Encode, MemArg, Ordering, ValType as W};

/// Threads-proposal opcodes (after the 0xFE prefix). RMW families are
/// laid out `[i32, i64, i32 8-bit, i32 16-bit, …]` from their base.
mod atomic_op {
    pub const LOAD: u32 = 0x10;
    pub const STORE: u32 = 0x17;
    pub const RMW_ADD: u32 = 0x1e;
    pub const RMW_SUB: u32 = 0x25;
    pub const RMW_AND: u32 = 0x2c;
    pub const RMW_OR: u32 = 0x33;
    pub const RMW_XOR: u32 = 0x3a;
    pub const RMW_XCHG: u32 = 0x41;
    pub const RMW_CMPXCHG: u32 = 0x48;
}

/// Offset of a width within an atomic family, and its size in bytes.
fn atomic_width(s: Scalar) -> (u32, u32) {
    match s {
        Scalar::I64 => (1, 8),
        Scalar::I8 => (2, 1),
        Scalar::I16 => (3, 2),
        _ => (0, 4),
    }
}

impl<'a> Fx<'a> {
    /// The pushes of an intrinsic call (see `Fx::plan`).
    pub(super) fn plan_intrinsic(&mut self, i: Intrinsic, args: &[ValueId]) {
        let push = |fx: &mut Self, k: usize| {
            if let Some(&a) = args.get(k) {
                fx.b.pushes.push(super::Push { value: a, fixup: Fixup::None });
            }
        };
        use Intrinsic::*;
        match i {
            Bswap(_) | Ctlz(_) | Cttz(_) | Ctpop(_) | Fabs(_) | Sqrt(_) | Stackrestore | AtomicLoad(_) => push(self, 0),
            Memcpy | Memmove | Memset => {
                push(self, 0);
                push(self, 1);
                push(self, 2);
            }
            AtomicStore(_) => {
                push(self, 1);
                push(self, 0);
            }
            AtomicRmw(_) => {
                push(self, 1);
                push(self, 2);
            }
            AtomicCmpxchg(_) => {
                push(self, 0);
                push(self, 1);
                push(self, 2);
            }
            Longjmp => {
                push(self, 0);
                push(self, 1);
            }
            ReadTp | Setjmp | AtomicFence | AtomicFenceAll | AtomicIsLockFree | Stacksave | Trap => {}
        }
    }

    fn atomic(&mut self, op: u32, m: MemArg) {
        self.b.code.push(0xFE);
        op.encode(&mut self.b.code);
        m.encode(&mut self.b.code);
    }

    /// Emits intrinsic call `k` after its pushes; answers whether its
    /// result is on the stack.
    // Out of line: rare, and inlined it crowds the registers of the
    // instruction loop it would land in (`emit_basic`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn lower_intrinsic(&mut self, k: usize, i: Intrinsic, args: &[ValueId], ret: Option<IrType>) -> bool {
        use Intrinsic::*;
        match i {
            Bswap(s) => self.bswap(s),
            Ctlz(s) => {
                if s == Scalar::I64 {
                    self.w().i64_clz();
                } else {
                    self.w().i32_clz();
                }
            }
            Cttz(s) => {
                if s == Scalar::I64 {
                    self.w().i64_ctz();
                } else {
                    self.w().i32_ctz();
                }
            }
            Ctpop(s) => {
                if s == Scalar::I64 {
                    self.w().i64_popcnt();
                } else {
                    self.w().i32_popcnt();
                }
            }
            Fabs(t) => {
                match t {
                    IrType::Scalar(Scalar::F32) => self.w().f32_abs(),
                    IrType::Scalar(Scalar::F64) => self.w().f64_abs(),
                    _ => self.w().f32x4_abs(),
                };
            }
            Sqrt(s) => {
                if s == Scalar::F64 {
                    self.w().f64_sqrt();
                } else {
                    self.w().f32_sqrt();
                }
            }
            // These and the memory ops below write their bytes directly, as
            // the prologue does: the sink's call and general LEB cost
            // ~60-160 instructions each (~1,500 memcpy/memset in X).
            ReadTp => {
                self.op_u32(0x23, global::THREAD_POINTER); // global.get
            }
            Stacksave => {
                self.op_u32(0x23, global::STACK_POINTER); // global.get
            }
            Stackrestore => {
                self.op_u32(0x24, global::STACK_POINTER); // global.set
                return false;
            }
            Trap => {
                self.w().unreachable();
                self.terminal = true;
                return false;
            }
            Memcpy | Memmove => {
                self.b.code.extend_from_slice(&[0xFC, 0x0A, 0, 0]); // memory.copy 0 0
                return false;
            }
            Memset => {
                self.b.code.extend_from_slice(&[0xFC, 0x0B, 0]); // memory.fill 0
                return false;
            }
            AtomicLoad(s) if self.cx.single_threaded => self.plain_load(s),
            AtomicLoad(s) => {
                let (w, n) = atomic_width(s);
                self.atomic(atomic_op::LOAD + w, memarg(0, n.trailing_zeros()));
            }
            AtomicStore(s) if self.cx.single_threaded => {
                self.plain_store(s);
                return false;
            }
            AtomicStore(s) => {
                let (w, n) = atomic_width(s);
                self.atomic(atomic_op::STORE + w, memarg(0, n.trailing_zeros()));
                return false;
            }
            AtomicRmw(s) => {
                let op = args.first().and_then(|&a| self.const_int(a)).and_then(RmwOp::from_value);
                let Some(op) = op else {
                    self.bug("atomic rmw with a non-constant operation");
                    return ret.is_some();
                };
                if self.cx.single_threaded {
                    self.plain_rmw(s, op);
                    return ret.is_some();
                }
                let base = match op {
                    RmwOp::Add => atomic_op::RMW_ADD,
                    RmwOp::Sub => atomic_op::RMW_SUB,
                    RmwOp::And => atomic_op::RMW_AND,
                    RmwOp::Or => atomic_op::RMW_OR,
                    RmwOp::Xor => atomic_op::RMW_XOR,
                    RmwOp::Exchange => atomic_op::RMW_XCHG,
                };
                let (w, n) = atomic_width(s);
                self.atomic(base + w, memarg(0, n.trailing_zeros()));
            }
            AtomicCmpxchg(s) if self.cx.single_threaded => self.plain_cmpxchg(s),
            AtomicCmpxchg(s) => {
                let (w, n) = atomic_width(s);
                self.atomic(atomic_op::RMW_CMPXCHG + w, memarg(0, n.trailing_zeros()));
            }
            AtomicFence | AtomicFenceAll if self.cx.single_threaded => return false,
            AtomicFence | AtomicFenceAll => {
                self.w().atomic_fence(Ordering::SeqCst);
                return false;
            }
            AtomicIsLockFree => {
                let size = args.first().and_then(|&a| self.const_int(a));
                let free = matches!(size, Some(1 | 2 | 4 | 8));
                self.w().i32_const(free as i32);
            }
            Setjmp => self.lower_setjmp(k, args),
            Longjmp => {
                self.w().throw(crate::back::wasm::LONGJMP_TAG);
                self.terminal = true;
                return false;
            }
        }
        ret.is_some()
    }

    /// A plain load of an atomic's width from the address on the stack
    /// (narrow ones zero-extended, as the atomic loads are).
    fn plain_load(&mut self, s: Scalar) {
        let (_, n) = atomic_width(s);
        let m = memarg(0, n.trailing_zeros());
        let mut w = self.w();
        match s {
            Scalar::I64 => w.i64_load(m),
            Scalar::I8 => w.i32_load8_u(m),
            Scalar::I16 => w.i32_load16_u(m),
            _ => w.i32_load(m),
        };
    }

    /// A plain store of an atomic's width: address and value on the stack.
    fn plain_store(&mut self, s: Scalar) {
        let (_, n) = atomic_width(s);
        let m = memarg(0, n.trailing_zeros());
        let mut w = self.w();
        match s {
            Scalar::I64 => w.i64_store(m),
            Scalar::I8 => w.i32_store8(m),
            Scalar::I16 => w.i32_store16(m),
            _ => w.i32_store(m),
        };
    }

    /// The wasm type an atomic of width `s` computes in.
    fn atomic_type(s: Scalar) -> W {
        wasm_type(IrType::Scalar(if s == Scalar::I64 { Scalar::I64 } else { Scalar::I32 }))
    }

    /// `old = *p; *p = old op v; old` with the address and `v` on the stack.
    fn plain_rmw(&mut self, s: Scalar, op: RmwOp) {
        let t = Self::atomic_type(s);
        let (p, v, old) = (self.scratch(W::I32, 0), self.scratch(t, 1), self.scratch(t, 2));
        self.local_set(v);
        self.local_tee(p);
        if op == RmwOp::Exchange {
            self.plain_load(s);
            self.local_set(old);
            self.local_get(p);
            self.local_get(v);
        } else {
            // The address stays below the old value for the store.
            self.local_get(p);
            self.plain_load(s);
            self.local_tee(old);
            self.local_get(v);
            let mut w = self.w();
            match (op, s == Scalar::I64) {
                (RmwOp::Add, false) => w.i32_add(),
                (RmwOp::Sub, false) => w.i32_sub(),
                (RmwOp::And, false) => w.i32_and(),
                (RmwOp::Or, false) => w.i32_or(),
                (RmwOp::Xor, false) => w.i32_xor(),
                (RmwOp::Add, true) => w.i64_add(),
                (RmwOp::Sub, true) => w.i64_sub(),
                (RmwOp::And, true) => w.i64_and(),
                (RmwOp::Or, true) => w.i64_or(),
                (RmwOp::Xor, true) => w.i64_xor(),
                (RmwOp::Exchange, _) => unreachable!("handled above"),
            };
        }
        self.plain_store(s);
        self.local_get(old);
    }

    /// `old = *p; *p = old == expected ? new : old; old` with the address,
    /// `expected` and `new` on the stack.
    fn plain_cmpxchg(&mut self, s: Scalar) {
        let t = Self::atomic_type(s);
        let p = self.scratch(W::I32, 0);
        let (new, old, expected) = (self.scratch(t, 1), self.scratch(t, 2), self.scratch(t, 3));
        self.local_set(new);
        self.local_set(expected);
        self.local_tee(p);
        self.plain_load(s);
        self.local_set(old);
        self.local_get(p);
        self.local_get(new);
        self.local_get(old);
        self.local_get(old);
        self.local_get(expected);
        // Narrow values are zero-extended like the loaded one.
        if s == Scalar::I64 {
            self.w().i64_eq();
        } else {
            self.w().i32_eq();
        }
        self.w().select();
        self.plain_store(s);
        self.local_get(old);
    }

    /// Byte swap of the value on the stack.
    fn bswap(&mut self, s: Scalar) {
        match s {
            Scalar::I16 => {
                let t = self.scratch(W::I32, 0);
                self.local_tee(t);
                self.w().i32_const(8).i32_shl();
                self.local_get(t);
                self.w().i32_const(8).i32_shr_u().i32_or().i32_const(0xffff).i32_and();
            }
            Scalar::I64 => {
                let t = self.scratch(W::I64, 0);
                const B: i64 = 0x00ff_00ff_00ff_00ff;
                const H: i64 = 0x0000_ffff_0000_ffff;
                self.local_tee(t);
                self.w().i64_const(8).i64_shr_u().i64_const(B).i64_and();
                self.local_get(t);
                self.w().i64_const(B).i64_and().i64_const(8).i64_shl().i64_or();
                self.local_tee(t);
                self.w().i64_const(16).i64_shr_u().i64_const(H).i64_and();
                self.local_get(t);
                self.w().i64_const(H).i64_and().i64_const(16).i64_shl().i64_or().i64_const(32).i64_rotl();
            }
            _ => {
                let t = self.scratch(W::I32, 0);
                self.local_tee(t);
                self.w().i32_const(8).i32_rotr().i32_const(0xff00_ff00u32 as i32).i32_and();
                self.local_get(t);
                self.w().i32_const(8).i32_rotl().i32_const(0x00ff_00ff).i32_and().i32_or();
            }
        }
    }

    /// The normal path of a setjmp call: a fresh id into the jmp_buf and
    /// this call site's local, the stack pointer beside it, result 0.
    fn lower_setjmp(&mut self, k: usize, args: &[ValueId]) {
        let Some(site) = self.b.setjmp_sites.iter().find(|s| s.inst == k as u32).copied() else {
            self.bug("setjmp call site not registered");
            return;
        };
        let Some(&buf) = args.first() else {
            self.bug("setjmp without a jmp_buf");
            return;
        };
        if site.id_local == NONE {
            self.bug("setjmp id local not allocated");
            return;
        }
        let id = site.id_local;
        self.w().global_get(global::SETJMP_ID).i32_const(2).i32_add();
        self.local_tee(id);
        self.w().global_set(global::SETJMP_ID);
        self.get(buf);
        self.local_get(id);
        self.w().i32_store(memarg(0, 2));
        self.get(buf);
        self.w().global_get(global::STACK_POINTER).i32_store(memarg(4, 2)).i32_const(0);
    }
}
