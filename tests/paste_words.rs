//! What a report says in words and flags rather than in PyTorch's numbers: the configuration it
//! describes (`tree::described`), billed by the ledger; the reporter's phrases for a leak, another
//! process, a long sample, expandable segments, host RAM; an engine told to take the whole card;
//! the ranks of one launch on one GPU. Hand-written pastes, expectations by hand arithmetic.

use vram_ledger::i18n::{render, Lang};
use vram_ledger::ledger::msg::{Arg, MsgId};
use vram_ledger::tree::described;
use vram_ledger::tree::paste::{diagnose_paste, diagnose_reading, Advice, Cause, Pasted};
use vram_ledger::tree::reader::{read, Reading};

const GIB: f64 = 1073741824.0;

fn bytes_arg(p: &Pasted, i: usize) -> f64 {
    match p.why.args.get(i) {
        Some(Arg::Bytes(b)) => *b,
        other => panic!("argument {i} of {:?}: {other:?}", p.why.id),
    }
}

fn first_do(p: &Pasted) -> MsgId {
    match p.advice.first() {
        Some(Advice::Do(m)) => m.id,
        other => panic!("first advice: {other:?}"),
    }
}

/// The link carries the described configuration: the same diagnosis from the link as from the text.
fn survives_the_link(text: &str) {
    let r = read(text);
    let back = Reading::from_link(&r.to_link()).expect("link");
    let (a, b) = (diagnose_reading(r, None), diagnose_reading(back, None));
    assert_eq!((a.cause, a.why.id, &a.described), (b.cause, b.why.id, &b.described), "{text}");
}

#[test]
fn a_full_fine_tune_the_report_describes_is_billed_against_its_card() {
    // OpenRLHF #698's words, with the model named: 8.03 B params × (2 B bf16 weights + 2 B
    // gradients + 4 B fp32 master + 8 B Adam moments) = 128.5 GB before any activation, against an
    // 80 GB A100 (81,920 MiB = 80 GiB).
    let text = "I'm running SFT training of Llama-3-8B and running out of memory on an 80 GB A100, even with a batch size of 1 and training sequence length of 128.";
    let items = described::read(&text.to_ascii_lowercase());
    assert_eq!(described::query(&items), "model=llama-3.1-8b&method=full&batch=1&seq=128&gpu=a100-80g");
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Shortage);
    assert_eq!(p.why.id, MsgId::WhyDescribedShortage);
    assert!(bytes_arg(&p, 1) >= 8.03e9 * 16.0, "{}", bytes_arg(&p, 1));
    assert_eq!(bytes_arg(&p, 2), 80.0 * GIB);
    assert_eq!(first_do(&p), MsgId::DoOpenDescribed);
    // Without the user's configuration, the levers are the described one's (LoRA, 8-bit Adam …).
    assert!(p.advice.iter().any(|a| matches!(a, Advice::Saves { bytes, .. } if *bytes > 0)));
    assert_eq!(p.described.as_deref(), Some("model=llama-3.1-8b&method=full&batch=1&seq=128&gpu=a100-80g"));
    survives_the_link(text);
}

#[test]
fn words_for_the_model_the_card_and_the_lengths() {
    let query = |t: &str| described::query(&described::read(&t.to_ascii_lowercase()));
    // A name written with spaces; `8k` before "context"; a card after a Chinese character.
    assert_eq!(
        query("LoRA fine-tuning Llama 3 8B with 8k context length on one RTX 4090"),
        "model=llama-3.1-8b&method=lora&batch=1&seq=8192&gpu=rtx4090"
    );
    assert_eq!(
        query("用A100 单卡40G lora 微调 /home/work/pretrain_model/Qwen3-4B --batch_size 2 --max_length 4096 --gradient_checkpointing false"),
        "model=qwen3-4b&method=lora&batch=2&gc=0&seq=4096&gpu=a100-40g"
    );
    // QLoRA when LoRA comes with 4-bit; the shortest length stated; a card's size when stated.
    assert_eq!(
        query(
            "qlora load_in_4bit qwen2.5-7b-instruct training, max_source_length 1024 max_target_length 512, V100 32GB"
        ),
        "model=qwen2.5-7b&method=qlora&batch=1&seq=1024&gpu=v100-32g"
    );
    // Another model that starts with a preset's name is not that preset; sharding without a GPU
    // count, RL and a model the presets lack give no configuration.
    assert_eq!(query("fine-tuning phi-4-mini on a T4"), "");
    assert_eq!(query("training llama-3.1-8b with deepspeed zero3 on A100s"), "");
    assert_eq!(
        query("training llama-3.1-8b with deepspeed zero3 --nproc_per_node 8 on A100 80G"),
        "model=llama-3.1-8b&method=full&zero=3&batch=1&seq=512&gpus=8&gpu=a100-80g"
    );
    assert_eq!(query("GRPO training of qwen3-8b on an H100"), "");
    assert_eq!(query("微调 minicpm-2b 爆显存"), "");
    // ChatGLM3 is read by its shape (models_beyond_the_presets_are_read_with_their_shapes).
    assert!(query("微调 chatglm3-6b 爆显存").starts_with("model=custom&layers=28&"));
    // A served checkpoint: the engine, its quantization and its tensor-parallel size.
    assert_eq!(
        query("vllm serve Qwen/Qwen2.5-72B-Instruct-AWQ --tensor-parallel-size 2 --max-model-len 32768"),
        "model=qwen2.5-72b&mode=infer&engine=vllm&quant=awq4&seq=32768&gpus=2"
    );
}

