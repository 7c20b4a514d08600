//! The WebAssembly back end against the real pexe corpus: every valid pexe
//! translates, and wasmparser's validator (with exactly the features the
//! back end uses) accepts the module; the module has the shape the runtime
//! ABI fixes (imports, exports, table, memory).

use crate::support::{corpus_root as corpus_dir, valid_corpus};
use pexe::back::wasm::{translate, translate_bytes, Options, Tiering, TranslateError, COMPILATION_HINTS_SECTION, LARGE_INSTS};
use wasmparser::{Payload, TypeRef, Validator, WasmFeatures};
use pexe::ir::BlockId;

/// The corpus README's invalid pexes (fuzzer-mutated copies of start.pexe).
const INVALID: &[&str] = &["1.pexe", "2.pexe", "4.pexe", "5.pexe", "6.pexe"];

/// The features the back end uses, and no others.
fn features() -> WasmFeatures {
    WasmFeatures::MUTABLE_GLOBAL
        | WasmFeatures::SATURATING_FLOAT_TO_INT
        | WasmFeatures::SIGN_EXTENSION
        | WasmFeatures::MULTI_VALUE
        | WasmFeatures::BULK_MEMORY
        | WasmFeatures::SIMD
        | WasmFeatures::THREADS
        | WasmFeatures::LEGACY_EXCEPTIONS
        // The tag section (shared by both exception proposals).
        | WasmFeatures::EXCEPTIONS
        | WasmFeatures::FLOATS
}

