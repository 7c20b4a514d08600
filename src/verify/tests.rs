//! Hand-built modules and bodies that break one rule each; every test checks
//! the exact message and the position of the record at fault.

use super::*;
use crate::ir::{
    Span,
    BinOp, Block, CastOp, CmpPred, ConstValue, Constant, ForwardType, FuncType, FunctionDecl, GlobalVar, Initializer,
    Inst, InstKind, Linkage, Scalar, SwitchCase, Type, ValType, ValueId,
};

const I1: ValType = ValType::I1;
const I8: ValType = ValType::I8;
const I32: ValType = ValType::I32;
const I64: ValType = ValType::I64;
const F32: ValType = ValType::F32;
const F64: ValType = ValType::F64;
const V4I32: ValType = ValType::Vector { elem: Scalar::I32, lanes: 4 };
const V4I1: ValType = ValType::Vector { elem: Scalar::I1, lanes: 4 };

fn decl_pos(i: usize) -> BitPos {
    BitPos(800 + 16 * i as u64)
}
fn global_pos(i: usize) -> BitPos {
    BitPos(3000 + 16 * i as u64)
}
fn const_pos(k: usize) -> BitPos {
    BitPos(6000 + 16 * k as u64)
}
fn inst_pos(i: usize) -> BitPos {
    BitPos(10_000 + 16 * i as u64)
}
const BODY_POS: BitPos = BitPos(5000);

/// Builds a module; function and global positions follow `decl_pos` and
/// `global_pos`.
struct ModuleBuilder {
    m: Module,
}

impl ModuleBuilder {
    /// A module whose function 0 is `void _start(i32)`, defined and external.
    fn new() -> Self {
        let mut b = ModuleBuilder { m: Module { version: 1, ..Module::default() } };
        b.m.types.push(Type::Void);
        b.func("_start", None, &[I32], false, Linkage::External);
        b
    }

    fn func(&mut self, name: &str, ret: Option<ValType>, params: &[ValType], proto: bool, linkage: Linkage) -> FuncId {
        self.func_sig(name, FuncType { ret, params: params.to_vec(), varargs: false }, proto, linkage)
    }

    fn func_sig(&mut self, name: &str, sig: FuncType, proto: bool, linkage: Linkage) -> FuncId {
        let sig = std::sync::Arc::new(sig);
        let ty = match self.m.types.iter().position(|t| *t == Type::Function(sig.clone())) {
            Some(i) => i,
            None => {
                self.m.types.push(Type::Function(sig.clone()));
                self.m.types.len() - 1
            }
        };
        let id = self.m.functions.len();
        self.m.functions.push(FunctionDecl {
            ty: crate::ir::TypeId(ty as u32),
            sig,
            cc: 0,
            is_proto: proto,
            linkage,
            name: (!name.is_empty()).then(|| name.as_bytes().to_vec()),
            pos: decl_pos(id),
        });
        FuncId(id as u32)
    }

    /// An internal function with a body.
    fn internal(&mut self, name: &str, ret: Option<ValType>, params: &[ValType]) -> FuncId {
        self.func(name, ret, params, false, Linkage::Internal)
    }

    /// A declared intrinsic with its allowed signature.
    fn intrinsic(&mut self, name: &str) -> FuncId {
        let sig = Intrinsic::lookup(name.as_bytes()).expect("allowed intrinsic").signature();
        self.func_sig(name, sig, true, Linkage::External)
    }

    fn global(&mut self, name: &str, align: u32, compound: bool, init: Vec<Initializer>) -> u32 {
        let i = self.m.globals.len();
        self.m.globals.push(GlobalVar {
            align,
            is_const: false,
            compound,
            init: init.into(),
            name: (!name.is_empty()).then(|| name.as_bytes().to_vec()),
            pos: global_pos(i),
        });
        i as u32
    }

    fn build(self) -> Module {
        self.m
    }
}

type Entry = (InstKind, Option<ValType>);

thread_local! {
    /// The operand lists of the instructions made so far on this thread:
    /// an instruction holds spans of them, and `Body::build` gives every
    /// body a copy, so the spans hold in whichever body it goes into.
    static LISTS: std::cell::RefCell<Function> = std::cell::RefCell::new(Function::default());
}

/// A call's arguments, as the span an instruction holds.
fn args_of(args: &[ValueId]) -> Span {
    LISTS.with(|l| l.borrow_mut().add_args(args))
}

/// A phi's entries.
fn incoming_of(entries: &[(ValueId, BlockId)]) -> Span {
    LISTS.with(|l| l.borrow_mut().add_incoming(entries))
}

/// A switch's cases.
fn cases_of(cases: &[SwitchCase]) -> Span {
    LISTS.with(|l| l.borrow_mut().add_cases(cases))
}

/// Builds a body. Add constants first: instruction result ids come after
/// them (`v(k)` is the k-th result).
struct Body<'m> {
    m: &'m Module,
    id: FuncId,
    params: Vec<ValType>,
    consts: Vec<Constant>,
    blocks: Vec<Vec<Entry>>,
    forward_types: Vec<ForwardType>,
}

impl<'m> Body<'m> {
    fn new(m: &'m Module, id: FuncId) -> Self {
        let params = m.function(id).sig.params.clone();
        Body { m, id, params, consts: Vec::new(), blocks: Vec::new(), forward_types: Vec::new() }
    }
    fn first_local(&self) -> u32 {
        self.m.num_global_values()
    }
    fn p(&self, i: u32) -> ValueId {
        ValueId(self.first_local() + i)
    }
    fn c(&mut self, ty: ValType, value: ConstValue) -> ValueId {
        assert!(self.blocks.is_empty(), "add constants before instructions");
        let k = self.consts.len();
        self.consts.push(Constant { ty, value, pos: const_pos(k) });
        ValueId(self.first_local() + self.params.len() as u32 + k as u32)
    }
    fn int(&mut self, ty: ValType, x: i64) -> ValueId {
        self.c(ty, ConstValue::Int(x))
    }
    fn v(&self, k: u32) -> ValueId {
        ValueId(self.first_local() + (self.params.len() + self.consts.len()) as u32 + k)
    }
    fn block(mut self, insts: Vec<Entry>) -> Self {
        self.blocks.push(insts);
        self
    }
    fn build(self) -> Function {
        let first_local = self.first_local();
        let first_inst_value = first_local + (self.params.len() + self.consts.len()) as u32;
        let mut f = Function {
            id: self.id,
            first_local,
            params: self.params,
            consts: self.consts,
            forward_types: self.forward_types,
            pos: BODY_POS,
            ..Function::default()
        };
        LISTS.with(|l| {
            let l = l.borrow();
            f.call_args = l.call_args.clone();
            f.phi_entries = l.phi_entries.clone();
            f.switch_cases = l.switch_cases.clone();
        });
        for insts in self.blocks {
            let start = f.insts.len() as u32;
            for (kind, ty) in insts {
                let i = f.insts.len();
                let result = ty.map(|t| {
                    f.results.push(InstId(i as u32));
                    (ValueId(first_inst_value + f.results.len() as u32 - 1), t)
                });
                f.insts.push(Inst { kind, result, pos: inst_pos(i) });
            }
            f.blocks.push(Block { start, end: f.insts.len() as u32 });
        }
        f
    }
}

fn ret() -> Entry {
    (InstKind::Ret { value: None }, None)
}
fn br(t: u32) -> Entry {
    (InstKind::Br { target: BlockId(t) }, None)
}
fn condbr(cond: ValueId, t: u32, f: u32) -> Entry {
    (InstKind::CondBr { cond, if_true: BlockId(t), if_false: BlockId(f) }, None)
}
fn binop(op: BinOp, lhs: ValueId, rhs: ValueId, ty: ValType) -> Entry {
    (InstKind::Binop { op, lhs, rhs, flags: 0 }, Some(ty))
}
fn cmp(pred: CmpPred, lhs: ValueId, rhs: ValueId, ty: ValType) -> Entry {
    (InstKind::Cmp { pred, lhs, rhs }, Some(ty))
}
fn cast(op: CastOp, value: ValueId, to: ValType) -> Entry {
    (InstKind::Cast { op, value, to }, Some(to))
}
fn load(ptr: ValueId, ty: ValType, align: u32) -> Entry {
    (InstKind::Load { ptr, ty, align }, Some(ty))
}
fn store(ptr: ValueId, value: ValueId, align: u32) -> Entry {
    (InstKind::Store { ptr, value, align }, None)
}
fn call(m: &Module, callee: FuncId, args: &[ValueId]) -> Entry {
    let ret = m.function(callee).sig.ret;
    (InstKind::Call { callee: ValueId(callee.0), args: args_of(args), ret, tail: false, cc: 0 }, ret)
}
fn phi(ty: ValType, incoming: &[(ValueId, u32)]) -> Entry {
    let entries: Vec<(ValueId, BlockId)> = incoming.iter().map(|&(v, b)| (v, BlockId(b))).collect();
    (InstKind::Phi { ty, incoming: incoming_of(&entries) }, Some(ty))
}

