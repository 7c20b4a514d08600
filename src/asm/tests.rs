use super::*;
use crate::bitstream::{Event, Parser};

/// Reads `bytes` to the end, returning the records as `(index, values)`.
fn records(bytes: &[u8]) -> Vec<(u32, Vec<u64>)> {
    let mut p = Parser::new(bytes);
    let mut out = Vec::new();
    loop {
        match p.next_event().expect("assembled bytes parse") {
            Event::Record { abbrev, code, ops, .. } => {
                let mut v = vec![code as u64];
                v.extend_from_slice(ops);
                out.push((abbrev, v));
            }
            Event::End => return out,
            _ => {}
        }
    }
}

#[test]
fn factorial_sample_assembles_and_parses() {
    let bytes = assemble(FACTORIAL_LISTING).unwrap();
    assert_eq!(&bytes[..16], &STANDARD_HEADER);
    // The listing's last exit is at 156:0 and ends the file at a word boundary.
    assert_eq!(bytes.len(), 160);
    let recs = records(&bytes);
    assert_eq!(recs.first(), Some(&(3, vec![1, 1])));
    assert_eq!(recs.last(), Some(&(3, vec![10, 1])));
    assert_eq!(recs.len(), 19);
}

#[test]
fn abbreviations_sample_uses_its_abbreviations() {
    let bytes = assemble(ABBREVIATIONS_LISTING).unwrap();
    assert_eq!(bytes.len(), 208);
    let recs = records(&bytes);
    // `4: <21, 0, 0, 0, 0>` (local types abbreviation), `6: <1, 0, 102>`
    // (BLOCKINFO valuesymtab @a2, char6), `5: ...` and `8: <10, 1>`.
    for want in [(4, vec![21, 0, 0, 0, 0]), (6, vec![1, 0, 102]), (5, vec![2, 3, 1, 0]), (8, vec![10, 1])] {
        assert!(recs.contains(&want), "{want:?} missing from {recs:?}");
    }
}

#[test]
fn textual_form_matches_listing() {
    let text = "65535,8,2;\n1,1;\n65535,17,2;\n1,4;\n7,32;\n2;\n21,0,0,0;\n7,1;\n65534;\n65534;\n";
    let listing = "1: <65535, 8, 2>\n3: <1, 1>\n1: <65535, 17, 2>\n3: <1, 4>\n3: <7, 32>\n3: <2>\n3: <21, 0, 0, 0>\n3: <7, 1>\n0: <65534>\n0: <65534>\n";
    assert_eq!(assemble(text).unwrap(), assemble(listing).unwrap());
}

#[test]
fn line_styles_mix() {
    // A listing header, then textual records, then a records-column exit.
    let text = "    0:0|<65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0>|PEXE\n65535,8,2; 1,1;\n   26:4|0: <65534>\n";
    assert_eq!(assemble(text).unwrap(), assemble("65535,8,2; 1,1; 65534;").unwrap());
    // A byte-order mark and Windows line ends are fine.
    assert_eq!(assemble("\u{feff}65535,8,2;\r\n1,1;\r\n65534;\r\n").unwrap(), assemble("65535,8,2; 1,1; 65534;").unwrap());
}

fn error(text: &str) -> String {
    assemble(text).unwrap_err().to_string()
}

