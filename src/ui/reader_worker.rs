//! The page's side of the reader worker (`crate::readers`): a job is a kind and a payload; a
//! worker is started for it (the browser caches its files after the first), told the job once it
//! says it is ready, and ended when it has answered. One job of each kind at a time: a new one
//! ends the one before.

use std::cell::RefCell;

use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{MessageEvent, Worker};

use crate::readers::{decode, Answer};

/// Trunk's loader shim for the `vram-ledger-reader` worker, beside index.html.
const WORKER_URL: &str = "./vram-ledger-reader_loader.js";

type Job = (&'static str, Worker, Closure<dyn FnMut(MessageEvent)>);

thread_local! {
    static RUNNING: RefCell<Vec<Job>> = const { RefCell::new(Vec::new()) };
}

/// Starts `kind` on `payload`; `on_answer` hears each answer but `Ready` (and `None` for a message
/// it cannot read) and returns whether the job is done. `false` when no worker could be started.
pub fn ask(kind: &'static str, payload: JsValue, on_answer: impl Fn(Option<Answer>) -> bool + 'static) -> bool {
    let Ok(worker) = Worker::new(WORKER_URL) else { return false };
    let to_worker = worker.clone();
    let job = js_sys::Array::of2(&JsValue::from_str(kind), &payload);
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let answer = e.data().as_string().and_then(|t| decode(&t));
        if answer == Some(Answer::Ready) {
            let _ = to_worker.post_message(&job);
        } else if on_answer(answer) {
            // Its memory goes back now; the handler is dropped when the next job of its kind starts.
            to_worker.terminate();
        }
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    RUNNING.with(|running| {
        let mut running = running.borrow_mut();
        for (_, old, _) in running.iter().filter(|(k, _, _)| *k == kind) {
            old.terminate();
        }
        running.retain(|(k, _, _)| *k != kind);
        running.push((kind, worker, handler));
    });
    true
}
