//! One function block on its own: a body decoded apart from the rest of the
//! file, given the module it belongs to.
//!
//! Function blocks depend only on the module block before them (types,
//! declarations, the number of globals) and on the BLOCKINFO abbreviations,
//! so once those are known each body can be decoded anywhere: on another
//! thread, or in another Worker that was handed the body's bytes. The
//! answers are those of the whole-file [`super::Decoder`] for the same
//! block (the same IR, the same errors at the same positions).

use super::function::{BodyItem, FunctionState};
use super::DecodeError;
use crate::bitstream::{Event, Parser, CONSTANTS_BLOCK_ID, FUNCTION_BLOCK_ID, VALUE_SYMTAB_BLOCK_ID};
use crate::ir::{FuncId, Function, Module, ValType};
use crate::BitPos;

/// Decodes function blocks one at a time, each into the buffers of the
/// one before.
#[derive(Default)]
pub struct BodyDecoder {
    stack: Vec<u32>,
    body: FunctionState,
}

impl BodyDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes the body of function `id` of `module` from `parser`, which
    /// must be positioned just inside its function block (see
    /// [`Parser::resume_block`]); `enter` is the position of the block's
    /// ENTER_SUBBLOCK and `end` where its length word says it ends. The
    /// body is then [`BodyDecoder::body`].
    pub fn decode(
        &mut self,
        module: &Module,
        id: FuncId,
        enter: BitPos,
        end: BitPos,
        parser: &mut Parser<'_>,
    ) -> Result<(), DecodeError> {
        if module.functions.get(id.0 as usize).map_or(true, |d| d.is_proto) {
            return Err(DecodeError::new(enter, format!("@f{} is not a function with a body", id.0)));
        }
        let body = &mut self.body;
        body.begin(module, id, enter, end);
        self.stack.clear();
        self.stack.push(FUNCTION_BLOCK_ID);
        let context = |e: DecodeError, stack: &[u32]| {
            let e = match stack.last() {
                Some(&b) => e.in_block(b),
                None => e,
            };
            let d = module.function(id);
            e.in_function(id.0, d.name.as_ref().map(|n| String::from_utf8_lossy(n).into_owned()))
        };
        loop {
            // Records of the function and constants blocks in a run, with
            // no `Event` each (see `Parser::fast_records`).
            // The constants block is entered and left inside the run, as
            // `ModuleState::record_run` does.
            let mut declined = false;
            while let Some(&block @ (FUNCTION_BLOCK_ID | CONSTANTS_BLOCK_ID)) = self.stack.last() {
                if let Err(e) = body.record_run(super::function::Env { module }, block, parser) {
                    return Err(context(e, &self.stack));
                }
                if block == FUNCTION_BLOCK_ID && parser.cross_block(CONSTANTS_BLOCK_ID, true) {
                    self.stack.push(CONSTANTS_BLOCK_ID);
                } else if block == CONSTANTS_BLOCK_ID && parser.cross_block(CONSTANTS_BLOCK_ID, false) {
                    self.stack.pop();
                } else {
                    declined = true;
                    break;
                }
            }
            let at = parser.pos();
            let event = if declined { parser.next_event_careful() } else { parser.next_event() };
            let event = match event {
                Ok(event) => event,
                Err(e) => return Err(DecodeError::from_bitstream(e)),
            };
            let env = super::function::Env { module };
            let done = match event {
                Event::Record { pos, code, ops, .. } => {
                    let r = match self.stack.last().copied() {
                        Some(FUNCTION_BLOCK_ID) => body.record(&env, pos, code, ops),
                        Some(CONSTANTS_BLOCK_ID) => body.constant(&env, pos, code, ops),
                        Some(VALUE_SYMTAB_BLOCK_ID) => body.symbol(pos, code, ops),
                        _ => Err(DecodeError::new(pos, "record outside the function block")),
                    };
                    r.map(|_: BodyItem| false)
                }
                Event::EnterBlock { pos, block_id, .. } => {
                    if self.stack.last() == Some(&FUNCTION_BLOCK_ID) && FunctionState::allows_block(block_id) {
                        self.stack.push(block_id);
                        Ok(false)
                    } else {
                        let parent = self.stack.last().copied().unwrap_or(FUNCTION_BLOCK_ID);
                        Err(DecodeError::new(
                            pos,
                            format!(
                                "unexpected {} block (id {block_id}) in {} block",
                                crate::bitstream::block_name(block_id),
                                crate::bitstream::block_name(parent)
                            ),
                        ))
                    }
                }
                Event::ExitBlock { .. } => {
                    self.stack.pop();
                    Ok(self.stack.is_empty())
                }
                Event::DefineAbbrev { .. } => Ok(false),
                Event::Header(_) | Event::End => Err(DecodeError::new(at, "the function block ended early")),
            };
            match done {
                Ok(true) => {
                    body.end();
                    return Ok(());
                }
                Ok(false) => {}
                Err(e) => return Err(context(e, &self.stack)),
            }
        }
    }

    /// The body [`BodyDecoder::decode`] decoded last (complete once it
    /// answered `Ok`), until the next one begins.
    pub fn body(&self) -> &Function {
        &self.body.func
    }

    /// The types of the values of [`BodyDecoder::body`] (parameters,
    /// constants, then results, by value id): what
    /// [`crate::verify::FunctionVerifier`] numbers them from (see
    /// [`crate::decode::Decoder::last_body_types`]).
    pub(crate) fn last_body_types(&self) -> &[ValType] {
        self.body.types()
    }
}
