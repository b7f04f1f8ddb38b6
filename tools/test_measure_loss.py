"""measure_loss.py against the ledger's bytes per logit (src/ledger/logits.rs: `selective` 2 × 2 B on
16-bit logits, 16 B on the fp32 logits Accelerate returns under mixed precision; `hf` 12 B). Needs torch;
`make test` runs it only where torch is installed and says so."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))

try:
    import torch  # noqa: F401
except ImportError:  # pragma: no cover
    torch = None


@unittest.skipIf(torch is None, "torch is not installed")
class BytesPerLogit(unittest.TestCase):
    def test_the_ledgers_figures(self):
        import measure_loss

        per_logit = measure_loss.measure(batch=2, tokens=64)
        # One row's transient and the small hidden-state gradient stay under 0.05 B per logit here.
        self.assertAlmostEqual(per_logit["selective_bf16"], 4.0, delta=0.05)
        self.assertAlmostEqual(per_logit["selective_fp32"], 16.0, delta=0.05)
        self.assertAlmostEqual(per_logit["hf"], 12.0, delta=0.05)


if __name__ == "__main__":
    unittest.main()