/// Asserts that `diags` holds exactly one diagnostic with this text, at this
/// position.
#[track_caller]
fn expect(diags: &[Diagnostic], pos: BitPos, message: &str) {
    let hits = diags.iter().filter(|d| d.message == message && d.pos == pos).count();
    assert!(
        hits == 1,
        "expected exactly one {message:?} at {pos}; got:\n{}",
        diags.iter().map(|d| format!("  {d}\n")).collect::<String>()
    );
}

#[track_caller]
fn expect_only(diags: &[Diagnostic], pos: BitPos, message: &str) {
    expect(diags, pos, message);
    assert_eq!(diags.len(), 1, "{diags:#?}");
}

#[track_caller]
fn clean(diags: &[Diagnostic]) {
    assert!(
        diags.is_empty(),
        "expected no diagnostics; got:\n{}",
        diags.iter().map(|d| format!("  {d}\n")).collect::<String>()
    );
}

// ---------------------------------------------------------------- module

#[test]
fn minimal_module_is_clean_and_verified() {
    let m = ModuleBuilder::new().build();
    clean(&verify_module(&m));
    assert!(std::ptr::eq(verify(&m).unwrap().module(), &m));
}

#[test]
fn entry_point_rules() {
    let mut b = ModuleBuilder::new();
    b.m.functions[0].linkage = Linkage::Internal;
    let m = b.build();
    expect_only(&verify_module(&m), BitPos(0), "Module has no entry point (disallowed)");
    assert!(verify(&m).is_err());

    let mut b = ModuleBuilder::new();
    b.func("_start", None, &[I32], false, Linkage::External);
    expect_only(&verify_module(&b.build()), BitPos(0), "Module has multiple entry points (disallowed)");

    let mut b = ModuleBuilder::new();
    b.m.version = 2;
    expect_only(&verify_module(&b.build()), BitPos(0), "module version 2 (only version 1 is defined)");
}

#[test]
fn external_symbols() {
    let mut b = ModuleBuilder::new();
    b.func("main", Some(I32), &[], false, Linkage::External);
    b.func("puts", Some(I32), &[I32], true, Linkage::External);
    let d = verify_module(&b.build());
    expect(&d, decl_pos(1), "main is not a valid external symbol (disallowed)");
    expect(&d, decl_pos(2), "puts is not a valid external symbol (disallowed)");
    expect(&d, decl_pos(2), "Function puts is declared but not defined (disallowed)");
    assert_eq!(d.len(), 3);
    assert_eq!(d[0].function, Some(FuncId(1)));
    assert_eq!(d[0].function_name.as_deref(), Some("main"));
}

#[test]
fn linkage_and_calling_convention() {
    let mut b = ModuleBuilder::new();
    let f = b.internal("f", None, &[]);
    b.m.functions[f.0 as usize].cc = 8;
    let g = b.internal("g", None, &[]);
    b.m.functions[g.0 as usize].linkage = Linkage::Other(1);
    let d = verify_module(&b.build());
    expect(&d, decl_pos(1), "Function f has disallowed calling convention: fastcc (8)");
    expect(&d, decl_pos(2), "Function g has disallowed linkage type: weak");
    assert_eq!(d.len(), 2);
}

#[test]
fn function_types() {
    let mut b = ModuleBuilder::new();
    b.internal("narrow", None, &[I8]);
    b.internal("bool_ret", Some(I1), &[]);
    b.func_sig("va", FuncType { ret: None, params: vec![I32], varargs: true }, false, Linkage::Internal);
    b.internal("wide", Some(I64), &[F32, F64, V4I32, V4I1]);
    b.internal("", Some(ValType::Vector { elem: Scalar::I64, lanes: 2 }), &[]);
    let d = verify_module(&b.build());
    expect(&d, decl_pos(1), "Function narrow has disallowed type: void (i8)");
    expect(&d, decl_pos(2), "Function bool_ret has disallowed type: i1 ()");
    expect(&d, decl_pos(3), "Function va has disallowed type: void (i32, ...)");
    expect(&d, decl_pos(5), "Function @f5 has disallowed type: <2 x i64> ()");
    assert_eq!(d.len(), 4);
}

#[test]
fn declared_type_must_name_the_signature() {
    let mut b = ModuleBuilder::new();
    let f = b.internal("f", None, &[]);
    b.m.functions[f.0 as usize].ty = crate::ir::TypeId(0); // void, not a function type
    b.m.functions[0].ty = crate::ir::TypeId(99);
    let d = verify_module(&b.build());
    expect(&d, decl_pos(1), "Function f has type @t0 which is not its signature void ()");
    expect(&d, decl_pos(0), "Function _start has undefined type @t99");
}

#[test]
fn intrinsics_allowed_with_exact_overloads() {
    let mut b = ModuleBuilder::new();
    for name in [
        "llvm.memcpy.p0i8.p0i8.i32",
        "llvm.memset.p0i8.i32",
        "llvm.nacl.read.tp",
        "llvm.nacl.atomic.cmpxchg.i64",
        "llvm.bswap.i16",
        "llvm.fabs.v4f32",
        "llvm.trap",
    ] {
        b.intrinsic(name);
    }
    clean(&verify_module(&b.build()));

    let mut b = ModuleBuilder::new();
    b.func("llvm.cos.f32", Some(F32), &[F32], true, Linkage::External);
    b.func("llvm.memcpy.p0i8.p0i8.i32", None, &[I32, I32, I32], true, Linkage::External);
    let sqrt = b.intrinsic("llvm.sqrt.f64");
    b.m.functions[sqrt.0 as usize].is_proto = false;
    let trap = b.intrinsic("llvm.trap");
    b.m.functions[trap.0 as usize].linkage = Linkage::Internal;
    let d = verify_module(&b.build());
    expect(&d, decl_pos(1), "Function llvm.cos.f32 is a disallowed LLVM intrinsic");
    expect(
        &d,
        decl_pos(2),
        "Function llvm.memcpy.p0i8.p0i8.i32 is a disallowed LLVM intrinsic \
         (type void (i32, i32, i32) is not the allowed void (i32, i32, i32, i32, i1))",
    );
    expect(&d, decl_pos(3), "Function llvm.sqrt.f64 is an LLVM intrinsic and cannot be defined (disallowed)");
    expect(&d, decl_pos(4), "Function llvm.trap is an LLVM intrinsic with internal linkage (disallowed)");
    assert_eq!(d.len(), 4);
}

#[test]
fn globals() {
    let mut b = ModuleBuilder::new();
    let trap = b.intrinsic("llvm.trap");
    let data = b.m.push_data(&[1, 2]);
    b.global("ok", 8, true, vec![data, Initializer::Reloc { target: ValueId(0), addend: -4 }]);
    b.global("odd", 3, false, vec![Initializer::ZeroFill(4)]);
    b.global("empty", 4, false, vec![]);
    b.global("lonely", 4, true, vec![Initializer::ZeroFill(4)]);
    b.global("dangling", 4, false, vec![Initializer::Reloc { target: ValueId(77), addend: 0 }]);
    b.global("", 0, false, vec![Initializer::Reloc { target: ValueId(trap.0), addend: 1 << 40 }]);
    let d = verify_module(&b.build());
    expect(&d, global_pos(1), "Global variable odd has disallowed alignment: 3 (not a power of 2)");
    expect(&d, global_pos(2), "Global variable empty has no initializer (disallowed)");
    expect(
        &d,
        global_pos(3),
        "Global variable lonely has non-flattened initializer (disallowed): compound of 1 element",
    );
    expect(
        &d,
        global_pos(4),
        "Global variable dangling has a relocation to undefined value 77 (only 8 functions and globals)",
    );
    expect(&d, global_pos(5), "Global variable @g5 takes the address of LLVM intrinsic llvm.trap (disallowed)");
    expect(&d, global_pos(5), "Global variable @g5 has relocation addend 1099511627776, which is not 32-bit");
    assert_eq!(d.len(), 6);
}

