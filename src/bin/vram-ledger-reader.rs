//! The page's reader worker (Trunk builds it beside the app: index.html's `data-type="worker"`
//! link). The app starts it only when a user brings something to read — a trace file, a
//! config.json, a pasted OOM log — so the readers (the pickle and timeline readers, flate2, the
//! config importer, the paste reader) are not in the first download, and a 100 MB snapshot is read
//! while the page stays responsive. The protocol is `vram_ledger::readers`.

#[cfg(target_arch = "wasm32")]
fn main() {
    use vram_ledger::readers;
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};
    vram_ledger::i18n::load_on_demand_texts();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let answer = scope.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let post = |text: String| {
            let _ = answer.post_message(&JsValue::from_str(&text));
        };
        let job = js_sys::Array::from(&e.data());
        let payload = job.get(1);
        let reply = match job.get(0).as_string().as_deref() {
            Some("config") => readers::config(&payload.as_string().unwrap_or_default()),
            Some("report") => readers::report(&payload.as_string().unwrap_or_default()),
            // "paste-end": the page sent only the end of a longer paste.
            Some(kind @ ("paste" | "paste-end")) => {
                readers::paste(&payload.as_string().unwrap_or_default(), kind == "paste-end")
            }
            Some("typed") => readers::typed(&payload.as_string().unwrap_or_default()),
            Some("diagnose") => readers::diagnosis(&payload.as_string().unwrap_or_default()),
            Some("selftest") => readers::selftest(&payload.as_string().unwrap_or_default()),
            Some("grid") => readers::grid(&payload.as_string().unwrap_or_default()),
            _ => {
                let result = payload_bytes(payload).and_then(|bytes| {
                    vram_ledger::validation::trace::read_file(&bytes, &mut |s| post(readers::progress(s)))
                });
                readers::trace(&result, core::arch::wasm32::memory_size(0) as u64 * 65_536)
            }
        };
        post(reply);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Ready: the page posts its job after this (a message sent before the handler is set is lost).
    let _ = scope.post_message(&JsValue::from_str(&readers::ready()));
}

/// A trace as bytes: a dropped File (read here, synchronously, as workers may), a pasted string,
/// or an ArrayBuffer.
#[cfg(target_arch = "wasm32")]
fn payload_bytes(data: wasm_bindgen::JsValue) -> Result<Vec<u8>, vram_ledger::ledger::msg::Msg> {
    use vram_ledger::ledger::msg::Arg;
    use vram_ledger::msg;
    use vram_ledger::validation::trace::MAX_TRACE_BYTES;
    use wasm_bindgen::JsCast;
    if let Some(text) = data.as_string() {
        return Ok(text.into_bytes());
    }
    let buffer = match data.dyn_into::<web_sys::Blob>() {
        Ok(blob) => {
            if blob.size() > MAX_TRACE_BYTES as f64 {
                return Err(msg!(TraceTooLarge, Arg::Bytes(blob.size()), Arg::Bytes(MAX_TRACE_BYTES as f64)));
            }
            let reader = web_sys::FileReaderSync::new().map_err(|_| msg!(TraceEmpty))?;
            reader.read_as_array_buffer(&blob).map_err(|_| msg!(TracePickleTruncated))?
        }
        Err(other) => other.dyn_into::<js_sys::ArrayBuffer>().map_err(|_| msg!(TraceEmpty))?,
    };
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("vram-ledger-reader is the web app's reader worker (wasm32); natively, run `vram-ledger --trace FILE`, `--config FILE` or `--diagnose FILE`.");
}
