//! The `sqrt` form (src/back/wasm/libm.rs): calls of the pexe's own `sqrt`
//! become `f64.sqrt` only where its body is proven to compute exactly that,
//! and the original function agrees with `f64.sqrt` bit for bit on every
//! argument the fast path takes.

use crate::support::corpus_root;
use pexe::back::wasm::{translate, translate_bytes, Options, Tiering};
use pexe::ir::{ConstValue, Function, InstKind, Module};
use std::process::Command;

const NBODY: &str = "cli/binji_pnacl_c/test/benchmark/res/nbody.pexe";

fn nbody() -> Vec<u8> {
    std::fs::read(corpus_root().join(NBODY)).unwrap()
}

fn sqrt_id(m: &Module) -> usize {
    m.functions.iter().position(|d| d.name.as_deref() == Some(b"sqrt")).expect("nbody has sqrt")
}

/// Without loop outlining, so each call site is in the module once.
fn with(fast_libm: bool) -> Options {
    Options { parallel: false, fast_libm, tiering: Tiering::Optimized, ..Options::default() }
}

/// Translates decoded IR (after an edit) both ways.
fn both(m: &Module, fs: &[Function]) -> (Vec<u8>, Vec<u8>) {
    let v = pexe::verify::verify(m).unwrap();
    (translate(&v, fs.to_vec(), &with(true)).unwrap(), translate(&v, fs.to_vec(), &with(false)).unwrap())
}

