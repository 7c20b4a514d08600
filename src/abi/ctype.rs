//! C types of the declarations, and the typedef names they may use.

use std::fmt;

/// A value as a calling convention passes it (the wasm value types; the
/// native back end maps them to registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValKind {
    I32,
    I64,
    F32,
    F64,
}

impl ValKind {
    /// One letter: `i`, `l`, `f`, `d`.
    pub fn letter(self) -> char {
        match self {
            ValKind::I32 => 'i',
            ValKind::I64 => 'l',
            ValKind::F32 => 'f',
            ValKind::F64 => 'd',
        }
    }
}

/// A C type, as much of it as a calling convention and a trace need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CType {
    Void,
    /// An integer (enums and `PP_Bool` included) of `bits` ≤ 64.
    Int { bits: u8, signed: bool, name: String },
    Float { name: String },
    Double { name: String },
    /// A data pointer; `pointee` is the type's text without the last `*`
    /// (`const char`, `struct PP_Var`), `cstring` when it is `char` data.
    Pointer { pointee: String, cstring: bool },
    /// A function pointer, by its typedef name (declared in `@callbacks`
    /// when the runtime may call it).
    FuncPtr { name: String },
    /// A struct or union by value (`struct PP_Var`).
    Struct(String),
}

impl CType {
    /// How the value travels, `None` for `void` and by-value structs.
    pub fn val_kind(&self) -> Option<ValKind> {
        match self {
            CType::Void | CType::Struct(_) => None,
            CType::Int { bits: 64, .. } => Some(ValKind::I64),
            CType::Int { .. } | CType::Pointer { .. } | CType::FuncPtr { .. } => Some(ValKind::I32),
            CType::Float { .. } => Some(ValKind::F32),
            CType::Double { .. } => Some(ValKind::F64),
        }
    }
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CType::Void => f.write_str("void"),
            CType::Int { name, .. } | CType::Float { name } | CType::Double { name } => f.write_str(name),
            CType::Pointer { pointee, .. } => write!(f, "{pointee}*"),
            CType::FuncPtr { name } => f.write_str(name),
            CType::Struct(name) => write!(f, "struct {name}"),
        }
    }
}

/// What a typedef (or builtin) name means.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Named {
    Int(u8, bool),
    Float,
    Double,
    FuncPtr,
}

/// Builtin and typedef names the declarations may use. Enums are 32-bit
/// ints (le32); `PP_*` names not listed here are rejected, so every type
/// the files use is accounted for. Function-pointer typedefs are the
/// members of the `@callbacks` group (the parser adds them).
pub(crate) fn named(name: &str) -> Option<Named> {
    use Named::*;
    Some(match name {
        "char" | "int8_t" | "GLbyte" | "GLchar" => Int(8, true),
        "uint8_t" | "GLubyte" | "GLboolean" => Int(8, false),
        "int16_t" | "short" | "GLshort" => Int(16, true),
        "uint16_t" | "GLushort" => Int(16, false),
        "int" | "int32_t" | "long" | "ssize_t" | "GLint" | "GLsizei" | "GLfixed" | "GLclampx" | "GLintptr"
        | "GLsizeiptr" => Int(32, true),
        "unsigned" | "uint32_t" | "size_t" | "uintptr_t" | "mode_t" | "nacl_irt_clockid_t" | "nacl_abi_clock_t"
        | "GLenum" | "GLuint" | "GLbitfield" => Int(32, false),
        "int64_t" | "nacl_irt_off_t" => Int(64, true),
        "uint64_t" => Int(64, false),
        "float" | "GLfloat" | "GLclampf" => Float,
        "double" | "PP_Time" | "PP_TimeTicks" | "PP_TimeDelta" => Double,
        // Handles and enums of ppapi/c (all int32_t or 32-bit enums).
        "PP_Bool" | "PP_Instance" | "PP_Module" | "PP_Resource" | "PP_Var_Type" | "PP_VarType" => Int(32, true),
        n if n.starts_with("PP_") && is_pp_enum(n) => Int(32, true),
        // The browser's lookup function, handed to PPP_InitializeModule.
        "PPB_GetInterface" => FuncPtr,
        _ => return None,
    })
}

/// `PP_*` enum typedefs used by value in ppapi/c (all 32-bit under le32).
fn is_pp_enum(name: &str) -> bool {
    const ENUMS: &[&str] = &[
        "PP_AudioSampleRate",
        "PP_AudioProfile",
        "PP_BlendMode",
        "PP_FileOpenFlags",
        "PP_FileSystemType",
        "PP_FileType",
        "PP_Graphics3DAttrib",
        "PP_HardwareAcceleration",
        "PP_HostResolver_Flag",
        "PP_ImageDataFormat",
        "PP_InputEvent_Class",
        "PP_InputEvent_Modifier",
        "PP_InputEvent_MouseButton",
        "PP_InputEvent_Type",
        "PP_LogLevel",
        "PP_MouseCursor_Type",
        "PP_NetAddress_Family",
        "PP_TCPSocket_Option",
        "PP_TextInput_Type",
        "PP_TouchListType",
        "PP_UDPSocket_Option",
        "PP_URLRequestProperty",
        "PP_URLResponseProperty",
        "PP_VideoProfile",
        "PP_VideoDecodeError_Dev",
        "PP_WebSocketCloseCode",
        "PP_WebSocketReadyState",
        "PP_Flash_BrowserOperations_Permission",
    ];
    ENUMS.contains(&name)
}
