//! Control-flow graph and dominator tree: the one implementation the
//! verifier (of each body's basic blocks) and the back ends (of the graphs
//! they derive, such as the wasm structurer's with dispatchers) share. The
//! verifier's result for a body is handed on to the back ends
//! ([`crate::verify::FunctionAnalysis`]) so they need not compute it again.
//!
//! Built from `(from, to)` edges; duplicate edges (a switch with several
//! cases to one block) collapse to one. Dominators come from one pass of
//! the algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
//! Algorithm") in reverse postorder, ignoring retreating edges. That is
//! exact when every retreating edge goes to a block dominating its source
//! (then no simple path from the entry uses such an edge), which holds for
//! every reducible graph, i.e. for most of what a compiler emits. Otherwise
//! the graph is irreducible, and further passes over every predecessor
//! run to the algorithm's fixed point (most such graphs are already there:
//! one pass finds no change); when that takes more than a few passes,
//! Lengauer–Tarjan (with path compression, O(E log V)) recomputes them,
//! since iterating to the fixed point can take quadratic time on crafted
//! input. The dominator tree
//! is then numbered in preorder with subtree sizes, so `dominates` is two
//! comparisons. Only
//! blocks reachable from the entry block (block 0) have dominators; every
//! buffer is kept between functions and reused.

const NONE: u32 = u32::MAX;

/// Per-block facts, kept together for locality.
#[derive(Clone, Copy)]
struct Node {
    /// Position in reverse postorder plus `Cfg::rpo_start` (the block's
    /// slot in `Cfg::rpo`, given as the search leaves it); `NONE` if
    /// unreachable. Only compared with each other, or less the start.
    rpo: u32,
    idom: u32,
    /// Dominator-tree preorder number and subtree size: `a` dominates `b`
    /// iff `b.pre` is in `a.pre .. a.pre + a.size`. Unreachable blocks keep
    /// `pre = NONE, size = 0`: inside nothing, containing nothing. Until
    /// `build_adjacency` (or `count_preds`), `size` counts the block's
    /// predecessors (an increment of the node `add_edge` has at hand, not
    /// of `pred_start`).
    pre: u32,
    size: u32,
    /// Scratch: last source seen (deduplication), then a fill cursor.
    mark: u32,
}

const FRESH: Node = Node { rpo: NONE, idom: NONE, pre: NONE, size: 0, mark: NONE };

/// The CFG and dominators of one function. See the module docs.
#[derive(Default)]
pub struct Cfg {
    node: Vec<Node>,
    /// `n + 1` offsets or more: the rest, and edges past `succ_start[n]`,
    /// are room kept for later graphs (see `begin`, `build_edges`).
    succ_start: Vec<u32>,
    succs: Vec<u32>,
    /// As `succ_start` and `succs`, past `pred_start[n]`.
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    /// Reachable blocks in reverse postorder: `rpo[rpo_start..]` (the
    /// depth-first search fills it from the back).
    rpo: Vec<u32>,
    rpo_start: usize,
    /// Retreating edges `(from, to)` the dominator pass skipped: the only
    /// ones whose targets must dominate their sources for it to be exact.
    retreating: Vec<(u32, u32)>,
    #[cfg(not(target_arch = "wasm32"))]
    block_order: BlockOrder,
    /// `finish_dominance` in block order counted the predecessors
    /// (`pred_start`) but left `preds` out: most blocks' lists have no
    /// reader there (only phis' checks read them; see
    /// [`Cfg::list_preds_into`]).
    #[cfg(not(target_arch = "wasm32"))]
    preds_pending: bool,
    // Scratch.
    #[cfg(not(target_arch = "wasm32"))]
    ready: Vec<u32>,
    stack: Vec<(u32, u32)>,
    /// `compute_rpo`'s ancestors: block, next and end of its successors.
    dfs_stack: Vec<(u32, u32, u32)>,
    lt: LengauerTarjan,
}

/// Scratch of Lengauer–Tarjan: each vertex's facts in one record, indexed
/// by DFS preorder number (one bounds check and one cache line per vertex
/// visited, where nine parallel arrays took one each).
#[derive(Default)]
struct LengauerTarjan {
    /// Preorder number of each block (`NONE` if unreachable).
    dfn: Vec<u32>,
    v: Vec<LtVertex>,
    path: Vec<u32>,
}

#[derive(Clone, Copy)]
struct LtVertex {
    /// The block with this preorder number.
    block: u32,
    parent: u32,
    semi: u32,
    label: u32,
    ancestor: u32,
    idom: u32,
    /// Buckets as linked lists: first member per semidominator, next member.
    bucket_head: u32,
    bucket_next: u32,
}

impl Cfg {
    /// Rebuilds the graph for `n` blocks from `edges`, which must be grouped
    /// by source block in increasing order and name blocks below `n`.
    pub fn compute(&mut self, n: usize, edges: &[(u32, u32)]) {
        self.begin(n);
        let mut b = 0u32;
        for &(from, to) in edges {
            while b < from {
                self.end_source(b);
                b += 1;
            }
            self.add_edge(from, to);
        }
        while (b as usize) < n {
            self.end_source(b);
            b += 1;
        }
        self.finish();
    }

    /// Starts a graph of `n` blocks, to be given its edges by
    /// [`Cfg::add_edge`] and [`Cfg::end_source`] and completed by
    /// [`Cfg::finish`] (what [`Cfg::compute`] does, without a list of
    /// edges in between).
    pub fn begin(&mut self, n: usize) {
        self.begin_nodes(n);
        self.succs.clear();
    }

