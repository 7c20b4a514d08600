//! The disassembler against its oracles: the pnacl-bcdis listings of the
//! PNaCl bitcode manual (seed 001), the listings of another pexe tool in the
//! corpus, and every real pexe of the corpus.
//!
//! A listing's records column is enough to write its bits back (with
//! `bitstream::Writer`), so each example of the manual becomes a pexe whose
//! listing must be the example itself.

use pexe::bitstream::{Abbrev, AbbrevOp, Writer};
use pexe::dis::{disassemble, Mode, Options};
use std::path::{Path, PathBuf};


const SEED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/seeds/001_54c3d08b7f1b093e.txt");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");

// ---------------------------------------------------------------------------
// Reading listings

/// One line of a listing: `position|records|asm`.
#[derive(Clone, Debug)]
struct Line {
    /// Line number in the seed (1-based), for messages.
    at: usize,
    pos: Option<String>,
    rec: String,
    asm: String,
}

impl Line {
    fn parse(at: usize, text: &str) -> Option<Line> {
        let mut parts = text.splitn(3, '|');
        let pos = parts.next()?.trim();
        let rec = parts.next()?;
        let asm = parts.next()?;
        let is_pos = pos.is_empty() || pos.split_once(':').is_some_and(|(b, n)| {
            !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) && n.len() == 1 && n.bytes().all(|c| c.is_ascii_digit())
        });
        if !is_pos {
            return None;
        }
        Some(Line {
            at,
            pos: (!pos.is_empty()).then(|| pos.to_string()),
            rec: rec.to_string(),
            asm: asm.to_string(),
        })
    }

    /// The line without its position, trimmed at both ends, for comparing
    /// records and PNaClAsm wherever the record lies.
    fn body(&self) -> String {
        format!("|{}|{}", self.rec, self.asm).trim_end().to_string()
    }

    /// The whole line trimmed at both ends (positions included).
    fn full(&self) -> String {
        format!("{}|{}|{}", self.pos.as_deref().unwrap_or(""), self.rec, self.asm).trim().to_string()
    }
}

/// A listing excerpt from the seed: consecutive listing lines, `...` lines
/// splitting it into segments.
#[derive(Debug)]
struct Excerpt {
    first_line: usize,
    segments: Vec<Vec<Line>>,
}

fn seed_excerpts() -> Vec<Excerpt> {
    let text = std::fs::read_to_string(SEED).expect("seed 001 is readable");
    let mut out = Vec::new();
    let mut cur: Option<Excerpt> = None;
    for (i, l) in text.lines().enumerate() {
        if let Some(line) = Line::parse(i + 1, l) {
            let ex = cur.get_or_insert_with(|| Excerpt { first_line: i + 1, segments: vec![Vec::new()] });
            ex.segments.last_mut().unwrap().push(line);
        } else if let (true, Some(ex)) = (l.trim() == "...", cur.as_mut()) {
            ex.segments.push(Vec::new());
        } else if let Some(ex) = cur.take() {
            out.push(ex);
        }
    }
    out.extend(cur);
    for ex in &mut out {
        ex.segments.retain(|s| !s.is_empty());
    }
    out
}

/// A record of a listing's records column.
#[derive(Clone, Debug)]
struct Rec {
    /// Abbreviation index (`None` for the header).
    abbrev: Option<u32>,
    values: Vec<u64>,
    /// Nesting depth, from the records column's indentation.
    depth: usize,
    /// Its PNaClAsm text, continuation lines joined.
    asm: String,
}

/// Parses the records of a segment (records span continuation lines).
fn records(lines: &[Line]) -> Result<Vec<Rec>, String> {
    let mut out: Vec<Rec> = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        if l.pos.is_none() {
            i += 1;
            continue;
        }
        text.clear();
        text.push_str(&l.rec);
        let mut asm = l.asm.trim().to_string();
        i += 1;
        // Continuation lines of the same record: no position, and either the
        // record is still open or they only continue the assembly.
        while i < lines.len() && lines[i].pos.is_none() && !text.trim_end().ends_with('>') {
            text.push_str(&lines[i].rec);
            join_asm(&mut asm, &lines[i].asm);
            i += 1;
        }
        // Wrapped PNaClAsm (not a basic block label or a compound's `}`).
        while i < lines.len() && lines[i].pos.is_none() && lines[i].rec.trim().is_empty() {
            let a = lines[i].asm.trim();
            if a == "}" || (a.starts_with("%b") && a.ends_with(':')) {
                break;
            }
            join_asm(&mut asm, a);
            i += 1;
        }
        let depth = (text.len() - text.trim_start().len()) / 2;
        let t = text.trim();
        let (abbrev, rest) = match t.split_once(": <") {
            Some((a, rest)) => (Some(a.trim().parse::<u32>().map_err(|e| format!("line {}: {e}", l.at))?), rest),
            None => (None, t.strip_prefix('<').ok_or_else(|| format!("line {}: no record", l.at))?),
        };
        let rest = rest.trim_end().strip_suffix('>').ok_or_else(|| format!("line {}: unterminated record", l.at))?;
        let values = rest
            .split(',')
            .map(|v| v.trim().parse::<u64>().map_err(|e| format!("line {}: {e}", l.at)))
            .collect::<Result<Vec<_>, _>>()?;
        out.push(Rec { abbrev, values, depth, asm });
    }
    Ok(out)
}

/// Joins a wrapped PNaClAsm line to the text before it.
fn join_asm(asm: &mut String, more: &str) {
    let more = more.trim();
    if more.is_empty() {
        return;
    }
    if !asm.is_empty() && !more.starts_with([';', ',', ')', '>', ']']) {
        asm.push(' ');
    }
    asm.push_str(more);
}

