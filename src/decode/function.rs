//! Function-body decoding: constants, instructions, the function's symbol table.

use super::{DecodeError, Decoded};
use crate::bitstream::{Parser, RecordSink, CONSTANTS_BLOCK_ID, FUNCTION_BLOCK_ID, VALUE_SYMTAB_BLOCK_ID};
use crate::bitstream::abbrev::{
    KNOWN_BINOP_CAST, KNOWN_CONSTANT, KNOWN_FORWARD_TYPE, KNOWN_LOAD, KNOWN_ONE_VALUE, KNOWN_RECORDS, KNOWN_STORE,
    KNOWN_ZERO, RECORD_BINOP, RECORD_CAST, RECORD_FORWARD_TYPE, RECORD_INTEGER, RECORD_LOAD, RECORD_RET,
    RECORD_SETTYPE, RECORD_STORE, RECORD_ZERO,
};
use crate::ir::{
    BinOp, Block, BlockId, CastOp, CmpPred, ConstValue, Constant, ForwardType, FuncId, Function, Inst, InstId,
    InstKind, Module, Scalar, Span, SwitchCase, Type, ValType, ValueId,
};
use crate::limits::{MAX_RESERVED_INSTS, MAX_SWITCH_CASES};
use crate::BitPos;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

/// Value ids are small dense integers: a multiplicative hash is enough and
/// much cheaper than the default SipHash on the per-instruction path.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type IdMap<V> = HashMap<u32, V, BuildHasherDefault<IdHasher>>;

type Res<T> = Result<T, DecodeError>;

/// How many queued forward declarations one declared out of order may
/// move to take its place in `FunctionState::due` (past that it goes to
/// the map, so a body of many declarations in reverse order stays linear).
const MAX_DUE_SHIFT: usize = 32;

/// Function block record codes.
mod code {
    pub const DECLAREBLOCKS: u32 = 1;
    pub const BINOP: u32 = 2;
    pub const CAST: u32 = 3;
    pub const EXTRACTELT: u32 = 6;
    pub const INSERTELT: u32 = 7;
    pub const RET: u32 = 10;
    pub const BR: u32 = 11;
    pub const SWITCH: u32 = 12;
    pub const UNREACHABLE: u32 = 15;
    pub const PHI: u32 = 16;
    pub const ALLOCA: u32 = 19;
    pub const LOAD: u32 = 20;
    pub const STORE: u32 = 24;
    pub const CMP2: u32 = 28;
    pub const VSELECT: u32 = 29;
    pub const CALL: u32 = 34;
    pub const FORWARDTYPEREF: u32 = 43;
    pub const CALL_INDIRECT: u32 = 44;
}

/// Constants block record codes.
mod cst {
    pub const SETTYPE: u32 = 1;
    pub const UNDEF: u32 = 3;
    pub const INTEGER: u32 = 4;
    pub const FLOAT: u32 = 6;
}

// The toolchain's records that `known` and `known_const` take, as
// abbrev.rs lists them: their field lists and these blocks' codes.
const _: () = {
    const fn is(r: u8, known: u8, code: u32) -> bool {
        KNOWN_RECORDS[r as usize].0 == known && KNOWN_RECORDS[r as usize].1 == code
    }
    assert!(is(RECORD_LOAD, KNOWN_LOAD, code::LOAD));
    assert!(is(RECORD_BINOP, KNOWN_BINOP_CAST, code::BINOP));
    assert!(is(RECORD_CAST, KNOWN_BINOP_CAST, code::CAST));
    assert!(is(RECORD_STORE, KNOWN_STORE, code::STORE));
    assert!(is(RECORD_FORWARD_TYPE, KNOWN_FORWARD_TYPE, code::FORWARDTYPEREF));
    assert!(is(RECORD_RET, KNOWN_ONE_VALUE, code::RET));
    assert!(is(RECORD_SETTYPE, KNOWN_ONE_VALUE, cst::SETTYPE));
    assert!(is(RECORD_INTEGER, KNOWN_CONSTANT, cst::INTEGER));
    assert!(is(RECORD_ZERO, KNOWN_ZERO, cst::INTEGER));
};

/// `values` as bytes; a value above 255 is an error naming it as `what`.
pub(crate) fn bytes_of(values: &[u64], pos: BitPos, what: &str) -> Res<Vec<u8>> {
    let mut out = Vec::with_capacity(values.len());
    extend_bytes(&mut out, values, pos, what)?;
    Ok(out)
}

/// [`bytes_of`] appended to `out` (the globals' DATA initializers share
/// one buffer).
pub(crate) fn extend_bytes(out: &mut Vec<u8>, values: &[u64], pos: BitPos, what: &str) -> Res<()> {
    // Checked in one pass first (an OR of all values, which vectorizes) so
    // the conversion loop has no exits.
    if values.iter().fold(0, |acc, &v| acc | v) > u8::MAX as u64 {
        return Err(not_a_byte(values, pos, what));
    }
    out.extend(values.iter().map(|&v| v as u8));
    Ok(())
}

#[cold]
#[inline(never)]
fn not_a_byte(values: &[u64], pos: BitPos, what: &str) -> DecodeError {
    let v = values.iter().copied().find(|&v| v > u8::MAX as u64).unwrap_or_default();
    DecodeError::new(pos, format!("{what} {v} is not a byte"))
}

/// The span of `start..end` of one of a body's operand lists; an error past
/// what a span can index (only a file of gigabytes has that many).
#[inline]
fn span(start: usize, end: usize, pos: BitPos) -> Res<Span> {
    match (u32::try_from(start), u32::try_from(end - start)) {
        (Ok(start), Ok(len)) if start.checked_add(len).is_some() => Ok(Span { start, len }),
        _ => Err(too_many_operands(pos)),
    }
}

#[cold]
fn too_many_operands(pos: BitPos) -> DecodeError {
    DecodeError::new(pos, "more call arguments, phi entries or switch cases in one function than this decoder can hold")
}

#[cold]
#[inline(never)]
fn grow<T>(v: &mut Vec<T>) {
    v.reserve(1);
}

/// Bits per instruction a body is taken to spend when room is made for its
/// instructions as it begins (the corpus's bodies average about 39; a body
/// denser than this grows as it goes).
const BITS_PER_INST_HINT: u64 = 32;

/// `FunctionState::const_int_shift` when no integer type is set.
const NO_INT_SHIFT: u32 = 64;

/// Room for `n` items in `v`, which is empty: a new buffer when the old
/// one is too small, not a `reserve` (a realloc copies the whole old
/// buffer, empty or not).
#[inline]
fn make_room<T>(v: &mut Vec<T>, n: usize) {
    debug_assert!(v.is_empty());
    if v.capacity() < n {
        renew(v, n);
    }
}

