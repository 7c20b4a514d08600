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
//!
//! # Algorithm
//!
//! The placement follows Ramsey, "Beyond Relooper" (ICFP 2022), over the
//! reverse postorder (RPO) of the graph and its dominator tree, from the
//! crate's one dominator implementation (`crate::cfg`: Cooper–Harvey–Kennedy,
//! Lengauer–Tarjan with path compression for irreducible graphs, so huge
//! functions cost O(E log V) whatever their shape). For a body without
//! setjmp the graph is the body's basic blocks, whose orders and dominators
//! the verifier has computed already; they are reused:
//!
//! - a *loop header* (target of an edge from a node it dominates) gets a
//!   `loop` around its code and everything it dominates; the edges back to
//!   it are `br`s to that `loop`;
//! - a *merge node* (two or more forward in-edges, counting a switch's
//!   duplicate edges separately) follows a `block` opened by its immediate
//!   dominator; its forward in-edges are `br`s out of that `block`. Sibling
//!   `block`s nest so that the later one in RPO is outside: forward edges
//!   only go to later nodes, so every `br` is to an enclosing label;
//! - any other node is inlined at its single incoming edge.
//!
//! A node that leaves loops and dominates further code (the code after a
//! loop) goes after a `block` around the outermost `loop` it leaves instead
//! of inside it, so consecutive loops do not nest.
//!
//! # Irreducible control flow
//!
//! Irreducibility shows as a *bad* edge: a retreating edge whose target does
//! not dominate its source. The graph is then decomposed into nested
//! strongly connected components (Tarjan), the way a loop-nesting forest is
//! built: a component with one entry is a loop whose header is set aside
//! before looking for cycles inside it; a component with several entries
//! gets a dispatcher node that all edges to those entries (from outside and
//! inside) are redirected to, and the dispatcher becomes its header. One
//! pass handles nested irreducibility, with no node splitting. Only the
//! parts of the graph holding bad edges are decomposed (see
//! `make_reducible`), and a pass that would take more than a small multiple
//! of the graph's size gives up for the fallback below.
//!
//! All dispatchers share one dispatch variable (variable 0): it is set on
//! the edge into a dispatcher and read by that dispatcher at once, so a
//! value never needs to outlive a hop. A dispatcher's exit can itself lead
//! into an inner dispatcher (and then carries a `set_dispatch`).
//!
//! # Depth
//!
//! Consumers walk the tree (with explicit stacks), and its depth is kept
//! bounded whatever the CFG:
//! - once inlined code nests deeper than [`MAX_INLINE_DEPTH`], nodes that
//!   dominate further code go after `block`s at their dominator's depth
//!   instead of inline (a chain of 100 000 blocks stays shallow);
//! - when one node would open more than [`MAX_BLOCK_FANOUT`] `block`s
//!   (a switch with thousands of merging cases), those targets are reached
//!   through a dispatcher instead, which inlines them at its exits;
//! - if the tree would still nest deeper than [`MAX_TREE_DEPTH`] (random
//!   graphs, not compiled code), every edge goes through one dispatcher in
//!   front of all blocks: a `loop` around a dispatch, a handful deep. This
//!   also backs up the irreducibility pass when it gives up.
//!
//! # Shape of the output
//!
//! - Every block reachable from block 0 appears exactly once as a
//!   [`Node::Basic`]; unreachable blocks do not appear.
//! - A `Basic` or `Dispatch` node is always the last node of its body, and
//!   every body ends with a `Basic`, `Dispatch` or `Loop` (never a `Block`),
//!   so no body — `Inline` code and `loop` bodies included — runs off its
//!   end: control leaves by `br` or by a block without successors.
//! - Every `Br` names a `block` or `loop` that encloses the branch; each
//!   label is defined once and is the target of at least one `Br`.

use crate::cfg::Cfg as DomCfg;
use std::ops::Range;

/// A label of a `block` or `loop` in the output, unique within one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

/// A body: a run of the tree's nodes, read with [`Structured::nodes_of`].
/// Handles rather than nested vectors: a tree is two flat arrays, built
/// without an allocation per node and dropped without a walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Body {
    start: u32,
    end: u32,
}

impl Body {
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }
}

/// The exits of one node: a run of the tree's exits, read with
/// [`Structured::exits_of`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exits {
    start: u32,
    end: u32,
}

impl Exits {
    /// Exit `k` of the run, as a handle for [`Structured::exit`].
    pub fn at(self, k: usize) -> u32 {
        self.start + k as u32
    }

    /// Exits `from..to` of the run (clamped to it).
    pub fn sub(self, from: usize, to: usize) -> Exits {
        let end = (self.start + to as u32).min(self.end);
        Exits { start: (self.start + from as u32).min(end), end }
    }
}

/// A node of the structured tree, in execution order within its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// `block $label … end`: `br $label` continues after the `end`.
    Block { label: LabelId, body: Body },
    /// `loop $label … end`: `br $label` goes back to the start of `body`.
    Loop { label: LabelId, body: Body },
    /// Basic block `block` of the function: its instructions, then its
    /// terminator, whose successor edges (in the order of
    /// `InstKind::successors()`, one exit per successor, duplicates kept)
    /// leave as `exits` say. A block whose terminator has no successors
    /// (`ret`, `unreachable`) has no exits. Nothing follows a `Basic` node's
    /// exits in the same body except what a `br` may reach.
    Basic { block: u32, exits: Exits },
    /// A synthetic dispatcher of an irreducible region (or in front of
    /// many merge targets of one block; see the module docs): continues to
    /// `exits[k]` where `k` is the current value of dispatch variable `var`
    /// (an i32 local the lowering allocates; values `0..exits.len()`).
    Dispatch { var: u32, exits: Exits },
}

/// How one CFG edge reaches its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The edge's original target block (its phis take their values on this
    /// edge). For exits of a `Dispatch`, the block the dispatcher selects;
    /// phi copies were already done on the way into the dispatcher.
    pub target: u32,
    /// Before leaving, set dispatch variable `.0` to `.1` (when the edge
    /// goes through a dispatcher; exits of a `Dispatch` can carry one too,
    /// for the next dispatcher).
    pub set_dispatch: Option<(u32, u32)>,
    pub how: ExitHow,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitHow {
    /// `br $label` to an enclosing `block` (forward) or `loop` (backward).
    Br(LabelId),
    /// Control continues into this code, placed right here (the target is
    /// reached only through this edge).
    Inline(Body),
}

/// A structured function body: the tree's nodes and exits in two arrays,
/// bodies and exit lists as runs of them. Kept between functions
/// ([`structure_in`] refills it), so structuring allocates only when a
/// body is larger than every one before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Structured {
    /// The function body.
    pub body: Body,
    /// Labels are below this (`LabelId(0..num_labels)`; each used one is
    /// defined once, and some may be unused).
    pub num_labels: u32,
    /// Dispatch variables used (`0..num_dispatch_vars`).
    pub num_dispatch_vars: u32,
    nodes: Vec<Node>,
    exits: Vec<Exit>,
    /// The working graph and its analyses, kept for the next body. Out of
    /// here while a body is structured; an `Option` so that taking it
    /// leaves nothing to allocate and drop in its place.
    scratch: Option<Box<Scratch>>,
}

/// What structuring one body builds on the way, kept between bodies so it
/// allocates only when a body is larger than every one before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Scratch {
    graph: Graph,
    cfg: Cfg,
    loops: LoopForest,
    layout: Layout,
    irr: Irr,
}

impl Structured {
    /// The nodes of `body`, in execution order.
    pub fn nodes_of(&self, body: Body) -> &[Node] {
        &self.nodes[body.start as usize..body.end as usize]
    }

    /// The exits of a `Basic` or `Dispatch` node.
    pub fn exits_of(&self, exits: Exits) -> &[Exit] {
        &self.exits[exits.start as usize..exits.end as usize]
    }

    /// The first node of `body` and the rest of it (`None` when empty).
    pub fn split_first(&self, body: Body) -> Option<(&Node, Body)> {
        if body.start >= body.end {
            return None;
        }
        let node = self.nodes.get(body.start as usize)?;
        Some((node, Body { start: body.start + 1, end: body.end }))
    }

    /// Exit `id` (from [`Exits::at`]).
    pub fn exit(&self, id: u32) -> &Exit {
        &self.exits[id as usize]
    }

    fn clear(&mut self) {
        self.body = Body::default();
        self.num_labels = 0;
        self.num_dispatch_vars = 0;
        self.nodes.clear();
        self.exits.clear();
    }
}

/// Structures a CFG of `num_blocks` blocks whose entry is block 0;
/// `succs(b)` lists block `b`'s successors (in terminator order, duplicates
/// kept; every entry `< num_blocks`). Blocks unreachable from the entry are
/// left out of the output. Runs in near-linear time in blocks + edges, with
/// a bounded amount of work per irreducible region.
///
/// # Panics
///
/// If a successor is `>= num_blocks` (the verifier rejects such branches).
pub fn structure<'a>(num_blocks: usize, succs: impl Fn(u32) -> &'a [u32]) -> Structured {
    let mut out = Structured::default();
    structure_with(num_blocks, succs, Limits::DEFAULT, &mut DomCfg::default(), None, &mut out);
    out
}

/// `succs` as the compressed rows [`structure_in`] takes, checked.
fn rows<'a>(num_blocks: usize, succs: impl Fn(u32) -> &'a [u32]) -> (Vec<u32>, Vec<u32>) {
    let (mut start, mut to) = (vec![0], Vec::new());
    for b in 0..num_blocks as u32 {
        for &t in succs(b) {
            assert!((t as usize) < num_blocks, "block {b} branches to block {t} of {num_blocks}");
            to.push(t);
        }
        start.push(to.len() as u32);
    }
    (start, to)
}

/// [`structure`] into `out` (its buffers reused), of the blocks
/// `0..succ_start.len() - 1` whose successors are
/// `succs[succ_start[b]..succ_start[b + 1]]` (read in place: a reducible
/// graph is never copied), with the dominator computation's buffers kept in
/// `engine` between calls, and `known`, the graph's reverse postorder and
/// dominators as the verifier computed them, when the graph is exactly the
/// body's basic blocks (then they are not computed again).
///
/// # Panics
///
/// If a successor is out of range (the verifier rejects such branches).
pub fn structure_in(
    succ_start: &[u32],
    succs: &[u32],
    engine: &mut DomCfg,
    known: Option<&DomCfg>,
    out: &mut Structured,
) {
    structure_rows(Succs { start: succ_start, to: succs }, Limits::DEFAULT, engine, known, out)
}

/// The nesting caps (tests shrink them to reach the code paths that keep
/// big graphs shallow with small ones).
#[derive(Clone, Copy, Debug)]
struct Limits {
    tree_depth: u32,
    block_fanout: usize,
    inline_depth: u32,
}

impl Limits {
    const DEFAULT: Limits =
        Limits { tree_depth: MAX_TREE_DEPTH, block_fanout: MAX_BLOCK_FANOUT, inline_depth: MAX_INLINE_DEPTH };
}

fn structure_with<'a>(
    num_blocks: usize,
    succs: impl Fn(u32) -> &'a [u32],
    limits: Limits,
    engine: &mut DomCfg,
    known: Option<&DomCfg>,
    out: &mut Structured,
) {
    let (start, to) = rows(num_blocks, succs);
    structure_rows(Succs { start: &start, to: &to }, limits, engine, known, out)
}

fn structure_rows(
    plain: Succs<'_>,
    limits: Limits,
    engine: &mut DomCfg,
    known: Option<&DomCfg>,
    out: &mut Structured,
) {
    out.clear();
    let num_blocks = plain.len();
    if num_blocks == 0 {
        return;
    }
    if num_blocks == 1 && plain.out(0).is_empty() {
        // One block that leaves the function (a quarter of real bodies):
        // the tree the general path makes, without building its graphs.
        out.nodes.push(Node::Basic { block: 0, exits: Exits::default() });
        out.body = Body { start: 0, end: 1 };
        return;
    }
    // (Its tree nests 3m + 1 = 10 deep at most: within the caps but in
    // tests that shrink them.)
    if num_blocks == 3 && limits.inline_depth.min(limits.tree_depth) >= 10 && fork(plain, out) {
        return;
    }
    structure_general(plain, limits, engine, known, out)
}

/// The tree of a three-block body whose entry branches to the other two,
/// both leaving the function or one going on to the other (`if (c) x;
/// y;`: a tenth of real bodies), as the general path builds it but without
/// its graphs and analyses; `false` (and `out` untouched) for any other
/// graph.
///
/// The general path's tree, worked out: the graph has no cycle, and one
/// reverse postorder, the entry `0` first, `x` before `y` (its successor)
/// if any; both are dominated by `0` alone. Each block reached by one edge
/// goes inline at its exit; in a triangle `y`, reached by two, is `Inner`
/// after a `block` (label 5, `y`'s position's; labels below 2 * 3) around
/// `0`'s code, and both edges into it are `br 5`. The build goes from the last position back,
/// so `y`'s exits (none) and `x`'s (the one to `y`) come before `0`'s, which
/// follow its successor order; `x`'s node, placed inline, is pushed first,
/// then `0`'s node, the `block` around it, and the rest of the body after
/// the `block`.
fn fork(plain: Succs<'_>, out: &mut Structured) -> bool {
    let &[a, b] = plain.out(0) else { return false };
    if !matches!((a, b), (1, 2) | (2, 1)) {
        return false;
    }
    let (out_a, out_b) = (plain.out(a), plain.out(b));
    let exit = |target, how| Exit { target, set_dispatch: None, how };
    let basic = |block, start, end| Node::Basic { block, exits: Exits { start, end } };
    if out_a.is_empty() && out_b.is_empty() {
        out.nodes.extend([basic(a, 0, 0), basic(b, 0, 0), basic(0, 0, 2)]);
        out.exits.extend([
            exit(a, ExitHow::Inline(Body { start: 0, end: 1 })),
            exit(b, ExitHow::Inline(Body { start: 1, end: 2 })),
        ]);
        out.body = Body { start: 2, end: 3 };
        out.num_labels = 6;
        return true;
    }
    let (x, y) = if out_a == [b] && out_b.is_empty() {
        (a, b)
    } else if out_b == [a] && out_a.is_empty() {
        (b, a)
    } else {
        return false;
    };
    let how = |t| if t == x { ExitHow::Inline(Body { start: 0, end: 1 }) } else { ExitHow::Br(block_label(2)) };
    out.nodes.extend([
        basic(x, 0, 1),
        basic(0, 1, 3),
        Node::Block { label: block_label(2), body: Body { start: 1, end: 2 } },
        basic(y, 0, 0),
    ]);
    out.exits.extend([exit(y, ExitHow::Br(block_label(2))), exit(a, how(a)), exit(b, how(b))]);
    out.body = Body { start: 2, end: 4 };
    out.num_labels = 6;
    true
}

