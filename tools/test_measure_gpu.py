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

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

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


class Snapshot(unittest.TestCase):
    def test_snapshot_names_the_case(self):
        q = measure_gpu.DEFAULT_CASES[0]
        path = measure_gpu.snapshot_path("snaps", measure_gpu.parse_query(q))
        self.assertEqual(os.path.dirname(path), "snaps")
        self.assertTrue(os.path.basename(path).startswith("gpu-full-16x2048-s1024-b4-".removeprefix("gpu-")))
        self.assertTrue(path.endswith(".pickle"))

    def test_snapshot_without_a_gpu_exits_2_with_a_message(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "measure_gpu.py"), "--snapshot", "snaps",
                            measure_gpu.DEFAULT_CASES[0]], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, "torch is not installed|no CUDA device")


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


TINY = "model=custom&layers=2&hidden=64&heads=4&kv_heads=2&head_dim=16&ffn=128&vocab=100&tied=0"


@unittest.skipIf(torch is None, "torch is not installed")
class ModelOnCpu(unittest.TestCase):
    """The model code, run on the CPU with a tiny shape (the GPU peaks need CUDA)."""

    def test_parameter_count_is_the_ledgers(self):
        # By hand: embedding 100·64 + head 100·64 = 12,800; per layer q 64·64, k 64·32, v 64·32, o 64·64,
        # gate/up/down 3·64·128, two norms 2·64 = 36,992; two layers + final norm 64 → 86,848.
        model = measure_gpu.run_steps(measure_gpu.parse_query(TINY + "&mode=infer&quant=fp32&seq=4&gen=2"), "cpu")
        self.assertEqual(sum(p.numel() for p in model.parameters()), 86_848)

    def test_every_mode_runs(self):
        for extra in ["&method=full&precision=bf16&optim=sgd&gc=0&attn=eager&seq=8&batch=2",
                      "&method=full&precision=mixed&optim=adamw&gc=1&seq=8",
                      "&method=lora&precision=mixed&targets=qv&rank=4&gc=0&seq=8",
                      "&method=lora&precision=bf16&targets=all&rank=4&gc=1&optim=sgdm&seq=8",
                      "&mode=infer&quant=bf16&seq=6&batch=2&gen=3&attn=eager",
                      "&mode=infer&quant=fp32&seq=6&gen=3"]:
            run = measure_gpu.parse_query(TINY + extra)
            model = measure_gpu.run_steps(run, "cpu")
            trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
            if run["mode"] == "train" and run["method"] == "lora":
                # Σ r·(d_in + d_out) per adapted layer, two layers (the ledger's lora_parameters).
                per_layer = {"qv": 4 * (64 + 64) + 4 * (64 + 32),
                             "all": 4 * (64 + 64) + 2 * 4 * (64 + 32) + 4 * (64 + 64) + 2 * 4 * (64 + 128) + 4 * (128 + 64)}
                self.assertEqual(trainable, 2 * per_layer[run["targets"]], extra)


if __name__ == "__main__":
    unittest.main()