/// An abbreviation from a definition record's values (after 65533).
fn abbrev_of(values: &[u64]) -> Result<Abbrev, String> {
    let n = *values.first().ok_or("empty abbreviation")? as usize;
    let mut it = values[1..].iter().copied();
    let mut ops = Vec::new();
    for _ in 0..n {
        let op = match it.next().ok_or("short abbreviation")? {
            1 => AbbrevOp::Literal(it.next().ok_or("short literal")?),
            0 => match it.next().ok_or("short encoding")? {
                1 => AbbrevOp::Fixed(it.next().ok_or("short fixed")? as u32),
                2 => AbbrevOp::Vbr(it.next().ok_or("short vbr")? as u32),
                3 => AbbrevOp::Array,
                4 => AbbrevOp::Char6,
                e => return Err(format!("encoding {e}")),
            },
            f => return Err(format!("flag {f}")),
        };
        ops.push(op);
    }
    Abbrev::new(ops)
}

/// Writes one listed record; returns its bit position.
fn put(w: &mut Writer, r: &Rec, in_blockinfo: bool) -> Result<u64, String> {
    let at = w.bit_len();
    let v = &r.values;
    let res = match (r.abbrev, v.first()) {
        (Some(1), Some(65535)) => w.enter_block(v[1] as u32, v[2] as u32),
        (Some(0), Some(65534)) => w.exit_block(),
        (Some(2), Some(65533)) => w.define_abbrev(abbrev_of(&v[1..])?),
        // pnacl-bcdis shows a BLOCKINFO SETBID as `1: <1, id>`.
        (Some(1), Some(1)) if in_blockinfo => w.record(3, v),
        (Some(a), Some(_)) => w.record(a, v),
        _ => return Err(format!("cannot write {r:?}")),
    };
    res.map_err(|e| format!("{e} ({v:?})"))?;
    Ok(at)
}

/// Writes a whole listed module (header first); returns the bytes and each
/// record's bit position.
fn build(recs: &[Rec]) -> Result<(Vec<u8>, Vec<u64>), String> {
    let header = recs.first().filter(|r| r.abbrev.is_none() && r.values[0] == 65532).ok_or("no header record")?;
    let bytes: Vec<u8> = header.values[1..].iter().map(|&b| b as u8).collect();
    let mut w = Writer::new(&bytes);
    let mut positions = vec![0];
    let mut stack: Vec<u64> = Vec::new();
    for r in &recs[1..] {
        let in_blockinfo = stack.last() == Some(&0);
        positions.push(put(&mut w, r, in_blockinfo)?);
        match (r.abbrev, r.values[0]) {
            (Some(1), 65535) => stack.push(r.values[1]),
            (Some(0), 65534) => {
                stack.pop();
            }
            _ => {}
        }
    }
    // A listing may stop before the module ends (the header-only example).
    let open = stack.len();
    for _ in 0..open {
        w.exit_block().map_err(|e| e.to_string())?;
    }
    w.finish().map(|b| (b, positions)).map_err(|e| e.to_string())
}

fn listing(bytes: &[u8], mode: Mode, function: Option<u32>) -> (String, Result<(), pexe::decode::DecodeError>) {
    let mut out = String::new();
    let r = disassemble(bytes, &Options { mode, function }, &mut out);
    (out, r)
}

/// A line diff for failure messages.
fn diff(expected: &[String], actual: &[String]) -> String {
    let mut s = String::new();
    for i in 0..expected.len().max(actual.len()) {
        let e = expected.get(i).map_or("<none>", String::as_str);
        let a = actual.get(i).map_or("<none>", String::as_str);
        let mark = if e == a { ' ' } else { '!' };
        s.push_str(&format!("{mark} want {e}\n{mark}  got {a}\n"));
    }
    s
}

// ---------------------------------------------------------------------------
// 1. The complete listings of the manual, positions included.

#[test]
fn complete_listings_of_the_manual_are_reproduced_exactly() {
    let complete: Vec<Excerpt> = seed_excerpts()
        .into_iter()
        .filter(|e| e.segments.len() == 1 && e.segments[0][0].pos.as_deref() == Some("0:0"))
        .collect();
    assert_eq!(complete.len(), 3, "seed 001 has three listings starting at 0:0");
    for ex in &complete {
        let lines = &ex.segments[0];
        let recs = records(lines).unwrap();
        let (bytes, _) = build(&recs).unwrap();
        let (out, result) = listing(&bytes, Mode::Full, None);
        let got: Vec<String> = out.lines().map(|l| l.trim().to_string()).collect();
        let want: Vec<String> = lines.iter().map(Line::full).collect();
        assert_eq!(got, want, "listing at seed line {}:\n{}", ex.first_line, diff(&want, &got));
        if recs.len() > 1 {
            result.unwrap();
        } else {
            // Only the header: the module block is missing.
            assert!(result.is_err());
        }
    }
}

// ---------------------------------------------------------------------------
// 2. The fragments of the manual: record → PNaClAsm, wherever they lie.
//
// A fragment leaves out what its example does not need (the header, other
// blocks, `...` gaps). Each one is completed into a module: the missing
// module-level parts are synthesized (types, function addresses, globals,
// the function block around a fragment that starts inside one, the
// terminators and exits after a fragment that stops inside blocks), the
// records are written with their listed abbreviation indices, and the
// listing of that module must show each fragment line for line, positions
// aside (they depend on what was left out).

/// How checking one excerpt ended.
enum Outcome {
    /// Every line of every segment matched; how many lines.
    Matched(usize),
    /// The listing differs from the manual.
    Mismatch(String),
    /// No module could be made of it (and why).
    Unbuildable(String),
}

