//! Loop outlining: an outermost loop nest gets a copy in a function of its
//! own.
//!
//! Why: V8 runs wasm first as baseline code (Liftoff) and switches a
//! function to optimized code (TurboFan) only for calls made after it got
//! hot; a running call never switches (no on-stack replacement). A loop
//! nest in a function that runs once — `main`, with the work inlined into
//! it — stays baseline code for the whole run, two to five times slower.
//! So an outermost loop that contains another loop is also emitted as a
//! separate function G, which returns to F every `lim` iterations of the
//! loop; F calls it again with `lim` doubled (the limit lasts for F's
//! activation: a nest F enters again goes on from the limit it reached).
//! After a few calls G's calls run optimized code, and the doubling keeps
//! both the cost of the calls and the delay before the switch small.
//!
//! F keeps the loop too, and calls G only in its first
//! [`MAX_ACTIVATIONS`] activations that reach an outlined loop, and not in
//! one that started inside a call of G (recursion). A counter global per
//! function counts the activations (read into a local at the first such
//! loop of each activation); its top bit, [`BUSY`], is set while a G of F
//! runs, so a nested activation's count has it and exceeds the limit. A
//! function called many times is called often enough to be optimized
//! itself, and G's calls — and compiling G — would only cost it; recursive
//! ones ran long in G's unoptimized first calls (meteor, whose recursive
//! `solve` holds a loop nest, ran 1.35× slower when its first four
//! activations, each nested in the one before, called G). A function called
//! a few times (fasta's generator, twice) needs G in each: its own code is
//! not optimized by its second call (fasta ran 1.2× slower).
//!
//! Loop nests of more than [`MAX_INSTS`] instructions are not outlined
//! (their inner nests may be): the copies cost translation time and code
//! size, and hot kernels are small.
//!
//! G takes every local F has when the loop starts as a parameter, in F's
//! numbering, and gives them all back after an exit code: G computes on its
//! copies exactly what F would on its own, so nothing needs analysing. F's
//! locals made later (scratch locals of single instructions) are G's own
//! locals. The labels outside the loop that it branches to become blocks
//! around the loop in G, each landing setting the exit code; F calls G in a
//! loop and dispatches on the code with one `br_table`: `k < m` is outer
//! label `k`, then "fell off the end", "returned" (the value in a local),
//! "paused" (call again).
//!
//! Not outlined: loops inside an outlined loop or its copy in F (G is
//! called often enough that its loops become optimized code), functions
//! that call setjmp (their control flow wraps the whole body), and
//! functions with more locals than a call may carry. The caller's
//! `Options::outline_loops` turns it off where every function is optimized
//! from the start (`pexe run`: Node without Liftoff). Pepper plugins are not
//! outlined: callbacks call their functions again and again, so those get
//! optimized anyway, and KC85-3's emulator booted visibly slower outlined.
#[allow(unused_imports)]
use super::*;
use crate::back::wasm::structure::{Body, ExitHow, LabelId, Node, Structured};

/// Most locals of a function whose loops are outlined: V8 takes at most
/// 1000 parameters and 1000 results, and G returns one more than it takes.
const MAX_LOCALS: u32 = 900;

/// Loop headers G passes before it first returns to F (the first pass
/// is the loop's entry, so this runs one iteration).
const FIRST_LIMIT: i32 = 2;

/// Most instructions of an outlined loop nest.
const MAX_INSTS: u32 = 600;

/// Activations of F that may call G (see the module docs).
const MAX_ACTIVATIONS: i32 = 8;

/// The top bit of F's counter global: a G of F is running.
const BUSY: i32 = i32::MIN;

/// Places in F's code that name F's counter global: read and write to
/// count the activation, to set BUSY and to clear it.
pub(in crate::back::wasm) const COUNTER_REFS: usize = 6;

/// Exit codes after the outer labels' `0..m`.
const FELL_OFF: u32 = 0;
const RETURNED: u32 = 1;
const PAUSED: u32 = 2;

