//! Module-level decoding: block structure, types, declarations, globals,
//! the module symbol table, and handing records to the current body.

use super::function::{bytes_of, extend_bytes, Env, FunctionState};
use super::{DecodeError, Decoded, RecordRun};
use crate::bitstream::{
    Event, Parser, RecordSink, BLOCKINFO_BLOCK_ID, CONSTANTS_BLOCK_ID, FUNCTION_BLOCK_ID, GLOBALVAR_BLOCK_ID, MODULE_BLOCK_ID,
    TYPE_BLOCK_ID, VALUE_SYMTAB_BLOCK_ID,
};
use crate::ir::{
    data_range, BlockId, FuncId, FuncType, Function, FunctionDecl, GlobalId, GlobalVar, Initializer, Inits, Linkage, Module,
    Scalar, Type, TypeId, ValType, ValueId,
};
use crate::limits::{MAX_GLOBALS, MAX_GLOBAL_DATA, MAX_PARAMS, MAX_RESERVED_FUNCTIONS, MAX_RESERVED_GLOBALS, MAX_TYPES, MAX_ZEROFILL};
use crate::BitPos;
use std::sync::Arc;

type Res<T> = Result<T, DecodeError>;

/// Whether record runs cross a function block's ENTER_SUBBLOCK and
/// END_BLOCK themselves (natively): an event each cost about 400
/// instructions per body more. The package reads them as events (its size
/// budget).
const FAST_BODY_EDGES: bool = cfg!(not(target_arch = "wasm32"));

/// The parts of a compound initializer room is made for when its COMPOUND
/// record says how many (more grow as they arrive): a hint, not a limit.
const RESERVED_PARTS: u64 = 256;

/// `ModuleState::top` outside every block (no block has this id: only
/// known ones are entered).
const NO_BLOCK: u32 = u32::MAX;

/// The globals block being read.
#[derive(Default)]
struct GlobalsState {
    /// From the COUNT record.
    expected: Option<u64>,
    /// Initializers the current global still needs.
    pending_inits: u64,
    /// Whether the current global's next record may be COMPOUND.
    may_compound: bool,
    /// Where the globals block ends (room for the globals is made only as
    /// far as its bits can hold them).
    end: BitPos,
}

pub(crate) struct ModuleState {
    module: Module,
    /// Open block ids, outermost first.
    stack: Vec<u32>,
    /// The innermost of them (`NO_BLOCK` if none): what every record is
    /// dispatched on, kept apart so it is one load.
    top: u32,
    /// Types block COUNT record.
    type_count: Option<u64>,
    globals: GlobalsState,
    /// Defined functions (in declaration order) still waiting for a body.
    next_body: usize,
    bodies: Vec<FuncId>,
    /// The body being decoded (when `in_body`), else the last finished
    /// one; in place for the whole run.
    body: FunctionState,
    in_body: bool,
    done: bool,
    seen: Seen,
    /// Where the module block ends (room for the function declarations is
    /// made only as far as its bits can hold them).
    module_end: BitPos,
}

/// Which once-only module parts have been read.
#[derive(Default)]
struct Seen {
    version: bool,
    types: bool,
    globals: bool,
}

impl ModuleState {
    pub fn new() -> Self {
        ModuleState {
            module: Module::default(),
            stack: Vec::new(),
            top: NO_BLOCK,
            type_count: None,
            globals: GlobalsState::default(),
            next_body: 0,
            bodies: Vec::new(),
            body: FunctionState::default(),
            in_body: false,
            done: false,
            seen: Seen::default(),
            module_end: BitPos(0),
        }
    }

