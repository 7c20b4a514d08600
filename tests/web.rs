//! The wasm-bindgen API (`src/web.rs`) in headless Chromium.
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner CHROMEDRIVER=/usr/bin/chromedriver \
//!     cargo test --target wasm32-unknown-unknown --no-default-features --test web
//! ```
//!
//! (`scripts/test.sh` runs this; the runner reads `webdriver.json`.) The
//! pexes are assembled here from listings: `samples/fact.records` (a valid
//! program: factorial with a `_start`) and the specification's examples in
//! `pexe::asm::samples`. Corpus files are not built into the test module;
//! the Node tests of the package (`js/test-npm/`) run the corpus.
//!
//! Every function is called the way JS calls it, through the exported
//! `#[wasm_bindgen]` items, and its answer is read back as JS values.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Function, Object, Reflect, Uint8Array, JSON};
use pexe::web;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FACT_RECORDS: &str = include_str!("../samples/fact.records");

/// samples/fact.records as a pexe.
fn fact_pexe() -> Vec<u8> {
    pexe::asm::assemble(FACT_RECORDS).expect("samples/fact.records assembles")
}

/// The listing part of samples/fact.records (without its comment header):
/// what `pexe dis` prints for the assembled file, but for trailing spaces
/// (the file has none).
fn fact_listing_lines() -> Vec<&'static str> {
    FACT_RECORDS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or_else(|_| panic!("no property {key}"))
}

fn get_f64(v: &JsValue, key: &str) -> f64 {
    get(v, key).as_f64().unwrap_or_else(|| panic!("{key} is not a number: {:?}", get(v, key)))
}

fn get_str(v: &JsValue, key: &str) -> String {
    get(v, key).as_string().unwrap_or_else(|| panic!("{key} is not a string: {:?}", get(v, key)))
}

fn json(v: &JsValue) -> String {
    JSON::stringify(v).expect("JSON-friendly").as_string().unwrap()
}

fn options(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    o.into()
}

/// A thrown `PexeError`: its kind, message and diagnostics.
fn pexe_error(e: JsValue) -> (String, String, Array) {
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {e:?}");
    assert_eq!(get_str(&e, "name"), "PexeError");
    (get_str(&e, "kind"), get_str(&e, "message"), get(&e, "diagnostics").dyn_into().expect("diagnostics array"))
}

fn validate(wasm: &[u8]) -> bool {
    js_sys::WebAssembly::validate(&Uint8Array::from(wasm).into()).expect("WebAssembly.validate")
}

#[wasm_bindgen_test]
fn inspect_summarizes_the_factorial_program() {
    let bytes = fact_pexe();
    let s = web::inspect(&bytes);
    assert_eq!(get_f64(&s, "size"), bytes.len() as f64);
    let header = get(&s, "header");
    assert_eq!(get_str(&header, "magic"), "PEXE");
    assert_eq!(get_f64(&header, "version"), 2.0);
    assert_eq!(get_f64(&header, "size"), 16.0);
    assert_eq!(get_f64(&s, "version"), 1.0);
    assert_eq!(get(&s, "valid").as_bool(), Some(true));
    assert_eq!(Array::from(&get(&s, "diagnostics")).length(), 0);
    assert!(get(&s, "decodeError").is_null());

    let counts = get(&s, "counts");
    assert_eq!(get_f64(&counts, "functions"), 2.0);
    assert_eq!(get_f64(&counts, "definedFunctions"), 2.0);
    assert_eq!(get_f64(&counts, "globals"), 0.0);
    assert_eq!(get_f64(&s, "entryPoint"), 1.0);

    let functions = Array::from(&get(&s, "functions"));
    let fact = functions.get(0);
    assert_eq!(get_str(&fact, "name"), "fact");
    assert_eq!(get_str(&fact, "type"), "i32 (i32)");
    assert_eq!(get_str(&fact, "linkage"), "internal");
    assert_eq!(get(&fact, "defined").as_bool(), Some(true));
    // fact: icmp, br, ret, sub, call, mul, ret in 3 blocks, one constant.
    assert_eq!(get_f64(&fact, "instructions"), 7.0);
    assert_eq!(get_f64(&fact, "blocks"), 3.0);
    assert_eq!(get_f64(&fact, "constants"), 1.0);
    let bits = get_f64(&fact, "bits");
    // The block spans its records: from its enter record to past its end.
    assert!(bits > 200.0 && bits < 2000.0, "function block size {bits}");
    assert_eq!(get_f64(&fact, "bytes"), (bits / 8.0).ceil());
    assert_eq!(get_str(&get(&functions, "1"), "name"), "_start");
    // Plain data: survives JSON.
    assert!(json(&s).contains("\"definedFunctions\":2"));
}