/// A function made of a loop, until the module gives it an index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutlinedBody {
    /// Offset in the parent's entry of the 5-byte index of the `call`.
    pub call_at: u32,
    /// Its signature key (parameter codes, 0, result codes).
    pub key: Box<[u8]>,
    /// Its code-section entry.
    pub entry: Vec<u8>,
    /// Its own fixups (offsets into `entry`).
    pub sigs: Vec<SigFixup>,
    pub calls: Vec<CallSite>,
    /// Offsets in the parent's entry of the 5-byte indices of the parent's
    /// activation counter global.
    pub counter_at: [u32; COUNTER_REFS],
}

/// An outlined loop being emitted: what F's emission resumes with.
pub(in crate::back::wasm) struct Outline {
    parent_code: Vec<u8>,
    parent_labels: Vec<u32>,
    parent_last_set: (usize, u32, usize),
    parent_wrapper_base: u32,
    /// Outer labels the loop branches to, with their positions in F's
    /// label stack.
    outer: Vec<(LabelId, u32)>,
    /// F's locals when the loop starts: G's parameters.
    nparams: u32,
    code_local: u32,
    lim_local: u32,
    /// The return value's local (`NONE` for a void function).
    ret_local: u32,
    calls_from: usize,
    sigs_from: usize,
}

/// A finished G, until F's entry is written (its locals are F's, whose
/// number is known only then).
pub(in crate::back::wasm) struct OutlinedCode {
    code: Vec<u8>,
    nparams: u32,
    /// Offset in F's code of the 5-byte index of the call, and of the
    /// activation counter global's.
    call_at: usize,
    counter_at: [usize; COUNTER_REFS],
    calls: Vec<(usize, u8, u32, bool)>,
    sigs: Vec<(usize, Box<[u8]>)>,
}

impl<'a> Fx<'a> {
    /// Whether loop `label` with `body` is outlined; if so, fills
    /// `b.outer_labels` with the labels outside it that it branches to.
    #[inline(always)]
    pub(super) fn should_outline(&mut self, tree: &Structured, label: LabelId, body: Body) -> bool {
        if !self.cx.outline_loops || self.outline.is_some() || self.in_loop_copy > 0 || self.has_setjmp {
            return false;
        }
        self.worth_outlining(tree, label, body)
    }

