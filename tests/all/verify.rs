//! The ABI verifier against the real pexe corpus: every valid pexe passes
//! with no diagnostic; the fuzzer-broken ones are rejected with a position.

use crate::support::{corpus_root as corpus_dir, valid_corpus};
use pexe::verify::verify_bytes;

/// The corpus README's list of invalid pexes (fuzzer-mutated copies of start.pexe).
const INVALID: &[&str] = &["1.pexe", "2.pexe", "4.pexe", "5.pexe", "6.pexe"];

#[test]
fn every_valid_corpus_pexe_verifies_clean() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (p, bytes) in valid_corpus() {
        let diags = verify_bytes(bytes);
        checked += 1;
        if !diags.is_empty() {
            let shown: Vec<String> = diags.iter().take(5).map(|d| format!("  {d}")).collect();
            failures.push(format!("{p}: {} diagnostics\n{}", diags.len(), shown.join("\n")));
        }
    }
    assert!(checked >= 36, "only {checked} valid pexes found");
    assert!(failures.is_empty(), "{} of {checked} valid pexes rejected:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn broken_regression_pexes_are_rejected_with_a_position() {
    let dir = corpus_dir().join("cli/binji_pnacl_c/test/regression");
    for name in INVALID {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let diags = verify_bytes(&bytes);
        assert!(!diags.is_empty(), "{name} was accepted");
        // A diagnostic names a record, so its position lies inside the file
        // past the 16-byte header.
        let d = &diags[0];
        assert!(d.pos.0 >= 16 * 8 && d.pos.byte() <= bytes.len() as u64, "{name}: {d}");
        assert!(d.to_string().starts_with(&format!("{}: error: ", d.pos)), "{name}: {d}");
    }
    let bytes = std::fs::read(dir.join("3.pexe")).unwrap();
    assert_eq!(verify_bytes(&bytes), vec![], "3.pexe is valid");
}

/// Real bodies with one rule broken on purpose: the verifier must point at
/// the instruction that was changed.
mod mutated_real_pexes {
    use super::corpus_dir;
    use pexe::ir::{Function, InstKind, Linkage, Module, ValType, ValueRef};
    use pexe::verify::{verify, verify_function, verify_module};

    fn hello() -> (Module, Vec<Function>) {
        let bytes = std::fs::read(corpus_dir().join("cli/binji_pexe_py/tests/hello_world.pexe")).unwrap();
        pexe::decode::decode(&bytes).unwrap()
    }

    #[test]
    fn real_module_and_bodies_verify_clean() {
        let (m, fs) = hello();
        assert!(verify(&m).is_ok());
        assert!(fs.len() > 10);
        for f in &fs {
            assert_eq!(verify_function(&m, f), vec![], "@f{}", f.id.0);
        }
    }

    #[test]
    fn integer_load_with_alignment_4() {
        let (m, mut fs) = hello();
        let (fi, ii) = fs
            .iter()
            .enumerate()
            .find_map(|(fi, f)| {
                f.insts
                    .iter()
                    .position(|i| matches!(i.kind, InstKind::Load { ty: ValType::I32, .. }))
                    .map(|ii| (fi, ii))
            })
            .expect("an i32 load");
        let InstKind::Load { align, .. } = &mut fs[fi].insts[ii].kind else { unreachable!() };
        *align = 4;
        let d = verify_function(&m, &fs[fi]);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].pos, fs[fi].insts[ii].pos);
        assert!(d[0].message.ends_with("disallowed: bad alignment: load i32, align 4"), "{}", d[0]);
        assert_eq!(d[0].inst.map(|i| i.0 as usize), Some(ii));
    }

    #[test]
    fn use_before_definition() {
        let (m, mut fs) = hello();
        // The first binop whose operand is an earlier result of its own
        // block: point that operand at the binop's own successor result.
        for f in fs.iter_mut() {
            let next_result = |f: &Function, i: usize| f.insts[i + 1..].iter().find_map(|x| x.result);
            let Some(i) = (0..f.insts.len()).find(|&i| {
                matches!(f.insts[i].kind, InstKind::Binop { lhs, .. }
                    if matches!(f.value(lhs), Some(ValueRef::Inst(_))))
                    && f.insts[i].result.is_some()
                    && next_result(f, i).is_some_and(|(_, t)| Some(t) == f.insts[i].result.map(|r| r.1))
            }) else {
                continue;
            };
            let (later, _) = next_result(f, i).unwrap();
            let InstKind::Binop { lhs, .. } = &mut f.insts[i].kind else { unreachable!() };
            *lhs = later;
            let d = verify_function(&m, f);
            assert!(!d.is_empty());
            assert!(
                d.iter().any(|x| x.pos == f.insts[i].pos && x.message.contains("does not dominate this use")),
                "{d:#?}"
            );
            return;
        }
        panic!("no suitable binop in hello_world.pexe");
    }

    #[test]
    fn entry_point_made_internal() {
        let (mut m, _) = hello();
        let start = m.functions.iter().position(|f| f.name.as_deref() == Some(b"_start")).unwrap();
        m.functions[start].linkage = Linkage::Internal;
        let d = verify_module(&m);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].message, "Module has no entry point (disallowed)");
        assert!(verify(&m).is_err());
    }

    #[test]
    fn intrinsic_with_wrong_overload() {
        let (mut m, _) = hello();
        let memcpy = m
            .functions
            .iter()
            .position(|f| f.name.as_deref() == Some(b"llvm.memcpy.p0i8.p0i8.i32"))
            .expect("newlib pexes declare memcpy");
        std::sync::Arc::make_mut(&mut m.functions[memcpy].sig).params.pop();
        // Give it a type entry of its own (memmove shares the old one), so
        // only the overload rule fires.
        m.types.push(pexe::ir::Type::Function(m.functions[memcpy].sig.clone()));
        m.functions[memcpy].ty = pexe::ir::TypeId(m.types.len() as u32 - 1);
        let d = verify_module(&m);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].pos, m.functions[memcpy].pos);
        assert!(d[0].message.starts_with("Function llvm.memcpy.p0i8.p0i8.i32 is a disallowed LLVM intrinsic"));
    }
}

