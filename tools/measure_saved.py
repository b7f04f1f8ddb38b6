#!/usr/bin/env python3
"""measure_saved.py — what Hugging Face's own Llama keeps for backward, measured on the CPU.

The ledger counts activations tensor by tensor for a Hugging Face decoder block
(src/ledger/activations.rs). This script checks that count against the real thing without a GPU: it
builds transformers' Llama, Qwen2, Gemma-2 or Mixtral model from the ledger's own reading of the query (a preset
or a `model=custom` shape; `vram-ledger --json` gives the architecture), with random weights and nothing
downloaded, adds PEFT LoRA
adapters when the query asks for them, runs one forward and backward pass with the labels as the loss,
and counts every tensor autograd saves (tools/mem_report.py's saved-tensor hooks: parameters excluded,
each storage once). That is the ledger's activations line plus the loss's saved fp32 log-probabilities
— the `saved_tensors` kind of tests/data/measured.toml. It prints `[[case]]` entries to paste there.

    python tools/measure_saved.py                 # the default cases
    python tools/measure_saved.py 'QUERY' ...     # mode=train, gc=0, a Llama/Qwen2/Gemma-2/Mixtral decoder
    python tools/measure_saved.py --peak [QUERY ...]   # the peak of a forward + backward pass (gc=0 or 1)

--peak tracks every tensor the step creates (a TorchDispatchMode; each storage counted once, released
when it dies) and reports the highest total: the ledger's `step_peak` kind (activations, logits,
gradients — everything but what exists before the step). Unlike hooks it sees checkpointing's
recomputation and the loss's transient copies. CPU kernels may differ from CUDA's in transients.

method=qlora quantizes the decoder's linear layers with bitsandbytes NF4 on the CPU (bitsandbytes ≥ 0.45,
so the ledger's `bnb=fixed`). `recipe=peft` (QLoRA's default, as in the ledger) runs PEFT's
prepare_model_for_kbit_training, the Trainer's bf16 autocast and Accelerate's fp32 conversion of the
outputs; `recipe=plain` the model as loaded. `lora_dropout=p` gives the adapters dropout.

Needs torch, transformers and peft. Gradient checkpointing is refused: its recomputation is invisible
to saved-tensor hooks, so the count would not mean what the ledger's line means. Saved tensors are
exact whatever the device, so CPU figures carry no device caveat; peaks are measure_gpu.py's job.
"""

import datetime
import json
import os
import subprocess
import sys
from urllib.parse import parse_qsl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import measure_gpu  # noqa: E402
from measure_gpu import QueryError, TARGETS, parse_query, slug  # noqa: E402

