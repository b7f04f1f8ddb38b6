//! The ledger: pure memory accounting. No UI, browser or chart code lives here (or is imported
//! here), so it is tested natively with `cargo test` and shared by the CLI and the web app.

pub mod activations;
pub mod architecture;
pub mod bill;
pub mod drill;
pub mod dtype;
pub mod estimate;
pub mod fit;
pub mod hf_config;
pub mod inference;
pub mod msg;
pub mod optimizer;
pub mod plan;
pub mod presets;
pub mod scenario;
pub mod serving;
pub mod speed_card;
pub mod storage;
pub mod training;
pub mod units;
pub mod weights;

pub use bill::{Bill, Component, ComponentId, TotalKind, Verdict};
pub use estimate::estimate;
pub use scenario::Scenario;