#[cold]
#[inline(never)]
fn renew<T>(v: &mut Vec<T>, n: usize) {
    *v = Vec::with_capacity(n);
}

#[cold]
fn undefined_operand(abs: u32, pos: BitPos) -> DecodeError {
    DecodeError::new(
        pos,
        format!("operand refers to value id {abs}, which is not defined yet and has no forward type declaration"),
    )
}

#[cold]
#[inline(never)]
fn bad_align(v: u64, pos: BitPos) -> DecodeError {
    DecodeError::new(pos, format!("alignment exponent {v} is out of range"))
}

#[cold]
#[inline(never)]
fn bad_block_index(v: u64, pos: BitPos) -> DecodeError {
    DecodeError::new(pos, format!("block index {v} is out of range"))
}

#[cold]
#[inline(never)]
fn bad_phi_operand(v: u64, pos: BitPos) -> DecodeError {
    DecodeError::new(pos, format!("phi operand {v} is out of range"))
}

/// The error for a record whose values do not fit its code. Out of line,
/// taking the values as an argument: a closure capturing them made every
/// record keep its slice in memory for the error's sake.
#[cold]
#[inline(never)]
fn malformed(pos: BitPos, what: &str, ops: &[u64]) -> DecodeError {
    DecodeError::new(pos, format!("malformed {what} record: {ops:?}"))
}

/// The error for an opcode or predicate no instruction has (out of line,
/// as `malformed`).
#[cold]
#[inline(never)]
fn unknown(pos: BitPos, what: &str, v: u64) -> DecodeError {
    DecodeError::new(pos, format!("unknown {what} {v}"))
}

/// Decodes PNaCl's sign rotation: the low bit is the sign.
pub(crate) fn sign_rotated(v: u64) -> i64 {
    if v & 1 == 0 {
        (v >> 1) as i64
    } else if v == 1 {
        i64::MIN
    } else {
        -((v >> 1) as i64)
    }
}

/// Sign-extends the low `bits` bits of `v` (wrap-around like LLVM's APInt).
fn sext(v: i64, bits: u32) -> i64 {
    if bits >= 64 {
        v
    } else {
        (v << (64 - bits)) >> (64 - bits)
    }
}

/// A body being decoded, and after its block closed the finished body,
/// until the next one begins in the same state: it stays in place for the
/// whole run, its buffers reused (no struct moved per body).
pub(crate) struct FunctionState {
    /// Held here, not behind a box: every instruction pushes to its
    /// vectors, one load nearer.
    pub func: Function,
    /// `func.first_local`, read for every operand: kept here, not behind
    /// the box.
    first_local: u32,
    /// Types of parameters, constants and instruction results, by
    /// `value id - first_local`.
    local_types: Vec<ValType>,
    /// Types declared by FORWARDTYPEREF for values not defined yet, by
    /// value: a queue, from `due_from` on, in increasing order, that
    /// defining a value takes from the front. Declarations come nearly in
    /// that order and few are due at once, so one costs a push or a short
    /// move, not a hash and a heap's sifts.
    due: Vec<(u32, ValType)>,
    due_from: usize,
    /// The others (declared below more than `MAX_DUE_SHIFT` values still
    /// due in `due`, so that no declaration moves many), by value.
    forward: IdMap<ValType>,
    /// The keys put into `forward`, smallest first, so defining a value
    /// looks in `forward` only when one may be due (values are defined in
    /// increasing order: keys below the value being defined never will be).
    forward_due: BinaryHeap<Reverse<u32>>,
    /// The smallest key of `due` and `forward_due` (`u32::MAX` if none):
    /// what each defined value is compared with, one load.
    next_due: u32,
    /// Blocks declared by DECLAREBLOCKS (`None` before it).
    declared: Option<u32>,
    /// The declared blocks not closed yet (0 before DECLAREBLOCKS): `push`
    /// needs only the one test of it, no load of `cur_block` to compare
    /// (`declared` tells the errors apart).
    blocks_left: u32,
    /// Block receiving instructions.
    cur_block: u32,
    /// Type set by the last constants SETTYPE record, if `const_type_set`.
    /// A type and a flag rather than an `Option`: read for every constant,
    /// the option was put together byte by byte each time.
    const_type: ValType,
    const_type_set: bool,
    /// What sign-extends an INTEGER constant of `const_type`: 64 less its
    /// bits, set once per SETTYPE rather than worked out per constant;
    /// `NO_INT_SHIFT` when no integer type is set (no type yet, or not an
    /// integer one), so each constant needs one test.
    const_int_shift: u32,
    /// Where the function block ends, to bound the declared block count.
    end: BitPos,
}

/// What the module gives a body: types and function signatures.
pub(crate) struct Env<'m> {
    pub module: &'m Module,
}

impl<'m> Env<'m> {
    #[inline(always)]
    fn value_type_id(&self, ty: u64, pos: BitPos) -> Res<ValType> {
        match self.module.types.get(ty as usize) {
            Some(Type::Value(v)) => Ok(*v),
            _ => Err(self.not_a_value_type(ty, pos)),
        }
    }

    #[cold]
    #[inline(never)]
    fn not_a_value_type(&self, ty: u64, pos: BitPos) -> DecodeError {
        match self.module.types.get(ty as usize) {
            Some(t) => DecodeError::new(pos, format!("type @t{ty} ({t}) is not a value type")),
            None => DecodeError::new(pos, format!("type @t{ty} is not defined")),
        }
    }

    /// A value type, or `None` for void.
    #[inline]
    fn ret_type_id(&self, ty: u64, pos: BitPos) -> Res<Option<ValType>> {
        match self.module.types.get(ty as usize) {
            Some(Type::Void) => Ok(None),
            _ => self.value_type_id(ty, pos).map(Some),
        }
    }
}

/// What one record of a body defined: the body's variants of [`Decoded`],
/// none of which owns anything, so a loop that ignores them (the record
/// runs) drops nothing per record.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BodyItem {
    DeclareBlocks(u32),
    ForwardType(usize),
    Inst(InstId),
    ConstType(ValType),
    Const(u32),
    ValueName(usize),
    BlockName(usize),
}

impl From<BodyItem> for Decoded {
    #[inline(always)]
    fn from(item: BodyItem) -> Decoded {
        match item {
            BodyItem::DeclareBlocks(n) => Decoded::DeclareBlocks(n),
            BodyItem::ForwardType(i) => Decoded::ForwardType(i),
            BodyItem::Inst(i) => Decoded::Inst(i),
            BodyItem::ConstType(t) => Decoded::ConstType(t),
            BodyItem::Const(i) => Decoded::Const(i),
            BodyItem::ValueName(i) => Decoded::ValueName(i),
            BodyItem::BlockName(i) => Decoded::BlockName(i),
        }
    }
}