#[test]
fn globals_must_fit_the_address_space() {
    let mut b = ModuleBuilder::new();
    b.global("a", 1, false, vec![Initializer::ZeroFill(1 << 31)]);
    b.global("b", 1, false, vec![Initializer::ZeroFill(1 << 31)]);
    let d = verify_module(&b.build());
    expect_only(&d, global_pos(1), "global variables take 4294967296 bytes, more than the 32-bit address space");
}

// ---------------------------------------------------------------- bodies

/// A module with `_start` plus `f(i32, i32) -> i32` (internal), and the
/// intrinsics the tests call.
fn arith_module() -> Module {
    let mut b = ModuleBuilder::new();
    b.internal("f", Some(I32), &[I32, I32]); // @f1
    b.internal("g", None, &[F32, F64, V4I32, I64]); // @f2
    b.intrinsic("llvm.memcpy.p0i8.p0i8.i32"); // @f3
    b.intrinsic("llvm.nacl.atomic.load.i32"); // @f4
    b.intrinsic("llvm.nacl.atomic.rmw.i32"); // @f5
    b.intrinsic("llvm.nacl.atomic.is.lock.free"); // @f6
    b.intrinsic("llvm.nacl.atomic.cmpxchg.i32"); // @f7
    b.intrinsic("llvm.nacl.atomic.store.i32"); // @f8
    b.intrinsic("llvm.nacl.atomic.fence.all"); // @f9
    b.global("buf", 4, false, vec![Initializer::ZeroFill(16)]); // @g0 = value 10
    b.build()
}
const F: FuncId = FuncId(1);
const G: FuncId = FuncId(2);
const BUF: ValueId = ValueId(10);

#[test]
fn valid_diamond_with_phi_is_clean() {
    let m = arith_module();
    let mut b = Body::new(&m, F);
    let one = b.int(I32, 1);
    let (p0, p1) = (b.p(0), b.p(1));
    let (v0, v1, v2, v3) = (b.v(0), b.v(1), b.v(2), b.v(3));
    let f = b
        .block(vec![cmp(CmpPred::ISlt, p0, p1, I1), condbr(v0, 1, 2)])
        .block(vec![binop(BinOp::Add, p0, one, I32), br(3)])
        .block(vec![binop(BinOp::Mul, p1, p1, I32), br(3)])
        .block(vec![phi(I32, &[(v1, 1), (v2, 2)]), (InstKind::Ret { value: Some(v3) }, None)])
        .build();
    clean(&verify_function(&m, &f));
}

#[test]
fn binary_operators() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let (a, d, vec, wide) = (b.p(0), b.p(1), b.p(2), b.p(3));
    let t = b.int(I1, -1);
    let x = b.int(I32, 7);
    let f = b
        .block(vec![
            binop(BinOp::Add, x, wide, I32),    // 0: mixed types
            binop(BinOp::UDiv, a, a, F32),      // 1: udiv on float
            binop(BinOp::Add, t, t, I1),        // 2: i1 arithmetic
            binop(BinOp::Xor, t, t, I1),        // 3: fine
            binop(BinOp::SDiv, d, d, F64),      // 4: fdiv, fine
            binop(BinOp::Shl, vec, vec, V4I32), // 5: fine
            (InstKind::Binop { op: BinOp::Add, lhs: x, rhs: x, flags: 3 }, Some(I32)), // 6: nuw nsw
            (InstKind::Binop { op: BinOp::LShr, lhs: x, rhs: x, flags: 1 }, Some(I32)), // 7: exact
            binop(BinOp::Add, x, x, I64),       // 8: wrong result type
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(0), "binary operator operands have different types: i32 and i64");
    expect(&d, inst_pos(1), "Function g disallowed: Expects integer arithmetic type: udiv float");
    expect(&d, inst_pos(2), "Function g disallowed: arithmetic on i1: add i1");
    expect(&d, inst_pos(6), "Function g disallowed: has \"nuw\" attribute: add");
    expect(&d, inst_pos(6), "Function g disallowed: has \"nsw\" attribute: add");
    expect(&d, inst_pos(7), "Function g disallowed: has \"exact\" attribute: lshr");
    expect(&d, inst_pos(8), "result type is i64, but the instruction produces i32");
    assert_eq!(d.len(), 7, "{d:#?}");
    assert_eq!(d[1].function, Some(G));
    assert_eq!(d[1].block, Some(BlockId(0)));
    assert_eq!(d[1].inst, Some(InstId(1)));
}

