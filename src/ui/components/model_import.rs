//! Bring your own model: paste or drop a Hugging Face `config.json`, or fetch one by model id from
//! the Hub, from ModelScope or from a Hub mirror (the Hub is unreachable from many networks in
//! mainland China). Everything the user supplies is untrusted: it is parsed by `ledger::hf_config`
//! in the reader worker (errors name the field) and only ever shown as text.

use gloo::file::callbacks::FileReader;
use web_sys::{DragEvent, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::platform::spawn_local;
use yew::prelude::*;

use crate::i18n::{render, text, Lang, Text};
use crate::ledger::architecture::Architecture;
use crate::ledger::hf_config::{config_url, host_of, valid_model_id, Hub, DEFAULT_MIRROR};
use crate::ledger::msg::{Arg, Msg};
use crate::msg;
use crate::readers::Answer;

#[derive(Properties, PartialEq)]
pub struct ModelImportProps {
    pub lang: Lang,
    /// The imported model with the shape keys the page's build keeps for the reader worker
    /// (`Scenario::for_worker`), and whether its remote code wants `mask=full`.
    pub onimport: Callback<(Box<(Architecture, String)>, bool)>,
}

/// GET `url` with the browser's fetch: (status, body text), or Err on a network or CORS failure.
async fn fetch_text(url: &str) -> Result<(u16, String), ()> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or(())?;
    let resp: web_sys::Response =
        JsFuture::from(window.fetch_with_str(url)).await.map_err(|_| ())?.dyn_into().map_err(|_| ())?;
    let status = resp.status();
    let body = JsFuture::from(resp.text().map_err(|_| ())?).await.map_err(|_| ())?.as_string().unwrap_or_default();
    Ok((status, body))
}

/// What the import last did; kept as messages so that it follows a language switch.
#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Busy,
    Error(Msg),
    Done(String, Vec<Msg>),
}

/// The message for a fetch's outcome other than success.
fn fetch_failure(url: &str, id: &str, outcome: Result<u16, ()>) -> Msg {
    let host = Arg::Text(host_of(url).to_string());
    match outcome {
        Ok(401 | 403) => msg!(FetchGated, host),
        Ok(404) => msg!(FetchNotFound, host, Arg::Text(id.to_string())),
        Ok(code) => msg!(FetchHttp, host, Arg::Int(code as u64)),
        Err(()) => msg!(FetchNetwork, host),
    }
}