# Keys only this script reproduces: the training recipe (PEFT's prepare_model_for_kbit_training under
# the Trainer's bf16 autocast, or the model as loaded) and LoRA dropout.
measure_gpu.ACCEPTED.update({"recipe": ("peft", "plain"), "lora_dropout": None})

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Two layers of each family's shape (the per-layer count is what is checked): Llama-3.2-1B's layers and
# vocabulary written out; Qwen2.5-7B's (q/k/v biases) and Gemma-2-2B's (four norms, soft-capping, eager
# attention as transformers runs it) from the ledger's presets, with a 32k vocabulary; one layer of
# Mixtral-8x7B (eight experts, two per token).
SHAPE = "model=custom&layers=2&hidden=2048&heads=32&kv_heads=8&head_dim=64&ffn=8192&vocab=128256&tied=0"
DEFAULT_CASES = [
    SHAPE + "&mode=train&method=full&precision=bf16&gc=0&attn=sdpa&seq=512&batch=2",
    SHAPE + "&mode=train&method=full&precision=fp32&gc=0&attn=sdpa&seq=256&batch=2",
    SHAPE + "&mode=train&method=full&precision=bf16&gc=0&attn=eager&seq=512&batch=1",
    SHAPE + "&mode=train&method=lora&precision=bf16&rank=16&targets=qv&gc=0&attn=sdpa&seq=512&batch=2",
    SHAPE + "&mode=train&method=lora&precision=bf16&rank=16&targets=all&gc=0&attn=sdpa&seq=512&batch=2",
    SHAPE + "&mode=train&method=lora&precision=mixed&rank=16&targets=all&gc=0&attn=sdpa&seq=512&batch=2",
    SHAPE + "&mode=train&method=lora&precision=mixed&rank=16&targets=qv&gc=0&attn=eager&seq=512&batch=1",
    "model=qwen2.5-7b&layers=2&vocab=32000&mode=train&method=full&precision=bf16&gc=0&attn=sdpa&seq=512&batch=2",
    "model=qwen2.5-7b&layers=2&vocab=32000&mode=train&method=lora&precision=mixed&rank=16&targets=all&gc=0&attn=sdpa&seq=512&batch=2",
    "model=gemma-2-2b&layers=2&vocab=32000&mode=train&method=full&precision=bf16&gc=0&attn=eager&seq=512&batch=2",
    "model=gemma-2-2b&layers=2&vocab=32000&mode=train&method=lora&precision=bf16&rank=16&targets=all&gc=0&attn=eager&seq=512&batch=2",
    "model=mixtral-8x7b&layers=1&mode=train&method=full&precision=bf16&gc=0&attn=sdpa&seq=512&batch=1",
    "model=mixtral-8x7b&layers=1&mode=train&method=lora&precision=bf16&rank=16&targets=qv&gc=0&attn=sdpa&seq=512&batch=1",
    SHAPE.replace("vocab=128256", "vocab=32000") + "&mode=train&method=qlora&dq=0&precision=bf16&rank=16&targets=qv&gc=0&attn=sdpa&seq=512&batch=2&recipe=plain",
    SHAPE.replace("vocab=128256", "vocab=32000") + "&mode=train&method=qlora&dq=1&precision=mixed&rank=16&targets=qv&gc=0&attn=sdpa&seq=512&batch=2&recipe=plain",
]
# --peak: a forward + backward pass's peak, with and without checkpointing, small and large vocabularies.
SHAPE8 = "model=custom&layers=8&hidden=2048&heads=32&kv_heads=8&head_dim=64&ffn=8192&tied=0"
PEAK_CASES = [
    SHAPE8 + f"&vocab={v}&mode=train&method=lora&precision=bf16&rank=16&targets=all&gc={gc}&attn=sdpa&seq=2048&batch=1"
    for v in (32000, 128256) for gc in (0, 1)
] + [
    SHAPE8 + "&vocab=32000&mode=train&method=qlora&dq=0&precision=bf16&rank=16&targets=all&gc=1&attn=sdpa&seq=2048&batch=1&recipe=plain",
    SHAPE8 + "&vocab=32000&mode=train&method=full&precision=bf16&gc=1&attn=sdpa&seq=1024&batch=1",
] + [
    # PEFT's k-bit recipe (QLoRA's default), with and without checkpointing, both vocabularies.
    SHAPE8 + "&vocab=32000&mode=train&method=qlora&dq=0&precision=bf16&rank=16&targets=all&gc=1&attn=sdpa&seq=2048&batch=1&recipe=peft",
    SHAPE8 + "&vocab=32000&mode=train&method=qlora&dq=0&precision=bf16&rank=16&targets=all&gc=0&attn=sdpa&seq=2048&batch=1&recipe=peft",
    SHAPE8 + "&vocab=128256&mode=train&method=qlora&dq=1&precision=mixed&rank=16&targets=all&gc=1&attn=sdpa&seq=2048&batch=1&recipe=peft",
    SHAPE8 + "&vocab=32000&mode=train&method=qlora&dq=1&precision=mixed&rank=16&targets=qv&gc=0&attn=sdpa&seq=1024&batch=2&recipe=peft",
    # LoRA dropout against none.
    SHAPE8 + "&vocab=32000&mode=train&method=lora&precision=bf16&rank=16&targets=all&gc=0&attn=sdpa&seq=2048&batch=1&lora_dropout=0.1",
    SHAPE8 + "&vocab=32000&mode=train&method=lora&precision=mixed&rank=16&targets=qv&gc=0&attn=sdpa&seq=2048&batch=1&lora_dropout=0.05",
    SHAPE8 + "&vocab=32000&mode=train&method=lora&precision=mixed&rank=16&targets=qv&gc=0&attn=sdpa&seq=2048&batch=1",
]
PEFT_NAMES = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj", "down": "down_proj"}