#[wasm_bindgen_test]
fn inspect_reports_verifier_diagnostics_with_positions() {
    // The specification's factorial: `fact` external and no `_start`.
    let bytes = pexe::asm::assemble(pexe::asm::FACTORIAL_LISTING).unwrap();
    let s = web::inspect(&bytes);
    assert_eq!(get(&s, "valid").as_bool(), Some(false));
    let diagnostics = Array::from(&get(&s, "diagnostics"));
    let messages: Vec<String> = diagnostics.iter().map(|d| get_str(&d, "text")).collect();
    let expected: Vec<String> = pexe::verify::verify_bytes(&bytes).iter().map(|d| d.to_string()).collect();
    assert!(!expected.is_empty());
    assert_eq!(messages, expected, "inspect's diagnostics are pexe verify's lines");
    assert!(messages.iter().any(|m| m.contains("no entry point")), "{messages:?}");
    let first = diagnostics.get(0);
    assert_eq!(get_str(&first, "pos"), format!("{}:{}", get_f64(&first, "byte"), get_f64(&first, "bit")));
}

#[wasm_bindgen_test]
fn inspect_describes_bad_input_instead_of_throwing() {
    let s = web::inspect(b"not a pexe at all");
    assert_eq!(get(&s, "valid").as_bool(), Some(false));
    assert!(get(&s, "header").is_null());
    let error = get(&s, "decodeError");
    assert_eq!(get_str(&error, "pos"), "0:0");
    assert!(get_str(&error, "message").contains("PEXE"), "{}", json(&error));

    // Cut inside the first function body. The whole-buffer parser sees at
    // once that the module block's length points past the end; a stream
    // reads on and summarizes the declarations before the data runs out.
    let bytes = fact_pexe();
    let s = web::inspect(&bytes[..110]);
    assert!(get_str(&get(&s, "decodeError"), "message").contains("past the end"), "{}", json(&s));
    let mut inspector = web::Inspector::new(JsValue::UNDEFINED).unwrap();
    inspector.feed(&bytes[..110]).unwrap();
    let s = inspector.finish().unwrap();
    let error = get(&s, "decodeError");
    assert!(!error.is_null());
    assert_eq!(get_f64(&get(&s, "counts"), "functions"), 2.0);
    assert_eq!(get_f64(&s, "size"), 110.0);
    let diagnostics = Array::from(&get(&s, "diagnostics"));
    assert_eq!(get_str(&diagnostics.get(diagnostics.length() - 1), "text"), get_str(&error, "text"));
}

#[wasm_bindgen_test]
fn disassemble_prints_the_listing_pexe_dis_prints() {
    let listing = web::disassemble(&fact_pexe(), JsValue::UNDEFINED).unwrap();
    let lines: Vec<&str> = listing.lines().map(str::trim_end).collect();
    assert_eq!(lines, fact_listing_lines());
    let mut expected = String::new();
    pexe::dis::disassemble(&fact_pexe(), &Default::default(), &mut expected).unwrap();
    assert_eq!(listing, expected);

    // One function, PNaClAsm only.
    let asm = web::disassemble(&fact_pexe(), options(&[("mode", "asm".into()), ("function", 0.into())])).unwrap();
    let mut expected = String::new();
    pexe::dis::disassemble(
        &fact_pexe(),
        &pexe::dis::Options { mode: pexe::dis::Mode::Asm, function: Some(0) },
        &mut expected,
    )
    .unwrap();
    assert_eq!(asm, expected);
    assert!(asm.contains("%v0 = icmp eq i32 %p0, %c0;"), "{asm}");
    assert!(!asm.contains("@f1"), "only @f0's body: {asm}");

    let records = web::disassemble(&fact_pexe(), options(&[("mode", "records".into())])).unwrap();
    assert_eq!(pexe::asm::assemble(&records).unwrap(), fact_pexe(), "records mode assembles back");
}

