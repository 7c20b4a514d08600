//! Records to IR: turns bitstream events into a [`Module`] and [`Function`]s.
//!
//! The [`Decoder`] is a push state machine: feed it every [`Event`] of a file
//! in order and it builds the module as records arrive, returning for each
//! event a [`Decoded`] that says what that record defined. The disassembler
//! uses those answers to print PNaClAsm beside each record; the verifier and
//! back ends read each [`Function`] as its block closes
//! ([`Decoded::FunctionEnd`], [`Decoder::finished_body`]); the next body is
//! decoded into the same buffers, so bodies never pile up in memory.
//!
//! Value ids are resolved here: relative operands become absolute
//! [`ValueId`]s, signed relative phi operands likewise, forward references
//! take the type their `FORWARDTYPEREF` record declared, and every
//! instruction result gets its type. Decoding stops at the first error (the
//! verifier, not the decoder, collects problems): anything the IR cannot
//! represent or that makes later records meaningless is a [`DecodeError`]
//! naming the bit position, the block and the function.
//!
//! ```
//! # let bytes = pexe::bitstream::tests_support::minimal_pexe();
//! let (module, functions) = pexe::decode::decode(&bytes).unwrap();
//! assert_eq!(module.types.len(), 1);
//! assert!(functions.is_empty());
//! ```

mod body;
mod error;
mod function;
mod module;

pub use body::BodyDecoder;
pub use error::DecodeError;

use crate::bitstream::{Event, Parser};
use crate::ir::{BlockId, FuncId, Function, GlobalId, InstId, Module, TypeId, ValType, ValueId};

/// What one event meant, for printers that follow the decoder.
#[derive(Debug)]
pub enum Decoded {
    /// Nothing the IR shows (abbreviation definitions, BLOCKINFO records,
    /// block exits other than the ones below, the header).
    Other,
    /// Entered a block with this id (for a function block, see `FunctionBegin`).
    EnterBlock(u32),
    /// Left a block with this id (for a function block, see `FunctionEnd`).
    ExitBlock(u32),
    /// Module VERSION record.
    Version(u64),
    /// Types block count record: `count N;`.
    TypeCount(u64),
    /// A type entry was defined.
    Type(TypeId),
    /// A function address was declared (module FUNCTION record).
    FunctionDecl(FuncId),
    /// Globals block count record.
    GlobalCount(u64),
    /// A global variable record (VAR or CONSTANT) began this global.
    Global(GlobalId),
    /// COMPOUND record: the current global's next `n` initializers form a list.
    Compound(u64),
    /// The `index`th initializer of `global` was read.
    Initializer { global: GlobalId, index: usize },
    /// A module-level value symbol table entry named this function/global.
    ModuleName(ValueId),
    /// A function block began; its body is `Decoder::function()`.
    FunctionBegin(FuncId),
    /// DECLAREBLOCKS: `blocks N;`.
    DeclareBlocks(u32),
    /// Constants SETTYPE record: the following constants have this type.
    ConstType(ValType),
    /// The `index`th constant of the current function was defined.
    Const(u32),
    /// An instruction was appended to the current function.
    Inst(InstId),
    /// A forward type declaration (index into `Function::forward_types`).
    ForwardType(usize),
    /// A function-level symbol table entry named a value (index into
    /// `Function::value_names`).
    ValueName(usize),
    /// A function-level symbol table entry named a block (index into
    /// `Function::block_names`).
    BlockName(usize),
    /// The function block closed: the finished body of this function is
    /// `Decoder::finished_body()` until the next one begins.
    FunctionEnd(FuncId),
    /// The module block closed; `Decoder::finish` gives the module.
    ModuleEnd,
}

/// What [`Decoder::record_run`] did.
#[derive(Default)]
pub(crate) struct RecordRun {
    /// A module-level record was among the records.
    pub module_changed: bool,
    /// The parser's fast path turned the next item away (so
    /// `Parser::next_event_careful` reads it); false when no run was tried.
    pub fast_declined: bool,
    /// The run ended at a function block's END_BLOCK and read it, as
    /// [`Decoded::FunctionEnd`] would: the finished body is
    /// [`Decoder::finished_body`].
    pub body_end: bool,
    /// The run read the ENTER_SUBBLOCK of a function block and began its
    /// body ([`Decoded::FunctionBegin`] without the event): the block's
    /// bits, from its ENTER_SUBBLOCK to its end.
    pub body_begin: Option<u64>,
}