/// [`structure_rows`] of any graph: the analyses, the layout and the build.
fn structure_general(
    plain: Succs<'_>,
    limits: Limits,
    engine: &mut DomCfg,
    known: Option<&DomCfg>,
    out: &mut Structured,
) {
    let num_blocks = plain.len();
    let mut sc = out.scratch.take().unwrap_or_default();
    let Scratch { graph, cfg, loops, layout, irr } = &mut *sc;
    // Whether `graph` is the working graph; until a dispatcher is needed
    // (rarely) it is `plain`, read in place.
    let mut owned = false;
    reducible_cfg(graph, &mut owned, plain, engine, known, cfg, irr);
    let mut rounds = 0;
    let mut flat = false;
    loop {
        loops.fill(cfg, known.filter(|_| cfg.from_known).unwrap_or(engine));
        let m = cfg.len();
        if 3 * m as u64 + 1 <= limits.inline_depth.min(limits.tree_depth) as u64 && m <= limits.block_fanout {
            // Small enough that `fill` would find the layout shallow and
            // narrow (see there) and only its places and parents would be
            // read: `build_small` works them out as it goes.
            layout.build_small(View::of(graph, owned, plain), cfg, loops, out);
            out.scratch = Some(sc);
            return;
        }
        layout.fill(cfg, loops, limits.inline_depth, limits.tree_depth);
        if layout.depth > limits.tree_depth && !flat {
            // Pathological nesting (random graphs, not compiled code): one
            // dispatcher in front of every block nests a handful deep.
            graph.own(&mut owned, plain);
            *graph = Graph::through_one_dispatcher(num_blocks, graph, &cfg.order);
            reducible_cfg(graph, &mut owned, plain, engine, None, cfg, irr);
            flat = true;
            continue;
        }
        let wide = if rounds < MAX_FANOUT_ROUNDS && !flat {
            layout.wide_groups(num_blocks as u32, cfg, limits.block_fanout)
        } else {
            Vec::new()
        };
        if wide.is_empty() {
            layout.build(View::of(graph, owned, plain), cfg, out);
            out.scratch = Some(sc);
            return;
        }
        rounds += 1;
        graph.own(&mut owned, plain);
        route_through_dispatchers(graph, cfg, &wide);
        reducible_cfg(graph, &mut owned, plain, engine, None, cfg, irr);
    }
}

/// Deepest nesting of bodies the structured tree may have. A layout nesting
/// deeper sends every edge through one dispatcher instead (a `loop` around a
/// dispatch to every block), which is always shallow; compiled code stays
/// far below this (the corpus's deepest function nests about 100).
pub const MAX_TREE_DEPTH: u32 = 1000;

/// Analyzes the working graph (`graph` if `owned`, else `plain`) into
/// `cfg`, first adding dispatchers if it is irreducible (into `graph`, which
/// is then owned).
fn reducible_cfg(
    graph: &mut Graph,
    owned: &mut bool,
    plain: Succs<'_>,
    engine: &mut DomCfg,
    known: Option<&DomCfg>,
    cfg: &mut Cfg,
    irr: &mut Irr,
) {
    cfg.analyze(View::of(graph, *owned, plain), engine, known);
    if cfg.is_reducible() {
        return;
    }
    graph.own(owned, plain);
    // Without dispatchers before, `make_reducible` tracks the new graph's
    // dominators (none is absorbed then): no second dominator search.
    let track = graph.num_nodes() == graph.num_blocks as usize;
    if make_reducible(graph, cfg, irr, track) {
        if track {
            cfg.analyze_tracked(graph, &irr.idom, &irr.split);
        } else {
            cfg.analyze(View::Graph(graph), engine, None);
        }
        if cfg.is_reducible() {
            return;
        }
        // Not expected: the decomposition leaves every cycle one entry.
        debug_assert!(false, "irreducible after adding dispatchers");
    }
    // One dispatcher in front of every block is reducible whatever the
    // graph, and takes linear time.
    cfg.analyze(View::Graph(graph), engine, None);
    *graph = Graph::through_one_dispatcher(graph.num_blocks as usize, graph, &cfg.order);
    cfg.analyze(View::Graph(graph), engine, None);
    assert!(cfg.is_reducible(), "a single dispatcher left the graph irreducible");
}

/// Most `block`s one node may open for the nodes placed after it (inside or
/// outside its `loop`, counted apart). Past this, those nodes are reached
/// through a dispatcher instead (a `loop` with the nodes inlined at its
/// exits), so a switch with thousands of merging cases does not nest
/// thousands deep.
pub const MAX_BLOCK_FANOUT: usize = 256;
/// Rounds of fan-out reduction (each re-analyzes the graph; one or two do).
const MAX_FANOUT_ROUNDS: u32 = 4;

/// Inlined code nested deeper than this (in bodies) stops inlining nodes that
/// dominate further code: they go after a `block` instead, at the depth of
/// their dominator. Keeps long chains of single-predecessor blocks from
/// nesting as deep as they are long.
pub const MAX_INLINE_DEPTH: u32 = 128;

/// "No node" in the index arrays below.
const NONE: u32 = u32::MAX;
/// The one dispatch variable every dispatcher reads (see the module docs).
const DISPATCH_VAR: u32 = 0;

/// One edge of the working graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Edge {
    /// The node control goes to next: a block, or a dispatcher in front of
    /// the block.
    to: u32,
    /// The block this edge finally reaches ([`Exit::target`]).
    target: u32,
    /// Value stored in the dispatch variable on the way (`NONE`: none).
    dispatch_value: u32,
}

/// The CFG as a graph of nodes: blocks `0..num_blocks`, then dispatchers.
/// Out-edges are kept in one array in node order (dispatchers are added
/// with all their edges at once, so this stays a compressed row form).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Graph {
    num_blocks: u32,
    edge_start: Vec<usize>,
    edges: Vec<Edge>,
}

/// The caller's successor arrays (see [`structure_in`]): the working graph
/// as long as it needs no dispatcher, every edge going straight to its
/// target.
#[derive(Clone, Copy)]
struct Succs<'a> {
    start: &'a [u32],
    to: &'a [u32],
}

impl<'a> Succs<'a> {
    fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// `v`'s successors: its two ends read as one pair (one range test,
    /// not one per end).
    fn out(&self, v: u32) -> &'a [u32] {
        let v = v as usize;
        match self.start.get(v..v + 2) {
            Some(&[s, e]) => &self.to[s as usize..e as usize],
            _ => &[],
        }
    }
}

/// The working graph as the analysis and the build read it.
#[derive(Clone, Copy)]
enum View<'a> {
    Plain(Succs<'a>),
    Graph(&'a Graph),
}

impl<'a> View<'a> {
    fn of(graph: &'a Graph, owned: bool, plain: Succs<'a>) -> View<'a> {
        if owned { View::Graph(graph) } else { View::Plain(plain) }
    }

    fn num_nodes(&self) -> usize {
        match self {
            View::Plain(s) => s.len(),
            View::Graph(g) => g.num_nodes(),
        }
    }
}

impl Graph {
    /// Makes this the working graph (a copy of `plain`) unless it is.
    fn own(&mut self, owned: &mut bool, plain: Succs<'_>) {
        if std::mem::replace(owned, true) {
            return;
        }
        let Graph { edge_start, edges, .. } = self;
        edge_start.clear();
        edges.clear();
        edge_start.extend(plain.start.iter().map(|&s| s as usize));
        edges.extend(plain.to.iter().map(|&t| Edge { to: t, target: t, dispatch_value: NONE }));
        self.num_blocks = plain.len() as u32;
    }

    fn num_nodes(&self) -> usize {
        self.edge_start.len() - 1
    }

    fn edge_range(&self, v: u32) -> Range<usize> {
        self.edge_start[v as usize]..self.edge_start[v as usize + 1]
    }

    fn out(&self, v: u32) -> &[Edge] {
        &self.edges[self.edge_range(v)]
    }

    fn is_dispatcher(&self, v: u32) -> bool {
        v >= self.num_blocks
    }

    /// Adds a dispatcher whose exit `k` goes to block `entries[k]`.
    fn add_dispatcher(&mut self, entries: &[u32]) -> u32 {
        let exits: Vec<Edge> = entries.iter().map(|&e| Edge { to: e, target: e, dispatch_value: NONE }).collect();
        self.add_dispatcher_edges(&exits)
    }

    /// Adds a dispatcher whose exit `k` is `exits[k]`.
    fn add_dispatcher_edges(&mut self, exits: &[Edge]) -> u32 {
        let id = self.num_nodes() as u32;
        self.edges.extend_from_slice(exits);
        self.edge_start.push(self.edges.len());
        id
    }

    /// The `reachable` blocks of `old` with every edge going through one
    /// dispatcher in front of all of them (the dispatchers of `old` vanish:
    /// each edge selects its final target block directly).
    fn through_one_dispatcher(num_blocks: usize, old: &Graph, reachable: &[u32]) -> Graph {
        let mut graph = Graph { num_blocks: num_blocks as u32, edge_start: vec![0], edges: Vec::new() };
        let mut slot = vec![NONE; num_blocks];
        let mut entries = Vec::new();
        for &v in reachable.iter().filter(|&&v| v < num_blocks as u32) {
            slot[v as usize] = entries.len() as u32;
            entries.push(v);
        }
        let dispatcher = num_blocks as u32;
        for b in 0..num_blocks as u32 {
            if slot[b as usize] != NONE {
                for e in old.out(b) {
                    graph.edges.push(Edge {
                        to: dispatcher,
                        target: e.target,
                        dispatch_value: slot[e.target as usize],
                    });
                }
            }
            graph.edge_start.push(graph.edges.len());
        }
        graph.add_dispatcher(&entries);
        graph
    }
}

/// Reverse postorder and dominators of the nodes reachable from block 0.
/// Everything but `order`/`pos` is indexed by RPO position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Cfg {
    /// Reachable nodes in reverse postorder (`order[0] == 0`).
    order: Vec<u32>,
    /// Node → RPO position, `NONE` if unreachable.
    pos: Vec<u32>,
    /// Immediate dominator and dominator-tree interval of each position.
    dom: Vec<Dom>,
    /// Every retreating edge goes to a node dominating its source.
    reducible: bool,
    /// The analysis is `known`'s (not the engine's): the graph whose
    /// predecessors [`LoopForest::fill`] reads.
    from_known: bool,
    /// The analysis is `analyze_tracked`'s: [`LoopForest::fill`] reads the
    /// predecessors below.
    own_preds: bool,
    /// Some position has a retreating in-edge.
    has_loops: bool,
    /// The positions that do (loop headers), in increasing order.
    headers: Vec<u32>,
    /// With `own_preds`: each position's predecessors' positions (edges
    /// from reachable nodes, repeats kept), `preds[pred_start[i]..pred_start[i + 1]]`.
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    // Scratch.
    edge_list: Vec<(u32, u32)>,
    dfs: Vec<(u32, usize)>,
}

/// Dominator facts of one position, together since they are read together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dom {
    /// Immediate dominator (position; the entry's is 0).
    idom: u32,
    /// Dominator-tree preorder number (children in RPO order) and subtree
    /// size, read from the engine: `a` dominates `b` iff `b`'s number is in
    /// `a`'s `pre .. pre + size`.
    pre: u32,
    size: u32,
    /// Predecessors before it (forward in-edges), and whether one is at or
    /// after it (a retreating edge: a loop header).
    forward_in: u32,
    header: bool,
}

impl Cfg {
    /// Orders and dominators of `graph` from the shared engine
    /// ([`crate::cfg::Cfg`]), or from `known` when that is this graph's;
    /// into this one's buffers.
    fn analyze(&mut self, graph: View<'_>, engine: &mut DomCfg, known: Option<&DomCfg>) {
        let n = graph.num_nodes();
        let (dom, from_known): (&DomCfg, bool) = match known {
            Some(k) if k.len() == n => (k, true),
            _ => {
                let edges = &mut self.edge_list;
                edges.clear();
                for v in 0..n as u32 {
                    match graph {
                        View::Plain(s) => edges.extend(s.out(v).iter().map(|&t| (v, t))),
                        View::Graph(g) => edges.extend(g.out(v).iter().map(|e| (v, e.to))),
                    }
                }
                engine.compute(n, edges);
                (engine, false)
            }
        };
        self.from_known = from_known;
        self.own_preds = false;
        let Cfg { order, pos, dom: doms, .. } = self;
        order.clear();
        order.extend_from_slice(dom.rpo());
        // Positions index everything below: the engine numbered the blocks
        // by position already, and hands each one's dominator record with
        // its idom as a position.
        pos.clear();
        pos.extend(dom.positions());
        doms.clear();
        doms.extend(dom.dom_records().map(|(idom, pre, size)| Dom { idom, pre, size, forward_in: 0, header: false }));
        self.classify_edges(graph);
    }

    /// `analyze` of `graph` whose nodes' immediate dominators (node ids) are
    /// `idom` already, as `make_reducible` tracks them: the engine's depth-
    /// first search (successors in order, so the same reverse postorder)
    /// and its tree numbering, but no dominator search. The predecessors
    /// `LoopForest::fill` reads are listed here.
    fn analyze_tracked(&mut self, graph: &Graph, idom: &[u32], split: &[bool]) {
        self.from_known = false;
        self.own_preds = true;
        let n = graph.num_nodes();
        let Cfg { order, pos, dom: doms, pred_start, preds, dfs, .. } = self;
        reset(pos, n, NONE);
        order.clear();
        dfs.clear();
        // Postorder into `order` (reversed below); meanwhile `pos` counts
        // each found node's in-edges from reachable nodes (every one is
        // scanned once).
        pos[0] = 0;
        dfs.push((0, graph.edge_start[0]));
        while let Some(top) = dfs.last_mut() {
            let (v, next) = *top;
            if next < graph.edge_start[v as usize + 1] {
                top.1 += 1;
                let s = graph.edges[next].to as usize;
                if pos[s] == NONE {
                    pos[s] = 1;
                    dfs.push((s as u32, graph.edge_start[s]));
                } else {
                    pos[s] += 1;
                }
                continue;
            }
            dfs.pop();
            order.push(v);
        }
        order.reverse();
        let m = order.len();
        // Predecessor positions by counting sort.
        reset(pred_start, m + 1, 0);
        for (i, &v) in order.iter().enumerate() {
            pred_start[i + 1] = pred_start[i] + pos[v as usize];
            pos[v as usize] = i as u32;
        }
        reset(preds, pred_start[m] as usize, 0);
        for (i, &v) in order.iter().enumerate() {
            for e in graph.out(v) {
                let j = pos[e.to as usize] as usize;
                // `pred_start[j]` is the fill cursor, back at `j`'s start
                // once the loop below has run.
                preds[pred_start[j] as usize] = i as u32;
                pred_start[j] += 1;
            }
        }
        for i in (0..m).rev() {
            pred_start[i + 1] = pred_start[i];
        }
        pred_start[0] = 0;
        // The engine's numbering (`number_dom_tree`): sizes summed in
        // reverse postorder, preorder ranges handed to children in it.
        doms.clear();
        doms.extend(order.iter().map(|&v| Dom { idom: pos[idom[v as usize] as usize], pre: 0, size: 1, forward_in: 0, header: false }));
        doms[0].idom = 0;
        // A node immediately dominated by a `split` one may now be by the
        // dispatcher under it: one Cooper–Harvey–Kennedy step over its
        // forward predecessors (exact in reverse postorder, the graph being
        // reducible, as every earlier position's idom is final).
        for i in 1..m {
            if !split[idom[order[i] as usize] as usize] {
                continue;
            }
            let mut new_idom = NONE;
            for &p in &preds[pred_start[i] as usize..pred_start[i + 1] as usize] {
                if p as usize >= i {
                    continue;
                }
                new_idom = if new_idom == NONE {
                    p
                } else {
                    let (mut a, mut b) = (p, new_idom);
                    while a != b {
                        while a > b {
                            a = doms[a as usize].idom;
                        }
                        while b > a {
                            b = doms[b as usize].idom;
                        }
                    }
                    a
                };
            }
            doms[i].idom = new_idom;
        }
        for i in (1..m).rev() {
            let d = doms[i].idom as usize;
            doms[d].size += doms[i].size;
        }
        // `forward_in` holds each position's next free preorder number
        // meanwhile (`classify_edges` counts it from 0).
        doms[0].forward_in = 1;
        for i in 1..m {
            let d = doms[i].idom as usize;
            let pre = doms[d].forward_in;
            doms[d].forward_in += doms[i].size;
            doms[i].pre = pre;
            doms[i].forward_in = pre + 1;
        }
        for d in doms.iter_mut() {
            d.forward_in = 0;
        }
        self.classify_edges(View::Graph(graph));
    }