#[test]
fn a_configuration_that_fits_says_so_and_leaves_the_cause_open() {
    // LoRA of Qwen3-4B: 4.02 B × 2 B = 8.0 GB of weights on a 40 GB card at 512 tokens.
    let p = diagnose_paste("用A100 单卡40G lora 微调4B的模型 Qwen3-4B 报OOM", None);
    assert_eq!(p.cause, Cause::Unknown);
    assert_eq!(first_do(&p), MsgId::DoDescribedFits);
    let Some(Advice::Do(m)) = p.advice.first() else { unreachable!() };
    let needs = match m.args.get(1) {
        Some(Arg::Bytes(b)) => *b,
        _ => panic!("{m:?}"),
    };
    assert!(needs > 8.0e9 && needs < 40.0 * GIB, "{needs}");
}

#[test]
fn a_served_model_whose_weights_exceed_the_card_is_a_shortage_whatever_the_budget() {
    // vLLM #188: Mistral-7B in fp16 on a 2080 Ti. 7,241,732,096 params × 2 B = 13.49 GiB of weights
    // against the 10.73 GiB PyTorch reports: no `--gpu-memory-utilization` helps.
    let text = "python -m vllm.entrypoints.openai.api_server --model mistralai/Mistral-7B-v0.1 --dtype half --gpu-memory-utilization 0.8\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB (GPU 0; 10.73 GiB total capacity; 9.85 GiB already allocated; 46.44 MiB free; 9.86 GiB reserved in total by PyTorch)";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Shortage);
    assert_eq!(p.why.id, MsgId::WhyDescribedWeights);
    assert!((bytes_arg(&p, 1) / GIB - 7_241_732_096.0 * 2.0 / GIB).abs() < 0.01, "{}", bytes_arg(&p, 1) / GIB);
    assert!((bytes_arg(&p, 2) / GIB - 10.73).abs() < 0.01);
    assert_eq!(first_do(&p), MsgId::DoOpenDescribed);
    // The page's worker sends that configuration as the link to open, the paste kept.
    let r = read(text);
    let q = format!("oom={}", vram_ledger::query::percent_encode(&r.to_link()));
    let Some(vram_ledger::readers::Answer::Diagnosis(d)) =
        vram_ledger::readers::decode(&vram_ledger::readers::diagnosis(&q))
    else {
        panic!("no diagnosis")
    };
    assert_eq!(d.cause, Cause::Shortage);
    assert!(
        d.apply
            .as_deref()
            .is_some_and(|a| a.starts_with("model=mistral-7b&mode=infer&engine=vllm") && a.contains("&oom=")),
        "{:?}",
        d.apply
    );
    survives_the_link(text);
}