#[test]
fn casts() {
    let m = arith_module();
    let b = Body::new(&m, G);
    let (a, d, vec, wide) = (b.p(0), b.p(1), b.p(2), b.p(3));
    let f = b
        .block(vec![
            cast(CastOp::Trunc, wide, I32),                                              // fine
            cast(CastOp::Trunc, a, I64),                                                 // float source
            cast(CastOp::ZExt, wide, I32),                                               // narrowing zext
            cast(CastOp::FpExt, a, F64),                                                 // fine
            cast(CastOp::FpTrunc, a, F32),                                               // float to float
            cast(CastOp::Bitcast, wide, F64),                                            // fine
            cast(CastOp::Bitcast, a, I64),                                               // 32 vs 64 bits
            cast(CastOp::SExt, vec, I64),                                                // lanes differ
            cast(CastOp::SiToFp, wide, ValType::Vector { elem: Scalar::F64, lanes: 2 }), // bad type
            cast(CastOp::FpToSi, d, I32),                                                // fine
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "invalid cast: trunc float to i64");
    expect(&d, inst_pos(2), "invalid cast: zext i64 to i32");
    expect(&d, inst_pos(4), "invalid cast: fptrunc float to float");
    expect(&d, inst_pos(6), "invalid cast: bitcast float to i64 (bit sizes differ)");
    expect(&d, inst_pos(7), "invalid cast: sext <4 x i32> to i64 (lane counts differ)");
    expect(&d, inst_pos(8), "Function g disallowed: bad result type: <2 x double>");
    expect(&d, inst_pos(8), "invalid cast: sitofp i64 to <2 x double> (lane counts differ)");
    assert_eq!(d.len(), 7, "{d:#?}");
}

#[test]
fn compares_and_selects() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let (a, vec, wide) = (b.p(0), b.p(2), b.p(3));
    let t = b.int(I1, 0);
    let (v2, v3) = (b.v(2), b.v(3));
    let f = b
        .block(vec![
            cmp(CmpPred::IEq, a, a, I1),                                               // 0: icmp on float
            cmp(CmpPred::FOlt, wide, wide, I1),                                        // 1: fcmp on int
            cmp(CmpPred::IEq, vec, vec, V4I1),                                         // 2: fine, <4 x i1>
            cmp(CmpPred::INe, t, t, I1),                                               // 3: icmp on i1
            (InstKind::Select { cond: t, if_true: vec, if_false: vec }, Some(V4I32)),  // 4: scalar cond
            (InstKind::Select { cond: v2, if_true: vec, if_false: vec }, Some(V4I32)), // 5: fine
            (InstKind::Select { cond: v3, if_true: a, if_false: wide }, Some(F32)),    // 6: mismatch
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(0), "icmp eq on float");
    expect(&d, inst_pos(1), "fcmp olt on i64");
    expect(&d, inst_pos(3), "Function g disallowed: arithmetic on i1: icmp ne i1");
    expect(&d, inst_pos(4), "select condition has type i1; selecting <4 x i32> needs <4 x i1>");
    expect(&d, inst_pos(6), "select operands have different types: float and i64");
    assert_eq!(d.len(), 5, "{d:#?}");
}

#[test]
fn vector_element_access() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let (a, vec, wide) = (b.p(0), b.p(2), b.p(3));
    let i2 = b.int(I32, 2);
    let i4 = b.int(I32, 4);
    let x = b.int(I32, 9);
    let v0 = b.v(0);
    let f = b
        .block(vec![
            (InstKind::ExtractElement { vector: vec, index: i2 }, Some(I32)), // fine
            (InstKind::ExtractElement { vector: vec, index: i4 }, Some(I32)), // out of range
            (InstKind::ExtractElement { vector: vec, index: wide }, Some(I32)), // i64 index
            (InstKind::InsertElement { vector: vec, element: x, index: v0 }, Some(V4I32)), // not constant
            (InstKind::InsertElement { vector: vec, element: a, index: i2 }, Some(V4I32)), // float into i32s
            (InstKind::ExtractElement { vector: wide, index: i2 }, Some(I64)), // not a vector
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "Function g disallowed: out of range vector insert/extract index: index 4 of <4 x i32>");
    expect(&d, inst_pos(2), "vector index %p3 has type i64, not i32");
    expect(&d, inst_pos(3), "Function g disallowed: non-constant vector insert/extract index: index %v0 of <4 x i32>");
    expect(&d, inst_pos(4), "insertelement of float into <4 x i32>");
    expect(&d, inst_pos(5), "extractelement from i64, which is not a vector");
    assert_eq!(d.len(), 5, "{d:#?}");
}

#[test]
fn memory_access() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let (a, d, vec, wide) = (b.p(0), b.p(1), b.p(2), b.p(3));
    let eight = b.int(I32, 8);
    let slot = b.v(0);
    let f = b
        .block(vec![
            (InstKind::Alloca { size: eight, align: 8 }, Some(I32)), // 0 fine
            (InstKind::Alloca { size: wide, align: 3 }, Some(I32)),  // 1 i64 size, odd align
            load(BUF, I32, 1),                                       // 2 fine
            load(BUF, I32, 4),                                       // 3 integers are align 1
            load(wide, I8, 1),                                       // 4 pointer is i64
            load(BUF, I1, 1),                                        // 5 i1
            load(BUF, F64, 8),                                       // 6 fine
            load(BUF, V4I32, 4),                                     // 7 fine
            store(slot, a, 8),                                       // 8 float at 8
            store(BUF, vec, 1),                                      // 9 vector at 1
            store(BUF, d, 1),                                        // 10 fine
            store(BUF, wide, 1),                                     // 11 fine
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "Function g disallowed: alloca array size is not i32: alloca i8, i64 %p3");
    expect(&d, inst_pos(1), "Function g disallowed: bad alignment: alloca align 3 is not a power of 2");
    expect(&d, inst_pos(3), "Function g disallowed: bad alignment: load i32, align 4");
    expect(&d, inst_pos(4), "Function g disallowed: bad pointer: load through %p3 of type i64");
    expect(&d, inst_pos(5), "Function g disallowed: bad result type: load i1 (i1 memory accesses are not supported)");
    expect(&d, inst_pos(8), "Function g disallowed: bad alignment: store float, align 8");
    expect(&d, inst_pos(9), "Function g disallowed: bad alignment: store <4 x i32>, align 1");
    assert_eq!(d.len(), 7, "{d:#?}");
}

#[test]
fn calls() {
    let mut mb = ModuleBuilder::new();
    let f = mb.internal("f", Some(I32), &[I32, I32]);
    let h = mb.internal("h", None, &[]);
    let trap = mb.intrinsic("llvm.trap");
    let m = mb.build();
    let mut b = Body::new(&m, h);
    let x = b.int(I32, 1);
    let w = b.int(I64, 1);
    let n8 = b.int(I8, 1);
    let f_addr = ValueId(f.0);
    let f = b
        .block(vec![
            call(&m, f, &[x, x]),                                                                 // 0 fine
            call(&m, f, &[x]),                                                                    // 1 arity
            call(&m, f, &[x, w]),                                                                 // 2 arg type
            (InstKind::Call { callee: x, args: args_of(&[]), ret: None, tail: false, cc: 0 }, None), // 3 not a function
            (InstKind::Call { callee: ValueId(trap.0), args: args_of(&[]), ret: None, tail: true, cc: 1 }, None), // 4 cc
            (InstKind::Call { callee: f_addr, args: args_of(&[x, x]), ret: Some(I64), tail: false, cc: 0 }, Some(I64)), // 5 ret
            (
                InstKind::CallIndirect { callee: f_addr, args: args_of(&[x]), ret: Some(I32), tail: false, cc: 0 },
                Some(I32),
            ), // 6 fine
            (InstKind::CallIndirect { callee: w, args: args_of(&[]), ret: None, tail: false, cc: 0 }, None), // 7 i64 callee
            (InstKind::CallIndirect { callee: x, args: args_of(&[n8]), ret: None, tail: false, cc: 0 }, None), // 8 i8 arg
            (InstKind::CallIndirect { callee: ValueId(trap.0), args: args_of(&[]), ret: None, tail: false, cc: 0 }, None), // 9
            store(x, ValueId(trap.0), 1), // 10 address of intrinsic
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "call of @f1 (f) passes 1 arguments; its type i32 (i32, i32) takes 2");
    expect(&d, inst_pos(2), "argument 1 of call of @f1 (f) has type i64, not i32");
    expect(
        &d,
        inst_pos(3),
        "Function h disallowed: bad function callee operand: direct call of %c0, which is not a function",
    );
    expect(&d, inst_pos(4), "Function h disallowed: bad calling convention: call with calling convention 1");
    expect(&d, inst_pos(5), "call of @f1 (f) yields i64, but it returns i32");
    expect(&d, inst_pos(7), "Function h disallowed: bad function callee operand: callee %c1 has type i64, not i32");
    expect(&d, inst_pos(8), "Function h disallowed: bad function callee operand: indirect call of type void (i8)");
    expect(&d, inst_pos(9), "Function h disallowed: operand not InherentPtr: address of LLVM intrinsic llvm.trap");
    expect(&d, inst_pos(10), "Function h disallowed: operand not InherentPtr: address of LLVM intrinsic llvm.trap");
    assert_eq!(d.len(), 9, "{d:#?}");
}

#[test]
fn intrinsic_call_operands() {
    let m = arith_module();
    let h = FuncId(0); // _start(i32)
    let mut b = Body::new(&m, h);
    let p = b.p(0);
    let c1 = b.int(I32, 1);
    let c2 = b.int(I32, 2);
    let c3 = b.int(I32, 3);
    let c4 = b.int(I32, 4);
    let c6 = b.int(I32, 6);
    let c7 = b.int(I32, 7);
    let f0 = b.int(I1, 0);
    let f = b
        .block(vec![
            call(&m, FuncId(3), &[p, p, c4, c1, f0]),  // 0 memcpy, fine
            call(&m, FuncId(3), &[p, p, c4, c4, f0]),  // 1 align 4
            call(&m, FuncId(4), &[p, c6]),             // 2 load seq_cst, fine
            call(&m, FuncId(4), &[p, c1]),             // 3 relaxed
            call(&m, FuncId(4), &[p, p]),              // 4 not constant
            call(&m, FuncId(5), &[c7, p, c1, c6]),     // 5 rmw op 7
            call(&m, FuncId(6), &[c3, p]),             // 6 lock-free size 3
            call(&m, FuncId(7), &[p, c1, c2, c3, c6]), // 7 failure stronger than success
            call(&m, FuncId(8), &[c1, p, c3]),         // 8 store acquire
            call(&m, FuncId(6), &[c4, p]),             // 9 fine
            call(&m, FuncId(9), &[]),                  // 10 fence.all, fine
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "Function _start disallowed: bad alignment: llvm.memcpy.p0i8.p0i8.i32 alignment argument 4 is not the constant 1");
    expect(&d, inst_pos(3), "Function _start disallowed: invalid memory order: 1 (relaxed) is not allowed for a load");
    expect(&d, inst_pos(4), "Function _start disallowed: invalid memory order: operand 1 (%p0) is not a constant");
    expect(
        &d,
        inst_pos(5),
        "Function _start disallowed: invalid atomicRMW operation: operation 7 is not a constant 1..=6",
    );
    expect(
        &d,
        inst_pos(6),
        "Function _start disallowed: invalid atomic lock-free byte size: byte size 3 is not a constant 1, 2, 4 or 8",
    );
    expect(
        &d,
        inst_pos(7),
        "Function _start disallowed: invalid memory order: \
         cmpxchg failure order 6 (seq_cst) is stronger than its success order 3 (acquire)",
    );
    expect(&d, inst_pos(8), "Function _start disallowed: invalid memory order: 3 (acquire) is not allowed for a store");
    assert_eq!(d.len(), 7, "{d:#?}");
}

#[test]
fn returns() {
    let m = arith_module();
    let mut b = Body::new(&m, F);
    let w = b.int(I64, 0);
    let f = b.block(vec![br(1)]).block(vec![(InstKind::Ret { value: Some(w) }, None)]).block(vec![ret()]).build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "ret i64 in a function returning i32");
    expect(&d, inst_pos(2), "ret void in a function returning i32");
    assert_eq!(d.len(), 2, "{d:#?}");
    let mut b = Body::new(&m, G);
    let x = b.int(I32, 0);
    let f = b.block(vec![(InstKind::Ret { value: Some(x) }, None)]).build();
    expect_only(&verify_function(&m, &f), inst_pos(0), "ret i32 in a function returning void");
}

#[test]
fn block_structure() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let x = b.int(I32, 0);
    let f = b
        .block(vec![br(1), ret()]) // 0-1: terminator mid-block
        .block(vec![condbr(x, 2, 9)]) // 2: i32 condition, %b9 missing
        .block(vec![br(0)]) // 3: branch to entry
        .block(vec![binop(BinOp::Add, x, x, I32)]) // 4: no terminator
        .block(vec![]) // empty
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(0), "terminator in the middle of block %b0");
    expect(&d, inst_pos(2), "branch condition %c0 has type i32, not i1");
    expect(&d, inst_pos(2), "branch to %b9, which does not exist (the function has 5 blocks)");
    expect(&d, inst_pos(3), "branch to the entry block %b0 (the entry block cannot have predecessors)");
    expect(&d, inst_pos(4), "block %b3 does not end with a terminator");
    expect(&d, BODY_POS, "block %b4 is empty (it needs a terminator)");
    assert_eq!(d.len(), 6, "{d:#?}");
    assert_eq!(d.iter().find(|x| x.pos == BODY_POS).unwrap().block, Some(BlockId(4)));
}