    /// Forward in-edge counts, loop headers and reducibility of the
    /// analyzed `graph`.
    // Inlined into `analyze` as it was before `analyze_tracked` shared it.
    #[inline(always)]
    fn classify_edges(&mut self, graph: View<'_>) {
        let Cfg { pos, dom: doms, headers, .. } = self;
        // Plain slices in locals: through the vectors each edge reloaded
        // them after its store to a count.
        let (pos, doms) = (&pos[..], &mut doms[..]);
        let mut reducible = true;
        headers.clear();
        let mut edge = |i: usize, to: u32| {
            let j = pos[to as usize] as usize;
            if i < j {
                doms[j].forward_in += 1;
            } else {
                if !doms[j].header {
                    doms[j].header = true;
                    headers.push(j as u32);
                }
                // `dominates` (the function needs `self` whole).
                reducible &= doms[i].pre.wrapping_sub(doms[j].pre) < doms[j].size;
            }
        };
        // The rows in node order, not reverse postorder: one after another,
        // so no node's bounds are looked up; what is found does not depend
        // on the order (counts, a conjunction, the headers sorted below).
        // Unreachable nodes (no position) are skipped, as the order skips
        // them.
        match graph {
            View::Plain(s) => {
                for ((&start, &end), &i) in s.start.iter().zip(&s.start[1..]).zip(pos) {
                    if i != NONE {
                        s.to[start as usize..end as usize].iter().for_each(|&to| edge(i as usize, to));
                    }
                }
            }
            View::Graph(g) => {
                for ((&start, &end), &i) in g.edge_start.iter().zip(&g.edge_start[1..]).zip(pos) {
                    if i != NONE {
                        g.edges[start..end].iter().for_each(|e| edge(i as usize, e.to));
                    }
                }
            }
        }
        headers.sort_unstable();
        self.reducible = reducible;
        self.has_loops = !headers.is_empty();
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    fn has_dom_children(&self, i: u32) -> bool {
        self.dom[i as usize].size > 1
    }

    /// Whether position `i` is the target of a retreating edge.
    fn is_header(&self, i: u32) -> bool {
        self.dom[i as usize].header
    }

    /// Whether position `a` dominates position `b` (reflexive).
    fn dominates(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        // One comparison: a `b` numbered before `a` wraps far past any size.
        self.dom[b].pre.wrapping_sub(self.dom[a].pre) < self.dom[a].size
    }

    /// Whether every retreating edge goes to a node dominating its source
    /// (found by `analyze`).
    fn is_reducible(&self) -> bool {
        self.reducible
    }
}

/// Makes the reachable part of `graph` reducible by adding dispatchers (see
/// the module docs); `cfg` is its analysis. Returns `false`, leaving the
/// graph semantically unchanged but possibly half done, if that would take
/// more than a small multiple of the graph's size (deep loop nests around an
/// irreducible jump).
///
/// Only *bad* edges matter: retreating edges whose target does not dominate
/// their source. A component with several entries contains one (both its
/// ends inside): its DFS-first node `f` cannot dominate all of it, and the
/// last edge of a path inside it from an undominated node to `f` is bad. So
/// the decomposition starts from the nodes strictly dominated by each bad
/// edge's nearest common dominator (edges enter that set only from the
/// dominator, as they enter an SCC only through its header), and only
/// descends into components holding a bad edge. Adding dispatchers splits
/// edges but never changes which blocks dominate which, so the bad edges
/// found up front stay the ones to look for.
///
/// With `track` (the graph has no dispatchers yet), `sc.idom` is left with
/// each reachable node's immediate dominator in the new graph (node ids),
/// except that a node whose idom is in `sc.split` may now be immediately
/// dominated by a dispatcher instead (for
/// `Cfg::analyze_tracked` to settle). Since dominance among the nodes
/// already there stays, a component's dispatcher is immediately dominated
/// by its entries' common immediate dominator `D` (outside the component,
/// as no member dominates an entry), and it in turn immediately dominates
/// the members whose immediate dominator was outside the component (the
/// entries among them); the other members keep theirs. Outside the
/// component only nodes immediately dominated by `D` can change (to the
/// dispatcher, if every path to them crosses the component): `D` is marked
/// in `split`.
fn make_reducible(graph: &mut Graph, cfg: &Cfg, sc: &mut Irr, track: bool) -> bool {
    let budget = 16 * (graph.num_nodes() + graph.edges.len()) + 4096;
    let mut work = 0usize;
    let Irr {
        bad,
        tops,
        roots,
        at_pre,
        root_of,
        regions,
        reg_nodes,
        reg_bad,
        nodes,
        region_bad,
        scc,
        is_entry,
        dispatcher_of,
        slot_of,
        keys,
        bad_start,
        bad_items,
        entry_list,
        entry_start,
        entry_items,
        exits,
        new_dispatchers,
        idom,
        split,
    } = sc;
    idom.clear();
    split.clear();
    if track {
        idom.resize(graph.num_nodes(), NONE);
        split.resize(graph.num_nodes(), false);
        for (i, &v) in cfg.order.iter().enumerate() {
            idom[v as usize] = cfg.order[cfg.dom[i].idom as usize];
        }
    }

    // Bad edges (node ids) and their nearest common dominators (positions).
    bad.clear();
    tops.clear();
    for (i, &v) in cfg.order.iter().enumerate() {
        for e in graph.out(v) {
            let j = cfg.pos[e.to as usize];
            if j <= i as u32 && !cfg.dominates(j, i as u32) {
                bad.push((v, e.to));
                let (mut a, mut b) = (i as u32, j);
                while a != b {
                    while a > b {
                        a = cfg.dom[a as usize].idom;
                        work += 1;
                    }
                    while b > a {
                        b = cfg.dom[b as usize].idom;
                        work += 1;
                    }
                }
                tops.push(a);
                if work > budget {
                    return false;
                }
            }
        }
    }
    // The outermost of those dominators; their strictly dominated sets are
    // disjoint and hold every bad edge.
    tops.sort_unstable_by_key(|&d| cfg.dom[d as usize].pre);
    tops.dedup();
    roots.clear();
    for &d in tops.iter() {
        if roots.last().map_or(true, |&r| !cfg.dominates(r, d)) {
            roots.push(d);
        }
    }
    // Position of each preorder number: a subtree is a range of them.
    reset(at_pre, cfg.len(), 0);
    for (i, d) in cfg.dom.iter().enumerate() {
        at_pre[d.pre as usize] = i as u32;
    }
    reset(root_of, graph.num_nodes(), NONE);
    for (k, &d) in roots.iter().enumerate() {
        let (pre, size) = (cfg.dom[d as usize].pre as usize, cfg.dom[d as usize].size as usize);
        for &p in &at_pre[pre + 1..pre + size] {
            root_of[cfg.order[p as usize] as usize] = k as u32;
        }
    }
    keys.clear();
    keys.extend(bad.iter().map(|&(x, _)| root_of[x as usize]));
    group_by_into(keys, 0, roots.len(), bad_start, bad_items);
    regions.clear();
    reg_nodes.clear();
    reg_bad.clear();
    for (k, &d) in roots.iter().enumerate() {
        let (pre, size) = (cfg.dom[d as usize].pre as usize, cfg.dom[d as usize].size as usize);
        regions.push(Region { nodes: reg_nodes.len(), bad: reg_bad.len(), header: cfg.order[d as usize] });
        reg_nodes.extend(at_pre[pre + 1..pre + size].iter().map(|&p| cfg.order[p as usize]));
        reg_bad.extend(bad_items[bad_start[k]..bad_start[k + 1]].iter().map(|&i| bad[i as usize]));
    }

    let n = graph.num_nodes();
    scc.reset(n);
    reset(is_entry, n, false);
    reset(dispatcher_of, n, NONE);
    reset(slot_of, n, NONE);
    while let Some(Region { nodes: nodes_at, bad: bad_at, header }) = regions.pop() {
        // Off the stack, which the region's children go on.
        nodes.clear();
        nodes.extend_from_slice(&reg_nodes[nodes_at..]);
        reg_nodes.truncate(nodes_at);
        region_bad.clear();
        region_bad.extend_from_slice(&reg_bad[bad_at..]);
        reg_bad.truncate(bad_at);
        work += nodes.len() + nodes.iter().map(|&v| graph.edge_range(v).len()).sum::<usize>();
        if work > budget {
            return false;
        }
        if region_bad.is_empty() {
            // No component here can hold a bad edge, so none changes (it
            // still counts as work, so the budget runs out where it did).
            continue;
        }
        let num_comps = scc.components(graph, nodes);
        if num_comps == 0 {
            continue;
        }
        let (sn, region) = (&scc.node, scc.region);
        let in_region = |v: u32| sn[v as usize].stamp == region;
        let comp = |v: u32| sn[v as usize].comp;
        // The bad edges inside each component.
        keys.clear();
        keys.extend(region_bad.iter().map(|&(x, f)| {
            let c = comp(x);
            if in_region(x) && in_region(f) && c != NONE && c == comp(f) { c } else { NONE }
        }));
        group_by_into(keys, 0, num_comps, bad_start, bad_items);

        // Entries: nodes of a component with an edge from outside it, in
        // `entry_list`, grouped by component.
        entry_list.clear();
        keys.clear();
        for u in nodes.iter().copied().chain([header]) {
            for e in graph.out(u) {
                let v = e.to;
                if in_region(v)
                    && comp(v) != NONE
                    && (!in_region(u) || comp(u) != comp(v))
                    && !is_entry[v as usize]
                {
                    is_entry[v as usize] = true;
                    entry_list.push(v);
                    keys.push(comp(v));
                }
            }
        }
        group_by_into(keys, 0, num_comps, entry_start, entry_items);

        new_dispatchers.clear();
        for c in 0..num_comps {
            let members = &scc.comp_nodes[scc.comp_start[c] as usize..scc.comp_start[c + 1] as usize];
            let entries = &entry_items[entry_start[c]..entry_start[c + 1]];
            let bad = &bad_items[bad_start[c]..bad_start[c + 1]];
            debug_assert!(entries.len() <= 1 || !bad.is_empty(), "several entries but no bad edge");
            if bad.is_empty() {
                // One entry and nothing irreducible inside.
            } else if entries.len() <= 1 {
                // A loop with one header: look for cycles under it.
                let head = entries.first().map_or(members[0], |&i| entry_list[i as usize]);
                // The members but the header, itself a member.
                if members.len() > 2 {
                    regions.push(Region { nodes: reg_nodes.len(), bad: reg_bad.len(), header: head });
                    reg_nodes.extend(members.iter().copied().filter(|&v| v != head));
                    // An edge at `head` is not inside the region.
                    let inside = |&(x, f): &(u32, u32)| x != head && f != head;
                    reg_bad.extend(bad.iter().map(|&i| region_bad[i as usize]).filter(inside));
                }
            } else {
                // Slot `slot_of[e]` selects block entry `e`. An entry that is
                // itself a dispatcher (one added to cap fan-out) is absorbed:
                // its exits become this dispatcher's, from `slot_of[e]` on,
                // and the edges into it keep their choice, shifted.
                exits.clear();
                for &i in entries {
                    let e = entry_list[i as usize];
                    slot_of[e as usize] = exits.len() as u32;
                    dispatcher_of[e as usize] = graph.num_nodes() as u32;
                    if graph.is_dispatcher(e) {
                        exits.extend_from_slice(graph.out(e));
                    } else {
                        exits.push(Edge { to: e, target: e, dispatch_value: NONE });
                    }
                }
                let d = graph.add_dispatcher_edges(exits);
                if track {
                    let top = idom[entry_list[entries[0] as usize] as usize];
                    let in_comp = |x: u32| sn.get(x as usize).is_some_and(|y| y.stamp == region && y.comp == c as u32);
                    for &v in members {
                        if !in_comp(idom[v as usize]) {
                            idom[v as usize] = d;
                        }
                    }
                    idom.push(top);
                    split[top as usize] = true;
                    split.push(false);
                }
                new_dispatchers.push(d);
                regions.push(Region { nodes: reg_nodes.len(), bad: reg_bad.len(), header: d });
                // An absorbed dispatcher (an entry) leaves the component.
                reg_nodes.extend(members.iter().copied().filter(|&v| !graph.is_dispatcher(v) || !is_entry[v as usize]));
                // Edges from the region into an entry all go to `d` now, so
                // an entry is a component of its own there and a bad edge
                // into it is in no component.
                let inside = |&(_, f): &(u32, u32)| !is_entry[f as usize];
                reg_bad.extend(bad.iter().map(|&i| region_bad[i as usize]).filter(inside));
            }
            for &i in entries {
                is_entry[entry_list[i as usize] as usize] = false;
            }
        }
        if !new_dispatchers.is_empty() {
            // Every edge into a multi-entry component's entry — from outside
            // or from inside it — now sets the slot and goes to the dispatcher.
            // Only nodes of this region, its header and the new dispatchers
            // (through absorbed exits) can have such edges.
            for u in nodes.iter().chain(new_dispatchers.iter()).copied().chain([header]) {
                let range = graph.edge_range(u);
                let num_blocks = graph.num_blocks;
                for e in &mut graph.edges[range] {
                    let t = e.to as usize;
                    if dispatcher_of[t] != NONE && dispatcher_of[t] != u {
                        // Into an absorbed dispatcher: keep the choice made.
                        let shift = if e.to >= num_blocks { e.dispatch_value } else { 0 };
                        e.dispatch_value = slot_of[t] + shift;
                        e.to = dispatcher_of[t];
                    }
                }
            }
            for &v in nodes.iter() {
                dispatcher_of[v as usize] = NONE;
                slot_of[v as usize] = NONE;
            }
        }
        let n = graph.num_nodes();
        is_entry.resize(n, false);
        dispatcher_of.resize(n, NONE);
        slot_of.resize(n, NONE);
        scc.grow(n);
    }
    true
}

/// Buffers of [`make_reducible`], kept between bodies so that a body
/// allocates nothing per region or per component.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Irr {
    /// Bad edges, their nearest common dominators, the outermost of those.
    bad: Vec<(u32, u32)>,
    tops: Vec<u32>,
    roots: Vec<u32>,
    /// Position of each dominator-tree preorder number.
    at_pre: Vec<u32>,
    /// Index in `roots` of the root dominating each node.
    root_of: Vec<u32>,
    /// Regions still to split (a stack); their nodes and bad edges are runs
    /// of `reg_nodes` and `reg_bad`, stacked in the same order.
    regions: Vec<Region>,
    reg_nodes: Vec<u32>,
    reg_bad: Vec<(u32, u32)>,
    /// The region being split, off the stacks.
    nodes: Vec<u32>,
    region_bad: Vec<(u32, u32)>,
    scc: SccScratch,
    /// Per node: an entry of its component found; the dispatcher and slot
    /// that now select it.
    is_entry: Vec<bool>,
    dispatcher_of: Vec<u32>,
    slot_of: Vec<u32>,
    /// Group of each item (for `group_by_into`).
    keys: Vec<u32>,
    /// The region's bad edges (indices in `region_bad`) by component.
    bad_start: Vec<usize>,
    bad_items: Vec<u32>,
    /// The region's entries, and their indices by component.
    entry_list: Vec<u32>,
    entry_start: Vec<usize>,
    entry_items: Vec<u32>,
    exits: Vec<Edge>,
    new_dispatchers: Vec<u32>,
    /// With `track`: immediate dominator of each node, and whether a
    /// dispatcher was put under it (see there).
    idom: Vec<u32>,
    split: Vec<bool>,
}

