#!/usr/bin/env python3
"""mem_report.py — chapter 7.1, homework 1: measure what VRAM Ledger estimates.

Attach it to a training loop; it reports, as JSON, the bytes of

  weights      every parameter and buffer of the model,
  gradients    every .grad after backward,
  optimizer    every tensor in the optimizer's state (AdamW's m and v, momentum, ...),
  activations  the tensors autograd saved for backward during the step (saved-tensor hooks; parameters
               and tensors sharing their storage are not counted twice),
  peak_allocated / peak_reserved
               torch.cuda.max_memory_allocated() / max_memory_reserved() over the step (CUDA only).

Paste the JSON into VRAM Ledger ("Measured vs estimated") to see the error of each component.
It depends on torch only.

    from mem_report import MemReport
    report = MemReport(model, optimizer, query="model=qwen2.5-0.5b&method=full&seq=512&batch=4")
    with report.step():
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
    print(report.json())          # call before optimizer.zero_grad()

    python tools/mem_report.py --demo      # a tiny random model, one step, on CUDA if present
    python tools/mem_report.py --timeline step.json   # the same step's profiler memory timeline
"""

import argparse
import contextlib
import json
import sys

import torch


def _storage(t):
    try:
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    except (RuntimeError, NotImplementedError):  # sparse or meta tensors have no plain storage
        return None, 0


def _sum_storages(tensors, seen):
    total = 0
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        ptr, nbytes = _storage(t)
        if ptr is None or ptr in seen:
            continue
        seen.add(ptr)
        total += nbytes
    return total


class MemReport:
    """Measures one training step of `model` (and `optimizer`)."""

    def __init__(self, model, optimizer=None, query=None):
        self.model = model
        self.optimizer = optimizer
        self.query = query
        self.activation_bytes = 0
        self._cuda = torch.cuda.is_available() and any(p.is_cuda for p in model.parameters())

    def _parameter_storages(self):
        seen = set()
        for t in list(self.model.parameters()) + list(self.model.buffers()):
            ptr, _ = _storage(t)
            if ptr is not None:
                seen.add(ptr)
        return seen

    @contextlib.contextmanager
    def step(self):
        """Counts saved activations and resets the CUDA peak statistics for the step inside."""
        params = self._parameter_storages()
        seen = set()
        self.activation_bytes = 0

        def pack(t):
            ptr, nbytes = _storage(t)
            if ptr is not None and ptr not in params and ptr not in seen:
                seen.add(ptr)
                self.activation_bytes += nbytes
            return t

        if self._cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            yield self
        if self._cuda:
            torch.cuda.synchronize()

    def as_dict(self):
        weights = _sum_storages(list(self.model.parameters()) + list(self.model.buffers()), set())
        gradients = _sum_storages([p.grad for p in self.model.parameters() if p.grad is not None], set())
        optimizer = 0
        if self.optimizer is not None:
            states = []
            for state in self.optimizer.state.values():
                states.extend(v for v in state.values() if isinstance(v, torch.Tensor) and v.dim() > 0)
            optimizer = _sum_storages(states, set())
        device = "cpu"
        peak_allocated = peak_reserved = None
        if self._cuda:
            device = torch.cuda.get_device_name()
            peak_allocated = torch.cuda.max_memory_allocated()
            peak_reserved = torch.cuda.max_memory_reserved()
        return {
            "tool": "vram-ledger/mem_report",
            "version": 1,
            "torch": torch.__version__,
            "device": device,
            "query": self.query,
            "bytes": {
                "weights": weights,
                "gradients": gradients,
                "optimizer": optimizer,
                "activations": self.activation_bytes,
                "peak_allocated": peak_allocated,
                "peak_reserved": peak_reserved,
            },
        }

    def json(self):
        return json.dumps(self.as_dict())


class _Block(torch.nn.Module):
    """A Llama-style block: RMSNorm, attention (SDPA), RMSNorm, SwiGLU MLP."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.RMSNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden, bias=False)
        self.o = torch.nn.Linear(hidden, hidden, bias=False)
        self.norm2 = torch.nn.RMSNorm(hidden)
        self.gate = torch.nn.Linear(hidden, ffn, bias=False)
        self.up = torch.nn.Linear(hidden, ffn, bias=False)
        self.down = torch.nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, h // self.heads).unbind(2)
        a = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        x = x + self.o(a.transpose(1, 2).reshape(b, s, h))
        n = self.norm2(x)
        return x + self.down(torch.nn.functional.silu(self.gate(n)) * self.up(n))


def demo(device, layers=2, hidden=256, heads=4, ffn=688, vocab=1000, seq=128, batch=2, timeline=None):
    """One AdamW step of a tiny random decoder; returns the report as a dict. With `timeline` (a
    path ending .json, .json.gz or .raw.json.gz), the step runs under torch.profiler with memory
    profiling and its memory timeline is written there: the format `vram-ledger --trace` reads."""
    torch.manual_seed(0)
    embed = torch.nn.Embedding(vocab, hidden)
    blocks = torch.nn.ModuleList(_Block(hidden, heads, ffn) for _ in range(layers))
    head = torch.nn.Linear(hidden, vocab, bias=False)
    model = torch.nn.ModuleDict({"embed": embed, "blocks": blocks, "norm": torch.nn.RMSNorm(hidden), "head": head}).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, vocab, (batch, seq), device=device)
    query = (
        f"model=custom&layers={layers}&hidden={hidden}&heads={heads}&kv_heads={heads}&head_dim={hidden // heads}"
        f"&ffn={ffn}&vocab={vocab}&tied=0&method=full&precision=fp32&gc=0&seq={seq}&batch={batch}"
    )
    report = MemReport(model, optimizer, query=query)

    def step():
        x = model["embed"](tokens)
        for block in model["blocks"]:
            x = block(x)
        logits = model["head"](model["norm"](x))
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()

    profiler = contextlib.nullcontext()
    if timeline:
        activities = [torch.profiler.ProfilerActivity.CPU]
        if str(device).startswith("cuda"):
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        profiler = torch.profiler.profile(
            activities=activities, profile_memory=True, record_shapes=True, with_stack=True
        )
    with profiler as prof, report.step():
        step()
    if timeline:
        where = "cuda:0" if str(device).startswith("cuda") else "cpu"
        prof.export_memory_timeline(timeline, device=where)
    return report.as_dict()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo", action="store_true", help="measure one step of a tiny random model")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--timeline",
        metavar="OUT",
        help="also record the demo's step with torch.profiler and write its memory timeline to OUT "
        "(.json, .json.gz or .raw.json.gz): `vram-ledger --trace OUT 'QUERY'` lays it over the ledger",
    )
    args = parser.parse_args(argv)
    if not args.demo and not args.timeline:
        parser.print_help()
        return 2
    print(json.dumps(demo(args.device, timeline=args.timeline)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
