//! Assembler (in progress).