/// A record to write: listed (segment index) or synthesized.
struct Planned {
    rec: Rec,
    segment: Option<usize>,
}

fn synth(abbrev: u32, values: &[u64], depth: usize) -> Rec {
    Rec { abbrev: Some(abbrev), values: values.to_vec(), depth, asm: String::new() }
}

/// A PNaClAsm type, parsed from its text.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ty {
    Void,
    Float,
    Double,
    Int(u64),
    Vector(u64, Box<Ty>),
    Func(Box<Ty>, Vec<Ty>),
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        let s = s.trim();
        Some(match s {
            "void" => Ty::Void,
            "float" => Ty::Float,
            "double" => Ty::Double,
            _ if s.starts_with('<') && s.ends_with('>') => {
                let (n, t) = s[1..s.len() - 1].split_once(" x ")?;
                Ty::Vector(n.trim().parse().ok()?, Box::new(Ty::parse(t)?))
            }
            _ if s.ends_with(')') => {
                let open = s.find(" (")?;
                let ret = Ty::parse(&s[..open])?;
                let inner = &s[open + 2..s.len() - 1];
                let params = if inner.trim().is_empty() {
                    Vec::new()
                } else {
                    inner.split(',').map(Ty::parse).collect::<Option<Vec<_>>>()?
                };
                Ty::Func(Box::new(ret), params)
            }
            _ if s.starts_with('i') => Ty::Int(s[1..].parse().ok()?),
            _ => return None,
        })
    }

    fn parts(&self) -> Vec<Ty> {
        match self {
            Ty::Vector(_, e) => vec![(**e).clone()],
            Ty::Func(r, p) => std::iter::once((**r).clone()).chain(p.iter().cloned()).collect(),
            _ => Vec::new(),
        }
    }
}

/// The types block of a fragment, listed or made up.
struct Types {
    /// By id; `None` for ids a synthesized table does not use yet.
    ids: Vec<Option<Ty>>,
    /// Whether the fragment lists the types block (then it is fixed).
    listed: bool,
}

impl Types {
    fn id_of(&self, t: &Ty) -> Option<u64> {
        self.ids.iter().position(|x| x.as_ref() == Some(t)).map(|i| i as u64)
    }

    /// Gives `t` (and its parts) ids, in free slots or at the end.
    fn require(&mut self, t: &Ty) -> Result<u64, String> {
        if let Some(id) = self.id_of(t) {
            return Ok(id);
        }
        if self.listed {
            return Err(format!("the fragment's types block has no {t:?}"));
        }
        let mut max_part = None;
        for p in t.parts() {
            let id = self.require(&p)?;
            max_part = max_part.max(Some(id));
        }
        let from = max_part.map_or(0, |m| m as usize + 1);
        let slot = (from..self.ids.len()).find(|&i| self.ids[i].is_none());
        let id = match slot {
            Some(i) => i,
            None => {
                self.ids.push(None);
                self.ids.len() - 1
            }
        };
        self.ids[id] = Some(t.clone());
        Ok(id as u64)
    }

    /// The types block records (count first); unused ids get filler types.
    fn records(&mut self) -> Result<Vec<Vec<u64>>, String> {
        let fillers = ["i8", "i16", "i64", "double", "float", "i1", "i32", "void", "<4 x i32>", "<16 x i8>", "<8 x i16>"];
        let mut fill = fillers.iter().map(|f| Ty::parse(f).unwrap());
        for i in 0..self.ids.len() {
            if self.ids[i].is_none() {
                let t = loop {
                    let t = fill.next().ok_or("ran out of filler types")?;
                    if self.id_of(&t).is_none() && t.parts().iter().all(|p| self.id_of(p).is_some_and(|id| (id as usize) < i)) {
                        break t;
                    }
                };
                self.ids[i] = Some(t);
            }
        }
        let mut out = vec![vec![1, self.ids.len() as u64]];
        for (i, t) in self.ids.iter().enumerate() {
            let t = t.as_ref().unwrap();
            let id = |p: &Ty| -> Result<u64, String> {
                let id = self.id_of(p).ok_or_else(|| format!("no id for {p:?}"))?;
                if id as usize >= i {
                    return Err(format!("type @t{i} needs @t{id} defined before it"));
                }
                Ok(id)
            };
            out.push(match t {
                Ty::Void => vec![2],
                Ty::Float => vec![3],
                Ty::Double => vec![4],
                Ty::Int(n) => vec![7, *n],
                Ty::Vector(n, e) => vec![12, *n, id(e)?],
                Ty::Func(r, ps) => {
                    let mut v = vec![21, 0, id(r)?];
                    for p in ps {
                        v.push(id(p)?);
                    }
                    v
                }
            });
        }
        Ok(out)
    }
}

/// `@fN` / `@gN` indices mentioned in a text.
fn mentions(text: &str, prefix: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        rest = &rest[i + prefix.len()..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse() {
            out.push(n);
        }
    }
    out
}

/// The signature of a function header or address record's PNaClAsm:
/// `function i32 @f0(i32 %p0) {` / `define external i32 @f0(i32);`.
fn signature(asm: &str) -> Option<(u32, Ty)> {
    let at = asm.find("@f")?;
    let f = mentions(&asm[at..], "@f").first().copied()?;
    let before = asm[..at].trim_end();
    let ret = before.rsplit(' ').next()?;
    let open = asm[at..].find('(')? + at;
    let close = asm.rfind(')')?;
    let params: Vec<String> = asm[open + 1..close]
        .split(',')
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(|p| p.split(" %").next().unwrap().to_string())
        .collect();
    Ty::parse(&format!("{ret} ({})", params.join(", "))).map(|t| (f, t))
}