/// A body's records of one block, as [`Parser::fast_records`] hands them
/// over: the function block's own, or with `CONSTS` its constants block's
/// (each step inlined into the loop of its own copy).
///
/// [`Parser::fast_records`]: crate::bitstream::Parser
struct BodyRecords<'a, 'm, const CONSTS: bool> {
    body: &'a mut FunctionState,
    env: Env<'m>,
}

impl<const CONSTS: bool> RecordSink for BodyRecords<'_, '_, CONSTS> {
    type Error = DecodeError;
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<()> {
        let item = if CONSTS {
            self.body.constant(&self.env, pos, code, ops)
        } else {
            self.body.record(&self.env, pos, code, ops)
        };
        item.map(drop)
    }
    /// The records of the toolchain's abbreviations go straight from the
    /// bits to their instruction or constant.
    const PLAIN: bool = true;
    const TAKES: u16 = if CONSTS {
        1 << RECORD_SETTYPE | 1 << RECORD_INTEGER | 1 << RECORD_ZERO
    } else {
        1 << RECORD_LOAD | 1 << RECORD_BINOP | 1 << RECORD_CAST | 1 << RECORD_STORE | 1 << RECORD_FORWARD_TYPE | 1 << RECORD_RET
    };
    const VALUE_RUN: Option<u32> = if CONSTS { Some(cst::INTEGER) } else { None };
    /// PNaCl's writer gives constants blocks 3 bits, function blocks 4.
    const USUAL_WIDTH: u32 = if CONSTS { 3 } else { 4 };
    #[inline(always)]
    fn run_value(&mut self, pos: BitPos, value: u64) -> Res<()> {
        self.body.int_const(pos, value).map(drop)
    }
    #[inline(always)]
    fn known<const R: u8>(&mut self, pos: BitPos, fields: [u64; 3]) -> Option<Res<()>> {
        let item = if CONSTS {
            self.body.known_const::<R>(&self.env, pos, fields)
        } else {
            self.body.known::<R>(&self.env, pos, fields)
        };
        item.map(|item| item.map(drop))
    }
    #[inline(always)]
    fn plain<const N: usize>(&mut self, pos: BitPos, code: u32, values: [u64; 3]) -> Option<Res<()>> {
        if CONSTS {
            return None;
        }
        self.body.plain::<N>(pos, code, values).map(|item| item.map(drop))
    }
}

impl Default for FunctionState {
    /// No body yet: `begin` sets every field.
    fn default() -> Self {
        FunctionState {
            func: Function::default(),
            first_local: 0,
            local_types: Vec::new(),
            due: Vec::new(),
            due_from: 0,
            forward: IdMap::default(),
            forward_due: BinaryHeap::new(),
            next_due: u32::MAX,
            declared: None,
            blocks_left: 0,
            cur_block: 0,
            const_type: ValType::I32,
            const_type_set: false,
            const_int_shift: NO_INT_SHIFT,
            end: BitPos(0),
        }
    }
}

impl FunctionState {
    /// Begins the body of function `id`, its block at `pos` to `end`, in
    /// the buffers of the body before (emptied).
    pub fn begin(&mut self, module: &Module, id: FuncId, pos: BitPos, end: BitPos) {
        let params = &module.function(id).sig.params;
        let first_local = module.num_global_values();
        let Function {
            id: func_id,
            first_local: func_first_local,
            params: func_params,
            consts,
            insts,
            call_args,
            phi_entries,
            switch_cases,
            blocks,
            results,
            value_names,
            block_names,
            forward_types,
            pos: func_pos,
        } = &mut self.func;
        *func_id = id;
        *func_first_local = first_local;
        *func_pos = pos;
        func_params.clear();
        func_params.extend_from_slice(params);
        consts.clear();
        insts.clear();
        call_args.clear();
        phi_entries.clear();
        switch_cases.clear();
        blocks.clear();
        results.clear();
        value_names.clear();
        block_names.clear();
        forward_types.clear();
        self.local_types.clear();
        // Room for the instructions the body's bits suggest, made once, not
        // by doubling as they arrive (each step a copy).
        let room = (end.0.saturating_sub(pos.0) / BITS_PER_INST_HINT).min(MAX_RESERVED_INSTS) as usize;
        make_room(insts, room);
        make_room(results, room);
        make_room(&mut self.local_types, room);
        self.local_types.extend_from_slice(params);
        self.first_local = first_local;
        self.due.clear();
        self.due_from = 0;
        self.forward.clear();
        self.forward_due.clear();
        self.next_due = u32::MAX;
        self.declared = None;
        self.blocks_left = 0;
        self.cur_block = 0;
        self.const_type = ValType::I32;
        self.const_type_set = false;
        self.const_int_shift = NO_INT_SHIFT;
        self.end = end;
    }

    /// The types of the values of the last finished body (parameters,
    /// constants, then results, by value id): kept until the next body
    /// begins.
    pub fn types(&self) -> &[ValType] {
        &self.local_types
    }

    /// Next value id to be defined.
    #[inline]
    fn next_value(&self) -> u32 {
        self.first_local + self.local_types.len() as u32
    }

    pub fn current_block(&self) -> Option<BlockId> {
        self.declared.filter(|&n| self.cur_block < n).map(|_| BlockId(self.cur_block))
    }

    /// Type of `v` as known now.
    #[inline]
    pub fn value_type(&self, v: u32) -> Option<ValType> {
        if v < self.first_local {
            return Some(ValType::I32);
        }
        match self.local_types.get((v - self.first_local) as usize) {
            Some(&t) => Some(t),
            None => self.forward_declared(v),
        }
    }

    /// The type a FORWARDTYPEREF declared for `v`, a value not defined yet.
    fn forward_declared(&self, v: u32) -> Option<ValType> {
        let due = &self.due[self.due_from..];
        if let Ok(i) = due.binary_search_by_key(&v, |&(k, _)| k) {
            return Some(due[i].1);
        }
        if self.forward.is_empty() {
            return None;
        }
        self.forward.get(&v).copied()
    }

    /// Resolves a relative operand to an absolute id and its type.
    #[inline(always)]
    fn operand(&self, rel: u64, pos: BitPos) -> Res<(ValueId, ValType)> {
        // The common case: a function-local value defined already.
        // `defined - rel` wraps past every index unless 1 <= rel <= defined,
        // so one bounds check tells both.
        let index = (self.local_types.len() as u64).wrapping_sub(rel);
        if let Some(&t) = usize::try_from(index).ok().and_then(|i| self.local_types.get(i)) {
            return Ok((ValueId(self.first_local + index as u32), t));
        }
        // The next most common: a global value (a function or a global
        // variable's address, all i32), when `index` wrapped by no more
        // than the number of globals.
        let global = index.wrapping_add(self.first_local as u64);
        if global < self.first_local as u64 {
            return Ok((ValueId(global as u32), ValType::I32));
        }
        self.operand_slow(rel, pos)
    }

