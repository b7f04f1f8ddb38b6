//! Properties that must hold for every scenario (proptest): memory grows with what should grow it,
//! quantizing and sharding never add memory, and no input — however extreme or malformed — panics
//! or produces NaN, infinity or an overflow.

use proptest::prelude::*;
use vram_ledger::ledger::bill::ComponentId as C;
use vram_ledger::ledger::hf_config::parse_config;
use vram_ledger::ledger::presets;
use vram_ledger::ledger::scenario::{AttentionKernel, Checkpointing, LoraTargets, Method, Mode, Optimizer, Precision};
use vram_ledger::ledger::storage::{KvDtype, StorageFormat};
use vram_ledger::ledger::{estimate, fit, Scenario};
use vram_ledger::query;
use vram_ledger::report;

fn any_scenario() -> impl Strategy<Value = Scenario> {
    let models = presets::models();
    (
        (
            0..models.len(),
            prop::sample::select(Mode::ALL),
            prop::sample::select(Method::ALL),
            prop::sample::select(Precision::ALL),
        ),
        (
            prop::sample::select(StorageFormat::ALL.to_vec()),
            prop::sample::select(Optimizer::ALL),
            prop::sample::select(LoraTargets::ALL),
            prop::sample::select(AttentionKernel::ALL),
        ),
        (1u64..=65_536, 1u64..=64, 1u64..=256, any::<bool>()),
        (
            1u64..=64,
            0u8..=3,
            prop::sample::select(KvDtype::ALL.to_vec()),
            0u64..=8192,
            0u64..=4,
            (28u64..=2048, 1u64..=4096),
        ),
    )
        .prop_map(
            move |(
                (m, mode, method, precision),
                (quant, optimizer, targets, attention),
                (seq, batch, rank, gc),
                (gpus, zero, kv, generated, images, image_px),
            )| {
                let p = &models[m];
                Scenario {
                    model_id: Some(p.id.to_string()),
                    architecture: p.architecture.clone(),
                    mode,
                    method,
                    precision,
                    quant,
                    optimizer,
                    targets,
                    attention,
                    seq,
                    batch,
                    rank,
                    checkpointing: if gc { Checkpointing::Full } else { Checkpointing::Off },
                    gpus,
                    zero,
                    kv,
                    generated,
                    images,
                    image: vram_ledger::ledger::architecture::ImageSize { width: image_px.0, height: image_px.1 },
                    ..Scenario::default()
                }
            },
        )
}

/// A NaN or an infinity printed anywhere (formulas included). Byte fields are integers, so serde
/// would print a non-finite float as `null`: none may appear there either.
fn has_non_finite_text(json: &str) -> bool {
    json.contains("NaN")
        || json.contains("inf B")
        || json.contains("inf ") && !json.contains("inference")
        || json.contains("\"bytes\":null")
        || json.contains("_bytes\":null")
}

