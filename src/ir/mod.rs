//! The module IR: what a pexe means, with no trace of how it was encoded.
//!
//! A [`Module`] holds the types block, the function declarations (with their
//! signatures, linkage and names), and the global variables with their
//! initializers. Function bodies are separate [`Function`] values, decoded one
//! at a time so a large pexe never needs all its bodies in memory at once and
//! bodies can be handed to other threads.
//!
//! # Values
//!
//! Every operand is a [`ValueId`] in the numbering PNaCl defines: first all
//! functions (in declaration order), then all global variables, then — inside
//! a function — its parameters, its constants, and the results of its
//! value-producing instructions in order. [`Function::value`] classifies an id.
//! Functions and globals used as operands are `i32` addresses.
//!
//! # Control flow
//!
//! A function has [`Function::blocks`] basic blocks; each block owns a
//! contiguous run of [`Function::insts`] and ends with its only terminator.
//! Phis name their incoming blocks, so the CFG is explicit.
//!
//! # Operand lists
//!
//! An [`Inst`] owns nothing and is `Copy`: the variable-length lists of an
//! instruction (a call's arguments, a phi's entries, a switch's cases) are
//! [`Span`]s of its function's [`Function::call_args`],
//! [`Function::phi_entries`] and [`Function::switch_cases`], read with
//! [`Function::args`], [`Function::incoming`] and [`Function::cases`]. A
//! body is three growing lists instead of an allocation per instruction,
//! and its buffers are reused whole for the next body.
//!
//! # Positions
//!
//! Entities carry the [`BitPos`] of the record they came from, used only for
//! diagnostics and listings.

mod inst;
mod types;

pub use inst::{BinOp, CastOp, CmpPred, InstKind, SwitchCase};
pub use types::{FuncType, Scalar, Type, ValType};

use std::sync::Arc;

use crate::BitPos;

/// Index into [`Module::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// Index into [`Module::functions`]; also the function's value id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// Index into [`Module::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// A value in the PNaCl numbering (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// Index into [`Function::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// Index into [`Function::insts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

/// Symbol linkage. PNaCl allows external (only `_start`) and internal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    Internal,
    /// Any other LLVM linkage code (never valid in PNaCl).
    Other(u64),
}

impl Linkage {
    pub fn from_code(code: u64) -> Linkage {
        match code {
            0 => Linkage::External,
            3 => Linkage::Internal,
            c => Linkage::Other(c),
        }
    }
    pub fn code(self) -> u64 {
        match self {
            Linkage::External => 0,
            Linkage::Internal => 3,
            Linkage::Other(c) => c,
        }
    }
}

/// A function address: declared with a signature, defined by a body or not.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    /// The function type's entry in the types block.
    pub ty: TypeId,
    /// That type, resolved: the types block's own, shared.
    pub sig: Arc<FuncType>,
    /// Calling convention code (PNaCl allows only 0, the C convention).
    pub cc: u64,
    /// A prototype has no body (intrinsics and, invalidly, other externals).
    pub is_proto: bool,
    pub linkage: Linkage,
    /// Name from the module value symbol table, if any.
    pub name: Option<Vec<u8>>,
    pub pos: BitPos,
}

impl FunctionDecl {
    /// The name as text (lossy), or empty.
    pub fn name_str(&self) -> std::borrow::Cow<'_, str> {
        self.name.as_deref().map(String::from_utf8_lossy).unwrap_or_default()
    }
}

/// A global variable: a block of guest memory with an initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVar {
    /// Alignment in bytes; 0 when the record leaves it unspecified.
    pub align: u32,
    pub is_const: bool,
    /// Whether the initializer was written as a compound (a list of parts)
    /// rather than a single part.
    pub compound: bool,
    pub init: Inits,
    pub name: Option<Vec<u8>>,
    pub pos: BitPos,
}

impl GlobalVar {
    /// Size in bytes of the initializer (relocations take 4).
    pub fn size(&self) -> u64 {
        self.init.iter().map(Initializer::size).sum()
    }
}

/// A global's initializer parts, read as a slice. Most globals have one
/// part, held inline: no allocation (and no free) for its list.
#[derive(Clone, Debug)]
pub enum Inits {
    One(Initializer),
    Many(Vec<Initializer>),
}

impl Default for Inits {
    fn default() -> Self {
        Inits::Many(Vec::new())
    }
}

impl Inits {
    /// Appends a part.
    pub fn push(&mut self, part: Initializer) {
        match self {
            Inits::Many(v) if !v.is_empty() => v.push(part),
            Inits::Many(_) => *self = Inits::One(part),
            Inits::One(_) => {
                let Inits::One(first) = std::mem::take(self) else { unreachable!() };
                *self = Inits::Many(vec![first, part]);
            }
        }
    }
}

impl std::ops::Deref for Inits {
    type Target = [Initializer];
    fn deref(&self) -> &[Initializer] {
        match self {
            Inits::One(part) => std::slice::from_ref(part),
            Inits::Many(parts) => parts,
        }
    }
}