def ledger_architecture(query):
    """The architecture the ledger reads from `query` (`vram-ledger --json`; $VRAM_LEDGER names the binary)."""
    cli = os.environ.get("VRAM_LEDGER", os.path.join(ROOT, "target", "debug", "vram-ledger"))
    try:
        out = subprocess.run([cli, "--json", query], capture_output=True, text=True)
    except OSError as e:
        raise QueryError(f"cannot run the ledger's CLI ({cli}): build it with `cargo build` ({e})") from None
    if out.returncode != 0 or out.stderr.strip():
        raise QueryError(out.stderr.strip() or f"the ledger refused the query (exit {out.returncode})")
    return json.loads(out.stdout)["model"]["architecture"]


def family(arch):
    """The transformers class that builds this architecture, or None."""
    if arch["vision"] or arch["mlp"] != "Glu" or arch["norm"] != "RmsNorm" or arch["out_and_mlp_bias"]:
        return None
    if arch["moe"]:
        moe = arch["moe"]
        plain = moe["shared"] == 0 and not arch["qkv_bias"] and arch["norms_per_layer"] == 2 and not arch["softcapping"]
        return "mixtral" if plain else None
    if arch["norms_per_layer"] == 4 and arch["softcapping"]:
        return "gemma2"
    if arch["norms_per_layer"] == 2 and not arch["softcapping"]:
        return "qwen2" if arch["qkv_bias"] else "llama"
    return None


def check(run, peak=False):
    if run["mode"] != "train":
        raise QueryError("measure_saved.py measures training steps (mode=train)")
    if run["gc"] != "0" and not peak:
        raise QueryError("`gc=1`: saved-tensor hooks cannot see checkpointing; use gc=0, or --peak")
    if run["method"] == "qlora" and run["quant"] != "nf4":
        raise QueryError("`quant`: QLoRA here is bitsandbytes NF4")
    if run["method"] != "qlora" and run["quant"] not in ("bf16", "fp16", "fp32"):
        raise QueryError("`quant`: a 16/32-bit base, or method=qlora for NF4")
    if run["attn"] == "flash":
        raise QueryError("`attn=flash`: use sdpa on the CPU")
    arch = run.get("architecture")
    if arch is not None:
        fam = family(arch)
        if fam is None:
            raise QueryError("`model`: Llama-, Qwen2-, Gemma-2- and Mixtral-style decoders only")
        if fam == "gemma2" and run["attn"] != "eager":
            raise QueryError("`attn`: transformers runs Gemma-2 with eager attention")
    return run


def parse(query, peak=False):
    """The run of a query, with the ledger's architecture when the query names a preset."""
    model = dict(parse_qsl(query.lstrip("?"))).get("model", "custom")
    return check(parse_query(query, None if model == "custom" else ledger_architecture(query)), peak)


def quantize_linears(model, run, torch):
    """Every linear layer of the decoder blocks as a bitsandbytes NF4 layer (the LM head stays 16-bit,
    as transformers' BitsAndBytesConfig leaves it)."""
    import bitsandbytes as bnb

    blocks = model.model.layers
    for block in blocks:
        for parent in block.modules():
            for name, child in list(parent.named_children()):
                if type(child) is torch.nn.Linear:
                    q = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                          compute_dtype=torch.bfloat16, quant_type="nf4",
                                          compress_statistics=run["dq"] == "1")
                    q.weight = bnb.nn.Params4bit(child.weight.data.clone(), requires_grad=False, quant_type="nf4",
                                                 compress_statistics=run["dq"] == "1")
                    if child.bias is not None:
                        q.bias = torch.nn.Parameter(child.bias.data.clone(), requires_grad=False)
                    setattr(parent, name, q.to("cpu"))
    for p in model.parameters():
        p.requires_grad_(False)
    # What transformers marks a bitsandbytes 4-bit model with (PEFT's k-bit preparation reads it).
    model.is_loaded_in_4bit = True