#[wasm_bindgen_test]
fn disassemble_errors_carry_the_partial_listing() {
    let bytes = fact_pexe();
    let e = web::disassemble(&bytes[..110], JsValue::UNDEFINED).unwrap_err();
    let listing = get_str(&e, "listing");
    let (kind, message, diagnostics) = pexe_error(e);
    assert_eq!(kind, "decode");
    assert_eq!(diagnostics.length(), 1);
    assert!(message.contains(": error: "), "{message}");
    let whole = web::disassemble(&bytes, JsValue::UNDEFINED).unwrap();
    assert!(!listing.is_empty() && listing.len() < whole.len() && whole.starts_with(&listing), "{listing}");

    let e = web::disassemble(&bytes, options(&[("mode", "wide".into())])).unwrap_err();
    let (kind, message, _) = pexe_error(e);
    assert_eq!(kind, "options");
    assert!(message.contains("'wide'"), "{message}");
}

#[wasm_bindgen_test]
fn translate_makes_a_valid_module() {
    let wasm = web::translate(&fact_pexe(), options(&[("target", "wasm32".into())])).unwrap();
    assert_eq!(&wasm[..4], b"\0asm");
    assert!(validate(&wasm), "WebAssembly.validate accepts the module");
    let module = js_sys::WebAssembly::Module::new(&Uint8Array::from(&wasm[..]).into()).unwrap();
    let imports = js_sys::WebAssembly::Module::imports(&module);
    let first = imports.get(0);
    assert_eq!((get_str(&first, "module"), get_str(&first, "name")), ("env".into(), "memory".into()));
    let exports: Vec<String> =
        js_sys::WebAssembly::Module::exports(&module).iter().map(|e| get_str(&e, "name")).collect();
    assert!(exports.iter().any(|e| e == "_start"), "{exports:?}");
    // The same bytes as the library's own entry point.
    assert_eq!(wasm, pexe::back::wasm::translate_bytes(&fact_pexe(), &Default::default()).unwrap());
    // Without names: smaller, still valid.
    let bare = web::translate(&fact_pexe(), options(&[("names", false.into())])).unwrap();
    assert!(bare.len() < wasm.len() && validate(&bare));
}

#[wasm_bindgen_test]
fn translate_rejects_invalid_pexes_with_diagnostics() {
    let bytes = pexe::asm::assemble(pexe::asm::FACTORIAL_LISTING).unwrap();
    let (kind, message, diagnostics) = pexe_error(web::translate(&bytes, JsValue::UNDEFINED).unwrap_err());
    assert_eq!(kind, "verify");
    assert!(message.contains("not valid PNaCl"), "{message}");
    let texts: Vec<String> = diagnostics.iter().map(|d| get_str(&d, "text")).collect();
    assert!(texts.iter().any(|t| t.contains("no entry point")), "{texts:?}");

    let (kind, _, diagnostics) = pexe_error(web::translate(&fact_pexe()[..100], JsValue::UNDEFINED).unwrap_err());
    assert_eq!(kind, "decode");
    assert_eq!(diagnostics.length(), 1);

    let (kind, message, _) =
        pexe_error(web::translate(&fact_pexe(), options(&[("target", "x86-64".into())])).unwrap_err());
    assert_eq!(kind, "options");
    assert!(message.contains("'x86-64'"), "{message}");
}

