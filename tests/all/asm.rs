//! The assembler against real files: every toolchain-made corpus pexe is
//! printed as a records listing, assembled back, and must come out bit for
//! bit identical; the complete listings of the specification assemble with
//! every position column matching.

use pexe::asm::{assemble, ABBREVIATIONS_LISTING, FACTORIAL_LISTING};
use pexe::bitstream::{AbbrevOp, Event, Parser, BLOCKINFO_BLOCK_ID, STANDARD_HEADER};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");
const SEED_001: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/seeds/001_54c3d08b7f1b093e.txt");

/// Every `*.pexe` made by the toolchain: all of the corpus but the
/// fuzzer-mutated `regression/` copies.
fn corpus_pexes() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("corpus directory").flatten().map(|e| e.path()).collect();
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
    out.retain(|p| !p.to_string_lossy().contains("binji_pnacl_c/test/regression/"));
    assert!(out.len() >= 30, "corpus not found at {CORPUS}: {} pexes", out.len());
    out
}

/// How the test printer lays out its listing.
#[derive(Clone, Copy)]
struct Style {
    /// Print the `pos|` column (checked by the assembler).
    positions: bool,
    /// Add a third column, as pnacl-bcdis does with PNaClAsm.
    third_column: bool,
    /// Wrap records longer than this many characters onto continuation lines.
    wrap: usize,
}

/// A records listing in the pnacl-bcdis style, driven by parser events:
/// `pos|abbrev: <values>` lines, `<65532, ...>` for the header, `<65535, id,
/// width>` / `<65534>` for blocks, `<65533, n, ...>` for abbreviations.
fn print_records(bytes: &[u8], style: Style) -> String {
    let mut out = String::new();
    let mut p = Parser::new(bytes);
    let mut blocks: Vec<u32> = Vec::new();
    let line = |out: &mut String, pos: Option<u64>, depth: usize, record: String| {
        let pos_col = |text: &str| if style.positions { format!("{text:>7}|") } else { String::new() };
        let blank = if style.positions { "       |" } else { "" };
        let third = if style.third_column { "|  ; asm" } else { "" };
        let indent = "  ".repeat(depth);
        // Break after commas so no line's record part is longer than `wrap`.
        let mut chunks = vec![String::new()];
        for piece in record.split_inclusive(", ") {
            if chunks.last().unwrap().len() + piece.len() > style.wrap && !chunks.last().unwrap().is_empty() {
                chunks.push(String::new());
            }
            chunks.last_mut().unwrap().push_str(piece);
        }
        for (i, chunk) in chunks.iter().enumerate() {
            if i == 0 {
                let pos = pos.map_or(String::new(), |b| format!("{}:{}", b / 8, b % 8));
                let _ = writeln!(out, "{}{indent}{}{third}", pos_col(&pos), chunk.trim_end());
            } else {
                let _ = writeln!(out, "{blank}{indent}    {}{third}", chunk.trim_end());
            }
        }
    };
    let values = |vs: &mut dyn Iterator<Item = u64>| vs.map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
    loop {
        match p.next_event().expect("corpus pexe parses") {
            Event::Header(h) => {
                let record = format!("<65532, {}>", values(&mut h.bytes.iter().map(|&b| b as u64)));
                line(&mut out, Some(0), 0, record);
            }
            Event::EnterBlock { pos, block_id, abbrev_width, .. } => {
                line(&mut out, Some(pos.0), blocks.len(), format!("1: <65535, {block_id}, {abbrev_width}>"));
                blocks.push(block_id);
            }
            Event::ExitBlock { pos, .. } => {
                blocks.pop();
                line(&mut out, Some(pos.0), blocks.len(), "0: <65534>".to_string());
            }
            Event::DefineAbbrev { pos, abbrev, .. } => {
                let mut nums = vec![abbrev.ops().len() as u64];
                for op in abbrev.ops() {
                    match *op {
                        AbbrevOp::Literal(v) => nums.extend([1, v]),
                        AbbrevOp::Fixed(n) => nums.extend([0, 1, n as u64]),
                        AbbrevOp::Vbr(n) => nums.extend([0, 2, n as u64]),
                        AbbrevOp::Array => nums.extend([0, 3]),
                        AbbrevOp::Char6 => nums.extend([0, 4]),
                    }
                }
                line(&mut out, Some(pos.0), blocks.len(), format!("2: <65533, {}>", values(&mut nums.into_iter())));
            }
            Event::Record { pos, abbrev, code, ops } => {
                // pnacl-bcdis prints the unabbreviated SETBID as `1: <1, id>`.
                let shown = if blocks.last() == Some(&BLOCKINFO_BLOCK_ID) && code == 1 && abbrev == 3 { 1 } else { abbrev };
                let all = std::iter::once(code as u64).chain(ops.iter().copied());
                line(&mut out, Some(pos.0), blocks.len(), format!("{shown}: <{}>", values(&mut { all })));
            }
            Event::End => return out,
        }
    }
}