    fn pop_block(&mut self) {
        self.stack.pop();
        self.top = self.stack.last().copied().unwrap_or(NO_BLOCK);
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    pub fn function(&self) -> Option<&Function> {
        self.in_body.then_some(&self.body.func)
    }

    pub fn value_type(&self, v: ValueId) -> Option<ValType> {
        if self.in_body {
            self.body.value_type(v.0)
        } else {
            (v.0 < self.module.num_global_values()).then_some(ValType::I32)
        }
    }

    pub fn current_block(&self) -> Option<BlockId> {
        if self.in_body {
            self.body.current_block()
        } else {
            None
        }
    }

    /// See [`crate::decode::Decoder::finished_body`].
    pub fn finished_body(&self) -> &Function {
        &self.body.func
    }

    /// Moves the last finished body out (its buffers with it).
    pub fn take_finished_body(&mut self) -> Function {
        std::mem::take(&mut self.body.func)
    }

    /// See [`crate::decode::Decoder::last_body_types`].
    pub fn last_body_types(&self) -> &[ValType] {
        self.body.types()
    }

    /// The module as decoded so far, whether or not its block closed.
    pub fn into_module(self) -> Module {
        self.module
    }

    pub fn finish(self) -> Result<Module, DecodeError> {
        if !self.done {
            return Err(DecodeError::new(BitPos(0), "the module block never closed"));
        }
        Ok(self.module)
    }

    /// Adds the innermost block and the function being read to an error.
    #[cold]
    #[inline(never)]
    fn context(&self, e: DecodeError) -> DecodeError {
        let e = match self.stack.last() {
            Some(&b) => e.in_block(b),
            None => e,
        };
        if self.in_body {
            let id = self.body.func.id;
            let d = self.module.function(id);
            e.in_function(id.0, d.name.as_ref().map(|n| String::from_utf8_lossy(n).into_owned()))
        } else {
            e
        }
    }

    #[inline]
    pub fn event(&mut self, event: &Event) -> Res<Decoded> {
        match self.event_inner(event) {
            Ok(d) => Ok(d),
            Err(e) => Err(self.context(e)),
        }
    }

    /// `event` for a record.
    #[inline(always)]
    pub fn record_event(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<Decoded> {
        match self.record(pos, code, ops) {
            Ok(d) => Ok(d),
            Err(e) => Err(self.context(e)),
        }
    }

    /// Decodes the records `parser` reads on its fast path from here on,
    /// while they lie in a function, constants or globals block: one loop
    /// with no `Event` and no dispatch on the block per record (the block
    /// cannot change before a record the fast path turns away). A body's
    /// constants block is entered and left inside the run (an event each
    /// would cost more than the block's few records).
    #[inline(always)]
    pub fn record_run(&mut self, parser: &mut Parser) -> Res<RecordRun> {
        match self.top {
            FUNCTION_BLOCK_ID | CONSTANTS_BLOCK_ID => {
                loop {
                    if !self.in_body {
                        return Ok(RecordRun::default());
                    }
                    if let Err(e) = self.body.record_run(Env { module: &self.module }, self.top, parser) {
                        return Err(self.context(e));
                    }
                    // What `enter` and `exit` do for this block; the parser
                    // checks the items as `next_event` would.
                    if self.top == FUNCTION_BLOCK_ID && parser.cross_block(CONSTANTS_BLOCK_ID, true) {
                        debug_assert!(FunctionState::allows_block(CONSTANTS_BLOCK_ID));
                        self.stack.push(CONSTANTS_BLOCK_ID);
                        self.top = CONSTANTS_BLOCK_ID;
                    } else if self.top == CONSTANTS_BLOCK_ID && parser.cross_block(CONSTANTS_BLOCK_ID, false) {
                        self.pop_block();
                    } else if FAST_BODY_EDGES && self.top == FUNCTION_BLOCK_ID {
                        return Ok(self.leave_body(parser));
                    } else {
                        return Ok(RecordRun { fast_declined: true, ..RecordRun::default() });
                    }
                }
            }
            // After the first body the module block holds little but
            // function blocks: the next one is entered here, by `enter`
            // itself, with no event (its checks and errors unchanged).
            MODULE_BLOCK_ID if FAST_BODY_EDGES && self.next_body > 0 => self.enter_body(parser),
            // The globals, and before the first body the module block's
            // own records (a FUNCTION declaration each: thousands in a
            // large pexe; after it, a run would only stop at each function
            // block) in one run, not an event each.
            MODULE_BLOCK_ID | GLOBALVAR_BLOCK_ID if self.top == GLOBALVAR_BLOCK_ID || self.next_body == 0 => {
                let mut records = ModuleRecords { state: self, any: false };
                let r = parser.fast_records(&mut records);
                let any = records.any;
                r.map(|()| RecordRun { module_changed: any, fast_declined: true, ..RecordRun::default() }).map_err(|e| self.context(e))
            }
            _ => Ok(RecordRun::default()),
        }
    }

    /// Where a body's record run stopped: its END_BLOCK read as `exit`
    /// would take it, with no event; any other item is left to
    /// `next_event_careful`. Out of line: inlined, it cost the record loop
    /// around it more than the event it saves.
    #[inline(never)]
    fn leave_body(&mut self, parser: &mut Parser) -> RecordRun {
        if !parser.cross_block(FUNCTION_BLOCK_ID, false) {
            return RecordRun { fast_declined: true, ..RecordRun::default() };
        }
        debug_assert!(self.in_body, "function block open");
        self.in_body = false;
        self.body.end();
        self.pop_block();
        RecordRun { body_end: true, ..RecordRun::default() }
    }

    /// In the module block: a function block's ENTER_SUBBLOCK read and
    /// its body begun by `enter`, with no event; any other item is left
    /// to `next_event`.
    #[inline(never)]
    fn enter_body(&mut self, parser: &mut Parser) -> Res<RecordRun> {
        if !parser.cross_block(FUNCTION_BLOCK_ID, true) {
            return Ok(RecordRun::default());
        }
        let (pos, end) = parser.entered_block();
        if let Err(e) = self.enter(pos, FUNCTION_BLOCK_ID, end) {
            return Err(self.context(e));
        }
        // The body's first record (DECLAREBLOCKS, in the bodies the
        // toolchain writes) and the constants block's ENTER_SUBBLOCK after
        // it are read here too: a record run for that one record, ended at
        // once by the block, cost more to set up than the record.
        if let Some((pos, code, ops)) = parser.fast_record() {
            if let Err(e) = self.body.record(&Env { module: &self.module }, pos, code, ops) {
                return Err(self.context(e));
            }
            if parser.cross_block(CONSTANTS_BLOCK_ID, true) {
                debug_assert!(FunctionState::allows_block(CONSTANTS_BLOCK_ID));
                self.stack.push(CONSTANTS_BLOCK_ID);
                self.top = CONSTANTS_BLOCK_ID;
            }
        }
        Ok(RecordRun { body_begin: Some(end.0.saturating_sub(pos.0)), ..RecordRun::default() })
    }

    #[inline]
    fn event_inner(&mut self, event: &Event) -> Res<Decoded> {
        match *event {
            Event::Header(_) | Event::End => Ok(Decoded::Other),
            Event::DefineAbbrev { .. } => Ok(Decoded::Other),
            Event::EnterBlock { pos, block_id, end, .. } => self.enter(pos, block_id, end),
            Event::ExitBlock { pos, block_id } => self.exit(pos, block_id),
            Event::Record { pos, code, ops, .. } => self.record(pos, code, ops),
        }
    }

    #[inline(never)]
    fn enter(&mut self, pos: BitPos, id: u32, end: BitPos) -> Res<Decoded> {
        let parent = self.stack.last().copied();
        let allowed = match parent {
            None => id == MODULE_BLOCK_ID && !self.done,
            Some(MODULE_BLOCK_ID) => match id {
                BLOCKINFO_BLOCK_ID | VALUE_SYMTAB_BLOCK_ID | FUNCTION_BLOCK_ID => true,
                TYPE_BLOCK_ID => !std::mem::replace(&mut self.seen.types, true),
                GLOBALVAR_BLOCK_ID => !std::mem::replace(&mut self.seen.globals, true),
                _ => false,
            },
            Some(FUNCTION_BLOCK_ID) => FunctionState::allows_block(id),
            Some(_) => false,
        };
        if !allowed {
            let what = match parent {
                Some(p) => format!("{} block", crate::bitstream::block_name(p)),
                None => "top level".into(),
            };
            return Err(DecodeError::new(pos, format!("unexpected {} block (id {id}) in {what}", crate::bitstream::block_name(id))));
        }
        self.stack.push(id);
        self.top = id;
        match id {
            MODULE_BLOCK_ID => self.module_end = end,
            GLOBALVAR_BLOCK_ID => self.globals.end = end,
            _ => {}
        }
        if id == FUNCTION_BLOCK_ID {
            if self.bodies.is_empty() && self.next_body == 0 {
                self.bodies = self.module.defined_functions().collect();
            }
            let Some(&fid) = self.bodies.get(self.next_body) else {
                return Err(DecodeError::new(pos, "function block without a defined function address to implement"));
            };
            self.next_body += 1;
            self.body.begin(&self.module, fid, pos, end);
            self.in_body = true;
            return Ok(Decoded::FunctionBegin(fid));
        }
        Ok(Decoded::EnterBlock(id))
    }

    #[inline(never)]
    fn exit(&mut self, pos: BitPos, id: u32) -> Res<Decoded> {
        match id {
            TYPE_BLOCK_ID => {
                let n = self.module.types.len() as u64;
                match self.type_count {
                    Some(c) if c == n => {}
                    Some(c) => return Err(DecodeError::new(pos, format!("types block declares {c} types but defines {n}"))),
                    None if n == 0 => {}
                    None => return Err(DecodeError::new(pos, "types block without a count record")),
                }
            }
            GLOBALVAR_BLOCK_ID => self.finish_globals(pos)?,
            FUNCTION_BLOCK_ID => {
                debug_assert!(self.in_body, "function block open");
                self.in_body = false;
                self.body.end();
                self.pop_block();
                return Ok(Decoded::FunctionEnd(self.body.func.id));
            }
            MODULE_BLOCK_ID => {
                self.pop_block();
                self.done = true;
                if self.bodies.is_empty() && self.next_body == 0 {
                    self.bodies = self.module.defined_functions().collect();
                }
                if self.next_body < self.bodies.len() {
                    let f = self.bodies[self.next_body];
                    return Err(DecodeError::new(
                        pos,
                        format!("function @f{} is declared as defined but has no function block", f.0),
                    ));
                }
                return Ok(Decoded::ModuleEnd);
            }
            _ => {}
        }
        self.pop_block();
        Ok(Decoded::ExitBlock(id))
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    // Not forced in the package: the copies cost its size budget.
    #[cfg_attr(target_arch = "wasm32", inline)]
    fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<Decoded> {
        let block = self.top;
        if block == NO_BLOCK {
            return Err(DecodeError::new(pos, "record outside any block"));
        }
        match block {
            BLOCKINFO_BLOCK_ID => Ok(Decoded::Other),
            MODULE_BLOCK_ID => self.module_record(pos, code, ops),
            TYPE_BLOCK_ID => self.type_record(pos, code, ops),
            GLOBALVAR_BLOCK_ID => self.global_record(pos, code, ops),
            VALUE_SYMTAB_BLOCK_ID if !self.in_body => self.module_symbol(pos, code, ops),
            VALUE_SYMTAB_BLOCK_ID => self.body.symbol(pos, code, ops).map(Decoded::from),
            FUNCTION_BLOCK_ID | CONSTANTS_BLOCK_ID => {
                assert!(self.in_body, "inside a function block");
                let body = &mut self.body;
                let env = Env { module: &self.module };
                if block == FUNCTION_BLOCK_ID {
                    body.record(&env, pos, code, ops).map(Decoded::from)
                } else {
                    body.constant(&env, pos, code, ops).map(Decoded::from)
                }
            }
            _ => unreachable!("only known blocks are entered"),
        }
    }

    fn module_record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<Decoded> {
        match code {
            1 => {
                let [v] = *ops else { return Err(DecodeError::new(pos, "malformed version record")) };
                if std::mem::replace(&mut self.seen.version, true) {
                    return Err(DecodeError::new(pos, "version record appears twice"));
                }
                if v != 1 {
                    return Err(DecodeError::new(pos, format!("unsupported module version {v} (only 1 is defined)")));
                }
                self.module.version = v;
                Ok(Decoded::Version(v))
            }
            8 => {
                let [ty, cc, is_proto, linkage] = *ops else {
                    return Err(DecodeError::new(pos, format!("malformed function address record: {ops:?}")));
                };
                if self.seen.globals {
                    return Err(DecodeError::new(pos, "function address after the globals block"));
                }
                let sig = match self.module.types.get(ty as usize) {
                    Some(Type::Function(f)) => f.clone(),
                    Some(t) => return Err(DecodeError::new(pos, format!("function address of type @t{ty} ({t}), not a function type"))),
                    None => return Err(DecodeError::new(pos, format!("function address of undefined type @t{ty}"))),
                };
                if is_proto > 1 {
                    return Err(DecodeError::new(pos, format!("invalid prototype flag {is_proto}")));
                }
                if self.module.functions.capacity() == 0 {
                    // No record says how many: room for as many as the module's
                    // bits could hold (a record takes two bits at least), capped.
                    let room = (self.module_end.0.saturating_sub(pos.0) / 2).min(MAX_RESERVED_FUNCTIONS);
                    self.module.functions.reserve_exact(room as usize);
                }
                self.module.functions.push(FunctionDecl {
                    ty: TypeId(ty as u32),
                    sig,
                    cc,
                    is_proto: is_proto == 1,
                    linkage: Linkage::from_code(linkage),
                    name: None,
                    pos,
                });
                Ok(Decoded::FunctionDecl(FuncId(self.module.functions.len() as u32 - 1)))
            }
            other => Err(DecodeError::new(pos, format!("unknown module record code {other}"))),
        }
    }

    fn type_record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<Decoded> {
        let bad = || DecodeError::new(pos, format!("malformed type record (code {code}): {ops:?}"));
        if code == 1 {
            let [n] = *ops else { return Err(bad()) };
            if self.type_count.is_some() {
                return Err(DecodeError::new(pos, "types count appears twice"));
            }
            if n > MAX_TYPES {
                return Err(DecodeError::new(pos, format!("{n} types are more than the limit of {MAX_TYPES}")));
            }
            self.type_count = Some(n);
            return Ok(Decoded::TypeCount(n));
        }
        if self.type_count.is_some_and(|n| self.module.types.len() as u64 >= n) {
            return Err(DecodeError::new(pos, "more types than the count record declared"));
        }
        let types = &self.module.types;
        let value_type = |id: u64| -> Res<ValType> {
            match types.get(id as usize) {
                Some(Type::Value(v)) => Ok(*v),
                Some(t) => Err(DecodeError::new(pos, format!("type @t{id} ({t}) cannot be used here"))),
                None => Err(DecodeError::new(pos, format!("type @t{id} is used before it is defined"))),
            }
        };
        let ty = match (code, ops) {
            (2, []) => Type::Void,
            (3, []) => Type::Value(ValType::F32),
            (4, []) => Type::Value(ValType::F64),
            (7, &[w]) => match Scalar::int(w) {
                Some(s) => Type::Value(ValType::Scalar(s)),
                None => return Err(DecodeError::new(pos, format!("integer type i{w} is not allowed (only i1, i8, i16, i32, i64)"))),
            },
            (12, &[lanes, elem]) => {
                let elem = match value_type(elem)? {
                    ValType::Scalar(s) => s,
                    v => return Err(DecodeError::new(pos, format!("vector of {v}"))),
                };
                if !(1..=256).contains(&lanes) {
                    return Err(DecodeError::new(pos, format!("vector of {lanes} elements")));
                }
                Type::Value(ValType::Vector { elem, lanes: lanes as u32 })
            }
            (21, [varargs, ret, params @ ..]) => {
                if *varargs > 1 {
                    return Err(bad());
                }
                if params.len() > MAX_PARAMS {
                    return Err(DecodeError::new(pos, format!("{} parameters are more than the limit", params.len())));
                }
                let ret = match types.get(*ret as usize) {
                    Some(Type::Void) => None,
                    _ => Some(value_type(*ret)?),
                };
                let params = params.iter().map(|&p| value_type(p)).collect::<Res<Vec<_>>>()?;
                Type::Function(Arc::new(FuncType { ret, params, varargs: *varargs == 1 }))
            }
            (2..=4 | 7 | 12 | 21, _) => return Err(bad()),
            (other, _) => return Err(DecodeError::new(pos, format!("unknown type record code {other}"))),
        };
        self.module.types.push(ty);
        Ok(Decoded::Type(TypeId(self.module.types.len() as u32 - 1)))
    }

    fn global_record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<Decoded> {
        self.global_record_with(pos, code, ops, None)
    }

    /// `global_record`; with `data`, a DATA record whose values are
    /// `data` (then `ops` is empty), read as bytes. One copy for both
    /// in the package (its size budget).
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn global_record_with(&mut self, pos: BitPos, code: u32, ops: &[u64], data: Option<&[u8]>) -> Res<Decoded> {
        let bad = || DecodeError::new(pos, format!("malformed globals record (code {code}): {ops:?}"));
        let g = &mut self.globals;
        if code == 5 {
            let [n] = *ops else { return Err(bad()) };
            if g.expected.is_some() || !self.module.globals.is_empty() {
                return Err(DecodeError::new(pos, "globals count must come first, once"));
            }
            if n > MAX_GLOBALS {
                return Err(DecodeError::new(pos, format!("{n} globals are more than the limit of {MAX_GLOBALS}")));
            }
            g.expected = Some(n);
            // Each global takes two records at least (its own and an
            // initializer), of two bits at least (the abbreviation id).
            let room = n.min(g.end.0.saturating_sub(pos.0) / 4).min(MAX_RESERVED_GLOBALS);
            self.module.globals.reserve_exact(room as usize);
            return Ok(Decoded::GlobalCount(n));
        }
        let expected = g.expected.ok_or_else(|| DecodeError::new(pos, "globals record before the count record"))?;
        match code {
            0 => {
                let (align, is_const) = match *ops {
                    [a] => (a, 0),
                    [a, c] => (a, c),
                    _ => return Err(bad()),
                };
                if g.pending_inits > 0 {
                    return Err(DecodeError::new(pos, "global variable before the previous one's initializers"));
                }
                if self.module.globals.len() as u64 >= expected {
                    return Err(DecodeError::new(pos, format!("more global variables than the {expected} declared")));
                }
                let align = match align {
                    0 => 0,
                    1..=30 => 1u32 << (align - 1),
                    _ => return Err(DecodeError::new(pos, format!("alignment exponent {align} is out of range"))),
                };
                if is_const > 1 {
                    return Err(bad());
                }
                g.pending_inits = 1;
                g.may_compound = true;
                self.module.globals.push(GlobalVar {
                    align,
                    is_const: is_const == 1,
                    compound: false,
                    init: Inits::default(),
                    name: None,
                    pos,
                });
                Ok(Decoded::Global(GlobalId(self.module.globals.len() as u32 - 1)))
            }
            1 => {
                let [n] = *ops else { return Err(bad()) };
                if !g.may_compound {
                    return Err(DecodeError::new(pos, "compound initializer must directly follow its global variable"));
                }
                // Every initializer takes at least a record; the count is checked
                // as they arrive, never allocated up front beyond a few.
                g.may_compound = false;
                g.pending_inits = n;
                let var = self.module.globals.last_mut().expect("a global is open");
                var.compound = true;
                if n >= 2 {
                    var.init = Inits::Many(Vec::with_capacity(n.min(RESERVED_PARTS) as usize));
                }
                Ok(Decoded::Compound(n))
            }
            2..=4 => {
                if g.pending_inits == 0 {
                    return Err(DecodeError::new(pos, "initializer without a global variable expecting one"));
                }
                let init = match (code, ops) {
                    (2, &[n]) => {
                        if n > MAX_ZEROFILL {
                            return Err(DecodeError::new(pos, format!("zerofill of {n} bytes is larger than the 32-bit address space")));
                        }
                        Initializer::ZeroFill(n)
                    }
                    (3, values) => {
                        // Into the module's one buffer: it grows with the
                        // bytes read, no allocation per initializer.
                        let all = &mut self.module.data;
                        let start = all.len();
                        match data {
                            Some(data) => all.extend_from_slice(data),
                            None => extend_bytes(all, values, pos, "data value")?,
                        }
                        if all.len() as u64 > MAX_GLOBAL_DATA {
                            return Err(DecodeError::new(pos, format!("global data of more than {MAX_GLOBAL_DATA} bytes")));
                        }
                        Initializer::Data(data_range(start, all.len() - start))
                    }
                    (4, &[v]) => Initializer::Reloc { target: value_id(v, pos)?, addend: 0 },
                    (4, &[v, x]) => {
                        // The addend is written as a 32-bit two's complement value.
                        let x = u32::try_from(x).map_err(|_| DecodeError::new(pos, format!("relocation addend {x} is out of range")))?;
                        Initializer::Reloc { target: value_id(v, pos)?, addend: x as i32 as i64 }
                    }
                    _ => return Err(bad()),
                };
                g.pending_inits -= 1;
                g.may_compound = false;
                let global = GlobalId(self.module.globals.len() as u32 - 1);
                let var = self.module.globals.last_mut().expect("a global is open");
                if var.compound {
                    match &mut var.init {
                        // Room made at COMPOUND: straight in, no call.
                        Inits::Many(parts) if parts.capacity() > parts.len() => parts.push(init),
                        init_list => init_list.push(init),
                    }
                } else {
                    // The one part, held inline (no allocation).
                    var.init = Inits::One(init);
                }
                Ok(Decoded::Initializer { global, index: var.init.len() - 1 })
            }
            other => Err(DecodeError::new(pos, format!("unknown globals record code {other}"))),
        }
    }

    fn finish_globals(&mut self, pos: BitPos) -> Res<()> {
        let g = &self.globals;
        if g.pending_inits > 0 {
            return Err(DecodeError::new(pos, format!("the last global variable is missing {} initializers", g.pending_inits)));
        }
        let expected = g.expected.unwrap_or(0);
        let n = self.module.globals.len() as u64;
        if n != expected {
            return Err(DecodeError::new(pos, format!("globals block declares {expected} globals but defines {n}")));
        }
        Ok(())
    }

    fn module_symbol(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<Decoded> {
        let (1, [v, chars @ ..]) = (code, ops) else {
            return Err(DecodeError::new(pos, format!("malformed module value symbol table record (code {code})")));
        };
        let name = bytes_of(chars, pos, "name character")?;
        let id = value_id(*v, pos)?;
        if let Some(f) = self.module.func_of(id) {
            self.module.functions[f.0 as usize].name = Some(name);
        } else if let Some(g) = self.module.global_of(id) {
            self.module.globals[g.0 as usize].name = Some(name);
        } else {
            return Err(DecodeError::new(pos, format!("symbol for value id {v}, which is not a function or global")));
        }
        Ok(Decoded::ModuleName(id))
    }
}

/// The records of the module block (before the first body) and of the
/// globals block, as [`Parser::fast_records`] hands them over: one sink
/// for both, so one copy of the run in the package (its size budget).
struct ModuleRecords<'a> {
    state: &'a mut ModuleState,
    /// Whether any came.
    any: bool,
}

impl RecordSink for ModuleRecords<'_> {
    type Error = DecodeError;
    #[inline]
    fn record(&mut self, pos: BitPos, code: u32, ops: &[u64]) -> Res<()> {
        self.any = true;
        if self.state.top == GLOBALVAR_BLOCK_ID {
            self.state.global_record(pos, code, ops).map(drop)
        } else {
            self.state.module_record(pos, code, ops).map(drop)
        }
    }
    const BYTES: bool = true;
    #[inline]
    fn bytes_record(&mut self, pos: BitPos, code: u32, ops: &[u64], bytes: &[u8]) -> Res<()> {
        self.any = true;
        if self.state.top == GLOBALVAR_BLOCK_ID && code == 3 && ops.is_empty() {
            return self.state.global_record_with(pos, code, ops, Some(bytes)).map(drop);
        }
        // Any other record with a byte array: as values (no file seen has one).
        crate::bitstream::as_values(self, pos, code, ops, bytes)
    }
}

fn value_id(v: u64, pos: BitPos) -> Res<ValueId> {
    u32::try_from(v).map(ValueId).map_err(|_| DecodeError::new(pos, format!("value id {v} is out of range")))
}

#[cfg(test)]
mod tests {
    use crate::bitstream::{abbrev_ids::UNABBREV_RECORD, Event, Parser, Writer, MODULE_BLOCK_ID, STANDARD_HEADER, TYPE_BLOCK_ID};
    use crate::decode::Decoder;
    use crate::ir::Module;

    /// A module of random records: FUNCTION declarations of prototypes,
    /// and in half the modules one other record: a declaration of a type
    /// that is no function type or undefined, with a flag that may be
    /// bad, of too few values or of a defined function (which has no
    /// body here), or another code.
    fn random_module(next: &mut impl FnMut(u64) -> u64) -> Vec<u8> {
        let mut w = Writer::new(&STANDARD_HEADER);
        w.enter_block(MODULE_BLOCK_ID, 2).unwrap();
        w.record(UNABBREV_RECORD, &[1, 1]).unwrap();
        w.enter_block(TYPE_BLOCK_ID, 3).unwrap();
        // @t0 i32, @t1 void, @t2 i32(i32), @t3 void(), @t4 void(i32, i32).
        let types: [&[u64]; 5] = [&[7, 32], &[2], &[21, 0, 0, 0], &[21, 0, 1], &[21, 0, 1, 0, 0]];
        w.record(UNABBREV_RECORD, &[1, types.len() as u64]).unwrap();
        for t in types {
            w.record(UNABBREV_RECORD, t).unwrap();
        }
        w.exit_block().unwrap();
        let n = next(300);
        // Half the modules have one record that is not a prototype's
        // well-formed declaration, somewhere.
        let odd = if next(2) == 0 { next(n + 1) } else { u64::MAX };
        for k in 0..n {
            let record = match (k == odd).then(|| next(5)) {
                None => vec![8, 2 + next(3), next(2), 1, next(3)],
                Some(0) => vec![8, next(8), 0, 1, 0],
                Some(1) => vec![8, 2, 0, next(4), 0],
                Some(2) => vec![8, 3, 0, 1],
                Some(3) => vec![1 + next(12), 1],
                Some(_) => vec![8, 4, 0, 0, 0],
            };
            w.record(UNABBREV_RECORD, &record).unwrap();
        }
        w.exit_block().unwrap();
        w.finish().unwrap()
    }

    /// What decoding `bytes` answers: the module, or the error's text.
    fn decoded(bytes: &[u8], runs: bool) -> Result<Module, String> {
        let mut parser = Parser::new(bytes);
        let mut decoder = Decoder::new();
        loop {
            let declined = if runs { decoder.record_run(&mut parser).map_err(|e| e.to_string())?.fast_declined } else { false };
            let event = if declined { parser.next_event_careful() } else { parser.next_event() };
            match event.map_err(|e| e.to_string())? {
                Event::End => return decoder.finish().map_err(|e| e.to_string()),
                Event::Record { pos, code, ops, .. } => decoder.record_event(pos, code, ops).map(drop),
                event => decoder.event(&event).map(drop),
            }
            .map_err(|e| e.to_string())?;
        }
    }

    /// The module block's records read in a run (`record_run`) decode to
    /// the module, or the error, that an event each does.
    #[test]
    fn module_record_runs_agree_with_events() {
        let mut next = crate::test_rng(0x6d6f_6475_6c65);
        let (mut fine, mut refused) = (0, 0);
        for _ in 0..400 {
            let bytes = random_module(&mut next);
            let by_events = decoded(&bytes, false);
            assert_eq!(decoded(&bytes, true), by_events);
            match by_events {
                Ok(m) => fine += usize::from(!m.functions.is_empty()),
                Err(_) => refused += 1,
            }
        }
        assert!(fine > 100 && refused > 100, "{fine} modules decoded with functions, {refused} refused");
    }
}
