#!/usr/bin/env python3
"""measure_gpu.py — grow the measured set from our own runs (issue 6).

Builds decoder-only models from their shapes (random weights, nothing downloaded), runs two real
training steps or a prefill + generation on a CUDA GPU, and prints the peaks as `[[case]]` entries of
tests/data/measured.toml (one `allocated`, one `reserved` per run), ready to paste there; then
`make accuracy` shows the ledger against them.

    python tools/measure_gpu.py                  # the default cases, on cuda
    python tools/measure_gpu.py --list           # the default cases' queries (no torch needed)
    python tools/measure_gpu.py 'QUERY' ...      # your own cases

A QUERY is the ledger's vocabulary (docs/query-keys.md), restricted to what a plain PyTorch loop
here reproduces: model=custom with its shape keys (layers, hidden, heads, kv_heads, head_dim, ffn,
vocab, tied; a Llama-style block: RMSNorm, rotary, SwiGLU, no biases), mode, method (full, lora;
qlora and quant=nf4 need bitsandbytes), precision (mixed = fp32 weights under bf16 autocast for
full fine-tuning, bf16 base + fp32 adapters under autocast for LoRA; bf16; fp32), optim (adamw,
sgd, sgdm; adamw8bit needs bitsandbytes), seq, batch, rank, targets, gc, attn (sdpa, eager), gen, dq,
gpu/vram (ignored here). Any other key is refused, naming it. It depends on torch only (bitsandbytes
for the 4-bit and 8-bit cases, which are skipped without it).
"""

import argparse
import datetime
import math
import os
import sys
from urllib.parse import parse_qsl

# Llama-3.2-1B's and Llama-3.2-3B's shapes written out (the ledger has them as presets).
SHAPE_1B = "model=custom&layers=16&hidden=2048&heads=32&kv_heads=8&head_dim=64&ffn=8192&vocab=128256&tied=1"
SHAPE_3B = "model=custom&layers=28&hidden=3072&heads=24&kv_heads=8&head_dim=128&ffn=8192&vocab=128256&tied=1"

DEFAULT_CASES = [
    SHAPE_1B + "&mode=train&method=full&precision=bf16&optim=adamw&seq=1024&batch=4&gc=0&attn=sdpa",
    SHAPE_1B + "&mode=train&method=full&precision=mixed&optim=adamw&seq=1024&batch=4&gc=1&attn=sdpa",
    SHAPE_1B + "&mode=train&method=full&precision=bf16&optim=sgd&seq=512&batch=2&gc=0&attn=eager",
    SHAPE_3B + "&mode=train&method=lora&precision=bf16&rank=16&targets=all&seq=2048&batch=4&gc=1&attn=sdpa",
    SHAPE_3B + "&mode=train&method=lora&precision=mixed&rank=16&targets=qv&seq=1024&batch=2&gc=0&attn=sdpa",
    SHAPE_3B + "&mode=train&method=qlora&precision=mixed&rank=16&targets=all&dq=1&seq=2048&batch=2&gc=1&attn=sdpa",
    SHAPE_3B + "&mode=infer&quant=bf16&seq=4096&batch=8&gen=128&attn=sdpa",
    SHAPE_1B + "&mode=infer&quant=bf16&seq=2048&batch=2&gen=16&attn=eager",
]

SHAPE_KEYS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "tied")
DEFAULTS = {
    "mode": "train", "method": "lora", "precision": "mixed", "optim": "adamw", "seq": "2048",
    "batch": "1", "rank": "16", "targets": "all", "gc": "1", "attn": "sdpa", "gen": "0", "dq": "1",
}
ACCEPTED = {
    "model": None, "mode": ("train", "infer"), "method": ("full", "lora", "qlora"),
    "precision": ("mixed", "bf16", "fp32"), "optim": ("adamw", "adamw8bit", "sgd", "sgdm"),
    "targets": ("qv", "qkvo", "all"), "gc": ("0", "1"), "attn": ("sdpa", "eager", "flash"),
    "quant": ("bf16", "fp16", "fp32", "nf4"), "dq": ("0", "1"), "seq": None, "batch": None, "rank": None,
    "gen": None, "gpu": None, "vram": None, **{k: None for k in SHAPE_KEYS},
}
TARGETS = {"qv": ("q", "v"), "qkvo": ("q", "k", "v", "o"), "all": ("q", "k", "v", "o", "gate", "up", "down")}


class QueryError(ValueError):
    pass


