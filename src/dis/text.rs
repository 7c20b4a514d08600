//! The line-wrapping text column both halves of a listing are printed with.
//!
//! pnacl-bcdis does not print text, it prints *tokens*, and decides where a
//! line may break between them. This is a clean-room model of its rules,
//! which the listings in the PNaCl bitcode manual pin down exactly:
//!
//! - Raw text accumulates into a pending token; any directive first turns
//!   the pending text into a token. A token never breaks: if it does not fit
//!   in what is left of the line (and the line is not empty), the line wraps
//!   before it.
//! - A *space* is dropped instead of written when it would not fit; the
//!   wrap then takes its place.
//! - A *cluster* (`start` … `finish`) is measured as a whole when it closes:
//!   if its text does not fit, the line wraps before it; then its contents
//!   are laid out by the same rules, nested clusters measured in turn.
//! - An *open* token (`(`, `<`, `{`, `[`) sets the indentation of
//!   continuation lines to the column after it (capped so that at least
//!   `min_width` columns stay usable); its *close* token restores the
//!   previous one. Otherwise continuation lines are indented by the block
//!   indentation plus a fixed continuation indent (capped the same way).
//! - `endline` ends the line and the instruction.
//!
//! The records column additionally starts every line with the bit position
//! label of its record (or as many spaces) and a `|`.

use std::fmt;

/// One buffered directive of an open cluster.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// A token: a range of `Column::arena`.
    Token(u32, u32),
    Space,
    /// An open token (pushes the continuation indent).
    Open(u32, u32),
    /// A close token (pops the continuation indent).
    Close(u32, u32),
    /// A nested cluster starts; `size` is its text width, set when it closes.
    Start { size: u32 },
    Finish,
}

/// Deepest stack of open-token indents kept; only malformed input can go
/// past it, and then only continuation indents suffer.
const MAX_INTRALINE_INDENTS: usize = 4096;

/// A text column: tokens in, wrapped and indented lines out (into `buf`).
pub(crate) struct Column {
    /// Whether anything is produced at all (a column a mode does not show is
    /// switched off, so its work is skipped).
    pub enabled: bool,
    /// Formatted lines, each ended by `\n`; the listing takes them away
    /// (and then calls `clear`).
    pub buf: String,
    /// Lines in `buf`.
    pub lines: usize,
    /// Block indentation level (two spaces each).
    pub tabs: usize,
    /// For the records column: the label of the current record. Its length
    /// is also the width of the empty label on lines without a record.
    pub label: String,
    labelled: bool,
    width: usize,
    min_width: usize,
    continuation: usize,
    /// Column of the next character on the current line.
    pos: usize,
    /// Indent of continuation lines set by the innermost open token.
    cur_indent: usize,
    indents: Vec<usize>,
    /// No character of the current instruction has been written yet.
    at_begin: bool,
    /// Block indentation of the current instruction (fixed at its first line).
    line_indent: usize,
    /// The pending token outside clusters.
    pending: String,
    /// Inside a cluster, where the pending token starts in `arena`.
    pending_from: usize,
    /// Cluster nesting depth.
    level: u32,
    /// Text width of the outermost open cluster.
    cluster_size: usize,
    ops: Vec<Op>,
    /// Indices in `ops` of the open nested clusters' `Start`.
    open_starts: Vec<usize>,
    arena: String,
}

impl Column {
    /// A column `width` characters wide (label included, for the records
    /// column) whose continuation lines keep `min_width` characters usable.
    pub fn new(width: usize, min_width: usize, continuation: usize, labelled: bool) -> Self {
        Column {
            enabled: true,
            buf: String::new(),
            lines: 0,
            tabs: 0,
            label: String::new(),
            labelled,
            width,
            min_width: min_width.min(width),
            continuation,
            pos: 0,
            cur_indent: 0,
            indents: Vec::new(),
            at_begin: true,
            line_indent: 0,
            pending: String::new(),
            pending_from: 0,
            level: 0,
            cluster_size: 0,
            ops: Vec::new(),
            open_starts: Vec::new(),
            arena: String::new(),
        }
    }