class PeakTracker:
    """The peak bytes of the tensors created while it is active (a TorchDispatchMode: every operator's
    outputs, counted once per storage, released when the storage dies). Storages that exist when it
    starts (`existing`: weights, buffers, inputs) are not counted, nor are views of them. CPU tensors."""

    def __init__(self, torch, existing=()):
        import weakref
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_flatten

        tracker = self
        self.live, self.current, self.peak = {}, 0, 0
        known = {id(t.untyped_storage()) for t in existing}

        def release(key):
            tracker.current -= tracker.live.pop(key, 0)

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for t in tree_flatten(out)[0]:
                    if isinstance(t, torch.Tensor):
                        storage = t.untyped_storage()
                        key = id(storage)
                        if key not in tracker.live and key not in known and storage.nbytes() > 0:
                            tracker.live[key] = storage.nbytes()
                            tracker.current += storage.nbytes()
                            tracker.peak = max(tracker.peak, tracker.current)
                            weakref.finalize(storage, release, key)
                return out

        self.mode = Mode()

    def __enter__(self):
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)


def build_model(run):
    """transformers' model for the run, with adapters / quantization / checkpointing as asked."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    arch = run.get("architecture")
    fam = family(arch) if arch else "llama"
    common = dict(
        vocab_size=run["vocab"], hidden_size=run["hidden"], intermediate_size=run["ffn"],
        num_hidden_layers=run["layers"], num_attention_heads=run["heads"], num_key_value_heads=run["kv_heads"],
        head_dim=run["head_dim"], tie_word_embeddings=bool(run["tied"]), max_position_embeddings=run["seq"] + 1,
        attn_implementation=run["attn"],
    )
    if fam == "mixtral":
        from transformers import MixtralConfig as Config, MixtralForCausalLM as Model
        common.update(num_local_experts=arch["moe"]["experts"], num_experts_per_tok=arch["moe"]["active"],
                      intermediate_size=arch["moe"]["expert_ffn"])
    elif fam == "gemma2":
        from transformers import Gemma2Config as Config, Gemma2ForCausalLM as Model
    elif fam == "qwen2":
        from transformers import Qwen2Config as Config, Qwen2ForCausalLM as Model
        common.pop("head_dim")
    else:
        Config, Model = LlamaConfig, LlamaForCausalLM
    config = Config(**common)
    full_mixed = run["method"] == "full" and run["precision"] == "mixed"
    dtype = torch.float32 if run["precision"] == "fp32" or full_mixed else torch.bfloat16
    model = Model(config).to(dtype)
    if run["method"] == "qlora":
        quantize_linears(model, run, torch)
    if recipe(run) == "peft":
        # PEFT's standard k-bit recipe (TRL's SFTTrainer < 0.26, most QLoRA tutorials): every
        # non-quantized parameter to fp32, input gradients and checkpointing as the query says.
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(
            model, use_gradient_checkpointing=run["gc"] == "1",
            gradient_checkpointing_kwargs={"use_reentrant": False})
    if run["method"] in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model

        lora = LoraConfig(r=run["rank"], lora_alpha=2 * run["rank"], lora_dropout=float(run.get("lora_dropout", 0)),
                          target_modules=[PEFT_NAMES[t] for t in TARGETS[run["targets"]]])
        # mixed: fp32 adapters on the 16-bit base under autocast (PEFT's default); bf16: bf16 adapters.
        model = get_peft_model(model, lora, autocast_adapter_dtype=run["precision"] == "mixed")
    model.train()
    if run["gc"] == "1" and recipe(run) != "peft":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if run["method"] != "full":
            model.enable_input_require_grads()
    return model


def recipe(run):
    """The recipe a run follows: PEFT's k-bit preparation is QLoRA's default."""
    return run.get("recipe", "peft" if run["method"] == "qlora" else "plain")


def one_step(run, measure):
    """Builds the run's model and runs one forward + backward pass (labels = inputs) inside the context
    manager `measure(torch, model, ids)` returns."""
    import torch

    model = build_model(run)
    ids = torch.randint(0, run["vocab"], (run["batch"], run["seq"]))
    peft_recipe = recipe(run) == "peft"
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=run["precision"] == "mixed" or peft_recipe)
    forward = model.forward
    if peft_recipe:
        # The Trainer's bf16 under Accelerate: autocast, and the outputs converted to fp32.
        from accelerate.utils import convert_outputs_to_fp32

        forward = convert_outputs_to_fp32(model.forward)
    with measure(torch, model, ids):
        with autocast:
            out = forward(input_ids=ids, labels=ids)
            loss = out.loss
            del out
        loss.backward()
        del loss


def saved_bytes(run):
    """Bytes autograd saves in one forward pass of the run (tools/mem_report.py's count)."""
    import mem_report

    reports = []

    def hooks(torch, model, ids):
        reports.append(mem_report.MemReport(model, None, query=run["query"]))
        return reports[0].step()

    one_step(run, hooks)
    return reports[0].activation_bytes


def step_peak_bytes(run):
    """The peak of the tensors one forward + backward pass creates (weights, buffers and the input
    excluded): what the ledger's `step_peak` kind predicts."""
    trackers = []

    def tracker(torch, model, ids):
        trackers.append(PeakTracker(torch, list(model.parameters()) + list(model.buffers()) + [ids]))
        return trackers[0]

    one_step(run, tracker)
    return trackers[0].peak


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    peak = "--peak" in args
    queries = [a for a in args if a != "--peak"] or (PEAK_CASES if peak else DEFAULT_CASES)
    try:
        runs = [parse(q, peak) for q in queries]
    except QueryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        import torch
        import transformers
    except ImportError:
        print("error: measure_saved.py needs torch, transformers and peft", file=sys.stderr)
        return 2
    versions = f"transformers {transformers.__version__}, torch {torch.__version__}"
    if any(r["method"] == "qlora" for r in runs):
        try:
            import bitsandbytes
        except ImportError:
            print("error: method=qlora needs bitsandbytes", file=sys.stderr)
            return 2
        versions += f", bitsandbytes {bitsandbytes.__version__}"
    today = datetime.date.today().isoformat()
    print(f"# tools/measure_saved.py ({versions}): paste into tests/data/measured.toml\n")
    for run in runs:
        nbytes = step_peak_bytes(run) if peak else saved_bytes(run)
        what = ("the peak of the tensors one forward + backward pass created on the CPU (weights, buffers and the input excluded)"
                if peak else "every tensor autograd saved in one forward pass (parameters excluded)")
        print("\n".join([
            "[[case]]",
            f'id = "{"peak" if peak else "saved"}-{slug(run["query"], run)}"',
            f'query = "{run["query"]}"',
            f"figure = {nbytes / 2**20:.3f}",
            'unit = "MiB"',
            f'kind = "{"step_peak" if peak else "saved_tensors"}"',
            "unknowns = []",
            "tolerance = 0.1",
            f'source = "tools/measure_saved.py{" --peak" if peak else ""}: transformers\' {family(run["architecture"]) if run.get("architecture") else "llama"} decoder (+ PEFT), {versions}, {today}"',
            'url = "../tools/measure_saved.py"',
            f'note = "Our own count, {nbytes:,} B: {what}; random weights, labels = inputs."',
            "",
        ]))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