/// A progress callback that keeps every report.
fn recorder() -> (JsValue, Rc<RefCell<Vec<JsValue>>>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let keep = seen.clone();
    let f = Closure::<dyn Fn(JsValue)>::new(move |p: JsValue| keep.borrow_mut().push(p));
    (f.into_js_value(), seen)
}

#[wasm_bindgen_test]
fn translator_fed_byte_by_byte_gives_the_whole_file_translation() {
    let bytes = fact_pexe();
    let (callback, seen) = recorder();
    let mut t = web::Translator::new(options(&[("onProgress", callback)])).unwrap();
    for b in bytes.chunks(1) {
        t.feed(b).unwrap();
    }
    assert_eq!(t.bytes_read(), bytes.len() as f64);
    assert_eq!(t.functions_decoded(), 2);
    assert_eq!(t.functions_total(), Some(2));
    let wasm = t.finish().unwrap();
    assert_eq!(wasm, web::translate(&bytes, JsValue::UNDEFINED).unwrap());
    assert_eq!(t.functions_translated(), 2);

    let seen = seen.borrow();
    // One report per feed, then translation, then done.
    assert!(seen.len() >= bytes.len() + 2, "{} reports", seen.len());
    let read: Vec<f64> = seen.iter().map(|p| get_f64(p, "bytesRead")).collect();
    assert!(read.windows(2).all(|w| w[0] <= w[1]), "bytesRead never decreases");
    let last = seen.last().unwrap();
    assert_eq!(get_str(last, "phase"), "done");
    assert_eq!(get_f64(last, "functionsTranslated"), 2.0);
    assert!(seen.iter().any(|p| get_str(p, "phase") == "translate"));

    // Spent: a second finish or feed is an error, not a panic.
    let (kind, _, _) = pexe_error(t.finish().unwrap_err());
    assert_eq!(kind, "options");
    let (kind, _, _) = pexe_error(t.feed(&bytes).unwrap_err());
    assert_eq!(kind, "options");
}

#[wasm_bindgen_test]
fn translator_stops_at_the_first_bad_chunk() {
    let mut bytes = fact_pexe();
    bytes[0] = b'X';
    let mut t = web::Translator::new(JsValue::UNDEFINED).unwrap();
    let (kind, _, diagnostics) = pexe_error(t.feed(&bytes[..8]).unwrap_err());
    assert_eq!(kind, "decode");
    assert_eq!(get_str(&diagnostics.get(0), "pos"), "0:0");
}

#[wasm_bindgen_test]
fn inspector_in_chunks_equals_inspect() {
    for bytes in [fact_pexe(), pexe::asm::assemble(pexe::asm::ABBREVIATIONS_LISTING).unwrap()] {
        let whole = json(&web::inspect(&bytes));
        for size in [1, 3, 7, 64] {
            let mut i = web::Inspector::new(JsValue::UNDEFINED).unwrap();
            for chunk in bytes.chunks(size) {
                i.feed(chunk).unwrap();
            }
            assert_eq!(json(&i.finish().unwrap()), whole, "{size}-byte chunks");
        }
    }
}

/// Feeds a `fetch()`-style body (a ReadableStream) as it is read.
#[wasm_bindgen_test]
async fn translator_reads_a_response_body() {
    let bytes = fact_pexe();
    let mut copy = bytes.clone();
    let response = web_sys::Response::new_with_opt_u8_array(Some(&mut copy)).unwrap();
    let reader: web_sys::ReadableStreamDefaultReader = response.body().unwrap().get_reader().unchecked_into();
    let mut t = web::Translator::new(JsValue::UNDEFINED).unwrap();
    loop {
        let step = JsFuture::from(reader.read()).await.unwrap();
        if get(&step, "done").as_bool() == Some(true) {
            break;
        }
        t.feed(&get(&step, "value").unchecked_into::<Uint8Array>().to_vec()).unwrap();
    }
    assert_eq!(t.bytes_read(), bytes.len() as f64);
    let wasm = t.finish().unwrap();
    assert!(validate(&wasm));
}

