#!/usr/bin/env python3
"""measure_generate.py — what Hugging Face's generate() holds at its peak, measured on the CPU.

The ledger's inference bill for `engine=hf` (src/ledger/inference.rs) is the weights, the KV cache of
prompt + generated tokens, the prefill's transient peak and the last position's logits. This script
checks that sum against transformers itself without a GPU: it builds the query's Llama- or
Qwen2-style decoder (a preset or a `model=custom` shape, read through `vram-ledger --json`) with random
weights and nothing downloaded, runs `model.generate()` greedily for `gen` new tokens, and tracks every
tensor created while it runs (tools/measure_saved.py's PeakTracker: a TorchDispatchMode, each storage
once, released when it dies). The peak, weights and the input excluded, is the ledger's
`generate_peak` kind (the allocated total less the weights). It also prints the peak of the prefill
alone (the first forward call), to show where the peak is.

    python tools/measure_generate.py                 # the default cases
    python tools/measure_generate.py 'QUERY' ...     # mode=infer, quant=bf16 or fp32, attn=sdpa or eager

CPU kernels may keep transients CUDA's do not (and the reverse); the tracker counts what the
operators return, not the allocator's blocks. Needs torch and transformers.
"""

import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from measure_gpu import QueryError, slug  # noqa: E402
from measure_saved import PeakTracker, family, ledger_architecture  # noqa: E402
from measure_gpu import parse_query  # noqa: E402
from urllib.parse import parse_qsl  # noqa: E402

# Four layers of a Llama-3.2-1B-like shape with its 128k vocabulary, and of a Qwen2.5-0.5B-like one:
# long prompts, long generations, a batch of 16.
LLAMA = "model=custom&layers=4&hidden=2048&heads=32&kv_heads=8&head_dim=64&ffn=8192&vocab=128256&tied=0"
QWEN = "model=qwen2.5-0.5b&layers=4"
DEFAULT_CASES = [
    LLAMA + "&mode=infer&attn=sdpa&seq=8192&gen=8&batch=1",
    LLAMA + "&mode=infer&attn=sdpa&seq=2048&gen=64&batch=1",
    LLAMA + "&mode=infer&attn=sdpa&seq=512&gen=128&batch=16",
    LLAMA + "&mode=infer&attn=eager&seq=2048&gen=8&batch=1",
    QWEN + "&mode=infer&attn=sdpa&seq=8192&gen=8&batch=1",
    QWEN + "&mode=infer&attn=sdpa&seq=256&gen=256&batch=16",
]


def parse(query):
    model = dict(parse_qsl(query.lstrip("?"))).get("model", "custom")
    run = parse_query(query, None if model == "custom" else ledger_architecture(query))
    if run["mode"] != "infer":
        raise QueryError("measure_generate.py measures generate() (mode=infer)")
    if run["quant"] not in ("bf16", "fp32"):
        raise QueryError("`quant`: bf16 or fp32 weights")
    if run["attn"] == "flash":
        raise QueryError("`attn=flash`: use sdpa on the CPU")
    arch = run.get("architecture")
    if arch is not None and family(arch) not in ("llama", "qwen2"):
        raise QueryError("`model`: Llama- and Qwen2-style decoders only")
    return run


def build(run, torch):
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    arch = run.get("architecture")
    qwen = arch is not None and family(arch) == "qwen2"
    common = dict(
        vocab_size=run["vocab"], hidden_size=run["hidden"], intermediate_size=run["ffn"],
        num_hidden_layers=run["layers"], num_attention_heads=run["heads"], num_key_value_heads=run["kv_heads"],
        tie_word_embeddings=bool(run["tied"]), max_position_embeddings=run["seq"] + run["gen"] + 1,
        attn_implementation=run["attn"],
    )
    if qwen:
        Config, Model = Qwen2Config, Qwen2ForCausalLM
    else:
        common["head_dim"] = run["head_dim"]
        Config, Model = LlamaConfig, LlamaForCausalLM
    dtype = torch.float32 if run["quant"] == "fp32" else torch.bfloat16
    return Model(Config(**common)).to(dtype).eval()


def generate_peaks(run):
    """(peak of the whole generate() call, peak of its prefill) in bytes, weights and input excluded."""
    import torch

    model = build(run, torch)
    ids = torch.randint(1, run["vocab"], (run["batch"], run["seq"]))
    mask = torch.ones_like(ids)
    tracker = PeakTracker(torch, list(model.parameters()) + list(model.buffers()) + [ids, mask])
    prefill = []
    handle = model.register_forward_hook(lambda *_: prefill.append(tracker.peak) if not prefill else None)
    with torch.inference_mode(), tracker:
        model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=run["gen"], min_new_tokens=run["gen"],
                       do_sample=False, pad_token_id=0, eos_token_id=None)
    handle.remove()
    return tracker.peak, (prefill[0] if prefill else 0)


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    queries = args or DEFAULT_CASES
    try:
        runs = [parse(q) for q in queries]
    except QueryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        import torch
        import transformers
    except ImportError:
        print("error: measure_generate.py needs torch and transformers", file=sys.stderr)
        return 2
    versions = f"transformers {transformers.__version__}, torch {torch.__version__}"
    today = datetime.date.today().isoformat()
    print(f"# tools/measure_generate.py ({versions}): paste into tests/data/measured.toml\n")
    for run in runs:
        peak, prefill = generate_peaks(run)
        print("\n".join([
            "[[case]]",
            f'id = "generate-{slug(run["query"], run)}"',
            f'query = "{run["query"]}"',
            f"figure = {peak / 2**20:.3f}",
            'unit = "MiB"',
            'kind = "generate_peak"',
            "unknowns = []",
            "tolerance = 0.1",
            f'source = "tools/measure_generate.py: transformers\' {family(run["architecture"]) if run.get("architecture") else "llama"} decoder, greedy generate(), {versions}, {today}"',
            'url = "../tools/measure_generate.py"',
            f'note = "Our own count, {peak:,} B: every tensor generate() created on the CPU (weights and the input excluded); the prefill alone peaked at {prefill:,} B; random weights."',
            "",
        ]))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