/// The textual bitcode form of pnacl-llvm: `code,ops;` per record, no
/// header, no BLOCKINFO block, no abbreviations.
fn print_textual(bytes: &[u8]) -> String {
    let mut out = String::new();
    let mut p = Parser::new(bytes);
    let mut in_blockinfo = false;
    loop {
        match p.next_event().expect("corpus pexe parses") {
            Event::EnterBlock { block_id: BLOCKINFO_BLOCK_ID, .. } => in_blockinfo = true,
            Event::ExitBlock { block_id: BLOCKINFO_BLOCK_ID, .. } => in_blockinfo = false,
            _ if in_blockinfo => {}
            Event::EnterBlock { block_id, abbrev_width, .. } => {
                let _ = writeln!(out, "65535,{block_id},{abbrev_width};");
            }
            Event::ExitBlock { .. } => out.push_str("65534;\n"),
            Event::Record { code, ops, .. } => {
                let _ = write!(out, "{code}");
                for v in ops {
                    let _ = write!(out, ",{v}");
                }
                out.push_str(";\n");
            }
            Event::End => return out,
            Event::Header(_) | Event::DefineAbbrev { .. } => {}
        }
    }
}

/// Blocks and records (code and operands) outside BLOCKINFO, ignoring how
/// they were encoded.
fn structure(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut p = Parser::new(bytes);
    let mut depth_in_blockinfo = false;
    loop {
        match p.next_event().expect("parses") {
            Event::EnterBlock { block_id: BLOCKINFO_BLOCK_ID, .. } => depth_in_blockinfo = true,
            Event::ExitBlock { block_id: BLOCKINFO_BLOCK_ID, .. } => depth_in_blockinfo = false,
            _ if depth_in_blockinfo => {}
            Event::EnterBlock { block_id, .. } => out.push(format!("enter {block_id}")),
            Event::ExitBlock { .. } => out.push("exit".into()),
            Event::Record { code, ops, .. } => out.push(format!("{code} {ops:?}")),
            Event::End => return out,
            _ => {}
        }
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("first difference at byte {i}"),
        None => format!("lengths {} and {}", a.len(), b.len()),
    }
}

#[test]
fn corpus_round_trips_through_records_listing() {
    let styles = [
        Style { positions: true, third_column: false, wrap: 40 },
        Style { positions: true, third_column: true, wrap: 1000 },
        Style { positions: false, third_column: false, wrap: 24 },
    ];
    let mut checked = 0;
    for path in corpus_pexes() {
        let original = std::fs::read(&path).unwrap();
        for (i, style) in styles.iter().enumerate() {
            // The wrap and column variants are slow in debug builds; the
            // main style covers every file, the others the smaller ones.
            if i > 0 && original.len() > 100_000 {
                continue;
            }
            let text = print_records(&original, *style);
            let assembled = assemble(&text).unwrap_or_else(|e| panic!("{}: style {i}: {e}", path.display()));
            assert!(
                assembled == original,
                "{}: style {i}: not bit-identical ({})",
                path.display(),
                first_difference(&assembled, &original)
            );
            checked += 1;
        }
    }
    assert!(checked >= 60, "only {checked} round trips");
}

