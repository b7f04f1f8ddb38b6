//! VRAM Ledger (显存账本): GPU-memory accounting for fine-tuning and serving LLMs and VLMs.
//!
//! - [`ledger`]: the pure accounting core (architectures, storage formats, training, inference,
//!   sharding, fit solvers, presets).
//! - [`query`]: the scenario vocabulary as a query string (share links, the CLI's argument).
//! - [`report`]: text and JSON renderings of a bill (the CLI's output).
//! - [`selftest`]: the chapter's seven self-test questions, each demonstrated on the ledger.
//! - `chart`, `i18n` and `ui`: the web app, built on the ledger.

pub mod chart;
pub mod i18n;
pub mod ledger;
pub mod markup;
pub mod query;
pub mod readers;
pub mod report;
pub mod selftest;
pub mod tree;
pub mod validation;
pub mod view;

#[cfg(any(target_arch = "wasm32", feature = "prerender"))]
pub mod ui;
