//! The frame, the whole function's code and its code-section entry.
#[allow(unused_imports)]
use super::*;

impl<'a> Fx<'a> {
    /// Function prologue: the static frame. Its bytes are written directly
    /// (as `emit_basic` writes its own), not through the encoder's sink: a
    /// call per instruction, and ~90 instructions per constant for its
    /// general LEB.
    pub(super) fn emit_prologue(&mut self) {
        if self.frame_local != NONE {
            let (fl, saved) = (self.frame_local, self.saved_sp_local);
            let size = self.frame_size;
            self.op_u32(0x23, global::STACK_POINTER); // global.get
            self.local_tee(saved);
            self.i32_const(size as i32);
            self.b.code.push(0x6B); // i32.sub
            if self.frame_align > 1 {
                let mask = -(self.frame_align as i32);
                self.i32_const(mask);
                self.b.code.push(0x71); // i32.and
            }
            self.local_tee(fl);
            self.op_u32(0x23, global::STACK_LIMIT); // global.get
            self.b.code.push(0x49); // i32.lt_u
            if u64::from(size) + u64::from(self.frame_align) >= 0x1_0000 {
                // A large frame could wrap below address 0.
                self.local_get(fl);
                self.local_get(saved);
                self.b.code.extend_from_slice(&[0x4B, 0x72]); // i32.gt_u, i32.or
            }
            self.b.code.extend_from_slice(&[0x04, 0x40]); // if, empty type
            self.i32_const(crate::back::wasm::imports::fault::STACK_OVERFLOW);
            self.i32_const(0);
            self.op_u32(0x10, FAULT_FUNC); // call
            self.b.code.push(0x0B); // end
            self.local_get(fl);
            self.op_u32(0x24, global::STACK_POINTER); // global.set
        } else if self.saved_sp_local != NONE {
            let saved = self.saved_sp_local;
            self.op_u32(0x23, global::STACK_POINTER); // global.get
            self.local_set(saved);
        }
    }

    /// `ret`: its value is already pushed. Written directly, as the
    /// prologue.
    pub(super) fn emit_return(&mut self) {
        if self.outline.is_some() {
            // Inside an outlined loop: F returns (`outline.rs`).
            self.outlined_return();
            return;
        }
        if self.saved_sp_local != NONE {
            let saved = self.saved_sp_local;
            self.local_get(saved);
            self.op_u32(0x24, global::STACK_POINTER); // global.set
        }
        self.b.code.push(0x0F); // return
        self.terminal = true;
    }

    /// The whole body: prologue, structured code, and the end.
    pub(super) fn emit_function(&mut self, tree: &crate::back::wasm::structure::Structured) {
        self.emit_prologue();
        self.b.labels.clear();
        self.b.label_pos.clear();
        self.b.label_pos.resize(tree.num_labels as usize, NONE);
        for _ in 0..tree.num_dispatch_vars {
            let l = self.new_local(W::I32);
            self.b.dispatch_locals.push(l);
        }
        if self.has_setjmp {
            self.emit_setjmp_body(tree);
        } else {
            self.emit_tree(tree, tree.body);
        }
        if self.ret.is_some() && !self.terminal {
            self.b.code.push(0x00); // unreachable
        }
        self.b.code.push(0x0B); // end
    }

    /// Writes `size, locals, body` to `out`.
    pub(super) fn write_entry(&mut self, out: &mut Vec<u8>, fixups: &mut BodyFixups) {
        let mut head = std::mem::take(&mut self.b.entry_head);
        let mut runs = std::mem::take(&mut self.b.entry_runs);
        runs.clear();
        let order = locals::LOCAL_TYPES;
        for (t, &n) in order.iter().zip(self.b.local_counts.iter()) {
            if n > 0 {
                runs.push((n, *t));
            }
        }
        for &t in &self.b.extra_locals {
            push_local_run(&mut runs, t);
        }
        let code_at = write_code_entry(&runs, &self.b.code, &mut head, out);
        self.b.entry_head = head;
        self.b.entry_runs = runs;
        for (at, key) in self.b.sig_fixups.drain(..) {
            fixups.sigs.push(SigFixup { at: (code_at + at) as u32, key });
        }
        for (at, len, callee, unguarded) in self.b.call_sites.drain(..) {
            fixups.calls.push(CallSite { at: (code_at + at) as u32, len, callee, unguarded });
        }
        self.write_outlined(code_at, &mut fixups.outlined);
    }
}