def parse_query(query, architecture=None):
    """The run a query describes, as a dict; QueryError names the key it cannot reproduce.
    `architecture` (the ledger's, from `vram-ledger --json`) lets a preset stand for its shape."""
    pairs = parse_qsl(query.lstrip("?"), keep_blank_values=True)
    run = dict(DEFAULTS)
    for key, value in pairs:
        if key not in ACCEPTED:
            raise QueryError(f"`{key}`: not reproduced by measure_gpu.py")
        allowed = ACCEPTED[key]
        if allowed is not None and value not in allowed:
            raise QueryError(f"`{key}={value}`: accepted here: {', '.join(allowed)}")
        run[key] = value
    if architecture is not None:
        for k in SHAPE_KEYS:
            run[k] = int(architecture["tied_embeddings"]) if k == "tied" else architecture[k]
        run["architecture"] = architecture
    if (run.get("model") != "custom" and architecture is None) or any(k not in run for k in SHAPE_KEYS):
        raise QueryError("`model`: write the shape out: model=custom&" + "&".join(f"{k}=…" for k in SHAPE_KEYS))
    for key in SHAPE_KEYS + ("seq", "batch", "rank", "gen"):
        try:
            run[key] = int(run[key])
        except ValueError:
            raise QueryError(f"`{key}={run[key]}`: a whole number") from None
        if run[key] < (0 if key == "gen" else 1) and key != "tied":
            raise QueryError(f"`{key}={run[key]}`: too small")
    if run["heads"] % run["kv_heads"]:
        raise QueryError("`kv_heads`: must divide heads")
    run.setdefault("quant", "nf4" if run["method"] == "qlora" else "bf16")
    run["query"] = query.lstrip("?")
    return run


def slug(query, run=None):
    """A short stable id for a query (`run`: its parsed form, when the query names a preset)."""
    import hashlib

    run = run or parse_query(query)
    digest = hashlib.sha1(run["query"].encode()).hexdigest()[:6]
    what = run["method"] if run["mode"] == "train" else "infer"
    return f"{what}-{run['layers']}x{run['hidden']}-s{run['seq']}-b{run['batch']}-{digest}"


def toml_case(query, figure_bytes, kind, device, torch_version, today):
    """One [[case]] of the measured set (GiB, the whole configuration known: no unknowns)."""
    gib = figure_bytes / 2**30
    text = [
        "[[case]]",
        f'id = "gpu-{slug(query)}-{kind}"',
        f'query = "{parse_query(query)["query"]}"',
        f"figure = {gib:.4f}",
        'unit = "GiB"',
        f'kind = "{kind}"',
        "unknowns = []",
        "tolerance = 0.1",
        f'source = "tools/measure_gpu.py on {device}, torch {torch_version}, {today}"',
        'url = "../tools/measure_gpu.py"',
        'note = "Our own run: random weights, two training steps (peak over both) or prefill + generation."',
        "",
    ]
    return "\n".join(text)


# ---------------------------------------------------------------- the model (needs torch)