    #[inline(never)]
    fn operand_slow(&self, rel: u64, pos: BitPos) -> Res<(ValueId, ValType)> {
        let next = self.next_value();
        if rel > u32::MAX as u64 {
            return Err(DecodeError::new(pos, format!("relative value index {rel} is out of range")));
        }
        let abs = next.wrapping_sub(rel as u32);
        self.typed(abs, pos)
    }

    #[inline]
    fn typed(&self, abs: u32, pos: BitPos) -> Res<(ValueId, ValType)> {
        match self.value_type(abs) {
            Some(t) => Ok((ValueId(abs), t)),
            None => Err(undefined_operand(abs, pos)),
        }
    }

    #[inline(always)]
    fn block_id(&self, v: u64, pos: BitPos) -> Res<BlockId> {
        match u32::try_from(v) {
            Ok(b) => Ok(BlockId(b)),
            Err(_) => Err(bad_block_index(v, pos)),
        }
    }

    #[inline(always)]
    fn align(v: u64, pos: BitPos) -> Res<u32> {
        match v {
            0 => Ok(0),
            1..=30 => Ok(1 << (v - 1)),
            _ => Err(bad_align(v, pos)),
        }
    }

    /// Decodes the records of `block` (the function block or its constants
    /// block) that `parser` reads on its fast path from here on, in one loop
    /// with no `Event` each, up to the first item that needs
    /// `Parser::next_event`. Both decoders (the whole file's and
    /// `BodyDecoder`) take a body's records this way.
    #[inline(always)]
    pub(crate) fn record_run(&mut self, env: Env, block: u32, parser: &mut Parser) -> Res<()> {
        match block {
            FUNCTION_BLOCK_ID => parser.fast_records(&mut BodyRecords::<false> { body: self, env }),
            CONSTANTS_BLOCK_ID => self.constants_run(env, parser),
            _ => Ok(()),
        }
    }