#[test]
fn an_engine_told_to_take_the_whole_card_is_its_budget() {
    // MiniCPM-V #640's layout: `--gpu_memory_utilization 1`; the process holds 18.71 of 22.18 GiB
    // (84 %, below the rule for an engine that holds the card), and asks for 4 GiB more.
    let text = "vllm serve /models/MiniCPM-V-2_6 --max-model-len 2048 --gpu_memory_utilization 1\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 22.18 GiB of which 3.47 GiB is free. Process 8007 has 18.71 GiB memory in use. Of the allocated memory 18.29 GiB is allocated by PyTorch, and 142.04 MiB is reserved by PyTorch but unallocated.";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::KvBudget);
    assert_eq!(p.why.id, MsgId::WhyEngineShareHigh);
    assert!(matches!(p.why.args.first(), Some(Arg::Fixed(v, _)) if *v == 1.0));
    // TGI's name for the same setting.
    let tgi = "text-generation-launcher --model-id /models/ --cuda-memory-fraction 0.95\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU  has a total capacity of 44.53 GiB of which 1.94 MiB is free. Process 123210 has 44.52 GiB memory in use. Of the allocated memory 40.92 GiB is allocated by PyTorch, and 754.08 MiB is reserved by PyTorch but unallocated.";
    assert_eq!(diagnose_paste(tgi, None).cause, Cause::KvBudget);
    // 0.9 is not the whole card: the numbers decide.
    let ninety = text.replace("--gpu_memory_utilization 1", "--gpu_memory_utilization 0.9");
    assert_ne!(diagnose_paste(&ninety, None).why.id, MsgId::WhyEngineShareHigh);
    survives_the_link(text);
}

#[test]
fn the_ranks_of_one_launch_on_one_gpu() {
    // LTX-2 #57: PIDs 16746–16749 (a launcher starts them one after another) share GPU 0.
    let text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 15.19 MiB is free. Process 16746 has 20.84 GiB memory in use. Process 16747 has 20.33 GiB memory in use. Process 16748 has 18.94 GiB memory in use. Process 16749 has 18.94 GiB memory in use. Of the allocated memory 19.60 GiB is allocated by PyTorch, and 225.59 MiB is reserved by PyTorch but unallocated.";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Other);
    assert_eq!(p.why.id, MsgId::WhyRanksShareGpu);
    // 20.84 + 20.33 + 18.94 + 18.94 = 79.05 GiB.
    assert!((bytes_arg(&p, 1) / GIB - 79.05).abs() < 1e-9);
    survives_the_link(text);
    // Two runs started apart (PIDs 149826 and 150072) are other processes, not ranks.
    let two = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total capacty of 31.73 GiB of which 24.69 MiB is free. Process 149826 has 16.98 GiB memory in use. Including non-PyTorch memory, this process has 14.72 GiB memory in use. Of the allocated memory 14.41 GiB is allocated by PyTorch, and 11.15 MiB is reserved by PyTorch but unallocated.";
    assert_eq!(diagnose_paste(two, None).cause, Cause::Zombie);
}

#[test]
fn one_listed_process_beside_a_small_one_of_ours_is_another_process() {
    // ai-toolkit #277: "Process 3774011 has 38.88 GiB" and this process has 494 MiB: the one line is
    // not this process seen from a container (its size is not this process's).
    let text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 MiB. GPU 0 has a total capacity of 39.38 GiB of which 3.81 MiB is free. Process 3774011 has 38.88 GiB memory in use. Including non-PyTorch memory, this process has 494.00 MiB memory in use. Of the allocated memory 62.54 MiB is allocated by PyTorch, and 17.46 MiB is reserved by PyTorch but unallocated.";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Zombie);
    assert!((p.other_processes.unwrap_or(0.0) / GIB - 38.88).abs() < 1e-9);
}

#[test]
fn what_reporters_say_in_words() {
    let cause = |t: &str| diagnose_paste(t, None).cause;
    assert_eq!(cause("为什么我在训练的时候显存会一直增加到爆了"), Cause::TensorList);
    assert_eq!(
        cause("the usage of gpu memory increases after several steps, missing the detach() on the metric"),
        Cause::TensorList
    );
    assert_eq!(cause("验证阶段显存一直增加,最后 CUDA out of memory"), Cause::EvalNoGrad);
    assert_eq!(cause("我运行nvidia-smi,发现有个进程把显存全吃了,杀掉再运行训练的命令又出现"), Cause::Zombie);
    assert_eq!(
        cause("At step 4 during loss.backward() I get CUDA out of memory. When I enable expandable segments by setting PYTORCH_CUDA_ALLOC_CONF, the code runs fine."),
        Cause::Fragmentation
    );
    assert_eq!(
        cause("While running LoRA SFT the training failed with CUDA out of memory error at step 164."),
        Cause::LongTail
    );
    assert_eq!(cause("有一个异常分段13000多字,跑到一半报 CUDA out of memory"), Cause::LongTail);
    assert_eq!(
        cause("every worker process holds ~230 GB RSS, the node hits the memory threshold and the worker is killed"),
        Cause::HostRam
    );
    assert_eq!(cause("加载模型时直接爆内存了,子进程都被kill了"), Cause::HostRam);
    assert_eq!(cause("部署qwen2VL-7b-awq模型,使用VLLM镜像,总是会报超过显存的问题"), Cause::KvBudget);
    // PyTorch's own hint is not the reporter saying expandable segments helped.
    let hint = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.68 GiB of which 609.81 MiB is free. Of the allocated memory 20.90 GiB is allocated by PyTorch, and 1.87 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation. It works otherwise.";
    assert!(!read(hint).signals.expandable_helped);
    // Without any of these, a bare error stays "unknown" with what to paste.
    assert_eq!(cause("RuntimeError: CUDA error: out of memory"), Cause::Unknown);
}