    /// [`Cfg::begin`] but for the edges: their room is the caller's.
    fn begin_nodes(&mut self, n: usize) {
        self.node.clear();
        self.node.resize(n, FRESH);
        // Entries 1..=n are written by `end_source` (and
        // `build_adjacency`), entry 0 never: 0 since the vectors grew. They
        // are never cut, so only a graph larger than any before fills more.
        grow(&mut self.succ_start, n + 1);
        grow(&mut self.pred_start, n + 1);
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.block_order = BlockOrder::START;
            self.preds_pending = false;
        }
    }

    /// Adds the edge `from -> to` (both below `n`). Edges must come grouped
    /// by source block in increasing order; a repeated edge counts once.
    #[inline]
    pub fn add_edge(&mut self, from: u32, to: u32) {
        // `mark == from` means seen from this source already.
        let node = &mut self.node[to as usize];
        if node.mark != from {
            node.mark = from;
            self.succs.push(to);
            node.size += 1;
        }
    }

    /// Closes block `b`'s list of successors: after its edges (if any),
    /// once for every block of the graph, in increasing order. One store
    /// per block where counting cost one per edge and a sum per block.
    #[inline]
    pub fn end_source(&mut self, b: u32) {
        self.succ_start[b as usize + 1] = self.succs.len() as u32;
    }

    /// [`Cfg::begin`], then `add` gives the graph its edges through an
    /// [`Edges`] (at most `max_edges` of them, else `add`'s result is
    /// false: the caller takes the body as unclean).
    /// Its buffers are borrowed as slices and the edge count and block-order
    /// state held in locals: through `&mut Cfg`, each edge reloaded the
    /// vectors after every store to a node.
    #[inline(always)]
    pub(crate) fn build_edges(&mut self, n: usize, max_edges: usize, add: impl FnOnce(&mut Edges<'_>) -> bool) -> bool {
        self.begin_nodes(n);
        // Room, not the edges: `succ_start[n]` counts them. Never cut, so
        // only a body with more than any before fills more.
        if self.succs.len() < max_edges {
            self.succs.resize(max_edges, 0);
        }
        let Cfg { node, succ_start, succs, .. } = self;
        // The entry dominates itself: set here, not tested for at each
        // block by `Edges::begin_source_dominance` (no edge goes to it in a
        // clean body; one back to it would find it dominating its source
        // as before). Unread until then otherwise: `finish` sets it again.
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(entry) = node.first_mut() {
            entry.idom = 0;
        }
        let mut edges = Edges {
            // Cut to `n` nodes and `n + 1` offsets (the nodes' length
            // already, and within the offsets' room): the lengths are then
            // `n` itself, which the caller's block numbers are checked
            // against, so fewer indices are checked again (callgrind).
            node: &mut node[..n],
            succ_start: &mut succ_start[..=n],
            succs,
            len: 0,
            full: false,
            #[cfg(not(target_arch = "wasm32"))]
            block_order: BlockOrder { budget: 16 * (max_edges as u64 + n as u64) + 4096, ..BlockOrder::START },
        };
        let added = add(&mut edges) && !edges.full;
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.block_order = edges.block_order;
        }
        added
    }

    /// `finish_dominance`'s way on from the first block that waited in
    /// `Edges::begin_source_dominance`: the blocks from it on, in block order,
    /// except that one no processed block reaches yet waits, and is
    /// processed right after the first processed block that branches to
    /// it; each pushed to its successors not yet processed, and each
    /// processed one it reaches checked to have an idom dominating it (see
    /// `Edges::begin_source_dominance`). Positions in this order
    /// (`Node::rpo`, `NONE` until processed, and `rpo` lists them) stand
    /// for block numbers. False when an edge reaches a processed block
    /// whose idom does not dominate its source, or past the step budget:
    /// then the general path. Blocks never processed are unreachable.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(never)]
    fn dominance_in_own_order(&mut self) -> bool {
        let first = self.block_order.first_waiting as usize;
        let Cfg { node, succ_start, succs, rpo, ready, block_order, .. } = self;
        let (node, succ_start, succs) = (&mut node[..], &succ_start[..], &succs[..]);
        let budget = 16 * (u64::from(succ_start[node.len()]) + node.len() as u64) + 4096;
        let mut steps = block_order.steps;
        // The blocks before `first` were processed in block order.
        rpo.clear();
        rpo.extend(0..first as u32);
        for (i, n) in node[..first].iter_mut().enumerate() {
            n.rpo = i as u32;
        }
        ready.clear();
        for b in first as u32..node.len() as u32 {
            if node[b as usize].idom == NONE {
                continue; // waits, or is unreachable
            }
            let mut v = b;
            loop {
                node[v as usize].rpo = rpo.len() as u32;
                rpo.push(v);
                for &s in &succs[succ_start[v as usize] as usize..succ_start[v as usize + 1] as usize] {
                    let target = node[s as usize];
                    if target.rpo == NONE {
                        let d = target.idom;
                        node[s as usize].idom = if d == NONE {
                            v
                        } else {
                            let d = intersect(node, v, d, &mut steps);
                            if steps > budget {
                                return false;
                            }
                            d
                        };
                        // A block before `b` waiting: its turn has come
                        // (a later one has its turn in block order).
                        if s < b {
                            ready.push(s);
                        }
                    } else {
                        // `s`'s idom must dominate `v`: met climbing from `v`.
                        let d = target.idom;
                        let mut x = v;
                        while node[x as usize].rpo > node[d as usize].rpo {
                            x = node[x as usize].idom;
                            steps += 1;
                        }
                        if x != d || steps > budget {
                            return false;
                        }
                    }
                }
                // The next waiting block reached, if any (one may be listed
                // twice).
                match std::iter::from_fn(|| ready.pop()).find(|&s| node[s as usize].rpo == NONE) {
                    Some(s) => v = s,
                    None => break,
                }
            }
        }
        true
    }

    /// `finish_dominance`'s numbering after `dominance_in_own_order`:
    /// `rpo` lists the reachable blocks with each dominator first, as
    /// `number_dom_tree` needs, once their sizes start at 1 (they are 0
    /// after `count_preds`). `rpo` is left empty, as after block order.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(never)]
    fn number_dom_tree_in_own_order(&mut self) {
        for &b in &self.rpo {
            self.node[b as usize].size = 1;
        }
        self.rpo_start = 0;
        self.number_dom_tree();
        self.rpo.clear();
    }

    /// Completes a graph whose blocks were opened by
    /// [`Edges::begin_source_dominance`] and given their edges by
    /// [`Edges::add_dominance`]: dominators and reachability, and
    /// the predecessors counted but not listed (see `count_preds`), and
    /// no reverse postorder: [`Cfg::rpo`] is empty,
    /// and [`Cfg::positions`] and [`Cfg::dom_record`] mean nothing (the
    /// dominator tree is numbered in block order). For a reader of
    /// dominance alone (the verifier with no back end after it). When the
    /// block order did not give the dominators, [`Cfg::finish`].
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn finish_dominance(&mut self) {
        let n = self.node.len();
        let in_own_order = self.block_order.first_waiting != NONE;
        if n == 1 || !(self.block_order.exact || in_own_order && self.dominance_in_own_order()) {
            for node in &mut self.node {
                node.idom = NONE;
                node.rpo = NONE;
            }
            self.finish();
            return;
        }
        self.count_preds();
        if in_own_order {
            self.number_dom_tree_in_own_order();
            return;
        }
        self.rpo.clear();
        self.rpo_start = 0;
        let node = &mut self.node[..];
        // (Its own length: the blocks' indices need no checks then.)
        let n = node.len();
        // Sizes from 1 for the reachable blocks (`rpo` marks them: any
        // number but `NONE`), summed into their dominators in reverse block
        // order (a dominator comes first); then preorder ranges handed out
        // going forward, as `number_dom_tree` does in reverse postorder.
        for b in (1..n).rev() {
            let d = node[b].idom;
            if d != NONE {
                node[b].rpo = 0;
                node[b].size += 1;
                let size = node[b].size;
                node[d as usize].size += size;
            }
        }
        node[0].rpo = 0;
        node[0].size += 1;
        node[0].pre = 0;
        node[0].mark = 1;
        for b in 1..n {
            let d = node[b].idom;
            if d != NONE {
                let pre = node[d as usize].mark;
                node[d as usize].mark += node[b].size;
                node[b].pre = pre;
                node[b].mark = pre + 1;
            }
        }
    }

    /// Completes the graph begun by [`Cfg::begin`]: predecessors, reverse
    /// postorder and dominators.
    pub fn finish(&mut self) {
        let n = self.node.len();
        if n == 1 && self.succ_start[1] == 0 {
            // One block and no edges (most small functions): nothing to
            // search. The state is the one the general path reaches.
            self.pred_start[1] = 0;
            self.rpo.clear();
            self.rpo.push(0);
            self.rpo_start = 0;
            self.node[0] = Node { rpo: 0, idom: 0, pre: 0, size: 1, mark: 1 };
            return;
        }
        self.build_adjacency();
        self.compute_rpo();
        if self.rpo().is_empty() {
            return;
        }
        if self.idom_pass() {
            self.number_dom_tree();
            if !self.retreating.is_empty() && !self.retreating_edges_are_back_edges() {
                self.settle_irreducible();
            }
        } else {
            self.lengauer_tarjan();
            self.number_dom_tree();
        }
    }

    /// `build_adjacency` without filling `preds`: the start offsets only,
    /// so [`Cfg::pred_count`] answers, and [`Cfg::list_preds_into`] lists
    /// them for a reader that needs them (the sizes are 0 after both).
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(never)]
    fn count_preds(&mut self) {
        let mut pred_sum = 0;
        for (pred_start, node) in self.pred_start[1..].iter_mut().zip(self.node.iter_mut()) {
            pred_sum += node.size;
            node.size = 0;
            *pred_start = pred_sum;
        }
        self.preds_pending = true;
    }

    /// The predecessor lists `count_preds` left out, into `preds` (as
    /// `preds` would be: [`Cfg::pred_range`] indexes them), for a reader
    /// after `finish_dominance` (a phi's full check); `cursor` is scratch.
    #[inline(never)]
    pub(crate) fn list_preds_into(&self, preds: &mut Vec<u32>, cursor: &mut Vec<u32>) {
        let n = self.node.len();
        grow(preds, self.pred_start[n] as usize);
        // Each block's fill cursor from its start.
        cursor.clear();
        cursor.extend_from_slice(&self.pred_start[..n]);
        let mut e = 0;
        for (from, &end) in self.succ_start[1..=n].iter().enumerate() {
            for &to in &self.succs[e..end as usize] {
                let at = &mut cursor[to as usize];
                preds[*at as usize] = from as u32;
                *at += 1;
            }
            e = end as usize;
        }
    }

    /// Where `b`'s predecessors are in [`Cfg::preds`]'s list (or
    /// [`Cfg::list_preds_into`]'s).
    #[inline]
    pub(crate) fn pred_range(&self, b: u32) -> std::ops::Range<usize> {
        self.pred_start[b as usize] as usize..self.pred_start[b as usize + 1] as usize
    }

    /// The number of distinct predecessors of `b` (whether or not their
    /// lists are pending).
    #[inline]
    pub(crate) fn pred_count(&self, b: u32) -> usize {
        (self.pred_start[b as usize + 1] - self.pred_start[b as usize]) as usize
    }

    /// Whether `finish_dominance` left the predecessor lists out (see
    /// `count_preds`).
    #[inline(always)]
    pub(crate) fn preds_pending(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        return self.preds_pending;
        #[cfg(target_arch = "wasm32")]
        false
    }

    /// Turns the per-block predecessor counts of `add_edge` into start
    /// offsets and fills the predecessor lists.
    // This and the other passes of `finish` stay out of line: inlined into
    // one body they compiled to more instructions in all (callgrind).
    #[inline(never)]
    fn build_adjacency(&mut self) {
        // Start offsets from counts; predecessors by counting sort, so each
        // list is in increasing order (`mark` is each block's fill cursor).
        let mut pred_sum = 0;
        for (pred_start, node) in self.pred_start[1..].iter_mut().zip(self.node.iter_mut()) {
            node.mark = pred_sum;
            pred_sum += node.size;
            node.size = 0;
            *pred_start = pred_sum;
        }
        // Every one written below: room, never cut (`pred_start[n]` counts
        // them).
        grow(&mut self.preds, pred_sum as usize);
        let n = self.node.len();
        let (node, succ_start, succs, preds) = (&mut self.node[..], &self.succ_start[..=n], &self.succs[..], &mut self.preds[..]);
        let mut from = 0u32;
        let mut e = 0;
        for &end in &succ_start[1..] {
            for &to in &succs[e..end as usize] {
                let node = &mut node[to as usize];
                preds[node.mark as usize] = from;
                node.mark += 1;
            }
            e = end as usize;
            from += 1;
        }
    }

    /// Depth-first search from the entry: fills `rpo[rpo_start..]` and
    /// numbers the blocks it reaches by their slots there (`rpo`; 0 marks
    /// one found and not left yet), with `size = 1`, the start of
    /// `number_dom_tree`'s sums, and `idom` the block it was found from;
    /// any other edge it scans into a block sets that block's `size` to 2.
    /// So a block left at size 1 has one reachable predecessor, the block
    /// it was found from, which is its idom: `idom_pass` keeps that and
    /// replaces the others' (telling them by one load of the node, not
    /// two of `pred_start`).
    #[inline(never)]
    fn compute_rpo(&mut self) {
        let n = self.node.len();
        self.rpo.clear();
        self.rpo_start = 0;
        if n == 0 {
            return;
        }
        // Iterative, with the top of the stack in locals and only the
        // ancestors in `stack`: each block is pushed at most once, so the
        // stack never holds `n`, and the postorder goes into `rpo` from the
        // back, so it comes out reversed already (its reachable part is
        // the tail).
        let Cfg { node, succ_start, succs, rpo, dfs_stack, .. } = self;
        rpo.resize(n, 0);
        if dfs_stack.len() < n {
            dfs_stack.resize(n, (0, 0, 0));
        }
        // Cut to `n` (and `n + 1` offsets), so the check that a found block
        // is below `n` (`node[s]`) covers both its offsets too.
        let (node, succ_start, succs, rpo, stack) =
            (&mut node[..n], &succ_start[..=n], &succs[..], &mut rpo[..n], &mut dfs_stack[..n]);
        node[0].rpo = 0;
        node[0].size = 1;
        // The end of the successors is kept with each ancestor, not loaded
        // again as the search comes back to it; a block found is entered
        // at once, so no sentinel says whether the scan found one.
        let (mut b, mut next, mut end) = (0u32, succ_start[0], succ_start[1]);
        let mut depth = 0usize;
        let mut out = n;
        'search: loop {
            while next < end {
                let s = succs[next as usize];
                next += 1;
                let sn = &mut node[s as usize];
                if sn.rpo == NONE {
                    sn.rpo = 0;
                    sn.size = 1;
                    sn.idom = b;
                    stack[depth] = (b, next, end);
                    depth += 1;
                    (b, next, end) = (s, succ_start[s as usize], succ_start[s as usize + 1]);
                    continue 'search;
                }
                sn.size = 2;
            }
            out -= 1;
            rpo[out] = b;
            node[b as usize].rpo = out as u32;
            // Below 0 `depth` wraps past the end: one check for the empty
            // stack and the bounds.
            depth = depth.wrapping_sub(1);
            let Some(&top) = stack.get(depth) else { break };
            (b, next, end) = top;
        }
        self.rpo_start = out;
    }

    /// One Cooper–Harvey–Kennedy pass in reverse postorder, using only
    /// predecessors already processed (earlier in it); the skipped
    /// reachable ones (retreating edges) go to `retreating`. A block with
    /// one reachable predecessor (`size` 1, see `compute_rpo`) keeps the
    /// idom `compute_rpo` gave it, its parent in the search; the others'
    /// sizes go back to 1 for `number_dom_tree` (the entry's too: an edge
    /// back to it set its size).
    ///
    /// `false` when the pass would take more than a linear number of steps:
    /// one pass walks up the dominator tree once per predecessor, which is
    /// quadratic for a block with many predecessors deep in a long chain
    /// (100 000 guards branching to one shared return); then
    /// Lengauer–Tarjan, near-linear whatever the shape, does the work.
    #[inline(never)]
    fn idom_pass(&mut self) -> bool {
        let Cfg { node, pred_start, preds, rpo, rpo_start, retreating, .. } = self;
        // Plain slices in locals: through the struct's vectors the pointers
        // were reloaded on every step (callgrind).
        let (node, pred_start, preds) = (&mut node[..], &pred_start[..], &preds[..]);
        let rpo = &rpo[*rpo_start..];
        retreating.clear();
        node[0].idom = 0;
        node[0].size = 1;
        // Steps are counted freely and compared with the budget after each
        // walk: one walk takes at most two tree depths (`n` steps each), so
        // the pass stays linear, and it gives up exactly when a check per
        // step would have.
        let budget = 16 * (u64::from(pred_start[node.len()]) + rpo.len() as u64) + 4096;
        let mut steps = 0u64;
        for &b in &rpo[1..] {
            let b = b as usize;
            // One reachable predecessor (most blocks): the search found the
            // block from it, and it is the idom `compute_rpo` gave.
            if node[b].size == 1 {
                continue;
            }
            node[b].size = 1;
            let rpo_b = node[b].rpo;
            let mut new_idom = NONE;
            for &p in &preds[pred_start[b] as usize..pred_start[b + 1] as usize] {
                let pred = &node[p as usize];
                if pred.rpo >= rpo_b {
                    // Unreachable, or not yet processed (later in reverse
                    // postorder, or `b` itself).
                    if pred.rpo != NONE {
                        retreating.push((p, b as u32));
                    }
                    continue;
                }
                new_idom = if new_idom == NONE {
                    p
                } else {
                    let d = intersect(node, p, new_idom, &mut steps);
                    if steps > budget {
                        return false;
                    }
                    d
                };
            }
            node[b].idom = new_idom;
        }
        true
    }

    /// Dominators of an irreducible graph after `idom_pass` and
    /// `number_dom_tree`: Cooper–Harvey–Kennedy passes over every
    /// predecessor until one changes nothing (the fixed point, exact for
    /// any graph), at most `MAX_SETTLING_PASSES`, each within `idom_pass`'s
    /// budget; otherwise Lengauer–Tarjan. In compiled code the first pass
    /// usually changes nothing: then the tree is already numbered. (Where
    /// Lengauer–Tarjan cost about 370 instructions a block, a pass costs
    /// about 100.)
    #[inline(never)]
    fn settle_irreducible(&mut self) {
        const MAX_SETTLING_PASSES: usize = 4;
        for pass in 0..MAX_SETTLING_PASSES {
            match self.idom_full_pass() {
                Some(false) if pass == 0 => return,
                Some(false) => {
                    // `number_dom_tree` sums subtree sizes from 1 again.
                    let Cfg { node, rpo, rpo_start, .. } = self;
                    for &b in &rpo[*rpo_start..] {
                        node[b as usize].size = 1;
                    }
                    self.number_dom_tree();
                    return;
                }
                Some(true) => {}
                None => break,
            }
        }
        self.lengauer_tarjan();
        self.number_dom_tree();
    }

    /// One Cooper–Harvey–Kennedy pass in reverse postorder over every
    /// predecessor with an idom (after `idom_pass`, every reachable one):
    /// whether an idom changed, or `None` past `idom_pass`'s step budget.
    fn idom_full_pass(&mut self) -> Option<bool> {
        let Cfg { node, pred_start, preds, rpo, rpo_start, .. } = self;
        let (node, pred_start, preds) = (&mut node[..], &pred_start[..], &preds[..]);
        let rpo = &rpo[*rpo_start..];
        let budget = 16 * (u64::from(pred_start[node.len()]) + rpo.len() as u64) + 4096;
        let mut steps = 0u64;
        let mut changed = false;
        for &b in &rpo[1..] {
            let b = b as usize;
            let mut new_idom = NONE;
            for &p in &preds[pred_start[b] as usize..pred_start[b + 1] as usize] {
                if node[p as usize].idom == NONE {
                    continue; // unreachable
                }
                new_idom = if new_idom == NONE {
                    p
                } else {
                    let d = intersect(node, p, new_idom, &mut steps);
                    if steps > budget {
                        return None;
                    }
                    d
                };
            }
            if node[b].idom != new_idom {
                node[b].idom = new_idom;
                changed = true;
            }
        }
        Some(changed)
    }

    /// Whether every reachable retreating edge `p -> b` has `b` dominating
    /// `p`, which makes the single pass exact (see the module docs).
    #[inline(never)]
    fn retreating_edges_are_back_edges(&self) -> bool {
        self.retreating.iter().all(|&(p, b)| self.dominates(b, p))
    }

    /// Immediate dominators of every reachable block by Lengauer–Tarjan
    /// ("A fast algorithm for finding dominators in a flowgraph", 1979),
    /// the simple version with path compression, iteratively.
    fn lengauer_tarjan(&mut self) {
        let n = self.node.len();
        let lt = &mut self.lt;
        reset(&mut lt.dfn, n, NONE);
        lt.v.clear();
        // Each vertex's record made as the search finds it: semidominator
        // and label itself, no ancestor, idom or bucket yet.
        let fresh = |block: u32, parent: u32, w: u32| LtVertex {
            block,
            parent,
            semi: w,
            label: w,
            ancestor: NONE,
            idom: NONE,
            bucket_head: NONE,
            bucket_next: NONE,
        };
        // Preorder DFS from the entry.
        self.stack.clear();
        self.stack.push((0, self.succ_start[0]));
        lt.dfn[0] = 0;
        lt.v.push(fresh(0, NONE, 0));
        while let Some(top) = self.stack.last_mut() {
            let (b, next) = *top;
            if next < self.succ_start[b as usize + 1] {
                top.1 += 1;
                let s = self.succs[next as usize];
                if lt.dfn[s as usize] == NONE {
                    let w = lt.v.len() as u32;
                    lt.dfn[s as usize] = w;
                    lt.v.push(fresh(s, lt.dfn[b as usize], w));
                    self.stack.push((s, self.succ_start[s as usize]));
                }
            } else {
                self.stack.pop();
            }
        }
        let count = lt.v.len();
        let LengauerTarjan { dfn, v: vs, path } = lt;
        for w in (1..count).rev() {
            let block = vs[w].block as usize;
            let mut semi = vs[w].semi;
            for &p in &self.preds[self.pred_start[block] as usize..self.pred_start[block + 1] as usize] {
                let x = dfn[p as usize];
                if x == NONE {
                    continue; // unreachable predecessor
                }
                let u = eval(vs, path, x);
                semi = semi.min(vs[u as usize].semi);
            }
            vs[w].semi = semi;
            vs[w].bucket_next = vs[semi as usize].bucket_head;
            vs[semi as usize].bucket_head = w as u32;
            let p = vs[w].parent;
            vs[w].ancestor = p; // link(parent, w)
            let mut x = std::mem::replace(&mut vs[p as usize].bucket_head, NONE);
            while x != NONE {
                let u = eval(vs, path, x);
                let u_semi = vs[u as usize].semi;
                let vx = &mut vs[x as usize];
                vx.idom = if u_semi < vx.semi { u } else { p };
                x = vx.bucket_next;
            }
        }
        for w in 1..count {
            let (idom, semi) = (vs[w].idom, vs[w].semi);
            if idom != semi {
                vs[w].idom = vs[idom as usize].idom;
            }
        }
        for w in 1..count {
            self.node[vs[w].block as usize].idom = vs[vs[w].idom as usize].block;
        }
        // `number_dom_tree` sums subtree sizes from 1 again.
        for &b in &self.rpo[self.rpo_start..] {
            self.node[b as usize].size = 1;
        }
    }

    /// Numbers the dominator tree without building it: an idom comes
    /// before its children in reverse postorder, so sizes accumulate in
    /// reverse and each parent hands consecutive preorder ranges to its
    /// children going forward. Sizes start at 1 (set by `compute_rpo`, or
    /// `lengauer_tarjan`).
    fn number_dom_tree(&mut self) {
        let Cfg { node, rpo, rpo_start, .. } = self;
        let (node, rpo) = (&mut node[..], &rpo[*rpo_start..]);
        for &b in rpo[1..].iter().rev() {
            let n = node[b as usize];
            node[n.idom as usize].size += n.size;
        }
        node[0].pre = 0;
        node[0].mark = 1;
        for &b in &rpo[1..] {
            let parent = node[b as usize].idom as usize;
            let pre = node[parent].mark;
            node[parent].mark += node[b as usize].size;
            let node = &mut node[b as usize];
            node.pre = pre;
            node.mark = pre + 1;
        }
    }

    /// Forgets the last graph (a body with no blocks has none).
    pub fn clear(&mut self) {
        // The edge buffers are kept as room (see `begin`).
        self.node.clear();
        self.rpo.clear();
        self.rpo_start = 0;
    }

    /// Number of blocks of the graph.
    pub fn len(&self) -> usize {
        self.node.len()
    }

    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// Reachable blocks in reverse postorder.
    pub fn rpo(&self) -> &[u32] {
        &self.rpo[self.rpo_start..]
    }

    /// Distinct successors of `b`, in the order the terminator names them.
    #[inline]
    pub fn succs(&self, b: u32) -> &[u32] {
        &self.succs[self.succ_start[b as usize] as usize..self.succ_start[b as usize + 1] as usize]
    }

    /// Distinct predecessors of `b`, in increasing order (not after
    /// `finish_dominance` in block order: [`Cfg::preds_pending`]).
    pub fn preds(&self, b: u32) -> &[u32] {
        debug_assert!(!self.preds_pending(), "predecessors left out by finish_dominance");
        &self.preds[self.pred_start[b as usize] as usize..self.pred_start[b as usize + 1] as usize]
    }

    /// Whether `b` can be reached from the entry block.
    #[inline]
    pub fn is_reachable(&self, b: u32) -> bool {
        self.node.get(b as usize).is_some_and(|n| n.rpo != NONE)
    }

    /// The immediate dominator of reachable `b` (the entry is its own).
    pub fn idom(&self, b: u32) -> Option<u32> {
        self.node.get(b as usize).map(|n| n.idom).filter(|&d| d != NONE)
    }

    /// `b`'s dominator-tree preorder number and subtree size: `a` dominates
    /// `b` iff `b`'s number minus `a`'s (wrapping) is below `a`'s size
    /// (`u32::MAX` and 0 for unreachable blocks), as in [`Cfg::dominates`].
    #[inline]
    pub(crate) fn dom_interval(&self, b: u32) -> (u32, u32) {
        let n = &self.node[b as usize];
        (n.pre, n.size)
    }

    /// [`Cfg::dom_interval`] of every block, in block order (read along
    /// with the blocks, no index checked per block).
    pub(crate) fn dom_intervals(&self) -> impl ExactSizeIterator<Item = (u32, u32)> + '_ {
        self.node.iter().map(|n| (n.pre, n.size))
    }

    /// Each block's position in [`Cfg::rpo`] (`u32::MAX` if unreachable),
    /// in block order: the numbers the dominator pass gave them, for a back
    /// end indexing by position.
    pub(crate) fn positions(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        let start = self.rpo_start as u32;
        self.node.iter().map(move |n| if n.rpo == NONE { NONE } else { n.rpo - start })
    }

    /// Each reachable block's immediate dominator as a position in
    /// [`Cfg::rpo`] (the entry's is 0), and its [`Cfg::dom_interval`], in
    /// reverse postorder.
    pub(crate) fn dom_records(&self) -> impl ExactSizeIterator<Item = (u32, u32, u32)> + '_ {
        // The nodes as a slice and the start as a number, held by the
        // iterator: through `self` the loop reloaded both for every block
        // after its store.
        let (node, start) = (&self.node[..], self.rpo_start as u32);
        self.rpo().iter().map(move |&b| {
            let n = &node[b as usize];
            (node[n.idom as usize].rpo - start, n.pre, n.size)
        })
    }

    /// Whether `a` dominates `b` (reflexive). False if either is unreachable.
    #[inline(always)]
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        let (a, b) = (&self.node[a as usize], &self.node[b as usize]);
        // `a.pre <= b.pre && b.pre - a.pre < a.size` in one comparison:
        // block counts are far below 2^31 (`MAX_BASIC_BLOCKS`), so a
        // wrapped difference is never below a subtree size.
        b.pre.wrapping_sub(a.pre) < a.size
    }
}