/// The signature a direct call shows: `call i32 @f0(i32 %p0, …)`.
fn call_signatures(asm: &str) -> Vec<(u32, Ty)> {
    let mut out = Vec::new();
    if let Some(i) = asm.find("call ") {
        let rest = &asm[i + 5..];
        if let Some(at) = rest.find(" @f") {
            let ret = rest[..at].trim();
            let f = mentions(&rest[at..], "@f")[0];
            if let (Some(open), Some(close)) = (rest.find('('), rest.rfind(')')) {
                let params: Vec<&str> = rest[open + 1..close]
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(|p| p.rsplit_once(' ').map_or(p, |(t, _)| t))
                    .collect();
                if let Some(t) = Ty::parse(&format!("{ret} ({})", params.join(", "))) {
                    out.push((f, t));
                }
            }
        }
    }
    out
}

/// The text between `a` and the following `b` in `s`.
fn between<'s>(s: &'s str, a: &str, b: &str) -> Option<&'s str> {
    let i = s.find(a)? + a.len();
    let j = s[i..].find(b)? + i;
    Some(&s[i..j])
}

/// Which type ids a record uses and the type text its PNaClAsm shows for it,
/// inside block `block`.
fn type_uses(block: u64, r: &Rec) -> Vec<(u64, String)> {
    let v = &r.values;
    let a = r.asm.as_str();
    let one = |id: Option<&u64>, text: Option<&str>| match (id, text) {
        (Some(&id), Some(t)) => vec![(id, t.trim().to_string())],
        _ => Vec::new(),
    };
    match (block, v[0]) {
        (11, 1) => one(v.get(1), a.strip_suffix(':')),
        (12, 3) => one(v.get(2), between(a, " to ", ";")),
        (12, 20) => one(v.get(3), between(a, "load ", "*")),
        (12, 16) => one(v.get(1), between(a, "phi ", " [")),
        (12, 12) => one(v.get(1), between(a, "switch ", " %")),
        (12, 43) => one(v.get(2), between(a, "declare ", " %")),
        (12, 44) => one(v.get(3), between(a, "call ", " %")),
        _ => Vec::new(),
    }
}

/// The slot of a module-level item, in the order a module holds them.
fn slot_of(r: &Rec, defined: &[u32]) -> Option<u64> {
    let v = &r.values;
    Some(match (r.abbrev, v[0]) {
        (Some(1), 65535) => match v[1] {
            0 => 1,
            17 => 2,
            19 => 3_000_000,
            14 => 3_000_001,
            12 => {
                let (f, _) = signature(&r.asm)?;
                4_000_000 + defined.iter().position(|&d| d == f)? as u64
            }
            _ => return None,
        },
        (_, 1) => 0,
        (_, 8) => 100 + mentions(&r.asm, "@f").first().copied()? as u64,
        _ => return None,
    })
}

fn check_excerpt(ex: &Excerpt) -> Outcome {
    match plan_excerpt(ex) {
        Err(why) => Outcome::Unbuildable(why),
        Ok(plan) => run_plan(ex, &plan),
    }
}