fn device(s: &Scenario) -> u64 {
    estimate(s).device_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn memory_never_decreases_as_seq_batch_rank_or_layers_grow(s in any_scenario(), extra in 1u64..5000) {
        let base = device(&s);
        prop_assert!(device(&Scenario { seq: s.seq + extra, ..s.clone() }) >= base, "seq");
        prop_assert!(device(&Scenario { batch: s.batch + extra.min(64), ..s.clone() }) >= base, "batch");
        prop_assert!(device(&Scenario { rank: s.rank + extra.min(64), ..s.clone() }) >= base, "rank");
        let mut deeper = s.clone();
        deeper.architecture.layers += extra.min(16);
        prop_assert!(device(&deeper) >= base, "layers");
    }

    #[test]
    fn quantizing_never_grows_the_weights(s in any_scenario(), quant in prop::sample::select(StorageFormat::ALL.to_vec())) {
        let bf16 = estimate(&Scenario { mode: Mode::Infer, quant: StorageFormat::Bf16, ..s.clone() }).component(C::Weights);
        let q = estimate(&Scenario { mode: Mode::Infer, quant, ..s.clone() }).component(C::Weights);
        if quant != StorageFormat::Fp32 {
            prop_assert!(q <= bf16, "{} {} > bf16 {}", quant.id(), q, bf16);
        }
    }

    #[test]
    fn sharding_never_grows_the_per_gpu_bill(s in any_scenario(), more in 1u64..64) {
        let s = Scenario { mode: Mode::Train, gpus: s.gpus.max(2), ..s };
        // A higher ZeRO stage on the same GPUs never costs more (DeepSpeed's gradient buckets
        // aside: a fixed price of its stages 1 and 2, however little trains)…
        let sharded = |s: Scenario| {
            let b = estimate(&s);
            b.allocated_bytes() - b.component(C::ZeroBuckets) - b.component(C::GatheredLayer)
        };
        for stage in 1..=3u8 {
            let lower = sharded(Scenario { zero: stage - 1, ..s.clone() });
            let higher = sharded(Scenario { zero: stage, ..s.clone() });
            prop_assert!(higher <= lower, "zero {} → {}: {} > {}", stage - 1, stage, higher, lower);
        }
        // …and with ZeRO on, more GPUs never cost more per GPU.
        let z = Scenario { zero: s.zero.max(1), ..s.clone() };
        let wider = device(&Scenario { gpus: z.gpus + more, ..z.clone() });
        prop_assert!(wider <= device(&z), "more GPUs: {} > {}", wider, device(&z));
    }

    /// The three totals are what each tool counts, summed here from the JSON's components by
    /// PyTorch's own definitions rather than by the ledger's: `max_memory_allocated` counts tensors;
    /// `max_memory_reserved` adds the caching allocator's free blocks (the slack) and the private
    /// pools CUDA graphs capture into; nvidia-smi adds the CUDA context, memory outside PyTorch
    /// (NCCL, cuBLAS) and other processes on the card. Every component id is one of these.
    #[test]
    fn totals_are_what_each_tool_counts(s in any_scenario()) {
        let bill = estimate(&s);
        let json = report::to_json(&s, &bill);
        prop_assert!(!has_non_finite_text(&json.to_string()), "{}", json);
        const RESERVED_ONLY: [&str; 2] = ["allocator_slack", "cuda_graphs"];
        const DEVICE_ONLY: [&str; 3] = ["cuda_context", "non_torch", "zombie_process"];
        let (mut allocated, mut reserved, mut device) = (0u128, 0u128, 0u128);
        for c in json["components"].as_array().expect("components") {
            let (id, bytes) = (c["id"].as_str().expect("id"), c["bytes"].as_u64().expect("bytes") as u128);
            device += bytes;
            if !DEVICE_ONLY.contains(&id) {
                reserved += bytes;
                if !RESERVED_ONLY.contains(&id) {
                    allocated += bytes;
                }
            }
        }
        let total = |key: &str| json[key].as_u64().expect("a total") as u128;
        prop_assert_eq!(allocated, total("allocated_bytes"));
        prop_assert_eq!(reserved, total("reserved_bytes"));
        prop_assert_eq!(device, total("device_bytes"));
    }

    /// Hand arithmetic on any preset of full-attention layers (no latent attention, linear
    /// attention or vision tower) run by `generate()` in bf16: the weights are the publisher's
    /// parameter count × 2 B, and the KV cache 2 (K and V) × layers × KV heads × head dim × (prompt
    /// + generated) tokens × batch × 2 B.
    #[test]
    fn inference_weights_and_kv_are_the_textbook_products(m in 0..presets::models().len(), seq in 1u64..32_768, generated in 0u64..4096, batch in 1u64..16) {
        let p = &presets::models()[m];
        let a = &p.architecture;
        prop_assume!(a.mla.is_none() && a.linear.is_none() && a.vision.is_none());
        prop_assume!(a.layers_of(vram_ledger::ledger::architecture::LayerKind::Full) == a.layers);
        let q = format!("model={}&mode=infer&quant=bf16&kv=bf16&seq={seq}&gen={generated}&batch={batch}", p.id);
        let bill = estimate(&query::parse(&q).scenario);
        prop_assert_eq!(bill.component(C::Weights), p.published_parameters * 2, "{}", q);
        let kv = 2 * a.layers * a.kv_heads * a.head_dim * (seq + generated) * batch * 2;
        prop_assert_eq!(bill.component(C::KvCache), kv, "{}", q);
    }

    /// The chapter's 16 B per parameter of full fine-tuning with AdamW in mixed precision on one
    /// GPU, line by line: bf16 weights 2 B, an fp32 master copy 4 B, two fp32 moments 8 B (the
    /// gradients' 2 B sit at the peak only in part, so they are not summed here); LoRA: the
    /// adapters' own parameters in fp32 (4 B) with 8 B of moments.
    #[test]
    fn training_states_are_the_chapter_s_bytes_per_parameter(m in 0..presets::models().len(), rank in prop::sample::select(vec![8u64, 16, 64])) {
        let p = &presets::models()[m];
        prop_assume!(p.architecture.vision.is_none());
        let full = estimate(&query::parse(&format!("model={}&method=full&precision=mixed&optim=adamw&quant=bf16", p.id)).scenario);
        let n = p.published_parameters;
        prop_assert_eq!(full.component(C::Weights), n * 2);
        prop_assert_eq!(full.component(C::MasterWeights), n * 4);
        prop_assert_eq!(full.component(C::Optimizer), n * 8);
        let lora = estimate(&query::parse(&format!("model={}&method=lora&rank={rank}&targets=qv&optim=adamw&quant=bf16", p.id)).scenario);
        // q_proj and v_proj of every layer: r × (d_in + d_out) each.
        let a = &p.architecture;
        let (q_out, v_out) = (a.heads * a.head_dim, a.kv_heads * a.head_dim);
        prop_assume!(a.mla.is_none() && a.linear.is_none() && a.layers_of(vram_ledger::ledger::architecture::LayerKind::Full) == a.layers);
        let adapters = a.layers * rank * ((a.hidden + q_out) + (a.hidden + v_out));
        prop_assert_eq!(lora.component(C::AdapterWeights), adapters * 4);
        prop_assert_eq!(lora.component(C::Optimizer), adapters * 8);
    }

    #[test]
    fn arbitrary_query_strings_never_panic(q in ".{0,200}") {
        let p = query::parse(&q);
        let bill = estimate(&p.scenario);
        prop_assert!(bill.device_bytes() > 0);
        let _ = query::to_query(&p.scenario, &[]);
    }

    #[test]
    fn structured_hostile_queries_never_panic(keys in prop::collection::vec(prop::sample::select(query::KEYS.iter().map(|k| k.name).collect::<Vec<_>>()), 1..8),
                                             values in prop::collection::vec(prop_oneof![
                                                 Just("0".to_string()), Just("-1".to_string()), Just("1e400".to_string()),
                                                 Just("NaN".to_string()), Just("inf".to_string()), Just("18446744073709551616".to_string()),
                                                 Just("<img src=x onerror=alert(1)>".to_string()), "[0-9]{1,12}", "\\PC{0,12}"], 1..8)) {
        let q: Vec<String> = keys.iter().zip(values.iter().cycle()).map(|(k, v)| format!("{k}={}", query::percent_encode(v))).collect();
        let p = query::parse(&q.join("&"));
        let bill = estimate(&p.scenario);
        let json = report::to_json(&p.scenario, &bill).to_string();
        prop_assert!(!has_non_finite_text(&json), "{}", json);
    }

    #[test]
    fn arbitrary_json_configs_never_panic(text in "\\PC{0,300}") {
        let _ = parse_config(&text);
    }

    #[test]
    fn json_shaped_configs_never_panic(fields in prop::collection::btree_map(
            prop::sample::select(vec!["model_type", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                "head_dim", "intermediate_size", "vocab_size", "tie_word_embeddings", "num_local_experts", "num_experts_per_tok",
                "n_embd", "n_head", "n_layer", "n_inner", "vision_config", "text_config"]),
            prop_oneof![
                Just(serde_json::json!("llama")), Just(serde_json::json!("gpt2")), Just(serde_json::json!("qwen2_vl")),
                Just(serde_json::json!("mixtral")), any::<u64>().prop_map(|n| serde_json::json!(n)),
                any::<i64>().prop_map(|n| serde_json::json!(n)), any::<f64>().prop_map(|f| serde_json::json!(f)),
                any::<bool>().prop_map(|b| serde_json::json!(b)), Just(serde_json::json!(null)), Just(serde_json::json!({})),
                Just(serde_json::json!({"depth": 2, "embed_dim": 0, "num_heads": 1})),
            ],
            0..12)) {
        let v = serde_json::Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
        if let Ok(arch) = parse_config(&v.to_string()) {
            let s = Scenario { architecture: arch.architecture, ..Scenario::default() };
            let bill = estimate(&s);
            prop_assert!(bill.device_bytes() > 0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Any architecture a link may describe, up to every key's upper limit, gives a bill without a
    /// panic or an overflow (sizes saturate).
    #[test]
    fn architectures_at_the_limits_never_overflow(
        layers in prop_oneof![Just(10_000u64), 1u64..64],
        hidden in prop_oneof![Just(1u64 << 24), 1u64..8192],
        heads in prop_oneof![Just(1u64 << 24), 1u64..128],
        head_dim in prop_oneof![Just(1u64 << 24), 1u64..512],
        ffn in prop_oneof![Just(1u64 << 24), 1u64..65536],
        vocab in prop_oneof![Just(1u64 << 27), 1u64..300_000],
        experts in prop_oneof![Just(65_536u64), 1u64..16],
        mode in prop::sample::select(vec!["train", "infer"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        extra in prop::sample::select(vec!["", "&gpus=100000&zero=3", "&optim=adafactor", "&attn=eager&gc=0&seq=100000000", "&drill=no_grad,tensor_list,fp32_module,zombie"]),
    ) {
        let q = format!(
            "model=custom&layers={layers}&hidden={hidden}&heads={heads}&kv_heads={heads}&head_dim={head_dim}&ffn={ffn}&vocab={vocab}&experts={experts}&active_experts={experts}&mode={mode}&method={method}{extra}"
        );
        let p = query::parse(&q);
        prop_assert!(p.errors.is_empty(), "{:?}", p.errors);
        let bill = estimate(&p.scenario);
        prop_assert!(bill.allocated_bytes() <= bill.device_bytes());
        let _ = fit::max_batch(&p.scenario);
    }
}

/// The extremes: 10 M-token sequences, batch 4096, a 2-trillion-parameter model.
#[test]
fn extreme_inputs_stay_finite() {
    let huge = "model=custom&layers=200&hidden=32768&heads=256&kv_heads=16&head_dim=128&ffn=131072&vocab=262144&experts=16&active_experts=2";
    let s = query::parse(huge).scenario;
    let p = s.architecture.parameters();
    assert!(p > 2_000_000_000_000, "{p}");
    for extra in [
        "seq=10000000&batch=4096&gc=0&attn=eager",
        "mode=infer&seq=100000000&gen=100000000&batch=65536",
        "method=full&gpus=100000&zero=3",
    ] {
        let p = query::parse(&format!("{huge}&{extra}"));
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let bill = estimate(&p.scenario);
        assert!(bill.device_bytes() > 0);
        assert!(!bill.fits());
        let json = report::to_json(&p.scenario, &bill).to_string();
        assert!(!has_non_finite_text(&json), "{json}");
        // Saturating totals still order correctly.
        assert!(bill.allocated_bytes() <= bill.device_bytes());
    }
    // Solvers terminate at the edges.
    assert_eq!(fit::max_batch(&s), 0);
    let tiny = query::parse("model=gpt2&mode=infer&gpu=h200").scenario;
    // GPT-2 at 2,048 tokens: KV 2 × 12 × 12 × 64 × 2048 × 2 B = 75.5 MB and a prefill peak of
    // 2048 × (2·2·768 + 4·768 + 2·3·3072) B = 50 MB per sequence; 80 % of 140.4 GiB holds ≈ 950.
    let b = fit::max_batch(&tiny);
    assert!((800..=1100).contains(&b), "{b}");
}

/// The web bundle's JSON reader agrees with serde_json (the oracle) on what is JSON and on what it
/// says, for generated documents and for arbitrary text.
mod json_reader {
    use proptest::prelude::*;
    use vram_ledger::ledger::json::Json;

    /// Whether the reader's value says what serde_json's says: numbers equal to 12 significant
    /// digits (serde_json rounds the last bits of huge integers differently from Rust's correctly
    /// rounded parse), strings equal, objects with the same keys (the last duplicate wins).
    fn same(t: &serde_json::Value, o: &Json) -> bool {
        use serde_json::Value as V;
        match (t, o) {
            (V::Null, Json::Null) => true,
            (V::Bool(a), Json::Bool(b)) => a == b,
            (V::Number(n), Json::Uint(_) | Json::Num(_)) => {
                let (a, b) = (n.as_f64().unwrap_or(f64::NAN), o.as_f64().unwrap_or(f64::NAN));
                a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
            }
            (V::String(a), Json::Str(b)) => a == b,
            (V::Array(a), Json::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
            (V::Object(m), Json::Object(members)) => {
                let mut keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
                keys.sort_unstable();
                keys.dedup();
                keys.len() == m.len() && m.iter().all(|(k, v)| o.get(k).is_some_and(|ov| same(v, ov)))
            }
            _ => false,
        }
    }

    fn agree(text: &str) -> Result<(), TestCaseError> {
        let theirs = serde_json::from_str::<serde_json::Value>(text);
        let ours = Json::parse(text);
        prop_assert_eq!(
            theirs.is_ok(),
            ours.is_ok(),
            "{:?}: serde {:?} / ours {:?}",
            text,
            theirs.as_ref().err(),
            ours.as_ref().err()
        );
        if let (Ok(t), Ok(o)) = (theirs, ours) {
            prop_assert!(same(&t, &o), "{:?}: serde {:?} / ours {:?}", text, t, o);
        }
        Ok(())
    }

    fn document() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            (-1e30f64..1e30).prop_map(|f| f.to_string()),
            "[a-z\\\\\"é😀 ]{0,8}".prop_map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))),
            Just("1e400".to_string()),
            Just("\"\\u00e9\\ud83d\\ude00\"".to_string()),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(("[a-c]{1,2}", inner), 0..4).prop_map(|v| format!(
                    "{{{}}}",
                    v.iter().map(|(k, x)| format!("\"{k}\": {x}")).collect::<Vec<_>>().join(", ")
                )),
            ]
        })
    }

    proptest! {
        #[test]
        fn generated_documents(doc in document()) {
            agree(&doc)?;
        }

        #[test]
        fn arbitrary_text(text in "[\\[\\]{}\",:0-9a-z.eE+\\- \\\\]{0,24}") {
            agree(&text)?;
        }
    }
}