#[function_component(ModelImport)]
pub fn model_import(props: &ModelImportProps) -> Html {
    let lang = props.lang;
    let pasted = use_state(String::new);
    let model_id = use_state(String::new);
    let hub = use_state(|| if lang == Lang::Zh { Hub::ModelScope } else { Hub::HuggingFace });
    let endpoint = use_state(|| DEFAULT_MIRROR.to_string());
    let status = use_state(|| Status::Idle);
    let reader = use_mut_ref(|| None::<FileReader>);

    // The config is read in the reader worker (`crate::readers::config`): it answers with the
    // custom model's link, read back here by the query parser the page has anyway.
    let accept = {
        let onimport = props.onimport.clone();
        let status = status.clone();
        Callback::from(move |text_in: String| {
            status.set(Status::Busy);
            let (onimport, answer_status) = (onimport.clone(), status.clone());
            let started = crate::ui::reader_worker::ask("config", text_in.into(), move |answer| {
                match answer {
                    Some(Answer::Config(query, name, notes)) => {
                        let parsed = crate::query::parse(&query).scenario;
                        let full_mask = parsed.mask == crate::ledger::scenario::AttentionMask::Full;
                        let mut architecture = parsed.architecture;
                        architecture.name = name.into();
                        answer_status.set(Status::Done(architecture.name.to_string(), notes));
                        // The shape keys the page's build keeps for the reader worker go with it.
                        onimport.emit((Box::new((architecture, parsed.for_worker)), full_mask));
                    }
                    Some(Answer::Failed(m)) => answer_status.set(Status::Error(m)),
                    _ => answer_status.set(Status::Error(msg!(ConfigNotJson, Arg::Text(String::new())))),
                }
                true
            });
            if !started {
                status.set(Status::Error(msg!(FetchReadFailed, Arg::Text("Web Worker".into()))));
            }
        })
    };
    let on_paste_input = {
        let pasted = pasted.clone();
        Callback::from(move |e: InputEvent| pasted.set(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let on_use = {
        let (pasted, accept) = (pasted.clone(), accept.clone());
        Callback::from(move |_| accept.emit((*pasted).clone()))
    };
    let on_drop = {
        let (accept, reader, status) = (accept.clone(), reader.clone(), status.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) else { return };
            if file.size() > crate::ledger::hf_config::MAX_CONFIG_BYTES as f64 {
                status.set(Status::Error(msg!(FetchTooLarge, Arg::Bytes(file.size()))));
                return;
            }
            let (accept, status) = (accept.clone(), status.clone());
            let file = gloo::file::File::from(file);
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(&file, move |result| match result {
                Ok(t) => accept.emit(t),
                Err(e) => status.set(Status::Error(msg!(FetchReadFailed, Arg::Text(e.to_string())))),
            }));
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    let on_id_input = {
        let model_id = model_id.clone();
        Callback::from(move |e: InputEvent| model_id.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_hub = {
        let hub = hub.clone();
        Callback::from(move |e: Event| {
            if let Some(h) = Hub::from_id(&e.target_unchecked_into::<HtmlSelectElement>().value()) {
                hub.set(h);
            }
        })
    };
    let on_endpoint = {
        let endpoint = endpoint.clone();
        Callback::from(move |e: InputEvent| endpoint.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_fetch = {
        let (model_id, hub, endpoint, status, accept) =
            (model_id.clone(), hub.clone(), endpoint.clone(), status.clone(), accept.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let id = model_id.trim().to_string();
            let Some(url) = config_url(*hub, &endpoint, &id) else {
                let bad = if valid_model_id(&id) { msg!(FetchBadEndpoint) } else { msg!(FetchBadId) };
                status.set(Status::Error(bad));
                return;
            };
            status.set(Status::Busy);
            let (status, accept) = (status.clone(), accept.clone());
            spawn_local(async move {
                match fetch_text(&url).await {
                    Ok((200, body)) => accept.emit(body),
                    Ok((code, _)) => status.set(Status::Error(fetch_failure(&url, &id, Ok(code)))),
                    Err(()) => status.set(Status::Error(fetch_failure(&url, &id, Err(())))),
                }
            });
        })
    };
    let hub_label = |h: Hub| match h {
        Hub::HuggingFace => "Hugging Face",
        Hub::ModelScope => "ModelScope",
        Hub::Mirror => text(lang, Text::HubMirror),
    };

    html! {
        <details class="model-import" data-testid="model-import">
            <summary>{ text(lang, Text::BringModel) }</summary>
            <div class="drop-zone" ondrop={on_drop} ondragover={on_drag_over} data-testid="config-drop">
                <label class="field" for="config-json">
                    <span class="field-label">{ text(lang, Text::PasteConfig) }</span>
                    <textarea id="config-json" data-testid="config-json" rows="4" spellcheck="false"
                        placeholder="{\"model_type\": \"qwen3\", \"hidden_size\": 4096, …}" oninput={on_paste_input} value={(*pasted).clone()} />
                </label>
                <button type="button" data-testid="use-config" onclick={on_use}>{ text(lang, Text::UseConfig) }</button>
            </div>
            <form class="hf-fetch" onsubmit={on_fetch}>
                <label class="field" for="hub">
                    <span class="field-label">{ text(lang, Text::HubSource) }</span>
                    <select id="hub" data-testid="hub" onchange={on_hub}>
                        { for Hub::ALL.iter().map(|&h| html! { <option value={h.id()} selected={*hub == h}>{ hub_label(h) }</option> }) }
                    </select>
                </label>
                if *hub == Hub::Mirror {
                    <label class="field" for="hub-endpoint">
                        <span class="field-label">{ text(lang, Text::HubEndpoint) }</span>
                        <input id="hub-endpoint" data-testid="hub-endpoint" type="url" value={(*endpoint).clone()} oninput={on_endpoint} />
                    </label>
                }
                <label class="field" for="hf-id">
                    <span class="field-label">{ text(lang, Text::HfId) }</span>
                    <input id="hf-id" data-testid="hf-id" type="text" placeholder="Qwen/Qwen3-8B" autocomplete="off"
                        value={(*model_id).clone()} oninput={on_id_input} />
                </label>
                <button type="submit" data-testid="hf-fetch" disabled={*status == Status::Busy}>{ text(lang, Text::Fetch) }</button>
            </form>
            {
                match &*status {
                    Status::Idle => html! {},
                    Status::Busy => html! { <p class="import-status" data-testid="import-status">{ "…" }</p> },
                    Status::Error(m) => html! { <p class="import-status notice-error" role="alert" data-testid="import-status">{ render(lang, m) }</p> },
                    Status::Done(name, notes) => html! {
                        <div class="import-status" data-testid="import-status">
                            <p>{ format!("{} {name}", text(lang, Text::Imported)) }</p>
                            { for notes.iter().map(|n| html! { <p class="notice-warning" data-testid="import-note">{ render(lang, n) }</p> }) }
                        </div>
                    },
                }
            }
        </details>
    }
}