fn validate(wasm: &[u8]) -> Result<(), String> {
    Validator::new_with_features(features()).validate_all(wasm).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn every_valid_corpus_pexe_translates_to_a_valid_module() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (p, bytes) in valid_corpus() {
        checked += 1;
        match translate_bytes(bytes, &Options::default()) {
            Ok(wasm) => {
                if let Err(e) = validate(&wasm) {
                    failures.push(format!("{p}: invalid module: {e}"));
                }
            }
            Err(e) => failures.push(format!("{p}: {e}")),
        }
    }
    assert!(checked >= 36, "only {checked} valid pexes found");
    assert!(failures.is_empty(), "{} of {checked} pexes failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn invalid_regression_pexes_are_rejected() {
    let dir = corpus_dir().join("cli/binji_pnacl_c/test/regression");
    for name in INVALID {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        match translate_bytes(&bytes, &Options::default()) {
            Err(TranslateError::Invalid(d)) => assert!(!d.is_empty()),
            Err(TranslateError::Decode(_)) => {}
            Err(e) => panic!("{name}: unexpected error {e}"),
            Ok(_) => panic!("{name}: an invalid pexe translated"),
        }
    }
}

#[test]
fn module_shape_follows_the_abi() {
    let bytes = std::fs::read(corpus_dir().join("cli/binji_pnacl_c/test/res/setjmp.pexe")).unwrap();
    let wasm = translate_bytes(&bytes, &Options::default()).unwrap();
    let (module, functions) = pexe::decode::decode(&bytes).unwrap();
    let mut imported = Vec::new();
    let mut exported = Vec::new();
    let mut memory = None;
    let mut table = None;
    let mut names = 0;
    for payload in wasmparser::Parser::new(0).parse_all(&wasm) {
        match payload.unwrap() {
            Payload::ImportSection(r) => {
                for imp in r.into_imports() {
                    let imp = imp.unwrap();
                    if let TypeRef::Memory(m) = imp.ty {
                        memory = Some(m);
                    }
                    imported.push(format!("{}.{}", imp.module, imp.name));
                }
            }
            Payload::ExportSection(r) => {
                for e in r {
                    exported.push(e.unwrap().name.to_string());
                }
            }
            Payload::TableSection(r) => {
                for t in r {
                    table = Some(t.unwrap().ty);
                }
            }
            Payload::CustomSection(c) if c.name() == "name" => names += 1,
            _ => {}
        }
    }
    assert_eq!(imported.len(), 3 + 52);
    assert_eq!(imported[0], "env.memory");
    assert_eq!(imported[1], "env.fault");
    assert_eq!(imported[2], "env.fmod_f64");
    for (k, f) in pexe::abi::abi().irt_imports().enumerate() {
        assert_eq!(imported[3 + k], format!("irt.{}", f.name));
    }
    let memory = memory.unwrap();
    assert!(memory.shared && memory.maximum == Some(65536) && memory.initial >= 17);
    let table = table.unwrap();
    assert_eq!(table.initial, 53 + module.functions.len() as u64);
    for name in [
        "_start",
        "__pexe_thread_start",
        "__pexe_init_data",
        "table",
        "__heap_base",
        "__stack_pointer",
        "__stack_limit",
        "__tp",
        "__pexe_longjmp_tag",
    ] {
        assert!(exported.iter().any(|e| e == name), "missing export {name}");
    }
    assert_eq!(names, 1);

    // The public `translate` gives the same bytes as `translate_bytes`.
    let verified = pexe::verify::verify(&module).unwrap();
    let again = translate(&verified, functions, &Options::default()).unwrap();
    assert_eq!(again, wasm);
}

#[test]
fn parallel_and_sequential_translation_agree() {
    for name in ["ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe", "cli/binji_pnacl_c/test/res/thread.pexe"] {
        let bytes = std::fs::read(corpus_dir().join(name)).unwrap();
        let parallel = translate_bytes(&bytes, &Options::default()).unwrap();
        let sequential = translate_bytes(&bytes, &Options { parallel: false, ..Options::default() }).unwrap();
        assert!(parallel == sequential, "{name}: the two translations differ");
    }
}

/// Which corpus programs are translated single-threaded (no atomic
/// instructions, `thread_create` replaced by `__pexe_no_threads`): the
/// pthread tests name the IRT thread interface and keep both, Pepper
/// plugins keep both, the benchmarks and hello world have neither.
#[test]
fn single_threaded_modules_are_the_ones_that_cannot_start_threads() {
    for (name, threads) in [
        ("cli/binji_pnacl_c/test/res/thread.pexe", true),
        ("cli/binji_pnacl_c/test/res/sem.pexe", true),
        ("ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe", true),
        ("cli/binji_pnacl_c/test/benchmark/res/binarytrees.pexe", false),
        ("cli/binji_pnacl_c/test/benchmark/res/fasta.pexe", false),
        ("cli/binji_pexe_py/tests/hello_world.pexe", false),
    ] {
        let bytes = std::fs::read(corpus_dir().join(name)).unwrap();
        let wat = pexe::back::wasm::to_wat(&translate_bytes(&bytes, &Options::default()).unwrap()).unwrap();
        assert_eq!(wat.contains("$__pexe_no_threads"), !threads, "{name}");
        if threads {
            assert!(wat.contains(".atomic."), "{name}: no atomic instruction left");
        } else {
            assert!(!wat.contains(".atomic."), "{name}: an atomic instruction left");
        }
    }
}

/// `Tiering::Hinted` (what `pexe run` gives Node): the module is
/// `Tiering::Optimized`'s and one more section, V8's compilation hints,
/// between the function and code sections: one byte per function. Small
/// functions with a loop are optimized at once when they are `_start`,
/// have their address taken, or are called only from functions entered a
/// bounded number of times (and not from themselves); the rest start as
/// baseline code (back/wasm/hints.rs). On one thread and on several, for
/// every valid corpus pexe, against a reading of the IR done here.
#[test]
fn hinted_tiering_adds_only_the_hints_section() {
    const BASELINE_FIRST: u8 = 0b00_01_01;
    const OPTIMIZED: u8 = 0b10_10_01;
    let mut checked = 0;
    let (mut large_seen, mut loops_seen, mut meteor_seen) = (0, 0, false);
    for (p, bytes) in valid_corpus() {
        let optimized = Options { tiering: Tiering::Optimized, ..Options::default() };
        let Ok(plain) = translate_bytes(bytes, &optimized) else { continue };
        let hinted = translate_bytes(bytes, &Options { tiering: Tiering::Hinted, ..Options::default() }).unwrap();
        let serial = Options { tiering: Tiering::Hinted, parallel: false, ..Options::default() };
        assert_eq!(translate_bytes(bytes, &serial).unwrap(), hinted, "{p}: one thread and several differ");

        let mut functions = None;
        let mut hints = None;
        let mut code_seen = false;
        for payload in wasmparser::Parser::new(0).parse_all(&hinted) {
            match payload.unwrap() {
                Payload::FunctionSection(r) => functions = Some(r.count()),
                Payload::CustomSection(r) if r.name() == COMPILATION_HINTS_SECTION => {
                    assert!(functions.is_some() && !code_seen, "{p}: the hints are not between functions and code");
                    let range = r.range();
                    hints = Some((range.start as usize..range.end as usize, r.data().to_vec()));
                }
                Payload::CodeSectionStart { .. } => code_seen = true,
                _ => {}
            }
        }
        let (range, data) = hints.unwrap_or_else(|| panic!("{p}: no hints section"));
        // The count, then a byte per function.
        let mut reader = wasmparser::BinaryReader::new(&data, 0);
        let count = reader.read_var_u32().unwrap();
        assert_eq!(Some(count), functions, "{p}: a hint per function");
        let bytes_of = &data[reader.original_position() as usize..];
        assert_eq!(bytes_of.len(), count as usize);
        assert!(bytes_of.iter().all(|&h| h == BASELINE_FIRST || h == OPTIMIZED), "{p}: an unknown hint");

        // The call graph: direct calls (callee, whether the call's block
        // lies between the ends of an edge back), and functions whose
        // address is used otherwise (in a body or a global's initializer).
        let (m, fs) = pexe::decode::decode(bytes).unwrap();
        let nf = m.functions.len() as u32;
        let start = m.functions.iter().position(|d| !d.is_proto && d.name.as_deref() == Some(b"_start")).map(|i| i as u32);
        let mut taken: std::collections::HashSet<u32> = m
            .globals
            .iter()
            .flat_map(|g| &g.init)
            .filter_map(|i| match *i {
                pexe::ir::Initializer::Reloc { target, .. } if target.0 < nf => Some(target.0),
                _ => None,
            })
            .collect();
        let mut sites: std::collections::HashMap<u32, Vec<(u32, bool)>> = Default::default();
        let mut loops = std::collections::HashMap::new();
        for f in &fs {
            let mut back = Vec::new();
            for b in 0..f.blocks.len() as u32 {
                for t in f.terminator(BlockId(b)).unwrap().kind.successors(f) {
                    if t.0 <= b {
                        back.push((t.0, b));
                    }
                }
            }
            loops.insert(f.id.0, !back.is_empty());
            for b in 0..f.blocks.len() as u32 {
                let in_loop = back.iter().any(|&(t, s)| t <= b && b <= s);
                for inst in f.block_insts(BlockId(b)) {
                    let direct = matches!(inst.kind, pexe::ir::InstKind::Call { .. });
                    for (i, v) in inst.kind.operands(f).into_iter().enumerate() {
                        if v.0 < nf {
                            if direct && i == 0 {
                                sites.entry(v.0).or_default().push((f.id.0, in_loop));
                            } else {
                                taken.insert(v.0);
                            }
                        }
                    }
                }
            }
        }
        // Entered a bounded number of times: `_start`, then to a fixed point.
        let mut once: std::collections::HashSet<u32> = start.into_iter().collect();
        loop {
            let more: Vec<u32> = sites
                .iter()
                .filter(|(g, s)| {
                    !once.contains(g) && !taken.contains(g) && s.iter().all(|&(c, in_loop)| !in_loop && once.contains(&c))
                })
                .map(|(&g, _)| g)
                .collect();
            if more.is_empty() {
                break;
            }
            once.extend(more);
        }
        for (k, f) in fs.iter().enumerate() {
            let id = f.id.0;
            let large = f.insts.len() >= LARGE_INSTS;
            let callers = sites.get(&id).map(Vec::as_slice).unwrap_or(&[]);
            let bounded_callers =
                !callers.is_empty() && callers.iter().all(|&(c, _)| c != id && once.contains(&c));
            let first = Some(id) == start || taken.contains(&id) || bounded_callers;
            let want = if loops[&id] && !large && first { OPTIMIZED } else { BASELINE_FIRST };
            assert_eq!(bytes_of[k], want, "{p}: function {id} hinted wrong");
            large_seen += usize::from(large);
            loops_seen += usize::from(loops[&id] && !large && first);
            let name = m.functions[id as usize].name.as_deref();
            if p.ends_with("benchmark/res/meteor.pexe") {
                // printf's core is large; main's loops run once; solve
                // calls itself, qsort too, and free is called from loops:
                // their calls make them hot.
                match name {
                    Some(b"_vfprintf_r" | b"solve" | b"qsort" | b"free") => assert_eq!(want, BASELINE_FIRST, "{p}: {name:?}"),
                    Some(b"main" | b"calc_six_rotations" | b"_start") => assert_eq!(want, OPTIMIZED, "{p}: {name:?}"),
                    _ => {}
                }
                meteor_seen = true;
            }
        }
        assert!(bytes_of[fs.len()..].iter().all(|&h| h == OPTIMIZED), "{p}: the helpers are optimized at once");

        // The whole section out (its id, its size's LEB bytes, then the
        // name and data `range` spans): the rest is the optimized module
        // byte for byte.
        let leb_len = |n: usize| (usize::BITS - n.max(1).leading_zeros()).div_ceil(7) as usize;
        let start = range.start - 1 - leb_len(range.len());
        assert_eq!(hinted[start], 0, "{p}: not a custom section's id");
        let mut without = hinted[..start].to_vec();
        without.extend_from_slice(&hinted[range.end..]);
        assert!(without == plain, "{p}: the hinted module differs from the optimized one beyond its hints");
        checked += 1;
    }
    assert!(checked >= 36, "only {checked} valid pexes translated");
    assert!(large_seen > 0 && loops_seen > 0 && meteor_seen, "the corpus lacks a kind of function");
}
