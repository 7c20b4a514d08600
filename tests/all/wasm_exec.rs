//! Runs translated code: small pexes, assembled from records text, are
//! translated, instantiated under Node with a stub runtime (shared memory,
//! `env.fault` throws, every IRT import throws "unexpected"), and their
//! functions are called through the exported table with arguments; the
//! results are compared with the same computations in Rust.
//!
//! Skipped (with a note) when `node` is not on PATH.
//!
//! Every program also runs natively (`tests/all/native_exec.rs`): built
//! for x86-64 and AArch64 with the native back end, its functions called
//! by the native runtime's test driver, the output must be the same lines.

use crate::native_exec;
use pexe::back::wasm::{translate_bytes, Options};
use std::fmt::Write as _;
use std::process::Command;

// ---------------------------------------------------------------------------
// A tiny builder for records text (the `pexe as` input).
// ---------------------------------------------------------------------------

/// Type ids of the fixed type table every test module starts with.
#[allow(dead_code)]
mod ty {
    pub const I32: u32 = 0;
    pub const VOID: u32 = 1;
    pub const I1: u32 = 2;
    pub const I8: u32 = 3;
    pub const I16: u32 = 4;
    pub const I64: u32 = 5;
    pub const F32: u32 = 6;
    pub const F64: u32 = 7;
    pub const V4I32: u32 = 8;
    pub const V4F32: u32 = 9;
    pub const V4I1: u32 = 10;
    pub const V16I8: u32 = 11;
    pub const V8I16: u32 = 12;
    pub const V16I1: u32 = 13;
    pub const V8I1: u32 = 14;
}

const FIXED_TYPES: &[&str] = &[
    "7, 32",
    "2",
    "7, 1",
    "7, 8",
    "7, 16",
    "7, 64",
    "3",
    "4",
    "12, 4, 0",
    "12, 4, 6",
    "12, 4, 2",
    "12, 16, 3",
    "12, 8, 4",
    "12, 16, 2",
    "12, 8, 2",
];

/// Binop codes.
#[allow(dead_code)]
mod op {
    pub const ADD: u32 = 0;
    pub const SUB: u32 = 1;
    pub const MUL: u32 = 2;
    pub const UDIV: u32 = 3;
    pub const SDIV: u32 = 4;
    pub const UREM: u32 = 5;
    pub const SREM: u32 = 6;
    pub const SHL: u32 = 7;
    pub const LSHR: u32 = 8;
    pub const ASHR: u32 = 9;
    pub const AND: u32 = 10;
    pub const OR: u32 = 11;
    pub const XOR: u32 = 12;
}

/// Cast codes.
mod cast {
    pub const TRUNC: u32 = 0;
    pub const ZEXT: u32 = 1;
    pub const SEXT: u32 = 2;
    pub const FPTOUI: u32 = 3;
    pub const FPTOSI: u32 = 4;
    pub const UITOFP: u32 = 5;
    pub const SITOFP: u32 = 6;
    pub const FPTRUNC: u32 = 7;
    pub const FPEXT: u32 = 8;
    pub const BITCAST: u32 = 11;
}

/// Compare predicates.
mod cmp {
    pub const FOEQ: u32 = 1;
    pub const FOLT: u32 = 4;
    pub const FONE: u32 = 6;
    pub const FORD: u32 = 7;
    pub const FUNO: u32 = 8;
    pub const FUEQ: u32 = 9;
    pub const FUGT: u32 = 10;
    pub const FULT: u32 = 12;
    pub const EQ: u32 = 32;
    pub const NE: u32 = 33;
    pub const UGT: u32 = 34;
    pub const ULT: u32 = 36;
    pub const SGT: u32 = 38;
    pub const SLT: u32 = 40;
    pub const SLE: u32 = 41;
}

struct Decl {
    ty: u32,
    proto: bool,
    name: Option<&'static str>,
}

/// A module: the fixed types plus function types, declarations (function 0
/// is always `_start`), and bodies.
struct Module {
    types: Vec<String>,
    decls: Vec<Decl>,
    /// Global variables, each one data initializer (value ids after the
    /// functions: declare them before starting any body).
    globals: Vec<Vec<u8>>,
    bodies: Vec<String>,
}

/// Signed VBR value encoding (sign in the low bit).
fn signed(v: i64) -> u64 {
    if v >= 0 {
        (v as u64) << 1
    } else {
        ((v.unsigned_abs()) << 1) | 1
    }
}

impl Module {
    fn new() -> Module {
        let mut m = Module {
            types: FIXED_TYPES.iter().map(|s| s.to_string()).collect(),
            decls: Vec::new(),
            globals: Vec::new(),
            bodies: Vec::new(),
        };
        let start_ty = m.fn_type(ty::VOID, &[ty::I32]);
        m.decls.push(Decl { ty: start_ty, proto: false, name: Some("_start") });
        m
    }

    fn fn_type(&mut self, ret: u32, params: &[u32]) -> u32 {
        let mut s = format!("21, 0, {ret}");
        for p in params {
            write!(s, ", {p}").unwrap();
        }
        if let Some(i) = self.types.iter().position(|t| *t == s) {
            return i as u32;
        }
        self.types.push(s);
        self.types.len() as u32 - 1
    }

    /// Declares a function with a body (internal); answers its value id.
    fn declare(&mut self, ret: u32, params: &[u32]) -> u32 {
        let t = self.fn_type(ret, params);
        self.decls.push(Decl { ty: t, proto: false, name: None });
        self.decls.len() as u32 - 1
    }

    /// Declares a function with a body and a name (internal).
    fn named(&mut self, name: &'static str, ret: u32, params: &[u32]) -> u32 {
        let t = self.fn_type(ret, params);
        self.decls.push(Decl { ty: t, proto: false, name: Some(name) });
        self.decls.len() as u32 - 1
    }

    /// Declares an intrinsic prototype.
    fn intrinsic(&mut self, name: &'static str, ret: u32, params: &[u32]) -> u32 {
        let t = self.fn_type(ret, params);
        self.decls.push(Decl { ty: t, proto: true, name: Some(name) });
        self.decls.len() as u32 - 1
    }

    /// Adds a global variable holding `data`; answers its value id.
    fn global(&mut self, data: &[u8]) -> u32 {
        assert!(self.bodies.is_empty(), "globals come before the bodies");
        self.globals.push(data.to_vec());
        (self.decls.len() + self.globals.len()) as u32 - 1
    }

    /// Starts the body of the next defined function (in declaration order).
    fn body(&self, nparams: u32, nblocks: u32, consts: &[(u32, Const)]) -> Body {
        let first = (self.decls.len() + self.globals.len()) as u32;
        let mut text = String::new();
        writeln!(text, "1: <65535, 12, 2>").unwrap();
        writeln!(text, "3: <1, {nblocks}>").unwrap();
        let mut ids = Vec::new();
        let mut next = first + nparams;
        if !consts.is_empty() {
            writeln!(text, "1: <65535, 11, 2>").unwrap();
            let mut cur = u32::MAX;
            for (t, c) in consts {
                if *t != cur {
                    writeln!(text, "3: <1, {t}>").unwrap();
                    cur = *t;
                }
                match c {
                    Const::Int(v) => writeln!(text, "3: <4, {}>", signed(*v)).unwrap(),
                    Const::Float(bits) => writeln!(text, "3: <6, {bits}>").unwrap(),
                    Const::Undef => writeln!(text, "3: <3>").unwrap(),
                }
                ids.push(next);
                next += 1;
            }
            writeln!(text, "0: <65534>").unwrap();
        }
        Body { text, next, first, consts: ids }
    }

    fn finish_body(&mut self, b: Body) {
        let mut t = b.text;
        t.push_str("0: <65534>\n");
        self.bodies.push(t);
    }

    fn text(&self) -> String {
        let mut s = String::new();
        s.push_str("1: <65535, 8, 2>\n3: <1, 1>\n1: <65535, 0, 2>\n0: <65534>\n");
        writeln!(s, "1: <65535, 17, 2>\n3: <1, {}>", self.types.len()).unwrap();
        for t in &self.types {
            writeln!(s, "3: <{t}>").unwrap();
        }
        s.push_str("0: <65534>\n");
        for d in &self.decls {
            // linkage: external (0) for _start and intrinsics, else internal (3)
            let linkage = if d.name.is_some() && (d.proto || d.name == Some("_start")) { 0 } else { 3 };
            writeln!(s, "3: <8, {}, 0, {}, {linkage}>", d.ty, d.proto as u32).unwrap();
        }
        writeln!(s, "1: <65535, 19, 2>\n3: <5, {}>", self.globals.len()).unwrap();
        for g in &self.globals {
            let bytes: Vec<String> = g.iter().map(|b| b.to_string()).collect();
            writeln!(s, "3: <0, 0, 0>\n3: <3, {}>", bytes.join(", ")).unwrap();
        }
        s.push_str("0: <65534>\n");
        s.push_str("1: <65535, 14, 2>\n");
        for (i, d) in self.decls.iter().enumerate() {
            if let Some(n) = d.name {
                let chars: Vec<String> = n.bytes().map(|b| b.to_string()).collect();
                writeln!(s, "3: <1, {i}, {}>", chars.join(", ")).unwrap();
            }
        }
        s.push_str("0: <65534>\n");
        // _start: `ret void`.
        s.push_str("1: <65535, 12, 2>\n3: <1, 1>\n3: <10>\n0: <65534>\n");
        for b in &self.bodies {
            s.push_str(b);
        }
        s.push_str("0: <65534>\n");
        s
    }
}

#[derive(Clone, Copy)]
enum Const {
    Int(i64),
    Float(u64),
    Undef,
}

fn f32c(x: f32) -> Const {
    Const::Float(u64::from(x.to_bits()))
}

/// One function body being written; operands are absolute value ids.
struct Body {
    text: String,
    next: u32,
    first: u32,
    consts: Vec<u32>,
}

impl Body {
    fn param(&self, i: u32) -> u32 {
        self.first + i
    }
    fn c(&self, i: usize) -> u32 {
        self.consts[i]
    }
    fn rel(&self, v: u32) -> u32 {
        self.next - v
    }
    fn emit(&mut self, rec: String, result: bool) -> u32 {
        writeln!(self.text, "3: <{rec}>").unwrap();
        if result {
            self.next += 1;
            self.next - 1
        } else {
            u32::MAX
        }
    }
    fn binop(&mut self, a: u32, b: u32, op: u32) -> u32 {
        let r = format!("2, {}, {}, {op}", self.rel(a), self.rel(b));
        self.emit(r, true)
    }
    fn cast(&mut self, v: u32, to: u32, op: u32) -> u32 {
        let r = format!("3, {}, {to}, {op}", self.rel(v));
        self.emit(r, true)
    }
    fn cmp(&mut self, a: u32, b: u32, pred: u32) -> u32 {
        let r = format!("28, {}, {}, {pred}", self.rel(a), self.rel(b));
        self.emit(r, true)
    }
    fn select(&mut self, c: u32, t: u32, f: u32) -> u32 {
        let r = format!("29, {}, {}, {}", self.rel(t), self.rel(f), self.rel(c));
        self.emit(r, true)
    }
    fn ret(&mut self, v: Option<u32>) {
        let r = match v {
            Some(v) => format!("10, {}", self.rel(v)),
            None => "10".into(),
        };
        self.emit(r, false);
    }
    fn br(&mut self, bb: u32) {
        self.emit(format!("11, {bb}"), false);
    }
    fn condbr(&mut self, c: u32, t: u32, f: u32) {
        let r = format!("11, {t}, {f}, {}", self.rel(c));
        self.emit(r, false);
    }
    fn switch(&mut self, t: u32, c: u32, default: u32, cases: &[(i64, u32)]) {
        let mut r = format!("12, {t}, {}, {default}, {}", self.rel(c), cases.len());
        for (v, bb) in cases {
            write!(r, ", 1, 1, {}, {bb}", signed(*v)).unwrap();
        }
        self.emit(r, false);
    }
    /// `incoming` may name values defined later (loops).
    fn phi(&mut self, t: u32, incoming: &[(u32, u32)]) -> u32 {
        let mut r = format!("16, {t}");
        for (v, bb) in incoming {
            write!(r, ", {}, {bb}", signed(i64::from(self.next) - i64::from(*v))).unwrap();
        }
        self.emit(r, true)
    }
    fn call(&mut self, f: u32, args: &[u32], result: bool) -> u32 {
        let mut r = format!("34, 0, {}", self.rel(f));
        for a in args {
            write!(r, ", {}", self.rel(*a)).unwrap();
        }
        self.emit(r, result)
    }
    fn call_indirect(&mut self, f: u32, ret: u32, args: &[u32]) -> u32 {
        let mut r = format!("44, 0, {}, {ret}", self.rel(f));
        for a in args {
            write!(r, ", {}", self.rel(*a)).unwrap();
        }
        self.emit(r, ret != ty::VOID)
    }
    fn extract(&mut self, v: u32, idx: u32) -> u32 {
        let r = format!("6, {}, {}", self.rel(v), self.rel(idx));
        self.emit(r, true)
    }
    fn insert(&mut self, v: u32, e: u32, idx: u32) -> u32 {
        let r = format!("7, {}, {}, {}", self.rel(v), self.rel(e), self.rel(idx));
        self.emit(r, true)
    }
    fn alloca(&mut self, size: u32, align_log2_plus_1: u32) -> u32 {
        let r = format!("19, {}, {align_log2_plus_1}", self.rel(size));
        self.emit(r, true)
    }
    fn load(&mut self, p: u32, t: u32, align_log2_plus_1: u32) -> u32 {
        let r = format!("20, {}, {align_log2_plus_1}, {t}", self.rel(p));
        self.emit(r, true)
    }
    fn store(&mut self, p: u32, v: u32, align_log2_plus_1: u32) {
        let r = format!("24, {}, {}, {align_log2_plus_1}", self.rel(p), self.rel(v));
        self.emit(r, false);
    }
}

