//! The OOM decision tree against the chapter's flowchart, its levers against the ledger, and the
//! diagnosis against a table of measured cases.

mod common;
use common::scenario;
use vram_ledger::ledger::bill::ComponentId;
use vram_ledger::ledger::estimate;
use vram_ledger::query;
use vram_ledger::tree::{self, diagnose, diagram, layout, levers, node, Lever, Measured, NodeId, EDGES, NODES};

/// The chapter's mermaid flowchart (chapter-7.1 "图解 · OOM 排查决策树"), node by node: our label
/// must contain the chapter's text (line breaks `<br>` become new lines).
#[test]
fn nodes_match_the_chapter() {
    let chapter = [
        (NodeId::Oom, "OOM!"),
        (NodeId::Measure, "第 0 步:先测量\nmax_memory_allocated + nvidia-smi"),
        (NodeId::Zombie, "僵尸进程 / 残留占用?"),
        (NodeId::Kill, "kill 干净,重跑"),
        (NodeId::Batch, "① 降 batch + 梯度累积"),
        (NodeId::Checkpointing, "② 开 gradient checkpointing"),
        (NodeId::DtypeNoGrad, "③ 查 dtype 混用 / 忘 no_grad / tensor 收集器"),
        (NodeId::SeqLen, "④ 降 seq len / 分辨率 / 压视觉 token"),
        (NodeId::PeakVsTotal, "峰值 ≈ 总量仍 OOM?"),
        (NodeId::Fragmentation, "PYTORCH_CUDA_ALLOC_CONF\n=expandable_segments:True"),
        (NodeId::Sharding, "FSDP / DeepSpeed ZeRO(7.3)"),
    ];
    assert_eq!(NODES.len(), chapter.len());
    for (id, text) in chapter {
        assert_eq!(node(id).label.zh, text, "{id:?}");
        assert!(!node(id).label.en.is_empty());
        assert_eq!(NodeId::from_id(id.id()), Some(id), "ids round-trip");
    }
}

/// Every edge of the flowchart, with both decisions' yes/no branches.
#[test]
fn edges_match_the_chapter() {
    let chapter = [
        ("oom", "measure", None),
        ("measure", "zombie", None),
        ("zombie", "kill", Some("是")),
        ("zombie", "batch", Some("否")),
        ("batch", "checkpointing", None),
        ("checkpointing", "dtype", None),
        ("dtype", "seq", None),
        ("seq", "peak", None),
        ("peak", "fragmentation", Some("是,碎片")),
        ("peak", "sharding", Some("否,真不够")),
    ];
    assert_eq!(EDGES.len(), chapter.len());
    for (e, (from, to, label)) in EDGES.iter().zip(chapter) {
        assert_eq!((e.from.id(), e.to.id(), e.label.map(|l| l.zh)), (from, to, label));
    }
}

#[test]
fn every_card_is_complete_and_snippets_cover_the_tools() {
    let mut all_code = String::new();
    for n in NODES.iter() {
        for text in [n.card.what, n.card.why, n.card.cost] {
            assert!(!text.zh.is_empty() && !text.en.is_empty(), "{:?}", n.id);
        }
        for s in n.card.check {
            all_code.push_str(s.code);
            all_code.push('\n');
        }
    }
    for needle in [
        "torch.cuda.max_memory_allocated()",
        "torch.cuda.memory_summary()",
        "nvidia-smi",
        "torch.inference_mode()",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    ] {
        assert!(all_code.contains(needle), "{needle}");
    }
}

