//! A served VLM's vision encoder (issue 29, "VLM serving"): vLLM's profile of the encoder before
//! the KV pool is sized, the tower left out when every multimodal limit is 0, and SGLang's lower
//! default share for a multimodal model. Each expected figure is hand arithmetic from the rules
//! read in the engines' source (docs/research/serving/vlm-encoder-profile.md).

use vram_ledger::ledger::bill::{Bill, ComponentId, Serving};
use vram_ledger::ledger::estimate;
use vram_ledger::query;

mod common;
use common::GEMMA4_E4B;

fn serve(q: &str) -> (Serving, Bill) {
    let parsed = query::parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    let bill = estimate(&parsed.scenario);
    (bill.serving.clone().unwrap_or_else(|| panic!("{q}: no serving figures")), bill)
}

/// Qwen2.5-VL-7B on an L4 with vLLM 0.19: 2,048 batched tokens and 256 sequences (a card under
/// 70 GiB), FlashInfer's sampler (2 + 14 B per logit).
const QWEN_VL_L4: &str = "model=qwen2.5-vl-7b&mode=infer&engine=vllm&engine_version=0.19&seq=2048&gpu=l4";

/// One patch of Qwen2.5-VL's tower (width 1,280, SwiGLU MLP 3,420, 14 px patches over 2 frames):
/// its fp32 pixels 4 × 3 × 2 × 14² = 4,704 B, and the attention moment, the larger one:
/// 2 B × (residual + normed input + qkv + contiguous q, k, v = 8 × 1,280) + q's fp32 copy and
/// rotated result 8 × 1,280 = 30,720 B (the MLP's 2 × (2 × 1,280 + 3 × 3,420) = 25,640 B is less).
const QWEN25_VL_PATCH: u64 = 4_704 + 30_720;

/// The language model's side of the same profile: 256 dummy requests × 152,064 × 16 B and the
/// 2,048 × 3,584 hidden states in 16 bits (the forward over 2,048 tokens is smaller).
const QWEN_VL_L4_SAMPLER: u64 = 256 * 152_064 * 16 + 2_048 * 3_584 * 2;

#[test]
fn the_largest_image_s_encoder_block_is_the_profile_s_peak() {
    // The default max_pixels 12,845,056 ÷ 28² = 16,384 tokens, 65,536 patches: one item (the
    // budget, max(2,048, 16,384), holds one; the context of 2,048 lets one per prompt).
    let (s, bill) = serve(QWEN_VL_L4);
    assert_eq!(s.activation_peak_bytes, 65_536 * QWEN25_VL_PATCH);
    assert_eq!(bill.component(ComponentId::Activations), 65_536 * QWEN25_VL_PATCH);
    // A smaller largest image (1,003,520 px = 1,280 tokens, 5,120 patches): the sampler's warm-up
    // is the peak again, with the encoder's pixels (5,120 × 4,704 B) and outputs (1,280 × 3,584
    // × 2 B) held beside it.
    let (small, _) = serve(&format!("{QWEN_VL_L4}&max_pixels=1003520"));
    assert_eq!(small.activation_peak_bytes, QWEN_VL_L4_SAMPLER + 5_120 * 4_704 + 1_280 * 3_584 * 2);
    assert!(small.kv_pool_bytes > s.kv_pool_bytes);
}

#[test]
fn from_0_11_a_context_that_holds_a_video_profiles_one() {
    // max_model_len 32,768 holds two pairs of frames (4 of the 14): 32,768 tokens, 131,072 patches.
    let q = "model=qwen2.5-vl-7b&mode=infer&engine=vllm&engine_version=0.23&seq=32768&gpu=a100-80g";
    let (video, _) = serve(q);
    assert_eq!(video.activation_peak_bytes, 131_072 * QWEN25_VL_PATCH);
    // Without videos, or before 0.11 (a one-frame dummy), the largest image is profiled.
    let (images, _) = serve(&format!("{q}&mm_video=0"));
    assert_eq!(images.activation_peak_bytes, 65_536 * QWEN25_VL_PATCH);
    let (older, _) = serve(&q.replace("0.23", "0.10.2"));
    assert_eq!(older.activation_peak_bytes, 65_536 * QWEN25_VL_PATCH);
}