    /// Forgets the lines the listing has taken.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.lines = 0;
    }

    pub fn inc(&mut self) {
        self.tabs += 1;
    }

    pub fn dec(&mut self) {
        self.tabs = self.tabs.saturating_sub(1);
    }

    /// Appends raw text to the pending token (kept in the cluster arena
    /// directly while a cluster is open).
    #[inline]
    pub fn text(&mut self, s: &str) {
        if !self.enabled {
            return;
        }
        if self.level > 0 {
            self.arena.push_str(s);
        } else {
            self.pending.push_str(s);
        }
    }

    /// Appends the decimal digits of `v` to the pending token.
    pub fn text_u64(&mut self, v: u64) {
        if !self.enabled {
            return;
        }
        let mut digits = Digits::default();
        let d = digits.bytes(v);
        let dst = if self.level > 0 { &mut self.arena } else { &mut self.pending };
        for &b in d {
            dst.push(b as char);
        }
    }

    /// Ends the pending token (what a directive does before anything else).
    pub fn boundary(&mut self) {
        if !self.enabled {
            return;
        }
        if self.level > 0 {
            let end = self.arena.len();
            if end > self.pending_from {
                self.ops.push(Op::Token(self.pending_from as u32, end as u32));
                self.cluster_size += end - self.pending_from;
                self.pending_from = end;
            }
        } else if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.write_token(&pending);
            self.pending = pending;
            self.pending.clear();
        }
    }

    /// A token that needs no white space around it (`,`, `;`, `:` …).
    pub fn tok(&mut self, s: &str) {
        if self.enabled {
            self.boundary();
            if self.level > 0 {
                let (a, b) = self.store(s);
                self.ops.push(Op::Token(a, b));
            } else {
                self.write_token(s);
            }
        }
    }

    /// A space that is dropped if the line wraps here.
    pub fn space(&mut self) {
        if !self.enabled {
            return;
        }
        self.boundary();
        if self.level > 0 {
            self.cluster_size += 1;
            self.ops.push(Op::Space);
        } else {
            self.apply_space();
        }
    }

    /// An opening bracket: continuation lines line up after it.
    pub fn open(&mut self, s: &str) {
        if !self.enabled {
            return;
        }
        self.boundary();
        if self.level > 0 {
            let (a, b) = self.store(s);
            self.ops.push(Op::Open(a, b));
        } else {
            self.write_token(s);
            self.push_indent();
        }
    }

    /// A closing bracket: restores the continuation indent of its opener.
    pub fn close(&mut self, s: &str) {
        if !self.enabled {
            return;
        }
        self.boundary();
        if self.level > 0 {
            let (a, b) = self.store(s);
            self.ops.push(Op::Close(a, b));
        } else {
            self.write_token(s);
            self.pop_indent();
        }
    }

    /// Starts a cluster: tokens kept on one line if they fit.
    pub fn start(&mut self) {
        if !self.enabled {
            return;
        }
        self.boundary();
        self.level += 1;
        if self.level > 1 {
            self.open_starts.push(self.ops.len());
            self.ops.push(Op::Start { size: 0 });
        } else {
            self.pending_from = self.arena.len();
        }
    }

    /// Ends the innermost cluster; the outermost one is laid out now.
    pub fn finish(&mut self) {
        if !self.enabled || self.level == 0 {
            return;
        }
        self.boundary();
        self.level -= 1;
        if self.level > 0 {
            if let Some(at) = self.open_starts.pop() {
                let size = self.ops[at + 1..].iter().map(|op| self.op_size(*op)).sum::<usize>();
                self.ops[at] = Op::Start { size: size as u32 };
            }
            self.ops.push(Op::Finish);
            return;
        }
        let size = std::mem::take(&mut self.cluster_size);
        self.wrap_if_needed(size);
        let ops = std::mem::take(&mut self.ops);
        let arena = std::mem::take(&mut self.arena);
        if self.pos != 0 && self.pos + size <= self.width {
            // The whole cluster fits on this line: no token in it can wrap,
            // so skip the checks (the common case, and the hot one).
            for op in &ops {
                match *op {
                    Op::Token(a, b) => self.append(&arena[a as usize..b as usize]),
                    Op::Space => self.append(" "),
                    Op::Open(a, b) => {
                        self.append(&arena[a as usize..b as usize]);
                        self.push_indent();
                    }
                    Op::Close(a, b) => {
                        self.append(&arena[a as usize..b as usize]);
                        self.pop_indent();
                    }
                    Op::Start { .. } | Op::Finish => {}
                }
            }
        } else {
            self.lay_out(&ops, &arena);
        }
        // Keep the buffers' capacity for the next cluster.
        self.ops = ops;
        self.ops.clear();
        self.arena = arena;
        self.arena.clear();
        self.pending_from = 0;
    }

    /// Lays out a closed cluster token by token, wrapping where needed.
    fn lay_out(&mut self, ops: &[Op], arena: &str) {
        for op in ops {
            match *op {
                Op::Token(a, b) => self.write_token(&arena[a as usize..b as usize]),
                Op::Space => self.apply_space(),
                Op::Open(a, b) => {
                    self.write_token(&arena[a as usize..b as usize]);
                    self.push_indent();
                }
                Op::Close(a, b) => {
                    self.write_token(&arena[a as usize..b as usize]);
                    self.pop_indent();
                }
                Op::Start { size } => {
                    self.wrap_if_needed(size as usize);
                }
                Op::Finish => {}
            }
        }
    }

    /// Writes text known to fit on the current, started line.
    #[inline]
    fn append(&mut self, s: &str) {
        self.buf.push_str(s);
        self.pos += s.len();
        self.at_begin = false;
    }

    /// Ends the instruction (and its line).
    pub fn endline(&mut self) {
        if !self.enabled {
            return;
        }
        self.boundary();
        // Every caller balances its clusters; close any left open anyway.
        while self.level > 0 {
            self.finish();
        }
        self.buf.push('\n');
        self.lines += 1;
        self.pos = 0;
        self.cur_indent = 0;
        self.at_begin = true;
        self.line_indent = 0;
    }

    /// A whole record line, `A: <v0, v1, …>`, laid out exactly as the
    /// general directives would (`A:` space, open `<`, one cluster per value
    /// with its comma, spaces between, close `>`, end of line), without
    /// buffering them: the records column is most of a listing's text.
    pub fn record_line(&mut self, abbrev: Option<u32>, values: impl IntoIterator<Item = u64>) {
        if !self.enabled {
            return;
        }
        self.boundary();
        debug_assert_eq!(self.level, 0);
        let mut digits = Digits::default();
        if let Some(a) = abbrev {
            let d = digits.of(a as u64);
            let mut head = [0u8; 21];
            head[..d.len()].copy_from_slice(d.as_bytes());
            head[d.len()] = b':';
            self.write_token(std::str::from_utf8(&head[..d.len() + 1]).unwrap_or("?:"));
            self.apply_space();
        }
        self.write_token("<");
        self.push_indent();
        let mut values = values.into_iter().peekable();
        let mut first = true;
        while let Some(v) = values.next() {
            if !first {
                self.apply_space();
            }
            first = false;
            let text = digits.bytes(v);
            let comma = values.peek().is_some();
            self.wrap_if_needed(text.len() + comma as usize);
            // `write_token` for ASCII digits.
            self.wrap_if_needed(text.len());
            if self.pos == 0 {
                self.line_indents();
            }
            for &b in text {
                self.buf.push(b as char);
            }
            self.pos += text.len();
            self.at_begin = false;
            if comma {
                self.write_token(",");
            }
        }
        self.write_token(">");
        self.pop_indent();
        self.endline();
    }

    fn op_size(&self, op: Op) -> usize {
        match op {
            Op::Token(a, b) | Op::Open(a, b) | Op::Close(a, b) => (b - a) as usize,
            Op::Space => 1,
            Op::Start { .. } | Op::Finish => 0,
        }
    }

    /// Puts a directive's text in the arena (the pending token is empty).
    fn store(&mut self, s: &str) -> (u32, u32) {
        let a = self.arena.len() as u32;
        self.arena.push_str(s);
        self.cluster_size += s.len();
        self.pending_from = self.arena.len();
        (a, self.arena.len() as u32)
    }

    fn apply_space(&mut self) {
        if !self.wrap_if_needed(1) {
            self.write_token(" ");
        }
    }

    fn write_token(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.wrap_if_needed(s.len());
        self.write(s);
    }

    /// Wraps the line if `size` more characters do not fit and the line is
    /// not empty; says whether it wrapped.
    fn wrap_if_needed(&mut self, size: usize) -> bool {
        if self.pos + size <= self.width || self.pos == 0 {
            return false;
        }
        self.buf.push('\n');
        self.lines += 1;
        self.pos = 0;
        self.at_begin = false;
        true
    }

    fn write(&mut self, s: &str) {
        if self.pos == 0 {
            self.line_indents();
        }
        self.buf.push_str(s);
        self.pos += s.len();
        self.at_begin = false;
    }

    /// What starts every line: the label column, then the indentation.
    fn line_indents(&mut self) {
        if self.labelled {
            if self.at_begin {
                self.buf.push_str(&self.label);
            } else {
                push_spaces(&mut self.buf, self.label.len());
            }
            self.buf.push('|');
            self.pos += self.label.len() + 1;
        }
        if self.at_begin {
            self.line_indent = self.tabs * 2;
        }
        push_spaces(&mut self.buf, self.line_indent);
        self.pos += self.line_indent;
        let mut indent = self.cur_indent;
        if !self.at_begin && self.cur_indent == 0 {
            indent = self.fix_indent(self.pos + self.continuation);
        }
        if indent > self.pos {
            push_spaces(&mut self.buf, indent - self.pos);
            self.pos = indent;
        }
    }

    fn fix_indent(&self, position: usize) -> usize {
        position.min(self.width - self.min_width)
    }

    fn push_indent(&mut self) {
        if self.indents.len() < MAX_INTRALINE_INDENTS {
            self.indents.push(self.cur_indent);
        }
        self.cur_indent = self.fix_indent(self.pos);
    }

    fn pop_indent(&mut self) {
        if let Some(i) = self.indents.pop() {
            self.cur_indent = i;
        }
    }
}