/// A part of the graph still to split into components: its nodes and bad
/// edges start at these indices of [`Irr::reg_nodes`] and [`Irr::reg_bad`]
/// and run to the next region's (or the end). Edges from outside enter it
/// only from `header`. Regions waiting on the stack are disjoint, so it
/// holds each node at most once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    nodes: usize,
    bad: usize,
    header: u32,
}

/// Sends every forward edge into the blocks of each group (RPO positions)
/// through a new dispatcher for the group.
fn route_through_dispatchers(graph: &mut Graph, cfg: &Cfg, groups: &[Vec<u32>]) {
    let mut dispatcher_of = vec![NONE; graph.num_nodes()];
    let mut slot_of = vec![NONE; graph.num_nodes()];
    for group in groups {
        let blocks: Vec<u32> = group.iter().map(|&y| cfg.order[y as usize]).collect();
        let d = graph.add_dispatcher(&blocks);
        for (k, &b) in blocks.iter().enumerate() {
            dispatcher_of[b as usize] = d;
            slot_of[b as usize] = k as u32;
        }
    }
    for &u in &cfg.order {
        let range = graph.edge_range(u);
        for e in &mut graph.edges[range] {
            let t = e.to as usize;
            if dispatcher_of[t] != NONE && cfg.pos[u as usize] < cfg.pos[t] {
                debug_assert_eq!(e.dispatch_value, NONE, "edge to a block sets the dispatch variable");
                e.dispatch_value = slot_of[t];
                e.to = dispatcher_of[t];
            }
        }
    }
}

/// Buffers of Tarjan's algorithm, kept across regions and bodies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SccScratch {
    /// Per node, its facts together (one bounds check, one cache line).
    node: Vec<SccNode>,
    /// The current region's number (`SccNode::stamp`).
    region: u32,
    /// Members of component `c`: `comp_nodes[comp_start[c]..comp_start[c + 1]]`.
    comp_start: Vec<u32>,
    comp_nodes: Vec<u32>,
    scc_stack: Vec<u32>,
    call: Vec<(u32, usize)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SccNode {
    /// Region number (the current region's nodes hold `SccScratch::region`).
    stamp: u32,
    /// Visit number: `NONE` before the visit, `DONE` once its component
    /// is found (then `min` with it leaves a low link alone, so no
    /// on-stack flag is needed).
    index: u32,
    low: u32,
    /// Component of a node of the current region in one with two or more
    /// nodes; `NONE` for single-node components.
    comp: u32,
}

/// `SccNode::index` of a node whose component is found.
const DONE: u32 = NONE - 1;

const FRESH_SCC: SccNode = SccNode { stamp: NONE, index: NONE, low: 0, comp: NONE };

impl SccScratch {
    /// Ready for a graph of `n` nodes.
    fn reset(&mut self, n: usize) {
        reset(&mut self.node, n, FRESH_SCC);
        self.region = 0;
    }

    fn grow(&mut self, n: usize) {
        self.node.resize(n, FRESH_SCC);
    }

    /// The number of strongly connected components of two or more nodes of
    /// the subgraph induced by `nodes`, into `comp_start`/`comp_nodes`; sets
    /// `comp` for their members.
    fn components(&mut self, graph: &Graph, nodes: &[u32]) -> usize {
        self.region += 1;
        let region = self.region;
        let node = &mut self.node;
        for &v in nodes {
            node[v as usize] = SccNode { stamp: region, index: NONE, low: 0, comp: NONE };
        }
        self.comp_start.clear();
        self.comp_start.push(0);
        self.comp_nodes.clear();
        let mut counter = 0u32;
        let (scc_stack, call) = (&mut self.scc_stack, &mut self.call);
        scc_stack.clear();
        call.clear();
        let mut open = |v: u32, scc_stack: &mut Vec<u32>, node: &mut [SccNode]| {
            let x = &mut node[v as usize];
            x.index = counter;
            x.low = counter;
            counter += 1;
            scc_stack.push(v);
        };
        for &root in nodes {
            if node[root as usize].index != NONE {
                continue;
            }
            open(root, scc_stack, node);
            call.push((root, graph.edge_start[root as usize]));
            while let Some(top) = call.last_mut() {
                let (v, next) = *top;
                if next < graph.edge_start[v as usize + 1] {
                    top.1 += 1;
                    let w = graph.edges[next].to as usize;
                    let y = node[w];
                    if y.stamp != region {
                        continue;
                    }
                    if y.index == NONE {
                        open(w as u32, scc_stack, node);
                        call.push((w as u32, graph.edge_start[w]));
                    } else {
                        let x = &mut node[v as usize];
                        x.low = x.low.min(y.index);
                    }
                    continue;
                }
                call.pop();
                let x = node[v as usize];
                if let Some(&(parent, _)) = call.last() {
                    let p = &mut node[parent as usize];
                    p.low = p.low.min(x.low);
                }
                if x.low == x.index {
                    let at = scc_stack.iter().rposition(|&x| x == v).expect("node on the Tarjan stack");
                    let members = &scc_stack[at..];
                    let c = if members.len() > 1 { self.comp_start.len() as u32 - 1 } else { NONE };
                    for &m in members {
                        node[m as usize].index = DONE;
                        node[m as usize].comp = c;
                    }
                    if c != NONE {
                        self.comp_nodes.extend_from_slice(members);
                        self.comp_start.push(self.comp_nodes.len() as u32);
                    }
                    scc_stack.truncate(at);
                }
            }
        }
        self.comp_start.len() - 1
    }
}

/// Loop nesting of a reducible graph, by RPO position (the headers are
/// `Cfg::is_header`). Empty when the graph has no loop (`Cfg::has_loops`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct LoopForest {
    /// Innermost loop containing the node, not counting its own loop if it
    /// is a header (so for a header, the loop strictly containing its loop),
    /// by header position; `NONE` outside every loop.
    outer: Vec<u32>,
    /// For a header, the number of loops containing it, its own included.
    depth: Vec<u32>,
    // Scratch.
    rep: Vec<u32>,
    work: Vec<u32>,
}

impl LoopForest {
    /// The loops of `cfg`, in this one's buffers; `dom` is the engine (or
    /// `known`) that analyzed it, whose predecessor lists are read.
    #[inline(never)]
    fn fill(&mut self, cfg: &Cfg, dom: &DomCfg) {
        if !cfg.has_loops {
            // Nothing is read without a header.
            return;
        }
        if cfg.own_preds {
            let own = |i: u32| cfg.preds[cfg.pred_start[i as usize] as usize..cfg.pred_start[i as usize + 1] as usize].iter().copied();
            self.fill_with(cfg, own);
        } else {
            // The engine's predecessor lists are by node and without
            // duplicates, and name unreachable nodes too.
            let engine = |i: u32| dom.preds(cfg.order[i as usize]).iter().map(|&p| cfg.pos[p as usize]).filter(|&p| p != NONE);
            self.fill_with(cfg, engine);
        }
    }

    /// `fill` with `preds(i)` the positions of position `i`'s reachable
    /// predecessors (repeats do no harm: enough for walking).
    fn fill_with<I: Iterator<Item = u32>>(&mut self, cfg: &Cfg, preds: impl Fn(u32) -> I) {
        let m = cfg.len();
        let LoopForest { outer, depth, rep, work } = self;
        // Headers from the innermost (latest in RPO) out: walk back from the
        // back edges' sources; a node already in an inner loop stands for
        // that whole loop through the union-find `rep`.
        rep.clear();
        rep.extend(0..m as u32);
        reset(outer, m, NONE);
        // Plain slices in locals: through the vectors each step reloaded
        // them after a push to `work`.
        let (rep, outer) = (&mut rep[..], &mut outer[..]);
        work.clear();
        for &h in cfg.headers.iter().rev() {
            work.extend(preds(h).filter(|&p| p > h));
            while let Some(x) = work.pop() {
                let r = find(rep, x);
                if r == h {
                    continue;
                }
                rep[r as usize] = h;
                outer[r as usize] = h;
                work.extend(preds(r).filter(|&p| p < r));
            }
        }
        // Read at headers only, which are all written.
        if depth.len() < m {
            depth.resize(m, 0);
        }
        for &h in &cfg.headers {
            let h = h as usize;
            depth[h] = 1 + if outer[h] == NONE { 0 } else { depth[outer[h] as usize] };
        }
    }

    /// Innermost loop containing `i`, not counting `i`'s own loop.
    fn enclosing(&self, i: u32) -> u32 {
        self.outer[i as usize]
    }

    /// Innermost loop containing `i` (its own, for a header).
    fn loop_of(&self, cfg: &Cfg, i: u32) -> u32 {
        if cfg.is_header(i) {
            i
        } else {
            self.outer[i as usize]
        }
    }

    fn depth_of(&self, header: u32) -> u32 {
        if header == NONE {
            0
        } else {
            self.depth[header as usize]
        }
    }
}

/// Union-find root with path compression.
fn find(rep: &mut [u32], x: u32) -> u32 {
    let mut r = x;
    while rep[r as usize] != r {
        r = rep[r as usize];
    }
    let mut y = x;
    while rep[y as usize] != r {
        let next = rep[y as usize];
        rep[y as usize] = r;
        y = next;
    }
    r
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Place {
    /// The entry: the function body.
    Root,
    /// At the exit of its only forward in-edge.
    #[default]
    Inline,
    /// After a `block` wrapping its parent's code, inside the parent's
    /// `loop` if any.
    Inner,
    /// After a `block` wrapping its parent's `loop` (the parent is a loop
    /// header the node is outside of).
    Outer,
}

/// Where each node's code goes (by RPO position) and the labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Layout {
    /// Per position; see [`Slot`].
    slot: Vec<Slot>,
    num_labels: u32,
    /// Deepest body nesting of the tree (bodies inside a basic block's
    /// exits included), or for a small body a bound of it within the caps.
    depth: u32,
    /// Most `Inner` (or `Outer`) nodes one node places.
    fanout: usize,
    // Scratch.
    hoist: Vec<(u32, u32, u32, u32)>,
    ancestors: AncestorScratch,
    /// `build`'s per-position state.
    open: Vec<Open>,
}

/// What `Layout::fill` works out for one node, in one record so that its
/// passes touch one array (counts first, then the depths they give).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    place: Place,
    /// `place` of the node's `Inline` kids that dominate further code is to
    /// become `Inner` (they would nest too deep).
    demote: bool,
    /// The node that places this one (its dominator, or for `Outer` the
    /// loop it goes after).
    parent: u32,
    /// Kids placed `Inner`, `Outer`, and `Inline` ones that are not leaves
    /// (what a demotion adds to `inner`; counted by `place_depths` only).
    inner: u32,
    outer: u32,
    demotable: u32,
    /// Depth at which the next `Inner` (`Outer`) kid's code starts, counted
    /// down kid by kid (later siblings get the outer `block`s), and the
    /// depth of the node's basic block's body.
    next_inner: u32,
    next_outer: u32,
    body_depth: u32,
}

const FRESH_SLOT: Slot = Slot {
    place: Place::Inline,
    demote: false,
    parent: NONE,
    inner: 0,
    outer: 0,
    demotable: 0,
    next_inner: 0,
    next_outer: 0,
    body_depth: 0,
};

/// `Layout::build`'s state of one node: its code, a sequence `head`
/// followed by the code of node `tail` (`NONE`: nothing), copied into a
/// body where it is placed; the `Inner` and `Outer` kids whose code is done
/// (lists through `next`, in RPO order: built latest first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Open {
    head: Node,
    tail: u32,
    inner: u32,
    outer: u32,
    next: u32,
}

/// `Open::next` of a node placed `Inline` (no list holds it), which is how
/// its in-edges, built after it, know to place it at their exit.
const INLINE: u32 = NONE - 1;

/// For each node `y` of the list from `first` (linked by `Open::next`),
/// `block $label <code so far> end` then `y`'s code: the new head and tail.
#[inline(always)]
fn wrap_in_blocks(out: &mut Structured, open: &[Open], mut head: Node, mut tail: u32, first: u32) -> (Node, u32) {
    let mut y = first;
    while y != NONE {
        let body = finish(out, open, head, tail);
        head = Node::Block { label: block_label(y as usize), body };
        tail = y;
        y = open[y as usize].next;
    }
    (head, tail)
}

/// The sequence `head` then the code of node `tail` (and so on), as a body.
fn finish(out: &mut Structured, open: &[Open], head: Node, mut tail: u32) -> Body {
    let start = out.nodes.len() as u32;
    out.nodes.push(head);
    while tail != NONE {
        let o = &open[tail as usize];
        out.nodes.push(o.head);
        tail = o.tail;
    }
    Body { start, end: out.nodes.len() as u32 }
}