/// `units::parse_decimal` (the wasm's number reader) against the standard library's: equal for
/// every value a link, a config.json or a log writes (≤ 15 significant digits, a power of ten
/// within ±22), within 4 ulps beyond; and the same refusals.
#[test]
fn decimals_read_like_the_standard_library() {
    use vram_ledger::ledger::units::parse_decimal;
    for t in [
        "0",
        "-0",
        "12",
        "0.9",
        "0.95",
        ".5",
        "5.",
        "1e-5",
        "1E-06",
        "5.0E+5",
        "500000.0",
        "130674.91",
        "1.45",
        "-2.14",
        "0.000001",
        "16933263441.92",
        "1e22",
        "123456789012345",
        "3.14159265358979",
    ] {
        assert_eq!(parse_decimal(t), t.parse::<f64>().ok(), "{t}");
    }
    for bad in ["", "-", ".", "e5", "1e", "1e+", "1.2.3", "1,5", " 1", "1 ", "inf", "NaN", "0x10", "--1", "1e5e5"] {
        assert_eq!(parse_decimal(bad), None, "{bad:?}");
    }
    assert_eq!(parse_decimal("1e400"), Some(f64::INFINITY), "callers refuse non-finite values");
    assert_eq!(parse_decimal("1e-400"), Some(0.0));
    assert_eq!(parse_decimal("12345678901234567890123"), "12345678901234567890123".parse::<f64>().ok());
}