impl<'a> IntoIterator for &'a Inits {
    type Item = &'a Initializer;
    type IntoIter = std::slice::Iter<'a, Initializer>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Equal when the parts are, however they are held.
impl PartialEq for Inits {
    fn eq(&self, other: &Inits) -> bool {
        **self == **other
    }
}

impl From<Vec<Initializer>> for Inits {
    fn from(parts: Vec<Initializer>) -> Inits {
        Inits::Many(parts)
    }
}

/// Where a DATA initializer's bytes lie in [`Module::data`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataRange {
    pub start: u32,
    pub len: u32,
}

/// `start..start + len` as a [`DataRange`]; panics past `u32`.
pub(crate) fn data_range(start: usize, len: usize) -> DataRange {
    let end = start.checked_add(len).filter(|&e| e <= u32::MAX as usize).expect("global data past 4 GiB");
    DataRange { start: start as u32, len: (end - start) as u32 }
}

/// One part of a global's initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// Bytes of [`Module::data`]: read them with [`Initializer::data`].
    Data(DataRange),
    ZeroFill(u64),
    /// The 32-bit address of a function or global, plus `addend`.
    Reloc { target: ValueId, addend: i64 },
}

impl Initializer {
    pub fn size(&self) -> u64 {
        match self {
            Initializer::Data(d) => d.len as u64,
            Initializer::ZeroFill(n) => *n,
            Initializer::Reloc { .. } => 4,
        }
    }

    /// The bytes of a DATA part of one of `m`'s globals; `None` for the
    /// other parts.
    #[inline]
    pub fn data<'m>(&self, m: &'m Module) -> Option<&'m [u8]> {
        match *self {
            Initializer::Data(d) => Some(&m.data[d.start as usize..][..d.len as usize]),
            _ => None,
        }
    }
}

/// The module: everything but function bodies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// The module VERSION record (1 in every PNaCl file).
    pub version: u64,
    pub types: Vec<Type>,
    /// Function addresses, in declaration order (value ids 0..).
    pub functions: Vec<FunctionDecl>,
    /// Global variables (value ids after the functions).
    pub globals: Vec<GlobalVar>,
    /// The bytes of every DATA initializer, one after another: one buffer
    /// for the globals, not an allocation per initializer.
    pub data: Vec<u8>,
}

impl Module {
    /// A DATA initializer of `bytes`, appended to [`Module::data`]. Panics
    /// past 4 GiB of data in all (the decoder stops at
    /// [`crate::limits::MAX_GLOBAL_DATA`] first).
    pub fn push_data(&mut self, bytes: &[u8]) -> Initializer {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        Initializer::Data(data_range(start, bytes.len()))
    }

    /// Functions plus globals: the first function-local value id.
    pub fn num_global_values(&self) -> u32 {
        (self.functions.len() + self.globals.len()) as u32
    }

    /// The function with value id `v`, if `v` is one.
    pub fn func_of(&self, v: ValueId) -> Option<FuncId> {
        ((v.0 as usize) < self.functions.len()).then_some(FuncId(v.0))
    }

    /// The global with value id `v`, if `v` is one.
    pub fn global_of(&self, v: ValueId) -> Option<GlobalId> {
        let i = (v.0 as usize).checked_sub(self.functions.len())?;
        (i < self.globals.len()).then_some(GlobalId(i as u32))
    }

    /// Functions with bodies, in the order their blocks appear in the file.
    pub fn defined_functions(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.functions.iter().enumerate().filter(|(_, f)| !f.is_proto).map(|(i, _)| FuncId(i as u32))
    }

    pub fn function(&self, f: FuncId) -> &FunctionDecl {
        &self.functions[f.0 as usize]
    }

    pub fn global(&self, g: GlobalId) -> &GlobalVar {
        &self.globals[g.0 as usize]
    }
}

/// A constant of a function's constants block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constant {
    pub ty: ValType,
    pub value: ConstValue,
    pub pos: BitPos,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    /// An integer, sign-extended from its type's width.
    Int(i64),
    /// Raw IEEE bits: the low 32 for float, all 64 for double.
    Float(u64),
    Undef,
}

/// A run of one of a function's operand lists: `start..start + len` of
/// [`Function::call_args`], [`Function::phi_entries`] or
/// [`Function::switch_cases`], as the instruction holding it says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
    pub fn len(self) -> usize {
        self.len as usize
    }
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inst {
    pub kind: InstKind,
    /// The value it defines and its type, for value-producing instructions.
    pub result: Option<(ValueId, ValType)>,
    pub pos: BitPos,
}

/// A basic block: `insts[start..end]`, the last of which is its terminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: u32,
    pub end: u32,
}

/// A forward type declaration (`declare T %vN;`) met in a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForwardType {
    pub value: ValueId,
    pub ty: ValType,
    pub pos: BitPos,
}

/// How a value id is defined, from inside a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueRef {
    Function(FuncId),
    Global(GlobalId),
    Param(u32),
    Const(u32),
    Inst(InstId),
}

