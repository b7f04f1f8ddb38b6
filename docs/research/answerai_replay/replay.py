# CPU replay of Answer.AI fsdp_qlora train.py (early March 2024, e4968fd) LoRA/QLoRA bf16 path.
# usage: python replay.py MODE TRAIN B S [L H I nh V max_pos]
#   MODE: fsdp (FULL_SHARD, world 2) | ddp (FSDP NO_SHARD, world 2) | plain (no FSDP, 1 process)
#         suffixes: _noreent (NO_REENTRANT ckpt), _nogc (no checkpointing), _origp (use_orig_params=True)
#   TRAIN: lora | qlora
import os, sys, time, json, functools, torch, torch.nn as nn, torch.distributed as dist
import torch.multiprocessing as mp
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama438 import Cfg, LlamaForCausalLM, LlamaDecoderLayer, inject_lora
import memtrack
from memtrack import Tracker, CTX

MiB = 2 ** 20


def build(c, train, rank):
    torch.manual_seed(0)
    m = LlamaForCausalLM(c).to(torch.bfloat16)            # precision=bf16: model.to(bf16)
    targets = ["k_proj", "q_proj", "v_proj", "up_proj", "down_proj", "gate_proj"]   # train.py lora_target_modules="all"
    inject_lora(m, targets, r=64 if c.H >= 512 else 16, alpha=16, dropout=0.1, qlora=(train == "qlora"))
    return m


def wrap_policy():
    # train.py get_wrapping_policy(custom_policy=False) (e4968fd:417-453)
    from torch.distributed.fsdp.wrap import lambda_auto_wrap_policy, transformer_auto_wrap_policy, _or_policy
    def lambda_policy_fn(module):
        return (len(list(module.named_children())) == 0 and getattr(module, "weight", None) is not None
                and module.weight.requires_grad)
    lam = functools.partial(lambda_auto_wrap_policy, lambda_fn=lambda_policy_fn)
    tr = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls=(LlamaDecoderLayer,))
    return functools.partial(_or_policy, policies=[lam, tr])


def run(rank, world, mode, train, B, S, c, out_path):
    torch.set_num_threads(1)
    fsdp = mode.startswith("fsdp") or mode.startswith("ddp")
    m = build(c, train, rank)
    layers = list(m.model.layers)
    for i, l in enumerate(layers):
        l.register_forward_pre_hook(lambda mod, a, i=i: CTX.__setitem__(0, f"L{i}"))
    m.model.norm.register_forward_pre_hook(lambda *a: CTX.__setitem__(0, "norm"))
    m.lm_head.register_forward_pre_hook(lambda *a: CTX.__setitem__(0, "lm_head"))
    m.lm_head.register_forward_hook(lambda *a: CTX.__setitem__(0, "loss"))
    m.model.embed_tokens.register_forward_pre_hook(lambda *a: CTX.__setitem__(0, "embed"))
    if fsdp:
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29541")
        dist.init_process_group("gloo", rank=rank, world_size=world)
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
        m = FSDP(m, sharding_strategy=ShardingStrategy.NO_SHARD if mode.startswith("ddp") else ShardingStrategy.FULL_SHARD,
                 auto_wrap_policy=wrap_policy(), use_orig_params=("_origp" in mode), cpu_offload=None,
                 limit_all_gathers=True, device_id=torch.device("cpu"), mixed_precision=None)
    if "_nogc" not in mode:
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
            apply_activation_checkpointing, checkpoint_wrapper, CheckpointImpl)
        if "_noreent" not in mode:
            m.enable_input_require_grads()
        wr = functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.NO_REENTRANT if "_noreent" in mode else CheckpointImpl.REENTRANT)
        apply_activation_checkpointing(m, checkpoint_wrapper_fn=wr, check_fn=lambda s: isinstance(s, LlamaDecoderLayer))
    else:
        m.enable_input_require_grads()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-5, betas=(0.9, 0.95), eps=1e-5, weight_decay=0.1)
    g = torch.Generator().manual_seed(rank)
    ids = torch.randint(0, c.V, (B, S), generator=g)
    res = []
    for it in range(2):
        tr = Tracker(); tr.scan_gc(); base = tr.current()
        t0 = time.time()
        with tr:
            CTX[0] = "fwd"
            output = m(ids, labels=ids, attention_mask=None)
            loss = output.loss
            tr.mark("after_fwd")
            CTX[0] = "bwd"
            loss.backward()
            tr.mark("after_bwd")
            CTX[0] = "opt"
            opt.step(); opt.zero_grad()
            tr.mark("after_step")
            output = None; loss = None
        top = sorted(tr.peak_summary.items(), key=lambda kv: -kv[1])[:40]
        res.append(dict(it=it, base=base, peak=tr.peak, peak_over_base=tr.peak - base, peak_at=tr.peak_ctx,
                        samples=[(l, v - base) for l, v in tr.samples], secs=time.time() - t0,
                        top=[(list(k), v) for k, v in top]))
        if rank == 0:
            print(f"[{mode} {train} B={B} S={S} it={it}] base={base/MiB:.1f} peak+{(tr.peak-base)/MiB:.2f}MiB at {tr.peak_ctx} "
                  + " ".join(f"{l}={(v-base)/MiB:+.2f}" for l, v in tr.samples) + f" ({time.time()-t0:.0f}s)", flush=True)
    if rank == 0 and out_path:
        with open(out_path, "w") as f:
            json.dump(dict(mode=mode, train=train, B=B, S=S, cfg=vars(c), runs=res), f, indent=1)
    if fsdp:
        dist.destroy_process_group()


if __name__ == "__main__":
    mode, train, B, S = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    dims = [int(x) for x in sys.argv[5:11]] if len(sys.argv) > 5 else []
    c = Cfg(*dims)
    out = os.environ.get("OUT_JSON", "")
    if mode.startswith("plain"):
        run(0, 1, mode, train, B, S, c, out)
    else:
        mp.spawn(run, args=(2, mode, train, B, S, c, out), nprocs=2)
