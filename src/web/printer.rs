//! Printing one function of a small module made by `wat::function_module`
//! (wasmprinter): in the test build of `web`, and in the package's WAT
//! printer module (`src/web_wat.rs`), which includes this file.

/// The text of function `index` of `module` (every other body is a stub).
pub fn print_function(module: &[u8], index: u32) -> Result<String, String> {
    let text = wasmprinter::print_bytes(module).map_err(|e| e.to_string())?;
    cut_function(&text, index).ok_or_else(|| format!("function {index} not found in the printed module"))
}

/// The `(func ...)` of function `index` in printed module text, without its
/// two spaces of module indentation.
fn cut_function(text: &str, index: u32) -> Option<String> {
    let tag = format!("(;{index};)");
    let mut lines = text.lines();
    let header = lines.by_ref().find(|l| l.starts_with("  (func ") && l.contains(&tag))?;
    let mut out = String::new();
    out.push_str(&header[2..]);
    out.push('\n');
    for line in lines {
        if !line.starts_with("    ") && line != "  )" {
            // A one-line function: the header closed it.
            break;
        }
        out.push_str(line.strip_prefix("  ").unwrap_or(line));
        out.push('\n');
        if line == "  )" {
            break;
        }
    }
    Some(out)
}