/// Completes an excerpt into a module: the records to write, in order.
fn plan_excerpt(ex: &Excerpt) -> Result<Vec<Planned>, String> {
    let segs: Vec<Vec<Rec>> = ex.segments.iter().map(|s| records(s)).collect::<Result<_, _>>()?;
    if segs.iter().any(|s| s.is_empty()) {
        return Err("a segment has no record".into());
    }
    let mut plan = Vec::new();
    let header = Rec {
        abbrev: None,
        values: std::iter::once(65532).chain(pexe::bitstream::STANDARD_HEADER.iter().map(|&b| b as u64)).collect(),
        depth: 0,
        asm: String::new(),
    };
    plan.push(Planned { rec: header, segment: None });

    // A whole module without its header: nothing else is missing.
    if segs[0][0].depth == 0 {
        let mut depth = 0i64;
        for (si, seg) in segs.iter().enumerate() {
            for r in seg {
                depth += block_delta(r);
                plan.push(Planned { rec: r.clone(), segment: Some(si) });
            }
        }
        for _ in 0..depth {
            plan.push(Planned { rec: synth(0, &[65534], 0), segment: None });
        }
        return Ok(plan);
    }

    // What the fragment shows.
    let all: Vec<&Rec> = segs.iter().flatten().collect();
    let all_asm: String = all.iter().map(|r| r.asm.as_str()).collect::<Vec<_>>().join("\n");
    let mut listed_types: Option<Vec<Option<Ty>>> = None;
    let mut constraints: Vec<(u64, String)> = Vec::new();
    let mut blocks: Vec<u32> = Vec::new(); // functions with a listed block, in order
    let mut sigs: std::collections::BTreeMap<u32, Ty> = Default::default();
    let mut listed_decls: Vec<u32> = Vec::new();
    let mut listed_defines: Vec<u32> = Vec::new();
    let has = |id: u64| all.iter().any(|r| r.abbrev == Some(1) && r.values[0] == 65535 && r.values[1] == id);
    let has_globals = has(19);
    let has_version = all.iter().any(|r| r.depth == 1 && r.values[0] == 1 && r.abbrev != Some(2));
    for seg in &segs {
        // The block each record is in: listed enters, or the inferred
        // function block around a fragment that starts inside one.
        let mut stack: Vec<u64> = vec![8];
        if seg[0].depth == 2 {
            stack.push(12);
        }
        if seg[0].depth > 2 {
            return Err("fragment starts more than one block deep".into());
        }
        for r in seg {
            let block = *stack.last().unwrap_or(&8);
            match (r.abbrev, r.values[0]) {
                (Some(1), 65535) => {
                    if r.values[1] == 12 {
                        let (f, t) = signature(&r.asm).ok_or("unreadable function header")?;
                        blocks.push(f);
                        sigs.insert(f, t);
                    }
                    if r.values[1] == 17 {
                        listed_types = Some(Vec::new());
                    }
                    stack.push(r.values[1]);
                }
                (Some(0), 65534) => {
                    stack.pop();
                }
                (Some(2), _) => {}
                _ => {
                    if block == 17 && r.values[0] != 1 {
                        let t = r.asm.split_once(" = ").and_then(|(_, t)| t.split(';').next()).and_then(Ty::parse);
                        listed_types.as_mut().ok_or("types outside a types block")?.push(t);
                    }
                    if block == 8 && r.values[0] == 8 {
                        let (f, t) = signature(&r.asm).ok_or("unreadable function address")?;
                        listed_decls.push(f);
                        if r.values.get(3) == Some(&0) {
                            listed_defines.push(f);
                        }
                        sigs.insert(f, t.clone());
                        constraints.push((r.values[1], format!("{t:?}")));
                    }
                    for (id, text) in type_uses(block, r) {
                        constraints.push((id, text));
                    }
                    for (f, t) in call_signatures(&r.asm) {
                        sigs.entry(f).or_insert(t);
                    }
                }
            }
        }
    }
    // A fragment starting inside a function block belongs to a made-up
    // `void ()` function after the others.
    let max_f = mentions(&all_asm, "@f").into_iter().max();
    let wrapper = segs.iter().any(|s| s[0].depth == 2).then(|| max_f.map_or(0, |m| m + 1));
    if let Some(w) = wrapper {
        blocks.push(w);
        sigs.insert(w, Ty::Func(Box::new(Ty::Void), Vec::new()));
    }
    let nfuncs = blocks.iter().chain(sigs.keys()).copied().chain(max_f).max().map_or(0, |m| m + 1);
    // Defined functions, in order: those with a listed block, and listed
    // `define`s (which get a made-up one-block body).
    let mut defined = blocks.clone();
    defined.extend(listed_defines.iter().copied());
    defined.sort();
    defined.dedup();
    let nglobals = mentions(&all_asm, "@g").into_iter().max().map_or(0, |m| m + 1);

    // The types table.
    let mut types = match listed_types {
        Some(ids) => Types { ids, listed: true },
        None => Types { ids: Vec::new(), listed: false },
    };
    if !types.listed {
        for (id, text) in &constraints {
            let t = if text.starts_with("Func(") || text.starts_with("Int(") {
                // Already parsed (function address records).
                sigs.values().find(|t| &format!("{t:?}") == text).cloned()
            } else {
                Ty::parse(text)
            }
            .ok_or_else(|| format!("unreadable type {text:?}"))?;
            let id = *id as usize;
            if types.ids.len() <= id {
                types.ids.resize(id + 1, None);
            }
            match &types.ids[id] {
                Some(old) if *old != t => return Err(format!("@t{id} is both {old:?} and {t:?}")),
                _ => types.ids[id] = Some(t),
            }
        }
    }
    let mut decl_types = Vec::new();
    for f in 0..nfuncs {
        let t = sigs.get(&f).cloned().unwrap_or(Ty::Func(Box::new(Ty::Void), Vec::new()));
        decl_types.push(types.require(&t)?);
    }
    if !types.listed {
        // Parts of constrained types need ids too.
        for t in types.ids.clone().into_iter().flatten() {
            for p in t.parts() {
                types.require(&p)?;
            }
        }
    }

    // The module, slot by slot.
    let seg_slots: Vec<(u64, u64)> = segs
        .iter()
        .map(|s| {
            let slots: Vec<u64> = s.iter().filter(|r| r.depth == 1).filter_map(|r| slot_of(r, &defined)).collect();
            let first = if s[0].depth == 2 { 4_000_000 + defined.iter().position(|&b| Some(b) == wrapper).unwrap() as u64 } else { *slots.first().unwrap_or(&0) };
            (first, *slots.iter().max().unwrap_or(&first))
        })
        .collect();
    let mut slots: Vec<u64> = vec![0, 2];
    slots.extend((0..nfuncs as u64).map(|f| 100 + f));
    slots.push(3_000_000);
    slots.extend((0..defined.len() as u64).map(|k| 4_000_000 + k));
    slots.extend(seg_slots.iter().map(|s| s.0));
    slots.sort();
    slots.dedup();

    plan.push(Planned { rec: synth(1, &[65535, 8, 2], 0), segment: None });
    let mut covered = 0u64;
    let mut done_segs = vec![false; segs.len()];
    for &slot in &slots {
        if let Some(si) = (0..segs.len()).find(|&i| !done_segs[i] && seg_slots[i].0 == slot) {
            done_segs[si] = true;
            let seg = &segs[si];
            let mut stack: Vec<u64> = Vec::new();
            if seg[0].depth == 2 {
                plan.push(Planned { rec: synth(1, &[65535, 12, 2], 1), segment: None });
                plan.push(Planned { rec: synth(3, &[1, 1], 2), segment: None });
                stack.push(12);
            }
            let mut declared = 1u64;
            let mut terminators = 0u64;
            for r in seg {
                plan.push(Planned { rec: r.clone(), segment: Some(si) });
                match (r.abbrev, r.values[0]) {
                    (Some(1), 65535) => {
                        stack.push(r.values[1]);
                        if r.values[1] == 12 {
                            declared = 1;
                            terminators = 0;
                        }
                    }
                    (Some(0), 65534) => {
                        stack.pop();
                    }
                    (_, code) if stack.last() == Some(&12) => match code {
                        1 => declared = r.values.get(1).copied().unwrap_or(1),
                        10 | 11 | 12 | 15 => terminators += 1,
                        _ => {}
                    },
                    _ => {}
                }
            }
            // Close what the fragment leaves open.
            while let Some(b) = stack.pop() {
                if b == 12 {
                    for _ in terminators..declared {
                        plan.push(Planned { rec: synth(3, &[15], stack.len() + 2), segment: None });
                    }
                }
                plan.push(Planned { rec: synth(0, &[65534], stack.len() + 1), segment: None });
            }
            covered = covered.max(seg_slots[si].1);
            continue;
        }
        if slot <= covered && slot != 0 {
            continue;
        }
        match slot {
            0 if !has_version => plan.push(Planned { rec: synth(3, &[1, 1], 1), segment: None }),
            2 if !types.listed => {
                plan.push(Planned { rec: synth(1, &[65535, 17, 2], 1), segment: None });
                for v in types.records()? {
                    plan.push(Planned { rec: synth(3, &v, 2), segment: None });
                }
                plan.push(Planned { rec: synth(0, &[65534], 1), segment: None });
            }
            100..=2_999_999 => {
                let f = (slot - 100) as u32;
                if !listed_decls.contains(&f) {
                    let proto = if defined.contains(&f) { 0 } else { 1 };
                    plan.push(Planned { rec: synth(3, &[8, decl_types[f as usize], 0, proto, 0], 1), segment: None });
                }
            }
            3_000_000 if !has_globals => {
                plan.push(Planned { rec: synth(1, &[65535, 19, 2], 1), segment: None });
                plan.push(Planned { rec: synth(3, &[5, nglobals as u64], 2), segment: None });
                for _ in 0..nglobals {
                    plan.push(Planned { rec: synth(3, &[0, 0, 0], 2), segment: None });
                    plan.push(Planned { rec: synth(3, &[2, 4], 2), segment: None });
                }
                plan.push(Planned { rec: synth(0, &[65534], 1), segment: None });
            }
            s if s >= 4_000_000 => {
                // A defined function whose body the fragment leaves out.
                plan.push(Planned { rec: synth(1, &[65535, 12, 2], 1), segment: None });
                plan.push(Planned { rec: synth(3, &[1, 1], 2), segment: None });
                plan.push(Planned { rec: synth(3, &[15], 2), segment: None });
                plan.push(Planned { rec: synth(0, &[65534], 1), segment: None });
            }
            _ => {}
        }
    }
    if done_segs.iter().any(|d| !d) {
        return Err("a segment has no place in the module".into());
    }
    // Close the module unless a fragment did.
    let depth: i64 = plan.iter().map(|p| block_delta(&p.rec)).sum();
    for _ in 0..depth {
        plan.push(Planned { rec: synth(0, &[65534], 0), segment: None });
    }
    Ok(plan)
}