#[test]
fn every_limit_zero_skips_the_profile_and_from_0_10_1_the_tower() {
    let (vlm, _) = serve(QWEN_VL_L4);
    let (text, _) = serve(&format!("{QWEN_VL_L4}&mm_limit=0&mm_video=0"));
    assert_eq!(text.activation_peak_bytes, QWEN_VL_L4_SAMPLER);
    // The tower and merger: Qwen2.5-VL-7B's 8,292,166,656 parameters less Qwen2.5-7B's
    // 7,615,616,512 (both published counts) = 676,550,144, in 16 bits.
    assert_eq!(vlm.weights_bytes - text.weights_bytes, 676_550_144 * 2);
    // An image limit alone leaves the videos (Qwen2.5-VL takes both): the profile stays.
    let (videos, _) = serve(&format!("{QWEN_VL_L4}&mm_limit=0"));
    assert_eq!(videos.weights_bytes, vlm.weights_bytes);
    assert_eq!(videos.activation_peak_bytes, 65_536 * QWEN25_VL_PATCH);
    // 0.10.0 still builds the tower.
    let (built, _) = serve(&format!("{QWEN_VL_L4}&mm_limit=0&mm_video=0").replace("0.19", "0.10.0"));
    let (built_vlm, _) = serve(&QWEN_VL_L4.replace("0.19", "0.10.0"));
    assert_eq!(built.weights_bytes, built_vlm.weights_bytes);
}

#[test]
fn vllm_0_11_counts_placeholders_and_pads_the_outputs_to_the_budget() {
    // Gemma-3-27B on an H100 with 0.11: 8,192 batched tokens, 1,024 sequences, the sampler's
    // 2 + 36.5 B per logit. An image is 256 embeddings in a 260-token placeholder: 8,192 ÷ 260 = 31
    // items of 4,096 SigLIP patches (14 px over 896 px). Each output is padded to the budget's
    // 8,192 rows × 5,376 × 2 B; the pixels are 3 × 14² × 4 B per patch.
    let (s, _) = serve("model=gemma-3-27b&mode=infer&engine=vllm&engine_version=0.11&seq=8192&gpu=h100-80g");
    let patches: u64 = 31 * 4_096;
    let held = patches * 2_352 + 31 * 8_192 * 5_376 * 2;
    let sampler = 1_024 * 262_208 * 77 / 2 + 8_192 * 5_376 * 2;
    assert_eq!(s.activation_peak_bytes, held + sampler);
    // From 0.13 the outputs are the 32 images' own 256 rows.
    let (later, _) = serve("model=gemma-3-27b&mode=infer&engine=vllm&engine_version=0.13&seq=8192&gpu=h100-80g");
    assert_eq!(later.activation_peak_bytes, 32 * 4_096 * 2_352 + 32 * 256 * 5_376 * 2 + sampler);
}

#[test]
fn sglang_lowers_a_multimodal_model_s_default_share() {
    // 0.5.4: 0.95 × (1 − 0.1 × (24 × 1,280² ÷ (24 × 1,024²) − 1)) = 0.95 × 0.94375 = 0.8965625
    // (Qwen2.5-VL's config names its layers `depth`, so 24 stands in).
    let q = "mode=infer&engine=sglang&engine_version=0.5.4&seq=8192&gpu=h100-80g";
    let (text, _) = serve(&format!("model=qwen2.5-7b&{q}"));
    let (vlm, _) = serve(&format!("model=qwen2.5-vl-7b&{q}"));
    assert!((vlm.share - text.share * 0.8965625).abs() < 1e-9, "{} {}", vlm.share, text.share);
    // A share given is kept from 0.4.9; 0.4.6 multiplied it by 0.9 too.
    let (given, _) = serve(&format!("model=qwen2.5-vl-7b&{q}&mem_fraction=0.8"));
    assert!((given.share - 0.8).abs() < 1e-9);
    let (old, _) = serve(&format!("model=qwen2.5-vl-7b&{q}&mem_fraction=0.8").replace("0.5.4", "0.4.6"));
    assert!((old.share - 0.72).abs() < 1e-9, "{}", old.share);
    // Gemma-3 is served text-only unless --enable-multimodal: its share is the text model's.
    let (gemma, _) = serve(&format!("model=gemma-3-4b&{q}"));
    let (gemma2, _) = serve(&format!("model=gemma-2-9b&{q}"));
    assert!((gemma.share - gemma2.share).abs() < 1e-9);
}

