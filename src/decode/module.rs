//! Module-level decoding state (implementation in progress).
use super::{Decoded, DecodeError};
use crate::bitstream::Event;
use crate::ir::{BlockId, Function, Module, ValType, ValueId};

pub(crate) struct ModuleState {
    module: Module,
}

impl ModuleState {
    pub fn new() -> Self {
        ModuleState { module: Module::default() }
    }
    pub fn event(&mut self, _event: &Event) -> Result<Decoded, DecodeError> {
        todo!()
    }
    pub fn module(&self) -> &Module {
        &self.module
    }
    pub fn function(&self) -> Option<&Function> {
        todo!()
    }
    pub fn value_type(&self, _v: ValueId) -> Option<ValType> {
        todo!()
    }
    pub fn current_block(&self) -> Option<BlockId> {
        todo!()
    }
    pub fn finish(self) -> Result<Module, DecodeError> {
        todo!()
    }
}
