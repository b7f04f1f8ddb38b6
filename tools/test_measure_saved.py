"""Tests of measure_saved.py: its refusals need nothing; the count itself needs torch, transformers and
peft (skipped where they are missing, as on the CI machines)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))

import measure_saved  # noqa: E402
from measure_gpu import QueryError, parse_query  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
try:
    import peft  # noqa: F401
    import transformers  # noqa: F401
except ImportError:  # pragma: no cover
    transformers = None
try:
    import bitsandbytes
except ImportError:  # pragma: no cover
    bitsandbytes = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "target", "debug", "vram-ledger")
TINY = "model=custom&layers=1&hidden=64&heads=4&kv_heads=2&head_dim=16&ffn=128&vocab=100&tied=0&mode=train"


class Refusals(unittest.TestCase):
    def test_what_hooks_cannot_see_is_refused(self):
        for extra, word in [("&gc=1", "--peak"), ("&gc=0&attn=flash", "flash"), ("&gc=0&method=qlora&quant=bf16", "NF4"),
                            ("&gc=0&mode=infer", "mode=train"), ("&gc=0&method=lora&quant=nf4", "method=qlora")]:
            with self.assertRaises(QueryError) as e:
                measure_saved.check(parse_query(TINY + extra))
            self.assertIn(word, str(e.exception), extra)

    @unittest.skipUnless(os.path.exists(CLI), "target/debug/vram-ledger is not built (cargo test builds it)")
    def test_defaults_are_valid_and_presets_come_from_the_ledger(self):
        for q in measure_saved.DEFAULT_CASES:
            measure_saved.parse(q)
        run = measure_saved.parse("model=gemma-2-2b&layers=2&mode=train&method=full&gc=0&attn=eager")
        self.assertEqual((run["layers"], run["hidden"], run["head_dim"], run["vocab"], run["tied"]), (2, 2304, 256, 256000, 1))
        self.assertEqual(measure_saved.family(run["architecture"]), "gemma2")
        for q, word in [("model=gpt2&mode=train&method=full&gc=0", "Llama-"),
                        ("model=gemma-2-2b&mode=train&method=full&gc=0&attn=sdpa", "eager"),
                        ("model=llama-9&mode=train&gc=0", "llama-9")]:
            with self.assertRaises(QueryError) as e:
                measure_saved.parse(q)
            self.assertIn(word, str(e.exception), q)


@unittest.skipIf(torch is None, "torch is not installed")
class Peak(unittest.TestCase):
    def test_hf_style_loss_peaks_at_12_bytes_per_logit(self):
        # bf16 logits → fp32 upcast → cross-entropy, as transformers computes its loss. The peak is in
        # log-softmax's backward: its saved fp32 output, the incoming fp32 gradient and the fp32
        # gradient it returns, 3 × 4 = 12 B per logit — the ledger's `loss=hf` figure.
        n, v = 256, 4000
        h = torch.randn(n, 64, dtype=torch.bfloat16, requires_grad=True)
        w = torch.randn(v, 64, dtype=torch.bfloat16)
        labels = torch.randint(0, v, (n,))
        with measure_saved.PeakTracker(torch, [h, w, labels]) as tracker:
            logits = h @ w.t()
            x = logits.float()
            del logits
            loss = torch.nn.functional.cross_entropy(x, labels)
            del x
            loss.backward()
            del loss
        self.assertAlmostEqual(tracker.peak / (n * v), 12.0, delta=0.05)


@unittest.skipIf(torch is None or transformers is None, "torch, transformers and peft are not installed")
class Count(unittest.TestCase):
    def test_eager_attention_keeps_the_score_matrix(self):
        # Eager attention saves heads × s² softmax probabilities per sequence (fp32 for the softmax,
        # 16-bit for the matmul in bf16); SDPA keeps none of it. At s = 64 with 4 heads the difference
        # must exceed the 16-bit probabilities alone: 4 × 64² × 2 B = 32,768 B.
        base = TINY + "&method=full&precision=bf16&gc=0&seq=64&batch=1"
        eager = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&attn=eager")))
        sdpa = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&attn=sdpa")))
        self.assertGreater(eager - sdpa, 4 * 64 * 64 * 2)

    @unittest.skipIf(bitsandbytes is None, "bitsandbytes is not installed")
    def test_a_fixed_4bit_base_keeps_what_lora_keeps(self):
        # bitsandbytes ≥ 0.43.2 keeps no input of a frozen 4-bit layer; with adapters on every linear
        # layer LoRA already keeps each input, so QLoRA and LoRA save the same bytes (bnb=fixed).
        base = TINY + "&precision=bf16&gc=0&attn=sdpa&seq=32&batch=2&targets=all&rank=4"
        lora = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&method=lora")))
        qlora = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&method=qlora&dq=0&recipe=plain")))
        self.assertEqual(lora, qlora)
        # PEFT's k-bit recipe (QLoRA's default) runs the residual stream and the MLP in fp32.
        peft = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&method=qlora&dq=0")))
        self.assertGreater(peft, qlora)

    def test_lora_keeps_less_than_full(self):
        base = TINY + "&precision=bf16&gc=0&attn=sdpa&seq=32&batch=2"
        full = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&method=full")))
        lora = measure_saved.saved_bytes(measure_saved.check(parse_query(base + "&method=lora&targets=qv&rank=4")))
        self.assertLess(lora, full)


if __name__ == "__main__":
    unittest.main()
