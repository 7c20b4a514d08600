//! Panics reach JS as exceptions that carry their Rust message (shared by
//! the package's three modules: the translator, `src/web.rs`, the WAT
//! printer, `src/web_wat.rs`, and the native translator, `src/web_native.rs`).

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The message of the last panic, until `takePanicMessage` takes it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the panic hook (once). Every exported function calls this
/// first: a `#[wasm_bindgen(start)]` function would also run inside the
/// wasm-bindgen-test harness, which installs its own.
pub fn init() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            // Keep the message first: the console hook is only for people.
            let message = info.to_string();
            LAST_PANIC.with(|p| {
                if let Ok(mut p) = p.try_borrow_mut() {
                    *p = Some(message);
                }
            });
            console_error_panic_hook::hook(info);
        }));
    });
}

/// The message of the last Rust panic (`"panicked at src/…: message"`), once.
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
}