#[wasm_bindgen_test]
fn a_panic_is_an_exception_with_the_rust_message() {
    // JS calls into Rust, Rust panics: JS must get an exception (the
    // trap), and the message must be there for the npm entry to report.
    let call = Closure::<dyn Fn()>::new(|| web::panic_for_tests("deliberate panic 42"));
    let catcher = Function::new_with_args("f", "try { f(); return null; } catch (e) { return e; }");
    let thrown = catcher.call1(&JsValue::NULL, call.as_ref()).unwrap();
    assert!(thrown.is_instance_of::<js_sys::WebAssembly::RuntimeError>(), "{thrown:?}");
    let message = web::take_panic_message().expect("the hook kept the message");
    assert!(message.contains("deliberate panic 42"), "{message}");
    assert_eq!(web::take_panic_message(), None, "taken once");
    // The module still answers.
    assert!(validate(&web::translate(&fact_pexe(), JsValue::UNDEFINED).unwrap()));
}

#[wasm_bindgen_test]
fn stats_count_every_bit() {
    let bytes = fact_pexe();
    let s = web::stats(&bytes);
    assert_eq!(get_f64(&s, "fileBits"), (bytes.len() * 8) as f64);
    assert!(get(&s, "error").is_null());
    let blocks = Array::from(&get(&s, "blocks"));
    let module = blocks.iter().find(|b| get_str(b, "name") == "module").expect("a module block");
    let own: f64 = blocks.iter().map(|b| get_f64(&b, "ownBits")).sum();
    assert_eq!(own, get_f64(&module, "bits"), "own bits add up to the bitstream");
    // The same function sizes as inspect.
    let functions = Array::from(&get(&s, "functions"));
    let summary = Array::from(&get(&web::inspect(&bytes), "functions"));
    assert_eq!(functions.length(), 2);
    for f in functions.iter() {
        let id = get_f64(&f, "func") as u32;
        assert_eq!(get_f64(&f, "bits"), get_f64(&summary.get(id), "bits"));
    }
    let broken = web::stats(b"PEXE");
    assert!(!get(&broken, "error").is_null());
}

#[wasm_bindgen_test]
fn function_wat_is_one_function_of_the_module_text() {
    let bytes = fact_pexe();
    let wat = pexe::back::wasm::to_wat(&web::translate(&bytes, JsValue::UNDEFINED).unwrap()).unwrap();
    for (id, name) in [(0, "fact"), (1, "_start")] {
        let text = web::function_wat(&bytes, options(&[("function", id.into())])).unwrap();
        let header = format!("  (func ${name} ");
        let start = wat.find(&header).unwrap_or_else(|| panic!("{header} in {wat}"));
        let len = wat[start..].find("\n  )\n").unwrap() + "\n  )\n".len();
        let expected: String = wat[start..start + len].lines().map(|l| format!("{}\n", &l[2..])).collect();
        assert_eq!(text, expected);
    }
    let (kind, _, _) = pexe_error(web::function_wat(&bytes, options(&[("function", 7.into())])).unwrap_err());
    assert_eq!(kind, "options");
}

/// What the package's translator module answers for functionWat: a small
/// module holding the one body, printed by the WAT printer module.
#[wasm_bindgen_test]
fn function_wasm_holds_the_function_function_wat_prints() {
    let bytes = fact_pexe();
    for id in [0u32, 1] {
        let answer = web::function_wasm(&bytes, options(&[("function", id.into())])).unwrap();
        let module = Uint8Array::new(&get(&answer, "module")).to_vec();
        assert!(validate(&module));
        let index = get_f64(&answer, "index") as u32;
        let text = pexe::back::wasm::to_wat(&module).unwrap();
        let want = web::function_wat(&bytes, options(&[("function", id.into())])).unwrap();
        let header = want.lines().next().unwrap();
        assert!(header.contains(&format!("(;{index};)")), "{header}");
        assert!(text.contains(header), "{header} in {text}");
    }
    let (kind, _, _) = pexe_error(web::function_wasm(&bytes, options(&[("function", 7.into())])).unwrap_err());
    assert_eq!(kind, "options");
    assert!(web::max_translate_workers() >= 1);
}

