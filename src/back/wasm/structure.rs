//! Control-flow structuring: any CFG → nested wasm `block`/`loop` constructs.
//!
//! WebAssembly has no `goto`: a function body is a tree of `block` (a branch
//! to it exits forward) and `loop` (a branch to it goes back to its start).
//! [`structure`] turns a function's basic blocks and edges into such a tree.
//! Reducible CFGs are placed by dominator-tree structuring (a loop header
//! becomes a `loop`; a block with several forward predecessors becomes the
//! code right after a `block` that those predecessors `br` out of; a block
//! with a single predecessor that it is dominated by is inlined at the
//! branch). Irreducible regions (loops with several entries, which real
//! compilers emit) are first made reducible by routing their entry edges
//! through a synthetic [`Node::Dispatch`] that selects the real entry from a
//! dispatch variable set on the way in.
//!
//! The output says, for every edge leaving every block, how control gets to
//! its target ([`Exit`]); the lowering emits the block's instructions, its
//! phi copies on each exit edge, and the branches.

/// A label of a `block` or `loop` in the output, unique within one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

/// A node of the structured tree, in execution order within its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// `block $label … end`: `br $label` continues after the `end`.
    Block { label: LabelId, body: Vec<Node> },
    /// `loop $label … end`: `br $label` goes back to the start of `body`.
    Loop { label: LabelId, body: Vec<Node> },
    /// Basic block `block` of the function: its instructions, then its
    /// terminator, whose successor edges (in the order of
    /// `InstKind::successors()`, one exit per successor, duplicates kept)
    /// leave as `exits` say. A block whose terminator has no successors
    /// (`ret`, `unreachable`) has no exits. Nothing follows a `Basic` node's
    /// exits in the same body except what a `br` may reach.
    Basic { block: u32, exits: Vec<Exit> },
    /// A synthetic dispatcher of an irreducible region: continues to
    /// `exits[k]` where `k` is the current value of dispatch variable `var`
    /// (an i32 local the lowering allocates; values `0..exits.len()`).
    Dispatch { var: u32, exits: Vec<Exit> },
}

/// How one CFG edge reaches its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The edge's original target block (its phis take their values on this
    /// edge). For exits of a `Dispatch`, the block the dispatcher selects;
    /// phi copies were already done on the way into the dispatcher.
    pub target: u32,
    /// Before leaving, set dispatch variable `.0` to `.1` (when the edge
    /// enters an irreducible region through its dispatcher).
    pub set_dispatch: Option<(u32, u32)>,
    pub how: ExitHow,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitHow {
    /// `br $label` to an enclosing `block` (forward) or `loop` (backward).
    Br(LabelId),
    /// Control continues into this code, placed right here (the target is
    /// reached only through this edge).
    Inline(Vec<Node>),
}

/// A structured function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    pub body: Vec<Node>,
    /// Labels used (`LabelId(0..num_labels)`).
    pub num_labels: u32,
    /// Dispatch variables used (`0..num_dispatch_vars`).
    pub num_dispatch_vars: u32,
}

/// Structures a CFG of `num_blocks` blocks whose entry is block 0;
/// `succs(b)` lists block `b`'s successors (in terminator order, duplicates
/// kept; every entry `< num_blocks`). Blocks unreachable from the entry are
/// left out of the output. Runs in near-linear time in blocks + edges, with
/// a bounded amount of work per irreducible region.
pub fn structure<'a>(num_blocks: usize, succs: impl Fn(u32) -> &'a [u32]) -> Structured {
    let _ = (num_blocks, succs);
    todo!("being written")
}