/// +1 for an enter, -1 for an exit.
fn block_delta(r: &Rec) -> i64 {
    match (r.abbrev, r.values.first()) {
        (Some(1), Some(65535)) => 1,
        (Some(0), Some(65534)) => -1,
        _ => 0,
    }
}

/// Writes a planned module and compares its listing with each segment.
fn run_plan(ex: &Excerpt, plan: &[Planned]) -> Outcome {
    let recs: Vec<Rec> = plan.iter().map(|p| p.rec.clone()).collect();
    let (bytes, positions) = match build(&recs) {
        Ok(b) => b,
        Err(e) => return Outcome::Unbuildable(format!("cannot write it: {e}")),
    };
    let (out, result) = listing(&bytes, Mode::Full, None);
    if let Err(e) = result {
        return Outcome::Unbuildable(format!("the decoder rejects the completed module: {e} at {}", e.pos()));
    }
    let lines: Vec<Line> = out.lines().enumerate().filter_map(|(i, l)| Line::parse(i + 1, l)).collect();
    let at_pos = |bit: u64| {
        let p = format!("{}:{}", bit / 8, bit % 8);
        lines.iter().position(|l| l.pos.as_deref() == Some(p.as_str()))
    };
    let whole_module = ex.segments[0][0].rec.trim_start() == ex.segments[0][0].rec;
    let mut checked = 0;
    for (si, seg) in ex.segments.iter().enumerate() {
        let first = plan.iter().position(|p| p.segment == Some(si)).unwrap();
        let after = (first..plan.len()).find(|&i| plan[i].segment != Some(si));
        let leading = seg.iter().take_while(|l| l.pos.is_none()).count();
        let Some(start) = at_pos(positions[first]).and_then(|s| s.checked_sub(leading)) else {
            return Outcome::Mismatch(format!("segment {si}: its first record is not in the listing:\n{out}"));
        };
        let end = match after {
            Some(a) => match at_pos(positions[a]) {
                Some(e) => e,
                None => return Outcome::Mismatch(format!("segment {si}: the record after it is not listed:\n{out}")),
            },
            None => lines.len(),
        };
        let region = &lines[start..end];
        let key = |l: &Line| if whole_module { l.full() } else { l.body() };
        let want: Vec<String> = seg.iter().map(key).collect();
        let got: Vec<String> = region.iter().map(key).collect();
        // Labels the synthesized records after a fragment bring are not its.
        let extra_ok = got.len() >= want.len()
            && got[want.len()..].iter().zip(&region[want.len()..]).all(|(_, l)| {
                let a = l.asm.trim();
                l.pos.is_none() && l.rec.trim().is_empty() && a.starts_with("%b") && a.ends_with(':')
            });
        if !extra_ok || got[..want.len()] != want[..] {
            return Outcome::Mismatch(format!(
                "excerpt at seed line {}, segment {si}:\n{}",
                ex.first_line,
                diff(&want, &got)
            ));
        }
        checked += want.len();
    }
    Outcome::Matched(checked)
}