#[test]
fn an_engine_log_inside_a_trainer_that_ran_out_is_the_rollout() {
    // TRL #2688: vLLM's start-up lines inside GRPOTrainer, then "I get oom on the vLLM device".
    let text = "when enabling vLLM and using deepspeed I get oom on the vLLM device when the model is loading:\nINFO 01-30 05:50:12 model_runner.py:1115] Loading model weights took 0.0000 GB\nINFO 01-30 05:50:16 worker.py:266] the current vLLM instance can use total_gpu_memory (79.10GiB) x gpu_memory_utilization (0.90) = 71.19GiB\nINFO 01-30 05:50:16 worker.py:266] model weights take 0.00GiB; non_torch_memory takes 0.00GiB; PyTorch activation peak memory takes 0.00GiB; the rest of the memory reserved for KV Cache is 71.19GiB.\nINFO 01-30 05:50:16 executor_base.py:108] # CUDA blocks: 39874, # CPU blocks: 2240\n  File \"/home/ab/grpo/train.py\", line 173, in <module>\n    trainer = GRPOTrainer(";
    let p = diagnose_paste(text, None);
    assert!(p.startup.is_some(), "the log is still read");
    assert_eq!(p.cause, Cause::Rollout);
}

#[test]
fn ollama_s_llama_cpp_failing_is_ollama_s_estimate() {
    // Ollama #8471: Ollama planned 14.3 of 15.4 GiB, then llama.cpp's allocation failed.
    let text = "ollama[4173706]: msg=\"offload to cuda\" layers.offload=32 memory.available=\"[15.4 GiB]\" memory.required.partial=\"14.3 GiB\"\nollama[4173706]: ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2508.00 MiB on device 0: cudaMalloc failed: out of memory";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Other);
    assert_eq!(p.why.id, MsgId::WhyOllamaEstimate);
}

#[test]
fn hostile_descriptions_do_not_break_the_reader() {
    for text in [
        "training llama-3.1-8b batch_size 99999999999999999999999999 max_length 0 on an A100",
        "training llama-3.1-8b max_length 100000000000 on an A100",
        "training llama-3.1-8b --nproc_per_node 0 --max_length 8k --gpu_memory_utilization 7 on A100 zero3",
        "vllm serve llama-3.1-8b --tensor-parallel-size 99999 on an h100",
        "微调 qwen3-8b 用 0 卡 4090 batch_size为 seq_len: context",
    ] {
        let p = diagnose_paste(text, None);
        assert!(!render(Lang::En, &p.why).contains("NaN"), "{text}");
        survives_the_link(text);
    }
    // A megabyte of names and numbers: read to the end without a panic.
    let long = "llama 3 8b lora batch_size 1 max_length 8k 4090 训练 ".repeat(20_000);
    let p = diagnose_paste(&long, None);
    assert!(p.described.is_some());
}