#[test]
fn error_messages() {
    assert_eq!(error(""), "line 1: no records in the input");
    assert_eq!(error("1: <65535, 8, 2>\n3: <1, 1>\n"), "line 2: the module block entered on line 1 is never exited (1 block(s) still open at the end)");
    assert_eq!(error("0: <65534>"), "line 1: exit block record without an open block");
    assert_eq!(
        error("1: <65535, 8, 3>\n2: <65533, 1, 1, 7>\n5: <7>\n"),
        "line 3: abbreviation index 5 is not defined in the module block (defined: 4..=4)"
    );
    assert_eq!(
        error("1: <65535, 8, 3>\n2: <65533, 2, 1, 7, 0, 1, 4>\n4: <7, 16>\n"),
        "line 3: record <7, 16> does not fit abbreviation 4 <7, fixed(4)>"
    );
    assert_eq!(error("1: <65535, 8, 3>\n4: <1, 1>\n"), "line 2: abbreviation index 4 is not defined in the module block (defined: none)");
    assert_eq!(
        error("1: <65535, 8, 2>\n2: <65533, 1, 1, 7>\n4: <7>\n"),
        "line 3: abbreviation index 4 does not fit in the module block's 2-bit abbreviation width"
    );
    assert_eq!(error("1: <65535, 8, 2>\n2: <65533, 2, 1, 7>\n"), "line 2: abbreviation definition says 2 operands but lists 1");
    assert_eq!(error("1: <65535, 8, 2>\n2: <65533, 1, 0, 5>\n"), "line 2: blob abbreviation operands are not allowed in PNaCl bitcode");
    assert_eq!(error("1: <65535, 8, 2>\n2: <65533, 3, 0, 3, 0, 1, 8, 0, 1, 8>\n"), "line 2: invalid abbreviation: array must be the second to last operand");
    assert_eq!(error("1: <65535, 8, 1>"), "line 1: abbreviation width 1 is out of range 2..=32");
    assert_eq!(error("1: <65535, 8, 4294967298>"), "line 1: abbreviation width 4294967298 is out of range 2..=32");
    let long = format!("1: <65535, 8, 3>\n2: <65533, 1, 1, 7>\n4: <{}>\n", vec!["7"; 40].join(", "));
    assert_eq!(
        error(&long),
        "line 3: record <7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, ... (40 values)> does not fit abbreviation 4 <7>"
    );
    assert_eq!(error("1: <65535, 8>"), "line 1: enter block record <65535, 8> needs a block id and an abbreviation width");
    assert_eq!(error("1: <1, 14>"), "line 1: abbreviation index 1 enters a block; its record is <65535, id, width>");
    assert_eq!(error("3: <1, 1>"), "line 1: record outside any block");
    assert_eq!(error("1: <65535, 8, 2>\n<65532, 1>\n"), "line 2: the header record <65532, ...> must be the first record");
    assert_eq!(error("<65532, 256>"), "line 1: header byte 256 is larger than 255");
    assert_eq!(error("1: <65535, 8, 2>\n3: <1, -1>"), "line 2: negative numbers are not allowed: records hold unsigned values");
    assert_eq!(error("1: <65535, 8, 2>\n3: <1, 0x10>"), "line 2: malformed number \"0x10\"");
    assert_eq!(error("65535,8,2;\n1,1\n"), "line 2: record is not finished: ';' is missing");
    assert_eq!(
        error("   16:0|1: <65535, 8, 2>\n   24:4|  3: <1, 1>\n"),
        "line 2: the listing says this record is at 24:4, but it is written at 24:0"
    );
    assert_eq!(error("    1:0|<65532, 80>"), "line 1: the listing says this record is at 1:0, but it is written at 0:0");
}

#[test]
fn setbid_quirk_only_inside_blockinfo() {
    // In BLOCKINFO, `1: <1, 14>` is the unabbreviated SETBID (20 bits).
    let text = "1: <65535, 8, 2>\n1: <65535, 0, 2>\n1: <1, 14>\n2: <65533, 1, 1, 7>\n0: <65534>\n0: <65534>\n";
    let same = text.replace("1: <1, 14>", "3: <1, 14>");
    assert_eq!(assemble(text).unwrap(), assemble(&same).unwrap());
}

/// A small deterministic generator, so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_text_never_panics() {
    const ALPHABET: &[char] = &[
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2', '3', '5', '6', ' ', ' ', ',', ',', ',', ':',
        '<', '>', ';', '|', '\n', '\n', '#', '-', 'x', '\t', '\r', 'é', '\u{feff}',
    ];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let len = rng.below(200);
        let text: String = (0..len).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect();
        if let Ok(bytes) = assemble(&text) {
            // Whatever was produced must be readable without a panic too.
            let mut p = Parser::new(&bytes);
            for _ in 0..10_000 {
                match p.next_event() {
                    Ok(Event::End) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }
    }
}

#[test]
fn mutated_listings_never_panic() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    let base: Vec<char> = ABBREVIATIONS_LISTING.chars().collect();
    const INSERTS: &[char] = &['0', '1', '9', ',', '<', '>', ':', '|', '\n', ' ', ';', '4'];
    let mut ok = 0;
    for _ in 0..3_000 {
        let mut text = base.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len());
            match rng.below(3) {
                0 => {
                    text.remove(at);
                }
                1 => text.insert(at, INSERTS[rng.below(INSERTS.len())]),
                _ => text[at] = INSERTS[rng.below(INSERTS.len())],
            }
        }
        let text: String = text.into_iter().collect();
        if let Ok(bytes) = assemble(&text) {
            ok += 1;
            let mut p = Parser::new(&bytes);
            for _ in 0..10_000 {
                match p.next_event() {
                    Ok(Event::End) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }
    }
    // Mutations inside the PNaClAsm column change nothing, so some succeed.
    assert!(ok > 0);
}