impl Layout {
    /// The layout of `cfg` with loops `loops`, in this one's buffers.
    #[inline(never)]
    fn fill(&mut self, cfg: &Cfg, loops: &LoopForest, max_inline_depth: u32, max_tree_depth: u32) {
        let m = cfg.len();
        let Layout { slot, num_labels, depth: max_depth, fanout, hoist, ancestors, .. } = self;
        reset(slot, m, FRESH_SLOT);
        // `m` long, as a slice: a position's slot needs no bounds test.
        let slot = &mut slot[..m];
        slot[0].place = Place::Root;
        let is_leaf = |i: u32| !cfg.is_header(i) && !cfg.has_dom_children(i);

        // A node that leaves loops on the way from its dominator `d` goes
        // after the outermost loop it leaves: the loop enclosing `d` at depth
        // `depth(enclosing(i)) + 1`. Answered below.
        hoist.clear(); // (node, from loop, depth, answer)
        // Most `Inner` (`Outer`) kids of one node so far.
        let mut widest = 0;
        for i in 1..m as u32 {
            let Dom { idom: d, forward_in, .. } = cfg.dom[i as usize];
            let leaves_loops = cfg.has_loops && loops.enclosing(i) != loops.loop_of(cfg, d);
            if forward_in == 1 && (!leaves_loops || is_leaf(i)) {
                // Inline (possibly demoted by depth: see `place_depths`).
                slot[i as usize].parent = d;
            } else if leaves_loops {
                slot[i as usize].place = Place::Outer;
                hoist.push((i, loops.loop_of(cfg, d), loops.depth_of(loops.enclosing(i)) + 1, NONE));
            } else {
                slot[i as usize].place = Place::Inner;
                slot[i as usize].parent = d;
                slot[d as usize].inner += 1;
                widest = widest.max(slot[d as usize].inner);
            }
        }
        // Each by walking up from its loop (loops nest a few deep), unless
        // that takes more than linear time in all: then in one walk over the
        // loop forest.
        let mut steps = 2 * m + 64;
        for q in hoist.iter_mut() {
            let mut h = q.1;
            while loops.depth[h as usize] > q.2 && steps > 0 {
                h = loops.outer[h as usize];
                steps -= 1;
            }
            q.3 = h;
        }
        if steps == 0 {
            ancestor_loops(cfg, loops, hoist, ancestors);
        } else if cfg!(test) {
            let mut offline = hoist.clone();
            ancestor_loops(cfg, loops, &mut offline, ancestors);
            assert_eq!(*hoist, offline, "walks and the offline answers differ");
        }
        for &(i, _, _, h) in hoist.iter() {
            slot[i as usize].parent = h;
            slot[h as usize].outer += 1;
            widest = widest.max(slot[h as usize].outer);
        }

        // Labels by position, none numbered: see `loop_label`.
        *num_labels = 2 * m as u32;
        // Each level of nesting is a label (a node has at most two) or an
        // inline step, so the tree nests at most `3m + 1` deep: in a body
        // that small (most of them) no inline node is demoted and the depth
        // is within bounds, and the widest node is known (the counts above).
        let cap = max_inline_depth.min(max_tree_depth) as u64;
        let mut bound = 3 * m as u64 + 1;
        if bound > cap {
            // A larger body: the finer bound nearly always fits.
            bound = depth_bound(cfg, slot);
        }
        if bound <= cap {
            if cfg!(test) {
                // The pass below would change nothing read after it.
                let mut exact = slot.to_vec();
                let (depth, wide) = place_depths(&mut exact, cfg, max_inline_depth, widest);
                assert!(exact.iter().zip(slot.iter()).all(|(a, b)| a.place == b.place && a.parent == b.parent));
                assert!(depth as u64 <= bound && wide == widest, "depth {depth} over its bound {bound}");
            }
            *max_depth = bound as u32;
            *fanout = widest as usize;
            return;
        }
        (*max_depth, widest) = place_depths(slot, cfg, max_inline_depth, widest);
        *fanout = widest as usize;
    }

    /// Groups of nodes (RPO positions) placed after more than `max_fanout`
    /// `block`s of one node, to be reached through a
    /// dispatcher each. Dispatchers are left out: their in-edges already set
    /// the dispatch variable.
    fn wide_groups(&self, num_blocks: u32, cfg: &Cfg, max_fanout: usize) -> Vec<Vec<u32>> {
        let mut groups = Vec::new();
        if self.fanout <= max_fanout {
            // No node is that wide (nearly always): no need to count again.
            return groups;
        }
        let m = cfg.len();
        let parents: Vec<u32> = self.slot[1..].iter().map(|s| s.parent).collect();
        let (mut kid_start, mut kids) = (Vec::new(), Vec::new());
        group_by_into(&parents, 1, m, &mut kid_start, &mut kids);
        for x in 0..m {
            let kids = &kids[kid_start[x]..kid_start[x + 1]];
            for p in [Place::Inner, Place::Outer] {
                let count = kids.iter().filter(|&&y| self.slot[y as usize].place == p).count();
                if count > max_fanout {
                    let group: Vec<u32> = kids
                        .iter()
                        .copied()
                        .filter(|&y| self.slot[y as usize].place == p && cfg.order[y as usize] < num_blocks)
                        .collect();
                    if group.len() >= 2 {
                        groups.push(group);
                    }
                }
            }
        }
        groups
    }

    /// Emits the tree into `out` bottom-up (latest RPO first, so every
    /// node's children are done before it). Sequences are built back to
    /// front, so that putting a `block` in front of a long sequence is a
    /// push; a finished sequence is copied into `out.nodes` in order.
    #[inline(never)]
    fn build(&mut self, graph: View<'_>, cfg: &Cfg, out: &mut Structured) {
        let m = cfg.len();
        let slot = &self.slot[..m];
        build_with(&mut self.open, graph, cfg, out, |x| (slot[x].place, slot[x].parent));
        out.num_labels = self.num_labels;
    }

    /// [`Layout::build`] of a body of `m` nodes with `3m + 1` within the
    /// depth caps and `m` within the fan-out cap, without `fill`'s pass:
    /// `fill` would demote nothing, its depth bound would pass and no node
    /// has `m` kids, so only each node's place and parent are read, and
    /// those are `fill`'s first loop and hoisting, node by node (the same
    /// tests; an `Outer` node's loop by the walk up, which `fill` answers the
    /// same way or offline with the same result).
    #[inline(never)]
    fn build_small(&mut self, graph: View<'_>, cfg: &Cfg, loops: &LoopForest, out: &mut Structured) {
        let m = cfg.len();
        let dom = &cfg.dom[..m];
        let place_of = |x: usize| {
            if x == 0 {
                return (Place::Root, NONE);
            }
            let Dom { idom: d, forward_in, size, header, .. } = dom[x];
            let i = x as u32;
            let leaves_loops = cfg.has_loops && loops.enclosing(i) != loops.loop_of(cfg, d);
            if forward_in == 1 && (!leaves_loops || (!header && size <= 1)) {
                (Place::Inline, d)
            } else if leaves_loops {
                let mut h = loops.loop_of(cfg, d);
                let depth = loops.depth_of(loops.enclosing(i)) + 1;
                while loops.depth[h as usize] > depth {
                    h = loops.outer[h as usize];
                }
                (Place::Outer, h)
            } else {
                (Place::Inner, d)
            }
        };
        if cfg!(test) {
            let mut general = self.clone();
            general.fill(cfg, loops, MAX_INLINE_DEPTH, MAX_TREE_DEPTH);
            assert!(general.depth as usize <= 3 * m + 1 && general.fanout < m.max(1), "not small");
            for x in 0..m {
                let s = general.slot[x];
                assert_eq!((s.place, s.parent), place_of(x), "position {x}");
            }
        }
        build_with(&mut self.open, graph, cfg, out, place_of);
        // Labels by position, as `fill` counts them.
        out.num_labels = 2 * m as u32;
    }
}

/// [`Layout::build`] into `out` with `open` as its state, where
/// `place_of(x)` is the place and parent of position `x`, asked once per
/// position, latest first.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn build_with(
    open: &mut Vec<Open>,
    graph: View<'_>,
    cfg: &Cfg,
    out: &mut Structured,
    place_of: impl Fn(usize) -> (Place, u32),
) {
    let m = cfg.len();
    let head = Node::Basic { block: 0, exits: Exits::default() };
    reset(open, m, Open { head, tail: NONE, inner: NONE, outer: NONE, next: NONE });
    // `m` long, as a slice: a position's entry needs no bounds test.
    let open = &mut open[..m];
    let (num_blocks, num_nodes) = match graph {
        View::Plain(s) => (s.len() as u32, s.len()),
        View::Graph(g) => (g.num_blocks, g.num_nodes()),
    };
    for x in (0..m).rev() {
        let node = cfg.order[x];
        let exits_start = out.exits.len() as u32;
        match graph {
            View::Plain(ref s) => {
                for &t in s.out(node) {
                    push_exit(out, open, cfg, x, t, t, NONE);
                }
            }
            View::Graph(g) => {
                for e in g.out(node) {
                    push_exit(out, open, cfg, x, e.to, e.target, e.dispatch_value);
                }
            }
        }
        let exits = Exits { start: exits_start, end: out.exits.len() as u32 };
        let head = if node < num_blocks {
            Node::Basic { block: node, exits }
        } else {
            Node::Dispatch { var: DISPATCH_VAR, exits }
        };
        let (mut head, mut tail) = wrap_in_blocks(out, open, head, NONE, open[x].inner);
        if cfg.is_header(x as u32) {
            let body = finish(out, open, head, tail);
            head = Node::Loop { label: loop_label(x), body };
            tail = NONE;
        }
        (head, tail) = wrap_in_blocks(out, open, head, tail, open[x].outer);
        open[x].head = head;
        open[x].tail = tail;
        // Into the parent's list of code to put after its `block`s.
        let (place, p) = place_of(x);
        let p = p as usize;
        match place {
            Place::Inner => {
                open[x].next = std::mem::replace(&mut open[p].inner, x as u32);
            }
            Place::Outer => {
                open[x].next = std::mem::replace(&mut open[p].outer, x as u32);
            }
            Place::Inline => open[x].next = INLINE,
            Place::Root => {}
        }
    }
    out.body = finish(out, open, open[0].head, open[0].tail);
    out.num_dispatch_vars = (num_nodes > num_blocks as usize) as u32;
}

/// The depths of `slot`'s layout (in RPO, so a node's parent is done before
/// it: the depth at which the node's code starts, its first node's body
/// depth, comes from its parent), demoting inline kids that would nest
/// deeper than `max_inline_depth`: the tree's depth and its widest node
/// (`widest`, the widest before any demotion, updated).
fn place_depths(slot: &mut [Slot], cfg: &Cfg, max_inline_depth: u32, mut widest: u32) -> (u32, u32) {
    let m = slot.len();
    let is_leaf = |i: u32| !cfg.is_header(i) && !cfg.has_dom_children(i);
    // The demotable kids, counted here rather than as `fill` places them:
    // few bodies come here.
    for x in 1..m {
        if slot[x].place == Place::Inline && !is_leaf(x as u32) {
            let p = slot[x].parent as usize;
            slot[p].demotable += 1;
        }
    }
    let mut depth = 0;
    for x in 0..m {
        let s = if x == 0 {
            0
        } else {
            let p = slot[x].parent as usize;
            if slot[x].place == Place::Inline && slot[p].demote && !is_leaf(x as u32) {
                slot[x].place = Place::Inner;
            }
            match slot[x].place {
                Place::Outer => {
                    slot[p].next_outer -= 1;
                    slot[p].next_outer
                }
                Place::Inner => {
                    slot[p].next_inner -= 1;
                    slot[p].next_inner
                }
                _ => slot[p].body_depth + 1,
            }
        };
        let in_loop = cfg.is_header(x as u32) as u32;
        let sx = &mut slot[x];
        let n_outer = sx.outer;
        if s + n_outer + in_loop + sx.inner + 1 > max_inline_depth && sx.demotable != 0 {
            sx.inner += sx.demotable;
            sx.demote = true;
        }
        let n_inner = sx.inner;
        // Places of `x`'s kids are final from here on.
        widest = widest.max(n_outer.max(n_inner));
        sx.next_outer = s + n_outer;
        // The basic block's body is at depth s + n_outer + in_loop +
        // n_inner, counting the function body as depth 0.
        sx.body_depth = s + n_outer + in_loop + n_inner;
        sx.next_inner = sx.body_depth;
        depth = depth.max(sx.body_depth + 1);
    }
    (depth, widest)
}

/// A bound of the depth of a layout that demotes nothing, node by node in
/// RPO: its parent's bound + 1, plus its own `block`s and `loop` (its code
/// starts at most one level below its parent's body: `place_depths` counts
/// an `Inner` or `Outer` kid's start down from there), kept in `body_depth`
/// (which `place_depths` writes before it reads). Within the inline cap, no
/// node is demoted.
#[inline(never)]
fn depth_bound(cfg: &Cfg, slot: &mut [Slot]) -> u64 {
    let mut depth = 0;
    // (As long as `slot`: a position's entry needs no bounds test.)
    let dom = &cfg.dom[..slot.len()];
    for x in 0..slot.len() {
        let up = if x == 0 { 0 } else { slot[slot[x].parent as usize].body_depth + 1 };
        let sx = &mut slot[x];
        sx.body_depth = up + sx.outer + sx.inner + dom[x].header as u32;
        depth = depth.max(sx.body_depth + 1);
    }
    depth as u64
}

/// Appends to `out.exits` how position `x`'s edge to node `to` (finally
/// block `target`, setting the dispatch variable to `dispatch_value`) leaves.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn push_exit(
    out: &mut Structured,
    open: &[Open],
    cfg: &Cfg,
    x: usize,
    to: u32,
    target: u32,
    dispatch_value: u32,
) {
    let j = cfg.pos[to as usize] as usize;
    let how = if j <= x {
        ExitHow::Br(loop_label(j))
    } else if open[j].next != INLINE {
        ExitHow::Br(block_label(j))
    } else {
        // Inline bodies go to `out.nodes`, never to `out.exits`: this node's
        // exits stay one run.
        ExitHow::Inline(finish(out, open, open[j].head, open[j].tail))
    };
    let set_dispatch = (dispatch_value != NONE).then_some((DISPATCH_VAR, dispatch_value));
    out.exits.push(Exit { target, set_dispatch, how });
}

/// The label of the `loop` of the header at position `x`. Labels go by
/// position, two each (the `loop`, then the `block` the node goes after),
/// in the order a count over the labeled nodes would number them, so
/// nothing numbers them: a tree's labels are below `2m`, some unused.
fn loop_label(x: usize) -> LabelId {
    LabelId(2 * x as u32)
}

/// The label of the `block` the node at position `x` goes after
/// ([`loop_label`]).
fn block_label(x: usize) -> LabelId {
    LabelId(2 * x as u32 + 1)
}

/// `v` as `n` copies of `x`, in its own buffer.
fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

/// Items `first + k` grouped by `key[k] < groups` (in increasing item order
/// within a group), as a compressed row form in `start` and `items`; `NONE`
/// keys are left out.
fn group_by_into(key: &[u32], first: u32, groups: usize, start: &mut Vec<usize>, items: &mut Vec<u32>) {
    reset(start, groups + 1, 0);
    for &k in key.iter().filter(|&&k| k != NONE) {
        start[k as usize + 1] += 1;
    }
    for i in 0..groups {
        start[i + 1] += start[i];
    }
    // Filled from each group's start, which moves every start one group
    // on; moved back after.
    reset(items, start[groups], 0);
    for (item, &k) in key.iter().enumerate().filter(|&(_, &k)| k != NONE) {
        items[start[k as usize]] = first + item as u32;
        start[k as usize] += 1;
    }
    for i in (1..=groups).rev() {
        start[i] = start[i - 1];
    }
    start[0] = 0;
}


