//! The PNaClAsm column: each record as the decoder understood it.
//!
//! Token by token as pnacl-bcdis writes it, because where a line may wrap
//! (and so what the listing looks like) depends on where its tokens,
//! spaces and clusters are. Raw text (`asm.text`) joins the pending token;
//! `tok`, `space`, `open`, `close`, `start`, `finish` are its directives.

use super::{float, write_u64, Listing};
use crate::bitstream::{
    AbbrevOp, Abbrev, BLOCKINFO_BLOCK_ID, CONSTANTS_BLOCK_ID, FUNCTION_BLOCK_ID, GLOBALVAR_BLOCK_ID, MODULE_BLOCK_ID,
    TYPE_BLOCK_ID, VALUE_SYMTAB_BLOCK_ID,
};
use crate::decode::{Decoded, Decoder};
use crate::ir::{ConstValue, FuncId, FuncType, Initializer, InstKind, Linkage, Scalar, Type, ValType, ValueId};

/// Characters a symbol may have to be printed as a string (char6's set).
fn is_char6(b: u64) -> bool {
    matches!(b as u8, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_') && b < 256
}

impl Listing<'_> {
    /// A record the decoder accepted: its PNaClAsm, its records line, and
    /// what pnacl-bcdis does after it.
    pub(super) fn record(&mut self, pos: u64, abbrev: u32, code: u32, ops: &[u64], decoded: &Decoded, dec: &Decoder) {
        let block = self.block();
        let mut shown_abbrev = abbrev;
        if block == Some(BLOCKINFO_BLOCK_ID) {
            if code == 1 {
                self.setbid(ops.first().copied().unwrap_or(0));
                // pnacl-bcdis shows the record code where the abbreviation
                // index belongs (the bitstream reader handles BLOCKINFO).
                shown_abbrev = 1;
            }
        } else if self.asm.enabled {
            self.record_asm(abbrev, ops, decoded, dec);
        }
        self.write_record(pos, Some(shown_abbrev), std::iter::once(code as u64).chain(ops.iter().copied()));
        match (block, decoded) {
            (Some(GLOBALVAR_BLOCK_ID), _) => {
                match decoded {
                    Decoded::GlobalCount(n) => self.expected_globals = *n,
                    Decoded::Global(_) => {
                        self.num_globals += 1;
                        self.inits_left = 1;
                    }
                    Decoded::Compound(n) => {
                        self.inits_left = *n;
                        self.in_compound = true;
                    }
                    Decoded::Initializer { .. } => self.inits_left = self.inits_left.saturating_sub(1),
                    _ => {}
                }
                if self.num_globals > 0 && self.inits_left == 0 {
                    self.close_initializers();
                }
            }
            (Some(FUNCTION_BLOCK_ID), Decoded::DeclareBlocks(_)) => self.terminated = true,
            (Some(FUNCTION_BLOCK_ID), Decoded::Inst(i)) => {
                self.terminated = dec.function().is_some_and(|f| f.insts[i.0 as usize].kind.is_terminator());
            }
            _ => {}
        }
    }

    /// `valuesymtab:` and the like: which block the next BLOCKINFO
    /// abbreviations are for.
    fn setbid(&mut self, id: u64) {
        let name = match u32::try_from(id) {
            Ok(MODULE_BLOCK_ID) => Some("module"),
            Ok(CONSTANTS_BLOCK_ID) => Some("constants"),
            Ok(FUNCTION_BLOCK_ID) => Some("function"),
            Ok(VALUE_SYMTAB_BLOCK_ID) => Some("valuesymtab"),
            Ok(TYPE_BLOCK_ID) => Some("types"),
            Ok(GLOBALVAR_BLOCK_ID) => Some("globals"),
            _ => None,
        };
        match name {
            Some(n) => self.asm.text(n),
            None => {
                self.asm.text("block");
                self.asm.open("(");
                write_u64(&mut self.asm, id);
                self.asm.close(")");
            }
        }
        self.asm.tok(":");
        self.asm.endline();
    }

    /// After the last initializer of a global: the `}` of a compound, and
    /// the indentation back to the globals block's.
    fn close_initializers(&mut self) {
        if self.in_compound {
            while self.globals_tabs + 1 < self.asm.tabs {
                self.asm.dec();
            }
            self.asm.close("}");
            self.asm.endline();
        }
        while self.globals_tabs < self.asm.tabs {
            self.asm.dec();
        }
        self.flush();
        self.inits_left = 0;
        self.in_compound = false;
    }

    fn record_asm(&mut self, abbrev: u32, ops: &[u64], decoded: &Decoded, dec: &Decoder) {
        match *decoded {
            Decoded::Version(v) => {
                self.keyword_count("version", v);
            }
            Decoded::FunctionDecl(f) => self.function_decl(f, dec),
            Decoded::TypeCount(n) => self.keyword_count("count", n),
            Decoded::Type(t) => {
                self.asm.text("@t");
                self.write_num(t.0);
                self.equals();
                match &dec.module().types[t.0 as usize] {
                    Type::Void => {
                        self.ret_type(None);
                        self.asm.tok(";");
                    }
                    Type::Value(v) => {
                        self.ty(*v);
                        self.asm.tok(";");
                    }
                    Type::Function(ft) => {
                        self.asm.start();
                        self.func_type(ft, None, false);
                        self.asm.tok(";");
                        self.asm.finish();
                    }
                }
            }
            Decoded::GlobalCount(n) => self.keyword_count("count", n),
            Decoded::Global(g) => {
                let var = dec.module().global(g);
                let a = &mut self.asm;
                a.start();
                a.text(if var.is_const { "const" } else { "var" });
                a.space();
                a.text("@g");
                self.write_num(g.0);
                let a = &mut self.asm;
                a.tok(",");
                a.finish();
                a.space();
                a.start();
                a.text("align");
                a.space();
                self.write_num(var.align);
                self.asm.tok(",");
                self.asm.finish();
                self.abbrev_index(abbrev);
                self.asm.endline();
                self.asm.inc();
                return;
            }
            Decoded::Compound(n) => {
                let a = &mut self.asm;
                a.start();
                a.text("initializers");
                a.space();
                self.write_num(n);
                self.asm.finish();
                self.asm.space();
                self.asm.open("{");
                self.abbrev_index(abbrev);
                self.asm.endline();
                self.asm.inc();
                return;
            }
            Decoded::Initializer { global, index } => {
                let init = &dec.module().global(global).init[index];
                self.initializer(init, ops.len() == 2, dec);
            }
            Decoded::ModuleName(v) => {
                let m = dec.module();
                let name = match (m.func_of(v), m.global_of(v)) {
                    (Some(f), _) => m.function(f).name.as_deref(),
                    (_, Some(g)) => m.global(g).name.as_deref(),
                    _ => None,
                };
                self.symbol(abbrev, SymbolId::Value(v), name.unwrap_or(&[]), dec);
                return;
            }
            Decoded::ValueName(i) => {
                if let Some(f) = dec.function() {
                    let (v, name) = &f.value_names[i];
                    self.symbol(abbrev, SymbolId::Value(*v), name, dec);
                }
                return;
            }
            Decoded::BlockName(i) => {
                if let Some(f) = dec.function() {
                    let (b, name) = &f.block_names[i];
                    self.symbol(abbrev, SymbolId::Block(b.0), name, dec);
                }
                return;
            }
            Decoded::ConstType(t) => {
                while self.constants_tabs + 1 < self.asm.tabs {
                    self.asm.dec();
                }
                self.ty(t);
                self.asm.text(":");
                self.abbrev_index(abbrev);
                self.asm.endline();
                self.asm.inc();
                return;
            }
            Decoded::Const(i) => {
                let Some(c) = dec.function().map(|f| f.consts[i as usize]) else { return };
                self.asm.text("%c");
                self.write_num(i);
                self.equals();
                match c.value {
                    ConstValue::Undef => {
                        self.asm.start();
                        self.ty(c.ty);
                        self.asm.space();
                        self.asm.text("undef");
                        self.asm.tok(";");
                        self.asm.finish();
                    }
                    ConstValue::Int(v) => {
                        self.asm.start();
                        self.asm.start();
                        self.ty(c.ty);
                        self.asm.space();
                        self.int_value(v, c.ty);
                        self.asm.tok(";");
                        self.asm.finish();
                        self.asm.finish();
                    }
                    ConstValue::Float(bits) => {
                        self.asm.start();
                        self.ty(c.ty);
                        self.asm.space();
                        let v = if c.ty == ValType::F32 { f32::from_bits(bits as u32) as f64 } else { f64::from_bits(bits) };
                        let _ = float::write_g(&mut self.asm, v);
                        self.asm.tok(";");
                        self.asm.finish();
                    }
                }
            }
            Decoded::DeclareBlocks(n) => {
                self.asm.text("blocks");
                self.asm.space();
                self.write_num(n);
                self.asm.tok(";");
            }
            Decoded::ForwardType(i) => {
                let Some(ft) = dec.function().map(|f| f.forward_types[i]) else { return };
                self.asm.text("declare");
                self.asm.space();
                self.asm.start();
                self.ty(ft.ty);
                self.asm.space();
                self.value(ft.value, dec);
                self.asm.tok(";");
                self.asm.finish();
            }
            Decoded::Inst(i) => self.inst(i.0 as usize, dec),
            _ => return,
        }
        self.abbrev_index(abbrev);
        self.asm.endline();
    }

    /// `version 1;`, `count 4;`: a keyword and a number.
    fn keyword_count(&mut self, keyword: &str, n: u64) {
        self.asm.text(keyword);
        self.asm.space();
        self.write_num(n);
        self.asm.tok(";");
    }

    /// ` = `, between a defined id and its definition.
    fn equals(&mut self) {
        self.asm.space();
        self.asm.text("=");
        self.asm.space();
    }

    fn function_decl(&mut self, f: FuncId, dec: &Decoder) {
        let d = dec.module().function(f);
        let a = &mut self.asm;
        a.start();
        a.text(if d.is_proto { "declare" } else { "define" });
        match d.linkage {
            Linkage::External => {
                a.space();
                a.text("external");
            }
            Linkage::Internal => {
                a.space();
                a.text("internal");
            }
            // pnacl-bcdis names only the linkages PNaCl can decode.
            Linkage::Other(_) => {}
        }
        a.finish();
        a.space();
        a.start();
        self.func_type(&d.sig, Some(f.0), false);
        self.asm.tok(";");
        self.asm.finish();
    }

    /// The first line of a function block: its signature with parameter names.
    pub(super) fn function_header(&mut self, f: FuncId, dec: &Decoder) {
        let sig = &dec.module().function(f).sig;
        self.asm.text("function");
        self.asm.space();
        self.func_type(sig, Some(f.0), true);
        self.asm.space();
        self.block_comment(FUNCTION_BLOCK_ID);
    }

    /// A type, as pnacl-bcdis tokenizes it: a scalar is raw text (it joins
    /// what follows, as in `i32*`), a vector a cluster `<N x T>`.
    fn ty(&mut self, t: ValType) {
        let a = &mut self.asm;
        a.boundary();
        match t {
            ValType::Scalar(s) => a.text(scalar_name(s)),
            ValType::Vector { elem, lanes } => {
                a.start();
                a.open("<");
                write_u64(a, lanes as u64);
                a.space();
                a.text("x");
                a.space();
                a.boundary();
                a.text(scalar_name(elem));
                a.close(">");
                a.finish();
            }
        }
    }

    /// A return type: `void` for none.
    fn ret_type(&mut self, t: Option<ValType>) {
        match t {
            Some(t) => self.ty(t),
            None => {
                self.asm.boundary();
                self.asm.text("void");
            }
        }
    }

    /// A function type, optionally named (`i32 @f0(i32)`) and with
    /// parameter names (`i32 @f0(i32 %p0)`).
    fn func_type(&mut self, ft: &FuncType, name: Option<u32>, params: bool) {
        self.asm.boundary();
        self.asm.start();
        self.ret_type(ft.ret);
        self.asm.space();
        self.asm.start();
        let n = ft.params.len();
        if n > 0 {
            self.asm.start();
        }
        if let Some(f) = name {
            self.asm.text("@f");
            self.write_num(f);
        }
        self.asm.open("(");
        self.asm.finish();
        let mut in_param = false;
        for (i, &p) in ft.params.iter().enumerate() {
            if i > 0 {
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
            }
            self.asm.start();
            self.ty(p);
            if params {
                self.asm.space();
                self.asm.text("%p");
                self.write_num(i as u64);
            }
            in_param = true;
        }
        if ft.varargs {
            if in_param {
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
            }
            self.asm.start();
            self.asm.text("...");
            in_param = true;
        }
        if in_param {
            self.asm.finish();
        }
        self.asm.close(")");
        self.asm.finish();
        if n > 0 {
            self.asm.finish();
        }
    }

    /// ` <@a2>`: the abbreviation a record was written with, if not a
    /// default one.
    fn abbrev_index(&mut self, abbrev: u32) {
        self.asm.boundary();
        if abbrev < 4 {
            return;
        }
        let globals = self.blocks.last().map_or(0, |f| f.global_abbrevs);
        let mut index = abbrev - 4;
        let global = index < globals;
        if !global {
            index -= globals;
        }
        let a = &mut self.asm;
        a.space();
        a.start();
        a.open("<");
        a.text(if global { "@a" } else { "%a" });
        self.write_num(index);
        self.asm.close(">");
        self.asm.finish();
    }

    /// ` = abbrev <…>;` after the abbreviation's id.
    pub(super) fn abbrev_definition(&mut self, abbrev: &Abbrev) {
        self.equals();
        self.asm.text("abbrev");
        self.asm.space();
        self.asm.boundary();
        self.asm.start();
        self.asm.open("<");
        let ops = abbrev.ops();
        let mut i = 0;
        while i < ops.len() {
            if i > 0 {
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
            }
            i = self.abbrev_expr(ops, i);
        }
        self.asm.close(">");
        self.asm.finish();
        self.asm.tok(";");
        self.asm.endline();
    }

    /// One abbreviation operand (an array with its element); returns the
    /// index of the next one.
    fn abbrev_expr(&mut self, ops: &[AbbrevOp], i: usize) -> usize {
        let a = &mut self.asm;
        match ops[i] {
            // The bitstream reader turns zero-width fields into literal zeros.
            AbbrevOp::Literal(v) => write_u64(a, v),
            AbbrevOp::Fixed(0) | AbbrevOp::Vbr(0) => a.text("0"),
            AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => {
                a.start();
                a.text(if matches!(ops[i], AbbrevOp::Fixed(_)) { "fixed" } else { "vbr" });
                a.open("(");
                write_u64(a, w as u64);
                a.close(")");
                a.finish();
            }
            AbbrevOp::Char6 => a.text("char6"),
            AbbrevOp::Array => {
                a.text("array");
                if i + 1 < ops.len() {
                    a.start();
                    a.open("(");
                    let next = self.abbrev_expr(ops, i + 1);
                    self.asm.close(")");
                    self.asm.finish();
                    return next;
                }
            }
        }
        i + 1
    }

    /// An integer as pnacl-bcdis shows a sign-rotated value: `i1` values
    /// are 0 or 1, others signed.
    fn int_value(&mut self, v: i64, ty: ValType) {
        if ty.elem() == Scalar::I1 {
            self.write_num((v & 1) as u64);
        } else if v < 0 {
            self.asm.text("-");
            self.write_num(v.unsigned_abs());
        } else {
            self.write_num(v as u64);
        }
    }

    /// The name of value `v`: function, global, parameter, constant or
    /// instruction result, counted the way pnacl-bcdis counts them (globals
    /// by the count record).
    fn value(&mut self, v: ValueId, dec: &Decoder) {
        let funcs = dec.module().functions.len() as u64;
        let mut x = v.0 as u64;
        let (prefix, kind) = if x < funcs {
            ("@f", x)
        } else {
            x -= funcs;
            if x < self.expected_globals {
                ("@g", x)
            } else {
                x -= self.expected_globals;
                let (params, consts) = dec.function().map_or((0, 0), |f| (f.params.len() as u64, f.consts.len() as u64));
                if x < params {
                    ("%p", x)
                } else if x - params < consts {
                    ("%c", x - params)
                } else {
                    ("%v", x - params - consts)
                }
            }
        };
        self.asm.text(prefix);
        self.write_num(kind);
    }

    /// The type of value `v` (`void` if the decoder does not know it, as
    /// pnacl-bcdis prints unknown types).
    fn value_ty(&mut self, v: ValueId, dec: &Decoder) {
        self.ret_type(dec.value_type(v));
    }

    /// `T V`: a typed operand.
    fn typed(&mut self, v: ValueId, dec: &Decoder) {
        self.value_ty(v, dec);
        self.asm.space();
        self.value(v, dec);
    }

    fn block_label(&mut self, keyword: &str, b: u32) {
        self.asm.text(keyword);
        self.asm.space();
        self.asm.text("%b");
        self.write_num(b);
    }

    fn initializer(&mut self, init: &Initializer, has_addend: bool, dec: &Decoder) {
        match *init {
            Initializer::ZeroFill(n) => self.keyword_count("zerofill", n),
            Initializer::Data(_) => {
                let bytes = init.data(dec.module()).unwrap_or_default();
                self.asm.start();
                self.asm.open("{");
                for (i, &b) in bytes.iter().enumerate() {
                    if i > 0 {
                        self.asm.tok(",");
                        self.asm.finish();
                        self.asm.space();
                        self.asm.start();
                    }
                    self.padded3(b as u64);
                }
                self.asm.close("}");
                self.asm.finish();
            }
            Initializer::Reloc { target, addend } => {
                self.asm.text("reloc");
                self.asm.space();
                self.asm.start();
                self.value(target, dec);
                if has_addend {
                    // Written as a 32-bit two's complement value.
                    let x = addend as i32;
                    let (op, x) = if x < 0 { ("-", x.wrapping_neg()) } else { ("+", x) };
                    self.asm.space();
                    self.asm.text(op);
                    self.asm.space();
                    if x < 0 {
                        self.asm.text("-");
                    }
                    self.write_num(x.unsigned_abs());
                }
                self.asm.tok(";");
                self.asm.finish();
            }
        }
    }

    /// `%3u`: a number right-aligned in three columns.
    fn padded3(&mut self, v: u64) {
        if v < 10 {
            self.asm.text("  ");
        } else if v < 100 {
            self.asm.text(" ");
        }
        self.write_num(v);
    }

    /// A value symbol table entry: `@f0 : "_start";`, or the bytes of a
    /// name that is not all letters, digits, `.` and `_`.
    fn symbol(&mut self, abbrev: u32, id: SymbolId, name: &[u8], dec: &Decoder) {
        if name.is_empty() {
            // pnacl-bcdis reports the empty name and prints nothing.
            return;
        }
        match id {
            SymbolId::Value(v) => self.value(v, dec),
            SymbolId::Block(b) => {
                self.asm.text("%b");
                self.write_num(b);
            }
        }
        self.asm.space();
        self.asm.tok(":");
        self.asm.space();
        if name.iter().all(|&b| is_char6(b as u64)) {
            self.asm.start();
            self.asm.text("\"");
            // All char6, hence ASCII.
            self.asm.text(std::str::from_utf8(name).unwrap_or(""));
            self.asm.text("\"");
            self.asm.tok(";");
        } else {
            self.asm.start();
            self.asm.open("{");
            for (i, &b) in name.iter().enumerate() {
                if i > 0 {
                    self.asm.tok(",");
                    self.asm.finish();
                    self.asm.space();
                    self.asm.start();
                }
                if is_char6(b as u64) {
                    let quoted = [b'\'', b, b'\''];
                    self.asm.text(std::str::from_utf8(&quoted).unwrap_or(""));
                } else {
                    // pnacl-bcdis goes through a signed char: bytes above
                    // 127 print as their 32-bit two's complement.
                    self.padded3(b as i8 as i32 as u32 as u64);
                }
            }
            self.asm.close("}");
        }
        self.asm.finish();
        self.abbrev_index(abbrev);
        self.asm.endline();
    }

    /// An instruction (its abbreviation and end of line are added by the caller).
    fn inst(&mut self, i: usize, dec: &Decoder) {
        let Some(f) = dec.function() else { return };
        let inst = &f.insts[i];
        let result = inst.result.map(|(v, _)| v);
        let def = |this: &mut Self, eq: &str| {
            if let Some(v) = result {
                this.value(v, dec);
                this.asm.space();
                this.asm.text(eq);
            }
        };
        // pnacl-bcdis spaces the vector instructions' `=` twice as wide.
        let spaced_equals = |this: &mut Self, result: Option<ValueId>| {
            if let Some(v) = result {
                this.value(v, dec);
            }
            this.asm.space();
            this.asm.text(" = ");
            this.asm.space();
        };
        match inst.kind {
            InstKind::Binop { op, lhs, rhs, .. } => {
                def(self, "=");
                self.asm.space();
                let is_float = dec.value_type(lhs).is_some_and(|t| t.is_float_or_float_vector());
                self.asm.text(op.name(is_float));
                self.asm.space();
                self.value_ty(lhs, dec);
                self.asm.space();
                self.value(lhs, dec);
                self.asm.tok(",");
                self.asm.space();
                self.value(rhs, dec);
                self.asm.tok(";");
            }
            InstKind::Cast { op, value, to } => {
                def(self, "=");
                self.asm.space();
                self.asm.text(op.name());
                self.asm.space();
                self.typed(value, dec);
                self.asm.space();
                self.asm.text("to");
                self.asm.space();
                self.ty(to);
                self.asm.tok(";");
            }
            InstKind::Ret { value } => {
                self.asm.text("ret");
                self.asm.space();
                match value {
                    None => self.asm.text("void"),
                    Some(v) => self.typed(v, dec),
                }
                self.asm.tok(";");
            }
            InstKind::Br { target } => {
                self.asm.text("br");
                self.asm.space();
                self.asm.start();
                self.block_label("label", target.0);
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::CondBr { cond, if_true, if_false } => {
                self.asm.text("br");
                self.asm.space();
                self.asm.start();
                self.typed(cond, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.block_label("label", if_true.0);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.block_label("label", if_false.0);
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::Switch { ty, cond, default, ref cases } => {
                self.asm.text("switch");
                self.asm.space();
                self.asm.start();
                self.asm.start();
                self.ty(ty);
                self.asm.space();
                self.value(cond, dec);
                self.asm.finish();
                self.asm.space();
                self.asm.text("{");
                self.asm.finish();
                self.asm.endline();
                self.asm.inc();
                self.asm.start();
                self.asm.text("default:");
                self.asm.space();
                self.asm.finish();
                self.asm.start();
                self.asm.text("br");
                self.asm.space();
                self.block_label("label", default.0);
                self.asm.tok(";");
                self.asm.finish();
                self.asm.endline();
                for case in f.cases(*cases) {
                    self.asm.start();
                    self.ty(ty);
                    self.asm.space();
                    self.int_value(case.value, ty);
                    self.asm.text(":");
                    self.asm.space();
                    self.asm.finish();
                    self.asm.start();
                    self.asm.text("br");
                    self.asm.space();
                    self.block_label("label", case.target.0);
                    self.asm.tok(";");
                    self.asm.finish();
                    self.asm.endline();
                }
                self.asm.dec();
                self.asm.text("}");
            }
            InstKind::Unreachable => {
                self.asm.text("unreachable");
                self.asm.tok(";");
            }
            InstKind::Phi { ty, ref incoming } => {
                def(self, "=");
                self.asm.start();
                self.asm.space();
                self.asm.text("phi");
                self.asm.space();
                self.ty(ty);
                for (i, &(v, b)) in f.incoming(*incoming).iter().enumerate() {
                    if i > 0 {
                        self.asm.tok(",");
                    }
                    self.asm.finish();
                    self.asm.space();
                    self.asm.start();
                    self.asm.open("[");
                    self.value(v, dec);
                    self.asm.tok(",");
                    self.asm.space();
                    self.asm.text("%b");
                    self.write_num(b.0);
                    self.asm.close("]");
                }
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::Alloca { size, align } => {
                def(self, "=");
                self.asm.space();
                self.asm.start();
                self.asm.text("alloca");
                self.asm.space();
                self.asm.text("i8");
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(size, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.align(align);
            }
            InstKind::Load { ptr, ty, align } => {
                def(self, "=");
                self.asm.space();
                self.asm.start();
                self.asm.text("load");
                self.asm.space();
                self.ty(ty);
                self.asm.text("*");
                self.asm.space();
                self.value(ptr, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.align(align);
            }
            InstKind::Store { ptr, value, align } => {
                self.asm.start();
                self.asm.text("store");
                self.asm.space();
                self.typed(value, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.value_ty(value, dec);
                self.asm.text("*");
                self.asm.space();
                self.value(ptr, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.align(align);
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                def(self, "=");
                self.asm.space();
                self.asm.start();
                self.asm.text(if pred.is_float() { "fcmp" } else { "icmp" });
                self.asm.space();
                self.asm.text(pred.name());
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(lhs, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.value(rhs, dec);
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::Select { cond, if_true, if_false } => {
                def(self, "=");
                self.asm.space();
                self.asm.start();
                self.asm.text("select");
                self.asm.space();
                self.typed(cond, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(if_true, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(if_false, dec);
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::ExtractElement { vector, index } => {
                spaced_equals(self, result);
                self.asm.start();
                self.asm.text("extractelement");
                self.asm.space();
                self.typed(vector, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(index, dec);
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::InsertElement { vector, element, index } => {
                spaced_equals(self, result);
                self.asm.start();
                self.asm.text("insertelement");
                self.asm.space();
                self.typed(vector, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(element, dec);
                self.asm.tok(",");
                self.asm.finish();
                self.asm.space();
                self.asm.start();
                self.typed(index, dec);
                self.asm.tok(";");
                self.asm.finish();
            }
            InstKind::Call { callee, ref args, ret, tail, .. }
            | InstKind::CallIndirect { callee, ref args, ret, tail, .. } => {
                if ret.is_some() {
                    def(self, "=");
                    self.asm.space();
                }
                if tail {
                    self.asm.text("tail");
                    self.asm.space();
                }
                self.asm.text("call");
                self.asm.space();
                self.ret_type(ret);
                self.asm.space();
                self.asm.start();
                self.value(callee, dec);
                self.asm.open("(");
                self.asm.start();
                for (i, &arg) in f.args(*args).iter().enumerate() {
                    if i > 0 {
                        self.asm.tok(",");
                        self.asm.finish();
                        self.asm.space();
                        self.asm.start();
                    }
                    self.typed(arg, dec);
                }
                self.asm.close(")");
                self.asm.tok(";");
                self.asm.finish();
                self.asm.finish();
            }
        }
    }

    /// `align N;` as the last cluster of a memory instruction.
    fn align(&mut self, align: u32) {
        self.asm.start();
        self.asm.text("align");
        self.asm.space();
        self.write_num(align);
        self.asm.tok(";");
        self.asm.finish();
    }
}

/// What a symbol table entry names.
#[derive(Clone, Copy)]
enum SymbolId {
    Value(ValueId),
    Block(u32),
}

fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::I1 => "i1",
        Scalar::I8 => "i8",
        Scalar::I16 => "i16",
        Scalar::I32 => "i32",
        Scalar::I64 => "i64",
        Scalar::F32 => "float",
        Scalar::F64 => "double",
    }
}