    /// `record_run` of the constants block: out of line, once per body,
    /// so its loop's values do not crowd the function block's loop.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn constants_run(&mut self, env: Env, parser: &mut Parser) -> Res<()> {
        // No instruction comes in a constants block, so this holds for the
        // whole run and its records need not check it; if it fails, the
        // careful path's `constant` reports it at the first record.
        if !self.func.insts.is_empty() {
            return Ok(());
        }
        parser.fast_records(&mut BodyRecords::<true> { body: self, env })
    }

    /// A record of the function block itself.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    // Not forced in the package: the copies cost its size budget.
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub fn record(&mut self, env: &Env, pos: BitPos, code: u32, ops: &[u64]) -> Res<BodyItem> {
        match code {
            code::BINOP => {
                let (a, b, opc, flags) = match *ops {
                    [a, b, o] => (a, b, o, 0),
                    [a, b, o, f] => (a, b, o, f),
                    _ => return Err(malformed(pos, "binary operator", ops)),
                };
                self.binop(pos, a, b, opc, flags)
            }
            code::CAST => {
                let [v, ty, opc] = *ops else { return Err(malformed(pos, "cast", ops)) };
                self.cast(env, pos, v, ty, opc)
            }
            code::RET => match *ops {
                [] => self.push(pos, None, || InstKind::Ret { value: None }),
                [v] => self.ret(pos, v),
                _ => Err(malformed(pos, "return", ops)),
            },
            code::BR => match *ops {
                // Each kind built inside `push`'s closure, straight into its
                // slot (see `push`).
                [t] => self.br(pos, t),
                [t, f, c] => self.cond_br(pos, t, f, c),
                _ => Err(malformed(pos, "branch", ops)),
            },
            code::SWITCH => self.switch(env, pos, ops),
            code::PHI => {
                if ops.len() < 3 || ops.len() % 2 == 0 {
                    return Err(malformed(pos, "phi", ops));
                }
                let ty = env.value_type_id(ops[0], pos)?;
                let next = self.next_value() as i64;
                let start = self.func.phi_entries.len();
                for pair in ops[1..].chunks_exact(2) {
                    let abs = match next.checked_sub(sign_rotated(pair[0])).map(u32::try_from) {
                        Some(Ok(a)) => a,
                        _ => return Err(bad_phi_operand(pair[0], pos)),
                    };
                    let entry = (ValueId(abs), self.block_id(pair[1], pos)?);
                    self.func.phi_entries.push(entry);
                }
                let incoming = span(start, self.func.phi_entries.len(), pos)?;
                self.push_value(pos, ty, || InstKind::Phi { ty, incoming })
            }
            code::LOAD => {
                let [p, a, ty] = *ops else { return Err(malformed(pos, "load", ops)) };
                self.load(env, pos, p, a, ty)
            }
            code::STORE => {
                let [p, v, a] = *ops else { return Err(malformed(pos, "store", ops)) };
                self.store(pos, p, v, a)
            }
            code::CMP2 => {
                let [a, b, p] = *ops else { return Err(malformed(pos, "compare", ops)) };
                self.cmp(pos, a, b, p)
            }
            code::CALL | code::CALL_INDIRECT => {
                let indirect = code == code::CALL_INDIRECT;
                let fixed = if indirect { 3 } else { 2 };
                if ops.len() < fixed {
                    return Err(malformed(pos, "call", ops));
                }
                let cc_info = ops[0];
                let (callee, _) = self.operand(ops[1], pos)?;
                let ret = if indirect {
                    env.ret_type_id(ops[2], pos)?
                } else {
                    let f = env.module.func_of(callee).ok_or_else(|| {
                        DecodeError::new(pos, "direct call to a value that is not a function address")
                    })?;
                    env.module.function(f).sig.ret
                };
                let start = self.func.call_args.len();
                for &a in &ops[fixed..] {
                    let arg = self.operand(a, pos)?.0;
                    self.func.call_args.push(arg);
                }
                let args = span(start, self.func.call_args.len(), pos)?;
                let tail = cc_info & 1 == 1;
                let cc = u32::try_from(cc_info >> 1).map_err(|_| malformed(pos, "call", ops))?;
                // Built in the closure, not beforehand: an instruction made
                // on the stack and moved into its slot stalled the copy.
                if indirect {
                    self.push(pos, ret, || InstKind::CallIndirect { callee, args, ret, tail, cc })
                } else {
                    self.push(pos, ret, || InstKind::Call { callee, args, ret, tail, cc })
                }
            }
            _ => self.record_rare(env, pos, code, ops),
        }
    }

    /// A record written with one of the toolchain's abbreviations
    /// (`KNOWN_RECORDS[R]` of abbrev.rs), its fields by value: the function
    /// block's records of those shapes, decoded as `record` decodes them;
    /// `None` for any other (then `record` takes it).
    #[inline(always)]
    fn known<const R: u8>(&mut self, env: &Env, pos: BitPos, f: [u64; 3]) -> Option<Res<BodyItem>> {
        Some(match R {
            RECORD_LOAD => self.load(env, pos, f[0], f[1], f[2]),
            RECORD_BINOP => self.binop(pos, f[0], f[1], f[2], 0),
            RECORD_CAST => self.cast(env, pos, f[0], f[1], f[2]),
            RECORD_STORE => self.store(pos, f[0], f[1], f[2]),
            RECORD_RET => self.ret(pos, f[0]),
            RECORD_FORWARD_TYPE => self.forward_type(env, pos, f[0], f[1]),
            _ => return None,
        })
    }

    /// A function block record of `N` (1 or 3) values given by value, as
    /// `record` decodes it: the unabbreviated records most bodies are
    /// full of (branches and compares); `None` for others.
    #[inline(always)]
    fn plain<const N: usize>(&mut self, pos: BitPos, code: u32, v: [u64; 3]) -> Option<Res<BodyItem>> {
        Some(match (N, code) {
            (1, code::BR) => self.br(pos, v[0]),
            (3, code::BR) => self.cond_br(pos, v[0], v[1], v[2]),
            (3, code::CMP2) => self.cmp(pos, v[0], v[1], v[2]),
            _ => return None,
        })
    }

    #[inline(always)]
    fn br(&mut self, pos: BitPos, t: u64) -> Res<BodyItem> {
        let target = self.block_id(t, pos)?;
        self.push(pos, None, || InstKind::Br { target })
    }

    #[inline(always)]
    fn cond_br(&mut self, pos: BitPos, t: u64, f: u64, c: u64) -> Res<BodyItem> {
        let cond = self.operand(c, pos)?.0;
        let if_true = self.block_id(t, pos)?;
        let if_false = self.block_id(f, pos)?;
        self.push(pos, None, || InstKind::CondBr { cond, if_true, if_false })
    }

    #[inline(always)]
    fn cmp(&mut self, pos: BitPos, a: u64, b: u64, p: u64) -> Res<BodyItem> {
        let (lhs, ty) = self.operand(a, pos)?;
        let (rhs, _) = self.operand(b, pos)?;
        let pred = CmpPred::from_code(p).ok_or_else(|| unknown(pos, "compare predicate", p))?;
        let result = match ty {
            ValType::Scalar(_) => ValType::I1,
            ValType::Vector { lanes, .. } => ValType::Vector { elem: Scalar::I1, lanes },
        };
        self.push_value(pos, result, || InstKind::Cmp { pred, lhs, rhs })
    }

    #[inline(always)]
    fn binop(&mut self, pos: BitPos, a: u64, b: u64, opc: u64, flags: u64) -> Res<BodyItem> {
        let (lhs, ty) = self.operand(a, pos)?;
        let (rhs, _) = self.operand(b, pos)?;
        let op = BinOp::from_code(opc).ok_or_else(|| unknown(pos, "binary opcode", opc))?;
        self.push_value(pos, ty, || InstKind::Binop { op, lhs, rhs, flags })
    }

    #[inline(always)]
    fn cast(&mut self, env: &Env, pos: BitPos, v: u64, ty: u64, opc: u64) -> Res<BodyItem> {
        let (value, _) = self.operand(v, pos)?;
        let to = env.value_type_id(ty, pos)?;
        let op = CastOp::from_code(opc).ok_or_else(|| unknown(pos, "cast opcode", opc))?;
        self.push_value(pos, to, || InstKind::Cast { op, value, to })
    }

    /// A return of a value.
    #[inline(always)]
    fn ret(&mut self, pos: BitPos, v: u64) -> Res<BodyItem> {
        let value = Some(self.operand(v, pos)?.0);
        self.push(pos, None, || InstKind::Ret { value })
    }

    #[inline(always)]
    fn load(&mut self, env: &Env, pos: BitPos, p: u64, a: u64, ty: u64) -> Res<BodyItem> {
        let (ptr, _) = self.operand(p, pos)?;
        let align = Self::align(a, pos)?;
        let ty = env.value_type_id(ty, pos)?;
        self.push_value(pos, ty, || InstKind::Load { ptr, ty, align })
    }

    #[inline(always)]
    fn store(&mut self, pos: BitPos, p: u64, v: u64, a: u64) -> Res<BodyItem> {
        let (ptr, _) = self.operand(p, pos)?;
        let (value, _) = self.operand(v, pos)?;
        let align = Self::align(a, pos)?;
        self.push(pos, None, || InstKind::Store { ptr, value, align })
    }

    /// The records of `record` that few bodies have many of, out of line
    /// so that the loop over a body's records keeps its registers for the
    /// common ones.
    #[inline(never)]
    fn record_rare(&mut self, env: &Env, pos: BitPos, code: u32, ops: &[u64]) -> Res<BodyItem> {
        match code {
            code::DECLAREBLOCKS => {
                let [n] = *ops else { return Err(malformed(pos, "declare blocks", ops)) };
                if self.declared.is_some() {
                    return Err(DecodeError::new(pos, "blocks count declared twice"));
                }
                // Each block needs at least a terminator record (two bits or
                // more), which bounds what the rest of the block can hold.
                let room = self.end.0.saturating_sub(pos.0) / 2;
                if n > room || n > crate::limits::MAX_BASIC_BLOCKS {
                    return Err(DecodeError::new(pos, format!("{n} basic blocks cannot fit in this function block")));
                }
                let start = self.func.insts.len() as u32;
                // Into the recycled body's buffer (empty: blocks are declared once).
                self.func.blocks.clear();
                self.func.blocks.resize(n as usize, Block { start, end: start });
                self.declared = Some(n as u32);
                // (No instruction came before: `cur_block` is 0.)
                self.blocks_left = n as u32;
                Ok(BodyItem::DeclareBlocks(n as u32))
            }
            code::FORWARDTYPEREF => {
                let [v, ty] = *ops else { return Err(malformed(pos, "forward type reference", ops)) };
                self.forward_type(env, pos, v, ty)
            }
            code::EXTRACTELT => {
                let [v, i] = *ops else { return Err(malformed(pos, "extractelement", ops)) };
                let (vector, vty) = self.operand(v, pos)?;
                let (index, _) = self.operand(i, pos)?;
                let ty = ValType::Scalar(vty.elem());
                self.push(pos, Some(ty), || InstKind::ExtractElement { vector, index })
            }
            code::INSERTELT => {
                let [v, e, i] = *ops else { return Err(malformed(pos, "insertelement", ops)) };
                let (vector, vty) = self.operand(v, pos)?;
                let (element, _) = self.operand(e, pos)?;
                let (index, _) = self.operand(i, pos)?;
                self.push(pos, Some(vty), || InstKind::InsertElement { vector, element, index })
            }
            code::UNREACHABLE => {
                if !ops.is_empty() {
                    return Err(malformed(pos, "unreachable", ops));
                }
                self.push(pos, None, || InstKind::Unreachable)
            }
            code::ALLOCA => {
                let [s, a] = *ops else { return Err(malformed(pos, "alloca", ops)) };
                let (size, _) = self.operand(s, pos)?;
                let align = Self::align(a, pos)?;
                self.push(pos, Some(ValType::I32), || InstKind::Alloca { size, align })
            }
            code::VSELECT => {
                let [t, f, c] = *ops else { return Err(malformed(pos, "select", ops)) };
                let (if_true, ty) = self.operand(t, pos)?;
                let (if_false, _) = self.operand(f, pos)?;
                let (cond, _) = self.operand(c, pos)?;
                self.push(pos, Some(ty), || InstKind::Select { cond, if_true, if_false })
            }
            other => Err(DecodeError::new(pos, format!("unknown function record code {other}"))),
        }
    }

    fn switch(&mut self, env: &Env, pos: BitPos, ops: &[u64]) -> Res<BodyItem> {
        let bad = || DecodeError::new(pos, "malformed switch record");
        if ops.len() < 4 {
            return Err(bad());
        }
        let ty = env.value_type_id(ops[0], pos)?;
        let (cond, _) = self.operand(ops[1], pos)?;
        let default = self.block_id(ops[2], pos)?;
        let n = ops[3];
        // Each case takes at least four values, which bounds the count.
        if n > MAX_SWITCH_CASES || n > (ops.len() as u64 - 4) / 4 {
            return Err(bad());
        }
        let bits = ty.elem().bits();
        let start = self.func.switch_cases.len();
        let cases = &mut self.func.switch_cases;
        // Room for one value per case: the usual count (PNaCl's writer
        // gives each case value its own case).
        cases.reserve(n as usize);
        let mut at = 4;
        for _ in 0..n {
            // The usual case, one single value and its target, in one look
            // (the loop below reads and checks the same values).
            if let Some(&[1, 1, v, t]) = ops.get(at..at + 4) {
                let target = BlockId(u32::try_from(t).map_err(|_| DecodeError::new(pos, format!("block index {t} is out of range")))?);
                cases.push(SwitchCase { value: sext(sign_rotated(v), bits), target });
                at += 4;
                continue;
            }
            let items = *ops.get(at).ok_or_else(bad)?;
            at += 1;
            // The case's values come before its target: checked first, then
            // read again once the target is known (no buffer per case).
            let first = at;
            for _ in 0..items {
                let is_single = *ops.get(at).ok_or_else(bad)?;
                ops.get(at + 1).ok_or_else(bad)?;
                if is_single != 1 {
                    return Err(DecodeError::new(pos, "switch case ranges are not allowed in PNaCl"));
                }
                at += 2;
            }
            let t = *ops.get(at).ok_or_else(bad)?;
            let target = BlockId(u32::try_from(t).map_err(|_| DecodeError::new(pos, format!("block index {t} is out of range")))?);
            at += 1;
            let values = ops[first..at - 1].chunks_exact(2).map(|pair| sext(sign_rotated(pair[1]), bits));
            cases.extend(values.map(|value| SwitchCase { value, target }));
        }
        if at != ops.len() {
            return Err(bad());
        }
        let cases = span(start, self.func.switch_cases.len(), pos)?;
        self.push(pos, None, || InstKind::Switch { ty, cond, default, cases })
    }

    /// Appends an instruction to the current block: one that defines a
    /// value of type `ty`, or (`None`) none.
    #[inline(always)]
    fn push(&mut self, pos: BitPos, ty: Option<ValType>, kind: impl FnOnce() -> InstKind) -> Res<BodyItem> {
        match ty {
            Some(ty) => self.push_value(pos, ty, kind),
            None => {
                if self.blocks_left == 0 {
                    return Err(self.misplaced_inst(pos));
                }
                self.append(pos, None, kind)
            }
        }
    }

    /// `push` of an instruction that defines a value of type `ty`. Taken
    /// by value, not as an `Option`: a test of the option's tag (the
    /// type's own) left the type split at that byte, stored into the
    /// instruction in four pieces.
    #[inline(always)]
    fn push_value(&mut self, pos: BitPos, ty: ValType, kind: impl FnOnce() -> InstKind) -> Res<BodyItem> {
        if self.blocks_left == 0 {
            return Err(self.misplaced_inst(pos));
        }
        // Read before the pushes below, which may grow (a call) and make
        // the compiler load it again.
        let id = InstId(self.func.insts.len() as u32);
        let v = self.next_value();
        if self.next_due <= v {
            self.resolve_forward(v, ty, pos)?;
        }
        self.local_types.push(ty);
        self.func.results.push(id);
        self.append(pos, Some((ValueId(v), ty)), kind)
    }

    /// The end of `push`: the instruction into its slot, and its block
    /// closed if it is a terminator.
    #[inline(always)]
    fn append(&mut self, pos: BitPos, result: Option<(ValueId, ValType)>, kind: impl FnOnce() -> InstKind) -> Res<BodyItem> {
        let id = InstId(self.func.insts.len() as u32);
        let insts = &mut self.func.insts;
        if insts.len() == insts.capacity() {
            // Out of line, so the push below is a plain store in place.
            grow(insts);
        }
        // Pushed whole: the compiler stores each field straight into the
        // slot (checked in the annotated profile; no copy through the
        // stack), where a placeholder pushed first cost eight more
        // instructions per instruction.
        let kind = kind();
        let terminates = kind.is_terminator();
        insts.push(Inst { kind, result, pos });
        let end = insts.len() as u32;
        // A block's end is written when its terminator closes it (or by
        // `finish`), not per instruction.
        if terminates {
            if let Some(b) = self.func.blocks.get_mut(self.cur_block as usize) {
                b.end = end;
            }
            self.cur_block += 1;
            // Not 0: `push` took the instruction.
            self.blocks_left -= 1;
            if let Some(b) = self.func.blocks.get_mut(self.cur_block as usize) {
                *b = Block { start: end, end };
            }
        }
        Ok(BodyItem::Inst(id))
    }

    /// A FORWARDTYPEREF record: value `v` will have type `ty`. Out of line
    /// natively, where the record loop reaches it too; inside `record_rare`
    /// in the package (its size budget).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    fn forward_type(&mut self, env: &Env, pos: BitPos, v: u64, ty_id: u64) -> Res<BodyItem> {
        let ty = env.value_type_id(ty_id, pos)?;
        let v = u32::try_from(v).map_err(|_| malformed(pos, "forward type reference", &[v, ty_id]))?;
        if v < self.next_value() {
            // Declaring an already defined value is pointless but harmless
            // if the types agree.
            if self.value_type(v) != Some(ty) {
                return Err(DecodeError::new(pos, "forward type declaration of a defined value with another type"));
            }
        } else {
            let due = &self.due[self.due_from..];
            // Nearly always past every value queued: no search.
            let at = match due.last() {
                Some(&(last, _)) if last >= v => due.binary_search_by_key(&v, |&(k, _)| k),
                _ => Err(due.len()),
            };
            let old = match at {
                Ok(i) => Some(due[i].1),
                Err(_) if self.forward.is_empty() => None,
                Err(_) => self.forward.get(&v).copied(),
            };
            match (old, at) {
                (Some(old), _) => {
                    if old != ty {
                        return Err(DecodeError::new(pos, "conflicting forward type declarations"));
                    }
                }
                // Into its place in the queue, unless that moves many.
                (None, Err(at)) if due.len() - at <= MAX_DUE_SHIFT => self.due.insert(self.due_from + at, (v, ty)),
                (None, _) => {
                    self.forward.insert(v, ty);
                    self.forward_due.push(Reverse(v));
                }
            }
            self.next_due = self.next_due.min(v);
        }
        self.func.forward_types.push(ForwardType { value: ValueId(v), ty, pos });
        Ok(BodyItem::ForwardType(self.func.forward_types.len() - 1))
    }

    /// The error for an instruction before DECLAREBLOCKS or after the last block.
    #[cold]
    #[inline(never)]
    fn misplaced_inst(&self, pos: BitPos) -> DecodeError {
        match self.declared {
            None => DecodeError::new(pos, "instruction before the blocks count"),
            Some(n) => DecodeError::new(pos, format!("instruction after the last of the {n} declared blocks")),
        }
    }

    /// Value `v` of type `ty` is being defined: it must have the type a
    /// FORWARDTYPEREF declared for it, if any, which it then no longer needs.
    #[inline(never)]
    fn resolve_forward(&mut self, v: u32, ty: ValType, pos: BitPos) -> Res<()> {
        // The usual case: `v` heads the queue with its own type and none
        // is in the map's heap (`v` is then not in the map: a declaration
        // goes to one or the other).
        if self.forward_due.is_empty() {
            if let Some(&(key, t)) = self.due.get(self.due_from) {
                if key == v && t == ty {
                    self.due_from += 1;
                    self.next_due = self.due.get(self.due_from).map_or(u32::MAX, |&(key, _)| key);
                    return Ok(());
                }
            }
        }
        self.resolve_forward_slow(v, ty, pos)
    }

    /// `resolve_forward` in every case.
    #[inline(never)]
    fn resolve_forward_slow(&mut self, v: u32, ty: ValType, pos: BitPos) -> Res<()> {
        // Keys below `v` (values a constant defined) are dropped unchecked.
        let mut declared = None;
        while let Some(&(key, t)) = self.due.get(self.due_from) {
            if key > v {
                break;
            }
            self.due_from += 1;
            if key == v {
                declared = Some(t);
            }
        }
        while self.forward_due.peek().is_some_and(|&Reverse(due)| due <= v) {
            self.forward_due.pop();
        }
        let next_queued = self.due.get(self.due_from).map_or(u32::MAX, |&(key, _)| key);
        self.next_due = self.forward_due.peek().map_or(next_queued, |&Reverse(due)| due.min(next_queued));
        if declared.is_none() && !self.forward.is_empty() {
            declared = self.forward.remove(&v);
        }
        if let Some(declared) = declared {
            if declared != ty {
                return Err(DecodeError::new(
                    pos,
                    format!("value declared as {declared} by a forward type declaration is defined as {ty}"),
                ));
            }
        }
        Ok(())
    }

    /// A record of the constants block inside this function.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    // Not forced in the package: the copies cost its size budget.
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub fn constant(&mut self, env: &Env, pos: BitPos, code: u32, ops: &[u64]) -> Res<BodyItem> {
        if !self.func.insts.is_empty() {
            return Err(DecodeError::new(pos, "constants block after instructions"));
        }
        if code == cst::SETTYPE {
            let [ty] = *ops else { return Err(malformed(pos, "set type", ops)) };
            return self.set_const_type(env, pos, ty);
        }
        if !self.const_type_set {
            return Err(DecodeError::new(pos, "constant before any set type record"));
        }
        let ty = self.const_type;
        let value = match (code, ops) {
            (cst::UNDEF, []) => ConstValue::Undef,
            (cst::INTEGER, &[v]) => return self.int_const(pos, v),
            (cst::FLOAT, &[v]) => match ty {
                ValType::F32 if v <= u32::MAX as u64 => ConstValue::Float(v),
                ValType::F64 => ConstValue::Float(v),
                _ => return Err(DecodeError::new(pos, format!("floating point constant {v} of type {ty}"))),
            },
            (cst::UNDEF | cst::INTEGER | cst::FLOAT, _) => return Err(malformed(pos, "constant", ops)),
            (other, _) => return Err(DecodeError::new(pos, format!("unknown constants record code {other}"))),
        };
        self.func.consts.push(Constant { ty, value, pos });
        self.local_types.push(ty);
        Ok(BodyItem::Const(self.func.consts.len() as u32 - 1))
    }

    /// `constant` for a record written with one of the toolchain's
    /// abbreviations (`KNOWN[K]` of abbrev.rs), its field by value: SETTYPE
    /// and INTEGER; `None` for any other (then `constant` takes it).
    #[inline(always)]
    fn known_const<const R: u8>(&mut self, env: &Env, pos: BitPos, f: [u64; 3]) -> Option<Res<BodyItem>> {
        Some(match R {
            RECORD_INTEGER => self.int_const(pos, f[0]),
            RECORD_ZERO => self.int_const(pos, 0),
            RECORD_SETTYPE => self.set_const_type(env, pos, f[0]),
            _ => return None,
        })
    }

    /// A SETTYPE record; its callers (`constant`, `constants_run`) have
    /// checked that no instruction came before.
    #[inline(always)]
    fn set_const_type(&mut self, env: &Env, pos: BitPos, ty: u64) -> Res<BodyItem> {
        let ty = env.value_type_id(ty, pos)?;
        self.const_type = ty;
        self.const_type_set = true;
        self.const_int_shift = match ty {
            ValType::Scalar(s) if s.is_int() => 64 - s.bits(),
            _ => NO_INT_SHIFT,
        };
        Ok(BodyItem::ConstType(ty))
    }

    /// An INTEGER record, checked as `set_const_type` is.
    #[inline(always)]
    fn int_const(&mut self, pos: BitPos, v: u64) -> Res<BodyItem> {
        let shift = self.const_int_shift;
        if shift >= NO_INT_SHIFT {
            return Err(self.not_an_int_const(pos));
        }
        let ty = self.const_type;
        // `sext` by the type's bits, as set at SETTYPE.
        let value = ConstValue::Int((sign_rotated(v) << shift) >> shift);
        self.func.consts.push(Constant { ty, value, pos });
        self.local_types.push(ty);
        Ok(BodyItem::Const(self.func.consts.len() as u32 - 1))
    }

    /// The error for an INTEGER constant with no integer type set.
    #[cold]
    #[inline(never)]
    fn not_an_int_const(&self, pos: BitPos) -> DecodeError {
        if !self.const_type_set {
            return DecodeError::new(pos, "constant before any set type record");
        }
        DecodeError::new(pos, format!("integer constant of type {}", self.const_type))
    }

    /// A record of the function's value symbol table.
    pub fn symbol(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<BodyItem> {
        let name = |chars: &[u64]| -> Res<Vec<u8>> { bytes_of(chars, pos, "name character") };
        match (code, ops) {
            (1, [v, chars @ ..]) => {
                let v = u32::try_from(*v).map_err(|_| DecodeError::new(pos, "symbol value id out of range"))?;
                self.func.value_names.push((ValueId(v), name(chars)?));
                Ok(BodyItem::ValueName(self.func.value_names.len() - 1))
            }
            (2, [b, chars @ ..]) => {
                let b = u32::try_from(*b).map_err(|_| DecodeError::new(pos, "symbol block id out of range"))?;
                self.func.block_names.push((BlockId(b), name(chars)?));
                Ok(BodyItem::BlockName(self.func.block_names.len() - 1))
            }
            (c, _) => Err(DecodeError::new(pos, format!("malformed value symbol table record (code {c})"))),
        }
    }

    /// Which sub-blocks a function block may contain.
    pub fn allows_block(id: u32) -> bool {
        matches!(id, CONSTANTS_BLOCK_ID | VALUE_SYMTAB_BLOCK_ID)
    }

    /// Ends the body: `func` is the finished body until the next `begin`.
    pub fn end(&mut self) {
        debug_assert!(FUNCTION_BLOCK_ID == 12);
        // The block left open (no terminator) ends with the body.
        let end = self.func.insts.len() as u32;
        if let Some(b) = self.func.blocks.get_mut(self.cur_block as usize) {
            b.end = end;
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FuncType, FunctionDecl, Linkage, TypeId};
    use std::sync::Arc;

    /// Forward type declarations in any order (ascending, scattered, long
    /// descending runs past `MAX_DUE_SHIFT`, repeats, some of them wrong,
    /// some for values constants then define) give the types and errors
    /// of one map from value to declared type, as the decoder once kept.
    #[test]
    fn forward_types_in_any_order_agree_with_a_map() {
        let sig = Arc::new(FuncType { ret: None, params: vec![], varargs: false });
        let module = Module {
            types: vec![Type::Function(sig.clone()), Type::Value(ValType::I32), Type::Value(ValType::I64)],
            functions: vec![FunctionDecl {
                ty: TypeId(0),
                sig,
                cc: 0,
                is_proto: false,
                linkage: Linkage::Internal,
                name: None,
                pos: BitPos(0),
            }],
            ..Module::default()
        };
        let env = Env { module: &module };
        let type_of = |ty_id: u64| if ty_id == 1 { ValType::I32 } else { ValType::I64 };
        let mut st = FunctionState::default();
        let mut rng = crate::test_rng(0x5eed_f0f0);
        let mut errors = 0;
        for _ in 0..300 {
            st.begin(&module, FuncId(0), BitPos(0), BitPos(1 << 40));
            let mut model: HashMap<u32, ValType> = HashMap::new();
            let first = st.next_value();
            // Most values are declared with their own type, a few not.
            let right = |v: u32| 1 + (v as u64 * 7 % 5 == 0) as u64;
            let pick = |rng: &mut dyn FnMut(u64) -> u64, v: u32| if rng(300) == 0 { 3 - right(v) } else { right(v) };
            // Declarations of values constants define: never checked.
            let constants = rng(4) as u32;
            for _ in 0..rng(4) {
                let v = first + rng(8) as u32;
                declare(&mut st, &env, &mut model, v, right(v)).unwrap();
            }
            st.set_const_type(&env, BitPos(2), 1).unwrap();
            for _ in 0..constants {
                st.int_const(BitPos(2), 0).unwrap();
            }
            st.record(&env, BitPos(3), code::DECLAREBLOCKS, &[1]).unwrap();
            let mut failed = None;
            for step in 0..200 {
                let next = st.next_value();
                let result = match rng(3) {
                    // A run in descending order, most past the queue's shift.
                    0 if rng(8) == 0 => (0..40 + rng(40) as u32)
                        .rev()
                        .map(|k| declare(&mut st, &env, &mut model, next + k, pick(&mut rng, next + k)))
                        .find(|r| r.is_err())
                        .unwrap_or(Ok(())),
                    0 | 1 => {
                        let v = if rng(6) == 0 { first + rng((next - first + 1) as u64) as u32 } else { next + rng(30) as u32 };
                        declare(&mut st, &env, &mut model, v, pick(&mut rng, v))
                    }
                    _ => {
                        let ty = right(next);
                        let got = st.load(&env, BitPos(4), 1, 1, ty).map(drop).map_err(|e| e.to_string());
                        let want = match model.remove(&next) {
                            Some(d) if d != type_of(ty) => Err(format!(
                                "value declared as {d} by a forward type declaration is defined as {}",
                                type_of(ty)
                            )),
                            _ => Ok(()),
                        };
                        assert_eq!(got, want, "step {step}");
                        got
                    }
                };
                if result.is_err() {
                    failed = Some(step);
                    break;
                }
                let next = st.next_value();
                for w in next..next + 90 {
                    assert_eq!(st.value_type(w), model.get(&w).copied(), "value {w} at step {step}");
                }
            }
            errors += failed.is_some() as u32;
            st.end();
        }
        // Runs that end in an error and runs that do not.
        assert!(errors > 0 && errors < 300, "{errors}");
    }

    fn declare(st: &mut FunctionState, env: &Env, model: &mut HashMap<u32, ValType>, v: u32, ty: u64) -> Result<(), String> {
        let t = if ty == 1 { ValType::I32 } else { ValType::I64 };
        let got = st.forward_type(env, BitPos(5), v as u64, ty).map(drop).map_err(|e| e.to_string());
        let want = if v < st.next_value() {
            match st.local_types.get((v - st.first_local) as usize) {
                Some(&d) if d == t => Ok(()),
                _ => Err("forward type declaration of a defined value with another type".to_string()),
            }
        } else {
            match model.get(&v) {
                Some(&old) if old != t => Err("conflicting forward type declarations".to_string()),
                _ => {
                    model.insert(v, t);
                    Ok(())
                }
            }
        };
        assert_eq!(got, want, "declaring {v} as {t}");
        got
    }
}
