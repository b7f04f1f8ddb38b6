#!/usr/bin/env python3
"""How many bytes per logit a training loss holds at its peak, counted tensor by tensor on the CPU.

The ledger bills a loss as bytes per logit (batch × tokens × vocabulary; src/ledger/logits.rs). This
tool measures them for the per-token log-probabilities of TRL's DPO, GRPO and PPO trainers
(`selective_log_softmax`, copied from TRL v1.9.0 trl/trainer/utils.py:479-523), in the two ways the
logits reach it:

- `selective_bf16`: 16-bit logits (DeepSpeed, or a model trained without mixed precision): a loop over
  the sequences, each row's log-softmax in bf16, kept for backward;
- `selective_fp32`: under the Trainer's mixed precision Accelerate wraps the model's forward in
  autocast and converts its outputs to fp32 (`Accelerator.prepare_model`: `convert_outputs_to_fp32`),
  so the logits arrive in fp32 and take the logsumexp path;

and, for comparison, `hf`: transformers' cross-entropy on the same logits (an fp32 upcast and
log-softmax). The LM head is frozen (LoRA), the hidden states small beside the logits (hidden 64,
vocabulary 32,000), so the peak is the loss's own: forward and backward through the head, tracked by
tools/measure_saved.py's PeakTracker (every operator's outputs, released when their storage dies).

    python tools/measure_loss.py            # needs torch only; prints one line per way, and JSON with --json
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HIDDEN, VOCAB = 64, 32000
WAYS = ("selective_bf16", "selective_fp32", "hf")


def selective_log_softmax(torch, logits, index):
    """TRL v1.9.0's `selective_log_softmax` (trl/trainer/utils.py:479-523), unchanged but for the imports."""
    import torch.nn.functional as F

    squeeze = index.ndim == logits.ndim - 1
    if squeeze:
        index = index.unsqueeze(-1)
    if logits.dtype in [torch.float32, torch.float64]:
        selected_logits = torch.gather(logits, dim=-1, index=index)
        # loop to reduce peak mem consumption
        logsumexp_values = torch.stack([torch.logsumexp(lg, dim=-1) for lg in logits])
        per_token_logps = selected_logits - logsumexp_values.unsqueeze(-1)
    else:
        per_token_logps = []
        for row_logits, row_labels in zip(logits, index, strict=True):
            row_logps = F.log_softmax(row_logits, dim=-1)
            per_token_logps.append(row_logps.gather(dim=-1, index=row_labels))
        per_token_logps = torch.stack(per_token_logps)
    if squeeze:
        per_token_logps = per_token_logps.squeeze(-1)
    return per_token_logps


def peak_bytes(way, batch, tokens, seed=0):
    """The peak bytes of the loss's tensors over one forward and backward through a frozen LM head."""
    import torch
    import torch.nn.functional as F
    from measure_saved import PeakTracker

    torch.manual_seed(seed)
    head = torch.nn.Linear(HIDDEN, VOCAB, bias=False).to(torch.bfloat16).requires_grad_(False)
    ids = torch.randint(0, VOCAB, (batch, tokens))
    hidden = torch.randn(batch, tokens, HIDDEN, dtype=torch.bfloat16, requires_grad=True)
    with PeakTracker(torch, existing=[head.weight, ids, hidden]) as tracker:
        if way == "selective_bf16":
            logits = head(hidden)
        else:
            # Accelerate's prepared forward: autocast inside, outputs converted to fp32 outside.
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = head(hidden)
            logits = logits.float()
        if way == "hf":
            loss = F.cross_entropy(logits.view(-1, VOCAB), ids.view(-1))
            del logits  # the Trainer keeps only the loss of the model's outputs
        else:
            logits.div_(1.0)  # TRL ≥ 1.0 divides by the temperature in place
            logps = selective_log_softmax(torch, logits, ids)
            del logits
            loss = -logps.mean()
        loss.backward()
    return tracker.peak


def measure(batch=4, tokens=256):
    return {way: peak_bytes(way, batch, tokens) / (batch * tokens * VOCAB) for way in WAYS}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    per_logit = measure(args.batch, args.tokens)
    if args.json:
        print(json.dumps({"batch": args.batch, "tokens": args.tokens, "vocab": VOCAB, "bytes_per_logit": per_logit}))
    else:
        for way, b in per_logit.items():
            print(f"{way:15s} {b:6.2f} B per logit ({args.batch} × {args.tokens} tokens × {VOCAB} vocabulary)")


if __name__ == "__main__":
    main()
