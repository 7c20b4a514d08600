//! Reading an export's options argument (shared by the translator module,
//! `src/web.rs`, and the printer module, `src/web_wat.rs`).

use super::error::options_error;
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

/// An options argument: `undefined`/`null` (defaults) or an object.
pub fn options_object(options: &JsValue, what: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        Ok(None)
    } else if options.is_object() {
        Ok(Some(options.clone()))
    } else {
        Err(options_error(&format!("{what} options must be an object")))
    }
}

/// `options[key]`, `None` when absent or undefined.
pub fn option(options: &Option<JsValue>, key: &str) -> Result<Option<JsValue>, JsValue> {
    let Some(o) = options else { return Ok(None) };
    let v = Reflect::get(o, &JsValue::from_str(key))?;
    Ok((!v.is_undefined()).then_some(v))
}