#[test]
fn corpus_textual_form_keeps_every_record() {
    for path in corpus_pexes() {
        let original = std::fs::read(&path).unwrap();
        if original.len() > 100_000 {
            continue;
        }
        let assembled = assemble(&print_textual(&original)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(&assembled[..16], &STANDARD_HEADER);
        assert_eq!(structure(&assembled), structure(&original), "{}", path.display());
    }
}

/// The listings of seed 001 that describe a whole file (they start with the
/// header record at `0:0`), each as `(first line number, text)`.
fn seed_complete_listings() -> Vec<(usize, String)> {
    let seed = std::fs::read_to_string(SEED_001).expect("seed 001");
    let lines: Vec<&str> = seed.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("0:0|<65532") {
            let body: Vec<&str> = lines[i..].iter().take_while(|l| l.contains('|')).copied().collect();
            out.push((i + 1, body.join("\n")));
        }
    }
    out
}

/// `(position, record without spaces)` per record of a listing, continuation
/// lines joined: the comparable content of a pnacl-bcdis listing.
fn normalized(listing: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in listing.lines() {
        let mut cols = l.split('|');
        let (Some(pos), Some(rec)) = (cols.next(), cols.next()) else { continue };
        let rec: String = rec.chars().filter(|c| !c.is_whitespace()).collect();
        if pos.trim().is_empty() {
            if let Some(last) = out.last_mut() {
                last.1.push_str(&rec);
            }
        } else {
            out.push((pos.trim().to_string(), rec));
        }
    }
    out
}

#[test]
fn seed_listings_assemble_with_matching_positions() {
    let listings = seed_complete_listings();
    assert_eq!(listings.len(), 3, "complete listings in seed 001");
    for (line, text) in &listings {
        let bytes = assemble(text).unwrap_or_else(|e| panic!("seed 001 listing at line {line}: {e}"));
        assert_eq!(&bytes[..16], &STANDARD_HEADER);
        if bytes.len() == 16 {
            continue; // the header record's own example
        }
        // Read back and printed, the bytes give the listing's records and positions.
        let printed = print_records(&bytes, Style { positions: true, third_column: false, wrap: 1000 });
        assert_eq!(normalized(&printed), normalized(text), "seed 001 listing at line {line}");
    }
}

#[test]
fn spec_samples_build_readable_pexes() {
    for text in [FACTORIAL_LISTING, ABBREVIATIONS_LISTING] {
        let bytes = assemble(text).unwrap();
        let mut p = Parser::new(&bytes);
        let mut events = 0;
        loop {
            match p.next_event().expect("sample parses") {
                Event::End => break,
                _ => events += 1,
            }
        }
        assert!(events > 20);
        // And the sample survives its own round trip.
        let again = print_records(&bytes, Style { positions: true, third_column: true, wrap: 30 });
        assert_eq!(assemble(&again).unwrap(), bytes);
    }
}