#[test]
fn counts_cards_and_names_as_people_write_them() {
    let query = |t: &str| described::query(&described::read(&t.to_ascii_lowercase()));
    // "8*A100" and "2 x RTX 4090" count GPUs; a size said without a card is `vram`.
    assert_eq!(
        query("finetune qwen2.5-7b full with deepspeed zero3 on 8*A100 80GB"),
        "model=qwen2.5-7b&method=full&zero=3&batch=1&seq=512&gpus=8&gpu=a100-80g"
    );
    assert_eq!(
        query("vllm serve Qwen/Qwen2.5-14B-Instruct on 2 x RTX 4090 --tensor-parallel-size 2"),
        "model=qwen2.5-14b&mode=infer&engine=vllm&seq=512&gpus=2&gpu=rtx4090"
    );
    assert_eq!(query("训练 qwen3-8b lora,24G显存的卡"), "model=qwen3-8b&method=lora&batch=1&seq=512&vram=24");
    // Loading a model is not training: `from_pretrained` alone with an engine absent gives nothing.
    assert_eq!(query("model = AutoModel.from_pretrained('meta-llama/Llama-3.1-8B') on a 4090: out of memory"), "");
    // A served checkpoint's format comes from its name or `--quantization`, not from the KV cache's.
    assert_eq!(
        query("vllm serve Qwen/Qwen2.5-7B-Instruct --kv-cache-dtype fp8 on an L4"),
        "model=qwen2.5-7b&mode=infer&engine=vllm&seq=512&gpu=l4"
    );
    // Meta's own checkpoint names; a ZeRO stage written as a setting.
    assert_eq!(
        query("fine-tuning meta-llama/Meta-Llama-3.1-8B-Instruct, zero_stage: 2, --nproc_per_node 4, A800 80G"),
        "model=llama-3.1-8b&method=full&zero=2&batch=1&seq=512&gpus=4&gpu=a800-80g"
    );
    assert_eq!(
        query("python -m sglang.launch_server --model-path Qwen/Qwen2.5-32B-Instruct --quantization awq --tp-size 2"),
        "model=qwen2.5-32b&mode=infer&engine=sglang&quant=awq4&seq=512&gpus=2"
    );
}

#[test]
fn a_model_named_only_by_its_size_is_billed_as_the_least_of_that_size() {
    let query = |t: &str| described::query(&described::read(&t.to_ascii_lowercase()));
    // "7B" alone: Llama-2-7B (6.74 B parameters, a 32,000-token vocabulary) bills less than any other
    // 7B preset. Full fine-tuning: 6.74 B × 16 B = 107.8 GB of weights, gradients and Adam states
    // before any activation, against an 80 GB A100.
    let text = "全参微调一个7B的模型, A100 80G, batch_size 1, 报 CUDA out of memory";
    assert_eq!(query(text), "model=llama-2-7b&method=full&batch=1&seq=512&gpu=a100-80g");
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Shortage);
    assert!(bytes_arg(&p, 1) >= 6.74e9 * 16.0, "{}", bytes_arg(&p, 1));
    // A named model wins over its size; "1.5B" is not a whole size; a size no preset has gives nothing.
    assert_eq!(
        query("lora 微调 Qwen3-8B 这个 8b 模型, 4090"),
        "model=qwen3-8b&method=lora&batch=1&seq=512&gpu=rtx4090"
    );
    assert_eq!(query("training a 1.5b model with lora on a T4"), "");
    // The same rule for a length: "1.5k context" is not 5k; the stated max_length stands.
    assert_eq!(
        query("lora fine-tuning qwen3-8b, 1.5k context, max_length 8192, 4090"),
        "model=qwen3-8b&method=lora&batch=1&seq=8192&gpu=rtx4090"
    );
    assert_eq!(query("training a 6b model with lora on a T4"), "");
}

