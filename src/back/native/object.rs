//! The parts of the object around the functions: the two entry
//! trampolines, the function table, the function-info and trap tables,
//! the data image and the descriptor ([`rtabi::ModuleDesc`]) that ties
//! them together for the runtime.

use super::func::{self, user_trap};
use super::rtabi::{self, ctx as cx_off, trap};
use super::{object_error, sig_key, Callee, TranslateError, NativeTranslator};
use crate::ir::ValType;
use cranelift_codegen::ir::{self as cl, types, AbiParam, InstBuilder, UserFuncName};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{DataDescription, DataId, FuncId, Linkage, Module as _};
use std::collections::HashSet;
use std::mem::{offset_of, size_of};

/// What the function-info table says about one function.
pub(super) struct InfoRecord {
    pub pexe_id: u32,
    /// The name fault messages use (the wasm name section's: the pexe's
    /// name, or `f<id>`).
    pub name: String,
    pub len: u32,
    pub traps: Vec<(u32, u32)>,
}

/// Symbol names given out so far.
#[derive(Default)]
pub(super) struct Names {
    taken: HashSet<String>,
}

impl Names {
    pub fn claim(&mut self, name: Option<&[u8]>, id: u32) -> String {
        super::symbol_name_for(name, id, &mut self.taken)
    }
}

/// Little-endian bytes with room for relocations.
struct Bytes(Vec<u8>);

impl Bytes {
    fn u32(&mut self, at: usize, x: u32) {
        self.0[at..at + 4].copy_from_slice(&x.to_le_bytes());
    }
    fn u64(&mut self, at: usize, x: u64) {
        self.0[at..at + 8].copy_from_slice(&x.to_le_bytes());
    }
}