#[test]
fn hostile_multimodal_values_give_figures_not_panics() {
    for q in [
        "model=qwen2.5-vl-7b&mode=infer&engine=vllm&max_pixels=1073741824&mm_limit=1024&mm_video=1024&seq=100000000",
        "model=qwen2.5-vl-7b&mode=infer&engine=vllm&engine_version=0.6.6&max_pixels=784&max_batched_tokens=1",
        "model=mistral-small-3.1-24b&mode=infer&engine=vllm&engine_version=0.20&max_num_seqs=65536",
    ] {
        let (s, bill) = serve(q);
        assert!(bill.components.iter().all(|c| c.bytes < u64::MAX), "{q}");
        assert!(s.max_concurrency.is_finite(), "{q}");
    }
    let bad = query::parse("model=qwen2.5-vl-7b&mode=infer&engine=vllm&mm_limit=-1&max_pixels=abc");
    assert_eq!(bad.errors.len(), 2);
}

/// Gemma-4's dummy image in vLLM's profile (`gemma4_mm.py`: `get_mm_max_tokens_per_item` is the
/// config's `default_output_length`, 280, between two markers; the HF processor's patches padded to
/// 9 × 280 = 2,520, counted as run). E4B on an RTX 3090 with vLLM 0.22.1 (2,048 batched tokens):
/// 2,048 ÷ 280 = 7 images. The sampler's warm-up stays the peak, and beside it the encoder's
/// outputs (7 × 280 rows × 2,560 × 2 B = 10,035,200 B) and, before 0.33, its fp32 pixels (7 ×
/// 2,520 patches × 3 × 16² × 4 B = 54,190,080 B) are held. The encoder's own moment: 17,640
/// patches × 21,504 B (the gated MLP's 2 × (2 × 768 + 3 × 3,072)) with the pixels.
#[test]
fn gemma4s_profile_encodes_images_at_their_token_budget() {
    let q = format!("{GEMMA4_E4B}&mode=infer&engine=vllm&engine_version=0.22.1&seq=32768&gpu=rtx3090");
    let (vlm, _) = serve(&q);
    let (text, _) = serve(&format!("{q}&mm_limit=0"));
    assert_eq!(vlm.activation_peak_bytes - text.activation_peak_bytes, 10_035_200 + 54_190_080);
    assert!(text.activation_peak_bytes > 17_640 * (21_504 + 3_072), "the sampler's warm-up is the larger");
    // A budget of 1,120 (vLLM's `--mm-processor-kwargs '{"max_soft_tokens": 1120}'`, not a key
    // yet): one image of 1,120 tokens and 10,080 patches.
    let mut parsed = query::parse(&q).scenario;
    if let Some(t) = parsed.architecture.vision.as_mut() {
        t.max_tokens = 1_120;
    }
    let large = estimate(&parsed).serving.expect("served");
    assert_eq!(large.activation_peak_bytes - text.activation_peak_bytes, 1_120 * 2_560 * 2 + 10_080 * 3_072);
}

/// InternVL3.5-8B (its config.json imported: `vision=internvl`) on vLLM 0.22.1: the dummy image is
/// the grid of the most tiles, 12 and the thumbnail (`get_image_size_with_most_features`), 3,328
/// tokens from 13 × 1,025 patches. The encoder's moment is below the sampler's warm-up, so the
/// profile's peak grows by what stays held through the language model's run (before 0.33): the
/// outputs 3,328 × 4,096 × 2 B = 27,262,976 and the fp32 pixels 13,325 × 3 × 14² × 4 B =
/// 31,340,400.
#[test]
fn internvl_s_profile_encodes_the_most_tiles_and_its_thumbnail() {
    let json = std::fs::read_to_string("tests/data/configs/internvl3.5-8b.json").expect("fixture");
    let imported = vram_ledger::ledger::hf_config::parse_config(&json).expect("imports");
    let q = "mode=infer&engine=vllm&engine_version=0.22.1&seq=32768&gpu=a100-80g";
    let mut scenario = query::parse(q).scenario;
    scenario.architecture = imported.architecture;
    let vlm = estimate(&scenario).serving.expect("served");
    scenario.serving.mm_limit = Some(0);
    let text = estimate(&scenario).serving.expect("served");
    assert_eq!(vlm.activation_peak_bytes - text.activation_peak_bytes, 27_262_976 + 31_340_400);
    assert!(vlm.kv_tokens < text.kv_tokens);
}
