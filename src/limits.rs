//! Every resource cap, named once: those the decoder enforces, the npm
//! package's (the Workers it starts) and `pexe run`'s (its translation cache).
//!
//! Counts inside a pexe are untrusted: a record may claim a million types or a
//! ten-gigabyte array. Each reader checks such counts against these caps (or
//! against the bits still unread) before it allocates, so memory stays a small
//! multiple of the input size whatever the input says.

/// Deepest block nesting accepted (module > function > constants is 3 deep).
pub const MAX_BLOCK_DEPTH: usize = 16;
/// Operands in one abbreviation definition.
pub const MAX_ABBREV_OPS: usize = 64;
/// Abbreviations defined for one block (local plus BLOCKINFO ones).
pub const MAX_ABBREVS_PER_BLOCK: usize = 1 << 12;
/// Elements of an array whose element encoding takes zero bits (a literal or
/// `fixed(0)`): such arrays cost nothing to claim, so they get a small cap.
pub const MAX_ZERO_WIDTH_ARRAY: u64 = 1 << 10;
/// Distinct block ids that BLOCKINFO defines abbreviations for (real pexes
/// use four; PNaCl has seven block kinds).
pub const MAX_BLOCKINFO_TARGETS: usize = 32;
/// Width of a fixed or VBR abbreviation operand, in bits.
pub const MAX_ABBREV_WIDTH: u32 = 32;
/// Width of an abbreviation index, in bits (the enter-block `B` value).
pub const MAX_ABBREV_ID_WIDTH: u32 = 32;
/// Entries in the types block.
pub const MAX_TYPES: u64 = 1 << 20;
/// Parameters of one function type.
pub const MAX_PARAMS: usize = 1 << 12;
/// Global variables in the globals block.
pub const MAX_GLOBALS: u64 = 1 << 24;
/// Instructions room is made for when a body begins (from its bits: see
/// `decode::function::BITS_PER_INST_HINT`): a hint, not a limit, so a
/// block length claiming more than the input holds reserves at most this.
pub const MAX_RESERVED_INSTS: u64 = 1 << 16;
/// Room made at once for function declarations (no record says how many;
/// capped also by the module's bits left) and for global variables (the
/// globals block's COUNT, capped also by the bits left to hold them): past
/// it they grow as they arrive. Hints, not limits: a few hundred KB at
/// most, whatever a count claims.
pub const MAX_RESERVED_FUNCTIONS: u64 = 1 << 12;
pub const MAX_RESERVED_GLOBALS: u64 = 1 << 12;
/// Basic blocks declared by one function.
pub const MAX_BASIC_BLOCKS: u64 = 1 << 24;
/// Bytes of one global variable's zero-fill initializer (the guest address
/// space is 32-bit, so nothing larger can be laid out).
pub const MAX_ZEROFILL: u64 = 1 << 32;
/// Bytes of all global variables' DATA initializers together: they share
/// one buffer, indexed by 32-bit offsets (and the guest address space is
/// 32-bit, so no more can be laid out).
pub const MAX_GLOBAL_DATA: u64 = u32::MAX as u64;
/// Cases of one switch instruction.
pub const MAX_SWITCH_CASES: u64 = 1 << 20;
/// Workers the npm package starts to translate one pexe (its
/// `translateStreaming` `threads` option, whose default is the machine's
/// hardware concurrency): each holds an instance of the translator with its
/// own memory.
pub const MAX_TRANSLATE_WORKERS: usize = 8;
/// Modules `pexe run` keeps in its translation cache, and their bytes in
/// all: beyond either, the least recently used go (translated again if run).
pub const MAX_CACHED_TRANSLATIONS: usize = 64;
pub const MAX_TRANSLATION_CACHE_BYTES: u64 = 256 << 20;