def build(run, torch, nn, F):
    """A Llama-style decoder with the run's shape, dtype, adapters and quantization."""
    compute = {"bf16": torch.bfloat16, "mixed": torch.bfloat16, "fp32": torch.float32}[run["precision"]]
    train = run["mode"] == "train"
    if train and run["method"] == "full":
        weight_dtype = torch.float32 if run["precision"] in ("mixed", "fp32") else torch.bfloat16
    elif not train:
        weight_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}.get(run["quant"], torch.bfloat16)
        compute = weight_dtype
    else:
        weight_dtype = torch.float32 if run["precision"] == "fp32" else torch.bfloat16
    adapter_dtype = torch.float32 if run["precision"] in ("mixed", "fp32") else torch.bfloat16
    quantized = run["method"] == "qlora" or run["quant"] == "nf4"
    if quantized:
        import bitsandbytes as bnb  # noqa: F401 (ImportError skips the case)

    h, hd, heads, kvh = run["hidden"], run["head_dim"], run["heads"], run["kv_heads"]

    def linear(d_in, d_out, name):
        if quantized:
            import bitsandbytes as bnb

            layer = bnb.nn.Linear4bit(d_in, d_out, bias=False, compute_dtype=torch.bfloat16,
                                      compress_statistics=run["dq"] == "1", quant_type="nf4")
        else:
            layer = nn.Linear(d_in, d_out, bias=False, dtype=weight_dtype)
        if train and run["method"] in ("lora", "qlora") and name in TARGETS[run["targets"]]:
            return LoRA(layer, d_in, d_out, run["rank"], adapter_dtype)
        return layer

    class LoRA(nn.Module):
        def __init__(self, base, d_in, d_out, r, dtype):
            super().__init__()
            self.base = base
            self.a = nn.Parameter(torch.randn(r, d_in, dtype=dtype) / math.sqrt(d_in))
            self.b = nn.Parameter(torch.zeros(d_out, r, dtype=dtype))

        def forward(self, x):
            return self.base(x) + F.linear(F.linear(x.to(self.a.dtype), self.a), self.b).to(x.dtype)

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(h, dtype=weight_dtype))

        def forward(self, x):
            x32 = x.float()
            x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-5)
            return self.weight * x32.to(x.dtype)

    def rotate(x, cos, sin):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1, self.n2 = RMSNorm(), RMSNorm()
            self.q, self.k = linear(h, heads * hd, "q"), linear(h, kvh * hd, "k")
            self.v, self.o = linear(h, kvh * hd, "v"), linear(heads * hd, h, "o")
            self.gate, self.up = linear(h, run["ffn"], "gate"), linear(h, run["ffn"], "up")
            self.down = linear(run["ffn"], h, "down")

        def forward(self, x, cos, sin, cache=None, pos=0):
            b, s, _ = x.shape
            y = self.n1(x)
            q = self.q(y).view(b, s, heads, hd).transpose(1, 2)
            k = self.k(y).view(b, s, kvh, hd).transpose(1, 2)
            v = self.v(y).view(b, s, kvh, hd).transpose(1, 2)
            q, k = rotate(q, cos[pos:pos + s], sin[pos:pos + s]), rotate(k, cos[pos:pos + s], sin[pos:pos + s])
            if cache is not None:
                cache[0][:, :, pos:pos + s], cache[1][:, :, pos:pos + s] = k, v
                k, v = cache[0][:, :, : pos + s], cache[1][:, :, : pos + s]
            k = k.repeat_interleave(heads // kvh, dim=1)
            v = v.repeat_interleave(heads // kvh, dim=1)
            causal = s > 1
            if run["attn"] == "eager":
                scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
                if causal:
                    t = k.shape[2]
                    mask = torch.ones(s, t, dtype=torch.bool, device=x.device).tril(t - s)
                    scores = scores.masked_fill(~mask, float("-inf"))
                att = torch.softmax(scores.float(), dim=-1).to(q.dtype) @ v
            else:
                # Prefill starts at position 0, so the causal mask is the square one; decoding (s = 1)
                # attends to every cached position.
                att = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            x = x + self.o(att.transpose(1, 2).reshape(b, s, heads * hd))
            y = self.n2(x)
            return x + self.down(F.silu(self.gate(y)) * self.up(y))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(run["vocab"], h, dtype=weight_dtype)
            self.blocks = nn.ModuleList(Block() for _ in range(run["layers"]))
            self.norm = RMSNorm()
            self.head = None if run["tied"] else nn.Linear(h, run["vocab"], bias=False, dtype=weight_dtype)
            inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
            ang = torch.outer(torch.arange(run["seq"] + run["gen"] + 1).float(), inv)
            self.register_buffer("cos", torch.cat((ang, ang), -1).cos().to(compute), persistent=False)
            self.register_buffer("sin", torch.cat((ang, ang), -1).sin().to(compute), persistent=False)

        def logits(self, x):
            w = self.embed.weight if self.head is None else self.head.weight
            return F.linear(self.norm(x), w)

        def forward(self, ids, caches=None, pos=0):
            x = self.embed(ids)
            for i, blk in enumerate(self.blocks):
                if train and run["gc"] == "1":
                    from torch.utils.checkpoint import checkpoint

                    x = checkpoint(blk, x, self.cos, self.sin, use_reentrant=False)
                else:
                    x = blk(x, self.cos, self.sin, None if caches is None else caches[i], pos)
            return x

    model = Decoder()
    return model, compute, adapter_dtype


def run_steps(run, device):
    """Builds the run's model on `device` and runs it: two training steps, or prefill + generation.
    Returns the model (the tests count its parameters)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    model, compute, _ = build(run, torch, nn, F)
    model = model.to(device)
    train = run["mode"] == "train"
    if train and run["method"] != "full":
        for name, p in model.named_parameters():
            p.requires_grad = name.endswith(".a") or name.endswith(".b")
    ids = torch.randint(0, run["vocab"], (run["batch"], run["seq"]), device=device)
    device_type = torch.device(device).type
    autocast = torch.autocast(device_type, dtype=torch.bfloat16, enabled=run["precision"] == "mixed")
    if train:
        params = [p for p in model.parameters() if p.requires_grad]
        if run["optim"] == "adamw":
            opt = torch.optim.AdamW(params, lr=1e-5, foreach=True)
        elif run["optim"] == "adamw8bit":
            import bitsandbytes as bnb

            opt = bnb.optim.AdamW8bit(params, lr=1e-5)
        else:
            opt = torch.optim.SGD(params, lr=1e-5, momentum=0.9 if run["optim"] == "sgdm" else 0.0)
        for _ in range(2):
            with autocast:
                x = model(ids)
                logits = model.logits(x)
                loss = F.cross_entropy(logits.float().view(-1, run["vocab"]), ids.view(-1))
            loss.backward()
            del x, logits, loss
            opt.step()
            opt.zero_grad(set_to_none=True)
    else:
        with torch.inference_mode():
            kv = run["seq"] + run["gen"]
            shape = (run["batch"], run["kv_heads"], kv, run["head_dim"])
            caches = [(torch.empty(shape, dtype=compute, device=device), torch.empty(shape, dtype=compute, device=device))
                      for _ in range(run["layers"])]
            x = model(ids, caches, 0)
            nxt = model.logits(x[:, -1:]).argmax(-1)
            for step in range(run["gen"]):
                x = model(nxt, caches, run["seq"] + step)
                nxt = model.logits(x[:, -1:]).argmax(-1)
    return model


def snapshot_path(directory, run):
    """Where `--snapshot DIR` writes the run's memory snapshot: DIR/<case id>.pickle."""
    return os.path.join(directory, slug(run["query"], run) + ".pickle")


def measure(run, snapshot_dir=None):
    """Peak allocated and reserved bytes of the run on the CUDA device; with `snapshot_dir`, the
    run's allocator history too, as `torch.cuda.memory._dump_snapshot` writes it (the pickle that
    pytorch.org/memory_viz draws and `vram-ledger --trace` lays over the ledger's phases)."""
    import torch

    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    if snapshot_dir:
        torch.cuda.memory._record_memory_history(max_entries=1_000_000)
    model = run_steps(run, "cuda")
    torch.cuda.synchronize()
    if snapshot_dir:
        os.makedirs(snapshot_dir, exist_ok=True)
        torch.cuda.memory._dump_snapshot(snapshot_path(snapshot_dir, run))
        torch.cuda.memory._record_memory_history(enabled=None)
    allocated, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
    del model
    torch.cuda.empty_cache()
    return allocated, reserved


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("queries", nargs="*", help="cases to run (default: the built-in list)")
    ap.add_argument("--list", action="store_true", help="print the default cases' queries and exit")
    ap.add_argument(
        "--snapshot",
        metavar="DIR",
        help="also record each run's allocator history and write it to DIR/<case id>.pickle "
        "(torch.cuda.memory._dump_snapshot; read it with `vram-ledger --trace FILE 'QUERY'`)",
    )
    args = ap.parse_args(argv)
    queries = args.queries or DEFAULT_CASES
    try:
        runs = [parse_query(q) for q in queries]
    except QueryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.list:
        for r in runs:
            print(r["query"])
        return 0
    try:
        import torch
    except ImportError:
        print("error: torch is not installed (measure_gpu.py needs a CUDA GPU and torch)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("error: no CUDA device: measure_gpu.py measures real GPU peaks", file=sys.stderr)
        return 2
    device = torch.cuda.get_device_name(0)
    today = datetime.date.today().isoformat()
    print(f"# tools/measure_gpu.py on {device}, torch {torch.__version__}: paste into tests/data/measured.toml\n")
    for run in runs:
        try:
            allocated, reserved = measure(run, args.snapshot)
        except ImportError as e:
            print(f"# skipped {run['query']}: {e}\n")
            continue
        except torch.cuda.OutOfMemoryError:
            print(f"# out of memory: {run['query']}\n")
            torch.cuda.empty_cache()
            continue
        for kind, figure in (("allocated", allocated), ("reserved", reserved)):
            print(toml_case(run["query"], figure, kind, device, torch.__version__, today))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
