use super::*;

#[test]
fn the_table_equals_the_parsed_declarations() {
    let parsed = Abi::parse(IRT_SOURCE, PPAPI_SOURCE).unwrap_or_else(|e| panic!("{e}"));
    assert!(parsed.interfaces.len() > 10);
    assert_eq!(format!("{:?}", abi()), format!("{parsed:?}"));
}

#[test]
fn every_type_and_availability_survives_the_table() {
    let abi = Abi::parse(
        "interface nacl-irt-x-0.1\nint64_t f(unsigned char c, float x, double d)",
        "interface @callbacks\nvoid My_Func(void* p)\ninterface PPB_X;1.0 page\n\
         struct PP_Var Set(My_Func f, const char* argv[], uint16_t u)\ninterface PPB_Y;1.0 nowhere\nvoid G(void)",
    )
    .unwrap();
    let text = table::encode(&abi);
    assert_eq!(format!("{:?}", table::decode(&text)), format!("{abi:?}"));
}

#[test]
fn the_imports_equal_the_lists_lowered() {
    for pepper in [false, true] {
        let list = imports(pepper);
        let lean: Vec<_> =
            list.functions.iter().map(|f| (f.key, f.name, f.family, list.params(f).to_vec(), f.result)).collect();
        let ppb = abi().ppb_imports().filter(|_| pepper);
        let whole: Vec<_> = abi()
            .irt_imports()
            .chain(ppb)
            .map(|f| {
                let l = f.lower();
                (f.key.as_str(), f.name.as_str(), f.family, l.params, l.results.first().copied())
            })
            .collect();
        assert_eq!(lean, whole);
    }
    assert!(imports(true).functions.len() > imports(false).functions.len());
}

#[test]
fn irt_imports_keep_the_abi_order() {
    let names: Vec<&str> = abi().irt_imports().map(|f| f.name.as_str()).collect();
    assert_eq!(names.len(), 52);
    assert_eq!(names[0], "query");
    assert_eq!(names[12], "seek");
    assert_eq!(names[37], "mmap");
    assert_eq!(names[51], "ppapi_register_thread_creator");
    let seek = abi().function("seek").unwrap().lower();
    assert_eq!(seek.params, [ValKind::I32, ValKind::I64, ValKind::I32, ValKind::I32]);
    assert_eq!(seek.results, [ValKind::I32]);
    let fdio = abi().interface("nacl-irt-dev-fdio-0.3").unwrap();
    assert_eq!(fdio.functions.len(), 14);
    assert_eq!(abi().functions[fdio.functions[0]].name, "close");
}

#[test]
fn pepper_convention_passes_structs_by_pointer_and_returns_them_through_sret() {
    let abi = abi();
    let from_utf8 = abi.function("PPB_Var;1.1:VarFromUtf8").unwrap().lower();
    assert!(from_utf8.sret);
    assert_eq!(from_utf8.params, [ValKind::I32, ValKind::I32, ValKind::I32]);
    assert!(from_utf8.results.is_empty());
    let call = abi.function("PPB_Core;1.0:CallOnMainThread").unwrap().lower();
    assert_eq!(call.params, [ValKind::I32, ValKind::I32, ValKind::I32]);
    let time = abi.function("PPB_Core;1.0:GetTime").unwrap().lower();
    assert_eq!(time.results, [ValKind::F64]);
}

#[test]
fn identical_members_of_later_versions_are_one_function() {
    let abi = abi();
    let v11 = abi.interface("PPB_Var;1.1").unwrap();
    let v12 = abi.interface("PPB_Var;1.2").unwrap();
    assert_eq!(v11.functions[..4], v12.functions[..4]);
    assert_eq!(abi.functions[v12.functions[0]].key, "PPB_Var;1.0:AddRef");
    // VarFromUtf8 changed its parameters in 1.1: two functions.
    let v10 = abi.interface("PPB_Var;1.0").unwrap();
    assert_ne!(v10.functions[2], v11.functions[2]);
}

#[test]
fn keys_are_unique_and_families_are_grouped() {
    let abi = abi();
    let mut keys: Vec<&str> = abi.functions.iter().map(|f| f.key.as_str()).collect();
    keys.sort_unstable();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n);
    let ranks: Vec<u8> = abi.functions.iter().map(|f| f.family as u8).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "IRT, then PPB, then PPP");
}

fn parse_err(irt: &str, ppapi: &str) -> String {
    Abi::parse(irt, ppapi).unwrap_err().to_string()
}

#[test]
fn malformed_declarations_are_rejected_with_their_line() {
    assert_eq!(parse_err("int f(int x)", ""), "irt.h:1: declaration outside an interface");
    assert_eq!(
        parse_err("interface nacl-irt-x-0.1\nint f(mystery_t x)", ""),
        "irt.h:2: unknown type \"mystery_t\" (add it to src/abi/ctype.rs or @callbacks)"
    );
    assert_eq!(parse_err("interface nacl-irt-x-0.1\n", ""), "irt.h:1: interface nacl-irt-x-0.1 has no members");
    assert_eq!(
        parse_err("interface nacl-irt-x-0.1\nint f(int a)\ninterface nacl-irt-y-0.1\nint f(long a, int b)", ""),
        "irt.h:4: f differs from its declaration \"int f(int a)\""
    );
    assert_eq!(
        parse_err("", "interface PPB_X;1.0\nvoid F(void (*cb)(int), int a)"),
        "ppapi.h:2: write function-pointer parameters with a typedef from @callbacks"
    );
    assert_eq!(parse_err("", "interface Foo;1.0\nvoid F(void)"), "ppapi.h:1: interface Foo;1.0 in the wrong file");
}

#[test]
fn callbacks_declare_function_pointer_types() {
    let abi = Abi::parse(
        "interface nacl-irt-x-0.1\nint f(int a)",
        "interface @callbacks\nvoid My_Func(void* p)\ninterface PPB_X;1.0\nvoid Set(My_Func f, const char* argv[])",
    )
    .unwrap();
    let set = abi.function("PPB_X;1.0:Set").unwrap();
    assert_eq!(set.params[0].ty, CType::FuncPtr { name: "My_Func".into() });
    assert!(matches!(set.params[1].ty, CType::Pointer { .. }));
}