/// Models beyond the presets that reports name (ChatGLM, GLM-4, Yi, Baichuan2, InternLM2, the first
/// Qwen): read as `model=custom` with their config.json's shape. Each shape's parameter count is
/// the count the model's publisher and PEFT's `print_trainable_parameters()` ("all params", less
/// the adapter) give for the loaded checkpoint: ChatGLM-6B 6,173,286,400 (its LM head tied to the
/// embedding, the config's default); ChatGLM2/3-6B 6,243,584,000; GLM-4-9B 9,399,951,360; Yi-6B
/// 6,061,035,520; Yi-34B 34,388,917,248; Baichuan2-7B 7,505,973,248; Baichuan2-13B 13,896,668,160;
/// InternLM2-7B 7,737,708,544; InternLM2-20B 19,861,149,696; Qwen-7B 7,721,324,544; Qwen-14B
/// 14,167,290,880; Qwen-72B 72,287,920,128. By hand, ChatGLM2-6B: 28 × (4096² q + 2·4096·256 k, v
/// + 4608 biases + 4096² o + 3·4096·13696 MLP + 2·4096 norms) + 2·65024·4096 + 4096 = 6,243,584,000.
#[test]
fn models_beyond_the_presets_are_read_with_their_shapes() {
    let published = [
        ("chatglm-6b", 6_173_286_400u64),
        ("THUDM/chatglm2-6b", 6_243_584_000),
        ("chatglm3-6b-32k", 6_243_584_000),
        ("glm-4-9b-chat", 9_399_951_360),
        ("Yi-6B", 6_061_035_520),
        ("Yi-34B-200K", 34_388_917_248),
        ("Baichuan2-7B-Chat", 7_505_973_248),
        ("baichuan2-13b-chat", 13_896_668_160),
        ("internlm2-chat-7b", 7_737_708_544),
        ("internlm2_5-20b-chat", 19_861_149_696),
        ("Qwen-7B-Chat", 7_721_324_544),
        ("qwen-14b", 14_167_290_880),
        ("Qwen-72B-Chat", 72_287_920_128),
    ];
    for (name, count) in published {
        let text = format!("fine-tuning {name} with LoRA on an A100 80G runs out of memory");
        let query = described::query(&described::read(&text.to_ascii_lowercase()));
        assert!(query.starts_with("model=custom&layers="), "{name}: {query}");
        let parsed = vram_ledger::query::parse(&query);
        assert!(parsed.errors.is_empty(), "{name}: {:?}", parsed.errors);
        assert_eq!(parsed.scenario.architecture.parameters(), count, "{name}");
    }
    // Not these: an earlier Baichuan (another vocabulary), a name that continues into another model.
    for other in ["baichuan-13b-chat", "qwen-vl-chat", "yi-vl-34b"] {
        let text = format!("fine-tuning {other} on an A100 80G runs out of memory");
        let query = described::query(&described::read(&text));
        assert!(!query.contains("custom"), "{other}: {query}");
    }
    // Self-LLM #386's configuration: full fine-tuning of GLM-4-9B-chat (9.4 B × 16 B of weights,
    // gradients and Adam states = 150 GB) on an RTX 4090 D (24 GiB) is a shortage.
    let text = "为什么我两张4090D，微调GLM-4-9B-chat都提示oom\nmodel = AutoModelForCausalLM.from_pretrained(\"./model/ZhipuAI/glm-4-9b-chat\", torch_dtype=torch.float16)";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Shortage);
    assert!(bytes_arg(&p, 1) >= 9.39e9 * 16.0, "{}", bytes_arg(&p, 1));
    assert!(p.described.as_deref().is_some_and(|d| d.contains("vocab=151552") && !d.contains("name")));
    // The texts name the model as the report wrote it before its shape; the link has only keys.
    assert!(
        render(Lang::En, &p.why).contains("(glm-4-9b-chat: model=custom&layers=40&"),
        "{}",
        render(Lang::En, &p.why)
    );
    survives_the_link(text);
}

/// `CUDA_VISIBLE_DEVICES` counts the GPUs only when a launcher starts a rank on each.
#[test]
fn visible_devices_count_the_ranks_a_launcher_starts() {
    let query = |t: &str| described::query(&described::read(&t.to_ascii_lowercase()));
    let launched = "training: CUDA_VISIBLE_DEVICES=0,1,2,3 deepspeed main.py --model_name_or_path /opt/Yi-34B/ --zero_stage 2 --max_seq_len 4096";
    assert!(query(launched).ends_with("&seq=4096&gpus=4"), "{}", query(launched));
    // A server sees the devices without sharding over them (Qwen #187: one card of five).
    let served = "CUDA_VISIBLE_DEVICES=0,1,2,3,4 python3 -m vllm.entrypoints.openai.api_server --model /data/models/Qwen1.5-72B-Chat";
    assert!(!query(served).contains("gpus="), "{}", query(served));
}

