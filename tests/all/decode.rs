//! The decoder on every real pexe of the shared corpus.

use crate::support::{corpus_root as corpus, valid_corpus};
use pexe::decode::{decode, decode_with};
use pexe::ir::{InstKind, Type};

#[test]
fn every_valid_corpus_pexe_decodes() {
    let mut failures = Vec::new();
    let mut total_insts = 0;
    for (rel, bytes) in valid_corpus() {
        let f = std::path::Path::new(rel);
        match decode(bytes) {
            Ok((m, fs)) => {
                assert_eq!(fs.len(), m.defined_functions().count(), "{}", f.display());
                for func in &fs {
                    assert_eq!(func.blocks.len() as u32, func.blocks.len() as u32);
                    total_insts += func.insts.len();
                    // Every instruction result and operand has a type.
                    for inst in &func.insts {
                        for v in inst.kind.operands(func) {
                            assert!(func.value_type(&m, v).is_some(), "{}: untyped operand {v:?}", f.display());
                        }
                    }
                }
                assert!(m.types.iter().any(|t| matches!(t, Type::Function(_))));
            }
            Err(e) => failures.push(format!("{}: {e:?}", f.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(total_insts > 1_000_000, "only {total_insts} instructions decoded");
}

#[test]
fn factorial_of_the_spec_decodes_to_the_expected_ir() {
    // start.pexe: `void _start(i32) { ret void }` with the standard abbreviations.
    let bytes = std::fs::read(corpus().join("cli/binji_pnacl_c/test/res/start.pexe")).unwrap();
    let (m, fs) = decode(&bytes).unwrap();
    assert_eq!(m.functions.len(), 1);
    assert_eq!(m.functions[0].name.as_deref(), Some(&b"_start"[..]));
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0].insts.len(), 1);
    assert!(matches!(fs[0].insts[0].kind, InstKind::Ret { value: None }));
}

#[test]
fn regression_files_are_rejected_with_a_position() {
    let dir = corpus().join("cli/binji_pnacl_c/test/regression");
    for n in [1, 2, 4, 5, 6] {
        let bytes = std::fs::read(dir.join(format!("{n}.pexe"))).unwrap();
        let err = decode_with(&bytes, |_, _| Ok(())).expect_err(&format!("regression/{n}.pexe must be rejected"));
        assert!(err.pos().0 > 0, "regression/{n}: {err:?}");
        assert!(!err.to_string().is_empty());
    }
    let bytes = std::fs::read(dir.join("3.pexe")).unwrap();
    decode(&bytes).expect("regression/3.pexe is valid");
}
