//! The frozen vision tower of a VLM: its forward pass keeps nothing for backward, but one block's
//! working set over every patch of the batch is alive at a time.

use super::architecture::Architecture;
use super::bill::{line, Component, ComponentId};
use super::msg::{Arg, Msg};
use super::plan::Plan;
use super::scenario::AttentionKernel;
use crate::msg;

/// The vision tower runs frozen: its forward pass keeps nothing, but one block's working set over
/// every patch of the batch is alive at a time. Eager attention adds the score matrix and mask over
/// the patches one attention sees (`VisionSpec::attention_span`: Qwen2-VL attends over all patches
/// of the batch with a block-diagonal mask; a tiled tower over each tile).
fn vision_block_peak(arch: &Architecture, kernel: AttentionKernel, act: f64, patches: u64) -> f64 {
    let Some(v) = &arch.vision else { return 0.0 };
    let d = v.dim as f64;
    let p = patches as f64;
    let span = v.attention_span(patches) as f64;
    let residual = p * act * 2.0 * d;
    let mlp = p * act * 2.0 * v.mlp as f64;
    let attention = match kernel {
        AttentionKernel::Eager => p * act * 4.0 * d + v.heads as f64 * p * span * (act + 4.0) + p * span * act,
        _ => p * act * 4.0 * d,
    };
    residual + mlp.max(attention)
}

/// The vision tower's line and the note on how many tokens the images become; `None` without
/// images or a tower.
pub fn vision_activations(p: &Plan) -> Option<(Component, Msg)> {
    let (v, input) = (p.arch.vision.as_ref()?, p.vision?);
    let per_image = v.tokens_per_image(input.image);
    let image_patches = v.patches_per_image(input.image);
    let patches = input.images.saturating_mul(image_patches).saturating_mul(p.batch);
    let note = msg!(
        NoteVisionTokens,
        Arg::Int(input.images),
        Arg::Text(input.image.text()),
        Arg::Count(per_image),
        Arg::Count(p.tokens - p.text_tokens),
        Arg::Count(p.text_tokens),
        Arg::Count(p.tokens)
    );
    let bytes = vision_block_peak(p.arch, p.kernel, p.acts.bytes(), patches);
    let formula = msg!(VisionActivations, Arg::Count(patches), Arg::Count(image_patches), Arg::Bytes(bytes));
    Some((line(ComponentId::VisionActivations, bytes, "§3 ④", formula), note))
}