/// The push decoder. See the module docs.
pub struct Decoder {
    pub(crate) state: module::ModuleState,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    pub fn new() -> Self {
        Decoder { state: module::ModuleState::new() }
    }

    /// Processes the next event of the file.
    #[inline]
    pub fn event(&mut self, event: &Event) -> Result<Decoded, DecodeError> {
        self.state.event(event)
    }

    /// The module as decoded so far.
    pub fn module(&self) -> &Module {
        self.state.module()
    }

    /// The body being decoded, between `FunctionBegin` and `FunctionEnd`.
    /// Its last block's `end` is set once the block's terminator is read
    /// (or the body ends), not with each instruction.
    pub fn function(&self) -> Option<&Function> {
        self.state.function()
    }

    /// The type of value `v` as the decoder knows it now (including values
    /// only declared by a forward type reference so far).
    pub fn value_type(&self, v: ValueId) -> Option<ValType> {
        self.state.value_type(v)
    }

    /// The basic block the next instruction of the current body goes into.
    pub fn current_block(&self) -> Option<BlockId> {
        self.state.current_block()
    }

    /// [`Decoder::event`] for a record, given field by field.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    // Not forced in the package: the copies cost its size budget.
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub(crate) fn record_event(&mut self, pos: crate::BitPos, code: u32, ops: &[u64]) -> Result<Decoded, DecodeError> {
        self.state.record_event(pos, code, ops)
    }

    /// Decodes the run of records that follows in a function, constants
    /// or globals block straight from `parser` (whole input), stopping
    /// before the first item that needs an [`Event`].
    #[inline(always)]
    pub(crate) fn record_run(&mut self, parser: &mut Parser) -> Result<RecordRun, DecodeError> {
        self.state.record_run(parser)
    }

    /// The body whose block closed last ([`Decoded::FunctionEnd`]), until
    /// the next one begins: it stays in the decoder, which reuses its
    /// buffers for the next body.
    pub fn finished_body(&self) -> &Function {
        self.state.finished_body()
    }

    /// The types of the values of [`Decoder::finished_body`] (parameters,
    /// constants, then results, by value id), until the next body begins:
    /// what the verifier numbers them from.
    pub(crate) fn last_body_types(&self) -> &[ValType] {
        self.state.last_body_types()
    }

    /// The module as decoded so far ([`Decoder::module`]), moved out rather
    /// than cloned: what a reader that stops early (at the first function
    /// block, say) keeps.
    pub fn into_module(self) -> Module {
        self.state.into_module()
    }

    /// The finished module; an error if the module block never closed.
    pub fn finish(self) -> Result<Module, DecodeError> {
        self.state.finish()
    }
}

/// Decodes a whole pexe, calling `on_function` with each body as soon as it
/// is complete (bodies are not kept).
pub fn decode_with(
    bytes: &[u8],
    mut on_function: impl FnMut(&Module, Function) -> Result<(), DecodeError>,
) -> Result<Module, DecodeError> {
    let mut parser = Parser::new(bytes);
    let mut decoder = Decoder::new();
    while let Some(decoded) = next_decoded(&mut parser, &mut decoder)? {
        if let Decoded::FunctionEnd(_) = decoded {
            let f = decoder.state.take_finished_body();
            on_function(decoder.module(), f)?;
        }
    }
    decoder.finish()
}

/// Reads the next event of a whole file into the decoder; `None` at the end.
#[inline(always)]
fn next_decoded(parser: &mut Parser, decoder: &mut Decoder) -> Result<Option<Decoded>, DecodeError> {
    match parser.next_event() {
        // Records go in field by field: moving the whole event first would
        // copy it with loads wider than the stores that wrote it.
        Ok(Event::Record { pos, code, ops, .. }) => decoder.state.record_event(pos, code, ops).map(Some),
        Ok(Event::End) => Ok(None),
        Ok(event) => decoder.event(&event).map(Some),
        Err(e) => Err(DecodeError::from_bitstream(e)),
    }
}

/// Decodes a whole pexe, keeping every body.
pub fn decode(bytes: &[u8]) -> Result<(Module, Vec<Function>), DecodeError> {
    let mut functions = Vec::new();
    let module = decode_with(bytes, |_, f| {
        functions.push(f);
        Ok(())
    })?;
    Ok((module, functions))
}