#[test]
fn fragments_of_the_manual_show_the_same_pnaclasm() {
    let excerpts: Vec<Excerpt> = seed_excerpts()
        .into_iter()
        .filter(|e| !(e.segments.len() == 1 && e.segments[0][0].pos.as_deref() == Some("0:0")))
        .collect();
    let mut matched = 0;
    let mut lines = 0;
    let mut failures = Vec::new();
    let mut unbuildable = Vec::new();
    for ex in &excerpts {
        match check_excerpt(ex) {
            Outcome::Matched(n) => {
                matched += 1;
                lines += n;
            }
            Outcome::Mismatch(m) => failures.push(m),
            Outcome::Unbuildable(why) => unbuildable.push(format!("seed line {}: {why}", ex.first_line)),
        }
    }
    eprintln!(
        "{} fragments: {matched} match ({lines} lines), {} differ, {} could not be completed into a module:",
        excerpts.len(),
        failures.len(),
        unbuildable.len()
    );
    for u in &unbuildable {
        eprintln!("  {u}");
    }
    assert!(failures.is_empty(), "{} fragments differ:\n{}", failures.len(), failures.join("\n"));
    assert!(excerpts.len() >= 70, "seed 001 has {} fragments", excerpts.len());
    assert!(matched >= 70, "only {matched} fragments could be checked");
}

// ---------------------------------------------------------------------------
// 3. Another tool's PNaClAsm listings of two corpus pexes.
//
// These listings come from a pexe interpreter's own disassembler, which
// prints PNaClAsm as pnacl-bcdis does but: never shows which abbreviation a
// record used (` <@a2>`), adds an `intrinsic "_start" (38)` line after
// symbols it resolves, and, for a single function (dedupe_incoming), leaves
// out the `blocks N;` record and the constants block and starts at the
// left margin. Those are the only lines not compared.

const TEST_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/cli/binji_pnacl_c/test");

/// `text` without a trailing abbreviation annotation (` <@a2>`, ` <%a0>`).
fn strip_annotation(text: &str) -> &str {
    if let Some(i) = text.rfind(" <") {
        let tail = &text[i + 2..];
        if (tail.starts_with("@a") || tail.starts_with("%a"))
            && tail.ends_with('>')
            && tail[2..tail.len() - 1].bytes().all(|c| c.is_ascii_digit())
        {
            return &text[..i];
        }
    }
    text
}

/// The listing part of one of the interpreter's test files.
fn other_listing(name: &str, first: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{TEST_DIR}/{name}")).unwrap();
    text.lines()
        .skip_while(|l| *l != first)
        .filter(|l| !l.trim_start().starts_with("intrinsic \""))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn start_pexe_matches_the_other_tools_listing() {
    let bytes = std::fs::read(format!("{TEST_DIR}/res/start.pexe")).unwrap();
    let (out, r) = listing(&bytes, Mode::Asm, None);
    r.unwrap();
    let want = other_listing("start.txt", "module {  // BlockID = 8");
    assert!(want.len() > 40, "start.txt has its listing");
    let got: Vec<String> = out.lines().map(|l| strip_annotation(l.trim()).to_string()).collect();
    assert_eq!(got, want, "\n{}", diff(&want, &got));
    // The annotations left out above are there: `count`, `ret` and the
    // symbol were written with abbreviations.
    assert_eq!(out.lines().filter(|l| strip_annotation(l) != *l).count(), 3);
}

#[test]
fn one_function_of_dedupe_incoming_matches_the_other_tools_listing() {
    let bytes = std::fs::read(format!("{TEST_DIR}/res/dedupe_incoming.pexe")).unwrap();
    let (out, r) = listing(&bytes, Mode::Asm, Some(1));
    r.unwrap();
    let want = other_listing("dedupe_incoming.txt", "function i32 @f1(i32 %p0, i32 %p1) {  // BlockID = 12");
    assert!(want.len() > 60, "dedupe_incoming.txt has its listing");
    // The other tool neither wraps lines nor lists a phi's repeated
    // incoming edges (`[%c0, %b0]` once per switch case into the block).
    let mut joined: Vec<String> = Vec::new();
    let mut open = false;
    for l in out.lines() {
        let l = l.trim();
        if open {
            let last = joined.last_mut().unwrap();
            if !last.ends_with(' ') {
                last.push(' ');
            }
            last.push_str(l);
        } else {
            joined.push(l.to_string());
        }
        let l = strip_annotation(joined.last().unwrap());
        open = !(l.ends_with(';') || l.ends_with('{') || l.ends_with('}') || l.ends_with(':') || l.contains("// BlockID = "));
    }
    let dedupe = |l: &str| -> String {
        let Some((head, rest)) = l.split_once(" phi ") else { return l.to_string() };
        let Some((ty, pairs)) = rest.split_once(' ') else { return l.to_string() };
        let mut seen: Vec<&str> = Vec::new();
        for pair in pairs.trim_end_matches(';').split("], ") {
            let pair = pair.trim_end_matches(']');
            if !seen.contains(&pair) {
                seen.push(pair);
            }
        }
        format!("{head} phi {ty} {}];", seen.join("], "))
    };
    let mut got = Vec::new();
    let mut in_constants = false;
    for l in &joined {
        let l = dedupe(strip_annotation(l));
        let l = l.as_str();
        if l.starts_with("constants {") {
            in_constants = true;
        }
        if !in_constants && !l.starts_with("blocks ") {
            got.push(l.to_string());
        }
        if in_constants && l == "}" {
            in_constants = false;
        }
    }
    assert_eq!(got, want, "\n{}", diff(&want, &got));
    // Only that function: its header first, its exit last.
    assert!(out.starts_with("  function i32 @f1("), "{out}");
    assert!(out.ends_with("  }\n"));
}

// ---------------------------------------------------------------------------
// 4. Every pexe of the corpus, in every mode.

/// The fuzzed copies of start.pexe that are invalid.
const INVALID: &[&str] = &["1.pexe", "2.pexe", "4.pexe", "5.pexe", "6.pexe"];

fn corpus_pexes() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "pexe") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(CORPUS), &mut out);
    out
}

