#!/usr/bin/env python3
"""Megatron-LM's functional tests as memory measurements: each test case's `mem-max-allocated-bytes`
(torch.cuda.memory_stats()['allocated_bytes.all.peak'] of rank world_size - 1, per step) from its H100
(else A100) golden values, beside its model_config.yaml arguments and its recipe's GPU count.

Usage: MLM_REPO=<a git clone or mirror of NVIDIA/Megatron-LM> python3 tools/megatron_golden_cases.py
Reads the repository with `git show` at MLM_REV (default d98e8a64, read in the twentieth session) and
writes MLM_OUT (default megatron-golden-cases.tsv here), one row per case, with a summary on stdout.
Needs PyYAML. docs/research/parallel/measurements.md says which cases the measured set uses.
"""
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

import yaml

REPO = os.environ.get("MLM_REPO", ".")
REV = os.environ.get("MLM_REV", "d98e8a64ddf34856e74b24714e3bedb2f5a39553")
OUT = os.environ.get("MLM_OUT", "megatron-golden-cases.tsv")
TC_ROOT = "tests/functional_tests/test_cases"
RECIPE_ROOT = "tests/test_utils/recipes"

# golden-file preference: H100 first, then A100. (platform, filename)
GOLDEN_PREF = [
    ("dgx_h100", "golden_values_dev_dgx_h100.json"),
    ("dgx_h100", "golden_values_lts_dgx_h100.json"),
    ("dgx_h100", "golden_values_dev_dgxh100_dgxc.json"),
    ("dgx_a100", "golden_values_dev_dgx_a100.json"),
    ("dgx_a100", "golden_values_lts_dgx_a100.json"),
]
METRIC = "mem-max-allocated-bytes"


def git(*args):
    return subprocess.check_output(["git", "-C", REPO, *args])


def show(path):
    return git("show", f"{REV}:{path}").decode()


def ls(path):
    return git("ls-tree", "-r", "--name-only", REV, path).decode().split("\n")


# ---------------------------------------------------------------- recipes
def load_recipes():
    """Map (model, test_case) -> list of dicts(recipe, nodes, gpus, platform, env)."""
    out = defaultdict(list)
    for f in ls(RECIPE_ROOT):
        if not f.endswith(".yaml"):
            continue
        try:
            y = yaml.safe_load(show(f))
        except Exception as e:  # pragma: no cover
            print(f"WARN: cannot parse recipe {f}: {e}", file=sys.stderr)
            continue
        if not isinstance(y, dict) or "spec" not in y:
            continue
        spec = y["spec"]
        model = spec.get("model")
        nodes, gpus = spec.get("nodes"), spec.get("gpus")
        default_plat = spec.get("platforms")
        for prod in y.get("products") or []:
            tcs = prod.get("test_case") or []
            if isinstance(tcs, str):
                tcs = [tcs]
            subs = prod.get("products") or [{}]
            for tc in tcs:
                for sp in subs:
                    plats = sp.get("platforms", default_plat)
                    if isinstance(plats, str):
                        plats = [plats]
                    envs = sp.get("environment") or []
                    if isinstance(envs, str):
                        envs = [envs]
                    for p in plats or [None]:
                        for e in envs or [None]:
                            out[(model, tc)].append(
                                dict(recipe=f[len(RECIPE_ROOT) + 1:], nodes=nodes, gpus=gpus,
                                     platform=p, env=e,
                                     scope=",".join(map(str, sp.get("scope") or [])))
                            )
    return out


def pick_recipe(entries, platform, env):
    """Prefer exact (platform, env) match, then platform match, then any non-gb200."""
    for cond in (
        lambda r: r["platform"] == platform and r["env"] == env,
        lambda r: r["platform"] == platform,
        lambda r: not r["recipe"].startswith("gb200/"),
        lambda r: True,
    ):
        m = [r for r in entries if cond(r)]
        if m:
            return m[0], m
    return None, []