/// Buffers of [`ancestor_loops`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct AncestorScratch {
    keys: Vec<u32>,
    query_start: Vec<usize>,
    by_loop: Vec<u32>,
    parent_of_nested: Vec<u32>,
    child_start: Vec<usize>,
    children: Vec<u32>,
    path: Vec<u32>,
    stack: Vec<(u32, usize)>,
}

/// For each query `(node, loop, depth, _)`, the loop containing `loop` at
/// nesting depth `depth`, stored in its last field; one walk over the loop
/// forest.
fn ancestor_loops(cfg: &Cfg, loops: &LoopForest, queries: &mut [(u32, u32, u32, u32)], sc: &mut AncestorScratch) {
    if queries.is_empty() {
        return;
    }
    let m = cfg.len();
    let AncestorScratch { keys, query_start, by_loop, parent_of_nested, child_start, children, path, stack } = sc;
    keys.clear();
    keys.extend(queries.iter().map(|q| q.1));
    group_by_into(keys, 0, m, query_start, by_loop);
    parent_of_nested.clear();
    parent_of_nested.extend((0..m as u32).map(|h| if cfg.is_header(h) { loops.outer[h as usize] } else { NONE }));
    group_by_into(parent_of_nested, 0, m, child_start, children);
    let mut answer_at = |h: usize, path: &[u32]| {
        for &q in &by_loop[query_start[h]..query_start[h + 1]] {
            let depth = queries[q as usize].2;
            queries[q as usize].3 = path[depth as usize - 1];
        }
    };
    path.clear();
    stack.clear();
    for root in (0..m).filter(|&h| cfg.is_header(h as u32) && loops.outer[h] == NONE) {
        stack.push((root as u32, child_start[root]));
        path.push(root as u32);
        answer_at(root, path);
        while let Some(top) = stack.last_mut() {
            let (h, next) = *top;
            if next < child_start[h as usize + 1] {
                top.1 += 1;
                let c = children[next];
                stack.push((c, child_start[c as usize]));
                path.push(c);
                answer_at(c as usize, path);
            } else {
                stack.pop();
                path.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    // The tests read trees nested, as values: these shadow the flat types
    // of the structurer, and `nest` builds them from its output.
    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Node {
        Block { label: LabelId, body: Vec<Node> },
        Loop { label: LabelId, body: Vec<Node> },
        Basic { block: u32, exits: Vec<Exit> },
        Dispatch { var: u32, exits: Vec<Exit> },
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Exit {
        target: u32,
        set_dispatch: Option<(u32, u32)>,
        how: ExitHow,
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    enum ExitHow {
        Br(LabelId),
        Inline(Vec<Node>),
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Structured {
        body: Vec<Node>,
        num_labels: u32,
        num_dispatch_vars: u32,
    }

    fn nest(s: &super::Structured) -> Structured {
        fn body(s: &super::Structured, b: super::Body) -> Vec<Node> {
            s.nodes_of(b).iter().map(|n| node(s, n)).collect()
        }
        fn exits(s: &super::Structured, e: super::Exits) -> Vec<Exit> {
            s.exits_of(e)
                .iter()
                .map(|x| Exit {
                    target: x.target,
                    set_dispatch: x.set_dispatch,
                    how: match x.how {
                        super::ExitHow::Br(l) => ExitHow::Br(l),
                        super::ExitHow::Inline(b) => ExitHow::Inline(body(s, b)),
                    },
                })
                .collect()
        }
        fn node(s: &super::Structured, n: &super::Node) -> Node {
            match *n {
                super::Node::Block { label, body: b } => Node::Block { label, body: body(s, b) },
                super::Node::Loop { label, body: b } => Node::Loop { label, body: body(s, b) },
                super::Node::Basic { block, exits: e } => Node::Basic { block, exits: exits(s, e) },
                super::Node::Dispatch { var, exits: e } => Node::Dispatch { var, exits: exits(s, e) },
            }
        }
        Structured { body: body(s, s.body), num_labels: s.num_labels, num_dispatch_vars: s.num_dispatch_vars }
    }

    fn structure<'a>(num_blocks: usize, succs: impl Fn(u32) -> &'a [u32]) -> Structured {
        nest(&super::structure(num_blocks, succs))
    }

    fn structure_with<'a>(
        num_blocks: usize,
        succs: impl Fn(u32) -> &'a [u32],
        limits: Limits,
        engine: &mut DomCfg,
        known: Option<&DomCfg>,
    ) -> Structured {
        let mut out = super::Structured::default();
        super::structure_with(num_blocks, succs, limits, engine, known, &mut out);
        nest(&out)
    }

    /// SplitMix64: a small seeded generator, enough for test data.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    fn run(succs: &[Vec<u32>]) -> Structured {
        structure(succs.len(), |b| &succs[b as usize])
    }

    fn reachable(succs: &[Vec<u32>]) -> Vec<bool> {
        let mut seen = vec![false; succs.len()];
        if succs.is_empty() {
            return seen;
        }
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(b) = stack.pop() {
            for &t in &succs[b as usize] {
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    stack.push(t);
                }
            }
        }
        seen
    }

    /// Structural invariants of the contract; returns the tree's depth in
    /// bodies. Walks the tree with an explicit stack, so it also works on
    /// the big graphs.
    fn check_invariants(s: &Structured, succs: &[Vec<u32>]) -> usize {
        let live = reachable(succs);
        let mut seen_block = vec![false; succs.len()];
        let mut label_defined = vec![false; s.num_labels as usize];
        let mut label_used = vec![false; s.num_labels as usize];
        // (body, index into it, depth, number of labels in scope)
        let mut scope: Vec<LabelId> = Vec::new();
        let mut work: Vec<(&[Node], usize, usize, usize)> = vec![(&s.body, 0, 1, 0)];
        let mut max_depth = 0;
        let check_exit = |exit: &Exit, scope: &[LabelId], used: &mut [bool]| {
            if let Some((var, _)) = exit.set_dispatch {
                assert!(var < s.num_dispatch_vars, "dispatch variable {var} out of range");
            }
            if let ExitHow::Br(l) = exit.how {
                assert!(scope.contains(&l), "br {l:?} to a label that does not enclose it (scope {scope:?})");
                used[l.0 as usize] = true;
            }
        };
        while let Some((body, i, depth, in_scope)) = work.pop() {
            scope.truncate(in_scope);
            max_depth = max_depth.max(depth);
            if i == body.len() {
                continue;
            }
            work.push((body, i + 1, depth, in_scope));
            let last = i + 1 == body.len();
            assert!(!(last && matches!(body[i], Node::Block { .. })), "a body ends with a block");
            match &body[i] {
                Node::Block { label, body: inner } | Node::Loop { label, body: inner } => {
                    assert!(label.0 < s.num_labels, "label {label:?} out of range");
                    assert!(!label_defined[label.0 as usize], "label {label:?} defined twice");
                    label_defined[label.0 as usize] = true;
                    assert!(!inner.is_empty(), "empty construct");
                    // Work items record their scope by length: the labels
                    // below that length are theirs (items above them on the
                    // stack never have shorter scopes).
                    scope.push(*label);
                    work.push((inner, 0, depth + 1, scope.len()));
                }
                Node::Basic { block, exits } => {
                    assert!(last, "something follows basic block {block}");
                    assert!(live[*block as usize], "unreachable block {block} emitted");
                    assert!(!seen_block[*block as usize], "block {block} emitted twice");
                    seen_block[*block as usize] = true;
                    let want = &succs[*block as usize];
                    assert_eq!(exits.len(), want.len(), "block {block}: one exit per successor");
                    for (exit, &t) in exits.iter().zip(want) {
                        assert_eq!(exit.target, t, "block {block}: exit target");
                        check_exit(exit, &scope, &mut label_used);
                        if let ExitHow::Inline(inner) = &exit.how {
                            assert!(!inner.is_empty(), "empty inline code");
                            work.push((inner, 0, depth + 1, scope.len()));
                        }
                    }
                }
                Node::Dispatch { var, exits } => {
                    assert!(last, "something follows a dispatcher");
                    assert!(*var < s.num_dispatch_vars, "dispatch variable {var} out of range");
                    assert!(exits.len() >= 2, "a dispatcher needs two entries");
                    for exit in exits {
                        assert!(live[exit.target as usize], "dispatch to unreachable block");
                        check_exit(exit, &scope, &mut label_used);
                        if let ExitHow::Inline(inner) = &exit.how {
                            assert!(!inner.is_empty(), "empty inline code");
                            work.push((inner, 0, depth + 1, scope.len()));
                        }
                    }
                }
            }
        }
        for b in 0..succs.len() {
            assert_eq!(seen_block[b], live[b], "block {b}: emitted {} but reachable {}", seen_block[b], live[b]);
        }
        // (Labels go by position: some below `num_labels` are not defined.)
        assert!(label_used.iter().zip(&label_defined).all(|(&u, &d)| u == d), "a label is never branched to");
        max_depth
    }

    enum Flow {
        Next,
        Br(LabelId),
        Stop,
    }

    /// Runs a structured tree with wasm semantics, choosing each block's
    /// successor from `rng`; records the blocks visited.
    struct Interpreter<'a> {
        succs: &'a [Vec<u32>],
        rng: Rng,
        trace: Vec<u32>,
        max_steps: usize,
        vars: Vec<Option<u32>>,
        hops: usize,
    }

    impl Interpreter<'_> {
        fn body(&mut self, body: &[Node]) -> Flow {
            for node in body {
                match self.node(node) {
                    Flow::Next => {}
                    flow => return flow,
                }
            }
            Flow::Next
        }

        fn node(&mut self, node: &Node) -> Flow {
            match node {
                Node::Block { label, body } => match self.body(body) {
                    Flow::Br(l) if l == *label => Flow::Next,
                    flow => flow,
                },
                Node::Loop { label, body } => loop {
                    match self.body(body) {
                        Flow::Br(l) if l == *label => continue,
                        flow => return flow,
                    }
                },
                Node::Basic { block, exits } => {
                    self.trace.push(*block);
                    self.hops = 0;
                    let succs = &self.succs[*block as usize];
                    assert_eq!(exits.len(), succs.len());
                    if succs.is_empty() || self.trace.len() >= self.max_steps {
                        return Flow::Stop;
                    }
                    let k = self.rng.below(succs.len());
                    let flow = self.exit(&exits[k]);
                    assert!(!matches!(flow, Flow::Next), "fell through after block {block}");
                    flow
                }
                Node::Dispatch { var, exits } => {
                    self.hops += 1;
                    assert!(self.hops <= 64, "dispatchers chained without reaching a block");
                    let k = self.vars[*var as usize].expect("dispatch variable read before it was set");
                    let flow = self.exit(&exits[k as usize]);
                    assert!(!matches!(flow, Flow::Next), "fell through after a dispatcher");
                    flow
                }
            }
        }

        fn exit(&mut self, exit: &Exit) -> Flow {
            if let Some((var, value)) = exit.set_dispatch {
                self.vars[var as usize] = Some(value);
            }
            match &exit.how {
                ExitHow::Br(l) => Flow::Br(*l),
                ExitHow::Inline(body) => self.body(body),
            }
        }
    }

    /// Blocks visited by the structured code and by the CFG itself under the
    /// same successor choices (`seed`), up to `max_steps` blocks.
    fn traces(s: &Structured, succs: &[Vec<u32>], seed: u64, max_steps: usize) -> (Vec<u32>, Vec<u32>) {
        let mut interp = Interpreter {
            succs,
            rng: Rng(seed),
            trace: Vec::new(),
            max_steps,
            vars: vec![None; s.num_dispatch_vars as usize],
            hops: 0,
        };
        match interp.body(&s.body) {
            Flow::Stop => {}
            Flow::Next => panic!("fell off the end of the function"),
            Flow::Br(l) => panic!("br {l:?} escaped the function"),
        }
        let mut rng = Rng(seed);
        let mut direct = Vec::new();
        let mut b = 0u32;
        loop {
            direct.push(b);
            let next = &succs[b as usize];
            if next.is_empty() || direct.len() >= max_steps {
                break;
            }
            b = next[rng.below(next.len())];
        }
        (interp.trace, direct)
    }

    /// Structures `succs`, checks the invariants and compares `walks` random
    /// executions with the CFG. Returns the structured tree.
    fn check(succs: &[Vec<u32>], walks: u64, seed: u64) -> Structured {
        check_with(succs, walks, seed, Limits::DEFAULT)
    }

    fn check_with(succs: &[Vec<u32>], walks: u64, seed: u64, limits: Limits) -> Structured {
        let s = structure_with(succs.len(), |b| &succs[b as usize], limits, &mut DomCfg::default(), None);
        check_invariants(&s, succs);
        for w in 0..walks {
            let (got, want) = traces(&s, succs, seed.wrapping_mul(1000).wrapping_add(w), 300);
            assert_eq!(got, want, "walk {w} of {succs:?} with {limits:?}\n{s:#?}");
        }
        s
    }

    /// Successor count: some exits, mostly branches, some switches.
    fn random_arity(rng: &mut Rng) -> usize {
        match rng.below(20) {
            0..=2 => 0,
            3..=8 => 1,
            9..=16 => 2,
            _ => 3 + rng.below(6),
        }
    }

    /// Any graph: targets uniform, so self-loops, duplicate edges and
    /// multi-entry cycles are common.
    fn random_graph(rng: &mut Rng, n: usize) -> Vec<Vec<u32>> {
        (0..n)
            .map(|_| {
                let k = random_arity(rng);
                let mut out: Vec<u32> = (0..k).map(|_| rng.below(n) as u32).collect();
                if k >= 2 && rng.chance(15) {
                    out[1] = out[0];
                }
                out
            })
            .collect()
    }

    /// A reducible graph: forward edges (mostly short), plus back edges only
    /// to dominators of the source.
    fn random_reducible(rng: &mut Rng, n: usize) -> Vec<Vec<u32>> {
        assert!(n <= 64);
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, out) in succs.iter_mut().enumerate() {
            let k = random_arity(rng);
            for _ in 0..k {
                if i + 1 < n && !rng.chance(10) {
                    let span = if rng.chance(70) { 4 } else { n - i - 1 };
                    out.push((i + 1 + rng.below(span.min(n - i - 1))) as u32);
                } else {
                    out.push(u32::MAX); // back edge, filled in below
                }
            }
        }
        // Dominators of the forward DAG (bit sets), in index order.
        let mut dom = vec![0u64; n];
        let mut reached = vec![false; n];
        reached[0] = true;
        dom[0] = 1;
        for i in 0..n {
            if !reached[i] {
                continue;
            }
            for &t in &succs[i] {
                if t != u32::MAX {
                    let t = t as usize;
                    dom[t] = if reached[t] { dom[t] & (dom[i] | 1 << t) } else { dom[i] | 1 << t };
                    reached[t] = true;
                }
            }
        }
        for i in 0..n {
            let doms: Vec<u32> = (0..n as u32).filter(|&d| dom[i] >> d & 1 == 1).collect();
            for t in succs[i].iter_mut().filter(|t| **t == u32::MAX) {
                // Unreachable blocks: any target (they are left out anyway).
                *t = if doms.is_empty() { rng.below(n) as u32 } else { doms[rng.below(doms.len())] };
            }
        }
        succs
    }

    /// Random structured programs (sequences, if/else, loops with break and
    /// continue to any enclosing loop, switches with fallthrough and shared
    /// cases, returns): reducible CFGs shaped like compiled code.
    struct ProgramGen<'r> {
        rng: &'r mut Rng,
        succs: Vec<Vec<u32>>,
        /// (header, exit) of the enclosing loops.
        loops: Vec<(u32, u32)>,
        budget: usize,
    }

    impl ProgramGen<'_> {
        fn generate(rng: &mut Rng, budget: usize) -> Vec<Vec<u32>> {
            let mut g = ProgramGen { rng, succs: vec![Vec::new()], loops: Vec::new(), budget };
            // The last open block returns (its successor list stays empty).
            g.statements(0, 0);
            g.succs
        }

        fn block(&mut self) -> u32 {
            self.succs.push(Vec::new());
            self.succs.len() as u32 - 1
        }

        /// Emits statements into open block `cur`; the open block control
        /// falls out of, or `None` after a jump or return.
        fn statements(&mut self, mut cur: u32, depth: usize) -> Option<u32> {
            while self.succs.len() < self.budget && (depth == 0 || !self.rng.chance(12)) {
                let nested = depth < 8;
                cur = match self.rng.below(20) {
                    0..=4 => {
                        let b = self.block();
                        self.succs[cur as usize] = vec![b];
                        b
                    }
                    5..=9 if nested => {
                        let (then, other, join) = (self.block(), self.block(), self.block());
                        self.succs[cur as usize] =
                            if self.rng.chance(30) { vec![then, join] } else { vec![then, other] };
                        let mut joined = false;
                        for arm in [then, other] {
                            if let Some(end) = self.statements(arm, depth + 1) {
                                self.succs[end as usize] = vec![join];
                                joined = true;
                            }
                        }
                        if !joined {
                            self.succs[cur as usize].push(join);
                        }
                        join
                    }
                    10..=13 if nested => {
                        let (header, body, exit) = (self.block(), self.block(), self.block());
                        self.succs[cur as usize] = vec![header];
                        self.succs[header as usize] = vec![body, exit];
                        self.loops.push((header, exit));
                        if let Some(end) = self.statements(body, depth + 1) {
                            // Bottom-tested or plain back edge.
                            self.succs[end as usize] =
                                if self.rng.chance(50) { vec![header] } else { vec![exit, header] };
                        }
                        self.loops.pop();
                        exit
                    }
                    14..=15 if nested => {
                        let join = self.block();
                        let cases: Vec<u32> = (0..1 + self.rng.below(8)).map(|_| self.block()).collect();
                        let mut out = vec![join];
                        for _ in 0..cases.len() + self.rng.below(4) {
                            out.push(cases[self.rng.below(cases.len())]);
                        }
                        self.succs[cur as usize] = out;
                        for (k, &case) in cases.iter().enumerate() {
                            if let Some(end) = self.statements(case, depth + 1) {
                                let fall = cases.get(k + 1).copied().filter(|_| self.rng.chance(30));
                                self.succs[end as usize] = vec![fall.unwrap_or(join)];
                            }
                        }
                        join
                    }
                    16..=17 if !self.loops.is_empty() => {
                        let (header, exit) = self.loops[self.rng.below(self.loops.len())];
                        let target = if self.rng.chance(50) { header } else { exit };
                        // Conditional break/continue, or an unconditional one.
                        if self.rng.chance(50) {
                            let b = self.block();
                            self.succs[cur as usize] = vec![target, b];
                            b
                        } else {
                            self.succs[cur as usize] = vec![target];
                            return None;
                        }
                    }
                    18 if depth > 0 => return None, // return
                    _ => continue,
                };
            }
            Some(cur)
        }
    }

    /// A structured program with some `goto`s added: edges into the middle
    /// of loops make multi-entry regions like those compilers emit.
    fn program_with_gotos(rng: &mut Rng, budget: usize, gotos: usize) -> Vec<Vec<u32>> {
        let mut succs = ProgramGen::generate(rng, budget);
        let n = succs.len();
        for _ in 0..gotos {
            let from = rng.below(n);
            let to = rng.below(n) as u32;
            if succs[from].is_empty() || rng.chance(50) {
                succs[from].push(to);
            } else {
                let k = rng.below(succs[from].len());
                succs[from][k] = to;
            }
        }
        succs
    }

    fn has_dispatch(s: &Structured) -> bool {
        s.num_dispatch_vars > 0
    }

    /// The three-block forks take a shortcut: it must give the general
    /// path's tree, whatever the successor order and block numbering.
    #[test]
    fn forks_match_the_general_path() {
        let shapes: [&[&[u32]]; 6] = [
            &[&[1, 2], &[2], &[]],
            &[&[2, 1], &[2], &[]],
            &[&[1, 2], &[], &[1]],
            &[&[2, 1], &[], &[1]],
            &[&[1, 2], &[], &[]],
            &[&[2, 1], &[], &[]],
        ];
        for succs in shapes {
            let (start, to) = super::rows(3, |b| succs[b as usize]);
            let plain = super::Succs { start: &start, to: &to };
            let mut fast = super::Structured::default();
            assert!(super::fork(plain, &mut fast), "{succs:?} not taken");
            let mut general = super::Structured::default();
            let mut engine = super::DomCfg::default();
            super::structure_general(plain, super::Limits::DEFAULT, &mut engine, None, &mut general);
            assert_eq!(
                (fast.body, fast.num_labels, fast.num_dispatch_vars, &fast.nodes, &fast.exits),
                (general.body, general.num_labels, general.num_dispatch_vars, &general.nodes, &general.exits),
                "{succs:?}"
            );
        }
        // Not forks: left to the general path.
        let others: [&[&[u32]]; 4] = [&[&[1, 2], &[2], &[1]], &[&[1, 1], &[2], &[]], &[&[1], &[2], &[]], &[&[1, 2], &[0], &[]]];
        for succs in others {
            let (start, to) = super::rows(3, |b| succs[b as usize]);
            assert!(!super::fork(super::Succs { start: &start, to: &to }, &mut super::Structured::default()), "{succs:?}");
        }
    }

    #[test]
    fn single_block() {
        let s = check(&[vec![]], 1, 1);
        assert_eq!(s.body, vec![Node::Basic { block: 0, exits: vec![] }]);
        assert_eq!((s.num_labels, s.num_dispatch_vars), (0, 0));
    }

    #[test]
    fn no_blocks() {
        let s = structure(0, |_| &[]);
        assert!(s.body.is_empty());
    }

    #[test]
    fn self_loop_on_entry() {
        let s = check(&[vec![0, 1], vec![]], 20, 2);
        let Node::Loop { label, body } = &s.body[0] else { panic!("{s:?}") };
        let Node::Basic { block: 0, exits } = &body[0] else { panic!("{s:?}") };
        assert_eq!(exits[0].how, ExitHow::Br(*label));
        assert!(matches!(exits[1].how, ExitHow::Inline(_)));
    }

    #[test]
    fn diamond_merges_after_a_block() {
        // 0 → 1, 2; 1 → 3; 2 → 3.
        let s = check(&[vec![1, 2], vec![3], vec![3], vec![]], 20, 3);
        let [Node::Block { label, body }, Node::Basic { block: 3, .. }] = &s.body[..] else { panic!("{s:#?}") };
        let Node::Basic { block: 0, exits } = &body[0] else { panic!("{s:#?}") };
        for exit in exits {
            let ExitHow::Inline(code) = &exit.how else { panic!("{s:#?}") };
            let Node::Basic { exits, .. } = &code[0] else { panic!("{s:#?}") };
            assert_eq!(exits[0].how, ExitHow::Br(*label));
        }
    }

    #[test]
    fn switch_duplicates_branch_to_a_block() {
        // A switch with three cases to block 1 and one to block 2: block 1
        // has one predecessor block but three edges, so it is a merge.
        let succs = vec![vec![1, 1, 2, 1], vec![], vec![]];
        let s = check(&succs, 30, 4);
        let Node::Block { label, body } = &s.body[0] else { panic!("{s:#?}") };
        let Node::Basic { block: 0, exits } = &body[0] else { panic!("{s:#?}") };
        for i in [0, 1, 3] {
            assert_eq!(exits[i].how, ExitHow::Br(*label));
        }
        assert!(matches!(exits[2].how, ExitHow::Inline(_)));
    }

    /// Every `Basic`/`Dispatch` node of a tree, with a stack.
    fn code_nodes(s: &Structured) -> Vec<&Node> {
        let mut out = Vec::new();
        let mut stack: Vec<&Node> = s.body.iter().collect();
        while let Some(n) = stack.pop() {
            match n {
                Node::Block { body, .. } | Node::Loop { body, .. } => stack.extend(body),
                Node::Basic { exits, .. } | Node::Dispatch { exits, .. } => {
                    out.push(n);
                    for e in exits {
                        if let ExitHow::Inline(b) = &e.how {
                            stack.extend(b);
                        }
                    }
                }
            }
        }
        out
    }

    fn exits_of(s: &Structured, block: u32) -> &[Exit] {
        code_nodes(s)
            .into_iter()
            .find_map(|n| match n {
                Node::Basic { block: b, exits } if *b == block => Some(&exits[..]),
                _ => None,
            })
            .expect("block in the tree")
    }

    #[test]
    fn two_entry_loop_gets_a_dispatcher() {
        // 0 → 1, 2; 1 ⇄ 2; 2 → 3.
        let succs = vec![vec![1, 2], vec![2], vec![1, 3], vec![]];
        let s = check(&succs, 50, 5);
        assert_eq!(s.num_dispatch_vars, 1);
        let dispatchers: Vec<&Node> =
            code_nodes(&s).into_iter().filter(|n| matches!(n, Node::Dispatch { .. })).collect();
        let [Node::Dispatch { exits, .. }] = &dispatchers[..] else { panic!("{s:#?}") };
        let targets: Vec<u32> = exits.iter().map(|e| e.target).collect();
        assert_eq!(targets, [1, 2]);
        // The two edges of block 0 and the edges 1 → 2 and 2 → 1 all go
        // through the dispatcher, choosing their target.
        let choice = |block: u32, k: usize| exits_of(&s, block)[k].set_dispatch;
        assert_eq!(choice(0, 0), Some((0, 0)));
        assert_eq!(choice(0, 1), Some((0, 1)));
        assert_eq!(choice(1, 0), Some((0, 1)));
        assert_eq!(choice(2, 0), Some((0, 0)));
        assert_eq!(choice(2, 1), None);
    }

    #[test]
    fn nested_irreducible_regions() {
        // Outer two-entry cycle {1, 2, 3, 4} entered at 1 and 3; inside it,
        // after the dispatcher, {2, 4} is entered at 2 (from 1) and 4 (from 3).
        let succs = vec![
            vec![1, 3],    // 0
            vec![2, 5],    // 1
            vec![4, 1],    // 2
            vec![4, 2, 5], // 3
            vec![2, 3, 5], // 4
            vec![],        // 5
        ];
        let s = check(&succs, 200, 6);
        let dispatchers = code_nodes(&s).iter().filter(|n| matches!(n, Node::Dispatch { .. })).count();
        assert!(dispatchers >= 2, "expected nested dispatchers, got {dispatchers}");
    }

    #[test]
    fn tracked_dominators_match_a_fresh_analysis() {
        // `make_reducible`'s tracked dominators, numbered by
        // `analyze_tracked`, against the engine's search of the new graph;
        // the loop forests of both predecessor lists too.
        let mut rng = Rng(0x5eed_000b);
        let mut tracked = 0;
        for g in 0..4000 {
            let n = 1 + rng.below(60);
            let succs = if g % 2 == 0 {
                random_graph(&mut rng, n)
            } else {
                let gotos = 1 + rng.below(4);
                program_with_gotos(&mut rng, n, gotos)
            };
            let (start, to) = super::rows(succs.len(), |b| &succs[b as usize]);
            let plain = super::Succs { start: &start, to: &to };
            let mut engine = super::DomCfg::default();
            let mut cfg = super::Cfg::default();
            cfg.analyze(super::View::Plain(plain), &mut engine, None);
            if cfg.is_reducible() {
                continue;
            }
            let mut graph = super::Graph::default();
            graph.own(&mut false, plain);
            let mut irr = super::Irr::default();
            if !super::make_reducible(&mut graph, &cfg, &mut irr, true) {
                continue;
            }
            let mut derived = super::Cfg::default();
            derived.analyze_tracked(&graph, &irr.idom, &irr.split);
            let mut fresh = super::Cfg::default();
            fresh.analyze(super::View::Graph(&graph), &mut engine, None);
            assert!(fresh.is_reducible(), "{succs:?}");
            assert_eq!(
                (&derived.order, &derived.pos, &derived.dom, &derived.headers, derived.reducible, derived.has_loops),
                (&fresh.order, &fresh.pos, &fresh.dom, &fresh.headers, fresh.reducible, fresh.has_loops),
                "{succs:?}"
            );
            let (mut own_loops, mut engine_loops) = (super::LoopForest::default(), super::LoopForest::default());
            own_loops.fill(&derived, &engine);
            engine_loops.fill(&fresh, &engine);
            for &h in &fresh.headers {
                assert_eq!(own_loops.depth_of(h), engine_loops.depth_of(h), "{succs:?}");
            }
            if fresh.has_loops {
                assert_eq!(own_loops.outer, engine_loops.outer, "{succs:?}");
            }
            tracked += 1;
        }
        assert!(tracked > 800, "only {tracked} graphs were made reducible");
    }

    #[test]
    fn unreachable_blocks_are_left_out() {
        let succs = vec![vec![2], vec![2, 1], vec![]];
        let s = check(&succs, 5, 7);
        assert_eq!(
            s.body,
            vec![Node::Basic {
                block: 0,
                exits: vec![Exit {
                    target: 2,
                    set_dispatch: None,
                    how: ExitHow::Inline(vec![Node::Basic { block: 2, exits: vec![] }]),
                }],
            }]
        );
    }

    #[test]
    fn random_reducible_graphs_match_the_cfg() {
        let mut rng = Rng(0x5eed_0001);
        let mut with_loops = 0;
        for g in 0..3000 {
            let n = 1 + rng.below(60);
            let succs = random_reducible(&mut rng, n);
            let s = check(&succs, 20, g);
            assert!(!has_dispatch(&s), "dispatcher in a reducible graph: {succs:?}");
            with_loops += format!("{s:?}").contains("Loop") as usize;
        }
        assert!(with_loops > 1000, "only {with_loops} graphs had loops");
    }

    #[test]
    fn random_graphs_match_the_cfg() {
        let mut rng = Rng(0x5eed_0002);
        let mut irreducible = 0;
        for g in 0..3000 {
            let n = 1 + rng.below(60);
            let succs = random_graph(&mut rng, n);
            let s = check(&succs, 20, g);
            irreducible += has_dispatch(&s) as usize;
        }
        assert!(irreducible > 500, "only {irreducible} irreducible graphs");
    }

    #[test]
    fn random_programs_match_the_cfg() {
        let mut rng = Rng(0x5eed_0005);
        let mut loops = 0;
        for g in 0..2000 {
            let budget = 1 + rng.below(80);
            let succs = ProgramGen::generate(&mut rng, budget);
            let s = check(&succs, 20, g);
            assert!(!has_dispatch(&s), "dispatcher in a structured program: {succs:?}");
            loops += format!("{s:?}").contains("Loop") as usize;
        }
        assert!(loops > 500, "only {loops} programs had loops");
    }

    #[test]
    fn random_programs_with_gotos_match_the_cfg() {
        let mut rng = Rng(0x5eed_0006);
        let mut irreducible = 0;
        for g in 0..2000 {
            let budget = 1 + rng.below(80);
            let gotos = 1 + rng.below(4);
            let succs = program_with_gotos(&mut rng, budget, gotos);
            let s = check(&succs, 20, g);
            irreducible += has_dispatch(&s) as usize;
        }
        assert!(irreducible > 200, "only {irreducible} irreducible programs");
    }

    /// The same kinds of graphs with tiny nesting caps, so that inline
    /// demotion, fan-out dispatchers (and their absorption into irreducible
    /// regions' dispatchers) and the one-dispatcher fallback all run.
    #[test]
    fn random_graphs_with_tight_limits_match_the_cfg() {
        let mut rng = Rng(0x5eed_0007);
        let mut dispatched = 0;
        for g in 0..6000 {
            let n = 1 + rng.below(60);
            let succs = match g % 3 {
                0 => random_graph(&mut rng, n),
                1 => ProgramGen::generate(&mut rng, n),
                _ => {
                    let gotos = 1 + rng.below(4);
                    program_with_gotos(&mut rng, n, gotos)
                }
            };
            let limits = Limits {
                tree_depth: 4 + rng.below(40) as u32,
                block_fanout: 1 + rng.below(3),
                inline_depth: 1 + rng.below(4) as u32,
            };
            let s = check_with(&succs, 10, g, limits);
            dispatched += has_dispatch(&s) as usize;
        }
        assert!(dispatched > 2000, "only {dispatched} graphs used dispatchers");
    }

    /// Dense small graphs: many overlapping multi-entry cycles.
    #[test]
    fn dense_irreducible_graphs_match_the_cfg() {
        let mut rng = Rng(0x5eed_0003);
        for g in 0..2000 {
            let n = 2 + rng.below(12);
            let succs: Vec<Vec<u32>> =
                (0..n).map(|_| (0..rng.below(5)).map(|_| rng.below(n) as u32).collect()).collect();
            check(&succs, 30, g);
        }
    }

    /// Exhaustive over all graphs of three blocks with out-degree ≤ 2.
    #[test]
    fn all_tiny_graphs_match_the_cfg() {
        let lists: Vec<Vec<u32>> = {
            let mut l = vec![vec![]];
            for a in 0..3 {
                l.push(vec![a]);
                for b in 0..3 {
                    l.push(vec![a, b]);
                }
            }
            l
        };
        let mut count = 0;
        for x in &lists {
            for y in &lists {
                for z in &lists {
                    let succs = vec![x.clone(), y.clone(), z.clone()];
                    check(&succs, 8, count);
                    count += 1;
                }
            }
        }
        assert_eq!(count, 13 * 13 * 13);
    }

    #[test]
    fn big_switch_with_fallthrough() {
        // Block 0 switches over 500 cases; case i falls through to case i+1;
        // every case may also leave to the exit; some cases are duplicated.
        let cases = 500u32;
        let exit = cases + 1;
        let mut succs: Vec<Vec<u32>> = vec![(1..=cases).chain([3, 3, exit]).collect()];
        for i in 1..=cases {
            succs.push(if i == cases { vec![exit] } else { vec![i + 1, exit] });
        }
        succs.push(vec![]);
        let s = check(&succs, 200, 8);
        // The 500 merging cases are reached through a dispatcher rather
        // than after 500 nested blocks.
        assert!(has_dispatch(&s));
        assert!(check_invariants(&s, &succs) < 20);
    }

    #[test]
    fn switch_with_a_few_hundred_merging_cases_nests_blocks() {
        // Below the fan-out cap: plain nested blocks, no dispatcher.
        let cases = 200u32;
        let exit = cases + 1;
        let mut succs: Vec<Vec<u32>> = vec![(1..=cases).chain([exit]).collect()];
        for i in 1..=cases {
            succs.push(if i == cases { vec![exit] } else { vec![i + 1, exit] });
        }
        succs.push(vec![]);
        let s = check(&succs, 200, 10);
        assert!(!has_dispatch(&s));
        assert!(check_invariants(&s, &succs) > 200);
    }

    #[test]
    fn switch_in_a_loop_with_many_exits() {
        // A loop around a 300-way switch whose cases go back to the loop,
        // return, or leave to their own code.
        let mut succs: Vec<Vec<u32>> = vec![vec![1], (2..302).collect()];
        for i in 2..302u32 {
            succs.push(match i % 3 {
                0 => vec![1],
                1 => vec![],
                _ => vec![1, 302],
            });
        }
        succs.push(vec![303, 0]);
        succs.push(vec![]);
        let s = check(&succs, 200, 9);
        assert!(check_invariants(&s, &succs) < 400);
    }

    fn timed(what: &str, succs: &[Vec<u32>]) -> (Structured, f64) {
        let t = Instant::now();
        let s = run(succs);
        let secs = t.elapsed().as_secs_f64();
        eprintln!("{what}: {} blocks structured in {:.3} s", succs.len(), secs);
        (s, secs)
    }

    #[test]
    fn long_chain_is_fast_and_shallow() {
        let n = 100_000u32;
        let succs: Vec<Vec<u32>> = (0..n).map(|i| if i + 1 < n { vec![i + 1] } else { vec![] }).collect();
        let (s, secs) = timed("chain", &succs);
        assert!(secs < 2.0, "100k-block chain took {secs} s");
        let depth = check_invariants(&s, &succs);
        assert!(depth <= MAX_INLINE_DEPTH as usize + 4, "depth {depth}");
        let (got, want) = traces(&s, &succs, 1, n as usize + 1);
        assert_eq!(got.len(), n as usize);
        assert_eq!(got, want);
    }

    #[test]
    fn long_guard_chain_and_loop_sequence_stay_shallow() {
        // Guards: block 2i tests and either returns (2i+1) or goes on.
        let n = 100_000u32;
        let mut succs: Vec<Vec<u32>> = Vec::new();
        for i in 0..n / 2 {
            let next = 2 * i + 2;
            succs.push(if next < n { vec![2 * i + 1, next] } else { vec![] });
            succs.push(vec![]);
        }
        let (s, secs) = timed("guards", &succs);
        assert!(secs < 2.0);
        let depth = check_invariants(&s, &succs);
        assert!(depth <= MAX_INLINE_DEPTH as usize + 4, "depth {depth}");
        for w in 0..20 {
            let (got, want) = traces(&s, &succs, w, 1000);
            assert_eq!(got, want);
        }

        // 20 000 loops one after the other: header h ⇄ body, h → next header.
        let loops = 20_000u32;
        let mut succs: Vec<Vec<u32>> = Vec::new();
        for i in 0..loops {
            let h = 2 * i;
            succs.push(vec![h + 1, h + 2]);
            succs.push(vec![h, h + 1]);
        }
        succs.push(vec![]);
        let (s, secs) = timed("loop sequence", &succs);
        assert!(secs < 2.0);
        let depth = check_invariants(&s, &succs);
        assert!(depth <= MAX_INLINE_DEPTH as usize + 8, "depth {depth}");
        for w in 0..20 {
            let (got, want) = traces(&s, &succs, w, 5000);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn guards_to_a_common_return_are_fast() {
        // Block i tests and either returns through the shared block n-1 or
        // goes on: one block with 100 000 predecessors along a chain.
        let n = 100_000u32;
        let succs: Vec<Vec<u32>> = (0..n)
            .map(|i| match n - 1 - i {
                0 => vec![],
                1 => vec![n - 1],
                _ => vec![n - 1, i + 1],
            })
            .collect();
        let (s, secs) = timed("guards to a common return", &succs);
        assert!(secs < 2.0, "{secs} s");
        let depth = check_invariants(&s, &succs);
        assert!(depth <= MAX_INLINE_DEPTH as usize + 4, "depth {depth}");
        for w in 0..20 {
            let (got, want) = traces(&s, &succs, w, 3000);
            assert_eq!(got, want);
        }
    }

    /// `depth` loops nested in each other (header i → i+1; the innermost
    /// body goes to the latches, latch of loop i → header i or outward),
    /// then a two-entry cycle after the nest.
    fn loop_nest(depth: u32) -> Vec<Vec<u32>> {
        let mut succs: Vec<Vec<u32>> = (0..depth).map(|i| vec![i + 1]).collect();
        let latch = |i: u32| 2 * depth - i; // latch of loop i
        succs.push(vec![latch(depth - 1)]);
        for i in (0..depth).rev() {
            succs.push(vec![i, latch(i) + 1]);
        }
        let end = succs.len() as u32;
        succs.push(vec![end + 1, end + 2]);
        succs.push(vec![end + 2, end + 3]);
        succs.push(vec![end + 1]);
        succs.push(vec![]);
        succs
    }

    #[test]
    fn many_exits_from_a_deep_loop_nest() {
        // Each exit leaves every loop and dominates code (so it goes after
        // the outermost loop), so finding that loop by walking up the forest
        // would take depth × exits steps: past the budget, the offline walk
        // answers them all.
        let (d, k) = (200u32, 200u32);
        let header = |i: u32| (1 + i) as usize;
        let body = |j: u32| 1 + d + j;
        let latch = |i: u32| 1 + d + k + i;
        let exit = |j: u32| 1 + 2 * d + k + 2 * j;
        let end = 1 + 2 * d + 3 * k;
        let mut succs = vec![Vec::new(); end as usize + 1];
        succs[0] = vec![header(0) as u32];
        for i in 0..d {
            succs[header(i)] = vec![if i + 1 < d { header(i + 1) as u32 } else { body(0) }];
        }
        for j in 0..k {
            succs[body(j) as usize] = vec![if j + 1 < k { body(j + 1) } else { latch(d - 1) }, exit(j)];
            succs[exit(j) as usize] = vec![exit(j) + 1];
            succs[exit(j) as usize + 1] = vec![end];
        }
        for i in 0..d {
            succs[latch(i) as usize] = vec![header(i) as u32, if i > 0 { latch(i - 1) } else { end }];
        }
        let s = check(&succs, 20, 1);
        assert!(!has_dispatch(&s));
    }

    #[test]
    fn deep_loop_nests_are_fast() {
        for depth in [50, 20_000] {
            let nest = loop_nest(depth);
            // A jump from the entry into the middle of the nest makes every
            // loop around that point irreducible.
            let mut jump_in = nest.clone();
            jump_in[0].push(depth / 2);
            for (what, succs) in [("loop nest", &nest), ("loop nest entered in the middle", &jump_in)] {
                let (s, secs) = timed(what, succs);
                assert!(secs < 2.0, "{what}: {secs} s");
                assert!(has_dispatch(&s));
                let tree_depth = check_invariants(&s, succs);
                assert!(tree_depth <= MAX_TREE_DEPTH as usize + 1, "{what}: depth {tree_depth}");
                for w in 0..20 {
                    let (got, want) = traces(&s, succs, w, 5 * depth as usize);
                    assert_eq!(got, want, "{what}, walk {w}");
                }
            }
        }
    }

    #[test]
    fn big_random_graphs_are_fast() {
        let mut rng = Rng(0x5eed_0004);
        let n = 10_000;
        // Uniform targets, few exits: one giant multi-entry component.
        let uniform: Vec<Vec<u32>> =
            (0..n).map(|_| (0..1 + rng.below(3)).map(|_| rng.below(n) as u32).collect()).collect();
        // Mostly local edges with some far jumps: nested multi-entry regions.
        let local: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                (0..1 + rng.below(3))
                    .map(|_| {
                        if rng.chance(95) {
                            (i as i64 + rng.below(12) as i64 - 3).clamp(0, n as i64 - 1) as u32
                        } else {
                            rng.below(n) as u32
                        }
                    })
                    .collect()
            })
            .collect();
        let program = ProgramGen::generate(&mut rng, n);
        let program_gotos = program_with_gotos(&mut rng, n, 50);
        for (what, succs) in [
            ("uniform random", &uniform),
            ("local random", &local),
            ("structured program", &program),
            ("program with gotos", &program_gotos),
        ] {
            let (s, secs) = timed(what, succs);
            assert!(secs < 2.0, "{what}: {secs} s");
            let live = reachable(succs).iter().filter(|&&r| r).count();
            assert!(live > n / 2, "{what}: only {live} blocks reachable");
            let depth = check_invariants(&s, succs);
            eprintln!("  {live} reachable, depth {depth}, dispatchers: {}", has_dispatch(&s));
            assert!(depth <= MAX_TREE_DEPTH as usize + 1, "{what}: depth {depth}");
            for w in 0..50 {
                let (got, want) = traces(&s, succs, w, 2000);
                assert_eq!(got, want, "{what} walk {w}");
            }
        }
    }

    /// Every function of every corpus pexe that decodes: structure it,
    /// check the invariants and compare random walks with the CFG.
    #[test]
    fn corpus_functions_match_their_cfg() {
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).expect("corpus directory").flatten() {
                let p = entry.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|e| e == "pexe") {
                    files.push(p);
                }
            }
        }
        files.sort();
        let (mut functions, mut blocks, mut irreducible, mut decoded_files, mut max_blocks) = (0, 0, 0, 0, 0);
        let mut max_depth = 0;
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let Ok((_, bodies)) = crate::decode::decode(&bytes) else { continue };
            decoded_files += 1;
            for f in &bodies {
                let succs: Vec<Vec<u32>> = f
                    .blocks
                    .iter()
                    .map(|b| match f.insts.get((b.end as usize).wrapping_sub(1)) {
                        Some(last) if b.end > b.start => last.kind.successors(f).iter().map(|t| t.0).collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                if succs.is_empty() || succs.iter().flatten().any(|&t| t as usize >= succs.len()) {
                    continue; // Not a valid body (the regression pexes); the verifier rejects it.
                }
                let s = run(&succs);
                max_depth = max_depth.max(check_invariants(&s, &succs));
                for w in 0..5 {
                    let (got, want) = traces(&s, &succs, w, 500);
                    assert_eq!(got, want, "{} function {:?}", path.display(), f.id);
                }
                functions += 1;
                blocks += succs.len();
                max_blocks = max_blocks.max(succs.len());
                irreducible += has_dispatch(&s) as usize;
            }
        }
        eprintln!(
            "corpus: {decoded_files}/{} files, {functions} functions, {blocks} blocks (largest {max_blocks}), \
             {irreducible} irreducible, deepest tree {max_depth}",
            files.len()
        );
        assert!(decoded_files >= 30 && functions > 10_000, "{decoded_files} files, {functions} functions");
    }
}