#[test]
fn layout_has_no_overlaps_and_svg_has_every_node() {
    let places = layout();
    assert_eq!(places.len(), NODES.len());
    for (i, a) in places.iter().enumerate() {
        for b in &places[i + 1..] {
            assert!(a.rank != b.rank || (a.column - b.column).abs() >= 1.0, "{:?} overlaps {:?}", a.id, b.id);
        }
    }
    // Every edge goes one rank down.
    for e in EDGES.iter() {
        let r = |id| places.iter().find(|p| p.id == id).map(|p| p.rank);
        assert_eq!(r(e.from).map(|x| x + 1), r(e.to), "{e:?}");
    }
    for zh in [true, false] {
        let d = diagram(zh);
        assert_eq!(d.nodes.len(), NODES.len());
        assert_eq!(d.edges.len(), EDGES.len());
        // Every node lies inside the drawing, and no two boxes overlap.
        for (i, a) in d.nodes.iter().enumerate() {
            assert!(
                a.x >= 0.0 && a.y >= 0.0 && a.x + d.node_width <= d.width && a.y + d.node_height <= d.height,
                "{:?}",
                a.id
            );
            assert!(!a.lines.is_empty() && a.lines[0].main);
            for b in &d.nodes[i + 1..] {
                let apart = (a.x - b.x).abs() >= d.node_width || (a.y - b.y).abs() >= d.node_height;
                assert!(apart, "{:?} overlaps {:?}", a.id, b.id);
            }
        }
    }
    let label = |zh: bool, needle: &str| {
        diagram(zh).edges.iter().any(|e| e.label.as_ref().is_some_and(|l| l.0.contains(needle)))
    };
    assert!(label(true, "是,碎片"));
    assert!(label(false, "no, a real shortage"));
}

/// Each lever changes exactly the one variable it names, and moves memory in the right direction
/// by the amount the ledger predicts.
#[test]
fn levers_change_one_thing_and_save_what_the_ledger_says() {
    let s = scenario("model=llama-3.1-8b&method=lora&batch=8&accum=2&gc=0&seq=4096&precision=fp32&gpu=a100-80g");
    let before = estimate(&s);

    let t = Lever::HalveBatch.apply(&s).expect("applies");
    assert_eq!((t.batch, t.accum), (4, 4));
    assert_eq!(t.effective_batch(), s.effective_batch(), "same effective batch");
    let after = estimate(&t);
    // Activations and logits are linear in the batch: they halve exactly.
    for c in [ComponentId::Activations, ComponentId::Logits] {
        assert!((2 * after.component(c) as i64 - before.component(c) as i64).abs() <= 2, "{c:?}");
    }
    assert_eq!(after.component(ComponentId::Weights), before.component(ComponentId::Weights));

    let t = Lever::Checkpointing.apply(&s).expect("applies");
    assert!(t.checkpointing.is_on() && t.batch == s.batch && t.seq == s.seq);
    assert!(estimate(&t).component(ComponentId::Activations) * 5 < before.component(ComponentId::Activations));

    let t = Lever::OneDtype.apply(&s).expect("applies");
    assert_eq!(t.precision, vram_ledger::ledger::scenario::Precision::Mixed);
    assert!(estimate(&t).component(ComponentId::Activations) < before.component(ComponentId::Activations));

    let t = Lever::ShorterSequence.apply(&s).expect("applies");
    assert_eq!(t.seq, 2048);

    let t = Lever::Shard.apply(&s).expect("applies");
    assert_eq!((t.gpus, t.zero), (2, 3));
    assert!(estimate(&t).device_bytes() < before.device_bytes());

    // NF4 for the 6.98 B linear weights (0.516 B each) + the embedding, head and norms (1.05 B),
    // which PEFT's k-bit recipe (QLoRA's default) holds in fp32: × 4 B = 3.60 + 4.20 = 7.8 GB
    // against 16.1 GB in bf16.
    let t = Lever::Qlora.apply(&s).expect("applies");
    let ratio = estimate(&t).component(ComponentId::Weights) as f64 / before.component(ComponentId::Weights) as f64;
    assert!((ratio - 7.80 / 16.06).abs() < 0.01, "{ratio}");

    for l in Lever::ALL {
        if let Some(saved) = tree::saving(&s, l) {
            let t = l.apply(&s).expect("applies");
            assert_eq!(saved as i128, before.device_bytes() as i128 - estimate(&t).device_bytes() as i128);
            assert!(saved > 0, "{l:?} saves memory here");
        }
    }
    // Levers that do not apply say so.
    let on = scenario("gc=1&batch=1");
    assert_eq!(Lever::Checkpointing.apply(&on), None);
    assert_eq!(Lever::HalveBatch.apply(&on), None);
    assert_eq!(Lever::Adam8bit.apply(&scenario("mode=infer")), None);
    assert_eq!(
        levers(NodeId::Sharding),
        &[
            Lever::Shard,
            Lever::Adam8bit,
            Lever::Qlora,
            Lever::Offload,
            Lever::RefPrecomputed,
            Lever::NoKl,
            Lever::RolloutServer
        ]
    );
    // ⑦ expandable segments: the allocator's slack on what a step frees, 14 % → 2 %, in training only,
    // once (the bill: docs/training.md, `alloc`).
    assert_eq!(levers(NodeId::Fragmentation), &[Lever::Expandable]);
    let t = Lever::Expandable.apply(&s).expect("applies");
    assert_eq!(t.alloc, vram_ledger::ledger::scenario::Allocator::Expandable);
    assert_eq!(Lever::Expandable.apply(&t), None);
    assert_eq!(Lever::Expandable.apply(&scenario("mode=infer")), None);
    let slack = |s: &vram_ledger::ledger::Scenario| estimate(s).component(ComponentId::AllocatorSlack) as i64;
    assert_eq!(tree::saving(&s, Lever::Expandable), Some(slack(&s) - slack(&t)));
    // ZeRO-Offload: ZeRO-2 with the optimizer in host RAM, on one GPU too; for full fine-tuning
    // only (LoRA's states are small beside ZeRO-2's buckets); not twice. Llama-3.1-8B full, mixed:
    // the master weights and AdamW states, 12 B × 8,030,261,248, and the step's fp32 temporaries leave.
    assert_eq!(Lever::Offload.apply(&s), None, "LoRA");
    let full = scenario("model=llama-3.1-8b&method=full&gpu=a100-80g");
    let t = Lever::Offload.apply(&full).expect("applies");
    assert_eq!((t.zero, t.offload), (2, vram_ledger::ledger::scenario::Offload::Optimizer));
    assert!(tree::saving(&full, Lever::Offload).expect("saves") > 12 * 8_030_261_248);
    assert_eq!(Lever::Offload.apply(&t), None);
    assert_eq!(Lever::Offload.apply(&scenario("mode=infer")), None);
}

