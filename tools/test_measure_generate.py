"""Tests of measure_generate.py: its refusals need nothing; a generate() run needs torch and
transformers (skipped where they are missing, as on the CI machines)."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))

import measure_generate  # noqa: E402
from measure_gpu import QueryError  # noqa: E402

try:
    import torch  # noqa: F401
    import transformers  # noqa: F401
except ImportError:  # pragma: no cover
    transformers = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "target", "debug", "vram-ledger")
TINY = "model=custom&layers=2&hidden=128&heads=4&kv_heads=2&head_dim=32&ffn=512&vocab=1000&tied=0&mode=infer"


class Refusals(unittest.TestCase):
    def test_what_it_cannot_run_is_refused(self):
        for extra, word in [("&mode=train", "mode=infer"), ("&quant=nf4", "bf16 or fp32"), ("&attn=flash", "sdpa")]:
            with self.assertRaises(QueryError) as e:
                measure_generate.parse(TINY.replace("&mode=infer", "") + extra if "mode=" in extra else TINY + extra)
            self.assertIn(word, str(e.exception), extra)

    def test_default_cases_parse(self):
        for q in measure_generate.DEFAULT_CASES:
            if q.startswith("model=custom"):
                self.assertEqual(measure_generate.parse(q)["mode"], "infer")


@unittest.skipUnless(transformers is not None, "torch and transformers are not installed")
@unittest.skipUnless(os.path.exists(CLI), "target/debug/vram-ledger is not built (cargo test builds it)")
class Peak(unittest.TestCase):
    def test_a_small_generate_agrees_with_the_ledger(self):
        """The ledger's allocated total less the weights, against the tracked peak of a tiny model's
        generate(): the prefill's MLP beside the prompt's cache dominates both."""
        query = TINY + "&attn=sdpa&seq=512&gen=8&batch=2"
        peak, prefill = measure_generate.generate_peaks(measure_generate.parse(query))
        self.assertEqual(peak, prefill, "the peak is the prefill's")
        bill = json.loads(subprocess.run([CLI, "--json", query], capture_output=True, text=True, check=True).stdout)
        weights = next(c["bytes"] for c in bill["components"] if c["id"] == "weights")
        ledger = bill["allocated_bytes"] - weights
        self.assertLess(abs(ledger - peak) / peak, 0.1, f"ledger {ledger:,} B vs generate() {peak:,} B")


if __name__ == "__main__":
    unittest.main()