impl fmt::Write for Column {
    /// Formats into the pending token.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text(s);
        Ok(())
    }
}

/// A buffer for the decimal digits of a number.
#[derive(Default)]
pub(crate) struct Digits([u8; 20]);

impl Digits {
    /// The digits of `v`, valid until the next call.
    pub fn bytes(&mut self, mut v: u64) -> &[u8] {
        let mut i = self.0.len();
        loop {
            i -= 1;
            self.0[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        &self.0[i..]
    }

    /// The digits of `v` as text, valid until the next call.
    pub fn of(&mut self, v: u64) -> &str {
        // Only ASCII digits were written.
        std::str::from_utf8(self.bytes(v)).unwrap_or("?")
    }
}

pub(crate) fn push_spaces(buf: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut n = n;
    while n > 0 {
        let k = n.min(SPACES.len());
        buf.push_str(&SPACES[..k]);
        n -= k;
    }
}

#[cfg(test)]
mod tests {
    use super::Column;
    use std::fmt::Write;

    fn asm() -> Column {
        Column::new(39, 20, 4, false)
    }

    #[test]
    fn function_header_wraps_the_comment_under_the_brace() {
        // `  function i32 @f0(i32 %p0) {  ` then the comment on its own line,
        // lined up at the capped open-brace indent.
        let mut c = asm();
        c.tabs = 1;
        c.text("function");
        c.space();
        c.start();
        c.text("i32");
        c.space();
        c.start();
        c.start();
        c.text("@f0");
        c.open("(");
        c.finish();
        c.start();
        c.text("i32");
        c.space();
        c.text("%p0");
        c.finish();
        c.close(")");
        c.finish();
        c.finish();
        c.space();
        c.open("{");
        c.space();
        c.space();
        write!(c, "// BlockID = {}", 12).unwrap();
        c.endline();
        assert_eq!(c.buf, "  function i32 @f0(i32 %p0) {  \n                   // BlockID = 12\n");
    }

    #[test]
    fn a_dropped_space_becomes_the_wrap() {
        let mut c = Column::new(10, 5, 2, false);
        c.text("abcdefghij");
        c.space();
        c.text("x");
        c.endline();
        assert_eq!(c.buf, "abcdefghij\n  x\n");
    }

    /// The record line fast path lays out exactly like the directives.
    #[test]
    fn record_line_is_the_general_layout() {
        let cases: &[&[u64]] = &[
            &[65535, 8, 2],
            &[65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0],
            &[6, 4607182418800017408],
            &[6, 18442240474082181120],
            &[1, 1, 108, 108, 118, 109, 46, 109, 101, 109, 109, 111, 118, 101, 46, 112, 48, 105, 56],
            &[12, 2, 1, 2, 4, 1, 1, 2, 3, 1, 1, 4, 3, 1, 1, 8, 4, 1, 1, 39777555332, 4],
            &[u64::MAX, u64::MAX, 1, u64::MAX],
        ];
        for width in [40, 80] {
            for tabs in [0, 1, 3, 9] {
                for abbrev in [None, Some(3), Some(12)] {
                    for values in cases {
                        let mut fast = Column::new(width, 21, 0, true);
                        let mut slow = Column::new(width, 21, 0, true);
                        for c in [&mut fast, &mut slow] {
                            c.tabs = tabs;
                            c.label.push_str("     123:4");
                        }
                        fast.record_line(abbrev, values.iter().copied());
                        if let Some(a) = abbrev {
                            write!(slow, "{a}:").unwrap();
                            slow.space();
                        }
                        slow.open("<");
                        for (i, v) in values.iter().enumerate() {
                            if i > 0 {
                                slow.tok(",");
                                slow.finish();
                                slow.space();
                            }
                            slow.start();
                            write!(slow, "{v}").unwrap();
                        }
                        slow.finish();
                        slow.close(">");
                        slow.endline();
                        assert_eq!(fast.buf, slow.buf, "width {width}, {tabs} tabs, {abbrev:?}, {values:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn records_column_has_the_label_then_a_bar() {
        let mut c = Column::new(40, 21, 0, true);
        c.label.push_str("      16:0");
        c.text("1:");
        c.space();
        c.open("<");
        for (i, v) in [65535, 8, 2].iter().enumerate() {
            if i > 0 {
                c.tok(",");
                c.finish();
                c.space();
            }
            c.start();
            write!(c, "{v}").unwrap();
        }
        c.finish();
        c.close(">");
        c.endline();
        assert_eq!(c.buf, "      16:0|1: <65535, 8, 2>\n");
    }
}