/// Visual tokens: with images dominating the sequence, the lever halves the visual tokens.
#[test]
fn shorter_sequence_halves_visual_tokens_for_vlms() {
    let s = scenario("model=qwen2-vl-7b&images=4&image_px=1344&seq=512");
    // 1344 / 28 = 48 → 2304 tokens per image; 4 images = 9216 tokens.
    assert_eq!(s.vision_tokens(), 9216);
    let t = Lever::ShorterSequence.apply(&s).expect("applies");
    assert_eq!(t.seq, 512);
    let ratio = t.vision_tokens() as f64 / s.vision_tokens() as f64;
    assert!((ratio - 0.5).abs() < 0.05, "{ratio}");
}

/// A table of measured cases and the path the tree must take (GiB; the default 500 MiB context).
/// Typed numbers go the way of a paste: free = total − nvidia-smi's used, this process = reserved +
/// the context.
#[test]
fn diagnosis_takes_the_right_path() {
    use vram_ledger::tree::paste::{Advice, Cause};
    let s = scenario("model=llama-3.1-8b&method=lora&batch=8&gc=0&gpu=rtx4090");
    let m = |allocated, reserved, device_used, total| Measured { allocated, reserved, device_used, total };
    // nvidia-smi shows 23.5 GiB but this process holds 12 + 0.49 (context): another holds ~11 GiB.
    let d = diagnose(&m(11.0, 12.0, 23.5, 24.0), &s).expect("valid");
    assert_eq!((d.cause, d.path.last()), (Cause::Zombie, Some(&NodeId::Kill)));
    let others = d.other_processes.expect("others") / (1u64 << 30) as f64;
    assert!((others - 11.01).abs() < 0.02, "{others}");
    // Reserved 22 of which only 14 allocated: fragmentation.
    let d = diagnose(&m(14.0, 22.0, 22.6, 24.0), &s).expect("valid");
    assert_eq!(d.path.last(), Some(&NodeId::Fragmentation));
    assert!(d.path.contains(&NodeId::PeakVsTotal) && !d.path.contains(&NodeId::Kill));
    // Peak well under the total and still an OOM: fragmentation too (§3 ⑦).
    let d = diagnose(&m(15.0, 16.0, 16.5, 24.0), &s).expect("valid");
    assert_eq!(d.path.last(), Some(&NodeId::Fragmentation));
    // Live tensors at 92 % of the card, little cache: a real shortage. At batch 8 without
    // checkpointing, checkpointing cuts the most, so the tree stops at its node with it first.
    let d = diagnose(&m(22.0, 23.2, 23.7, 24.0), &s).expect("valid");
    assert_eq!(d.cause, Cause::Shortage);
    assert_eq!(d.path.last(), Some(&NodeId::Checkpointing));
    let first = d.advice.iter().find(|a| matches!(a, Advice::Saves { .. }));
    assert!(matches!(first, Some(Advice::Saves { lever: Lever::Checkpointing, .. })), "{:?}", d.advice);
    // Bad measurements are refused.
    assert!(diagnose(&m(10.0, 5.0, 12.0, 24.0), &s).is_err());
    assert!(diagnose(&m(f64::NAN, 5.0, 12.0, 24.0), &s).is_err());
    assert!(diagnose(&m(1.0, 2.0, 3.0, 0.0), &s).is_err());
}