# ---------------------------------------------------------------- golden values
def to_float(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or math.isinf(x) else x


def parse_metric(gv, metric=METRIC):
    m = gv.get(metric)
    if not isinstance(m, dict):
        return None
    vals = m.get("values") or {}
    if isinstance(vals, list):  # old list format: values indexed from start_step
        start = int(m.get("start_step", 1))
        step_i = int(m.get("step_interval", 1))
        vals = {str(start + i * step_i): v for i, v in enumerate(vals)}
    num = {int(k): to_float(v) for k, v in vals.items()}
    num = {k: v for k, v in num.items() if v is not None}
    if not num:
        return None
    kmax = max(num, key=lambda k: num[k])
    first = min(num)
    return dict(max=num[kmax], argmax_step=kmax, step1=num.get(1), first_step=first,
                first_val=num[first], last_step=max(num), n_steps=len(num))


# ---------------------------------------------------------------- args
def a(args, *keys):
    """Value of the first present key ('' if none). True -> 'true'."""
    for k in keys:
        if k in args:
            v = args[k]
            if v is True:
                return "true"
            if v is False:
                return "false"
            if isinstance(v, list):
                return " ".join(map(str, v))
            return str(v)
    return ""


# columns: (name, [keys])
ARG_COLS = [
    ("num_layers", ["--num-layers"]),
    ("hidden", ["--hidden-size"]),
    ("ffn", ["--ffn-hidden-size"]),
    ("heads", ["--num-attention-heads"]),
    ("gqa", ["--group-query-attention"]),
    ("query_groups", ["--num-query-groups"]),
    ("kv_channels", ["--kv-channels"]),
    ("seq", ["--seq-length"]),
    ("max_pos", ["--max-position-embeddings"]),
    ("mbs", ["--micro-batch-size"]),
    ("gbs", ["--global-batch-size"]),
    ("tp", ["--tensor-model-parallel-size"]),
    ("pp", ["--pipeline-model-parallel-size"]),
    ("vpp_layers_per_stage", ["--num-layers-per-virtual-pipeline-stage"]),
    ("vpp_stages_per_rank", ["--num-virtual-stages-per-pipeline-rank"]),
    ("pp_layout", ["--pipeline-model-parallel-layout"]),
    ("pp_first_last", []),  # filled specially
    ("cp", ["--context-parallel-size"]),
    ("cp_comm", ["--cp-comm-type"]),
    ("ep", ["--expert-model-parallel-size"]),
    ("etp", ["--expert-tensor-parallel-size"]),
    ("sp", ["--sequence-parallel"]),
    ("dist_opt", ["--use-distributed-optimizer"]),
    ("dist_opt_instances", ["--num-distributed-optimizer-instances"]),
    ("fsdp", []),  # filled specially
    ("recompute_granularity", ["--recompute-granularity"]),
    ("recompute_method", ["--recompute-method"]),
    ("recompute_num_layers", ["--recompute-num-layers"]),
    ("recompute_modules", ["--recompute-modules"]),
    ("num_experts", ["--num-experts"]),
    ("topk", ["--moe-router-topk"]),
    ("moe_ffn", ["--moe-ffn-hidden-size"]),
    ("shared_expert", ["--moe-shared-expert-intermediate-size"]),
    ("moe_layer_freq", ["--moe-layer-freq"]),
    ("moe_grouped_gemm", ["--moe-grouped-gemm"]),
    ("moe_dispatcher", ["--moe-token-dispatcher-type"]),
    ("moe_router_dtype", ["--moe-router-dtype"]),
    ("mla", ["--multi-latent-attention"]),
    ("q_lora_rank", ["--q-lora-rank"]),
    ("kv_lora_rank", ["--kv-lora-rank"]),
    ("qk_head_dim", ["--qk-head-dim"]),
    ("qk_pos_emb_head_dim", ["--qk-pos-emb-head-dim"]),
    ("v_head_dim", ["--v-head-dim"]),
    ("mtp", ["--mtp-num-layers"]),
    ("swiglu", ["--swiglu"]),
    ("squared_relu", ["--squared-relu"]),
    ("norm", ["--normalization"]),
    ("qk_layernorm", ["--qk-layernorm"]),
    ("pos", ["--position-embedding-type"]),
    ("use_rotary", ["--use-rotary-position-embeddings"]),
    ("rotary_percent", ["--rotary-percent"]),
    ("untie", ["--untie-embeddings-and-output-weights"]),
    ("vocab_size", ["--vocab-size"]),
    ("padded_vocab_size", ["--padded-vocab-size"]),
    ("tokenizer_type", ["--tokenizer-type"]),
    ("vocab_file", ["--vocab-file"]),
    ("tokenizer_model", ["--tokenizer-model"]),
    ("vocab_div", ["--make-vocab-size-divisible-by"]),
    ("hidden_dropout", ["--hidden-dropout"]),
    ("attention_dropout", ["--attention-dropout"]),
    ("bf16", ["--bf16"]),
    ("fp16", ["--fp16"]),
    ("fp8", ["--fp8-format"]),
    ("fp8_recipe", ["--fp8-recipe"]),
    ("fp8_param_gather", ["--fp8-param-gather"]),
    ("fp4", []),  # filled specially
    ("overlap_grad_reduce", ["--overlap-grad-reduce"]),
    ("overlap_param_gather", ["--overlap-param-gather"]),
    ("optimizer", ["--optimizer"]),
    ("precision_aware_opt", ["--use-precision-aware-optimizer"]),
    ("main_grads_dtype", ["--main-grads-dtype"]),
    ("main_params_dtype", ["--main-params-dtype"]),
    ("exp_avg_dtype", ["--exp-avg-dtype"]),
    ("exp_avg_sq_dtype", ["--exp-avg-sq-dtype"]),
    ("grad_reduce_in_bf16", ["--grad-reduce-in-bf16"]),
    ("accum_allreduce_fp32", ["--accumulate-allreduce-grads-in-fp32"]),
    ("offload", []),  # filled specially
    ("attention_backend", ["--attention-backend"]),
    ("transformer_impl", ["--transformer-impl"]),
    ("spec", ["--spec"]),
    ("disable_bias_linear", ["--disable-bias-linear"]),
    ("add_qkv_bias", ["--add-qkv-bias"]),
    ("num_workers", ["--num-workers"]),
    ("cuda_graph", []),  # filled specially
    ("empty_unused_mem", ["--empty-unused-memory-level"]),
    ("no_grad_accum_fusion", ["--no-gradient-accumulation-fusion"]),
    ("attn_softmax_fp32", ["--attention-softmax-in-fp32"]),
    ("qk_layer_scaling", ["--apply-query-key-layer-scaling"]),
    ("moe_lb_type", ["--moe-router-load-balancing-type"]),
    ("ce_loss_fusion", ["--cross-entropy-loss-fusion"]),
    ("train_iters", ["--train-iters"]),
    ("exit_interval", ["--exit-interval"]),
]

# keys that are "boring" (logging/paths/lr/ckpt/etc.) -- not reported in other_args
BORING_RE = re.compile(
    r"^--(log-|tensorboard|timing-log|wandb|save|load|data-|split|lr|min-lr|weight-decay|clip-grad|"
    r"adam-|init-method-std|seed|eval-|distributed-backend|distributed-timeout|ckpt-|dist-ckpt|async-|"
    r"use-persistent-ckpt-worker|use-checkpoint|auto-detect-ckpt|no-load-|no-save-|deterministic-mode|"
    r"use-mcore-models|merge-file|exit-duration|manual-gc|no-mmap-bin-files|no-create-attention-mask|"
    r"finetune|override-opt|mock-data|check-weight-hash|rerun-mode|logging-level|tiktoken-pattern|"
    r"no-use-tokenizer-model-from-checkpoint|straggler|no-check-for-nan|no-persist-layer-norm|"
    r"no-gradient-accumulation-fusion|no-bias-gelu-fusion|no-masked-softmax-fusion|no-rope-fusion|"
    r"attention-softmax-in-fp32|apply-query-key-layer-scaling|train-samples|decoupled-|"
    r"norm-epsilon|rotary-base|rotary-scaling-factor|moe-aux-loss-coeff|moe-z-loss-coeff|"
    r"moe-router-load-balancing-type|moe-router-score-function|moe-router-pre-softmax|"
    r"moe-router-topk-scaling-factor|moe-router-enable-expert-bias|moe-router-bias-update-rate|"
    r"moe-router-num-groups|moe-router-group-topk|moe-permute-fusion|mtp-loss-scaling-factor|"
    r"mscale|mscale-all-dim|cross-entropy|no-ckpt|record-throughput|no-record-throughput|"
    r"dataloader-type|max-tokens-to-oom|use-tp-pp-dp-mapping|te-rng-tracker|calculate-per-token-loss|"
    r"verify-integrity|vocab-extra-ids|test-mode|export-)"
)


def special_cols(args):
    d = {}
    fl = []
    for k in ("--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers",
              "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"):
        if k in args:
            fl.append(f"{k[2:]}={a(args, k)}")
    d["pp_first_last"] = ";".join(fl)
    fs = [f"{k[2:]}={a(args, k)}" for k in args
          if "fsdp" in k or k in ("--data-parallel-sharding-strategy", "--outer-dp-sharding-strategy")]
    d["fsdp"] = ";".join(fs)
    d["fp4"] = ";".join(f"{k[2:]}={a(args, k)}" for k in args if re.match(r"^--(fp4|mxfp|nvfp4)", k)
                        or "mxfp8" in k or k in ("--first-last-layers-bf16",
                                                  "--num-layers-at-start-in-bf16",
                                                  "--num-layers-at-end-in-bf16"))
    d["offload"] = ";".join(f"{k[2:]}={a(args, k)}" for k in args if "offload" in k)
    d["cuda_graph"] = ";".join(f"{k[2:]}={a(args, k)}" for k in args
                               if "cuda-graph" in k or "cuda_graph" in k)
    return d


def arg_str(v):
    if v is True:
        return "true"
    if isinstance(v, list):
        return " ".join(map(str, v))
    return str(v)


def main():
    recipes = load_recipes()
    files = [f for f in ls(TC_ROOT) if f]
    by_dir = defaultdict(set)
    for f in files:
        d, b = f.rsplit("/", 1)
        by_dir[d].add(b)

    ARG_KEYS = set(k for _, ks in ARG_COLS for k in ks)
    header = (["case", "model_dir", "test_case", "golden_file", "platform", "mem_max_bytes",
               "mem_max_GiB", "mem_max_step", "mem_step1_bytes", "mem_first_step", "mem_last_step",
               "mem_n_steps", "mem_max_pre_save_bytes", "save_interval", "mem_alloc_step1_bytes",
               "mem_alloc_max_bytes", "recipe", "recipe_nodes", "recipe_gpus_per_node", "recipe_total_gpus",
               "recipe_platform_env", "all_recipes", "gpus_used", "gpus_source", "test_type", "has_model_args_2", "model_env_gpus_per_node", "alloc_conf", "launcher",
               "other_golden_files"]
              + [c for c, _ in ARG_COLS] + ["other_args"])
    rows = []
    stats = Counter()
    for d in sorted(by_dir):
        names = by_dir[d]
        if "model_config.yaml" not in names:
            continue
        stats["case_dirs"] += 1
        chosen = None
        for plat, fn in GOLDEN_PREF:
            if fn not in names:
                continue
            try:
                gv = json.loads(show(f"{d}/{fn}"))
            except Exception as e:
                print(f"WARN: bad json {d}/{fn}: {e}", file=sys.stderr)
                continue
            met = parse_metric(gv) if isinstance(gv, dict) else None
            if met:
                chosen = (plat, fn, met, gv)
                break
        if not chosen:
            continue
        plat, fn, met, gv = chosen
        stats[f"golden:{fn}"] += 1
        try:
            cfg = yaml.safe_load(show(f"{d}/model_config.yaml")) or {}
        except Exception as e:
            print(f"WARN: bad yaml {d}: {e}", file=sys.stderr)
            cfg = {}
        args = cfg.get("MODEL_ARGS") or {}
        # drop false-valued / empty flags (harness skips "" values; false would be odd)
        args = {k: v for k, v in args.items() if v is not None and v != ""}
        # steady-state allocated bytes (params+grads+optimizer state etc.)
        alloc = parse_metric(gv, "mem-allocated-bytes")
        # peak over steps up to and including the first checkpoint save (save may add allocations)
        save_int = args.get("--save-interval", "")
        pre_save = ""
        try:
            si = int(save_int)
            vals = gv[METRIC]["values"]
            pv = [to_float(v) for k, v in vals.items() if int(k) <= si]
            pv = [v for v in pv if v is not None]
            pre_save = int(max(pv)) if pv else ""
        except (TypeError, ValueError, AttributeError):
            pass
        menv = ""
        if isinstance(cfg.get("MODEL_ENV_VARS"), dict):
            menv = (cfg["MODEL_ENV_VARS"].get("MODEL_ARGS") or {}).get("GPUS_PER_NODE", "")
        rel = d[len(TC_ROOT) + 1:]
        model_dir, test_case = rel.split("/", 1)
        env = "lts" if "_lts_" in fn else "dev"
        rec, allrec = pick_recipe(recipes.get((model_dir, test_case), []), plat, env)
        infer_ok = rec is None and model_dir in ("gpt", "moe", "bert", "t5") \
            and "release" not in test_case
        if rec is None:
            stats["no_recipe"] += 1
        total = (rec["nodes"] * rec["gpus"]) if rec and rec["nodes"] and rec["gpus"] is not None else ""
        allrec_s = ";".join(sorted({f"{r['recipe']}({r['nodes']}x{r['gpus']})" for r in allrec}))
        row = {
            "case": rel, "model_dir": model_dir, "test_case": test_case, "golden_file": fn,
            "platform": plat, "mem_max_bytes": int(met["max"]),
            "mem_max_GiB": f"{met['max'] / 2**30:.3f}", "mem_max_step": met["argmax_step"],
            "mem_step1_bytes": "" if met["step1"] is None else int(met["step1"]),
            "mem_first_step": met["first_step"], "mem_last_step": met["last_step"],
            "mem_n_steps": met["n_steps"],
            "save_interval": save_int,
            "mem_max_pre_save_bytes": pre_save,
            "mem_alloc_step1_bytes": "" if not alloc or alloc["step1"] is None else int(alloc["step1"]),
            "mem_alloc_max_bytes": "" if not alloc else int(alloc["max"]),
            "model_env_gpus_per_node": menv,
            "alloc_conf": (cfg.get("ENV_VARS") or {}).get("PYTORCH_CUDA_ALLOC_CONF", ""),
            "recipe": rec["recipe"] if rec else "", "recipe_nodes": rec["nodes"] if rec else "",
            "recipe_gpus_per_node": rec["gpus"] if rec else "", "recipe_total_gpus": total,
            "recipe_platform_env": f"{rec['platform']}/{rec['env']}" if rec else "",
            "all_recipes": allrec_s,
            "gpus_used": (int(menv) * (rec["nodes"] if rec else 1)) if menv != "" else
                         (total if rec else (8 if infer_ok else "")),
            "gpus_source": ("MODEL_ENV_VARS.MODEL_ARGS.GPUS_PER_NODE overrides recipe gpus"
                            if menv != "" else "recipe" if rec else
                            ("INFERRED: no recipe lists this case at HEAD; every h100/ training "
                             f"recipe for model dir '{model_dir}' is 1 node x 8 GPUs"
                             if infer_ok else "UNKNOWN: no recipe at HEAD (release test)")),
            "test_type": cfg.get("TEST_TYPE", ""),
            "has_model_args_2": "MODEL_ARGS_2" in cfg, "launcher": cfg.get("LAUNCHER", ""),
            "other_golden_files": ",".join(sorted(n for n in names
                                                  if n.startswith("golden_values") and n != fn)),
        }
        for c, ks in ARG_COLS:
            row[c] = a(args, *ks) if ks else ""
        row.update(special_cols(args))
        other = [f"{k[2:]}={arg_str(v)}" for k, v in args.items()
                 if k not in ARG_KEYS and not BORING_RE.match(k)
                 and not any(s in k for s in ("fsdp", "offload", "cuda-graph", "fp4", "mxfp"))
                 and k not in ("--decoder-first-pipeline-num-layers",
                               "--decoder-last-pipeline-num-layers",
                               "--account-for-embedding-in-pipeline-split",
                               "--account-for-loss-in-pipeline-split",
                               "--data-parallel-sharding-strategy",
                               "--outer-dp-sharding-strategy", "--first-last-layers-bf16",
                               "--num-layers-at-start-in-bf16", "--num-layers-at-end-in-bf16")]
        row["other_args"] = ";".join(other)
        rows.append(row)

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(h, "")).replace("\t", " ").replace("\n", " ")
                              for h in header) + "\n")

    # ---- summary
    print(f"repo={REPO} rev={REV}")
    print(f"test-case dirs with model_config.yaml: {stats['case_dirs']}")
    print(f"cases with {METRIC} in an H100/A100 golden file: {len(rows)} -> {OUT}")
    for k, v in sorted(stats.items()):
        if k.startswith("golden:"):
            print(f"  chosen {k[7:]}: {v}")
    print(f"  cases with no recipe entry found: {stats['no_recipe']}")
    c = Counter(r["model_dir"] for r in rows)
    print("  by model dir: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items())))
    c = Counter(r["gpus_source"][:8] for r in rows)
    print("  gpus source: " + ", ".join(f"{k}: {v}" for k, v in sorted(c.items())))
    c = Counter(str(r["recipe_total_gpus"]) + f" ({r['recipe_nodes']}x{r['recipe_gpus_per_node']})"
                for r in rows)
    print("  by recipe GPUs: " + ", ".join(f"{k}: {v}" for k, v in sorted(c.items())))
    feats = Counter()
    for r in rows:
        for k in ("fp8", "fp16", "offload", "cuda_graph", "fsdp", "fp4", "mla", "mtp", "num_experts",
                  "vpp_layers_per_stage", "vpp_stages_per_rank", "recompute_granularity", "sp",
                  "dist_opt", "swiglu", "pp_layout"):
            if r[k] and r[k] != "false":
                feats[k] += 1
        for k in ("cp", "ep", "etp", "tp", "pp"):
            if r[k] and r[k] not in ("1",):
                feats[f"{k}>1"] += 1
    print("  feature counts: " + ", ".join(f"{k}={v}" for k, v in sorted(feats.items())))


if __name__ == "__main__":
    main()