/// Byte strings end to end, and where each ends.
fn end_to_end(parts: &[Vec<u8>]) -> (Vec<u8>, Vec<u32>) {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    for p in parts {
        out.extend_from_slice(p);
        ends.push(out.len() as u32);
    }
    (out, ends)
}

/// The Worker-pool API end to end, in one thread: split as the bytes
/// arrive, translate each job from the prefix alone (last first), stitch in
/// order; the module is `translate`'s.
const HEADER: usize = 32;
#[wasm_bindgen_test]
fn worker_pool_api_stitches_the_same_module() {
    let pexe = fact_pexe();
    let whole = web::translate(&pexe, JsValue::UNDEFINED).unwrap();
    let mut splitter = web::BodySplitter::new();
    // Headers only; a job is its header and its body's bytes of the file
    // (bit positions at 16 and 24).
    let mut headers: Vec<u8> = Vec::new();
    for chunk in pexe.chunks(5) {
        let got = splitter.feed(chunk).unwrap();
        assert_eq!(got.len() % HEADER, 0);
        headers.extend_from_slice(&got);
    }
    let byte_at = |h: &[u8], at: usize| (u64::from_le_bytes(h[at..at + 8].try_into().unwrap()) / 8) as usize;
    let jobs: Vec<Vec<u8>> = headers
        .chunks(HEADER)
        .map(|h| [h, &pexe[byte_at(h, 16)..byte_at(h, 24)]].concat())
        .collect();
    splitter.finish().unwrap();
    let prefix = splitter.prefix().expect("the prefix once a body began").to_vec();
    assert_eq!(prefix, pexe[..prefix.len()]);
    assert!(!jobs.is_empty());
    let mut results = vec![Vec::new(); jobs.len()];
    for (k, job) in jobs.iter().enumerate().rev() {
        let mut worker = web::BodyTranslator::new(&prefix, JsValue::UNDEFINED).unwrap();
        results[k] = worker.translate(job).unwrap();
    }
    let mut stitcher = web::Stitcher::new(&prefix, JsValue::UNDEFINED).unwrap();
    assert_eq!(stitcher.functions_total() as usize, jobs.len());
    for r in &results {
        stitcher.define_body(r).unwrap();
    }
    assert_eq!(stitcher.finish().unwrap(), whole);
    // The same in batches: every header end to end and the file from the
    // first body on, through one call each way.
    let base = byte_at(&headers, 16);
    let mut worker = web::BodyTranslator::new(&prefix, JsValue::UNDEFINED).unwrap();
    let bodies = worker.translate_batch(&headers, &pexe[base..], base as f64).unwrap();
    assert_eq!((bodies.clone(), worker.ends()), end_to_end(&results));
    let mut stitcher = web::Stitcher::new(&prefix, JsValue::UNDEFINED).unwrap();
    stitcher.define_bodies(&bodies, &worker.ends()).unwrap();
    assert_eq!(stitcher.finish().unwrap(), whole);
    // Bytes that do not reach a job's end, or a header cut short, are refused.
    let last_end = byte_at(&headers, headers.len() - HEADER + 24);
    assert!(worker.translate_batch(&headers, &pexe[base..last_end - 4], base as f64).is_err());
    assert!(worker.translate_batch(&headers[..HEADER - 1], &pexe[base..], base as f64).is_err());
    assert!(worker.translate_batch(&headers, &pexe[base + 4..], (base + 4) as f64).is_err());
    // A body out of order, or bytes that are not a job, are refused.
    let mut stitcher = web::Stitcher::new(&prefix, JsValue::UNDEFINED).unwrap();
    if results.len() > 1 {
        assert!(stitcher.define_body(&results[1]).is_err());
    }
    let mut worker = web::BodyTranslator::new(&prefix, JsValue::UNDEFINED).unwrap();
    assert!(worker.translate(&[1, 2, 3]).is_err());
}