#[test]
fn fewer_terminators_than_declared_blocks() {
    // As the decoder leaves it: the blocks never reached stay empty at 0.
    let m = arith_module();
    let mut f = Body::new(&m, G).block(vec![br(1)]).block(vec![ret()]).block(vec![]).block(vec![]).build();
    f.blocks[2] = Block { start: 0, end: 0 };
    f.blocks[3] = Block { start: 0, end: 0 };
    let d = verify_function(&m, &f);
    expect(&d, BODY_POS, "block %b2 is empty (it needs a terminator)");
    expect(&d, BODY_POS, "block %b3 is empty (it needs a terminator)");
    assert_eq!(d.len(), 2, "{d:#?}");
}

#[test]
fn switches() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let wide = b.p(3);
    let t = b.int(I1, 0);
    let cases = |vals: &[i64]| -> Span {
        let cases: Vec<SwitchCase> = vals.iter().map(|&value| SwitchCase { value, target: BlockId(1) }).collect();
        cases_of(&cases)
    };
    let f = b
        .block(vec![(
            InstKind::Switch { ty: I64, cond: wide, default: BlockId(1), cases: cases(&[1, -1, 1 << 40]) },
            None,
        )])
        .block(vec![(InstKind::Switch { ty: I1, cond: t, default: BlockId(2), cases: cases(&[0]) }, None)])
        .block(vec![(InstKind::Switch { ty: I32, cond: wide, default: BlockId(3), cases: cases(&[5, 5]) }, None)])
        .block(vec![(InstKind::Switch { ty: I8, cond: t, default: BlockId(1), cases: cases(&[-128, 255, 256]) }, None)])
        .block(vec![(InstKind::Switch { ty: F32, cond: t, default: BlockId(1), cases: cases(&[]) }, None)])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(1), "Function g disallowed: switch on i1: switch i1 %c0");
    expect(&d, inst_pos(2), "switch condition %p3 has type i64, but the switch is on i32");
    expect(&d, inst_pos(2), "duplicate switch case value 5");
    expect(&d, inst_pos(3), "switch condition %c0 has type i1, but the switch is on i8");
    expect(&d, inst_pos(3), "Function g disallowed: bad switch case: case 256 does not fit in i8");
    expect(&d, inst_pos(4), "Function g disallowed: bad switch condition: switch on float");
    assert_eq!(d.len(), 6, "{d:#?}");
}

#[test]
fn phis() {
    let m = arith_module();
    let mut b = Body::new(&m, F);
    let (p0, p1) = (b.p(0), b.p(1));
    let c = b.int(I1, 0);
    let w = b.int(I64, 0);
    let (v0, v1) = (b.v(0), b.v(1));
    let f = b
        .block(vec![condbr(c, 1, 2)]) // 0
        .block(vec![(
            InstKind::Switch {
                ty: I32,
                cond: p0,
                default: BlockId(3),
                cases: cases_of(&[SwitchCase { value: 1, target: BlockId(3) }]),
            },
            None,
        )]) // 1
        .block(vec![br(3)]) // 2
        .block(vec![
            phi(I32, &[(p0, 1), (p0, 1), (p1, 2)]), // 3: duplicate identical entry, fine
            phi(I32, &[(p0, 1), (p1, 1), (p1, 2)]), // 4: two values for %b1
            phi(I32, &[(p0, 1)]),                   // 5: missing %b2
            phi(I32, &[(p0, 1), (p1, 2), (p1, 0)]), // 6: %b0 not a predecessor
            phi(I32, &[(w, 1), (p1, 2)]),           // 7: type
            binop(BinOp::Add, v0, v1, I32),         // 8
            phi(I32, &[(p0, 1), (p1, 2)]),          // 9: not at start
            (InstKind::Phi { ty: I32, incoming: incoming_of(&[]) }, Some(I32)), // 10: empty (and late)
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(4), "phi has different values for the same predecessor %b1");
    expect(&d, inst_pos(6), "phi has an entry for %b0, which is not a predecessor of %b3");
    expect(&d, inst_pos(7), "phi entry %c1 from %b1 has type i64, not the phi's i32");
    expect(&d, inst_pos(9), "phi is not at the start of its block (only phis may precede it)");
    expect(&d, inst_pos(11), "ret void in a function returning i32");
    expect(&d, inst_pos(5), "phi has no entry for predecessor %b2");
    expect(&d, inst_pos(10), "phi is not at the start of its block (only phis may precede it)");
    expect(&d, inst_pos(10), "phi has no incoming values");
    expect(&d, inst_pos(10), "phi has no entry for predecessor %b1 (and 1 more)");
    assert_eq!(d.len(), 9, "{d:#?}");
}

/// A join block with many predecessors and many one-entry phis: the work
/// (and the report) must grow with the entries, not with phis × predecessors.
#[test]
fn phi_checks_do_not_multiply_phis_by_predecessors() {
    let m = arith_module();
    let k = 20_000u32;
    let mut b = Body::new(&m, F);
    let p0 = b.p(0);
    let cases: Vec<SwitchCase> = (1..=k).map(|t| SwitchCase { value: i64::from(t), target: BlockId(t) }).collect();
    let cases = cases_of(&cases);
    b = b.block(vec![(InstKind::Switch { ty: I32, cond: p0, default: BlockId(1), cases }, None)]);
    for _ in 1..=k {
        b = b.block(vec![br(k + 1)]);
    }
    let mut join: Vec<Entry> = (0..k).map(|_| phi(I32, &[(p0, 1)])).collect();
    join.push((InstKind::Ret { value: Some(p0) }, None));
    let f = b.block(join).build();
    let start = std::time::Instant::now();
    let d = verify_function(&m, &f);
    assert_eq!(d.len(), k as usize);
    assert_eq!(d[0].message, format!("phi has no entry for predecessor %b2 (and {} more)", k - 2));
    assert!(start.elapsed() < std::time::Duration::from_secs(10), "{:?}", start.elapsed());
}

#[test]
fn dominance() {
    let m = arith_module();
    let mut b = Body::new(&m, F);
    let p0 = b.p(0);
    let c = b.int(I1, 0);
    let (v0, v1, v2, v3) = (b.v(0), b.v(1), b.v(2), b.v(3));
    let f = b
        .block(vec![binop(BinOp::Add, v1, p0, I32), binop(BinOp::Add, p0, p0, I32), condbr(c, 1, 2)]) // 0: v0 uses v1 early
        .block(vec![binop(BinOp::Add, v3, v3, I32), br(3)]) // 1: v2 = v3 + v3, v3 in block 2
        .block(vec![binop(BinOp::Add, p0, p0, I32), br(3)]) // 2: v3
        .block(vec![phi(I32, &[(v2, 1), (v2, 2)]), (InstKind::Ret { value: Some(v0) }, None)]) // 3: v2 not available from %b2
        .block(vec![binop(BinOp::Mul, ValueId(v3.0 + 2), v1, I32), br(4)]) // 4: unreachable: uses anything, self-referencing
        .build();
    let d = verify_function(&m, &f);
    expect(&d, inst_pos(0), &format!("%v1 (defined at {}) does not dominate this use", inst_pos(1)));
    expect(&d, inst_pos(3), &format!("%v3 (defined at {}) does not dominate this use", inst_pos(5)));
    expect(&d, inst_pos(7), &format!("phi entry %v2 (defined at {}) does not dominate the end of %b2", inst_pos(3)));
    expect(&d, inst_pos(9), "instruction uses its own result %v5 (only phis may)");
    assert_eq!(d.len(), 4, "{d:#?}");
}

#[test]
fn undefined_operands() {
    let m = arith_module();
    let b = Body::new(&m, F);
    let f = b.block(vec![(InstKind::Ret { value: Some(ValueId(500)) }, None)]).build();
    expect_only(&verify_function(&m, &f), inst_pos(0), "operand 500 is not a defined value (values end at 13)");
}

#[test]
fn constants() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    b.int(I8, 300);
    b.int(I8, -128);
    b.int(I8, 255);
    b.c(V4I32, ConstValue::Int(0));
    b.c(I32, ConstValue::Float(0));
    b.c(F32, ConstValue::Float(1 << 40));
    b.c(ValType::Vector { elem: Scalar::F64, lanes: 2 }, ConstValue::Undef);
    b.c(V4I32, ConstValue::Undef);
    let f = b.block(vec![ret()]).build();
    let d = verify_function(&m, &f);
    expect(&d, const_pos(0), "constant %c0 = 300 does not fit in i8");
    expect(&d, const_pos(3), "vector constant %c3 must be undef");
    expect(&d, const_pos(4), "float constant %c4 has non-float type i32");
    expect(&d, const_pos(5), "float constant %c5 has more than 32 bits (0x10000000000)");
    expect(&d, const_pos(6), "constant %c6 has disallowed type <2 x double>");
    assert_eq!(d.len(), 5, "{d:#?}");
}

