//! Calls of the LLVM/NaCl intrinsics a pexe may use, as inline wasm.
//!
//! Memory intrinsics use bulk memory (`memory.copy`/`memory.fill`); the
//! NaCl atomics use the threads proposal's atomic instructions, which are
//! all sequentially consistent (the strongest order PNaCl can ask for), on
//! naturally aligned addresses; bit tricks use wasm's own `clz`/`ctz`/
//! `popcnt`/rotates. setjmp and longjmp are in `setjmp.rs`.

use super::{memarg, Fixup, Fx, NONE};
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
            ReadTp => {
                self.w().global_get(global::THREAD_POINTER);
            }
            Stacksave => {
                self.w().global_get(global::STACK_POINTER);
            }
            Stackrestore => {
                self.w().global_set(global::STACK_POINTER);
                return false;
            }
            Trap => {
                self.w().unreachable();
                self.terminal = true;
                return false;
            }
            Memcpy | Memmove => {
                self.w().memory_copy(0, 0);
                return false;
            }
            Memset => {
                self.w().memory_fill(0);
                return false;
            }
            AtomicLoad(s) => {
                let (w, n) = atomic_width(s);
                self.atomic(atomic_op::LOAD + w, memarg(0, n.trailing_zeros()));
            }
            AtomicStore(s) => {
                let (w, n) = atomic_width(s);
                self.atomic(atomic_op::STORE + w, memarg(0, n.trailing_zeros()));
                return false;
            }
            AtomicRmw(s) => {
                let base = match args.first().and_then(|&a| self.const_int(a)).and_then(RmwOp::from_value) {
                    Some(RmwOp::Add) => atomic_op::RMW_ADD,
                    Some(RmwOp::Sub) => atomic_op::RMW_SUB,
                    Some(RmwOp::And) => atomic_op::RMW_AND,
                    Some(RmwOp::Or) => atomic_op::RMW_OR,
                    Some(RmwOp::Xor) => atomic_op::RMW_XOR,
                    Some(RmwOp::Exchange) => atomic_op::RMW_XCHG,
                    None => {
                        self.bug("atomic rmw with a non-constant operation");
                        return ret.is_some();
                    }
                };
                let (w, n) = atomic_width(s);
                self.atomic(base + w, memarg(0, n.trailing_zeros()));
            }
            AtomicCmpxchg(s) => {
                let (w, n) = atomic_width(s);
                self.atomic(atomic_op::RMW_CMPXCHG + w, memarg(0, n.trailing_zeros()));
            }
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

    /// Byte swap of the value on the stack.
    fn bswap(&mut self, s: Scalar) {
        match s {
            Scalar::I16 => {
                let t = self.scratch(W::I32, 0);
                self.w()
                    .local_tee(t)
                    .i32_const(8)
                    .i32_shl()
                    .local_get(t)
                    .i32_const(8)
                    .i32_shr_u()
                    .i32_or()
                    .i32_const(0xffff)
                    .i32_and();
            }
            Scalar::I64 => {
                let t = self.scratch(W::I64, 0);
                const B: i64 = 0x00ff_00ff_00ff_00ff;
                const H: i64 = 0x0000_ffff_0000_ffff;
                self.w()
                    .local_tee(t)
                    .i64_const(8)
                    .i64_shr_u()
                    .i64_const(B)
                    .i64_and()
                    .local_get(t)
                    .i64_const(B)
                    .i64_and()
                    .i64_const(8)
                    .i64_shl()
                    .i64_or()
                    .local_tee(t)
                    .i64_const(16)
                    .i64_shr_u()
                    .i64_const(H)
                    .i64_and()
                    .local_get(t)
                    .i64_const(H)
                    .i64_and()
                    .i64_const(16)
                    .i64_shl()
                    .i64_or()
                    .i64_const(32)
                    .i64_rotl();
            }
            _ => {
                let t = self.scratch(W::I32, 0);
                self.w()
                    .local_tee(t)
                    .i32_const(8)
                    .i32_rotr()
                    .i32_const(0xff00_ff00u32 as i32)
                    .i32_and()
                    .local_get(t)
                    .i32_const(8)
                    .i32_rotl()
                    .i32_const(0x00ff_00ff)
                    .i32_and()
                    .i32_or();
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
        self.w().global_get(global::SETJMP_ID).i32_const(2).i32_add().local_tee(id).global_set(global::SETJMP_ID);
        self.get(buf);
        self.w().local_get(id).i32_store(memarg(0, 2));
        self.get(buf);
        self.w().global_get(global::STACK_POINTER).i32_store(memarg(4, 2)).i32_const(0);
    }
}