/// A loss added to a running total with its graph, and the reporter saying `no_grad` was missing.
#[test]
fn a_loss_kept_with_its_graph_and_a_missing_no_grad() {
    let kept = "my cpu ram keeps increasing until out of my 64G ram.\n    train_loss += output.loss\n";
    let p = diagnose_paste(kept, None);
    // RAM that grows while a loss keeps its graph is the loop's, not the host's size.
    assert_eq!(p.cause, Cause::TensorList, "{:?}", p.why.id);
    for freed in ["train_loss += output.loss.item()\n", "running_loss += loss.detach()\n", "tr_loss += tr_loss_step\n"]
    {
        let r = read(&format!("RuntimeError: CUDA error: out of memory\n{freed}"));
        assert!(!r.signals.accumulation, "{freed}");
    }
    let r = read("RuntimeError: CUDA error: out of memory\nrunning_loss += loss\n");
    assert!(r.signals.accumulation);
    let graph = "CUDA out of memory. I think the computational graph of every batch is kept.";
    assert_eq!(diagnose_paste(graph, None).cause, Cause::TensorList);

    for said in [
        "python evaluate.py gives CUDA out of memory because there is not no_grad decorator around the inference script",
        "1920x1080 videos run out of memory (OOM); the difference is whether with torch.inference_mode(): is set or not",
        "推理时 CUDA out of memory，没有加 torch.no_grad()",
    ] {
        assert_eq!(diagnose_paste(said, None).cause, Cause::EvalNoGrad, "{said}");
    }
    // Code that uses no_grad says nothing of a missing one.
    let used = "RuntimeError: CUDA error: out of memory\nwith torch.no_grad():\n    out = model(x)\n";
    assert!(!read(used).signals.evaluation);
}

/// Host RAM as Colab and Ray say it, and 主内存 ("main memory").
#[test]
fn host_ram_as_colab_ray_and_chinese_say_it() {
    for text in [
        "AutoPeftModelForCausalLM.from_pretrained always results in an OOM (Your session crashed after using all available RAM)",
        "Memory on the node ( ID: 37f3bd) where the task was running was 445.48GB / 468.75GB (0.950365), which exceeds the memory usage threshold of 0.95. Ray killed this worker",
        "8张显卡精调时主内存会在加载参数阶段爆掉",
    ] {
        assert_eq!(diagnose_paste(text, None).cause, Cause::HostRam, "{text}");
    }
}

/// A run that failed partway, as reporters write it: the usual step fit.
#[test]
fn a_run_that_failed_partway_is_a_long_tail() {
    for text in [
        "训练了3个epoch，训着训着就cuda out of memory了",
        "Hi，我使用您的代码finetune 运行到16%的时候，出现CUDA out Of memory",
        "如果output很长（1000个中文字左右），微调时就会报 torch.cuda.OutOfMemoryError",
        "one slide caused the CUDA OOM; if I remove that slide the memory usage is 39916MB",
    ] {
        assert_eq!(diagnose_paste(text, None).cause, Cause::LongTail, "{text}");
    }
}

/// A model beyond the presets and their shapes named with its size bills as the least preset of
/// that size (the rule for "a 7B model"): LLaMA-Factory #634's "lora微调Baichuan13b" on a 4090 is
/// Llama-2-13B's 13,015,864,320 × 2 B of weights alone, above 24 GB: a shortage. The digits after a
/// decimal point are no size ("minicpm-2.4b" is not 4B).
#[test]
fn a_model_named_with_its_size_bills_as_that_size() {
    let query = |t: &str| described::query(&described::read(&t.to_ascii_lowercase()));
    assert_eq!(
        query("双卡4090 lora微调Baichuan13b发生OOM错误"),
        "model=llama-2-13b&method=lora&batch=1&seq=512&gpus=2&gpu=rtx4090"
    );
    assert!(query("deepseekv2-prover7B LoRA SFT with TRL, one RTX 3080").starts_with("model=llama-2-7b&"));
    assert!(query("internlm3_8b full fine-tuning on an A100").starts_with("model=llama-3.1-8b&method=full"));
    assert_eq!(query("minicpm-2.4b lora fine-tuning on a 4090"), "");
    // Cards counted in Chinese words are a training run's GPUs; "3张图片" is no card; a server's
    // GPUs are its flags' (vLLM without tensor parallel uses one of the eight).
    assert!(query("四张3090显卡全参数微调qwen2.5-3b，zero-2").contains("&gpus=4&"));
    assert!(query("八卡A800 训练 qwen2.5-7b, zero3").contains("&gpus=8"));
    assert!(!query("lora微调qwen2.5-7b，每条数据有3张图片，单张4090").contains("gpus"));
    assert!(!query("8张A800 启动 vllm serve qwen2.5-72b-instruct").contains("gpus"));
    assert_eq!(query("a 24gb card runs out of memory fine-tuning with lora"), "");
    let p = diagnose_paste("双卡4090 lora微调Baichuan13b发生OOM错误", None);
    assert_eq!(p.cause, Cause::Shortage);
    assert!(bytes_arg(&p, 1) > 13.0e9 * 2.0, "{}", bytes_arg(&p, 1));
}