    /// [`Fx::should_outline`] past its quick tests. Out of line: inlined
    /// into `emit_tree`, its code crowded the walk's registers.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn worth_outlining(&mut self, tree: &Structured, label: LabelId, body: Body) -> bool {
        // The locals G takes, plus the four this adds.
        if self.num_params + self.num_value_locals + self.b.extra_locals.len() as u32 + 4 > MAX_LOCALS {
            return false;
        }
        let n = tree.num_labels as usize;
        let marks = &mut self.b.label_marks;
        marks.clear();
        marks.resize(n, 0);
        const DEFINED: u8 = 1;
        const TARGET: u8 = 2;
        if let Some(m) = marks.get_mut(label.0 as usize) {
            *m |= DEFINED;
        }
        let mut nested = false;
        let mut insts = 0u32;
        let stack = &mut self.b.scan;
        stack.clear();
        stack.push(body);
        while let Some(b) = stack.pop() {
            for node in tree.nodes_of(b) {
                if let Node::Basic { block, .. } = *node {
                    if let Some(v) = self.b.vblocks.get(block as usize) {
                        insts += v.end - v.start;
                    }
                    if insts > MAX_INSTS {
                        return false;
                    }
                }
                let exits = match *node {
                    Node::Block { label, body } | Node::Loop { label, body } => {
                        nested |= matches!(node, Node::Loop { .. });
                        if let Some(m) = marks.get_mut(label.0 as usize) {
                            *m |= DEFINED;
                        }
                        stack.push(body);
                        continue;
                    }
                    Node::Basic { exits, .. } | Node::Dispatch { exits, .. } => tree.exits_of(exits),
                };
                for e in exits {
                    match e.how {
                        ExitHow::Br(l) => {
                            if let Some(m) = marks.get_mut(l.0 as usize) {
                                *m |= TARGET;
                            }
                        }
                        ExitHow::Inline(body) => stack.push(body),
                    }
                }
            }
        }
        if !nested {
            return false;
        }
        self.b.outer_labels.clear();
        for (l, &m) in marks.iter().enumerate() {
            if m == TARGET {
                self.b.outer_labels.push(LabelId(l as u32));
            }
        }
        true
    }

    /// Starts G (its wrapper blocks, the loop, the pause check) in place of
    /// loop `label`; `should_outline` said yes and filled `b.outer_labels`.
    // Out of line: only where loops are outlined; inlined into `emit_tree`
    // it crowds the registers of its walk.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn begin_outline(&mut self, label: LabelId) {
        if self.act_local == NONE {
            self.act_local = self.new_local(W::I32);
        }
        let code_local = self.new_local(W::I32);
        let cnt_local = self.new_local(W::I32);
        let lim_local = self.new_local(W::I32);
        let ret_local = match self.ret {
            Some(t) => self.new_local(wasm_type(t)),
            None => NONE,
        };
        let nparams = self.num_params + self.num_value_locals + self.b.extra_locals.len() as u32;
        let outer: Vec<(LabelId, u32)> =
            self.b.outer_labels.iter().map(|&l| (l, self.b.label_pos.get(l.0 as usize).copied().unwrap_or(NONE))).collect();
        let parent_code = std::mem::take(&mut self.b.code);
        let parent_labels = std::mem::take(&mut self.b.labels);
        let state = Outline {
            parent_code,
            parent_labels,
            parent_last_set: self.last_set,
            parent_wrapper_base: self.wrapper_base,
            outer,
            nparams,
            code_local,
            lim_local,
            ret_local,
            calls_from: self.b.call_sites.len(),
            sigs_from: self.b.sig_fixups.len(),
        };
        self.last_set = (0, NONE, usize::MAX);
        // G: cnt = 0; block $out, then one block per outer label (the
        // first innermost), then the loop.
        self.i32_const(0);
        self.w().local_set(cnt_local);
        self.w().block(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        for k in (0..state.outer.len()).rev() {
            let l = state.outer[k].0;
            self.w().block(BlockType::Empty);
            if let Some(p) = self.b.label_pos.get_mut(l.0 as usize) {
                *p = self.b.labels.len() as u32;
            }
            self.b.labels.push(l.0);
        }
        self.outline = Some(state);
        self.open(label.0, true);
        // The pause check: after `lim` iterations, back to F.
        self.w().local_get(cnt_local).i32_const(1).i32_add().local_tee(cnt_local).local_get(lim_local).i32_eq();
        self.w().if_(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        self.exit_with(PAUSED_CODE_PLACEHOLDER);
        self.w().end();
        self.b.labels.pop();
        self.terminal = false;
    }

    /// The exit code of `which` (FELL_OFF, RETURNED, PAUSED).
    fn code_of(&self, which: u32) -> u32 {
        self.outline.as_ref().map_or(0, |o| o.outer.len() as u32) + which
    }

    /// In G: leave with exit code `code` (`PAUSED_CODE_PLACEHOLDER`: paused).
    fn exit_with(&mut self, code: u32) {
        let code = if code == PAUSED_CODE_PLACEHOLDER { self.code_of(PAUSED) } else { code };
        let Some(code_local) = self.outline.as_ref().map(|o| o.code_local) else { return };
        self.i32_const(code as i32);
        self.w().local_set(code_local);
        // $out is at the bottom of G's label stack.
        let d = self.b.labels.len() as u32 - 1;
        self.w().br(d);
        self.terminal = true;
    }

    /// In G, `ret` with its value pushed: keep the value, leave.
    pub(super) fn outlined_return(&mut self) {
        let Some(ret_local) = self.outline.as_ref().map(|o| o.ret_local) else { return };
        if ret_local != NONE {
            self.w().local_set(ret_local);
        }
        let code = self.code_of(RETURNED);
        self.exit_with(code);
    }

    /// After the loop's `end` in G: the landings, the results; then back to
    /// F, which calls G and dispatches on its exit code.
    // Out of line: only where loops are outlined; inlined into `emit_tree`
    // it crowds the registers of its walk.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    pub(super) fn end_outline(&mut self) {
        let fell = self.code_of(FELL_OFF);
        if !self.terminal {
            self.exit_with(fell);
        }
        let Some(state) = self.outline.take() else { return };
        let m = state.outer.len();
        for k in 0..m {
            // `end` of outer label k's block: its landing.
            self.w().end();
            self.b.labels.pop();
            self.i32_const(k as i32);
            self.w().local_set(state.code_local);
            if k + 1 < m {
                let d = self.b.labels.len() as u32 - 1;
                self.w().br(d);
            }
        }
        self.w().end(); // $out
        self.b.labels.pop();
        self.w().local_get(state.code_local);
        for l in 0..state.nparams {
            self.op_u32(0x20, l);
        }
        self.w().end();

        // Back to F.
        let g_code = std::mem::replace(&mut self.b.code, state.parent_code);
        self.b.labels = state.parent_labels;
        for &(l, pos) in &state.outer {
            if let Some(p) = self.b.label_pos.get_mut(l.0 as usize) {
                *p = pos;
            }
        }
        self.last_set = state.parent_last_set;
        self.wrapper_base = state.parent_wrapper_base;
        let calls = self.b.call_sites.split_off(state.calls_from);
        let sigs = self.b.sig_fixups.split_off(state.sigs_from);

        // if (act == 0) act = ++counter;   (with BUSY when nested in a G)
        // if (act <=u MAX_ACTIVATIONS) { if (lim == 0) lim = FIRST_LIMIT;
        //   block $fell { block $ret { loop $again { block $pause {
        //     counter |= BUSY; call G; counter &= ~BUSY; br_table }
        //     lim <<= 1; br $again } } ret } }
        // } else { the loop }
        let act = self.act_local;
        self.w().local_get(act).i32_eqz().if_(BlockType::Empty);
        let mut counter_at = [0usize; COUNTER_REFS];
        counter_at[0] = self.global_placeholder(0x23);
        self.w().i32_const(1).i32_add().local_tee(act);
        counter_at[1] = self.global_placeholder(0x24);
        self.w().end();
        self.w().local_get(act);
        self.i32_const(MAX_ACTIVATIONS);
        self.w().i32_le_u().if_(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        // lim starts at 0 with the activation: set once, so a loop entered
        // again in the same activation (an inner nest outlined inside a
        // loop that is not) keeps the limit it reached.
        self.w().local_get(state.lim_local).i32_eqz().if_(BlockType::Empty);
        self.i32_const(FIRST_LIMIT);
        self.w().local_set(state.lim_local);
        self.w().end();
        let has_ret = self.ret.is_some();
        self.w().block(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        let fell_pos = self.b.labels.len() as u32 - 1;
        self.w().block(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        let ret_pos = self.b.labels.len() as u32 - 1;
        self.w().loop_(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        self.w().block(BlockType::Empty);
        self.b.labels.push(ANON_LABEL);
        for l in 0..state.nparams {
            self.op_u32(0x20, l);
        }
        counter_at[2] = self.global_placeholder(0x23);
        self.i32_const(BUSY);
        self.w().i32_or();
        counter_at[3] = self.global_placeholder(0x24);
        // call, a 5-byte function index to patch.
        self.b.code.push(0x10);
        let call_at = self.b.code.len();
        self.b.code.extend_from_slice(&PLACEHOLDER);
        for l in (0..state.nparams).rev() {
            self.op_u32(0x21, l);
        }
        counter_at[4] = self.global_placeholder(0x23);
        self.i32_const(!BUSY);
        self.w().i32_and();
        counter_at[5] = self.global_placeholder(0x24);
        let mut table = std::mem::take(&mut self.b.table);
        table.clear();
        let here = self.b.labels.len() as u32 - 1;
        for &(l, _) in &state.outer {
            let d = self.depth(l);
            table.push(d);
        }
        table.push(here - fell_pos); // fell off
        table.push(here - ret_pos); // returned
        table.push(0); // paused
        self.w().br_table(table.iter().copied(), here - fell_pos);
        self.b.table = table;
        self.w().end(); // $pause
        self.b.labels.pop();
        self.w().local_get(state.lim_local).i32_const(1).i32_shl().local_set(state.lim_local).br(0);
        self.w().end(); // $again
        self.b.labels.pop();
        self.w().end(); // $ret
        self.b.labels.pop();
        if has_ret {
            self.w().local_get(state.ret_local);
        }
        self.emit_return();
        self.w().end(); // $fell
        self.b.labels.pop();
        // The `else`: F's own copy (`Work::LoopCopy`), then the `if`'s end.
        self.w().else_();
        self.terminal = false;

        self.b.outlined.push(OutlinedCode { code: g_code, nparams: state.nparams, call_at, counter_at, calls, sigs });
    }

    /// `op` (global.get / global.set) with a 5-byte global index to patch;
    /// returns the index's offset.
    fn global_placeholder(&mut self, op: u8) -> usize {
        self.b.code.push(op);
        let at = self.b.code.len();
        self.b.code.extend_from_slice(&PLACEHOLDER);
        at
    }

    /// The wasm types of F's locals, in index order.
    fn local_types(&self, out: &mut Vec<W>) {
        out.clear();
        let f = self.f;
        out.extend(f.params.iter().map(|&t| wasm_type(t)));
        for (t, &n) in locals::LOCAL_TYPES.iter().zip(self.b.local_counts.iter()) {
            out.extend(std::iter::repeat_n(*t, n as usize));
        }
        out.extend(self.b.extra_locals.iter().copied());
    }

    /// The finished G's, as [`OutlinedBody`]s of the entry whose code starts
    /// `code_at` bytes into it.
    pub(super) fn write_outlined(&mut self, code_at: usize, out: &mut Vec<OutlinedBody>) {
        if self.b.outlined.is_empty() {
            return;
        }
        let mut local_types = Vec::new();
        self.local_types(&mut local_types);
        for g in self.b.outlined.drain(..) {
            let np = (g.nparams as usize).min(local_types.len());
            let mut key: Vec<u8> = local_types[..np].iter().map(|&t| types::code(t)).collect();
            key.push(0);
            key.push(types::code(W::I32));
            key.extend(local_types[..np].iter().map(|&t| types::code(t)));
            let mut runs: Vec<(u32, W)> = Vec::new();
            for &t in &local_types[np..] {
                push_local_run(&mut runs, t);
            }
            let mut entry = Vec::new();
            let at = write_code_entry(&runs, &g.code, &mut Vec::new(), &mut entry);
            out.push(OutlinedBody {
                call_at: (code_at + g.call_at) as u32,
                counter_at: g.counter_at.map(|o| (code_at + o) as u32),
                key: key.into_boxed_slice(),
                entry,
                sigs: g.sigs.into_iter().map(|(o, key)| SigFixup { at: (at + o) as u32, key }).collect(),
                calls: g
                    .calls
                    .into_iter()
                    .map(|(o, len, callee, unguarded)| CallSite { at: (at + o) as u32, len, callee, unguarded })
                    .collect(),
            });
        }
    }
}

/// A 5-byte LEB128 index, patched by the module.
const PLACEHOLDER: [u8; 5] = [0x80, 0x80, 0x80, 0x80, 0x00];

/// Stands for the paused exit code before the outer labels are counted.
const PAUSED_CODE_PLACEHOLDER: u32 = u32::MAX;

/// A label-stack entry that is no tree label.
const ANON_LABEL: u32 = u32::MAX;
