"""Tests of mem_report.py on the CPU with its tiny random demo model. They need torch; `make test` runs
them only where torch is installed (it is not on the CI machines: PyPI's torch brings ~3 GB of CUDA
libraries), and says so."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))

try:
    import torch  # noqa: F401
except ImportError:  # pragma: no cover
    torch = None


@unittest.skipIf(torch is None, "torch is not installed")
class DemoStep(unittest.TestCase):
    def test_counts_match_the_hand_count(self):
        import mem_report

        report = mem_report.demo("cpu")
        b = report["bytes"]
        # 2,094,336 fp32 parameters (counted by hand in tests/validation.rs).
        self.assertEqual(b["weights"], 2_094_336 * 4)
        self.assertEqual(b["gradients"], b["weights"])
        # AdamW keeps m and v per parameter; its step counters are 0-d tensors and not counted.
        self.assertEqual(b["optimizer"], 2 * b["weights"])
        self.assertGreater(b["activations"], 0)
        self.assertIsNone(b["peak_allocated"])
        self.assertEqual(report["tool"], "vram-ledger/mem_report")

    def test_the_timeline_is_the_layout_the_trace_reader_reads(self):
        import json
        import os
        import tempfile

        import mem_report

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "step.json")
            report = mem_report.demo("cpu", timeline=out)
            with open(out) as f:
                times, sizes = json.load(f)
        self.assertEqual(len(times), len(sizes))
        # A leading 0 column, then the profiler's eight categories.
        self.assertTrue(all(len(row) == 9 and row[0] == 0 for row in sizes))
        # The parameters (column 1) are on the device through the step.
        self.assertEqual(max(row[1] for row in sizes), report["bytes"]["weights"])


if __name__ == "__main__":
    unittest.main()
