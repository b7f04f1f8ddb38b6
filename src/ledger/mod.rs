//! The ledger: pure memory accounting. No UI, browser or chart code lives here (or is imported
//! here), so it is tested natively with `cargo test` and shared by the CLI and the web app.
//!
//! Its files form layers, lowest first. A file uses only files of lower layers — never one of its
//! own layer or above — so there is no import cycle, and each layer reads without the ones above
//! (tests/structure.rs checks this list against the imports):
//!
//! 1. `units`, `msg`, `dtype`, `speed_card`, `caching_allocator` — numbers and their text, message ids, element types, the stored speed card, PyTorch's caching allocator replayed
//! 2. `storage`, `json` — how weights and the KV cache are stored (formats, bits, KV dtypes); the JSON reader for pasted files
//! 3. `architecture` — a model's shape: layers, attention, MLP, experts, vision tower
//! 4. `presets`, `hf_config`, `weights` — preset models and GPUs, config.json import, stored weights
//! 5. `scenario` — everything the bill depends on, as typed values
//! 6. `bill`, `framework` — the bill: components, totals, notes, what a serving engine makes of the card; the keys a training framework's release implies
//! 7. `plan`, `phases` — the scenario resolved: what trains, in which dtype, sharded how, where; a bill as the moments of its step
//! 8. `activations`, `logits`, `vision`, `training`, `chatglm`, `serving::engine`, `serving::encoder`, `serving::grid`, `serving::lora`, `serving::speculative` — bill lines, and what every engine shares (its LoRA slots, its drafter, a VLM's encoder, a served grid's stages); ChatGLM's remote-code prefill replayed
//! 9. `optimizer`, `inference`, `drill`, `serving::vllm`, `serving::sglang`, `serving::llamacpp` — bill lines built on those
//! 10. `serving` — the engines, by the scenario's choice
//! 11. `device_map` — `generate()` over several GPUs as accelerate's `device_map="auto"` lays the model out
//! 12. `step` — the bill of a supervised step or of inference
//! 13. `parallel` — one GPU of a Megatron-style training grid
//! 14. `rl` — a preference or RL step as its phases, made of those bills (on a grid, the grid's step)
//! 15. `estimate` — the bill of any scenario
//! 16. `fit`, `concurrency` — solvers over estimates: what fits, the planner's curve

pub mod activations;
pub mod architecture;
pub mod bill;
pub mod caching_allocator;
pub mod chatglm;
pub mod concurrency;
pub mod device_map;
pub mod drill;
pub mod dtype;
pub mod estimate;
pub mod fit;
pub mod framework;
pub mod hf_config;
pub mod inference;
pub mod json;
pub mod logits;
pub mod msg;
pub mod optimizer;
pub mod parallel;
pub mod phases;
pub mod plan;
pub mod presets;
pub mod rl;
pub mod scenario;
pub mod serving;
pub mod speed_card;
pub mod step;
pub mod storage;
pub mod training;
pub mod units;
pub mod vision;
pub mod weights;

pub use bill::{Bill, Component, ComponentId, TotalKind, Verdict};
pub use estimate::estimate;
pub use scenario::Scenario;
