"""Tests of measure_gpu.py that need neither torch nor a GPU: its query subset, its refusals, and the
[[case]] entries it prints (valid TOML in the measured set's format, accepted by the ledger's CLI).
The measurement itself runs only on a CUDA GPU (see README, "Validation")."""

import os
import subprocess
import sys
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(__file__))

import measure_gpu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "target", "debug", "vram-ledger")


class Queries(unittest.TestCase):
    def test_defaults_follow_the_ledger(self):
        run = measure_gpu.parse_query(measure_gpu.SHAPE_1B)
        # The ledger's defaults (docs/query-keys.md): train, lora, mixed, seq 2048, batch 1, rank 16, gc 1.
        self.assertEqual((run["mode"], run["method"], run["precision"]), ("train", "lora", "mixed"))
        self.assertEqual((run["seq"], run["batch"], run["rank"], run["gc"]), (2048, 1, 16, "1"))
        self.assertEqual((run["layers"], run["hidden"], run["vocab"], run["tied"]), (16, 2048, 128256, 1))
        self.assertEqual(measure_gpu.parse_query(measure_gpu.SHAPE_1B + "&method=qlora")["quant"], "nf4")

    def test_refusals_name_the_key(self):
        cases = {
            "model=llama-3.1-8b": "`model`",
            measure_gpu.SHAPE_1B + "&zero=3": "`zero`",
            measure_gpu.SHAPE_1B + "&attn=flash2": "`attn=flash2`",
            measure_gpu.SHAPE_1B + "&seq=0": "`seq=0`",
            measure_gpu.SHAPE_1B + "&batch=two": "`batch=two`",
            measure_gpu.SHAPE_1B.replace("kv_heads=8", "kv_heads=7"): "`kv_heads`",
        }
        for query, key in cases.items():
            with self.assertRaises(measure_gpu.QueryError) as e:
                measure_gpu.parse_query(query)
            self.assertIn(key, str(e.exception), query)

    def test_list_needs_no_torch(self):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "measure_gpu.py"), "--list"],
                             capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(out, measure_gpu.DEFAULT_CASES)

    def test_bad_query_exits_2(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "measure_gpu.py"), "model=gpt2"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("`model`", p.stderr)


class Output(unittest.TestCase):
    def test_case_is_measured_set_toml(self):
        q = measure_gpu.DEFAULT_CASES[0]
        text = measure_gpu.toml_case(q, 3 * 2**30, "allocated", "NVIDIA H200", "2.9.0", "2026-11-29")
        case = tomllib.loads(text)["case"][0]
        self.assertEqual(case["figure"], 3.0)  # 3 GiB written as GiB
        self.assertEqual(case["unit"], "GiB")
        self.assertEqual(case["kind"], "allocated")
        self.assertEqual(case["query"], q)
        # The whole configuration is known: no unknowns, the 10 % base tolerance (tests/accuracy.rs rule).
        self.assertEqual(case["unknowns"], [])
        self.assertEqual(case["tolerance"], 0.1)
        self.assertTrue(case["id"].startswith("gpu-full-16x2048-s1024-b4-"))

    @unittest.skipUnless(os.path.exists(CLI), "target/debug/vram-ledger is not built (cargo test builds it)")
    def test_every_default_query_is_ledger_vocabulary(self):
        for q in measure_gpu.DEFAULT_CASES:
            p = subprocess.run([CLI, "--json", q], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, q + p.stderr)
            self.assertEqual(p.stderr, "", q)


if __name__ == "__main__":
    unittest.main()