#[test]
fn forward_types_and_names() {
    let m = arith_module();
    let mut b = Body::new(&m, F);
    let p0 = b.p(0);
    let v0 = b.v(0);
    b.forward_types.push(ForwardType { value: v0, ty: I64, pos: BitPos(9000) });
    b.forward_types.push(ForwardType { value: p0, ty: I32, pos: BitPos(9016) });
    let mut f = b.block(vec![binop(BinOp::Add, p0, p0, I32), (InstKind::Ret { value: Some(v0) }, None)]).build();
    f.value_names.push((ValueId(99), b"x".to_vec()));
    f.block_names.push((BlockId(3), b"exit".to_vec()));
    let d = verify_function(&m, &f);
    expect(&d, BitPos(9000), "forward type declaration says %v0 is i64, but it is defined as i32");
    expect(&d, BitPos(9016), "forward type declaration of %p0, which is not an instruction result");
    expect(&d, BODY_POS, "symbol \"x\" names value 99, which is not defined");
    expect(&d, BODY_POS, "symbol \"exit\" names block %b3, but the function has 1 blocks");
    assert_eq!(d.len(), 4, "{d:#?}");
}

#[test]
fn empty_body_is_accepted_but_not_loose_instructions() {
    let m = arith_module();
    let f = Body::new(&m, G).build();
    clean(&verify_function(&m, &f));
    let mut f = Body::new(&m, G).block(vec![ret()]).build();
    f.blocks.clear();
    expect_only(&verify_function(&m, &f), BODY_POS, "instructions outside any basic block (no blocks declared)");
    let mut f = Body::new(&m, G).block(vec![ret()]).block(vec![ret()]).build();
    f.blocks[1].start = 0;
    expect_only(&verify_function(&m, &f), BODY_POS, "basic blocks do not tile the instruction list");
}

#[test]
fn bodies_must_match_their_declaration() {
    let m = arith_module();
    let mut f = Body::new(&m, G).block(vec![ret()]).build();
    f.params.pop();
    expect_only(
        &verify_function(&m, &f),
        BODY_POS,
        "parameters (float, double, <4 x i32>) do not match the signature void (float, double, <4 x i32>, i64)",
    );

    let mut f = Body::new(&m, G).block(vec![ret()]).build();
    f.first_local += 1;
    expect_only(
        &verify_function(&m, &f),
        BODY_POS,
        "function-local values start at 12, but the module has 11 functions and globals",
    );

    let mut f = Body::new(&m, F).block(vec![binop(BinOp::Add, ValueId(11), ValueId(11), I32), ret()]).build();
    f.insts[0].result = Some((ValueId(40), I32));
    expect_only(&verify_function(&m, &f), inst_pos(0), "instruction result is numbered 40 but should be 13 (%v0)");

    let mut f = Body::new(&m, FuncId(3)).block(vec![ret()]).build();
    f.id = FuncId(3);
    expect(
        &verify_function(&m, &f),
        BODY_POS,
        "Function llvm.memcpy.p0i8.p0i8.i32 has a body but is declared as a prototype",
    );

    let mut f = Body::new(&m, G).block(vec![ret()]).build();
    f.id = FuncId(70);
    expect_only(
        &verify_function(&m, &f),
        BODY_POS,
        "function body for @f70, which is not declared (only 10 functions)",
    );
}

#[test]
fn diagnostic_display() {
    let d = Diagnostic {
        pos: BitPos(8 * 100 + 3),
        message: "bad".into(),
        function: Some(FuncId(3)),
        function_name: Some("main".into()),
        block: Some(BlockId(2)),
        inst: Some(InstId(7)),
    };
    assert_eq!(d.to_string(), "100:3: error: bad (in function @f3 \"main\", block %b2, instruction 7)");
    let d = Diagnostic { function_name: None, inst: None, ..d };
    assert_eq!(d.to_string(), "100:3: error: bad (in function @f3, block %b2)");
    let d = Diagnostic::module(BitPos(16), "Module has no entry point (disallowed)".into());
    assert_eq!(d.to_string(), "2:0: error: Module has no entry point (disallowed)");
}

#[test]
fn verify_bytes_reports_decode_errors_with_a_position() {
    let d = verify_bytes(b"PEXE\x01\x00\x08\x00\x11\x00\x04\x00\x02\x00\x00\x00\xff\xff");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].pos.0 >= 16 * 8, "{}", d[0]);
    let d = verify_bytes(b"not a pexe");
    assert_eq!(d.len(), 1, "{d:#?}");
}

#[test]
fn verifier_is_reusable_across_bodies() {
    // Buffers from a large body must not leak into a small one.
    let m = arith_module();
    let mut v = FunctionVerifier::new();
    let mut out = Vec::new();
    let mut b = Body::new(&m, G);
    let c = b.int(I1, 0);
    let mut big = b;
    for k in 0..50 {
        big = big.block(vec![condbr(c, k + 1, 50)]);
    }
    let big = big.block(vec![ret()]).build();
    v.verify(&m, &big, &mut out);
    clean(&out);
    let small = Body::new(&m, G).block(vec![ret()]).build();
    v.verify(&m, &small, &mut out);
    clean(&out);
}