/// Bytes that differ between the two modules.
fn differing(a: &[u8], b: &[u8]) -> usize {
    assert_eq!(a.len(), b.len(), "the form keeps every size");
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

#[test]
fn nbody_calls_become_f64_sqrt_and_nothing_else_changes() {
    let bytes = nbody();
    let fast = translate_bytes(&bytes, &with(true)).unwrap();
    let plain = translate_bytes(&bytes, &with(false)).unwrap();
    // Two call sites, each `call $sqrt` (0x10 and a one-byte index here)
    // → `f64.sqrt nop`.
    assert_eq!(differing(&fast, &plain), 4);
    let wat = pexe::back::wasm::to_wat(&fast).unwrap();
    assert_eq!(wat.matches("f64.sqrt\n").count(), 3, "two call sites and sqrt's own body");
    // Parallel and serial agree with the form too.
    assert_eq!(translate_bytes(&bytes, &Options { threads: 2, tiering: Tiering::Optimized, ..Options::default() }).unwrap(), fast);
    // With main's loop outlined (`func/outline.rs`) the sites are in both
    // copies of the loop, and both take the form.
    let outlined = translate_bytes(&bytes, &Options { tiering: Tiering::Dynamic, ..with(true) }).unwrap();
    let wat = pexe::back::wasm::to_wat(&outlined).unwrap();
    assert!(wat.contains("$main$loop"), "main's loop nest is outlined");
    assert_eq!(wat.matches("f64.sqrt\n").count(), 5, "two call sites twice and sqrt's own body");
    assert!(!wat.contains(&format!("call ${}\n", "sqrt")), "no call of sqrt is left");
}

#[test]
fn an_unproven_fast_path_keeps_the_calls() {
    let (m, fs) = pexe::decode::decode(&nbody()).unwrap();
    let sqrt = sqrt_id(&m);
    let (fast, plain) = both(&m, &fs);
    assert_ne!(fast, plain);

    // The guard compares against 1.0 instead of -0: for x in [-0, 1) the
    // function no longer takes llvm.sqrt's path, so nothing is proven.
    let mut edited = fs.clone();
    let f = edited.iter_mut().find(|f| f.id.0 as usize == sqrt).unwrap();
    let c = f.consts.iter_mut().find(|c| c.value == ConstValue::Float((-0.0f64).to_bits())).expect("the -0 constant");
    c.value = ConstValue::Float(1.0f64.to_bits());
    let (fast, plain) = both(&m, &edited);
    assert_eq!(differing(&fast, &plain), 0, "a guard the proof cannot decide");

    // The helper called on the fast path divides (it could trap): not a
    // pure leaf, so nothing is proven either.
    let helper = {
        let f = fs.iter().find(|f| f.id.0 as usize == sqrt).unwrap();
        f.insts
            .iter()
            .find_map(|i| match &i.kind {
                InstKind::Call { callee, .. } if m.func_of(*callee).is_some_and(|c| !m.function(c).is_proto) => Some(callee.0),
                _ => None,
            })
            .expect("sqrt calls a helper on its way out")
    };
    let mut edited = fs.clone();
    let h = edited.iter_mut().find(|f| f.id.0 == helper).unwrap();
    let k = h.insts.iter().position(|i| matches!(i.kind, InstKind::Binop { .. })).expect("the helper computes");
    if let InstKind::Binop { op, .. } = &mut h.insts[k].kind {
        *op = pexe::ir::BinOp::UDiv;
    }
    let (fast, plain) = both(&m, &edited);
    assert_eq!(differing(&fast, &plain), 0, "an impure helper");
}

/// Runs the pexe's own `sqrt` (nbody's, translated without the form) on
/// `args_js` (a JS expression giving an array of numbers) under Node and
/// compares each result's bits with `Math.sqrt`'s (V8's `f64.sqrt`).
/// Answers (arguments, mismatches, bytes of memory changed, first mismatch),
/// or `None` without Node.
fn run_original_sqrt(args_js: &str) -> Option<(usize, usize, usize, String)> {
    if !Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("node not found: skipping");
        return None;
    }
    let bytes = nbody();
    let (m, _) = pexe::decode::decode(&bytes).unwrap();
    let table_index = 53 + sqrt_id(&m);
    let wasm = translate_bytes(&bytes, &with(false)).unwrap();
    let dir = std::env::temp_dir().join(format!("pexe-libm-{}-{}", std::process::id(), args_js.len()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("m.wasm"), &wasm).unwrap();
    let script = format!(
        r#"
const fs = require('fs');
const memory = new WebAssembly.Memory({{ initial: 64, maximum: 65536, shared: true }});
const env = {{ memory, fault: (k, d) => {{ throw new Error(`fault ${{k}} ${{d}}`); }}, fmod_f64: (a, b) => a % b }};
const irt = new Proxy({{}}, {{ get: (_, n) => () => {{ throw new Error(`unexpected irt.${{String(n)}}`); }} }});
const inst = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync('{wasm}')), {{ env, irt }});
const ex = inst.exports;
ex.__pexe_init_data();
ex.__stack_pointer.value = 0x200000;
ex.__stack_limit.value = 0x100000;
const sqrt = ex.table.get({table_index});
// Bits go in and out through a wasm-free path: a Float64Array over the
// bits keeps NaN payloads (JS numbers may canonicalize them elsewhere).
const f = new Float64Array(1), u = new BigUint64Array(f.buffer);
const bits = (x) => {{ f[0] = x; return u[0]; }};
const fromBits = (b) => {{ u[0] = b; return f[0]; }};
const before = new Uint8Array(memory.buffer).slice();
const args = {args_js};
let bad = 0, first = '';
for (const x of args) {{
  const got = bits(sqrt(x)), want = bits(Math.sqrt(x));
  if (got !== want) {{ if (!bad) first = `sqrt(${{bits(x).toString(16)}}) = ${{got.toString(16)}}, f64.sqrt gives ${{want.toString(16)}}`; bad++; }}
}}
const after = new Uint8Array(memory.buffer);
let touched = 0;
for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) touched++;
console.log(`${{args.length}} ${{bad}} ${{touched}} ${{first}}`);
"#,
        wasm = dir.join("m.wasm").display(),
    );
    std::fs::write(dir.join("run.cjs"), script).unwrap();
    let out = Command::new("node").arg(dir.join("run.cjs")).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let fields: Vec<&str> = text.trim().splitn(4, ' ').collect();
    let num = |i: usize| fields[i].parse::<usize>().unwrap();
    Some((num(0), num(1), num(2), fields.get(3).unwrap_or(&"").to_string()))
}