/// Random corruption of real bodies must give diagnostics, never a panic.
#[test]
fn randomly_corrupted_real_bodies_never_panic() {
    use pexe::ir::{BlockId, InstKind, ValType, ValueId};
    let bytes = std::fs::read(corpus_dir().join("cli/binji_pnacl_c/test/benchmark/res/meteor.pexe")).unwrap();
    let (m, fs) = pexe::decode::decode(&bytes).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound.max(1)
    };
    let types = [ValType::I1, ValType::I8, ValType::I32, ValType::I64, ValType::F32, ValType::F64];
    let mut verifier = pexe::verify::FunctionVerifier::new();
    let mut reported = 0usize;
    for f in fs.iter().filter(|f| !f.insts.is_empty()) {
        for _ in 0..30 {
            let mut g = f.clone();
            let end = u64::from(g.end_value()) + 3;
            let nb = g.blocks.len() as u64 + 2;
            let i = next(g.insts.len() as u64) as usize;
            let value = ValueId(next(end) as u32);
            let block = BlockId(next(nb) as u32);
            let ty = types[next(types.len() as u64) as usize];
            match &mut g.insts[i].kind {
                InstKind::Binop { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                    *if next(2) == 0 { lhs } else { rhs } = value
                }
                InstKind::Cast { value: v, to, .. } => {
                    *v = value;
                    *to = ty;
                }
                InstKind::Ret { value: v } => *v = (next(2) == 0).then_some(value),
                InstKind::Br { target } => *target = block,
                InstKind::CondBr { cond, if_true, .. } => {
                    *cond = value;
                    *if_true = block;
                }
                InstKind::Switch { cond, cases, .. } => {
                    *cond = value;
                    if let Some(c) = g.switch_cases[cases.range()].first_mut() {
                        c.target = block;
                    }
                }
                InstKind::Phi { incoming, .. } => {
                    if let Some(e) = g.phi_entries[incoming.range()].first_mut() {
                        *e = (value, block);
                    }
                }
                InstKind::Load { ptr, ty: t, align } => {
                    *ptr = value;
                    *t = ty;
                    *align = next(9) as u32;
                }
                InstKind::Store { value: v, .. } => *v = value,
                InstKind::Call { callee, args, .. } | InstKind::CallIndirect { callee, args, .. } => {
                    match g.call_args[args.range()].first_mut() {
                        Some(a) if next(2) == 0 => *a = value,
                        _ => *callee = value,
                    }
                }
                InstKind::Select { cond, .. } => *cond = value,
                InstKind::Alloca { size, .. } => *size = value,
                _ => g.insts[i].result = Some((value, ty)),
            }
            if next(10) == 0 && !g.blocks.is_empty() {
                // Break the block layout too.
                let b = next(g.blocks.len() as u64) as usize;
                g.blocks[b].end = next(g.insts.len() as u64 + 2) as u32;
            }
            let mut out = Vec::new();
            verifier.verify(&m, &g, &mut out);
            reported += out.len();
        }
    }
    assert!(reported > 1000, "only {reported} diagnostics from the corrupted bodies");
}