pub(super) fn finish(mut t: NativeTranslator) -> Result<Vec<u8>, TranslateError> {
    let cx = std::sync::Arc::clone(&t.compiler.cx);
    let call_conv = cx.call_conv;

    // The trampolines.
    let mut start_sig = cl::Signature::new(call_conv);
    start_sig.params = vec![AbiParam::new(types::I64), AbiParam::new(types::I32)];
    start_sig.returns = vec![AbiParam::new(types::I32)];
    let start_id =
        t.obj.declare_function("__pexe_start", Linkage::Local, &start_sig).map_err(object_error)?;
    let mut thread_sig = cl::Signature::new(call_conv);
    thread_sig.params = vec![AbiParam::new(types::I64), AbiParam::new(types::I32)];
    let thread_id =
        t.obj.declare_function("__pexe_thread_start", Linkage::Local, &thread_sig).map_err(object_error)?;
    let entry = t.start.ok_or(TranslateError::NoEntry)?;
    let mut fctx = FunctionBuilderContext::new();
    let mut ctx = cranelift_codegen::Context::new();
    for (which, id, sig) in [(0, start_id, &start_sig), (1, thread_id, &thread_sig)] {
        ctx.clear();
        ctx.func.signature = sig.clone();
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            if which == 0 {
                start_trampoline(&mut b, &cx, entry);
            } else {
                thread_trampoline(&mut b, &cx);
            }
            b.seal_all_blocks();
            b.finalize(cx.frontend);
        }
        let pseudo = crate::ir::Function { id: crate::ir::FuncId(u32::MAX), ..Default::default() };
        let c = func::emit(&pseudo, id, &*cx.isa_plain, &mut ctx)?;
        t.obj.define_function_bytes(id, c.alignment, &c.bytes, &c.relocs).map_err(object_error)?;
        t.infos.push(InfoRecord {
            pexe_id: u32::MAX,
            name: if which == 0 { "__pexe_start" } else { "__pexe_thread_start" }.into(),
            len: c.bytes.len() as u32,
            traps: c.traps,
        });
    }

    // Test objects: the entry the runtime's test driver calls through.
    let mut test_sigs = String::new();
    let test_id = if t.test_entry {
        let mut sig = cl::Signature::new(call_conv);
        sig.params = [types::I64, types::I32, types::I64, types::I64].into_iter().map(AbiParam::new).collect();
        sig.returns = vec![AbiParam::new(types::I32)];
        let id = t.obj.declare_function("__pexe_test_invoke", Linkage::Local, &sig).map_err(object_error)?;
        ctx.clear();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            test_sigs = test_trampoline(&mut b, &cx);
            b.seal_all_blocks();
            b.finalize(cx.frontend);
        }
        let pseudo = crate::ir::Function { id: crate::ir::FuncId(u32::MAX), ..Default::default() };
        let c = func::emit(&pseudo, id, &*cx.isa_plain, &mut ctx)?;
        t.obj.define_function_bytes(id, c.alignment, &c.bytes, &c.relocs).map_err(object_error)?;
        t.infos.push(InfoRecord {
            pexe_id: u32::MAX - 1,
            name: "__pexe_test_invoke".into(),
            len: c.bytes.len() as u32,
            traps: c.traps,
        });
        Some(id)
    } else {
        None
    };

    // The function table: IRT, PPB, then the pexe's functions.
    let mut table = Bytes(vec![0; cx.table_len as usize * size_of::<rtabi::TableEntry>()]);
    let mut table_desc = DataDescription::new();
    let imports = t.imports.irt().iter().map(|f| (rtabi::sym::IRT_PREFIX, f));
    let imports = imports.chain(t.imports.ppb().iter().map(|f| (rtabi::sym::PPB_PREFIX, f)));
    // Table index 0 is null; IRT function `k` is at 1 + k, the PPB's after.
    for (k, ((prefix, f), (kinds, result))) in imports.zip(t.imports.signatures()).enumerate().map(|(i, x)| (i + 1, x)) {
        let params: Vec<ValType> = kinds.iter().map(|&k| super::kind_type(k)).collect();
        let ret = result.map(super::kind_type);
        let sig = cx.signature(&params, ret);
        let name = if prefix == rtabi::sym::IRT_PREFIX { format!("{prefix}{}", f.name) } else { format!("{prefix}{}", f.key) };
        let id = t.obj.declare_function(&name, Linkage::Import, &sig).map_err(object_error)?;
        let fr = t.obj.declare_func_in_data(id, &mut table_desc);
        let at = k * size_of::<rtabi::TableEntry>();
        table_desc.write_function_addr(at as u32, fr);
        table.u32(at + 8, cx.sig_ids.get(&sig_key(&params, ret)).copied().unwrap_or(0));
    }
    for (i, e) in cx.funcs.iter().enumerate() {
        if let Callee::Defined { id, sig, .. } = e.callee {
            let at = (cx.pexe_table_base as usize + i) * size_of::<rtabi::TableEntry>();
            let fr = t.obj.declare_func_in_data(id, &mut table_desc);
            table_desc.write_function_addr(at as u32, fr);
            table.u32(at + 8, sig);
        }
    }
    table_desc.define(table.0.into_boxed_slice());
    table_desc.set_align(16);
    t.obj.define_data(cx.table, &table_desc).map_err(object_error)?;

    // Function info, names, traps.
    let mut names = Vec::new();
    let mut traps = Bytes(Vec::new());
    let mut funcs = Bytes(vec![0; t.infos.len().max(1) * size_of::<rtabi::FuncInfo>()]);
    let mut funcs_desc = DataDescription::new();
    for (n, info) in t.infos.iter().enumerate() {
        let at = n * size_of::<rtabi::FuncInfo>();
        let id = match info.pexe_id {
            u32::MAX if info.name == "__pexe_start" => start_id,
            u32::MAX => thread_id,
            p if p == u32::MAX - 1 => test_id.ok_or_else(|| object_error("no test entry"))?,
            p => match cx.funcs[p as usize].callee {
                Callee::Defined { id, .. } => id,
                _ => return Err(object_error("a function-info entry for a function without a body")),
            },
        };
        let fr = t.obj.declare_func_in_data(id, &mut funcs_desc);
        funcs_desc.write_function_addr((at + offset_of!(rtabi::FuncInfo, code)) as u32, fr);
        funcs.u32(at + offset_of!(rtabi::FuncInfo, code_len), info.len);
        funcs.u32(at + offset_of!(rtabi::FuncInfo, name_off), names.len() as u32);
        funcs.u32(at + offset_of!(rtabi::FuncInfo, name_len), info.name.len() as u32);
        names.extend_from_slice(info.name.as_bytes());
        let first_trap = traps.0.len() / size_of::<rtabi::TrapEntry>();
        funcs.u32(at + offset_of!(rtabi::FuncInfo, traps_off), first_trap as u32);
        funcs.u32(at + offset_of!(rtabi::FuncInfo, traps_len), info.traps.len() as u32);
        for &(offset, code) in &info.traps {
            traps.0.extend_from_slice(&offset.to_le_bytes());
            traps.0.extend_from_slice(&code.to_le_bytes());
        }
    }
    let names_id = blob(&mut t.obj, "__pexe_names", names, 1)?;
    let traps_id = blob(&mut t.obj, "__pexe_traps", traps.0, 8)?;
    let funcs_id = t.obj.declare_data("__pexe_funcs", Linkage::Local, false, false).map_err(object_error)?;
    funcs_desc.define(funcs.0.into_boxed_slice());
    funcs_desc.set_align(8);
    t.obj.define_data(funcs_id, &funcs_desc).map_err(object_error)?;

    // The data image: segment bytes in one blob, and the segment list.
    let mut image = Vec::new();
    let mut segs = Bytes(vec![0; t.layout.segments.len().max(1) * size_of::<rtabi::Segment>()]);
    let mut offsets = Vec::new();
    for (n, s) in t.layout.segments.iter().enumerate() {
        let at = n * size_of::<rtabi::Segment>();
        segs.u64(at + offset_of!(rtabi::Segment, addr), u64::from(s.addr));
        segs.u64(at + offset_of!(rtabi::Segment, len), s.bytes.len() as u64);
        offsets.push((at, image.len()));
        image.extend_from_slice(&s.bytes);
    }
    let image_id = blob(&mut t.obj, "__pexe_image", image, 16)?;
    let test_sigs_len = test_sigs.len();
    let test_sigs_id = blob(&mut t.obj, "__pexe_test_sigs", test_sigs.into_bytes(), 1)?;
    let segs_id = t.obj.declare_data("__pexe_segments", Linkage::Local, false, false).map_err(object_error)?;
    let mut segs_desc = DataDescription::new();
    let image_gv = t.obj.declare_data_in_data(image_id, &mut segs_desc);
    for (at, off) in offsets {
        segs_desc.write_data_addr((at + offset_of!(rtabi::Segment, data)) as u32, image_gv, off as i64);
    }
    segs_desc.define(segs.0.into_boxed_slice());
    segs_desc.set_align(8);
    t.obj.define_data(segs_id, &segs_desc).map_err(object_error)?;

    // The descriptor.
    let module_id =
        t.obj.declare_data(rtabi::MODULE_SYMBOL, Linkage::Export, false, false).map_err(object_error)?;
    let mut desc = Bytes(vec![0; size_of::<rtabi::ModuleDesc>()]);
    let mut d = DataDescription::new();
    desc.u32(offset_of!(rtabi::ModuleDesc, magic), rtabi::MODULE_MAGIC);
    desc.u32(offset_of!(rtabi::ModuleDesc, version), rtabi::MODULE_VERSION);
    desc.u64(offset_of!(rtabi::ModuleDesc, abi_hash), super::irt_abi_hash());
    desc.u64(offset_of!(rtabi::ModuleDesc, num_funcs), t.infos.len() as u64);
    desc.u64(offset_of!(rtabi::ModuleDesc, table_len), u64::from(cx.table_len));
    desc.u64(offset_of!(rtabi::ModuleDesc, num_segments), t.layout.segments.len() as u64);
    desc.u64(offset_of!(rtabi::ModuleDesc, heap_base), u64::from(t.layout.heap_base));
    desc.u64(offset_of!(rtabi::ModuleDesc, pexe_table_base), u64::from(cx.pexe_table_base));
    desc.u64(offset_of!(rtabi::ModuleDesc, num_irt), t.imports.irt().len() as u64);
    desc.u32(offset_of!(rtabi::ModuleDesc, arch), t.target.arch());
    desc.u32(offset_of!(rtabi::ModuleDesc, flags), if t.imports.pepper() { rtabi::FLAG_PEPPER } else { 0 });
    if let Some(id) = test_id {
        let fr = t.obj.declare_func_in_data(id, &mut d);
        d.write_function_addr(offset_of!(rtabi::ModuleDesc, test_invoke) as u32, fr);
        let gv = t.obj.declare_data_in_data(test_sigs_id, &mut d);
        d.write_data_addr(offset_of!(rtabi::ModuleDesc, test_sigs) as u32, gv, 0);
        desc.u64(offset_of!(rtabi::ModuleDesc, test_sigs_len), test_sigs_len as u64);
    }
    let data_fields: [(usize, DataId); 5] = [
        (offset_of!(rtabi::ModuleDesc, funcs), funcs_id),
        (offset_of!(rtabi::ModuleDesc, names), names_id),
        (offset_of!(rtabi::ModuleDesc, traps), traps_id),
        (offset_of!(rtabi::ModuleDesc, table), cx.table),
        (offset_of!(rtabi::ModuleDesc, segments), segs_id),
    ];
    for (at, id) in data_fields {
        let gv = t.obj.declare_data_in_data(id, &mut d);
        d.write_data_addr(at as u32, gv, 0);
    }
    for (at, id) in [
        (offset_of!(rtabi::ModuleDesc, start), start_id),
        (offset_of!(rtabi::ModuleDesc, thread_start), thread_id),
    ] {
        let fr = t.obj.declare_func_in_data(id, &mut d);
        d.write_function_addr(at as u32, fr);
    }
    d.define(desc.0.into_boxed_slice());
    d.set_align(8);
    t.obj.define_data(module_id, &d).map_err(object_error)?;

    let product = t.obj.finish();
    product.emit().map_err(object_error)
}