/// The quick checks (`Cx::quick_ok`) only skip work: on real bodies, and on
/// the same bodies with random fields broken, the diagnostics are the same
/// with them and without them.
#[test]
fn quick_checks_agree_with_full_checks() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/ppapi/lpdevs_PNaCl-examples/part2.pexe");
    let bytes = std::fs::read(path).expect("corpus file");
    let (m, bodies) = crate::decode::decode(&bytes).unwrap();
    assert!(bodies.len() > 100);
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n.max(1)
        }
    }
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let types = [I1, I8, I32, I64, F32, F64, V4I32, V4I1];
    let (mut quick, mut full) = (FunctionVerifier::new(), FunctionVerifier::new());
    full.full_checks_only = true;
    // `verify_decoded` too, on the bodies whose result numbering and types
    // are still the decoder's (`numbered`), by a verifier whose analysis
    // nobody reads (dominators in block order).
    let mut decoded = FunctionVerifier::dominance_only();
    let (mut compared, mut with_problems, mut decoded_compared) = (0, 0, 0);
    for f in &bodies {
        for round in 0..4 {
            let mut g = f.clone();
            let mut numbered = true;
            // Round 0 is the body as it is; later rounds break a few fields.
            for _ in 0..round {
                if g.insts.is_empty() {
                    break;
                }
                let end = g.end_value() as u64 + 2;
                let i = rng.next(g.insts.len() as u64) as usize;
                let value = |v: &mut ValueId, rng: &mut Rng| *v = ValueId(rng.next(end) as u32);
                let inst = &mut g.insts[i];
                match rng.next(5) {
                    0 => {
                        numbered = false;
                        if let Some((_, t)) = inst.result.as_mut() {
                            *t = types[rng.next(types.len() as u64) as usize];
                        }
                    }
                    4 => {
                        // Result numbering: ids, presence, the results list.
                        numbered = false;
                        match rng.next(4) {
                            0 => inst.result = inst.result.map(|(v, t)| (ValueId(v.0 ^ 1), t)),
                            1 => inst.result = None,
                            2 => inst.result = Some((ValueId(rng.next(end) as u32), I32)),
                            _ if g.results.len() >= 2 => {
                                let k = rng.next(g.results.len() as u64 - 1) as usize;
                                g.results.swap(k, k + 1);
                            }
                            _ => {}
                        }
                    }
                    1 => match &mut inst.kind {
                        InstKind::Binop { lhs, rhs, flags, .. } => {
                            // The result's type is the first operand's.
                            numbered = false;
                            value(if rng.next(2) == 0 { lhs } else { rhs }, &mut rng);
                            *flags = rng.next(2);
                        }
                        InstKind::Cmp { lhs, rhs, .. } => {
                            numbered = false;
                            value(if rng.next(2) == 0 { lhs } else { rhs }, &mut rng)
                        }
                        InstKind::Cast { value: v, to, .. } => {
                            numbered = false;
                            value(v, &mut rng);
                            *to = types[rng.next(types.len() as u64) as usize];
                        }
                        InstKind::Load { ptr, align, .. } => {
                            value(ptr, &mut rng);
                            *align = 1 << rng.next(4);
                        }
                        InstKind::Store { ptr, value: v, align } => {
                            value(if rng.next(2) == 0 { ptr } else { v }, &mut rng);
                            *align = 1 << rng.next(4);
                        }
                        InstKind::Alloca { size, align } => {
                            value(size, &mut rng);
                            *align = rng.next(5) as u32;
                        }
                        InstKind::Ret { value: Some(v) } | InstKind::CondBr { cond: v, .. } => value(v, &mut rng),
                        InstKind::Switch { cond, default, cases, .. } => match rng.next(3) {
                            0 => value(cond, &mut rng),
                            1 if !cases.is_empty() => {
                                let k = cases.start as usize + rng.next(cases.len() as u64) as usize;
                                g.switch_cases[k].value = rng.next(6) as i64 - 1;
                            }
                            _ => *default = BlockId(rng.next(g.blocks.len() as u64 + 1) as u32),
                        },
                        InstKind::Call { callee, args, cc, .. } => {
                            match args.len() {
                                0 => value(callee, &mut rng),
                                n => value(&mut g.call_args[args.start as usize + rng.next(n as u64) as usize], &mut rng),
                            }
                            *cc = rng.next(3) as u32 / 2;
                        }
                        InstKind::Phi { ty, incoming } => {
                            let k = rng.next(incoming.len() as u64) as usize;
                            match rng.next(3) {
                                0 => value(&mut g.phi_entries[incoming.start as usize + k].0, &mut rng),
                                1 => {
                                    g.phi_entries[incoming.start as usize + k].1 =
                                        BlockId(rng.next(g.blocks.len() as u64 + 1) as u32)
                                }
                                _ => {
                                    // The result's type is the phi's.
                                    numbered = false;
                                    *ty = types[rng.next(types.len() as u64) as usize]
                                }
                            }
                        }
                        _ => {}
                    },
                    2 => match &mut inst.kind {
                        InstKind::Br { target } => *target = BlockId(rng.next(g.blocks.len() as u64 + 1) as u32),
                        InstKind::Binop { op, .. } => *op = BinOp::from_code(rng.next(13)).unwrap(),
                        InstKind::Cmp { pred, .. } => *pred = CmpPred::from_code(rng.next(16) + 32 * rng.next(2)).unwrap_or(CmpPred::IEq),
                        InstKind::Cast { op, .. } => *op = CastOp::from_code(rng.next(12)).unwrap_or(CastOp::Bitcast),
                        InstKind::Load { ty, .. } => {
                            numbered = false;
                            *ty = types[rng.next(types.len() as u64) as usize]
                        }
                        _ => {}
                    },
                    _ => {
                        // Swap two instructions of one block: uses before definitions.
                        numbered = false;
                        let b = g.blocks[rng.next(g.blocks.len() as u64) as usize];
                        if b.end - b.start >= 3 {
                            let (x, y) = (b.start + rng.next((b.end - b.start - 1) as u64) as u32, b.start);
                            g.insts.swap(x as usize, y as usize);
                        }
                    }
                }
            }
            let (mut a, mut b, mut d) = (Vec::new(), Vec::new(), Vec::new());
            quick.verify(&m, &g, &mut a);
            full.verify(&m, &g, &mut b);
            assert_eq!(a, b, "function @f{} round {round}", g.id.0);
            let mut dominance = FunctionVerifier::dominance_only();
            dominance.verify(&m, &g, &mut d);
            assert_eq!(a, d, "dominance only, function @f{} round {round}", g.id.0);
            if numbered {
                let mut c = Vec::new();
                // The values' types as the decoder keeps them.
                let types: Vec<ValType> = (g.params.iter().copied())
                    .chain(g.consts.iter().map(|c| c.ty))
                    .chain(g.results.iter().map(|&InstId(i)| g.insts[i as usize].result.unwrap().1))
                    .collect();
                decoded.verify_decoded(&m, &g, &types, &mut c);
                assert_eq!(a, c, "verify_decoded, function @f{} round {round}", g.id.0);
                decoded_compared += 1;
            }
            compared += 1;
            with_problems += usize::from(!a.is_empty());
        }
    }
    assert!(compared > 400 && with_problems > 100, "{compared} compared, {with_problems} with problems");
    assert!(decoded_compared > 150, "{decoded_compared} compared with verify_decoded");
}

/// Operands of a type PNaCl disallows (no type code of their own) are named
/// with their real type, whether constants or instruction results.
#[test]
fn operands_of_disallowed_types_keep_their_types() {
    let m = arith_module();
    let mut b = Body::new(&m, G);
    let wide = b.p(3);
    let odd = ValType::Vector { elem: Scalar::F64, lanes: 2 };
    let c = b.c(odd, ConstValue::Undef);
    let ptr = b.int(I32, 0);
    let v0 = b.v(0);
    let f = b
        .block(vec![
            cast(CastOp::SiToFp, wide, odd), // %v0: bad type
            store(ptr, c, 8),
            store(ptr, v0, 8),
            ret(),
        ])
        .build();
    let d = verify_function(&m, &f);
    for k in [1, 2] {
        assert!(d.iter().any(|x| x.pos == inst_pos(k) && x.message.contains("<2 x double>")), "{d:#?}");
    }
}

/// Phis with more entries than the quick check's inline arrays (a switch's
/// join): the quick path sorts their blocks, and says what the full checks
/// say, clean or not.
#[test]
fn phis_with_many_entries() {
    let m = arith_module();
    let n = 12u32;
    let mut b = Body::new(&m, F);
    let (p0, p1) = (b.p(0), b.p(1));
    let v = |k: u32| b.v(k);
    let (v0, v1) = (v(0), v(1));
    let defined: Vec<ValueId> = (0..n).map(v).collect();
    let cases: Vec<SwitchCase> = (2..=n).map(|t| SwitchCase { value: i64::from(t), target: BlockId(t) }).collect();
    let cases = cases_of(&cases);
    b = b.block(vec![(InstKind::Switch { ty: I32, cond: p0, default: BlockId(1), cases }, None)]);
    for _ in 1..=n {
        b = b.block(vec![binop(BinOp::Add, p0, p1, I32), br(n + 1)]);
    }
    // Predecessors in reverse order; the k-th block's sum from it.
    let clean_entries: Vec<(ValueId, u32)> = (1..=n).rev().map(|t| (defined[t as usize - 1], t)).collect();
    let mut missing = clean_entries.clone();
    missing[0] = (p0, 1);
    missing[n as usize - 1] = (p0, 1);
    let not_dominating: Vec<(ValueId, u32)> = (1..=n).map(|t| (if t == 2 { v0 } else { p1 }, t)).collect();
    let same_twice: Vec<(ValueId, u32)> = (1..=n).map(|t| (if t == 3 { v1 } else { p1 }, t)).collect();
    let f = b
        .block(vec![
            phi(I32, &clean_entries),
            phi(I32, &clean_entries),
            phi(I32, &missing),
            phi(I32, &not_dominating),
            phi(I32, &same_twice),
            (InstKind::Ret { value: Some(p0) }, None),
        ])
        .build();
    let (a, z) = quick_and_full(&m, &f);
    assert_eq!(a, z);
    let join = 2 * n as usize + 1;
    expect(&a, inst_pos(join + 2), &format!("phi has no entry for predecessor %b{n}"));
    assert!(a.iter().any(|d| d.pos == inst_pos(join + 3) && d.message.contains("does not dominate")), "{a:#?}");
    assert!(a.iter().any(|d| d.pos == inst_pos(join + 4) && d.message.contains("does not dominate")), "{a:#?}");
    assert_eq!(a.len(), 3, "{a:#?}");
}