proptest! {
    #[test]
    fn short_decimals_are_exact(int in 0u64..1_000_000_000, frac in 0u64..1_000_000, digits in 0usize..7, exp in -22i32..=22, neg in any::<bool>(), with_exp in any::<bool>()) {
        use vram_ledger::ledger::units::parse_decimal;
        // The power of ten the digits end at stays within ±22 (the fast path's range).
        prop_assume!(!with_exp || exp - digits as i32 >= -22);
        let frac = format!("{frac:06}");
        let mut t = format!("{}{int}", if neg { "-" } else { "" });
        if digits > 0 {
            t.push('.');
            t.push_str(&frac[..digits]);
        }
        if with_exp {
            t.push_str(&format!("e{exp}"));
        }
        prop_assert_eq!(parse_decimal(&t), t.parse::<f64>().ok(), "{}", t);
    }

    #[test]
    fn long_decimals_are_close(m in 1u64..u64::MAX, exp in -300i32..300) {
        use vram_ledger::ledger::units::parse_decimal;
        let t = format!("{m}e{exp}");
        let (a, b) = (parse_decimal(&t).unwrap_or(f64::NAN), t.parse::<f64>().unwrap_or(f64::NAN));
        // Beyond the exact fast path the power of ten is `powi`'s repeated squaring: up to ~9
        // roundings of half an ulp each for |exp| < 300 (m = 12746262587281160960, exp = 270 came
        // out 9.2e-16 apart), so within 1e-14, not 1e-15.
        prop_assert!(a == b || ((a - b) / b).abs() < 1e-14, "{} {} {}", t, a, b);
    }
}

proptest! {
    /// The hand-written occurrence scan (`units::occurrences`, kept out of the page's wasm with
    /// `units::find`) gives what the standard library's `match_indices` gives.
    #[test]
    fn occurrences_are_the_standard_library_s(hay in "[ab中 ]{0,40}", needle in "[ab中]{1,3}") {
        let ours: Vec<usize> = vram_ledger::ledger::units::occurrences(&hay, &needle).collect();
        let std: Vec<usize> = hay.match_indices(needle.as_str()).map(|(i, _)| i).collect();
        prop_assert_eq!(ours, std);
    }
}