/// A described run that failed while its least bill sits inside the chapter's 20 % margin is a
/// shortage, as the calculator's own verdict says (LLaMA-Factory #6752: Qwen2.5-3B full fine-tuning
/// with ZeRO-2 over four 24 GB RTX 3090s at 512 tokens: about 20.1 GiB of 24, above 80 %); one that
/// keeps the margin is left open with the bill beside it.
#[test]
fn a_described_run_inside_the_margin_is_a_shortage() {
    let text = "我有四张3090显卡，每张卡24G显存，打算全参数微调qwen2.5-3b，我使用了zero-2，序列长度是512，batch_size为1，为啥显存还不够？";
    let p = diagnose_paste(text, None);
    assert_eq!(p.cause, Cause::Shortage);
    assert_eq!(p.why.id, MsgId::WhyDescribedMargin);
    let (need, card) = (bytes_arg(&p, 1), bytes_arg(&p, 2));
    assert!(need > 0.8 * card && need <= card, "{need} of {card}");
    // Qwen2.5-0.5B the same way keeps the margin: the cause stays open.
    let small = diagnose_paste(&text.replace("qwen2.5-3b", "qwen2.5-0.5b"), None);
    assert_eq!(small.cause, Cause::Unknown);
    assert_eq!(first_do(&small), MsgId::DoDescribedFits);
}

/// A serving engine that took the card's memory without failing is its budget, by design (TGI
/// #1599: "As soon as the shards are set up, the GPU memory gets immediately filled up"); the same
/// words without an engine are no diagnosis, and an engine's out-of-memory keeps its own rules.
#[test]
fn an_engine_that_takes_the_card_is_its_budget() {
    let tgi = "docker run ghcr.io/huggingface/text-generation-inference:1.4 --model-id mistralai/Mixtral-8x7B-Instruct-v0.1\nAs soon as the shards are set up, the GPU memory gets immediately filled up (all 4 cards).";
    let p = diagnose_paste(tgi, None);
    assert_eq!(p.cause, Cause::KvBudget);
    assert_eq!(p.why.id, MsgId::WhyEngineReserves);
    assert_eq!(first_do(&p), MsgId::DoEngineReserves);
    survives_the_link(tgi);
    let zh = "用vllm部署qwen2.5-7b，一启动显存就被占满了，是不是有问题";
    assert_eq!(diagnose_paste(zh, None).cause, Cause::KvBudget);
    // Without an engine the words say nothing of a budget.
    let plain = "my training script: the GPU memory gets immediately filled up";
    assert_ne!(diagnose_paste(plain, None).cause, Cause::KvBudget);
}

/// cuBLAS that cannot create its handle at a full card: `cublasCreate` returns
/// CUBLAS_STATUS_ALLOC_FAILED when "the resources could not be allocated" (cuBLAS documentation),
/// and PyTorch and llama.cpp's ggml-cuda print NOT_INITIALIZED for the same failure. Either is an
/// out-of-memory without numbers: a serving engine's is its budget (llama.cpp #10080: the default
/// context too large for a 12 GB card). NOT_INITIALIZED elsewhere (a driver mismatch) says nothing.
#[test]
fn cublas_failing_to_create_its_handle_is_an_out_of_memory() {
    let llamacpp = "llama-server -m Mistral-7B-Instruct-v0.3.Q4_1.gguf -ngl 31\nggml_cuda_init: found 1 CUDA devices:\n/home/user/llama.cpp/ggml/src/ggml-cuda.cu:70: CUDA error\nCUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n  current device: 0, in function cublas_handle at ggml/src/ggml-cuda/common.cuh:663\n  cublasCreate_v2(&cublas_handles[device])";
    let p = diagnose_paste(llamacpp, None);
    assert!(p.reading.signals.oom);
    assert_eq!(p.cause, Cause::KvBudget);
    let torch = "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`";
    assert!(diagnose_paste(torch, None).reading.signals.oom);
    let driver = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`";
    assert!(!diagnose_paste(driver, None).reading.signals.oom);
}