#[test]
fn edited_listing_is_caught_by_its_positions() {
    // Hand-edit one operand of the factorial listing so the record grows:
    // `3: <7, 32>` becomes `3: <7, 3200>` (one more vbr6 chunk), and every
    // later position is now wrong.
    let edited = FACTORIAL_LISTING.replace("3: <7, 32>   ", "3: <7, 3200> ");
    assert_ne!(edited, FACTORIAL_LISTING);
    let e = assemble(&edited).unwrap_err();
    assert_eq!(e.to_string(), "line 12: the listing says this record is at 53:6, but it is written at 54:4");
    // Reduced to its records column, the same edit assembles.
    let records_only: String = edited
        .lines()
        .map(|l| l.split('|').nth(1).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    assemble(&records_only).unwrap();
}

#[test]
fn error_cases_name_their_line() {
    let cases: &[(&str, &str)] = &[
        ("1: <65535, 8, 2>\n  3: <1, 1>\n  9: <2>\n0: <65534>\n", "line 3: abbreviation index 9 does not fit in the module block's 2-bit abbreviation width"),
        (
            "1: <65535, 8, 3>\n  1: <65535, 17, 3>\n  2: <65533, 2, 1, 7, 0, 1, 6>\n  4: <7, 64>\n",
            "line 4: record <7, 64> does not fit abbreviation 4 <7, fixed(6)>",
        ),
        ("1: <65535, 8, 3>\n  5: <1, 1>\n", "line 2: abbreviation index 5 is not defined in the module block (defined: none)"),
        ("1: <65535, 8, 2>\n  1: <65535, 12, 4>\n  0: <65534>\n", "line 3: the module block entered on line 1 is never exited (1 block(s) still open at the end)"),
        ("1: <65535, 8, 2>\n0: <65534>\n0: <65534>\n", "line 3: exit block record without an open block"),
        ("1: <65535, 8, 2>\n  3: <1, 1,, 2>\n0: <65534>\n", "line 2: expected a number, found ','"),
        ("1: <65535, 8, 2>\n  3: <1, one>\n0: <65534>\n", "line 2: unexpected text \"one\": expected a number"),
        ("1: <65535, 8, 2>\n  3 <1, 1>\n0: <65534>\n", "line 2: expected ':' (abbreviation index) or ',' / ';' (textual record), found '<'"),
        ("1: <65535, 8, 2>\n  3: <1, 1>\n0: <65534>\n  3: <1, 1>\n", "line 4: record outside any block"),
        ("1: <65535, 8, 2>\n  2: <65533, 1, 0, 9>\n0: <65534>\n", "line 2: unknown abbreviation operand encoding 9 (expected 1..=4)"),
        ("1: <65535, 8, 2>\n  2: <65533, 1, 0, 1, 33>\n0: <65534>\n", "line 2: invalid abbreviation: fixed width 33 is larger than 32"),
        ("1: <65535, 8, 2>\n  0: <65534, 1>\n", "line 2: exit block record <65534, 1> takes no operands"),
        ("65535,8,2;\n1,,1;\n", "line 2: expected a number, found ','"),
    ];
    for (text, want) in cases {
        assert_eq!(assemble(text).unwrap_err().to_string(), *want, "for {text:?}");
    }
}

/// The round trip through the real disassembler (`pexe dis`): the
/// records-only listing of every toolchain-made corpus pexe, and the full
/// three-column listing of the smaller ones (it wraps and pads the same
/// records, and takes long in debug builds).
#[test]
fn corpus_round_trips_through_dis_listing() {
    use pexe::dis::{disassemble, Mode, Options};
    let mut checked = 0;
    for path in corpus_pexes() {
        let original = std::fs::read(&path).unwrap();
        for mode in [Mode::Records, Mode::Full] {
            if mode == Mode::Full && original.len() > 100_000 {
                continue;
            }
            let mut listing = String::new();
            disassemble(&original, &Options { mode, function: None }, &mut listing)
                .unwrap_or_else(|e| panic!("{}: {mode:?}: dis failed: {e}", path.display()));
            let assembled = assemble(&listing).unwrap_or_else(|e| panic!("{}: {mode:?}: {e}", path.display()));
            assert!(
                assembled == original,
                "{}: {mode:?}: not bit-identical ({})",
                path.display(),
                first_difference(&assembled, &original)
            );
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} round trips");
}

/// The sample the project ships (`samples/fact.records`: a listing with
/// `#` comments and a position column) assembles, and its bits read to the end.
#[test]
fn shipped_sample_assembles() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/fact.records");
    let text = std::fs::read_to_string(path).expect("samples/fact.records");
    let bytes = assemble(&text).unwrap_or_else(|e| panic!("samples/fact.records: {e}"));
    let mut p = Parser::new(&bytes);
    while !matches!(p.next_event().expect("sample parses"), Event::End) {}
    // Printed back and assembled again, it stays the same.
    let again = print_records(&bytes, Style { positions: true, third_column: false, wrap: 30 });
    assert_eq!(assemble(&again).unwrap(), bytes);
}