/// Phis with an entry per edge of a switch's multi-edge (LLVM keeps one
/// per case to the block): the quick path merges identical ones as the full
/// checks do, and says what they say, clean or not, whether it sorts the
/// entries or takes the last phi's blocks again; a few entries (inline) or
/// many.
#[test]
fn phis_with_repeated_entries() {
    let m = arith_module();
    for extra in [2u32, 12] {
        let mut b = Body::new(&m, F);
        let (p0, p1) = (b.p(0), b.p(1));
        let (v0, v1) = (b.v(0), b.v(1));
        // Block 0 goes to the join (3) by its default and `extra` cases,
        // and to blocks 1 and 2.
        let mut cases: Vec<SwitchCase> = (1..=extra).map(|k| SwitchCase { value: i64::from(k), target: BlockId(3) }).collect();
        cases.push(SwitchCase { value: i64::from(extra + 1), target: BlockId(1) });
        cases.push(SwitchCase { value: i64::from(extra + 2), target: BlockId(2) });
        let cases = cases_of(&cases);
        b = b.block(vec![(InstKind::Switch { ty: I32, cond: p0, default: BlockId(3), cases }, None)]);
        for _ in 1..=2 {
            b = b.block(vec![binop(BinOp::Add, p0, p1, I32), br(3)]);
        }
        let from_switch = |v: ValueId| vec![(v, 0); extra as usize + 1];
        let clean: Vec<(ValueId, u32)> = [from_switch(p1), vec![(v0, 1), (v1, 2)]].concat();
        let reversed: Vec<(ValueId, u32)> = clean.iter().rev().copied().collect();
        let mut two_values = clean.clone();
        two_values[0] = (p0, 0);
        let not_dominating: Vec<(ValueId, u32)> = [from_switch(p1), vec![(v0, 1), (v0, 2)]].concat();
        let missing: Vec<(ValueId, u32)> = [from_switch(p1), vec![(v0, 1)]].concat();
        let not_a_predecessor: Vec<(ValueId, u32)> = [clean.clone(), vec![(p1, 3)]].concat();
        let f = b
            .block(vec![
                phi(I32, &clean),
                phi(I32, &clean),
                phi(I32, &two_values), // the blocks just taken
                phi(I32, &reversed),
                phi(I32, &two_values),
                phi(I32, &not_dominating),
                phi(I32, &missing),
                phi(I32, &not_a_predecessor),
                (InstKind::Ret { value: Some(p0) }, None),
            ])
            .build();
        let (a, z) = quick_and_full(&m, &f);
        assert_eq!(a, z, "{extra} extra cases");
        let join = 5;
        for k in [2, 4] {
            expect(&a, inst_pos(join + k), "phi has different values for the same predecessor %b0");
        }
        assert!(a.iter().any(|d| d.pos == inst_pos(join + 5) && d.message.contains("does not dominate")), "{a:#?}");
        expect(&a, inst_pos(join + 6), "phi has no entry for predecessor %b2");
        expect(&a, inst_pos(join + 7), "phi has an entry for %b3, which is not a predecessor of %b3");
        assert_eq!(a.len(), 5, "{a:#?}");
    }
}

/// Switches the quick check settles (a few cases, all fine) and those it
/// leaves to the full checks (more cases, i1, or anything wrong): the same
/// diagnostics either way.
#[test]
fn quick_switch_agrees_with_full_checks() {
    let m = arith_module();
    const BLOCKS: u32 = 20;
    // (switch type, condition, default, cases, expected clean)
    let build = |ty: ValType, cond: u32, default: u32, cases: &[(i64, u32)], result: bool| {
        let mut b = Body::new(&m, F);
        let c8 = b.int(I8, 1);
        let (p0, p1) = (b.p(0), b.p(1));
        let c1 = b.int(I1, 1);
        let cond = match cond {
            0 => p0,
            1 => c8,
            2 => b.v(0),
            3 => b.v(1), // defined in a later block, which does not dominate the switch
            4 => c1,
            _ => ValueId(10_000),
        };
        let cases: Vec<SwitchCase> = cases.iter().map(|&(value, t)| SwitchCase { value, target: BlockId(t) }).collect();
        let switch = (InstKind::Switch { ty, cond, default: BlockId(default), cases: cases_of(&cases) }, result.then_some(I32));
        b = b.block(vec![binop(BinOp::Add, p0, p1, I32), switch]);
        b = b.block(vec![binop(BinOp::Add, p0, p1, I32), (InstKind::Ret { value: Some(p0) }, None)]);
        for _ in 2..BLOCKS {
            b = b.block(vec![(InstKind::Ret { value: Some(p0) }, None)]);
        }
        b.build()
    };
    let few: Vec<(i64, u32)> = (1..6).map(|k| (k * 7, k as u32 + 1)).collect();
    let many: Vec<(i64, u32)> = (1..19).map(|k| (k, k as u32)).collect();
    let mut many_dup = many.clone();
    many_dup[17].0 = 3;
    let cases: Vec<(ValType, u32, u32, Vec<(i64, u32)>, bool, bool)> = vec![
        (I32, 0, 1, few.clone(), false, true),
        (I32, 2, 1, few.clone(), false, true),
        (I32, 0, 1, vec![], false, true),
        (I32, 0, 1, many.clone(), false, true),
        (I8, 1, 1, vec![(-1, 2), (127, 3), (-128, 4)], false, true),
        (I32, 0, 1, many_dup, false, false),
        (I32, 0, 1, vec![(5, 2), (5, 3)], false, false),
        (I8, 1, 1, vec![(-1, 2), (255, 3)], false, false),
        (I8, 1, 1, vec![(256, 2)], false, false),
        (I32, 1, 1, few.clone(), false, false),
        (I8, 0, 1, vec![(1, 2)], false, false),
        (I32, 3, 1, few.clone(), false, false),
        (I32, 5, 1, few.clone(), false, false),
        (I1, 4, 1, vec![(1, 2)], false, false),
        (F32, 0, 1, vec![], false, false),
        (I32, 0, 0, few.clone(), false, false),
        (I32, 0, BLOCKS + 3, few.clone(), false, false),
        (I32, 0, 1, vec![(1, 0)], false, false),
        (I32, 0, 1, vec![(1, BLOCKS)], false, false),
        (I32, 0, 1, few.clone(), true, false),
    ];
    for (k, (ty, cond, default, list, result, ok)) in cases.into_iter().enumerate() {
        let f = build(ty, cond, default, &list, result);
        let (a, z) = quick_and_full(&m, &f);
        assert_eq!(a, z, "case {k}");
        assert_eq!(a.is_empty(), ok, "case {k}: {a:#?}");
    }
}

/// The diagnostics of `f` by the quick checks and by the full checks
/// alone, which must agree. A verifier whose analysis nobody reads (its
/// graph leaves the predecessor lists out: the quick phi check does
/// without them, the full one makes them) must say what the quick checks
/// say.
fn quick_and_full(m: &Module, f: &Function) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    let (mut quick, mut full) = (FunctionVerifier::new(), FunctionVerifier::new());
    full.full_checks_only = true;
    let mut dominance = FunctionVerifier::dominance_only();
    let (mut a, mut z, mut d) = (Vec::new(), Vec::new(), Vec::new());
    quick.verify(m, f, &mut a);
    full.verify(m, f, &mut z);
    dominance.verify(m, f, &mut d);
    assert_eq!(a, d, "dominance only");
    (a, z)
}
