//! The WebAssembly back end against the real pexe corpus: every valid pexe
//! translates, and wasmparser's validator (with exactly the features the
//! back end uses) accepts the module; the module has the shape the runtime
//! ABI fixes (imports, exports, table, memory).

use crate::support::{corpus_root as corpus_dir, valid_corpus};
use pexe::back::wasm::{translate, translate_bytes, Options, TranslateError};
use wasmparser::{Payload, TypeRef, Validator, WasmFeatures};

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