/// Long labels wrap inside their box: no line wider than the box, in either language.
#[test]
fn labels_wrap_to_the_box() {
    use vram_ledger::tree::wrap;
    let lines = wrap("③ Mixed dtypes / forgotten no_grad / tensor collector", 16.5);
    assert!(lines.len() >= 2, "{lines:?}");
    assert_eq!(lines.join(" "), "③ Mixed dtypes / forgotten no_grad / tensor collector");
    let zh = wrap("③ 查 dtype 混用 / 忘 no_grad / tensor 收集器", 16.5);
    assert!(zh.len() >= 2, "{zh:?}");
    assert_eq!(wrap("OOM!", 16.5), vec!["OOM!"]);
    assert_eq!(wrap("a\nb", 16.5), vec!["a", "b"]);
}

/// The five-OOM drill: each mistake shows its own signature in the bill, and the tree's diagnosis,
/// fed the ledger's own totals, finds the zombie.
#[test]
fn drill_signatures() {
    let base = scenario("model=llama-3.1-8b&seq=1024&batch=2");
    let with = |d: &str| scenario(&format!("model=llama-3.1-8b&seq=1024&batch=2&drill={d}"));
    let b0 = estimate(&base);

    // Evaluation without no_grad: a second graph without checkpointing, larger than what
    // checkpointed training keeps.
    let b = estimate(&with("no_grad"));
    assert!(b.component(ComponentId::EvalGraph) > 5 * b0.component(ComponentId::Activations));
    // Logits in a list: 10 steps × 2 × 1024 × 128,256 × 2 B = 5,253,365,760 B.
    assert_eq!(estimate(&with("tensor_list")).component(ComponentId::KeptTensors), 10 * 2 * 1024 * 128_256 * 2);
    // Embedding and LM head in fp32: 2 × 128,256 × 4096 params × 2 extra bytes.
    assert_eq!(estimate(&with("fp32_module")).component(ComponentId::Fp32Module), 2 * 128_256 * 4096 * 2);
    // A zombie: on the device, not in this process's allocator.
    let z = estimate(&with("zombie"));
    assert_eq!(z.allocated_bytes(), b0.allocated_bytes());
    assert_eq!(z.reserved_bytes(), b0.reserved_bytes());
    assert_eq!(z.device_bytes() - b0.device_bytes(), 8_030_261_248 * 2 + 500 * 1024 * 1024);
    let gib = |x: u64| x as f64 / (1u64 << 30) as f64;
    let m = Measured {
        allocated: gib(z.allocated_bytes()),
        reserved: gib(z.reserved_bytes()),
        device_used: gib(z.device_bytes()),
        total: gib(z.gpu_bytes),
    };
    let d = diagnose(&m, &with("zombie")).expect("valid");
    assert_eq!(d.path.last(), Some(&NodeId::Kill));
    // Links carry the drill.
    assert_eq!(query::to_query(&with("zombie,no_grad"), &[]), "seq=1024&batch=2&drill=no_grad,zombie");
    assert!(query::parse("drill=no_grad,oops")
        .errors
        .iter()
        .any(|e| e.key == "drill" && e.message.to_string().contains("oops")));
}