// ---------------------------------------------------------------------------
// Running under Node.
// ---------------------------------------------------------------------------

const HARNESS: &str = r#"
const fs = require('fs');
const [wasmPath, callsPath] = process.argv.slice(2);
const memory = new WebAssembly.Memory({ initial: 64, maximum: 65536, shared: true });
class GuestFault extends Error {}
const env = {
  memory,
  fault: (kind, detail) => { throw new GuestFault(`fault ${kind} ${detail}`); },
  fmod_f64: (a, b) => a % b,
};
const irt = new Proxy({}, { get: (_, name) => () => { throw new Error(`unexpected irt.${String(name)}`); } });
const wasmModule = new WebAssembly.Module(fs.readFileSync(wasmPath));
const instance = new WebAssembly.Instance(wasmModule, { env, irt });
const ex = instance.exports;
ex.__pexe_init_data();
ex.__stack_pointer.value = 0x200000;
ex.__stack_limit.value = 0x100000;
const out = [];
for (const line of fs.readFileSync(callsPath, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const [id, ...args] = line.trim().split(' ');
  const f = ex.table.get(53 + Number(id));
  const conv = (a) => a.endsWith('n') ? BigInt(a.slice(0, -1)) : Number(a);
  try {
    const r = f(...args.map(conv));
    out.push(r === undefined ? 'void' : String(r));
  } catch (e) {
    if (e instanceof GuestFault) out.push(e.message);
    else if (e instanceof WebAssembly.Exception) out.push('uncaught longjmp');
    else out.push(`trap: ${e.message}`);
  }
}
console.log(out.join('\n'));
"#;

fn node_available() -> bool {
    Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Translates `m`, runs each call `(function id, args)` and answers the
/// results as strings (`String(result)` in JS; BigInt args end in `n`).
fn run(name: &str, m: &Module, calls: &[(u32, Vec<String>)]) -> Option<Vec<String>> {
    // `PEXE_SAVE_RECORDS=DIR` writes each program's records text there
    // (how the codegen snapshot inputs, tests/snapshots/in/, were made).
    if let Some(dir) = std::env::var_os("PEXE_SAVE_RECORDS") {
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.records")), m.text()).unwrap();
    }
    if !node_available() {
        // In CI a missing tool is a failure: a skipped test would be a test that does not exist.
        assert!(std::env::var("CI").as_deref() != Ok("true"), "node not found (CI=true): cannot run {name}");
        eprintln!("node not found: skipping {name}");
        return None;
    }
    let text = m.text();
    let pexe = pexe::asm::assemble(&text).unwrap_or_else(|e| panic!("{name}: assembling: {e:?}\n{text}"));
    let wasm =
        translate_bytes(&pexe, &Options::default()).unwrap_or_else(|e| panic!("{name}: translating: {e}\n{text}"));
    if std::env::var_os("PEXE_DUMP_WAT").is_some() {
        eprintln!("{}", pexe::back::wasm::to_wat(&wasm).unwrap_or_default());
    }
    let dir = std::env::temp_dir().join(format!("pexe-wasm-exec-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wasm_path = dir.join("m.wasm");
    let js_path = dir.join("run.cjs");
    let calls_path = dir.join("calls.txt");
    std::fs::write(&wasm_path, &wasm).unwrap();
    std::fs::write(&js_path, HARNESS).unwrap();
    let mut calls_text = String::new();
    for (f, args) in calls {
        writeln!(calls_text, "{f} {}", args.join(" ")).unwrap();
    }
    std::fs::write(&calls_path, &calls_text).unwrap();
    let out = Command::new("node").arg(&js_path).arg(&wasm_path).arg(&calls_path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{name}: node failed:\n{}\n{stdout}\nwat:\n{}",
        String::from_utf8_lossy(&out.stderr),
        pexe::back::wasm::to_wat(&wasm).unwrap_or_default()
    );
    let _ = std::fs::remove_dir_all(&dir);
    let lines: Vec<String> = stdout.lines().map(str::to_string).collect();
    native_exec::check(name, &pexe, &calls_text, &lines);
    Some(lines)
}

fn args(a: &[&dyn ToString]) -> Vec<String> {
    a.iter().map(|x| x.to_string()).collect()
}

fn big(x: i64) -> String {
    format!("{x}n")
}

// ---------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------

/// `int fact(int n) { return n == 1 ? 1 : n * fact(n - 1); }` (the seed's
/// example, recursive) and a loop version with phis.
#[test]
fn factorial_recursive_and_with_phis() {
    let mut m = Module::new();
    let fact = m.declare(ty::I32, &[ty::I32]);
    let loop_fact = m.declare(ty::I32, &[ty::I32]);

    let mut b = m.body(1, 3, &[(ty::I32, Const::Int(1))]);
    let (n, one) = (b.param(0), b.c(0));
    let is_one = b.cmp(n, one, cmp::EQ);
    b.condbr(is_one, 1, 2);
    b.ret(Some(one));
    let n1 = b.binop(n, one, op::SUB);
    let r = b.call(fact, &[n1], true);
    let prod = b.binop(n, r, op::MUL);
    b.ret(Some(prod));
    m.finish_body(b);

    // b0: br b1
    // b1: i = phi [1, b0], [i2, b1]; acc = phi [1, b0], [acc2, b1]
    //     acc2 = acc * i; i2 = i + 1; c = i2 <= n; br c, b1, b2
    // b2: ret acc2
    let mut b = m.body(1, 3, &[(ty::I32, Const::Int(1))]);
    let (n, one) = (b.param(0), b.c(0));
    b.br(1);
    let i = b.next;
    let (acc, acc2, i2) = (i + 1, i + 2, i + 3);
    b.phi(ty::I32, &[(one, 0), (i2, 1)]);
    b.phi(ty::I32, &[(one, 0), (acc2, 1)]);
    b.binop(acc, i, op::MUL);
    b.binop(i, one, op::ADD);
    let c = b.cmp(i2, n, cmp::SLE);
    b.condbr(c, 1, 2);
    b.ret(Some(acc2));
    m.finish_body(b);

    let calls = vec![(fact, args(&[&5])), (fact, args(&[&10])), (loop_fact, args(&[&5])), (loop_fact, args(&[&12]))];
    let Some(out) = run("fact", &m, &calls) else { return };
    assert_eq!(out, ["120", "3628800", "120", "479001600"]);
}

/// A loop nest (outlined: `back/wasm/func/outline.rs`) with a return from
/// the inner loop: the first eight calls run it in its own function, which
/// pauses after one and then three outer iterations and is called again;
/// later calls run the function's own copy. Both must compute the same.
#[test]
fn outlined_loop_nest_with_an_early_return() {
    let mut m = Module::new();
    let f = m.declare(ty::I32, &[ty::I32, ty::I32, ty::I32]);
    let mut b = m.body(3, 8, &[(ty::I32, Const::Int(0)), (ty::I32, Const::Int(1)), (ty::I32, Const::Int(1_000_000))]);
    let (n, mm, limit) = (b.param(0), b.param(1), b.param(2));
    let (zero, one, mil) = (b.c(0), b.c(1), b.c(2));
    // b0: br b1
    // b1: i = phi [0, b0], [i2, b5]; acc = phi [0, b0], [acc_out, b5]; br i < n, b2, b6
    // b2: br b3
    // b3: j = phi [0, b2], [j2, b4]; s = phi [acc, b2], [s2, b4]; br j < m, b4, b5
    // b4: s2 = s + i*j; j2 = j + 1; br s2 > limit, b7, b3
    // b5: acc_out = phi [s, b3]; i2 = i + 1; br b1
    // b6: ret acc
    // b7: ret s2 + 1000000
    b.br(1);
    let v = b.next;
    let (i, acc, j, s, s2, j2, acc_out, i2) = (v, v + 1, v + 3, v + 4, v + 7, v + 8, v + 10, v + 11);
    b.phi(ty::I32, &[(zero, 0), (i2, 5)]);
    b.phi(ty::I32, &[(zero, 0), (acc_out, 5)]);
    let c = b.cmp(i, n, cmp::SLT);
    b.condbr(c, 2, 6);
    b.br(3);
    b.phi(ty::I32, &[(zero, 2), (j2, 4)]);
    b.phi(ty::I32, &[(acc, 2), (s2, 4)]);
    let cj = b.cmp(j, mm, cmp::SLT);
    b.condbr(cj, 4, 5);
    let p = b.binop(i, j, op::MUL);
    assert_eq!(b.binop(s, p, op::ADD), s2);
    assert_eq!(b.binop(j, one, op::ADD), j2);
    let big = b.cmp(s2, limit, cmp::SGT);
    b.condbr(big, 7, 3);
    assert_eq!(b.phi(ty::I32, &[(s, 3)]), acc_out);
    assert_eq!(b.binop(i, one, op::ADD), i2);
    b.br(1);
    b.ret(Some(acc));
    let r = b.binop(s2, mil, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    let model = |n: i32, m: i32, limit: i32| {
        let mut acc = 0i32;
        for i in 0..n.max(0) {
            for j in 0..m.max(0) {
                acc = acc.wrapping_add(i.wrapping_mul(j));
                if acc > limit {
                    return acc.wrapping_add(1_000_000);
                }
            }
        }
        acc
    };
    // The first (in the outlined function) returns from the inner loop after
    // two pauses.
    let cases = [
        (20, 30, 5000),
        (20, 30, i32::MAX),
        (0, 5, 0),
        (7, 0, 0),
        (20, 30, 5000),
        (3, 4, 10),
        (1, 1, 0),
        (2, 2, 0),
        // From here on, the function's own copy.
        (20, 30, 5000),
        (20, 30, i32::MAX),
        (0, 5, 0),
        (3, 4, 10),
    ];
    let calls: Vec<_> = cases.iter().map(|&(n, m, l)| (f, args(&[&n, &m, &l]))).collect();
    let Some(out) = run("outline", &m, &calls) else { return };
    let want: Vec<String> = cases.iter().map(|&(n, m, l)| model(n, m, l).to_string()).collect();
    assert_eq!(out, want);
    let wasm = translate_bytes(&pexe::asm::assemble(&m.text()).unwrap(), &Options::default()).unwrap();
    assert!(pexe::back::wasm::to_wat(&wasm).unwrap().contains("$loop (;"), "the loop nest is outlined");
}

/// Phis that read each other on the same edge: `(a, b) = (b, a)` n times,
/// and a rotation of three.
#[test]
fn phi_parallel_copies() {
    let mut m = Module::new();
    let swap = m.declare(ty::I32, &[ty::I32, ty::I32, ty::I32]);
    let mut b = m.body(3, 3, &[(ty::I32, Const::Int(1)), (ty::I32, Const::Int(0)), (ty::I32, Const::Int(1000))]);
    let (x, y, n) = (b.param(0), b.param(1), b.param(2));
    let (one, zero, k) = (b.c(0), b.c(1), b.c(2));
    b.br(1);
    let a = b.next;
    let (bb, cnt, cnt2) = (a + 1, a + 2, a + 3);
    b.phi(ty::I32, &[(x, 0), (bb, 1)]);
    b.phi(ty::I32, &[(y, 0), (a, 1)]);
    b.phi(ty::I32, &[(n, 0), (cnt2, 1)]);
    b.binop(cnt, one, op::SUB);
    let c = b.cmp(cnt2, zero, cmp::SGT);
    b.condbr(c, 1, 2);
    let hi = b.binop(a, k, op::MUL);
    let r = b.binop(hi, bb, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    // Rust model: the loop body runs n times (at least once).
    let model = |x: i32, y: i32, n: i32| {
        let (mut a, mut b, mut cnt) = (x, y, n);
        loop {
            let cnt2 = cnt - 1;
            let (na, nb) = (b, a);
            if cnt2 > 0 {
                a = na;
                b = nb;
                cnt = cnt2;
            } else {
                return a * 1000 + b;
            }
        }
    };
    let cases = [(3, 5, 1), (3, 5, 2), (3, 5, 3), (7, 9, 10)];
    let calls: Vec<_> = cases.iter().map(|&(x, y, n)| (swap, args(&[&x, &y, &n]))).collect();
    let Some(out) = run("phi", &m, &calls) else { return };
    let want: Vec<String> = cases.iter().map(|&(x, y, n)| model(x, y, n).to_string()).collect();
    assert_eq!(out, want);
}

/// i8 and i16 arithmetic stays normalized: each function truncates its
/// i32 arguments, computes, and widens the result back.
#[test]
fn small_integer_arithmetic() {
    let mut m = Module::new();
    let mut funcs = Vec::new();
    // (name, narrow type, op, widen with sext?)
    let ops: &[(u32, u32, bool)] = &[
        (ty::I8, op::ADD, false),
        (ty::I8, op::MUL, true),
        (ty::I8, op::SDIV, true),
        (ty::I8, op::SREM, true),
        (ty::I8, op::UDIV, false),
        (ty::I8, op::ASHR, true),
        (ty::I8, op::LSHR, false),
        (ty::I8, op::SHL, false),
        (ty::I16, op::SUB, true),
        (ty::I16, op::MUL, false),
        (ty::I16, op::SDIV, true),
        (ty::I16, op::ASHR, false),
    ];
    for _ in ops {
        funcs.push(m.declare(ty::I32, &[ty::I32, ty::I32]));
    }
    for &(t, o, sext) in ops {
        let mut b = m.body(2, 1, &[]);
        let x = b.cast(b.param(0), t, cast::TRUNC);
        let y = b.cast(b.param(1), t, cast::TRUNC);
        let r = b.binop(x, y, o);
        let w = b.cast(r, ty::I32, if sext { cast::SEXT } else { cast::ZEXT });
        b.ret(Some(w));
        m.finish_body(b);
    }
    // Signed compares of i8: (a <s b) zero-extended.
    let slt = m.declare(ty::I32, &[ty::I32, ty::I32]);
    let mut b = m.body(2, 1, &[]);
    let x = b.cast(b.param(0), ty::I8, cast::TRUNC);
    let y = b.cast(b.param(1), ty::I8, cast::TRUNC);
    let c = b.cmp(x, y, cmp::SLT);
    let c2 = b.cmp(x, y, cmp::UGT);
    let w1 = b.cast(c, ty::I32, cast::ZEXT);
    let w2 = b.cast(c2, ty::I32, cast::SEXT);
    let r = b.binop(w1, w2, op::SUB); // 1 - (-1) etc.
    b.ret(Some(r));
    m.finish_body(b);

    let model = |t: u32, o: u32, sext: bool, a: i32, b: i32| -> i32 {
        let bits = if t == ty::I8 { 8 } else { 16 };
        let mask = (1i64 << bits) - 1;
        let sx = |v: i64| -> i64 {
            let v = v & mask;
            if v >> (bits - 1) != 0 {
                v - (1 << bits)
            } else {
                v
            }
        };
        let (ua, ub) = (i64::from(a) & mask, i64::from(b) & mask);
        let (sa, sb) = (sx(i64::from(a)), sx(i64::from(b)));
        let r = match o {
            op::ADD => ua + ub,
            op::SUB => ua - ub,
            op::MUL => ua * ub,
            op::SDIV => sa / sb,
            op::SREM => sa % sb,
            op::UDIV => ua / ub,
            op::ASHR => sa >> ub,
            op::LSHR => ua >> ub,
            op::SHL => ua << ub,
            _ => unreachable!(),
        };
        (if sext { sx(r) } else { r & mask }) as i32
    };
    let inputs = [(100, 100), (-7, 2), (200, 3), (-128, 7), (0x1234, 0x77), (-3, 5)];
    let mut calls = Vec::new();
    let mut want = Vec::new();
    for (k, &(t, o, sext)) in ops.iter().enumerate() {
        for &(a, bv) in &inputs {
            let bits = if t == ty::I8 { 8 } else { 16 };
            let bm = bv & ((1 << bits) - 1);
            if matches!(o, op::SDIV | op::SREM | op::UDIV) && bm == 0 {
                continue;
            }
            if matches!(o, op::ASHR | op::LSHR | op::SHL) && bm >= bits {
                continue; // poison in LLVM
            }
            calls.push((funcs[k], args(&[&a, &bv])));
            want.push(model(t, o, sext, a, bv).to_string());
        }
    }
    for &(a, bv) in &inputs {
        calls.push((slt, args(&[&a, &bv])));
        let (sa, sb) = (a as i8, bv as i8);
        let lt = i32::from(sa < sb);
        let ugt = if (a as u8) > (bv as u8) { -1 } else { 0 };
        want.push((lt - ugt).to_string());
    }
    let Some(out) = run("small", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// i64 arithmetic, shifts and compares, passed as BigInt.
#[test]
fn i64_arithmetic() {
    let mut m = Module::new();
    let ops = [op::ADD, op::SUB, op::MUL, op::SDIV, op::UREM, op::SHL, op::ASHR, op::LSHR, op::XOR];
    let funcs: Vec<u32> = ops.iter().map(|_| m.declare(ty::I64, &[ty::I64, ty::I64])).collect();
    for &o in &ops {
        let mut b = m.body(2, 1, &[]);
        let r = b.binop(b.param(0), b.param(1), o);
        b.ret(Some(r));
        m.finish_body(b);
    }
    let ult = m.declare(ty::I32, &[ty::I64, ty::I64]);
    let mut b = m.body(2, 1, &[]);
    let c = b.cmp(b.param(0), b.param(1), cmp::ULT);
    let r = b.cast(c, ty::I32, cast::ZEXT);
    b.ret(Some(r));
    m.finish_body(b);
    // sext i32 -> i64, trunc back to i16 then sext to i64
    let widen = m.declare(ty::I64, &[ty::I32]);
    let mut b = m.body(1, 1, &[]);
    let w = b.cast(b.param(0), ty::I64, cast::SEXT);
    let t = b.cast(w, ty::I16, cast::TRUNC);
    let s = b.cast(t, ty::I64, cast::SEXT);
    let r = b.binop(w, s, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    let inputs = [(1i64 << 40, 3i64), (-5, 2), (0x0123_4567_89ab_cdef, 17), (i64::MIN + 1, -1)];
    let mut calls = Vec::new();
    let mut want = Vec::new();
    for (k, &o) in ops.iter().enumerate() {
        for &(a, b) in &inputs {
            let r = match o {
                op::ADD => a.wrapping_add(b),
                op::SUB => a.wrapping_sub(b),
                op::MUL => a.wrapping_mul(b),
                op::SDIV => a.wrapping_div(b),
                op::UREM => ((a as u64) % (b as u64)) as i64,
                op::SHL => a.wrapping_shl((b & 63) as u32),
                op::ASHR => a.wrapping_shr((b & 63) as u32),
                op::LSHR => ((a as u64).wrapping_shr((b & 63) as u32)) as i64,
                op::XOR => a ^ b,
                _ => unreachable!(),
            };
            if matches!(o, op::SHL | op::ASHR | op::LSHR) && !(0..64).contains(&b) {
                continue;
            }
            calls.push((funcs[k], vec![big(a), big(b)]));
            want.push(r.to_string());
        }
    }
    for &(a, b) in &inputs {
        calls.push((ult, vec![big(a), big(b)]));
        want.push(u32::from((a as u64) < (b as u64)).to_string());
    }
    for x in [5i32, -70000, 40000] {
        calls.push((widen, args(&[&x])));
        want.push((i64::from(x) + i64::from(x as i16)).to_string());
    }
    let Some(out) = run("i64", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// `sdiv` by 2^k of a value known to be a multiple of 2^k is an arithmetic
/// shift (`x*(x+1)/2`, `(x<<3)/8`), exact for negative and wrapped values
/// too; a dividend that may be odd keeps `div_s`.
#[test]
fn exact_signed_divisions_become_shifts() {
    let mut m = Module::new();
    let tri = m.declare(ty::I32, &[ty::I32]);
    let shl = m.declare(ty::I32, &[ty::I32]);
    let tri64 = m.declare(ty::I64, &[ty::I64]);
    let odd = m.declare(ty::I32, &[ty::I32]);
    // (x + 1) * x / 2
    let mut b = m.body(1, 1, &[(ty::I32, Const::Int(1)), (ty::I32, Const::Int(2))]);
    let (x, one, two) = (b.param(0), b.c(0), b.c(1));
    let x1 = b.binop(x, one, op::ADD);
    let p = b.binop(x1, x, op::MUL);
    let r = b.binop(p, two, op::SDIV);
    b.ret(Some(r));
    m.finish_body(b);
    // ((x << 3) + (x << 2)) / 4
    let mut b = m.body(1, 1, &[(ty::I32, Const::Int(3)), (ty::I32, Const::Int(2)), (ty::I32, Const::Int(4))]);
    let (x, three, two, four) = (b.param(0), b.c(0), b.c(1), b.c(2));
    let a = b.binop(x, three, op::SHL);
    let c = b.binop(x, two, op::SHL);
    let s = b.binop(a, c, op::ADD);
    let r = b.binop(s, four, op::SDIV);
    b.ret(Some(r));
    m.finish_body(b);
    // x * (x - 1) / 2, in i64
    let mut b = m.body(1, 1, &[(ty::I64, Const::Int(1)), (ty::I64, Const::Int(2))]);
    let (x, one, two) = (b.param(0), b.c(0), b.c(1));
    let x1 = b.binop(x, one, op::SUB);
    let p = b.binop(x, x1, op::MUL);
    let r = b.binop(p, two, op::SDIV);
    b.ret(Some(r));
    m.finish_body(b);
    // x * (x + 2) / 2: may be odd
    let mut b = m.body(1, 1, &[(ty::I32, Const::Int(2))]);
    let (x, two) = (b.param(0), b.c(0));
    let x2 = b.binop(x, two, op::ADD);
    let p = b.binop(x2, x, op::MUL);
    let r = b.binop(p, two, op::SDIV);
    b.ret(Some(r));
    m.finish_body(b);

    let wasm = translate_bytes(&pexe::asm::assemble(&m.text()).unwrap(), &Options::default()).unwrap();
    let wat = pexe::back::wasm::to_wat(&wasm).unwrap();
    assert_eq!(wat.matches("i32.shr_s").count(), 2, "{wat}");
    assert_eq!(wat.matches("i64.shr_s").count(), 1, "{wat}");
    assert_eq!(wat.matches("i32.div_s").count(), 1, "{wat}");

    let mut calls = Vec::new();
    let mut want = Vec::new();
    for x in [0i32, 1, 2, 7, -1, -2, -7, 46340, 65535, -65536, 100_000, i32::MAX, i32::MIN] {
        calls.push((tri, args(&[&x])));
        want.push((x.wrapping_add(1).wrapping_mul(x) / 2).to_string());
        calls.push((shl, args(&[&x])));
        want.push(((x << 3).wrapping_add(x << 2) / 4).to_string());
        calls.push((odd, args(&[&x])));
        want.push((x.wrapping_add(2).wrapping_mul(x).wrapping_div(2)).to_string());
    }
    for x in [0i64, 3, -3, 1 << 33, -(1 << 40) - 1, i64::MAX, i64::MIN] {
        calls.push((tri64, vec![big(x)]));
        want.push((x.wrapping_mul(x.wrapping_sub(1)) / 2).to_string());
    }
    let Some(out) = run("exactdiv", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// float and double: arithmetic, frem through env.fmod_f64, saturating
/// conversions, unordered compares and select.
#[test]
fn floating_point() {
    let mut m = Module::new();
    let dops = [op::ADD, op::SUB, op::MUL, op::SDIV, op::SREM];
    let dfuncs: Vec<u32> = dops.iter().map(|_| m.declare(ty::F64, &[ty::F64, ty::F64])).collect();
    let frem32 = m.declare(ty::F32, &[ty::F32, ty::F32]);
    let conv = m.declare(ty::I32, &[ty::F64]);
    let conv_u8 = m.declare(ty::I32, &[ty::F32]);
    let preds = [cmp::FOEQ, cmp::FOLT, cmp::FONE, cmp::FORD, cmp::FUNO, cmp::FUEQ, cmp::FUGT];
    let cmps: Vec<u32> = preds.iter().map(|_| m.declare(ty::I32, &[ty::F64, ty::F64])).collect();
    let sel = m.declare(ty::F64, &[ty::I32, ty::F64, ty::F64]);
    let itof = m.declare(ty::F64, &[ty::I32]);

    for &o in &dops {
        let mut b = m.body(2, 1, &[]);
        let r = b.binop(b.param(0), b.param(1), o);
        b.ret(Some(r));
        m.finish_body(b);
    }
    let mut b = m.body(2, 1, &[]);
    let r = b.binop(b.param(0), b.param(1), op::SREM);
    b.ret(Some(r));
    m.finish_body(b);
    // fptosi double -> i32 (saturating), plus fptrunc/fpext round trip
    let mut b = m.body(1, 1, &[]);
    let t = b.cast(b.param(0), ty::F32, cast::FPTRUNC);
    let e = b.cast(t, ty::F64, cast::FPEXT);
    let r = b.cast(e, ty::I32, cast::FPTOSI);
    b.ret(Some(r));
    m.finish_body(b);
    // fptoui float -> i8, zext
    let mut b = m.body(1, 1, &[]);
    let r = b.cast(b.param(0), ty::I8, cast::FPTOUI);
    let w = b.cast(r, ty::I32, cast::ZEXT);
    b.ret(Some(w));
    m.finish_body(b);
    for &p in &preds {
        let mut b = m.body(2, 1, &[]);
        let c = b.cmp(b.param(0), b.param(1), p);
        let r = b.cast(c, ty::I32, cast::ZEXT);
        b.ret(Some(r));
        m.finish_body(b);
    }
    let mut b = m.body(3, 1, &[(ty::I32, Const::Int(0))]);
    let c = b.cmp(b.param(0), b.c(0), cmp::NE);
    let r = b.select(c, b.param(1), b.param(2));
    b.ret(Some(r));
    m.finish_body(b);
    // sitofp i8 (from i32 via trunc) + uitofp i1 + bitcast round trip
    let mut b = m.body(1, 1, &[(ty::I32, Const::Int(0))]);
    let t = b.cast(b.param(0), ty::I8, cast::TRUNC);
    let f = b.cast(t, ty::F64, cast::SITOFP);
    let neg = b.cmp(b.param(0), b.c(0), cmp::SLT);
    let g = b.cast(neg, ty::F64, cast::UITOFP);
    let bits = b.cast(f, ty::I64, cast::BITCAST);
    let back = b.cast(bits, ty::F64, cast::BITCAST);
    let r = b.binop(back, g, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    let pairs = [(7.5f64, 2.0f64), (-7.5, 2.0), (1.0, 0.0), (f64::NAN, 1.0), (3.0, 3.0)];
    let js = |x: f64| -> String {
        if x.is_nan() {
            "NaN".into()
        } else if x.is_infinite() {
            if x > 0.0 {
                "Infinity".into()
            } else {
                "-Infinity".into()
            }
        } else if x == x.trunc() && x.abs() < 1e21 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        }
    };
    let num = |x: f64| -> String {
        if x.is_nan() {
            "NaN".into()
        } else {
            format!("{x}")
        }
    };
    let mut calls = Vec::new();
    let mut want = Vec::new();
    for (k, &o) in dops.iter().enumerate() {
        for &(a, b) in &pairs {
            let r = match o {
                op::ADD => a + b,
                op::SUB => a - b,
                op::MUL => a * b,
                op::SDIV => a / b,
                _ => a % b,
            };
            calls.push((dfuncs[k], vec![num(a), num(b)]));
            want.push(js(r));
        }
    }
    calls.push((frem32, args(&[&7.5, &2])));
    want.push("1.5".into());
    for x in [3.7f64, -3.7, 1e20, -1e20, f64::NAN] {
        calls.push((conv, vec![num(x)]));
        let r = if x.is_nan() { 0 } else { (x as f32 as f64) as i32 };
        want.push(r.to_string());
    }
    for x in [3.7f32, 255.0, 1000.0] {
        calls.push((conv_u8, args(&[&x])));
        want.push(((x as u32) & 0xff).to_string());
    }
    for (k, &p) in preds.iter().enumerate() {
        for &(a, b) in &pairs {
            // Spelled out: `a != b` is not `one` when a NaN is involved.
            #[allow(clippy::nonminimal_bool)]
            let r = match p {
                cmp::FOEQ => a == b,
                cmp::FOLT => a < b,
                cmp::FONE => a < b || a > b,
                cmp::FORD => !a.is_nan() && !b.is_nan(),
                cmp::FUNO => a.is_nan() || b.is_nan(),
                cmp::FUEQ => !(a < b || a > b),
                cmp::FUGT => !(a <= b),
                _ => unreachable!(),
            };
            calls.push((cmps[k], vec![num(a), num(b)]));
            want.push(u32::from(r).to_string());
        }
    }
    calls.push((sel, args(&[&1, &2.5, &4])));
    want.push("2.5".into());
    calls.push((sel, args(&[&0, &2.5, &4])));
    want.push("4".into());
    for x in [5i32, 200, -3] {
        calls.push((itof, args(&[&x])));
        want.push(js(f64::from(x as i8) + if x < 0 { 1.0 } else { 0.0 }));
    }
    let Some(out) = run("float", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// Dense (br_table) and sparse (compare chain) switches, on i32 and i64,
/// with a phi in the merge block taking one value per case.
#[test]
fn switches() {
    let mut m = Module::new();
    let dense = m.declare(ty::I32, &[ty::I32]);
    let sparse = m.declare(ty::I32, &[ty::I32]);
    let wide = m.declare(ty::I32, &[ty::I64]);
    let small = m.declare(ty::I32, &[ty::I32]);
    for (t, cases) in [
        (ty::I32, vec![(1i64, 10), (2, 20), (3, 30), (5, 50), (6, 20)]),
        (ty::I32, vec![(-1000, 1), (7, 2), (1 << 20, 3)]),
        (
            ty::I64,
            vec![(1i64 << 40, 1), ((1 << 40) + 1, 2), ((1 << 40) + 2, 3), ((1 << 40) + 4, 4), ((1 << 40) + 5, 5)],
        ),
    ] {
        // b0: switch -> b1..=bn (one per case, with duplicates sharing a block), default b_last
        let n = cases.len() as u32;
        let consts: Vec<(u32, Const)> =
            cases.iter().map(|&(_, r)| (ty::I32, Const::Int(r))).chain([(ty::I32, Const::Int(-1))]).collect();
        let mut b = m.body(1, n + 3, &consts);
        let targets: Vec<(i64, u32)> = cases.iter().enumerate().map(|(i, &(v, _))| (v, i as u32 + 1)).collect();
        b.switch(t, b.param(0), n + 1, &targets);
        for _ in 0..n {
            b.br(n + 2);
        }
        b.br(n + 2);
        let incoming: Vec<(u32, u32)> =
            (0..n).map(|i| (b.c(i as usize), i + 1)).chain([(b.c(n as usize), n + 1)]).collect();
        let r = b.phi(ty::I32, &incoming);
        b.ret(Some(r));
        m.finish_body(b);
    }
    // switch on i8 with a negative case (-1 = 255) and dense small values
    let mut b = m.body(1, 4, &[(ty::I32, Const::Int(1)), (ty::I32, Const::Int(2)), (ty::I32, Const::Int(3))]);
    let x = b.cast(b.param(0), ty::I8, cast::TRUNC);
    b.switch(ty::I8, x, 3, &[(-1, 1), (0, 2), (1, 2), (2, 2), (3, 1)]);
    b.ret(Some(b.c(0)));
    b.ret(Some(b.c(1)));
    b.ret(Some(b.c(2)));
    m.finish_body(b);

    let mut calls = Vec::new();
    let mut want = Vec::new();
    for (x, r) in [(1, 10), (2, 20), (3, 30), (4, -1), (5, 50), (6, 20), (7, -1), (-1, -1), (0, -1)] {
        calls.push((dense, args(&[&x])));
        want.push(r.to_string());
    }
    for (x, r) in [(-1000, 1), (7, 2), (1 << 20, 3), (8, -1), (0, -1)] {
        calls.push((sparse, args(&[&x])));
        want.push(r.to_string());
    }
    for (x, r) in
        [(1i64 << 40, 1), ((1 << 40) + 1, 2), ((1 << 40) + 3, -1), ((1 << 40) + 5, 5), (-1, -1), (0, -1), (4, -1)]
    {
        calls.push((wide, vec![big(x)]));
        want.push(r.to_string());
    }
    for (x, r) in [(255, 1), (-1, 1), (0, 2), (2, 2), (3, 1), (4, 3), (256, 2)] {
        calls.push((small, args(&[&x])));
        want.push(r.to_string());
    }
    let Some(out) = run("switch", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// Phis whose block a switch reaches from two cases: their entries name
/// the switch's block twice (with one value), and the copies of that edge
/// are written once.
#[test]
fn phis_after_duplicate_switch_edges() {
    let mut m = Module::new();
    let f = m.declare(ty::I32, &[ty::I32]);
    let consts = [10, 20, 30, 40, 50, 60].map(|v| (ty::I32, Const::Int(v)));
    let mut b = m.body(1, 4, &consts);
    // b0: cases 1 and 2 -> b2, 3 -> b3, default b1; b1, b3: br b2.
    b.switch(ty::I32, b.param(0), 1, &[(1, 2), (2, 2), (3, 3)]);
    b.br(2);
    // b2: p, q from b0 (twice), b1 and b3.
    let p = b.phi(ty::I32, &[(b.c(0), 0), (b.c(1), 1), (b.c(0), 0), (b.c(4), 3)]);
    let q = b.phi(ty::I32, &[(b.c(2), 0), (b.c(3), 1), (b.c(2), 0), (b.c(5), 3)]);
    let r = b.binop(p, q, op::ADD);
    b.ret(Some(r));
    b.br(2);
    m.finish_body(b);
    let cases = [(1, 40), (2, 40), (3, 110), (0, 60), (4, 60)];
    let calls: Vec<_> = cases.iter().map(|&(x, _)| (f, args(&[&x]))).collect();
    let Some(out) = run("phidup", &m, &calls) else { return };
    let want: Vec<String> = cases.iter().map(|&(_, r)| r.to_string()).collect();
    assert_eq!(out, want);
}

/// A computation repeated in a block is reused from that block only: the
/// table of pure computations is cleared when a block first stores a key,
/// not at every block's start, so `b2` must not take `b1`'s product (a
/// sibling's, unset on `b2`'s path).
#[test]
fn repeated_computations_are_reused_per_block() {
    let mut m = Module::new();
    let f = m.declare(ty::I32, &[ty::I32, ty::I32]);
    let mut b = m.body(2, 3, &[]);
    let (p, q) = (b.param(0), b.param(1));
    // b0: br p < q, b1, b2
    let c = b.cmp(p, q, cmp::SLT);
    b.condbr(c, 1, 2);
    // b1: ret p*q + p*q
    let x = b.binop(p, q, op::MUL);
    let y = b.binop(p, q, op::MUL);
    let s = b.binop(x, y, op::ADD);
    b.ret(Some(s));
    // b2: ret p*q + q*p
    let z = b.binop(p, q, op::MUL);
    let w = b.binop(q, p, op::MUL);
    let t = b.binop(z, w, op::ADD);
    b.ret(Some(t));
    m.finish_body(b);
    let cases = [(3, 5, 30), (5, 3, 30), (7, 2, 28), (-4, -6, 48)];
    let calls: Vec<_> = cases.iter().map(|&(x, y, _)| (f, args(&[&x, &y]))).collect();
    let Some(out) = run("csebl", &m, &calls) else { return };
    let want: Vec<String> = cases.iter().map(|&(_, _, r)| r.to_string()).collect();
    assert_eq!(out, want);
}

/// SIMD: vectors built with insertelement, lane-wise add/mul/sdiv (the
/// last one lane by lane), a compare making a mask, vselect, i1-vector
/// logic, extractelement, float vectors and casts.
#[test]
fn vectors() {
    let mut m = Module::new();
    let f = m.declare(ty::I32, &[ty::I32, ty::I32, ty::I32, ty::I32]);
    let fv = m.declare(ty::I32, &[ty::I32, ty::I32]);
    let bytes = m.declare(ty::I32, &[ty::I32, ty::I32]);
    let consts = [
        (ty::I32, Const::Int(0)),
        (ty::I32, Const::Int(1)),
        (ty::I32, Const::Int(2)),
        (ty::I32, Const::Int(3)),
        (ty::I32, Const::Int(10)),
        (ty::V4I32, Const::Undef),
    ];
    let mut b = m.body(4, 1, &consts);
    let (l0, l1, l2, l3) = (b.c(0), b.c(1), b.c(2), b.c(3));
    let ten = b.c(4);
    let undef = b.c(5);
    // v = <p0, p1, p2, p3>, w = <10, 10, 10, 10> (well: <10, p0, 10, p1>)
    let v0 = b.insert(undef, b.param(0), l0);
    let v1 = b.insert(v0, b.param(1), l1);
    let v2 = b.insert(v1, b.param(2), l2);
    let v = b.insert(v2, b.param(3), l3);
    let w0 = b.insert(undef, ten, l0);
    let w1 = b.insert(w0, b.param(0), l1);
    let w2 = b.insert(w1, ten, l2);
    let w = b.insert(w2, b.param(1), l3);
    let sum = b.binop(v, w, op::ADD);
    let prod = b.binop(sum, v, op::MUL);
    let quo = b.binop(prod, w, op::SDIV);
    let lt = b.cmp(v, w, cmp::SLT); // <4 x i1>
    let gt = b.cmp(v, w, cmp::SGT);
    let either = b.binop(lt, gt, op::OR);
    let picked = b.select(lt, quo, sum);
    let mask = b.cast(either, ty::V4I32, cast::ZEXT);
    let total0 = b.binop(picked, mask, op::ADD);
    let e0 = b.extract(total0, l0);
    let e1 = b.extract(total0, l1);
    let e2 = b.extract(total0, l2);
    let e3 = b.extract(total0, l3);
    let b0 = b.extract(lt, l3);
    let b0w = b.cast(b0, ty::I32, cast::ZEXT);
    let s1 = b.binop(e0, e1, op::XOR);
    let s2 = b.binop(e2, e3, op::MUL);
    let s3 = b.binop(s1, s2, op::ADD);
    let r = b.binop(s3, b0w, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    // float vectors: <x, y, x, y> * 1.5 + fptosi
    let fconsts = [
        (ty::I32, Const::Int(0)),
        (ty::I32, Const::Int(1)),
        (ty::I32, Const::Int(2)),
        (ty::I32, Const::Int(3)),
        (ty::F32, f32c(1.5)),
        (ty::V4F32, Const::Undef),
    ];
    let mut b = m.body(2, 1, &fconsts);
    let (l0, l1, l2, l3, k, undef) = (b.c(0), b.c(1), b.c(2), b.c(3), b.c(4), b.c(5));
    let x = b.cast(b.param(0), ty::F32, cast::SITOFP);
    let y = b.cast(b.param(1), ty::F32, cast::SITOFP);
    let a0 = b.insert(undef, x, l0);
    let a1 = b.insert(a0, y, l1);
    let a2 = b.insert(a1, x, l2);
    let a = b.insert(a2, y, l3);
    let k0 = b.insert(undef, k, l0);
    let k1 = b.insert(k0, k, l1);
    let k2 = b.insert(k1, k, l2);
    let kv = b.insert(k2, k, l3);
    let p = b.binop(a, kv, op::MUL);
    let iv = b.cast(p, ty::V4I32, cast::FPTOSI);
    let ge = b.cmp(a, kv, cmp::FOLT);
    let gm = b.cast(ge, ty::V4I32, cast::SEXT);
    let t = b.binop(iv, gm, op::ADD);
    let e0 = b.extract(t, l0);
    let e1 = b.extract(t, l1);
    let e3 = b.extract(t, l3);
    let s = b.binop(e0, e1, op::MUL);
    let r = b.binop(s, e3, op::SUB);
    b.ret(Some(r));
    m.finish_body(b);

    // <16 x i8>: splat a byte into lanes 0 and 15, add, eq compare mask,
    // bitcast the mask to i16.
    let bconsts = [(ty::I32, Const::Int(0)), (ty::I32, Const::Int(15)), (ty::V16I8, Const::Undef)];
    let mut b = m.body(2, 1, &bconsts);
    let (l0, l15, undef) = (b.c(0), b.c(1), b.c(2));
    let x = b.cast(b.param(0), ty::I8, cast::TRUNC);
    let y = b.cast(b.param(1), ty::I8, cast::TRUNC);
    let v0 = b.insert(undef, x, l0);
    let v = b.insert(v0, y, l15);
    let s = b.binop(v, v, op::ADD);
    let e = b.cmp(s, v, cmp::EQ); // lanes where 2v == v, i.e. v == 0 (all middle lanes)
    let bits = b.cast(e, ty::I16, cast::BITCAST);
    let wide = b.cast(bits, ty::I32, cast::ZEXT);
    let l = b.extract(s, l15);
    let lw = b.cast(l, ty::I32, cast::ZEXT);
    let sh = b.binop(lw, b.c(1), op::SHL);
    let r = b.binop(sh, wide, op::XOR);
    b.ret(Some(r));
    m.finish_body(b);
    let _ = ty::V8I16;
    let _ = ty::V16I1;
    let _ = ty::V8I1;

    let model = |p: [i32; 4]| -> i32 {
        let v = p;
        let w = [10, p[0], 10, p[1]];
        let mut t = [0i32; 4];
        let mut lt3 = 0;
        for i in 0..4 {
            let sum = v[i].wrapping_add(w[i]);
            let prod = sum.wrapping_mul(v[i]);
            let quo = prod / w[i];
            let lt = v[i] < w[i];
            let gt = v[i] > w[i];
            let picked = if lt { quo } else { sum };
            t[i] = picked + i32::from(lt || gt);
            if i == 3 {
                lt3 = i32::from(lt);
            }
        }
        (t[0] ^ t[1]).wrapping_add(t[2].wrapping_mul(t[3])) + lt3
    };
    let fmodel = |x: i32, y: i32| -> i32 {
        let a = [x as f32, y as f32, x as f32, y as f32];
        let t: Vec<i32> = a.iter().map(|&v| (v * 1.5) as i32 + if v < 1.5 { -1 } else { 0 }).collect();
        t[0] * t[1] - t[3]
    };
    let bmodel = |x: i32, y: i32| -> i32 {
        let (x, y) = (x as u8, y as u8);
        let mut lanes = [0u8; 16];
        lanes[0] = x;
        lanes[15] = y;
        let mut mask = 0u32;
        for (i, &l) in lanes.iter().enumerate() {
            if l.wrapping_add(l) == l {
                mask |= 1 << i;
            }
        }
        ((u32::from(y.wrapping_add(y)) << 15) ^ mask) as i32
    };
    let inputs = [[1, 2, 3, 4], [20, -5, 7, 100], [-30, 11, 10, 9]];
    let mut calls = Vec::new();
    let mut want = Vec::new();
    for p in inputs {
        calls.push((f, args(&[&p[0], &p[1], &p[2], &p[3]])));
        want.push(model(p).to_string());
    }
    for (x, y) in [(1, 2), (-3, 7), (100, 0)] {
        calls.push((fv, args(&[&x, &y])));
        want.push(fmodel(x, y).to_string());
        calls.push((bytes, args(&[&x, &y])));
        want.push(bmodel(x, y).to_string());
    }
    let Some(out) = run("vectors", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// alloca (static in the entry block and dynamic in a loop), loads and
/// stores of every width, memcpy/memset, and the stack pointer restored on
/// return; bswap/ctlz/ctpop; an indirect call through a function address.
#[test]
fn memory_and_intrinsics() {
    let mut m = Module::new();
    let memcpy = m.intrinsic("llvm.memcpy.p0i8.p0i8.i32", ty::VOID, &[ty::I32, ty::I32, ty::I32, ty::I32, ty::I1]);
    let memset = m.intrinsic("llvm.memset.p0i8.i32", ty::VOID, &[ty::I32, ty::I8, ty::I32, ty::I32, ty::I1]);
    let bswap = m.intrinsic("llvm.bswap.i32", ty::I32, &[ty::I32]);
    let bswap64 = m.intrinsic("llvm.bswap.i64", ty::I64, &[ty::I64]);
    let ctlz = m.intrinsic("llvm.ctlz.i32", ty::I32, &[ty::I32, ty::I1]);
    let ctpop = m.intrinsic("llvm.ctpop.i64", ty::I64, &[ty::I64]);
    let stacksave = m.intrinsic("llvm.stacksave", ty::I32, &[]);
    let mem = m.declare(ty::I32, &[ty::I32, ty::I32]);
    let bits = m.declare(ty::I32, &[ty::I32]);
    let bits64 = m.declare(ty::I64, &[ty::I64]);
    let sp_after = m.declare(ty::I32, &[ty::I32]);
    let indirect = m.declare(ty::I32, &[ty::I32]);

    // mem(a, n): buf = alloca 16; store a as i32 at buf; memcpy(buf+4, buf, 4);
    // memset(buf+8, 0xAB, 8); sum = load i32 buf+4 + load i8 buf+9 +
    // load i16 buf+2; then a dynamic alloca of n bytes in a loop twice.
    let consts = [
        (ty::I32, Const::Int(16)),
        (ty::I32, Const::Int(4)),
        (ty::I32, Const::Int(8)),
        (ty::I32, Const::Int(9)),
        (ty::I32, Const::Int(2)),
        (ty::I32, Const::Int(1)),
        (ty::I8, Const::Int(-85)),
        (ty::I1, Const::Int(0)),
    ];
    let mut b = m.body(2, 1, &consts);
    let (c16, c4, c8, c9, c2, c1, cab, f) = (b.c(0), b.c(1), b.c(2), b.c(3), b.c(4), b.c(5), b.c(6), b.c(7));
    let (a, n) = (b.param(0), b.param(1));
    let buf = b.alloca(c16, 3);
    b.store(buf, a, 1);
    let p4 = b.binop(buf, c4, op::ADD);
    b.call(memcpy, &[p4, buf, c4, c1, f], false);
    let p8 = b.binop(buf, c8, op::ADD);
    b.call(memset, &[p8, cab, c8, c1, f], false);
    let x = b.load(p4, ty::I32, 1);
    let p9 = b.binop(buf, c9, op::ADD);
    let y = b.load(p9, ty::I8, 1);
    let yw = b.cast(y, ty::I32, cast::ZEXT);
    let p2 = b.binop(buf, c2, op::ADD);
    let z = b.load(p2, ty::I16, 1);
    let zw = b.cast(z, ty::I32, cast::SEXT);
    let dynbuf = b.alloca(n, 4);
    b.store(dynbuf, x, 1);
    let back = b.load(dynbuf, ty::I32, 1);
    let s1 = b.binop(back, yw, op::ADD);
    let s2 = b.binop(s1, zw, op::ADD);
    b.ret(Some(s2));
    m.finish_body(b);

    let mut b = m.body(1, 1, &[(ty::I1, Const::Int(0))]);
    let x = b.call(bswap, &[b.param(0)], true);
    let l = b.call(ctlz, &[b.param(0), b.c(0)], true);
    let r = b.binop(x, l, op::XOR);
    b.ret(Some(r));
    m.finish_body(b);

    let mut b = m.body(1, 1, &[]);
    let x = b.call(bswap64, &[b.param(0)], true);
    let p = b.call(ctpop, &[b.param(0)], true);
    let r = b.binop(x, p, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    // sp_after(n): calls mem(1, n) and answers the change of the stack pointer (0).
    let mut b = m.body(1, 1, &[(ty::I32, Const::Int(1))]);
    let before = b.call(stacksave, &[], true);
    b.call(mem, &[b.c(0), b.param(0)], true);
    let after = b.call(stacksave, &[], true);
    let r = b.binop(after, before, op::SUB);
    b.ret(Some(r));
    m.finish_body(b);

    // indirect(x): call bits through its address (and with a mismatched
    // signature it would trap).
    let mut b = m.body(1, 1, &[]);
    let r = b.call_indirect(bits, ty::I32, &[b.param(0)]);
    b.ret(Some(r));
    m.finish_body(b);

    let mut calls = Vec::new();
    let mut want = Vec::new();
    for (a, n) in [(0x1234_5678i32, 8i32), (-2, 100)] {
        calls.push((mem, args(&[&a, &n])));
        let bytes = (a as u32).to_le_bytes();
        let z = i16::from_le_bytes([bytes[2], bytes[3]]);
        want.push((a.wrapping_add(0xAB).wrapping_add(i32::from(z))).to_string());
    }
    for x in [0x1234_5678u32, 1, 0] {
        calls.push((bits, args(&[&(x as i32)])));
        want.push(((x.swap_bytes() ^ x.leading_zeros()) as i32).to_string());
        calls.push((indirect, args(&[&(x as i32)])));
        want.push(((x.swap_bytes() ^ x.leading_zeros()) as i32).to_string());
    }
    for x in [0x0102_0304_0506_0708i64, -1] {
        calls.push((bits64, vec![big(x)]));
        want.push((x.swap_bytes().wrapping_add(i64::from(x.count_ones()))).to_string());
    }
    calls.push((sp_after, args(&[&40])));
    want.push("0".into());
    calls.push((mem, args(&[&1, &0x7000_0000])));
    want.push("fault 1 0".into());
    let Some(out) = run("memory", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// setjmp/longjmp: a longjmp from a callee returns to the setjmp with the
/// value (0 becomes 1); a longjmp to a buffer no live frame set reaches JS.
#[test]
fn setjmp_longjmp() {
    let mut m = Module::new();
    let setjmp = m.intrinsic("llvm.nacl.setjmp", ty::I32, &[ty::I32]);
    let longjmp = m.intrinsic("llvm.nacl.longjmp", ty::VOID, &[ty::I32, ty::I32]);
    let jumper = m.declare(ty::VOID, &[ty::I32, ty::I32]);
    let catcher = m.declare(ty::I32, &[ty::I32]);
    let stray = m.declare(ty::I32, &[]);

    let mut b = m.body(2, 1, &[]);
    b.call(longjmp, &[b.param(0), b.param(1)], false);
    b.ret(None);
    m.finish_body(b);

    // catcher(v): buf = alloca 64; count = phi…; r = setjmp(buf);
    // if r == 0 { jumper(buf, v) ; unreachable } else return r * 10
    let consts = [(ty::I32, Const::Int(64)), (ty::I32, Const::Int(0)), (ty::I32, Const::Int(10))];
    let mut b = m.body(1, 3, &consts);
    let buf = b.alloca(b.c(0), 4);
    let r = b.call(setjmp, &[buf], true);
    let z = b.cmp(r, b.c(1), cmp::EQ);
    b.condbr(z, 1, 2);
    b.call(jumper, &[buf, b.param(0)], false);
    b.ret(Some(b.c(1)));
    let t = b.binop(r, b.c(2), op::MUL);
    b.ret(Some(t));
    m.finish_body(b);

    // stray(): longjmp to a buffer whose setjmp returned long ago.
    let consts = [(ty::I32, Const::Int(64)), (ty::I32, Const::Int(5))];
    let mut b = m.body(0, 1, &consts);
    let buf = b.alloca(b.c(0), 4);
    b.call(jumper, &[buf, b.c(1)], false);
    b.ret(Some(b.c(1)));
    m.finish_body(b);

    let calls = vec![(catcher, args(&[&7])), (catcher, args(&[&0])), (stray, vec![])];
    let Some(out) = run("setjmp", &m, &calls) else { return };
    assert_eq!(out, ["70", "10", "uncaught longjmp"]);
}

/// An irreducible loop (two blocks that branch to each other, both entered
/// from the entry block): the structurer routes the entries through a
/// dispatcher; phis are copied on the way in.
#[test]
fn irreducible_control_flow() {
    let mut m = Module::new();
    let f = m.declare(ty::I32, &[ty::I32, ty::I32, ty::I32]);
    // b0: condbr p0 != 0, b1, b2
    // b1: i1 = phi [p1, b0], [t2, b2]; t1 = i1 + 3; condbr t1 < 50, b2, b3
    // b2: i2 = phi [p2, b0], [t1, b1]; t2 = i2 * 2; condbr t2 < 60, b1, b3
    // b3: r = phi [t1, b1], [t2, b2]; ret r
    let consts = [
        (ty::I32, Const::Int(0)),
        (ty::I32, Const::Int(3)),
        (ty::I32, Const::Int(50)),
        (ty::I32, Const::Int(2)),
        (ty::I32, Const::Int(60)),
    ];
    let mut b = m.body(3, 4, &consts);
    let (p0, p1, p2) = (b.param(0), b.param(1), b.param(2));
    let (zero, three, fifty, two, sixty) = (b.c(0), b.c(1), b.c(2), b.c(3), b.c(4));
    let c0 = b.cmp(p0, zero, cmp::NE);
    b.condbr(c0, 1, 2);
    let i1 = b.next;
    let (t1, _c1, i2, t2) = (i1 + 1, i1 + 2, i1 + 3, i1 + 4);
    b.phi(ty::I32, &[(p1, 0), (t2, 2)]);
    b.binop(i1, three, op::ADD);
    let c1 = b.cmp(t1, fifty, cmp::SLT);
    b.condbr(c1, 2, 3);
    b.phi(ty::I32, &[(p2, 0), (t1, 1)]);
    b.binop(i2, two, op::MUL);
    let c2 = b.cmp(t2, sixty, cmp::SLT);
    b.condbr(c2, 1, 3);
    let r = b.phi(ty::I32, &[(t1, 1), (t2, 2)]);
    b.ret(Some(r));
    m.finish_body(b);

    let model = |p0: i32, p1: i32, p2: i32| -> i32 {
        let mut at_b1 = p0 != 0;
        let (mut i1, mut i2) = (p1, p2);
        loop {
            if at_b1 {
                let t1 = i1 + 3;
                if t1 < 50 {
                    i2 = t1;
                    at_b1 = false;
                } else {
                    return t1;
                }
            } else {
                let t2 = i2 * 2;
                if t2 < 60 {
                    i1 = t2;
                    at_b1 = true;
                } else {
                    return t2;
                }
            }
        }
    };
    let cases = [(1, 0, 0), (0, 0, 1), (1, 5, 7), (0, 5, 7), (0, 100, 100), (1, 100, 100)];
    let calls: Vec<_> = cases.iter().map(|&(a, b, c)| (f, args(&[&a, &b, &c]))).collect();
    let want: Vec<String> = cases.iter().map(|&(a, b, c)| model(a, b, c).to_string()).collect();
    let Some(out) = run("irreducible", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// Sparse switches with many cases: dense runs become tables, the rest
/// compares, found by binary search; on i32 (with negative cases) and i64.
#[test]
fn large_sparse_switches() {
    let mut m = Module::new();
    let mut values: Vec<i64> = (0..6).collect();
    values.extend((1..=10).map(|k| k * 100));
    values.extend(5000..5007);
    values.extend([-7, -1_000_000, 1 << 30]);
    let f32 = m.declare(ty::I32, &[ty::I32]);
    let f64_ = m.declare(ty::I32, &[ty::I64]);
    for (t, vals) in
        [(ty::I32, values.clone()), (ty::I64, values.iter().map(|v| v * 3 + (1 << 40)).collect::<Vec<_>>())]
    {
        let n = vals.len() as u32;
        // Case k returns k * 10 (several cases share blocks: k % 7).
        let consts: Vec<(u32, Const)> =
            (0..7).map(|k| (ty::I32, Const::Int(k * 10))).chain([(ty::I32, Const::Int(-1))]).collect();
        let mut b = m.body(1, 9, &consts);
        let cases: Vec<(i64, u32)> = vals.iter().enumerate().map(|(k, &v)| (v, (k as u32 % 7) + 1)).collect();
        b.switch(t, b.param(0), 8, &cases);
        for k in 0..7 {
            b.ret(Some(b.c(k)));
        }
        b.ret(Some(b.c(7)));
        m.finish_body(b);
        let _ = n;
    }
    let mut calls = Vec::new();
    let mut want = Vec::new();
    let mut probes: Vec<i64> = values.clone();
    probes.extend([6, 7, 99, 101, 150, 4999, 5007, -6, -8, 1 << 29, i64::from(i32::MAX), i64::from(i32::MIN)]);
    for &x in &probes {
        let expect = |vals: &[i64], x: i64| vals.iter().position(|&v| v == x).map_or(-1, |k| (k as i64 % 7) * 10);
        calls.push((f32, args(&[&(x as i32)])));
        want.push(expect(&values, i64::from(x as i32)).to_string());
        let wide: Vec<i64> = values.iter().map(|v| v * 3 + (1 << 40)).collect();
        let y = x * 3 + (1 << 40);
        calls.push((f64_, vec![big(y)]));
        want.push(expect(&wide, y).to_string());
    }
    let Some(out) = run("sparse", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// Bitcasts between integers and i1 vectors (masks): i16 ↔ <16 x i1>,
/// i8 ↔ <8 x i1>, through sext/zext to real lanes.
#[test]
fn mask_bitcasts() {
    let mut m = Module::new();
    let g = m.declare(ty::I32, &[ty::I32]);
    let h = m.declare(ty::I32, &[ty::I32]);
    let consts = [(ty::I32, Const::Int(3)), (ty::I32, Const::Int(9)), (ty::I32, Const::Int(256))];
    let mut b = m.body(1, 1, &consts);
    let t = b.cast(b.param(0), ty::I16, cast::TRUNC);
    let mask = b.cast(t, ty::V16I1, cast::BITCAST);
    let w = b.cast(mask, ty::V16I8, cast::SEXT);
    let l3 = b.extract(w, b.c(0));
    let l9 = b.extract(w, b.c(1));
    let z3 = b.cast(l3, ty::I32, cast::ZEXT);
    let z9 = b.cast(l9, ty::I32, cast::ZEXT);
    let hi = b.binop(z9, b.c(2), op::MUL);
    let back = b.cast(mask, ty::I16, cast::BITCAST);
    let backw = b.cast(back, ty::I32, cast::ZEXT);
    let s1 = b.binop(z3, hi, op::ADD);
    let x = b.binop(s1, backw, op::XOR);
    b.ret(Some(x));
    m.finish_body(b);

    let consts = [(ty::I32, Const::Int(2)), (ty::I32, Const::Int(7)), (ty::I32, Const::Int(1))];
    let mut b = m.body(1, 1, &consts);
    let t = b.cast(b.param(0), ty::I8, cast::TRUNC);
    let mask = b.cast(t, ty::V8I1, cast::BITCAST);
    let z = b.cast(mask, ty::V8I16, cast::ZEXT);
    let e2 = b.extract(z, b.c(0));
    let e7 = b.extract(z, b.c(1));
    let w2 = b.cast(e2, ty::I32, cast::ZEXT);
    let w7 = b.cast(e7, ty::I32, cast::ZEXT);
    let sh = b.binop(w7, b.c(2), op::SHL);
    let r = b.binop(w2, sh, op::OR);
    b.ret(Some(r));
    m.finish_body(b);

    let mut calls = Vec::new();
    let mut want = Vec::new();
    for x in [0i32, 0x208, 0xffff, 0x8, 0x1200, 0x1_0208] {
        calls.push((g, args(&[&x])));
        let bit = |i: i32| (x >> i) & 1;
        want.push(((bit(3) * 255 + bit(9) * 255 * 256) ^ (x & 0xffff)).to_string());
        calls.push((h, args(&[&x])));
        want.push((bit(2) | (bit(7) << 1)).to_string());
    }
    let Some(out) = run("masks", &m, &calls) else { return };
    assert_eq!(out, want);
}

/// The NaCl atomics at every width, each operation once: a store, the six
/// RMWs, a cmpxchg that succeeds and one that fails, a fence, a load. The
/// program runs as it is — single-threaded, where they are plain accesses
/// — and again with the IRT thread interface's name in its data, where they
/// are wasm atomics; both must give the values Rust computes.
#[test]
fn atomics_single_and_multi_threaded() {
    // (type, bits, name suffix)
    let widths = [(ty::I8, 8u32, "i8"), (ty::I16, 16, "i16"), (ty::I32, 32, "i32"), (ty::I64, 64, "i64")];
    let build = |threads: bool| -> (Module, Vec<u32>) {
        let mut m = Module::new();
        let mut intr = Vec::new();
        for &(t, _, n) in &widths {
            let load = m.intrinsic(leak(format!("llvm.nacl.atomic.load.{n}")), t, &[ty::I32, ty::I32]);
            let store = m.intrinsic(leak(format!("llvm.nacl.atomic.store.{n}")), ty::VOID, &[t, ty::I32, ty::I32]);
            let rmw = m.intrinsic(leak(format!("llvm.nacl.atomic.rmw.{n}")), t, &[ty::I32, ty::I32, t, ty::I32]);
            let cas =
                m.intrinsic(leak(format!("llvm.nacl.atomic.cmpxchg.{n}")), t, &[ty::I32, t, t, ty::I32, ty::I32]);
            intr.push((load, store, rmw, cas));
        }
        let fence = m.intrinsic("llvm.nacl.atomic.fence", ty::VOID, &[ty::I32]);
        let funcs: Vec<u32> = widths
            .iter()
            .map(|&(t, _, _)| {
                let w = if t == ty::I64 { ty::I64 } else { ty::I32 };
                m.declare(w, &[w, w])
            })
            .collect();
        if threads {
            m.global(b"nacl-irt-thread-0.1\0");
        }
        for (k, &(t, _, _)) in widths.iter().enumerate() {
            let (load, store, rmw, cas) = intr[k];
            let wide = if t == ty::I64 { ty::I64 } else { ty::I32 };
            // f(init, v): the old values and the final one, each times a
            // different odd number, summed in the function's result type.
            let consts = [
                (ty::I32, Const::Int(8)),
                (ty::I32, Const::Int(6)),
                (ty::I32, Const::Int(1)),
                (ty::I32, Const::Int(2)),
                (ty::I32, Const::Int(3)),
                (ty::I32, Const::Int(4)),
                (ty::I32, Const::Int(5)),
                (t, Const::Int(7)),
                (t, Const::Int(0x0ff0_ff0f)),
                (t, Const::Int(12345)),
                (t, Const::Int(999)),
                (wide, Const::Int(3)),
            ];
            let mut b = m.body(2, 1, &consts);
            let (c8, order) = (b.c(0), b.c(1));
            let (add, sub, or, and, xor, xchg) = (b.c(2), b.c(3), b.c(4), b.c(5), b.c(6), b.c(1));
            let (seven, mask, tag, miss, three) = (b.c(7), b.c(8), b.c(9), b.c(10), b.c(11));
            let (init, v) = if t == ty::I64 || t == ty::I32 {
                (b.param(0), b.param(1))
            } else {
                (b.cast(b.param(0), t, cast::TRUNC), b.cast(b.param(1), t, cast::TRUNC))
            };
            let p = b.alloca(c8, 4);
            b.call(store, &[init, p, order], false);
            let mut olds = vec![
                b.call(rmw, &[add, p, v, order], true),
                b.call(rmw, &[sub, p, seven, order], true),
                b.call(rmw, &[or, p, v, order], true),
                b.call(rmw, &[and, p, mask, order], true),
                b.call(rmw, &[xor, p, v, order], true),
                b.call(rmw, &[xchg, p, tag, order], true),
                b.call(cas, &[p, tag, v, order, order], true),
                b.call(cas, &[p, miss, init, order, order], true),
            ];
            b.call(fence, &[order], false);
            olds.push(b.call(load, &[p, order], true));
            let mut acc = None;
            for o in olds {
                let w = if t == ty::I64 || t == ty::I32 { o } else { b.cast(o, ty::I32, cast::ZEXT) };
                acc = Some(match acc {
                    None => w,
                    Some(a) => {
                        let a3 = b.binop(a, three, op::MUL);
                        b.binop(a3, w, op::ADD)
                    }
                });
            }
            b.ret(acc);
            m.finish_body(b);
        }
        (m, funcs)
    };
    // The same in Rust, at `bits` wide (values zero-extended to u64).
    let model = |bits: u32, init: u64, v: u64| -> u64 {
        let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let (init, v) = (init & m, v & m);
        let mut cell = init;
        let mut olds = Vec::new();
        let mut rmw = |cell: &mut u64, f: &dyn Fn(u64) -> u64| {
            olds.push(*cell);
            *cell = f(*cell) & m;
        };
        rmw(&mut cell, &|x| x.wrapping_add(v));
        rmw(&mut cell, &|x| x.wrapping_sub(7));
        rmw(&mut cell, &|x| x | v);
        rmw(&mut cell, &|x| x & (0x0ff0_ff0f & m));
        rmw(&mut cell, &|x| x ^ v);
        rmw(&mut cell, &|_| 12345 & m);
        let tag = 12345 & m;
        rmw(&mut cell, &|x| if x == tag { v } else { x });
        let miss = 999 & m;
        rmw(&mut cell, &|x| if x == miss { init } else { x });
        olds.push(cell);
        let wrap = if bits == 64 { u64::MAX } else { u64::from(u32::MAX) };
        let mut olds = olds.into_iter();
        let first = olds.next().unwrap();
        olds.fold(first, |a, o| a.wrapping_mul(3).wrapping_add(o) & wrap)
    };
    for threads in [false, true] {
        let (m, funcs) = build(threads);
        let wasm = translate_bytes(&pexe::asm::assemble(&m.text()).unwrap(), &Options::default()).unwrap();
        let wat = pexe::back::wasm::to_wat(&wasm).unwrap();
        assert_eq!(wat.contains(".atomic."), threads, "atomic instructions iff the module may have threads");
        assert_eq!(wat.contains("__pexe_no_threads"), !threads);
        let mut calls = Vec::new();
        let mut want = Vec::new();
        for (k, &(t, bits, _)) in widths.iter().enumerate() {
            for (init, v) in [(0u64, 1u64), (0xdead_beef_1234_5678, 0xffff_ffff_ffff_fff0), (12345, 999), (999, 12345)] {
                let r = model(bits, init, v);
                if t == ty::I64 {
                    calls.push((funcs[k], vec![big(init as i64), big(v as i64)]));
                    want.push((r as i64).to_string());
                } else {
                    calls.push((funcs[k], args(&[&(init as u32 as i32), &(v as u32 as i32)])));
                    want.push((r as u32 as i32).to_string());
                }
            }
        }
        let name = if threads { "atomics-threads" } else { "atomics" };
        let Some(out) = run(name, &m, &calls) else { return };
        assert_eq!(out, want, "{name}");
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The `sqrt` form on a small program (`libm.rs`): a `sqrt` shaped like
/// newlib's (`x >= -0` or NaN-free: `llvm.sqrt`; else `x*x + x`, which is
/// what newlib computes for NaN and infinities), called with a sum of
/// squares (never below zero: the call is unguarded and becomes
/// `f64.sqrt`), a difference and a quotient (maybe negative: guarded, the
/// call stays on the slow arm). With a `sqrt` whose NaN path returns x
/// unchanged, the unguarded call stays a call. Results match a model of
/// the function in every case, NaN included.
#[test]
fn sqrt_calls_unguarded_only_where_the_argument_is_never_negative() {
    for nan_returns_x in [false, true] {
        let mut m = Module::new();
        let llvm_sqrt = m.intrinsic("llvm.sqrt.f64", ty::F64, &[ty::F64]);
        let sqrt = m.named("sqrt", ty::F64, &[ty::F64]);
        let hyp = m.declare(ty::F64, &[ty::F64, ty::F64]);
        let diff = m.declare(ty::F64, &[ty::F64, ty::F64]);
        let quot = m.declare(ty::F64, &[ty::F64, ty::F64]);

        let mut b = m.body(1, 4, &[(ty::F64, Const::Float((-0.0f64).to_bits()))]);
        let x = b.param(0);
        let c = b.cmp(x, b.c(0), cmp::FULT);
        b.condbr(c, 2, 1);
        let r = b.call(llvm_sqrt, &[x], true);
        b.br(3);
        let sq = b.binop(x, x, op::MUL);
        let a = b.binop(sq, x, op::ADD);
        b.br(3);
        let p = b.phi(ty::F64, &[(r, 1), (if nan_returns_x { x } else { a }, 2)]);
        b.ret(Some(p));
        m.finish_body(b);

        let mut b = m.body(2, 1, &[]);
        let (x, y) = (b.param(0), b.param(1));
        let xx = b.binop(x, x, op::MUL);
        let yy = b.binop(y, y, op::MUL);
        let s = b.binop(xx, yy, op::ADD);
        let r = b.call(sqrt, &[s], true);
        b.ret(Some(r));
        m.finish_body(b);
        for k in [op::SUB, op::SDIV] {
            let mut b = m.body(2, 1, &[]);
            let d = b.binop(b.param(0), b.param(1), k);
            let r = b.call(sqrt, &[d], true);
            b.ret(Some(r));
            m.finish_body(b);
        }

        let wasm = translate_bytes(&pexe::asm::assemble(&m.text()).unwrap(), &Options::default()).unwrap();
        let wat = pexe::back::wasm::to_wat(&wasm).unwrap();
        let body = |id: u32| -> String {
            let start = wat.find(&format!("(func $f{id} ")).expect("function in the text");
            let end = wat[start + 1..].find("\n  (").map_or(wat.len(), |e| start + 1 + e);
            wat[start..end].to_string()
        };
        let (h, d, q) = (body(hyp), body(diff), body(quot));
        assert!(!h.contains("f64.ge"), "a sum of squares needs no guard:\n{h}");
        assert_eq!(h.contains("call $sqrt"), nan_returns_x, "unguarded site patched iff the NaN path is proven:\n{h}");
        for g in [&d, &q] {
            assert!(g.contains("f64.ge") && g.contains("f64.sqrt") && g.contains("call $sqrt"), "guarded:\n{g}");
        }

        let model = |x: f64| if x >= -0.0 { x.sqrt() } else if nan_returns_x { x } else { x * x + x };
        let mut calls = Vec::new();
        let mut want = Vec::new();
        let js = |v: f64| if v.is_nan() { "NaN".to_string() } else { format!("{v:?}").replace("inf", "Infinity") };
        for (x, y) in [(3.0, 4.0), (1.0, 5.0), (9.0, 5.0), (-2.0, -0.0), (f64::NAN, 1.0), (1e300, 1e300), (0.0, -0.0)] {
            calls.push((hyp, vec![js(x), js(y)]));
            want.push(js(model(x * x + y * y)));
            calls.push((diff, vec![js(x), js(y)]));
            want.push(js(model(x - y)));
            calls.push((quot, vec![js(x), js(y)]));
            want.push(js(model(x / y)));
        }
        let name = if nan_returns_x { "sqrt-sites-nan-x" } else { "sqrt-sites" };
        let Some(out) = run(name, &m, &calls) else { return };
        // JS prints floats its own way: compare as numbers.
        let num = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
        for (i, (o, w)) in out.iter().zip(&want).enumerate() {
            let (o, w) = (num(o), num(w));
            assert!(o == w || (o.is_nan() && w.is_nan()), "{name}: call {i}: got {o}, want {w}");
        }
        assert_eq!(out.len(), want.len());
    }
}

/// The NaCl atomics at every width (store, the six RMW operations,
/// cmpxchg that succeeds and one that fails, load; seq_cst, release and
/// acquire orders), fences and is.lock.free; memmove over an overlap and
/// copies longer than the inline limit; cttz, bswap.i16, fabs, sqrt.
#[test]
fn atomics_and_more_intrinsics() {
    let mut m = Module::new();
    let widths = [(ty::I8, "i8", 8u32), (ty::I16, "i16", 16), (ty::I32, "i32", 32), (ty::I64, "i64", 64)];
    let mut atomic_fns = Vec::new();
    for &(t, name, _) in &widths {
        let store = m.intrinsic(leak(format!("llvm.nacl.atomic.store.{name}")), ty::VOID, &[t, ty::I32, ty::I32]);
        let load = m.intrinsic(leak(format!("llvm.nacl.atomic.load.{name}")), t, &[ty::I32, ty::I32]);
        let rmw = m.intrinsic(leak(format!("llvm.nacl.atomic.rmw.{name}")), t, &[ty::I32, ty::I32, t, ty::I32]);
        let cas =
            m.intrinsic(leak(format!("llvm.nacl.atomic.cmpxchg.{name}")), t, &[ty::I32, t, t, ty::I32, ty::I32]);
        atomic_fns.push((store, load, rmw, cas));
    }
    let fence = m.intrinsic("llvm.nacl.atomic.fence", ty::VOID, &[ty::I32]);
    let fence_all = m.intrinsic("llvm.nacl.atomic.fence.all", ty::VOID, &[]);
    let lock_free = m.intrinsic("llvm.nacl.atomic.is.lock.free", ty::I1, &[ty::I32, ty::I32]);
    let memmove = m.intrinsic("llvm.memmove.p0i8.p0i8.i32", ty::VOID, &[ty::I32, ty::I32, ty::I32, ty::I32, ty::I1]);
    let memcpy = m.intrinsic("llvm.memcpy.p0i8.p0i8.i32", ty::VOID, &[ty::I32, ty::I32, ty::I32, ty::I32, ty::I1]);
    let memset = m.intrinsic("llvm.memset.p0i8.i32", ty::VOID, &[ty::I32, ty::I8, ty::I32, ty::I32, ty::I1]);
    let cttz = m.intrinsic("llvm.cttz.i32", ty::I32, &[ty::I32, ty::I1]);
    let bswap16 = m.intrinsic("llvm.bswap.i16", ty::I16, &[ty::I16]);
    let fabs = m.intrinsic("llvm.fabs.f64", ty::F64, &[ty::F64]);
    let sqrt = m.intrinsic("llvm.sqrt.f64", ty::F64, &[ty::F64]);
    let atoms: Vec<u32> = widths.iter().map(|_| m.declare(ty::I64, &[ty::I64])).collect();
    let moves = m.declare(ty::I32, &[ty::I32]);
    let misc = m.declare(ty::I32, &[ty::I32]);
    let root = m.declare(ty::F64, &[ty::F64]);

    // atom(x): v = trunc x; store v (release); add v; sub 3; or v;
    // and 0x55; xor v; xchg 7; cmpxchg 7→v (succeeds); cmpxchg 8→9
    // (fails); fence; load (acquire). Answers the sum of each
    // (zero-extended) result times its position. The RMW operation codes
    // are NaCl's: 1 add, 2 sub, 3 or, 4 and, 5 xor, 6 exchange — the same
    // numbers as some of the order constants, which are reused for them.
    for (&(t, _, bits), &(store, load, rmw, cas)) in widths.iter().zip(&atomic_fns) {
        let consts = [
            (ty::I32, Const::Int(16)),
            (ty::I32, Const::Int(6)),
            (ty::I32, Const::Int(4)),
            (ty::I32, Const::Int(3)),
            (ty::I32, Const::Int(1)),
            (ty::I32, Const::Int(2)),
            (ty::I32, Const::Int(5)),
            (t, Const::Int(3)),
            (t, Const::Int(0x55)),
            (t, Const::Int(7)),
            (t, Const::Int(8)),
            (t, Const::Int(9)),
        ];
        let mut b = m.body(1, 1, &consts);
        let (c16, seq, rel, acq, add, sub, xor) = (b.c(0), b.c(1), b.c(2), b.c(3), b.c(4), b.c(5), b.c(6));
        let (t3, t55, t7, t8, t9) = (b.c(7), b.c(8), b.c(9), b.c(10), b.c(11));
        let buf = b.alloca(c16, 4);
        let v = if bits == 64 { b.param(0) } else { b.cast(b.param(0), t, cast::TRUNC) };
        b.call(store, &[v, buf, rel], false);
        let mut rs = vec![b.call(rmw, &[add, buf, v, seq], true)];
        rs.push(b.call(rmw, &[sub, buf, t3, seq], true));
        rs.push(b.call(rmw, &[acq /* 3: or */, buf, v, seq], true));
        rs.push(b.call(rmw, &[rel /* 4: and */, buf, t55, seq], true));
        rs.push(b.call(rmw, &[xor, buf, v, seq], true));
        rs.push(b.call(rmw, &[seq /* 6: exchange */, buf, t7, seq], true));
        rs.push(b.call(cas, &[buf, t7, v, seq, seq], true));
        rs.push(b.call(cas, &[buf, t8, t9, seq, seq], true));
        b.call(fence, &[seq], false);
        rs.push(b.call(load, &[buf, acq], true));
        let mut acc = None;
        for (i, &r) in rs.iter().enumerate() {
            let w = if bits == 64 { r } else { b.cast(r, ty::I64, cast::ZEXT) };
            // Multiply by the position through repeated adds (no i64 consts).
            let mut term = w;
            for _ in 0..i {
                term = b.binop(term, w, op::ADD);
            }
            acc = Some(match acc {
                None => term,
                Some(a) => b.binop(a, term, op::ADD),
            });
        }
        b.ret(acc);
        m.finish_body(b);
    }

    // moves(k): 300 bytes of 1 + k; a word at 0; memmove(buf+1, buf, 200)
    // (overlapping, longer than the inline limit); memcpy(buf+200, buf, 90);
    // memmove(buf+10, buf+12, 40) (inline, overlapping). Answers a checksum.
    let consts = [
        (ty::I32, Const::Int(300)),
        (ty::I32, Const::Int(1)),
        (ty::I32, Const::Int(200)),
        (ty::I32, Const::Int(90)),
        (ty::I32, Const::Int(10)),
        (ty::I32, Const::Int(12)),
        (ty::I32, Const::Int(40)),
        (ty::I32, Const::Int(0x1122_3344)),
        (ty::I32, Const::Int(250)),
        (ty::I32, Const::Int(11)),
        (ty::I1, Const::Int(0)),
    ];
    let mut b = m.body(1, 1, &consts);
    let (c300, c1, c200, c90, c10, c12, c40, word, c250, c11, f) =
        (b.c(0), b.c(1), b.c(2), b.c(3), b.c(4), b.c(5), b.c(6), b.c(7), b.c(8), b.c(9), b.c(10));
    let buf = b.alloca(c300, 4);
    let k1 = b.binop(b.param(0), c1, op::ADD);
    let byte = b.cast(k1, ty::I8, cast::TRUNC);
    b.call(memset, &[buf, byte, c300, c1, f], false);
    b.store(buf, word, 1);
    let p1 = b.binop(buf, c1, op::ADD);
    b.call(memmove, &[p1, buf, c200, c1, f], false);
    let p200 = b.binop(buf, c200, op::ADD);
    b.call(memcpy, &[p200, buf, c90, c1, f], false);
    let p10 = b.binop(buf, c10, op::ADD);
    let p12 = b.binop(buf, c12, op::ADD);
    b.call(memmove, &[p10, p12, c40, c1, f], false);
    let mut sum = b.load(p1, ty::I32, 1);
    for p in [p10, p200] {
        let x = b.load(p, ty::I32, 1);
        sum = b.binop(sum, x, op::XOR);
    }
    let p250 = b.binop(buf, c250, op::ADD);
    let x = b.load(p250, ty::I32, 1);
    sum = b.binop(sum, x, op::ADD);
    let p11 = b.binop(buf, c11, op::ADD);
    let x = b.load(p11, ty::I32, 1);
    sum = b.binop(sum, x, op::ADD);
    b.ret(Some(sum));
    m.finish_body(b);

    // misc(x): cttz(x) + bswap16(trunc x) * 64 + is.lock.free(4) * 16,
    // after a fence.all.
    let mut b = m.body(1, 1, &[(ty::I1, Const::Int(0)), (ty::I32, Const::Int(4)), (ty::I32, Const::Int(6))]);
    let (f, c4, c6) = (b.c(0), b.c(1), b.c(2));
    b.call(fence_all, &[], false);
    let tz = b.call(cttz, &[b.param(0), f], true);
    let h = b.cast(b.param(0), ty::I16, cast::TRUNC);
    let sw = b.call(bswap16, &[h], true);
    let sww = b.cast(sw, ty::I32, cast::ZEXT);
    let sh = b.binop(sww, c6, op::SHL);
    let lf = b.call(lock_free, &[c4, b.param(0)], true);
    let lfw = b.cast(lf, ty::I32, cast::ZEXT);
    let lf8 = b.binop(lfw, c4, op::SHL);
    let s = b.binop(tz, sh, op::ADD);
    let r = b.binop(s, lf8, op::ADD);
    b.ret(Some(r));
    m.finish_body(b);

    let mut b = m.body(1, 1, &[]);
    let a = b.call(fabs, &[b.param(0)], true);
    let r = b.call(sqrt, &[a], true);
    b.ret(Some(r));
    m.finish_body(b);

    // Rust models.
    let atom_model = |x: i64, bits: u32| -> i64 {
        let mask: u64 = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let v = x as u64 & mask;
        let mut mem = v;
        let mut rs = Vec::new();
        let mut step = |f: &dyn Fn(u64) -> u64| {
            rs.push(mem);
            mem = f(mem) & mask;
        };
        step(&|m| m.wrapping_add(v));
        step(&|m| m.wrapping_sub(3));
        step(&|m| m | v);
        step(&|m| m & 0x55);
        step(&|m| m ^ v);
        step(&|_| 7);
        // cmpxchg 7 → v succeeds, 8 → 9 fails.
        rs.push(mem);
        if mem == 7 {
            mem = v;
        }
        rs.push(mem);
        if mem == 8 {
            mem = 9;
        }
        rs.push(mem);
        rs.iter().enumerate().fold(0u64, |a, (i, &r)| a.wrapping_add(r.wrapping_mul(i as u64 + 1))) as i64
    };
    let moves_model = |k: i32| -> i32 {
        let mut buf = vec![(k + 1) as u8; 300];
        buf[..4].copy_from_slice(&0x1122_3344u32.to_le_bytes());
        buf.copy_within(0..200, 1);
        buf.copy_within(0..90, 200);
        buf.copy_within(12..52, 10);
        let w = |at: usize| i32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
        ((w(1) ^ w(10) ^ w(200)).wrapping_add(w(250))).wrapping_add(w(11))
    };
    let misc_model =
        |x: i32| -> i32 { (x.trailing_zeros() as i32) + (i32::from((x as u16).swap_bytes()) << 6) + (1 << 4) };

    let mut calls = Vec::new();
    let mut want = Vec::new();
    for (&f, &(_, _, bits)) in atoms.iter().zip(&widths) {
        for x in [5i64, -3, 0x1234_5678_9abc_def0, 200] {
            calls.push((f, vec![big(x)]));
            want.push(atom_model(x, bits).to_string());
        }
    }
    for k in [0, 41, 254] {
        calls.push((moves, args(&[&k])));
        want.push(moves_model(k).to_string());
    }
    for x in [1i32, 0x8000, 0x1234, 0] {
        calls.push((misc, args(&[&x])));
        want.push(misc_model(x).to_string());
    }
    calls.push((root, args(&[&-16.0f64])));
    want.push("4".into());
    calls.push((root, args(&[&2.25f64])));
    want.push("1.5".into());
    let Some(out) = run("atomics-intrinsics", &m, &calls) else { return };
    assert_eq!(out, want);
}