/// A read-only data object holding `bytes` (at least 8, so it has an
/// address of its own).
fn blob(obj: &mut cranelift_object::ObjectModule, name: &str, mut bytes: Vec<u8>, align: u64) -> Result<DataId, TranslateError> {
    if bytes.len() < 8 {
        bytes.resize(8, 0);
    }
    let id = obj.declare_data(name, Linkage::Local, false, false).map_err(object_error)?;
    let mut d = DataDescription::new();
    d.define(bytes.into_boxed_slice());
    d.set_align(align);
    obj.define_data(id, &d).map_err(object_error)?;
    Ok(id)
}

/// `i32 __pexe_start(ctx, startinfo)`: calls `_start` and answers its
/// status (its result as a 32-bit integer, 0 for void), or 0 after
/// `thread_exit` left every guest frame.
fn start_trampoline(b: &mut FunctionBuilder, cx: &super::ModuleCx, entry: u32) {
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let ctx = b.block_params(block)[0];
    let startinfo = b.block_params(block)[1];
    let run = b.create_block();
    let exited = b.create_block();
    let buf = b.ins().iadd_imm_s(ctx, i64::from(cx_off::EXIT_JMPBUF));
    let setjmp = import(b, &cx.rt.native_setjmp);
    let call = b.ins().call(setjmp, &[buf]);
    let r = b.inst_results(call)[0];
    b.ins().brif(r, exited, &[], run, &[]);

    b.switch_to_block(run);
    let e = &cx.funcs[entry as usize];
    let Callee::Defined { id, .. } = e.callee else {
        b.ins().trap(user_trap(trap::UNREACHABLE));
        b.switch_to_block(exited);
        let zero = b.ins().iconst(types::I32, 0);
        b.ins().return_(&[zero]);
        return;
    };
    let mut args = vec![ctx];
    let mut gave_startinfo = false;
    for &p in &e.params {
        let ty = func::cl_type(p);
        let v = if ty == types::I32 && !gave_startinfo {
            gave_startinfo = true;
            startinfo
        } else if ty.is_vector() {
            let c = b.func.dfg.constants.insert(vec![0u8; 16].into());
            b.ins().vconst(ty, c)
        } else if ty == types::F32 {
            b.ins().f32const(0.0)
        } else if ty == types::F64 {
            b.ins().f64const(0.0)
        } else {
            b.ins().iconst(ty, 0)
        };
        args.push(v);
    }
    let sig = cx.signature(&e.params, e.ret);
    let fr = import_func(b, id, sig, true);
    let call = b.ins().call(fr, &args);
    let status = match (e.ret, b.inst_results(call).first().copied()) {
        (Some(t), Some(v)) => match func::cl_type(t) {
            types::I32 => v,
            types::I64 => b.ins().ireduce(types::I32, v),
            types::F32 => b.ins().bitcast(types::I32, cl::MemFlagsData::new(), v),
            types::F64 => {
                let bits = b.ins().bitcast(types::I64, cl::MemFlagsData::new(), v);
                b.ins().ireduce(types::I32, bits)
            }
            _ => b.ins().iconst(types::I32, 0),
        },
        _ => b.ins().iconst(types::I32, 0),
    };
    b.ins().return_(&[status]);

    b.switch_to_block(exited);
    let zero = b.ins().iconst(types::I32, 0);
    b.ins().return_(&[zero]);
}