/// The nearest common dominator of `a` and `b`, each step counted in
/// `steps`.
// Always inlined: with a third caller (`dominance_in_own_order`) it was
// called out of line from `idom_pass` too, which cost translate -j1 X
// 0.4M instructions (callgrind).
#[inline(always)]
fn intersect(node: &[Node], mut a: u32, b: u32, steps: &mut u64) -> u32 {
    // Each side climbs while it is later in reverse postorder than the
    // other, whose number stays put meanwhile. Each side's record is held,
    // so a step is one indexed load (its idom's record) where reading the
    // idom and then its number by index tested both; the sides meet when
    // their numbers do (blocks with dominators have distinct numbers), so
    // only `a`'s block is followed.
    let (mut na, mut nb) = (&node[a as usize], &node[b as usize]);
    loop {
        while na.rpo > nb.rpo {
            a = na.idom;
            na = &node[a as usize];
            *steps += 1;
        }
        while nb.rpo > na.rpo {
            nb = &node[nb.idom as usize];
            *steps += 1;
        }
        if na.rpo == nb.rpo {
            return a;
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// `intersect` for dominators found in block order: a dominator has a lower
/// number than the blocks it dominates.
#[inline]
fn intersect_in_block_order(node: &[Node], mut a: u32, mut b: u32, steps: &mut u64) -> u32 {
    while a != b {
        while a > b {
            a = node[a as usize].idom;
            *steps += 1;
        }
        while b > a {
            b = node[b as usize].idom;
            *steps += 1;
        }
    }
    a
}

/// Lengauer–Tarjan's EVAL: the vertex of least semidominator on the
/// compressed path from `x` up to (not including) its forest root.
fn eval(vs: &mut [LtVertex], path: &mut Vec<u32>, x: u32) -> u32 {
    if vs[x as usize].ancestor == NONE {
        return x;
    }
    // Compress: walk up while the ancestor has an ancestor, then fold
    // labels back down from the top.
    path.clear();
    let mut y = x;
    while vs[vs[y as usize].ancestor as usize].ancestor != NONE {
        path.push(y);
        y = vs[y as usize].ancestor;
    }
    while let Some(y) = path.pop() {
        let a = vs[vs[y as usize].ancestor as usize];
        let vy = vs[y as usize];
        if vs[a.label as usize].semi < vs[vy.label as usize].semi {
            vs[y as usize].label = a.label;
        }
        vs[y as usize].ancestor = a.ancestor;
    }
    vs[x as usize].label
}

/// A graph being given its edges (see [`Cfg::build_edges`]): what
/// [`Cfg::add_edge`] and [`Cfg::end_source`] do, over slices.
pub(crate) struct Edges<'a> {
    node: &'a mut [Node],
    succ_start: &'a mut [u32],
    /// `max_edges` long; the first `len` are the edges.
    succs: &'a mut [u32],
    len: usize,
    /// An edge found no room.
    full: bool,
    #[cfg(not(target_arch = "wasm32"))]
    block_order: BlockOrder,
}

/// Dominators in block order (see [`Edges::begin_source_dominance`]) as the
/// edges come.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Default)]
struct BlockOrder {
    /// Still exact so far.
    exact: bool,
    /// The steps its intersections took.
    steps: u64,
    /// The first block no earlier block reached as it opened, or `NONE`.
    first_waiting: u32,
    /// The steps allowed: linear in the graph's room (`build_edges`'
    /// `max_edges`) and blocks, so the pass stays linear.
    budget: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl BlockOrder {
    const START: BlockOrder = BlockOrder { exact: true, steps: 0, first_waiting: NONE, budget: 0 };
}

impl Edges<'_> {
    /// [`Cfg::add_edge`].
    #[inline(always)]
    pub(crate) fn add(&mut self, from: u32, to: u32) {
        self.insert(from, to);
    }

    /// Adds the edge unless the block has it already or the room is full
    /// (then `full`); its target's node when the edge is new.
    #[inline(always)]
    fn insert(&mut self, from: u32, to: u32) -> Option<&mut Node> {
        let node = &mut self.node[to as usize];
        if node.mark == from {
            return None;
        }
        let Some(slot) = self.succs.get_mut(self.len) else {
            self.full = true;
            return None;
        };
        *slot = to;
        self.len += 1;
        node.mark = from;
        node.size += 1;
        Some(node)
    }

    /// [`Cfg::end_source`].
    #[inline(always)]
    pub(crate) fn end_source(&mut self, b: u32) {
        self.succ_start[b as usize + 1] = self.len as u32;
    }

    /// Opens block `b`'s edges, given by [`Edges::add_dominance`] (then
    /// closed by [`Edges::end_source`]), for a graph that will be completed
    /// by [`Cfg::finish_dominance`], which also finds dominators as the
    /// edges come, in block order rather than reverse postorder: one
    /// Cooper–Harvey–Kennedy pass that pushes each block to its successors
    /// later in block order (its own dominator is complete by then: every
    /// edge into it from an earlier block has been pushed), comparing
    /// blocks by number. An edge to an earlier block (or itself) must go
    /// to a block whose idom dominates its source, which the tree so far
    /// answers: then the edge changes no dominator (below). So it does when
    /// it goes to a block dominating its source, as the retreating edges of
    /// [`Cfg::finish`] must (see the module docs), but also when it joins
    /// a block laid out before some of its predecessors (cold code moved
    /// to the end jumping back) whose idom dominates them all the same:
    /// then the pass is exact. Otherwise, or when its steps pass their
    /// linear budget, it stops, and `finish_dominance` does the general
    /// work. (Compilers lay most bodies out so; the others are those where
    /// a block laid out late jumps back, such as cold code moved to the
    /// end.)
    ///
    /// A block that no earlier block reaches (a loop entered in its
    /// middle, or unreachable) stops it too, but then `finish_dominance`
    /// goes on from there, letting such a block wait until a block
    /// processed later branches to it (`Cfg::dominance_in_own_order`).
    /// Any order is exact where each block comes after every predecessor
    /// whose edge is not so checked: the pass processes the graph of the
    /// other edges, acyclic, in a topological order, so finds its
    /// dominators. With a checked edge `u -> v` added, `v`'s equation
    /// (`Dom(v) = {v} ∪` the intersection of its predecessors' `Dom`) still
    /// holds, `idom(v)` dominating `u`; so those dominators solve the whole
    /// graph's equations, and any solution is within the greatest, the
    /// whole graph's dominators, which are within the smaller graph's (more
    /// edges, more paths): they are the same.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    pub(crate) fn begin_source_dominance(&mut self, b: u32) {
        // The entry's idom (itself) was set as the graph began.
        if self.block_order.exact && self.node[b as usize].idom == NONE {
            // No edge from a reachable earlier block: a later block
            // branches back to it (a loop entered in its middle, as
            // rotated loops are laid out), or it is unreachable (rare).
            // It waits: `finish_dominance` goes on from it.
            self.block_order.exact = false;
            self.block_order.first_waiting = b;
        }
    }

    /// [`Edges::add`] for a graph whose blocks are opened by
    /// [`Edges::begin_source_dominance`]: each new edge pushed to its
    /// target as it is added, while the node is at hand (a second walk
    /// over the block's successors as it closed loaded each node again).
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    pub(crate) fn add_dominance(&mut self, from: u32, to: u32) {
        let exact = self.block_order.exact;
        let Some(node) = self.insert(from, to) else { return };
        if exact {
            let d = node.idom;
            // The first edge into a later block (most edges): its idom
            // so far is the source.
            if to > from && d == NONE {
                node.idom = from;
            } else {
                self.dominance_edge(from, to, d);
            }
        }
    }

    /// The rest of `add_dominance`: the edge `b -> s` where `s` has idom
    /// `d` so far.
    // Inlined: called out of line (a fifth of the edges), it cost verify X
    // 0.36M instructions more (callgrind).
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    fn dominance_edge(&mut self, b: u32, s: u32, d: u32) {
        let node = &mut self.node[..];
        let mut steps = self.block_order.steps;
        if s > b {
            node[s as usize].idom = intersect_in_block_order(node, b, d, &mut steps);
        } else {
            // `s`'s idom must dominate `b`: met climbing from `b`.
            let mut x = b;
            while x > d {
                x = node[x as usize].idom;
                steps += 1;
            }
            if x != d {
                self.block_order.exact = false;
                return;
            }
        }
        self.block_order.steps = steps;
        if steps > self.block_order.budget {
            self.block_order.exact = false;
        }
    }
}

/// Makes `v` at least `n` long, filling with 0.
fn grow(v: &mut Vec<u32>, n: usize) {
    if v.len() < n {
        v.resize(n, 0);
    }
}

fn reset(v: &mut Vec<u32>, n: usize, fill: u32) {
    v.clear();
    v.resize(n, fill);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(n: usize, edges: &[(u32, u32)]) -> Cfg {
        let mut c = Cfg::default();
        c.compute(n, edges);
        c
    }

    /// 100 000 guards in a chain, each branching to one shared return: the
    /// single pass would walk the chain once per guard (quadratic); the
    /// step budget hands the graph to Lengauer–Tarjan instead.
    #[test]
    fn many_predecessors_deep_in_a_chain_stay_fast() {
        let n = 100_000u32;
        let mut edges = Vec::new();
        for i in 0..n - 1 {
            if i + 1 < n - 1 {
                edges.push((i, n - 1));
                edges.push((i, i + 1));
            } else {
                edges.push((i, n - 1));
            }
        }
        let start = std::time::Instant::now();
        let c = cfg(n as usize, &edges);
        let secs = start.elapsed().as_secs_f64();
        assert!(secs < 1.0, "{secs} s");
        assert_eq!(c.idom(n - 1), Some(0));
        assert_eq!(c.idom(5), Some(4));
        assert!(c.dominates(3, n - 2) && !c.dominates(3, n - 1));
    }

    /// The same guards through the dominance in block order as the edges
    /// come (`Edges::add_dominance`): past its step budget it hands the
    /// graph to the general path, in linear time.
    #[test]
    fn many_predecessors_deep_in_a_chain_stay_fast_in_block_order() {
        let n = 100_000u32;
        let start = std::time::Instant::now();
        let mut c = Cfg::default();
        assert!(c.build_edges(n as usize, 2 * n as usize, |g| {
            for b in 0..n {
                g.begin_source_dominance(b);
                if b + 1 < n {
                    g.add_dominance(b, n - 1);
                }
                if b + 2 < n {
                    g.add_dominance(b, b + 1);
                }
                g.end_source(b);
            }
            true
        }));
        c.finish_dominance();
        let secs = start.elapsed().as_secs_f64();
        assert!(secs < 1.0, "{secs} s");
        assert_eq!(c.idom(n - 1), Some(0));
        assert_eq!(c.idom(5), Some(4));
        assert!(c.dominates(3, n - 2) && !c.dominates(3, n - 1));
    }

    #[test]
    fn diamond() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3
        let c = cfg(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert_eq!(c.idom(3), Some(0));
        assert_eq!(c.idom(1), Some(0));
        assert!(c.dominates(0, 3));
        assert!(!c.dominates(1, 3));
        assert!(c.dominates(3, 3));
        assert_eq!(c.preds(3), &[1, 2]);
    }

    #[test]
    fn loop_and_unreachable() {
        // 0 -> 1; 1 -> 2, 3; 2 -> 1; 4 -> 1 (unreachable)
        let c = cfg(5, &[(0, 1), (1, 2), (1, 3), (2, 1), (4, 1)]);
        assert!(c.dominates(1, 2) && c.dominates(1, 3));
        assert!(!c.dominates(2, 3));
        assert!(!c.is_reachable(4));
        assert!(!c.dominates(4, 1) && !c.dominates(0, 4) && !c.dominates(4, 4));
        assert_eq!(c.preds(1), &[0, 2, 4]);
    }

    #[test]
    fn loop_back_to_the_entry() {
        // 0 -> 1; 1 -> 0, 2: the entry's subtree is still the whole graph.
        let c = cfg(3, &[(0, 1), (1, 0), (1, 2)]);
        assert_eq!(c.dom_interval(0), (0, 3));
        assert!(c.dominates(0, 2) && c.dominates(1, 2) && !c.dominates(2, 1));
        assert_eq!(c.preds(0), &[1]);
    }

    #[test]
    fn duplicate_edges_collapse() {
        let c = cfg(2, &[(0, 1), (0, 1), (0, 1)]);
        assert_eq!(c.succs(0), &[1]);
        assert_eq!(c.preds(1), &[0]);
    }

    #[test]
    fn single_block() {
        let c = cfg(1, &[]);
        assert!(c.is_reachable(0) && c.dominates(0, 0));
        assert_eq!(c.preds(0), &[] as &[u32]);
    }

    #[test]
    fn irreducible() {
        // 0 -> 1, 2; 1 <-> 2; 2 -> 3
        let c = cfg(4, &[(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)]);
        assert_eq!(c.idom(1), Some(0));
        assert_eq!(c.idom(2), Some(0));
        assert_eq!(c.idom(3), Some(2));
        assert!(c.dominates(2, 3) && !c.dominates(1, 3));
    }

    #[test]
    fn irreducible_needing_iteration() {
        // 0 -> 1, 3; 1 -> 2; 2 -> 3; 3 -> 2, 4; 4 -> 1. The cycle 1-2-3-4
        // has two entries (1 and 3), so a single pass is not enough.
        let c = cfg(5, &[(0, 1), (0, 3), (1, 2), (2, 3), (3, 2), (3, 4), (4, 1)]);
        for b in 1..5 {
            assert_eq!(c.idom(b), Some(if b == 4 { 3 } else { 0 }), "idom of {b}");
        }
        assert!(c.dominates(3, 4) && !c.dominates(1, 2) && !c.dominates(2, 3));
    }

    /// Dominators by definition (removing a block disconnects the other),
    /// against the fast algorithm, on pseudo-random graphs.
    #[test]
    fn matches_definition_on_random_graphs() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1du64);
        for _ in 0..300 {
            let n = 1 + next(12) as usize;
            let mut edges: Vec<(u32, u32)> = (0..next(3 * n as u64 + 1))
                // Some edges back to the entry, as a back end's graph may
                // have (a clean body has none).
                .filter_map(|_| {
                    let (f, t) = (next(n as u64) as u32, next(n as u64) as u32);
                    (t != 0 || next(8) == 0).then_some((f, t))
                })
                .collect();
            edges.sort_unstable();
            let mut c = cfg(n, &edges);
            if next(2) == 0 && c.is_reachable(0) {
                // Half the graphs check Lengauer–Tarjan on its own, reducible or not.
                c.lengauer_tarjan();
                c.number_dom_tree();
            }
            let reach = |skip: Option<u32>| {
                let mut seen = vec![false; n];
                let mut stack = vec![0u32];
                if skip == Some(0) {
                    return seen;
                }
                seen[0] = true;
                while let Some(b) = stack.pop() {
                    for &(f, t) in &edges {
                        if f == b && Some(t) != skip && !seen[t as usize] {
                            seen[t as usize] = true;
                            stack.push(t);
                        }
                    }
                }
                seen
            };
            // Reverse postorder of the recursive search, successors in order.
            fn post(c: &Cfg, b: u32, seen: &mut Vec<bool>, out: &mut Vec<u32>) {
                seen[b as usize] = true;
                for &s in c.succs(b) {
                    if !seen[s as usize] {
                        post(c, s, seen, out);
                    }
                }
                out.push(b);
            }
            let mut order = Vec::new();
            if n > 0 {
                post(&c, 0, &mut vec![false; n], &mut order);
            }
            order.reverse();
            assert_eq!(c.rpo(), &order[..], "{edges:?}");
            let all = reach(None);
            for a in 0..n as u32 {
                let without = reach(Some(a));
                for b in 0..n as u32 {
                    assert_eq!(c.is_reachable(b), all[b as usize]);
                    let expected = all[a as usize] && all[b as usize] && (a == b || !without[b as usize]);
                    assert_eq!(c.dominates(a, b), expected, "dominates({a}, {b}) in {edges:?}");
                }
            }
        }
    }

    /// `finish_dominance` (dominators in block order, or the general path
    /// when that order does not give them) against `finish`: the same
    /// predecessors, reachability and dominance, on pseudo-random graphs,
    /// most of them laid out forward with a few edges back.
    #[test]
    fn dominance_in_block_order_matches_finish() {
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15u64);
        let (mut in_block_order, mut own_order, mut general) = (0, 0, 0);
        for round in 0..2000 {
            let n = 1 + next(16) as usize;
            let mut edges: Vec<(u32, u32)> = Vec::new();
            for from in 0..n as u32 {
                for _ in 0..next(3) {
                    // Mostly forward (to the next few blocks), sometimes anywhere.
                    let to = if next(4) == 0 { next(n as u64) as u32 } else { from + 1 + next(3) as u32 };
                    if to != 0 && (to as usize) < n {
                        edges.push((from, to));
                    }
                }
            }
            // Most blocks entered from an earlier one (those that are not
            // stop the block order early).
            for to in 1..n as u32 {
                if next(10) != 0 {
                    edges.push((next(u64::from(to)) as u32, to));
                }
            }
            edges.sort_by_key(|&(from, _)| from);
            let full = cfg(n, &edges);
            let mut c = Cfg::default();
            assert!(c.build_edges(n, edges.len(), |g| {
                let mut e = edges.iter().peekable();
                for b in 0..n as u32 {
                    g.begin_source_dominance(b);
                    while let Some(&&(from, to)) = e.peek() {
                        if from != b {
                            break;
                        }
                        g.add_dominance(from, to);
                        e.next();
                    }
                    g.end_source(b);
                }
                true
            }));
            let waited = c.block_order.first_waiting != NONE;
            c.finish_dominance();
            // The general path fills `rpo`.
            if c.rpo().is_empty() && n > 1 {
                in_block_order += 1;
                own_order += usize::from(waited);
                assert!(c.rpo().is_empty());
            } else {
                general += 1;
            }
            // In block order the predecessors are counted, and listed only
            // for a reader that asks.
            let (mut listed, mut cursor) = (Vec::new(), Vec::new());
            let pending = c.preds_pending();
            assert_eq!(pending, c.rpo().is_empty() && n > 1);
            c.list_preds_into(&mut listed, &mut cursor);
            for a in 0..n as u32 {
                let preds = if pending { &listed[c.pred_range(a)] } else { c.preds(a) };
                assert_eq!(preds, full.preds(a), "round {round}: {edges:?}");
                assert_eq!(c.pred_count(a), full.preds(a).len());
                assert_eq!(c.succs(a), full.succs(a));
                assert_eq!(c.is_reachable(a), full.is_reachable(a), "round {round}: {edges:?}");
                assert_eq!(c.idom(a), full.idom(a), "round {round}: {edges:?}");
                assert_eq!(c.dom_intervals().nth(a as usize), Some(c.dom_interval(a)));
                for b in 0..n as u32 {
                    assert_eq!(c.dominates(a, b), full.dominates(a, b), "dominates({a}, {b}) in {edges:?}");
                }
            }
        }
        assert!(
            in_block_order > 500 && own_order > 100 && general > 250,
            "{in_block_order} in block order ({own_order} of them in an order of their own), {general} not"
        );
    }

    /// A two-way chain entered at both ends: irreducible everywhere, the
    /// shape on which iterating Cooper–Harvey–Kennedy takes quadratic time.
    #[test]
    fn large_irreducible_graph_is_fast() {
        let n = 200_000u32;
        let mut edges = vec![(0, 1), (0, n - 1)];
        for i in 1..n {
            if i > 1 {
                edges.push((i, i - 1));
            }
            if i + 1 < n {
                edges.push((i, i + 1));
            }
        }
        let c = cfg(n as usize, &edges);
        for b in [1, 2, n / 2, n - 2, n - 1] {
            assert_eq!(c.idom(b), Some(0), "idom of {b}");
        }
        assert!(!c.dominates(1, 2) && !c.dominates(n - 1, n - 2));
    }

    #[test]
    fn long_chain_is_linear() {
        let n = 100_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let c = cfg(n as usize, &edges);
        assert!(c.dominates(0, n - 1));
        assert!(c.dominates(n / 2, n - 1));
        assert!(!c.dominates(n - 1, n / 2));
    }
}
