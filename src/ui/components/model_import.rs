//! Bring your own model: paste or drop a Hugging Face `config.json`, or fetch one by model id.
//! Everything the user supplies is untrusted: it is parsed by `ledger::hf_config` (errors name the
//! field) and only ever shown as text.

use gloo::file::callbacks::FileReader;
use web_sys::{DragEvent, HtmlInputElement, HtmlTextAreaElement};
use yew::platform::spawn_local;
use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::architecture::Architecture;
use crate::ledger::hf_config::{parse_config, valid_model_id};

#[derive(Properties, PartialEq)]
pub struct ModelImportProps {
    pub lang: Lang,
    pub onimport: Callback<Architecture>,
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

#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Busy,
    Error(String),
    Done(String),
}

#[function_component(ModelImport)]
pub fn model_import(props: &ModelImportProps) -> Html {
    let lang = props.lang;
    let pasted = use_state(String::new);
    let model_id = use_state(String::new);
    let status = use_state(|| Status::Idle);
    let reader = use_mut_ref(|| None::<FileReader>);

    let accept = {
        let onimport = props.onimport.clone();
        let status = status.clone();
        Callback::from(move |text_in: String| match parse_config(&text_in) {
            Ok(arch) => {
                status.set(Status::Done(arch.name.clone()));
                onimport.emit(arch);
            }
            Err(e) => status.set(Status::Error(crate::i18n::render(lang, &e.0))),
        })
    };
    let on_paste_input = {
        let pasted = pasted.clone();
        Callback::from(move |e: InputEvent| pasted.set(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let on_use = {
        let pasted = pasted.clone();
        let accept = accept.clone();
        Callback::from(move |_| accept.emit((*pasted).clone()))
    };
    let on_drop = {
        let accept = accept.clone();
        let reader = reader.clone();
        let status = status.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) else { return };
            if file.size() > 1_000_000.0 {
                status.set(Status::Error(text(lang, Text::TooLarge).to_string()));
                return;
            }
            let accept = accept.clone();
            let status = status.clone();
            let file = gloo::file::File::from(file);
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(&file, move |result| match result {
                Ok(t) => accept.emit(t),
                Err(e) => status.set(Status::Error(e.to_string())),
            }));
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    let on_id_input = {
        let model_id = model_id.clone();
        Callback::from(move |e: InputEvent| model_id.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_fetch = {
        let model_id = model_id.clone();
        let status = status.clone();
        let accept = accept.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let id = model_id.trim().to_string();
            if !valid_model_id(&id) {
                status.set(Status::Error(text(lang, Text::BadModelId).to_string()));
                return;
            }
            status.set(Status::Busy);
            let status = status.clone();
            let accept = accept.clone();
            spawn_local(async move {
                let url = format!("https://huggingface.co/{id}/resolve/main/config.json");
                match fetch_text(&url).await {
                    Ok((200, body)) => accept.emit(body),
                    Ok((401 | 403, _)) => status.set(Status::Error(text(lang, Text::Gated).to_string())),
                    Ok((404, _)) => status.set(Status::Error(text(lang, Text::NotFound).to_string())),
                    Ok((code, _)) => {
                        status.set(Status::Error(format!("{} (HTTP {code})", text(lang, Text::NetworkError))))
                    }
                    Err(()) => status.set(Status::Error(text(lang, Text::NetworkError).to_string())),
                }
            });
        })
    };

    html! {
        <details class="model-import" data-testid="model-import">
            <summary>{ text(lang, Text::BringModel) }</summary>
            <div class="drop-zone" ondrop={on_drop} ondragover={on_drag_over} data-testid="config-drop">
                <label class="field" for="config-json">
                    <span class="field-label">{ text(lang, Text::PasteConfig) }</span>
                    <textarea id="config-json" data-testid="config-json" rows="4" spellcheck="false"
                        placeholder="{\"model_type\": \"llama\", \"hidden_size\": 4096, …}" oninput={on_paste_input} value={(*pasted).clone()} />
                </label>
                <button type="button" data-testid="use-config" onclick={on_use}>{ text(lang, Text::UseConfig) }</button>
            </div>
            <form class="hf-fetch" onsubmit={on_fetch}>
                <label class="field" for="hf-id">
                    <span class="field-label">{ text(lang, Text::HfId) }</span>
                    <input id="hf-id" data-testid="hf-id" type="text" placeholder="Qwen/Qwen2.5-7B-Instruct" autocomplete="off"
                        value={(*model_id).clone()} oninput={on_id_input} />
                </label>
                <button type="submit" data-testid="hf-fetch" disabled={*status == Status::Busy}>{ text(lang, Text::Fetch) }</button>
            </form>
            {
                match &*status {
                    Status::Idle => html! {},
                    Status::Busy => html! { <p class="import-status" data-testid="import-status">{ "…" }</p> },
                    Status::Error(msg) => html! { <p class="import-status notice-error" role="alert" data-testid="import-status">{ msg }</p> },
                    Status::Done(name) => html! { <p class="import-status" data-testid="import-status">{ format!("{} {name}", text(lang, Text::Imported)) }</p> },
                }
            }
        </details>
    }
}