/// A function body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function {
    pub id: FuncId,
    /// Value id of the first parameter (= `Module::num_global_values`).
    pub first_local: u32,
    pub params: Vec<ValType>,
    pub consts: Vec<Constant>,
    pub insts: Vec<Inst>,
    /// The arguments of every call, one run per call (see [`Span`]): one
    /// buffer per body, reused with it, rather than one allocation per
    /// instruction.
    pub call_args: Vec<ValueId>,
    /// The `(value, incoming block)` entries of every phi.
    pub phi_entries: Vec<(ValueId, BlockId)>,
    /// The cases of every switch.
    pub switch_cases: Vec<SwitchCase>,
    pub blocks: Vec<Block>,
    /// For each value-producing instruction in order, its index.
    pub results: Vec<InstId>,
    /// Names from the function's value symbol table.
    pub value_names: Vec<(ValueId, Vec<u8>)>,
    pub block_names: Vec<(BlockId, Vec<u8>)>,
    pub forward_types: Vec<ForwardType>,
    /// Position of the function block.
    pub pos: BitPos,
}

impl Default for FuncId {
    fn default() -> Self {
        FuncId(0)
    }
}

impl Function {
    /// The arguments of a call (its `args`).
    #[inline]
    pub fn args(&self, s: Span) -> &[ValueId] {
        &self.call_args[s.range()]
    }
    /// The entries of a phi (its `incoming`).
    #[inline]
    pub fn incoming(&self, s: Span) -> &[(ValueId, BlockId)] {
        &self.phi_entries[s.range()]
    }
    /// The cases of a switch (its `cases`).
    #[inline]
    pub fn cases(&self, s: Span) -> &[SwitchCase] {
        &self.switch_cases[s.range()]
    }

    /// Appends `args` to [`Function::call_args`]: the span a call holds.
    pub fn add_args(&mut self, args: &[ValueId]) -> Span {
        push_span(&mut self.call_args, args)
    }
    /// Appends phi entries: the span a phi holds.
    pub fn add_incoming(&mut self, entries: &[(ValueId, BlockId)]) -> Span {
        push_span(&mut self.phi_entries, entries)
    }
    /// Appends switch cases: the span a switch holds.
    pub fn add_cases(&mut self, cases: &[SwitchCase]) -> Span {
        push_span(&mut self.switch_cases, cases)
    }

    /// Value id of the first constant.
    pub fn first_const(&self) -> u32 {
        self.first_local + self.params.len() as u32
    }
    /// Value id of the first instruction result.
    pub fn first_inst_value(&self) -> u32 {
        self.first_const() + self.consts.len() as u32
    }
    /// One past the last value id defined in this function.
    pub fn end_value(&self) -> u32 {
        self.first_inst_value() + self.results.len() as u32
    }

    /// Classifies `v`; `None` if no value has that id.
    pub fn value(&self, v: ValueId) -> Option<ValueRef> {
        let n_funcs_and_globals = self.first_local;
        let x = v.0;
        if x < n_funcs_and_globals {
            // The module decides which of the two; callers that need to know
            // use `Module::func_of`/`global_of`. Report as a function id when
            // it is below the function count, which `value_in` can do.
            return None;
        }
        let x = x - self.first_local;
        if (x as usize) < self.params.len() {
            return Some(ValueRef::Param(x));
        }
        let x = x - self.params.len() as u32;
        if (x as usize) < self.consts.len() {
            return Some(ValueRef::Const(x));
        }
        let x = (x - self.consts.len() as u32) as usize;
        self.results.get(x).map(|&i| ValueRef::Inst(i))
    }

    /// Classifies `v`, module-level values included.
    pub fn value_in(&self, module: &Module, v: ValueId) -> Option<ValueRef> {
        if let Some(f) = module.func_of(v) {
            return Some(ValueRef::Function(f));
        }
        if let Some(g) = module.global_of(v) {
            return Some(ValueRef::Global(g));
        }
        self.value(v)
    }

    /// The type of `v` (functions and globals are i32 addresses).
    pub fn value_type(&self, module: &Module, v: ValueId) -> Option<ValType> {
        Some(match self.value_in(module, v)? {
            ValueRef::Function(_) | ValueRef::Global(_) => ValType::I32,
            ValueRef::Param(i) => self.params[i as usize],
            ValueRef::Const(i) => self.consts[i as usize].ty,
            ValueRef::Inst(i) => self.insts[i.0 as usize].result?.1,
        })
    }

    /// Instructions of block `b`.
    pub fn block_insts(&self, b: BlockId) -> &[Inst] {
        let blk = self.blocks[b.0 as usize];
        &self.insts[blk.start as usize..blk.end as usize]
    }

    /// The terminator of block `b`, if the block is not empty.
    pub fn terminator(&self, b: BlockId) -> Option<&Inst> {
        self.block_insts(b).last()
    }
}

fn push_span<T: Copy>(list: &mut Vec<T>, items: &[T]) -> Span {
    let start = list.len() as u32;
    list.extend_from_slice(items);
    Span { start, len: items.len() as u32 }
}
