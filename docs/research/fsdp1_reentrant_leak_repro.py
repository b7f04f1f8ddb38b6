# Repro (CPU, gloo) of the FSDP1 + reentrant-checkpoint + frozen-FlatParameter retention described in fsdp1_lora_gap.md.
# Run: MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=0 python fsdp1_reentrant_leak_repro.py {plain 1|fsdp 2|fsdp_full 2|fsdp_nonreentrant 2|fsdp_nohook 2|fsdp_inner 2}
# fsdp_inner: the checkpoint inside each FSDP unit (apply_activation_checkpointing after wrapping, as Answer.AI's train.py does).
# Numbers are RSS deltas in MiB (one hidden tensor T*H fp32 = 64 MiB, L = 8 layers).
import os, sys, gc, functools, torch, torch.nn as nn, torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.checkpoint import checkpoint
T, H, L = 8192, 2048, 8          # one hidden tensor = 64 MiB fp32
MiB = 2**20
PROBE = []
REENTRANT = 'nonreentrant' not in sys.argv[1]
INNER = 'inner' in sys.argv[1]
def rss():
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * 4096 / MiB

class Lora(nn.Module):
    def __init__(s):
        super().__init__(); s.A = nn.Linear(H, 4, bias=False); s.B = nn.Linear(4, H, bias=False)
    def forward(s, x): return s.B(s.A(x))
class Layer(nn.Module):
    def __init__(s):
        super().__init__(); s.w = nn.Linear(H, H, bias=False); s.lora = Lora()
    def forward(s, x): return x + torch.tanh(s.w(x) + s.lora(x))
class Model(nn.Module):
    def __init__(s):
        super().__init__(); s.emb = nn.Linear(H, H, bias=False); s.layers = nn.ModuleList([Layer() for _ in range(L)])
    def forward(s, x):
        h = s.emb(x); h.requires_grad_(True)
        if PROBE: h.register_hook(PROBE[0])
        for l in s.layers: h = l(h) if INNER else checkpoint(l.__call__, h, use_reentrant=REENTRANT)
        return h.float().pow(2).mean()

def run(rank, world, mode):
    torch.manual_seed(0)
    m = Model()
    for n, p in m.named_parameters(): p.requires_grad = (".lora." in n) or (mode == "fsdp_full" and not n.startswith("emb"))
    if mode != "plain":
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
        dist.init_process_group("gloo", rank=rank, world_size=world)
        if "nohook" in mode:
            import torch.distributed.fsdp._runtime_utils as ru
            ru._register_post_backward_reshard_only_hook = lambda *a, **k: None
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy, BackwardPrefetch
        from torch.distributed.fsdp.wrap import lambda_auto_wrap_policy, transformer_auto_wrap_policy, _or_policy
        lam = functools.partial(lambda_auto_wrap_policy, lambda_fn=lambda mod: len(list(mod.children())) == 0 and getattr(mod, "weight", None) is not None and mod.weight.requires_grad)
        tr = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Layer})
        m = FSDP(m, auto_wrap_policy=functools.partial(_or_policy, policies=[lam, tr]), use_orig_params=True,
                 sharding_strategy=ShardingStrategy.FULL_SHARD, backward_prefetch=BackwardPrefetch.BACKWARD_PRE,
                 limit_all_gathers=True, device_id=torch.device("cpu"))
        if INNER:
            # Answer.AI's train.py: apply_activation_checkpointing after FSDP wrapping, so each
            # decoder layer's checkpoint sits inside its FSDP unit.
            from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import apply_activation_checkpointing, checkpoint_wrapper, CheckpointImpl
            apply_activation_checkpointing(m, checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.REENTRANT if REENTRANT else CheckpointImpl.NO_REENTRANT), check_fn=lambda s: isinstance(s, Layer))
    x = torch.randn(T, H)
    samples = []
    inner = m.module if mode != "plain" else m
    def probe(tag):
        def h(g):
            gc.collect(); samples.append((tag, rss())); return g
        return h
    PROBE.clear(); PROBE.append(probe("end_of_layer0_bwd"))
    for it in range(2):
        gc.collect(); base = rss(); samples.clear()
        loss = m(x)
        samples.append(("after_fwd", rss()))
        # probe at the gradient of each layer output: register on module outputs via hooks is hard; use embedding grad
        loss.backward()
        samples.append(("after_bwd", rss()))
        if rank == 0:
            print(f"[{mode} world={world} it={it}] base={base:.0f}MiB " + " ".join(f"{t}={v-base:+.0f}" for t, v in samples), flush=True)
    if mode != "plain": dist.destroy_process_group()

if __name__ == "__main__":
    mode = sys.argv[1]; world = int(sys.argv[2])
    if world == 1: run(0, 1, mode)
    else: mp.spawn(run, args=(world, mode), nprocs=world)