/// `void __pexe_thread_start(ctx, func)`: calls function address `func`
/// as `void ()` (checked like any indirect call), or returns after
/// `thread_exit`.
fn thread_trampoline(b: &mut FunctionBuilder, cx: &super::ModuleCx) {
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let ctx = b.block_params(block)[0];
    let func_addr = b.block_params(block)[1];
    let run = b.create_block();
    let done = b.create_block();
    let buf = b.ins().iadd_imm_s(ctx, i64::from(cx_off::EXIT_JMPBUF));
    let setjmp = import(b, &cx.rt.native_setjmp);
    let call = b.ins().call(setjmp, &[buf]);
    let r = b.inst_results(call)[0];
    b.ins().brif(r, done, &[], run, &[]);

    b.switch_to_block(run);
    let expected = cx.sig_ids.get(&sig_key(&[], None)).copied().unwrap_or(u32::MAX);
    let code = func::table_entry(b, cx, func_addr, expected, &mut None);
    let sig = b.import_signature(cx.signature(&[], None));
    b.ins().call_indirect(sig, code, &[ctx]);
    b.ins().jump(done, &[]);

    b.switch_to_block(done);
    b.ins().return_(&[]);
}

/// `i32 __pexe_test_invoke(ctx, id, args, ret)` (see
/// [`rtabi::ModuleDesc::test_invoke`]) for every defined function with
/// scalar parameters and result; answers the signature list.
fn test_trampoline(b: &mut FunctionBuilder, cx: &super::ModuleCx) -> String {
    let letter = |t: ValType| match func::cl_type(t) {
        types::I32 => Some('i'),
        types::I64 => Some('l'),
        types::F32 => Some('f'),
        types::F64 => Some('d'),
        _ => None,
    };
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let [ctx, id, args, ret] = [0, 1, 2, 3].map(|i| b.block_params(block)[i]);
    let faulted = b.create_block();
    let dispatch = b.create_block();
    let unknown = b.create_block();
    let buf = b.ins().iadd_imm_s(ctx, i64::from(cx_off::EXIT_JMPBUF));
    let setjmp = import(b, &cx.rt.native_setjmp);
    let call = b.ins().call(setjmp, &[buf]);
    let r = b.inst_results(call)[0];
    b.ins().brif(r, faulted, &[], dispatch, &[]);
    b.switch_to_block(faulted);
    let two = b.ins().iconst(types::I32, 2);
    b.ins().return_(&[two]);
    b.switch_to_block(unknown);
    let one = b.ins().iconst(types::I32, 1);
    b.ins().return_(&[one]);

    let mut sigs = String::new();
    let mut cases = Vec::new();
    for (i, e) in cx.funcs.iter().enumerate() {
        let Callee::Defined { id: fid, .. } = e.callee else { continue };
        let params: Option<String> = e.params.iter().map(|&p| letter(p)).collect();
        let result = match e.ret {
            None => Some('v'),
            Some(t) => letter(t),
        };
        let (Some(params), Some(result)) = (params, result) else { continue };
        sigs.push_str(&format!("{i}:{result}:{params}\n"));
        cases.push((i, fid, e.clone()));
    }
    b.switch_to_block(dispatch);
    let mut sw = cranelift_frontend::Switch::new();
    let mut blocks = Vec::new();
    for &(i, _, _) in &cases {
        let blk = b.create_block();
        sw.set_entry(i as u128, blk);
        blocks.push(blk);
    }
    sw.emit(b, id, unknown);
    for ((_, fid, e), blk) in cases.into_iter().zip(blocks) {
        b.switch_to_block(blk);
        let mut a = vec![ctx];
        for (j, &p) in e.params.iter().enumerate() {
            a.push(b.ins().load(func::cl_type(p), cl::MemFlagsData::trusted(), args, 8 * j as i32));
        }
        let fr = import_func(b, fid, cx.signature(&e.params, e.ret), true);
        let call = b.ins().call(fr, &a);
        if let Some(&v) = b.inst_results(call).first() {
            b.ins().store(cl::MemFlagsData::trusted(), v, ret, 0);
        }
        let zero = b.ins().iconst(types::I32, 0);
        b.ins().return_(&[zero]);
    }
    sigs
}

fn import(b: &mut FunctionBuilder, h: &super::Helper) -> cl::FuncRef {
    import_func(b, h.id, h.sig.clone(), false)
}

fn import_func(b: &mut FunctionBuilder, id: FuncId, sig: cl::Signature, colocated: bool) -> cl::FuncRef {
    let signature = b.import_signature(sig);
    let name = b.func.declare_imported_user_function(cl::UserExternalName { namespace: 0, index: id.as_u32() });
    b.import_function(cl::ExtFuncData { name: cl::ExternalName::user(name), signature, colocated, patchable: false })
}