/// The proof's premise, checked by running it: the pexe's `sqrt`, called
/// directly, returns exactly `f64.sqrt`'s bits for edge cases and 200 000
/// random arguments `x >= -0` (every class: zeros, subnormals, normals,
/// the largest finite, infinity).
#[test]
fn original_sqrt_equals_f64_sqrt_on_the_fast_path() {
    let args = r#"(() => {
  const f = new Float64Array(1), u = new BigUint64Array(f.buffer);
  const fromBits = (b) => { u[0] = b; return f[0]; };
  const args = [0, -0, Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 2.2250738585072014e-308, 2.225073858507201e-308,
    1, 2, 3, 4, 0.25, 0.5, 1 - 2 ** -53, 1 + 2 ** -52, 2 ** 1023, 2 ** -1022, 2 ** -1074 * 3];
  let s = 0x9E3779B97F4A7C15n;
  for (let i = 0; i < 200000; i++) {
    s ^= (s << 13n) & 0xFFFFFFFFFFFFFFFFn; s ^= s >> 7n; s ^= (s << 17n) & 0xFFFFFFFFFFFFFFFFn;
    // Sign clear; any exponent but all-ones (NaN and infinity are above).
    let b = s & 0x7FFFFFFFFFFFFFFFn;
    if ((b >> 52n) === 0x7FFn) b &= 0x7FEFFFFFFFFFFFFFn;
    args.push(fromBits(b));
  }
  return args;
})()"#;
    let Some((n, bad, touched, first)) = run_original_sqrt(args) else { return };
    assert!(n > 200_000);
    assert_eq!(bad, 0, "results differ: {first}");
    // The stack pointer global moves, not memory: the fast path stores nothing.
    assert_eq!(touched, 0, "memory changed");
}

/// The NaN path's premise: on NaNs (quiet and signalling, both signs,
/// canonical and with payloads) the pexe's `sqrt` returns what `f64.sqrt`
/// returns, bit for bit, and stores nothing (no errno for a NaN). This is
/// what lets a call whose argument is never below zero become `f64.sqrt`.
#[test]
fn original_sqrt_equals_f64_sqrt_on_nans() {
    let args = r#"(() => {
  const f = new Float64Array(1), u = new BigUint64Array(f.buffer);
  const fromBits = (b) => { u[0] = b; return f[0]; };
  const payloads = [0x8000000000000n, 0x8000000000001n, 0xFFFFFFFFFFFFFn, 0x1n, 0x4000000000000n, 0x7FFFFFFFFFFFFn, 0xDEADBEEFn];
  const args = [];
  for (const sign of [0n, 1n << 63n]) for (const p of payloads) args.push(fromBits(sign | (0x7FFn << 52n) | p));
  return args;
})()"#;
    let Some((n, bad, touched, first)) = run_original_sqrt(args) else { return };
    assert_eq!(n, 14);
    assert_eq!(bad, 0, "results differ: {first}");
    assert_eq!(touched, 0, "memory changed");
}

/// The NaN path must be proven before an unguarded site (nbody's two: the
/// argument is a sum of squares) becomes `f64.sqrt`: with `sqrt` edited so
/// a NaN comes back unchanged (a signalling NaN would stay signalling),
/// they stay calls.
#[test]
fn an_unproven_nan_path_keeps_the_unguarded_calls() {
    let (m, fs) = pexe::decode::decode(&nbody()).unwrap();
    let sqrt = sqrt_id(&m);
    let (fast, plain) = both(&m, &fs);
    assert_eq!(differing(&fast, &plain), 4);
    // No site keeps the `x >= -0` test: both are unguarded.
    assert!(!pexe::back::wasm::to_wat(&plain).unwrap().contains("if (result f64)"));

    // The NaN/infinity block computes `x*x + x` for the result phi; make
    // the phi take x itself from that block.
    let mut edited = fs.clone();
    let f = edited.iter_mut().find(|f| f.id.0 as usize == sqrt).unwrap();
    let x = pexe::ir::ValueId(f.first_local);
    let sum = f
        .insts
        .iter()
        .find_map(|i| match i.kind {
            InstKind::Binop { op: pexe::ir::BinOp::Add, rhs, .. } if rhs == x => i.result.map(|(v, _)| v),
            _ => None,
        })
        .expect("x*x + x");
    let mut replaced = 0;
    for inst in &mut f.insts {
        if let InstKind::Phi { incoming, .. } = &mut inst.kind {
            for (v, _) in f.phi_entries[incoming.range()].iter_mut().filter(|(v, _)| *v == sum) {
                *v = x;
                replaced += 1;
            }
        }
    }
    assert_eq!(replaced, 1);
    let (fast, plain) = both(&m, &edited);
    assert_eq!(differing(&fast, &plain), 0, "NaN path returns x unchanged: not f64.sqrt");
}