fn is_invalid(p: &Path) -> bool {
    p.parent().is_some_and(|d| d.ends_with("regression")) && INVALID.iter().any(|n| p.ends_with(n))
}

#[test]
fn every_corpus_pexe_is_listed_in_every_mode() {
    let pexes = corpus_pexes();
    assert!(pexes.len() >= 40, "the corpus has {} pexes", pexes.len());
    // Two workers: the large pexes take a while in debug builds.
    let (even, odd): (Vec<_>, Vec<_>) = pexes.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    std::thread::scope(|s| {
        for half in [even, odd] {
            s.spawn(move || half.into_iter().for_each(|(_, p)| check_corpus_pexe(p)));
        }
    });
}

fn check_corpus_pexe(p: &Path) {
    {
        let bytes = std::fs::read(p).unwrap();
        let (full, r) = listing(&bytes, Mode::Full, None);
        if is_invalid(p) {
            let e = r.expect_err(&format!("{} is invalid", p.display()));
            // The listing stops before the record at fault.
            let last = full.lines().filter_map(|l| Line::parse(0, l)).filter_map(|l| l.pos).next_back();
            let last = last.unwrap_or_else(|| panic!("{}: nothing listed before the error", p.display()));
            let (b, n) = last.split_once(':').unwrap();
            let last_bit = b.parse::<u64>().unwrap() * 8 + n.parse::<u64>().unwrap();
            assert!(last_bit <= e.pos().0, "{}: listed past the error at {}", p.display(), e.pos());
            for mode in [Mode::Records, Mode::Asm] {
                assert!(listing(&bytes, mode, None).1.is_err());
            }
            return;
        }
        r.unwrap_or_else(|e| panic!("{}: {e} at {}", p.display(), e.pos()));
        let (records, r) = listing(&bytes, Mode::Records, None);
        r.unwrap();
        let (asm, r) = listing(&bytes, Mode::Asm, None);
        r.unwrap();
        // The full listing is the two others side by side. The PNaClAsm
        // column wraps at 39 instead of 79 characters, which only moves
        // white space (tokens never break).
        let full_lines: Vec<&str> = full.lines().collect();
        assert!(full_lines.iter().all(|l| l.len() >= 41 && l.as_bytes()[40] == b'|'), "{}", p.display());
        let full_asm = full_lines.iter().skip(3).flat_map(|l| l[41..].bytes()).filter(|c| !c.is_ascii_whitespace());
        assert!(full_asm.eq(asm.bytes().filter(|c| !c.is_ascii_whitespace())), "{}: PNaClAsm columns differ", p.display());
        // Every module-level function address has its PNaClAsm line.
        let (module, _) = pexe::decode::decode(&bytes).unwrap();
        let decls = asm.lines().filter(|l| l.starts_with("  define ") || l.starts_with("  declare ")).count();
        assert_eq!(decls, module.functions.len(), "{}", p.display());
        // The records column carries the whole file: writing it back gives
        // the same bytes.
        let recs = records_of_records_mode(&records).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let (again, _) = build(&recs).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if p.ends_with("regression/3.pexe") {
            // The fuzzer set bits in the padding after an END_BLOCK, which
            // readers skip and the writer zeroes: same records, not same bytes.
            assert_ne!(again, bytes);
            assert_eq!(listing(&again, Mode::Records, None).0, records, "{}", p.display());
        } else {
            assert!(again == bytes, "{}: the records column does not write back to the same bytes", p.display());
        }
    }
}

/// The records of a records-only listing (no PNaClAsm column).
fn records_of_records_mode(text: &str) -> Result<Vec<Rec>, String> {
    let lines: Vec<Line> = text
        .lines()
        .enumerate()
        .map(|(i, l)| Line::parse(i + 1, &format!("{l}|")).ok_or_else(|| format!("line {}: {l:?}", i + 1)))
        .collect::<Result<_, _>>()?;
    records(&lines)
}

#[test]
fn one_function_alone_is_its_block_of_the_full_listing() {
    let bytes = std::fs::read(format!("{CORPUS}/cli/binji_pexe_py/tests/hello_world.pexe")).unwrap();
    let (full, r) = listing(&bytes, Mode::Full, None);
    r.unwrap();
    let (module, functions) = pexe::decode::decode(&bytes).unwrap();
    assert!(functions.len() >= 3);
    for f in functions.iter().take(5) {
        let (one, r) = listing(&bytes, Mode::Full, Some(f.id.0));
        r.unwrap();
        assert!(one.lines().next().unwrap().contains("function "), "{one}");
        assert!(full.contains(&one), "@f{}'s lines are a piece of the full listing", f.id.0);
        assert!(one.trim_end().ends_with("|  }"));
    }
    // A declared function has no block to list.
    let proto = module.functions.iter().position(|d| d.is_proto).unwrap() as u32;
    let (none, r) = listing(&bytes, Mode::Full, Some(proto));
    assert!(r.is_err() && none.is_empty());
}
